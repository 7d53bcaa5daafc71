/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The data path of struct ibv_context_ops: what the inline ibv_post_send(),
 * ibv_post_recv(), ibv_post_srq_recv(), ibv_poll_cq() and
 * ibv_req_notify_cq() of the program call. Work requests, SGEs and work
 * completions have the same layout in both APIs (checked below), so the
 * program's lists and arrays go to the pollverbs driver unchanged: one
 * indirect call more than a native pollverbs program. Only a UD send (its
 * AH is a compat object) and a bind of a memory window (the same) are
 * copied and translated first.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>

#include "pv_verbs.h"
#include "compat_priv.h"

#define PVC_SAME(t, f) \
	(offsetof(struct ibv_##t, f) == offsetof(struct pv_##t, f) && \
	 sizeof(((struct ibv_##t *)0)->f) == sizeof(((struct pv_##t *)0)->f))

_Static_assert(sizeof(struct ibv_sge) == sizeof(struct pv_sge) && PVC_SAME(sge, addr) &&
	       PVC_SAME(sge, length) && PVC_SAME(sge, lkey), "pv_sge is ibv_sge");
_Static_assert(sizeof(struct ibv_recv_wr) == sizeof(struct pv_recv_wr) &&
	       PVC_SAME(recv_wr, wr_id) && PVC_SAME(recv_wr, next) &&
	       PVC_SAME(recv_wr, sg_list) && PVC_SAME(recv_wr, num_sge),
	       "pv_recv_wr is ibv_recv_wr");
_Static_assert(sizeof(struct ibv_send_wr) == sizeof(struct pv_send_wr) &&
	       PVC_SAME(send_wr, wr_id) && PVC_SAME(send_wr, next) &&
	       PVC_SAME(send_wr, sg_list) && PVC_SAME(send_wr, num_sge) &&
	       PVC_SAME(send_wr, opcode) && PVC_SAME(send_wr, send_flags) &&
	       PVC_SAME(send_wr, imm_data) && PVC_SAME(send_wr, invalidate_rkey) &&
	       PVC_SAME(send_wr, wr.rdma.remote_addr) && PVC_SAME(send_wr, wr.rdma.rkey) &&
	       PVC_SAME(send_wr, wr.atomic.remote_addr) &&
	       PVC_SAME(send_wr, wr.atomic.compare_add) && PVC_SAME(send_wr, wr.atomic.swap) &&
	       PVC_SAME(send_wr, wr.atomic.rkey) && PVC_SAME(send_wr, wr.ud.ah) &&
	       PVC_SAME(send_wr, wr.ud.remote_qpn) && PVC_SAME(send_wr, wr.ud.remote_qkey) &&
	       PVC_SAME(send_wr, qp_type.xrc.remote_srqn) && PVC_SAME(send_wr, bind_mw.mw) &&
	       PVC_SAME(send_wr, bind_mw.rkey) && PVC_SAME(send_wr, bind_mw.bind_info) &&
	       PVC_SAME(send_wr, tso.hdr) && PVC_SAME(send_wr, tso.hdr_sz) &&
	       PVC_SAME(send_wr, tso.mss), "pv_send_wr is ibv_send_wr");
_Static_assert(sizeof(struct ibv_wc) == sizeof(struct pv_wc) && PVC_SAME(wc, wr_id) &&
	       PVC_SAME(wc, status) && PVC_SAME(wc, opcode) && PVC_SAME(wc, vendor_err) &&
	       PVC_SAME(wc, byte_len) && PVC_SAME(wc, imm_data) &&
	       PVC_SAME(wc, invalidated_rkey) && PVC_SAME(wc, qp_num) &&
	       PVC_SAME(wc, src_qp) && PVC_SAME(wc, wc_flags) && PVC_SAME(wc, pkey_index) &&
	       PVC_SAME(wc, slid) && PVC_SAME(wc, sl) && PVC_SAME(wc, dlid_path_bits),
	       "pv_wc is ibv_wc");
_Static_assert(IBV_WR_ATOMIC_WRITE == (int)PV_WR_ATOMIC_WRITE &&
	       IBV_WR_BIND_MW == (int)PV_WR_BIND_MW && IBV_WC_RECV == (int)PV_WC_RECV &&
	       IBV_WC_TM_RNDV_INCOMPLETE == (int)PV_WC_TM_RNDV_INCOMPLETE &&
	       IBV_SEND_INLINE == (int)PV_SEND_INLINE && IBV_WC_WITH_INV == (int)PV_WC_WITH_INV,
	       "opcodes, statuses and flags are libibverbs'");

/* WRs translated per call on the slow path (UD, BIND_MW) */
#define PVC_XLATE_BATCH 32

/*
 * The program's WRs with their compat AH and MW pointers replaced by the
 * pollverbs objects, PVC_XLATE_BATCH at a time. The AH of a UD WR and the
 * MW of a BIND_MW are the only pointers to objects in a send WR.
 */
static __rte_noinline int
pvc_post_send_xlate(struct pvc_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct pv_send_wr copy[PVC_XLATE_BATCH];
	struct pv_send_wr *bad;
	struct ibv_send_wr *w;
	struct ibv_send_wr *first;
	int n;
	int i;
	int ret;

	while (wr != NULL) {
		first = wr;
		for (n = 0, w = wr; w != NULL && n < PVC_XLATE_BATCH; n++, w = w->next) {
			memcpy(&copy[n], w, sizeof(copy[n]));
			copy[n].next = n + 1 < PVC_XLATE_BATCH && w->next != NULL ?
				       &copy[n + 1] : NULL;
			if (qp->translate_ah && w->wr.ud.ah != NULL)
				copy[n].wr.ud.ah = PVC_CONTAINER(w->wr.ud.ah, struct pvc_ah,
								 ibv)->pv;
			if (w->opcode == IBV_WR_BIND_MW) {
				/* type 2 windows are not offered (no alloc_mw op) */
				*bad_wr = w;
				return EINVAL;
			}
		}
		wr = w;
		ret = pv_post_send(qp->pv, copy, &bad);
		if (ret != 0) {
			for (i = 0, w = first; &copy[i] != bad; i++)
				w = w->next;
			*bad_wr = w;
			return ret;
		}
	}
	return 0;
}

int
pv_compat_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct pvc_qp *qp = pvc_qp(ibqp);

	if (unlikely(qp->translate_ah))
		return pvc_post_send_xlate(qp, wr, bad_wr);
	/* the same bytes (asserted above): pass the program's list through */
	return pv_post_send(qp->pv, (struct pv_send_wr *)wr, (struct pv_send_wr **)bad_wr);
}

int
pv_compat_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return pv_post_recv(pvc_qp(qp)->pv, (struct pv_recv_wr *)wr, (struct pv_recv_wr **)bad_wr);
}

int
pv_compat_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return pv_post_srq_recv(pvc_srq(srq)->pv, (struct pv_recv_wr *)wr,
				(struct pv_recv_wr **)bad_wr);
}

int
pv_compat_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	return pv_poll_cq(pvc_cq(cq)->pv, num_entries, (struct pv_wc *)wc);
}

int
pv_compat_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return pv_req_notify_cq(pvc_cq(cq)->pv, solicited_only);
}
