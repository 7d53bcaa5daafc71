/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The function pointers of struct ibv_cq_ex (ibv_start_poll(3),
 * ibv_wc_read_*) and struct ibv_qp_ex (ibv_wr_post(3)), which the
 * program's inline verbs call: each forwards to the pollverbs extended
 * object's own. The program writes wr_id and wr_flags into its ibv_qp_ex
 * before a builder and reads status and wr_id from its ibv_cq_ex after
 * start_poll/next_poll, so those are copied across at those points.
 */

#include <errno.h>
#include <string.h>

#include "pv_verbs.h"
#include "compat_priv.h"

_Static_assert(sizeof(struct ibv_data_buf) == sizeof(struct pv_data_buf) &&
	       sizeof(struct ibv_wc_tm_info) == sizeof(struct pv_wc_tm_info) &&
	       sizeof(struct ibv_poll_cq_attr) == sizeof(struct pv_poll_cq_attr),
	       "pv_data_buf, pv_wc_tm_info and pv_poll_cq_attr are libibverbs'");

static inline struct pvc_cq *
pvc_cqx(struct ibv_cq_ex *cq)
{
	return PVC_CONTAINER(cq, struct pvc_cq, ibv);
}

static inline struct pv_cq_ex *
pvc_cqx_pv(struct ibv_cq_ex *cq)
{
	return pvc_cqx(cq)->pvx;
}

static inline int
pvc_cq_current(struct ibv_cq_ex *cq, int ret)
{
	struct pv_cq_ex *p = pvc_cqx_pv(cq);

	if (ret == 0) {
		cq->status = (enum ibv_wc_status)p->status;
		cq->wr_id = p->wr_id;
	}
	return ret;
}

static int
pvc_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	return pvc_cq_current(cq, pv_start_poll(pvc_cqx_pv(cq), (struct pv_poll_cq_attr *)attr));
}

static int
pvc_next_poll(struct ibv_cq_ex *cq)
{
	return pvc_cq_current(cq, pv_next_poll(pvc_cqx_pv(cq)));
}

static void
pvc_end_poll(struct ibv_cq_ex *cq)
{
	pv_end_poll(pvc_cqx_pv(cq));
}

static enum ibv_wc_opcode
pvc_read_opcode(struct ibv_cq_ex *cq)
{
	return (enum ibv_wc_opcode)pv_wc_read_opcode(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_vendor_err(struct ibv_cq_ex *cq)
{
	return pv_wc_read_vendor_err(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_byte_len(struct ibv_cq_ex *cq)
{
	return pv_wc_read_byte_len(pvc_cqx_pv(cq));
}

static __be32
pvc_read_imm_data(struct ibv_cq_ex *cq)
{
	return pv_wc_read_imm_data(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_qp_num(struct ibv_cq_ex *cq)
{
	return pv_wc_read_qp_num(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_src_qp(struct ibv_cq_ex *cq)
{
	return pv_wc_read_src_qp(pvc_cqx_pv(cq));
}

static unsigned int
pvc_read_wc_flags(struct ibv_cq_ex *cq)
{
	return pv_wc_read_wc_flags(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_slid(struct ibv_cq_ex *cq)
{
	return pv_wc_read_slid(pvc_cqx_pv(cq));
}

static uint8_t
pvc_read_sl(struct ibv_cq_ex *cq)
{
	return pv_wc_read_sl(pvc_cqx_pv(cq));
}

static uint8_t
pvc_read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return pv_wc_read_dlid_path_bits(pvc_cqx_pv(cq));
}

static uint64_t
pvc_read_completion_ts(struct ibv_cq_ex *cq)
{
	return pv_wc_read_completion_ts(pvc_cqx_pv(cq));
}

static uint64_t
pvc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
	return pv_wc_read_completion_wallclock_ns(pvc_cqx_pv(cq));
}

static uint16_t
pvc_read_cvlan(struct ibv_cq_ex *cq)
{
	return pv_wc_read_cvlan(pvc_cqx_pv(cq));
}

static uint32_t
pvc_read_flow_tag(struct ibv_cq_ex *cq)
{
	return pv_wc_read_flow_tag(pvc_cqx_pv(cq));
}

static void
pvc_read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info)
{
	pv_wc_read_tm_info(pvc_cqx_pv(cq), (struct pv_wc_tm_info *)tm_info);
}

void
pv_compat_cq_ex_init(struct pvc_cq *cq)
{
	struct ibv_cq_ex *c = &cq->ibv;

	c->comp_mask = cq->pvx->comp_mask;
	c->start_poll = pvc_start_poll;
	c->next_poll = pvc_next_poll;
	c->end_poll = pvc_end_poll;
	c->read_opcode = pvc_read_opcode;
	c->read_vendor_err = pvc_read_vendor_err;
	c->read_byte_len = pvc_read_byte_len;
	c->read_imm_data = pvc_read_imm_data;
	c->read_qp_num = pvc_read_qp_num;
	c->read_src_qp = pvc_read_src_qp;
	c->read_wc_flags = pvc_read_wc_flags;
	c->read_slid = pvc_read_slid;
	c->read_sl = pvc_read_sl;
	c->read_dlid_path_bits = pvc_read_dlid_path_bits;
	c->read_completion_ts = pvc_read_completion_ts;
	c->read_cvlan = pvc_read_cvlan;
	c->read_flow_tag = pvc_read_flow_tag;
	c->read_tm_info = pvc_read_tm_info;
	c->read_completion_wallclock_ns = pvc_read_completion_wallclock_ns;
}

/* ---- ibv_qp_ex: a builder takes the program's wr_id and wr_flags ---- */

static inline struct pv_qp_ex *
pvc_qpx(struct ibv_qp_ex *qp)
{
	return PVC_CONTAINER(qp, struct pvc_qp, ibv)->pvx;
}

static inline struct pv_qp_ex *
pvc_qpx_wr(struct ibv_qp_ex *qp)
{
	struct pv_qp_ex *p = pvc_qpx(qp);

	p->wr_id = qp->wr_id;
	p->wr_flags = qp->wr_flags;
	return p;
}

static void
pvc_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		      uint64_t compare, uint64_t swap)
{
	pv_wr_atomic_cmp_swp(pvc_qpx_wr(qp), rkey, remote_addr, compare, swap);
}

static void
pvc_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	pv_wr_atomic_fetch_add(pvc_qpx_wr(qp), rkey, remote_addr, add);
}

static void
pvc_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey,
	       const struct ibv_mw_bind_info *bind_info)
{
	(void)mw;
	(void)bind_info;
	/* no window reaches the program (no alloc_mw op): fails the batch */
	pv_wr_bind_mw(pvc_qpx_wr(qp), NULL, rkey, NULL);
}

static void
pvc_wr_local_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)
{
	pv_wr_local_inv(pvc_qpx_wr(qp), invalidate_rkey);
}

static void
pvc_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	pv_wr_rdma_read(pvc_qpx_wr(qp), rkey, remote_addr);
}

static void
pvc_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	pv_wr_rdma_write(pvc_qpx_wr(qp), rkey, remote_addr);
}

static void
pvc_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		      __be32 imm_data)
{
	pv_wr_rdma_write_imm(pvc_qpx_wr(qp), rkey, remote_addr, imm_data);
}

static void
pvc_wr_send(struct ibv_qp_ex *qp)
{
	pv_wr_send(pvc_qpx_wr(qp));
}

static void
pvc_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)
{
	pv_wr_send_imm(pvc_qpx_wr(qp), imm_data);
}

static void
pvc_wr_send_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)
{
	pv_wr_send_inv(pvc_qpx_wr(qp), invalidate_rkey);
}

static void
pvc_wr_send_tso(struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	pv_wr_send_tso(pvc_qpx_wr(qp), hdr, hdr_sz, mss);
}

static void
pvc_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		    const void *atomic_wr)
{
	pv_wr_atomic_write(pvc_qpx_wr(qp), rkey, remote_addr, atomic_wr);
}

static void
pvc_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn,
		   uint32_t remote_qkey)
{
	pv_wr_set_ud_addr(pvc_qpx(qp), ah == NULL ? NULL :
			  PVC_CONTAINER(ah, struct pvc_ah, ibv)->pv, remote_qpn, remote_qkey);
}

static void
pvc_wr_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t remote_srqn)
{
	pv_wr_set_xrc_srqn(pvc_qpx(qp), remote_srqn);
}

static void
pvc_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)
{
	pv_wr_set_inline_data(pvc_qpx(qp), addr, length);
}

static void
pvc_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf,
			    const struct ibv_data_buf *buf_list)
{
	pv_wr_set_inline_data_list(pvc_qpx(qp), num_buf, (const struct pv_data_buf *)buf_list);
}

static void
pvc_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	pv_wr_set_sge(pvc_qpx(qp), lkey, addr, length);
}

static void
pvc_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg_list)
{
	pv_wr_set_sge_list(pvc_qpx(qp), num_sge, (const struct pv_sge *)sg_list);
}

static void
pvc_wr_start(struct ibv_qp_ex *qp)
{
	pv_wr_start(pvc_qpx(qp));
}

static int
pvc_wr_complete(struct ibv_qp_ex *qp)
{
	return pv_wr_complete(pvc_qpx(qp));
}

static void
pvc_wr_abort(struct ibv_qp_ex *qp)
{
	pv_wr_abort(pvc_qpx(qp));
}

void
pv_compat_qp_ex_init(struct pvc_qp *qp)
{
	struct ibv_qp_ex *q = &qp->ibv;
	int err = errno;

	/* NULL unless created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS */
	qp->pvx = pv_qp_to_qp_ex(qp->pv);
	errno = err;
	if (qp->pvx == NULL)
		return;
	q->comp_mask = qp->pvx->comp_mask;
	q->wr_atomic_cmp_swp = pvc_wr_atomic_cmp_swp;
	q->wr_atomic_fetch_add = pvc_wr_atomic_fetch_add;
	q->wr_bind_mw = pvc_wr_bind_mw;
	q->wr_local_inv = pvc_wr_local_inv;
	q->wr_rdma_read = pvc_wr_rdma_read;
	q->wr_rdma_write = pvc_wr_rdma_write;
	q->wr_rdma_write_imm = pvc_wr_rdma_write_imm;
	q->wr_send = pvc_wr_send;
	q->wr_send_imm = pvc_wr_send_imm;
	q->wr_send_inv = pvc_wr_send_inv;
	q->wr_send_tso = pvc_wr_send_tso;
	q->wr_set_ud_addr = pvc_wr_set_ud_addr;
	q->wr_set_xrc_srqn = pvc_wr_set_xrc_srqn;
	q->wr_set_inline_data = pvc_wr_set_inline_data;
	q->wr_set_inline_data_list = pvc_wr_set_inline_data_list;
	q->wr_set_sge = pvc_wr_set_sge;
	q->wr_set_sge_list = pvc_wr_set_sge_list;
	q->wr_start = pvc_wr_start;
	q->wr_complete = pvc_wr_complete;
	q->wr_abort = pvc_wr_abort;
	q->wr_atomic_write = pvc_wr_atomic_write;
}
