/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * RC, UC and UD queue pairs: create/modify/query/destroy, post_send/post_recv
 * and the flush of both queues in ERR (the UD data path is in sroce_ud.c).
 *
 * What differs between QP kinds is chosen at create and stored on the QP:
 * post_send (UC refuses READ and atomics), the requester (qp->fp_req_tx: UC
 * completes on transmission) and the responder (qp->fp_resp_rx: RC on its
 * own RQ, RC on an SRQ, UC), so the RC fast path tests none of it.
 *
 * QP states (IBTA vol. 1 10.3.1), as the engine uses them:
 *   RESET  queues empty, not on the device's progress list.
 *   INIT   receives may be posted; no packet is accepted.
 *   RTR    responder runs (header template built, peer MAC resolved).
 *   RTS    requester runs too.
 *   ERR    nothing on the wire; every posted WR completes with WR_FLUSH_ERR.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

/*
 * Whether @p wr may be posted on a QP of type @p qpf before its slot is
 * taken: RC posts every opcode below, UC no READ, atomic or SEND_WITH_INV
 * (IBTA 9.8.1), UD SEND and SEND_WITH_IMM only, to an AH of the QP's context.
 */
static __rte_always_inline int
sroce_wr_valid(const struct sroce_qp *qp, const struct pv_send_wr *wr, const unsigned int qpf)
{
	if (qpf & SROCE_QPF_UD)
		return (wr->opcode == PV_WR_SEND || wr->opcode == PV_WR_SEND_WITH_IMM) &&
		       wr->wr.ud.ah != NULL && wr->wr.ud.ah->context == qp->ibqp.context &&
		       wr->num_sge >= 0 && (uint32_t)wr->num_sge <= qp->ibqp.cap.max_send_sge;
	switch (wr->opcode) {
	case PV_WR_RDMA_WRITE:
	case PV_WR_RDMA_WRITE_WITH_IMM:
	case PV_WR_SEND:
	case PV_WR_SEND_WITH_IMM:
	case PV_WR_LOCAL_INV:
	case PV_WR_BIND_MW:
		return 1;
	case PV_WR_RDMA_READ:
	case PV_WR_ATOMIC_CMP_AND_SWP:
	case PV_WR_ATOMIC_FETCH_AND_ADD:
	case PV_WR_SEND_WITH_INV:	/* RC (and XRC) only: IBTA table 38 */
		return !(qpf & SROCE_QPF_UC);
	default:
		return 0;
	}
}

/* the remote side of WQE @p w: UD destination, atomic or RDMA operands */
static __rte_always_inline void
sroce_swqe_remote(const struct sroce_qp *qp, const struct pv_send_wr *wr, struct sroce_swqe *w,
		  const unsigned int qpf)
{
	if (qpf & SROCE_QPF_UD) {
		w->ud.ah = container_of(wr->wr.ud.ah, struct sroce_ah, ibah);
		w->ud.remote_qpn = wr->wr.ud.remote_qpn & SROCE_QPN_MASK;
		/* IBTA 10.2.5: a Q_Key with the high bit set means the QP's own;
		 * QP1 sends the GSI Q_Key, its own, whatever the WR says (as rxe) */
		w->ud.qkey = (wr->wr.ud.remote_qkey & 0x80000000u) || qp->gsi ? qp->attr.qkey :
			     wr->wr.ud.remote_qkey;
	} else if (w->rd_atomic && wr->opcode != PV_WR_RDMA_READ) {
		w->atomic.raddr = wr->wr.atomic.remote_addr;
		w->atomic.rkey = wr->wr.atomic.rkey;
		w->atomic.compare_add = wr->wr.atomic.compare_add;
		w->atomic.swap = wr->wr.atomic.swap;
	} else {
		w->rdma.raddr = wr->wr.rdma.remote_addr;
		w->rdma.rkey = wr->wr.rdma.rkey;
	}
}

#define SROCE_MW_ACCESS (PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_WRITE | \
			 PV_ACCESS_REMOTE_ATOMIC | PV_ACCESS_ZERO_BASED)

/*
 * A local operation (BIND_MW, LOCAL_INV): no packet; the requester runs it
 * when every WQE before it has completed (sroce_req.c). The window and the
 * MR are named by index and key, never by pointer: either may be gone by
 * then, which fails the bind with PV_WC_MW_BIND_ERR. @return 0 or EINVAL.
 */
static __rte_noinline int
sroce_swqe_local(struct sroce_qp *qp, const struct pv_send_wr *wr, struct sroce_swqe *w)
{
	const struct pv_mw_bind_info *info = &wr->bind_mw.bind_info;
	const struct pv_mw *mw = wr->bind_mw.mw;

	w->local = 1;
	w->rd_atomic = 0;
	w->inl = 0;
	w->num_sge = 0;
	w->length = 0;
	if (wr->opcode == PV_WR_LOCAL_INV) {
		w->inv.rkey = wr->invalidate_rkey;
		return 0;
	}
	if (mw == NULL || mw->context != qp->ibqp.context ||
	    (info->mw_access_flags & ~SROCE_MW_ACCESS) ||
	    (info->mr != NULL && info->mr->context != qp->ibqp.context))
		return EINVAL;
	w->bind.mw_idx = pv_sroce_mw_ref(mw, &w->bind.mw_serial);
	w->bind.rkey = wr->bind_mw.rkey;
	w->bind.mr_key = info->mr != NULL ? info->mr->lkey : 0;
	w->bind.addr = info->addr;
	w->bind.length = info->length;
	w->bind.access = info->mw_access_flags;
	return 0;
}

/* build one WQE from @p wr; @return 0 or EINVAL. Always inlined: with two
 * callers (RC, UC) gcc outlined it, one more call per WR (see the commit) */
static __rte_always_inline int
sroce_swqe_fill(struct sroce_qp *qp, const struct pv_send_wr *wr, struct sroce_swqe *w,
		const unsigned int qpf)
{
	uint32_t len = 0;
	int i, ret;

	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->signaled = qp->sig_all || (wr->send_flags & PV_SEND_SIGNALED);
	w->fence = !(qpf & SROCE_QPF_UD) && (wr->send_flags & PV_SEND_FENCE) != 0;
	w->se = (wr->send_flags & PV_SEND_SOLICITED) != 0;
	w->rd_atomic = wr->opcode >= PV_WR_RDMA_READ && wr->opcode <= PV_WR_ATOMIC_FETCH_AND_ADD;
	w->local = 0;
	w->imm = wr->imm_data;
	w->rd_off = 0;
	if (qpf & SROCE_QPF_XRC)
		w->xrc_srqn = wr->qp_type.xrc.remote_srqn & SROCE_QPN_MASK;
	if (!(qpf & SROCE_QPF_UD) && unlikely(wr->opcode >= PV_WR_LOCAL_INV)) {
		if (wr->opcode != PV_WR_SEND_WITH_INV)
			return sroce_swqe_local(qp, wr, w);
		w->imm = rte_cpu_to_be_32(wr->invalidate_rkey);	/* the IETH */
	}
	sroce_swqe_remote(qp, wr, w, qpf);
	if (unlikely(wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->ibqp.cap.max_send_sge))
		return EINVAL;
	if ((wr->send_flags & PV_SEND_INLINE) && !w->rd_atomic) {
		uint8_t *dst = (uint8_t *)w->sge;

		/* 64-bit sum: 32-bit lengths must not wrap past the check */
		if (unlikely(pv_sge_total_len(wr->sg_list, wr->num_sge) >
			     qp->ibqp.cap.max_inline_data))
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			uint32_t l = wr->sg_list[i].length;

			rte_memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, l);
			len += l;
		}
		w->inl = 1;
		w->num_sge = 0;
		w->length = len;
		return 0;
	}
	w->inl = 0;
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		ret = pv_sroce_mr_local(qp->dev, qp->pd, &wr->sg_list[i], w->rd_atomic,
					&w->sge[i]);
		if (unlikely(ret != 0))
			return EINVAL;
		len += wr->sg_list[i].length;
		if (unlikely(len < wr->sg_list[i].length))
			return EINVAL;	/* wrapped */
	}
	/* UD: a message above the MTU completes without a packet (sroce_req.c) */
	if (!(qpf & SROCE_QPF_UD) && unlikely(len > SROCE_MAX_MSG))
		return EINVAL;
	if (unlikely(w->rd_atomic && wr->opcode != PV_WR_RDMA_READ && len != 8))
		return EINVAL;
	w->length = len;
	return 0;
}

/* the requester of QP type @p qpf (what qp->fp_req_tx points to) */
static __rte_always_inline int
sroce_req_tx_of(struct sroce_qp *qp, const unsigned int qpf)
{
	if (qpf & SROCE_QPF_UD)
		return pv_sroce_req_tx_ud(qp);
	if (qpf & SROCE_QPF_UC)
		return pv_sroce_req_tx_uc(qp);
	if (qpf & SROCE_QPF_XRC)
		return pv_sroce_req_tx_xrc(qp);
	return pv_sroce_req_tx(qp);
}

/* always inlined into its RC, UC and UD variants: @p qpf must fold away */
static __rte_always_inline int
sroce_post_send(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr,
		const unsigned int qpf)
{
	struct sroce_qp *qp = sroce_qp(ibqp);
	int ret = 0;

	sroce_owner_check(qp->eng);
	if (unlikely(qp->state != PV_QPS_RTS && qp->state != PV_QPS_ERR)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct sroce_swqe *w;

		if (unlikely(!sroce_wr_valid(qp, wr, qpf))) {
			ret = EINVAL;
			break;
		}
		if (unlikely(qp->sq_pi - qp->sq_ci > qp->sq_mask)) {
			ret = ENOMEM;
			break;
		}
		w = sroce_swqe_at(qp, qp->sq_pi);
		ret = sroce_swqe_fill(qp, wr, w, qpf);
		if (unlikely(ret != 0))
			break;
		qp->sq_pi++;
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	if (likely(qp->state == PV_QPS_RTS)) {
		/* the whole list goes out in one burst (up to SROCE_TX_BUDGET frames;
		 * the rest follows on progress) */
		if (sroce_req_tx_of(qp, qpf) > 0)
			pv_sroce_tx_flush(qp->eng);
	} else {
		qp->flush_pending = 1;
	}
	return ret;
}

static int
sroce_post_send_rc(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return sroce_post_send(ibqp, wr, bad_wr, 0);
}

static int
sroce_post_send_uc(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return sroce_post_send(ibqp, wr, bad_wr, SROCE_QPF_UC);
}

static int
sroce_post_send_ud(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return sroce_post_send(ibqp, wr, bad_wr, SROCE_QPF_UD);
}

static int
sroce_post_send_xrc(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return sroce_post_send(ibqp, wr, bad_wr, SROCE_QPF_XRC);
}

/* an XRC TGT QP has no send queue, an XRC INI QP no receive queue */
static int
sroce_post_send_none(struct pv_qp *ibqp __rte_unused, struct pv_send_wr *wr,
		     struct pv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return EINVAL;
}

static int
sroce_post_recv_none(struct pv_qp *ibqp __rte_unused, struct pv_recv_wr *wr,
		     struct pv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EINVAL;
}

/*
 * Thread-safe mode: the same bodies under the QP's engine lock, then a kick in
 * case the progress thread sleeps until an interrupt (new timers).
 */
#define SROCE_POST_SEND_MT(name, qpf) \
static int \
sroce_post_send_##name##_mt(struct pv_qp *ibqp, struct pv_send_wr *wr, \
			    struct pv_send_wr **bad_wr) \
{ \
	struct sroce_eng *eng = sroce_qp(ibqp)->eng; \
	int ret; \
	pv_rtc_spin_lock(&eng->lock); \
	ret = sroce_post_send(ibqp, wr, bad_wr, qpf); \
	pv_rtc_spin_unlock(&eng->lock); \
	pv_rtc_bg_kick(); \
	return ret; \
}
SROCE_POST_SEND_MT(rc, 0)
SROCE_POST_SEND_MT(uc, SROCE_QPF_UC)
SROCE_POST_SEND_MT(ud, SROCE_QPF_UD)
SROCE_POST_SEND_MT(xrc, SROCE_QPF_XRC)

static int
sroce_post_recv(struct pv_qp *ibqp, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = sroce_qp(ibqp);
	int ret = 0;

	sroce_owner_check(qp->eng);
	if (unlikely(qp->state == PV_QPS_RESET)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct sroce_rwqe *r;

		if (unlikely(wr->num_sge < 0 ||
			     (uint32_t)wr->num_sge > qp->ibqp.cap.max_recv_sge)) {
			ret = EINVAL;
			break;
		}
		if (unlikely(qp->rq_pi - qp->rq_ci > qp->rq_mask)) {
			ret = ENOMEM;
			break;
		}
		r = sroce_rwqe_at(qp, qp->rq_pi);
		ret = sroce_rwqe_fill(qp->dev, qp->pd, r, wr);
		if (unlikely(ret != 0))
			break;
		qp->rq_pi++;
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	if (unlikely(qp->state == PV_QPS_ERR))
		qp->flush_pending = 1;
	return ret;
}

static int
sroce_post_recv_mt(struct pv_qp *ibqp, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	struct sroce_eng *eng = sroce_qp(ibqp)->eng;
	int ret;

	pv_rtc_spin_lock(&eng->lock);
	ret = sroce_post_recv(ibqp, wr, bad_wr);
	pv_rtc_spin_unlock(&eng->lock);
	return ret;
}

/* a QP on an SRQ has no receive queue of its own (ibv_post_recv(3)) */
static int
sroce_post_recv_srq_qp(struct pv_qp *ibqp __rte_unused, struct pv_recv_wr *wr,
		       struct pv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return EINVAL;
}

static void
sroce_qp_list_add(struct sroce_qp *qp)
{
	struct sroce_eng *eng = qp->eng;

	if (qp->in_list)
		return;
	eng->qps[eng->nb_qps++] = qp;
	qp->in_list = 1;
}

static void
sroce_qp_list_del(struct sroce_qp *qp)
{
	struct sroce_eng *eng = qp->eng;
	uint32_t i;

	if (!qp->in_list)
		return;
	for (i = 0; i < eng->nb_qps; i++) {
		if (eng->qps[i] == qp) {
			eng->qps[i] = eng->qps[--eng->nb_qps];
			eng->qps[eng->nb_qps] = NULL;
			break;
		}
	}
	qp->in_list = 0;
	/* nothing progressed any more: another thread may drive the engine */
	if (eng->nb_qps == 0)
		eng->owner_set = 0;
}

/*
 * The engine of a new QP: its send CQ's (XRC TGT: engine 0). With several
 * engines the receive CQ must be on the same one and so must the QPs of its
 * SRQ (the first binds it); XRC is one engine only. @return the engine, or
 * NULL with errno EINVAL or EOPNOTSUPP
 */
static struct sroce_eng *
sroce_qp_eng(struct sroce_dev *dev, const struct pv_qp_init_attr *attr, struct sroce_srq *srq)
{
	struct sroce_eng *eng = attr->send_cq != NULL ? sroce_cq(attr->send_cq)->eng :
			       &dev->eng[0];

	if (dev->nb_eng == 1)
		return eng;
	if (attr->qp_type == PV_QPT_XRC_SEND || attr->qp_type == PV_QPT_XRC_RECV) {
		SROCE_LOG(ERR, "%s: XRC QPs need queues=1", dev->ibdev.name);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->recv_cq != NULL && sroce_cq(attr->recv_cq)->eng != eng) {
		SROCE_LOG(ERR, "%s: send and receive CQs of a QP on two engines (comp_vector "
			  "%% queues differ)", dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	if (srq != NULL && srq->eng_bound && srq->eng != eng) {
		SROCE_LOG(ERR, "%s: the SRQ serves QPs of engine %u, this QP's CQ is on %u",
			  dev->ibdev.name, srq->eng->queue_id, eng->queue_id);
		errno = EINVAL;
		return NULL;
	}
	return eng;
}

/*
 * Create a QP of any type: @p pd is NULL for an XRC TGT QP (its PD comes
 * from the XRC SRQ of each request), @p xrcd set for it only; @p gsi for the
 * device's QP1 (UD), numbered 1 outside the QPN table.
 */
static struct pv_qp *
sroce_qp_create(struct sroce_dev *dev, struct sroce_pd *pd, struct pv_qp_init_attr *attr,
		struct sroce_xrcd *xrcd, int gsi)
{
	struct sroce_srq *srq = attr->srq != NULL ? sroce_srq(attr->srq) : NULL;
	const int tgt = attr->qp_type == PV_QPT_XRC_RECV;
	const int ini = attr->qp_type == PV_QPT_XRC_SEND;
	struct sroce_eng *eng;
	struct sroce_qp *qp;
	uint32_t sq_n, rq_n, i, idx = UINT32_MAX, slen;

	if (attr->qp_type != PV_QPT_RC && attr->qp_type != PV_QPT_UC &&
	    attr->qp_type != PV_QPT_UD && !tgt && !ini) {
		SROCE_LOG(ERR, "%s: qp type %d not implemented (RC, UC, UD, XRC only)",
			  dev->ibdev.name, attr->qp_type);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((tgt || ini) && srq != NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (tgt) {
		/* no send queue, receive WQEs from XRC SRQs */
		attr->cap.max_send_wr = 0;
		attr->cap.max_send_sge = 0;
		attr->cap.max_inline_data = 0;
	}
	if (tgt || ini) {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
	}
	/* lib/verbs allows an SRQ on RC and UD QPs only; the SRQ must be ours */
	if (srq != NULL && (attr->qp_type == PV_QPT_UC || srq->dev != dev)) {
		errno = EINVAL;
		return NULL;
	}
	eng = sroce_qp_eng(dev, attr, srq);
	if (eng == NULL)
		return NULL;
	if (attr->cap.max_send_wr > SROCE_MAX_QP_WR || attr->cap.max_send_sge > SROCE_MAX_SGE ||
	    attr->cap.max_inline_data > SROCE_MAX_INLINE ||
	    (srq == NULL && (attr->cap.max_recv_wr > SROCE_MAX_QP_WR ||
			     attr->cap.max_recv_sge > SROCE_MAX_SGE))) {
		errno = EINVAL;
		return NULL;
	}
	if (gsi) {
		if (dev->gsi_qp != NULL) {
			SROCE_LOG(ERR, "%s: the device has its GSI QP already", dev->ibdev.name);
			errno = EBUSY;
			return NULL;
		}
	} else {
		/*
		 * The next free QPN after the last one given, cyclically (as
		 * rxe's xa_alloc_cyclic), from a random first one
		 * (pv_sroce_tables_init): a QPN destroyed a moment ago, or
		 * used by the process before, is not handed out again at
		 * once, so a peer's CM still holding the old connection in
		 * timewait does not take the next REQ from (our GID, that QPN)
		 * for it and reject it as stale (IBTA 12.9.8.3; Linux cm.c REJ
		 * "stale connection").
		 */
		for (i = 0; i < dev->max_qp; i++) {
			uint32_t j = (dev->qp_next + i) % dev->max_qp;

			if (dev->qp_tbl[j] == NULL) {
				idx = j;
				break;
			}
		}
		if (idx == UINT32_MAX) {
			errno = ENOMEM;
			return NULL;
		}
	}
	qp = rte_zmalloc("sroce_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	qp->dev = dev;
	qp->eng = eng;
	qp->pd = pd;
	qp->scq = sroce_cq(attr->send_cq);
	qp->rcq = sroce_cq(attr->recv_cq);
	if (qp->rcq == NULL)
		qp->rcq = qp->scq;	/* XRC INI: no receive side */
	qp->sig_all = attr->sq_sig_all != 0;
	qp->state = PV_QPS_RESET;

	sq_n = rte_align32pow2(RTE_MAX(attr->cap.max_send_wr, 1u));
	rq_n = rte_align32pow2(RTE_MAX(attr->cap.max_recv_wr, 1u));
	qp->ibqp.cap.max_send_sge = RTE_MAX(attr->cap.max_send_sge, 1u);
	qp->ibqp.cap.max_recv_sge = RTE_MAX(attr->cap.max_recv_sge, 1u);
	/* inline bytes share the SGE area: grant what fits in it */
	slen = RTE_MAX(qp->ibqp.cap.max_send_sge * (uint32_t)sizeof(struct sroce_sge),
		       attr->cap.max_inline_data);
	slen = RTE_ALIGN_CEIL(slen, 16);
	qp->ibqp.cap.max_inline_data = RTE_MIN(slen, (uint32_t)SROCE_MAX_INLINE);
	qp->sq_stride = RTE_ALIGN_CEIL((uint32_t)sizeof(struct sroce_swqe) + slen, 16);
	qp->rq_stride = RTE_ALIGN_CEIL((uint32_t)sizeof(struct sroce_rwqe) +
				       qp->ibqp.cap.max_recv_sge *
				       (uint32_t)sizeof(struct sroce_sge), 16);
	qp->sq_mask = sq_n - 1;
	qp->rq_mask = rq_n - 1;
	qp->sq = rte_zmalloc("sroce_sq", (size_t)sq_n * qp->sq_stride, RTE_CACHE_LINE_SIZE);
	if (srq == NULL)
		qp->rq = rte_zmalloc("sroce_rq", (size_t)rq_n * qp->rq_stride,
				     RTE_CACHE_LINE_SIZE);
	else
		qp->srq_wqe = rte_zmalloc("sroce_srq_wqe", srq->stride, RTE_CACHE_LINE_SIZE);
	/* a TGT QP takes WQEs from any XRC SRQ of its domain: the largest stride */
	if (tgt && qp->srq_wqe == NULL)
		qp->srq_wqe = rte_zmalloc("sroce_srq_wqe",
					  sizeof(struct sroce_rwqe) +
					  SROCE_MAX_SGE * sizeof(struct sroce_sge),
					  RTE_CACHE_LINE_SIZE);
	if (qp->sq == NULL || (qp->rq == NULL && qp->srq_wqe == NULL)) {
		rte_free(qp->sq);
		rte_free(qp->rq);
		rte_free(qp->srq_wqe);
		rte_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	qp->ibqp.cap.max_send_wr = sq_n;
	qp->ibqp.cap.max_recv_wr = rq_n;
	if (srq != NULL) {
		/* receive caps are the SRQ's (ibv_create_qp(3)); rq_pi == rq_ci forever */
		qp->srq = srq;
		if (!srq->eng_bound) {
			/* under every engine lock: post_srq_recv sees the change */
			__atomic_store_n(&srq->eng, eng, __ATOMIC_RELEASE);
			srq->eng_bound = 1;
		}
		qp->rq_mask = 0;
		qp->ibqp.cap.max_recv_wr = 0;
		qp->ibqp.cap.max_recv_sge = 0;
	}
	attr->cap = qp->ibqp.cap;
	qp->ibqp.qp_num = gsi ? SROCE_GSI_QPN : SROCE_QPN_BASE + idx;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.state = PV_QPS_RESET;
	qp->ibqp.sq_sig_all = attr->sq_sig_all;
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->recv_cq;
	if (tgt || ini) {
		/* INI sends only; TGT receives only, through its domain's SRQs
		 * (a request to an INI QP names no SRQ of it: NAKed) */
		qp->transport = SROCE_OP_XRC;
		qp->xrcd = xrcd;
		qp->fp_req_tx = pv_sroce_req_tx_xrc;
		qp->fp_resp_rx = pv_sroce_resp_rx_xrc;
		qp->ibqp.fp_post_send = tgt ? sroce_post_send_none :
				       dev->mt ? sroce_post_send_xrc_mt : sroce_post_send_xrc;
		if (tgt)
			qp->ibqp.cap.max_send_wr = 0;
		qp->ibqp.cap.max_recv_wr = 0;
		qp->ibqp.cap.max_recv_sge = 0;
		attr->cap = qp->ibqp.cap;
	} else if (attr->qp_type == PV_QPT_UD) {
		qp->transport = SROCE_OP_UD;
		qp->ibqp.fp_post_send = dev->mt ? sroce_post_send_ud_mt : sroce_post_send_ud;
		qp->fp_req_tx = pv_sroce_req_tx_ud;
		qp->fp_resp_rx = srq != NULL ? pv_sroce_resp_rx_ud_srq : pv_sroce_resp_rx_ud;
	} else if (attr->qp_type == PV_QPT_UC) {
		qp->transport = SROCE_OP_UC;
		qp->ibqp.fp_post_send = dev->mt ? sroce_post_send_uc_mt : sroce_post_send_uc;
		qp->fp_req_tx = pv_sroce_req_tx_uc;
		qp->fp_resp_rx = pv_sroce_resp_rx_uc;
	} else {
		qp->transport = SROCE_OP_RC;
		qp->ibqp.fp_post_send = dev->mt ? sroce_post_send_rc_mt : sroce_post_send_rc;
		qp->fp_req_tx = pv_sroce_req_tx;
		qp->fp_resp_rx = srq != NULL ? pv_sroce_resp_rx_srq : pv_sroce_resp_rx;
	}
	if (tgt || ini)
		qp->ibqp.fp_post_recv = sroce_post_recv_none;
	else if (srq != NULL)
		qp->ibqp.fp_post_recv = sroce_post_recv_srq_qp;
	else
		qp->ibqp.fp_post_recv = dev->mt ? sroce_post_recv_mt : sroce_post_recv;
	qp->attr.path_mtu = dev->active_mtu;
	qp->attr.port_num = 1;
	if (gsi) {
		/* IBA 13.4.6.1: QP1 takes and sends the GSI Q_Key only */
		qp->gsi = 1;
		qp->attr.qkey = SROCE_GSI_QKEY;
		dev->gsi_qp = qp;
	} else {
		dev->qp_tbl[idx] = qp;
		dev->qp_next = (idx + 1) % dev->max_qp;
	}
	dev->nb_qp_all++;
	return &qp->ibqp;
}

struct pv_qp *
pv_sroce_qp_create(struct pv_pd *ibpd, struct pv_qp_init_attr *attr)
{
	struct sroce_pd *pd = sroce_pd(ibpd);

	if (attr->qp_type == PV_QPT_XRC_SEND || attr->qp_type == PV_QPT_XRC_RECV) {
		errno = EINVAL;		/* through create_qp_ex, with an XRCD for TGT */
		return NULL;
	}
	return sroce_qp_create(pd->dev, pd, attr, NULL, 0);
}

struct pv_qp *
pv_sroce_qp_create_gsi(struct pv_pd *ibpd, struct pv_qp_init_attr *attr)
{
	struct sroce_pd *pd = sroce_pd(ibpd);

	return sroce_qp_create(pd->dev, pd, attr, NULL, 1);
}

struct pv_qp *
pv_sroce_qp_create_xrc(struct pv_context *context, struct pv_pd *ibpd,
		       struct pv_qp_init_attr *attr, struct pv_xrcd *ibxrcd)
{
	struct sroce_dev *dev = sroce_dev_of(context);

	if (attr->qp_type == PV_QPT_XRC_RECV) {
		if (ibxrcd == NULL) {
			errno = EINVAL;
			return NULL;
		}
		return sroce_qp_create(dev, NULL, attr,
				       container_of(ibxrcd, struct sroce_xrcd, ibxrcd), 0);
	}
	if (ibpd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return sroce_qp_create(dev, sroce_pd(ibpd), attr, NULL, 0);
}

/*
 * UDP source port of a QP, derived as Linux does for RoCEv2 (rxe and the
 * RoCE NIC drivers): from the AV's 20-bit flow label, or when it is 0 from a
 * label computed from both QPNs (product, xor-folded to 20 bits); the label's
 * top 6 bits are xored into its low 14, above 0xc000. Same QPNs, same port:
 * captured rxe frames and ours then differ in no header byte but the IPv4 ID.
 */
static uint16_t
sroce_qp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & 0xfffff;

	if (fl == 0) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)v & 0xfffff;
	}
	return 0xc000 | ((fl & 0x3fff) ^ (fl >> 14));
}

/*
 * UDP source port of the GSI QP, as rxe picks it for a QP at creation and
 * keeps it for QP1 (its UD and GSI QPs get no AV at RTR): 0xc000 plus the
 * top 14 bits of the QPN times the 32-bit golden ratio (Linux's
 * hash_32(qpn, 14)). For QP1 that is 0xd872, 55410, the source port of
 * every CM MAD in the rxe captures.
 */
static uint16_t
sroce_qp_sport_gsi(void)
{
	const uint32_t golden_ratio_32 = 0x61c88647u;

	return (uint16_t)(0xc000 | (uint32_t)(SROCE_GSI_QPN * golden_ratio_32) >> (32 - 14));
}

/*
 * 4.096 us * 2^timeout; 0 means infinite (IBTA 9.7.6.1.3). Never below
 * SROCE_MIN_ACK_TIMEOUT_US, as rxe never arms its retransmit timer for less
 * than a jiffy: a peer that runs in software answers from a thread that may
 * have to be woken first (softroce's progress thread, rxe's softirq), which a
 * 65 us timer (timeout 4, the Rust ibverbs crate's default) does not allow.
 */
static uint64_t
sroce_timeout_tsc(uint8_t timeout)
{
	double us;

	if (timeout == 0)
		return 0;
	us = RTE_MAX(4.096 * (double)(1ull << timeout), (double)SROCE_MIN_ACK_TIMEOUT_US);
	return (uint64_t)((double)rte_get_tsc_hz() * us / 1e6);
}

static void
sroce_qp_reset(struct sroce_qp *qp)
{
	qp->sq_pi = qp->sq_ci = 0;
	qp->rq_pi = qp->rq_ci = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->flush_pending = 0;
	qp->sq_err_status = 0;
}

static int
sroce_qp_to_rtr(struct sroce_qp *qp, struct pv_qp_attr *attr, int mask)
{
	struct sroce_dev *dev = qp->dev;
	const struct pv_global_route *grh = &qp->attr.ah_attr.grh;
	struct rte_ether_addr mac;
	uint16_t sport;
	int ret;

	RTE_SET_USED(attr);
	if (qp->ibqp.qp_type == PV_QPT_UD) {
		/* destinations come with each WR (AH); messages fit the port MTU */
		qp->mtu = pv_mtu_to_bytes(dev->active_mtu);
		qp->attr.path_mtu = dev->active_mtu;
		qp->ud_sport = qp->gsi ? sroce_qp_sport_gsi() :
			       sroce_qp_sport(0, qp->ibqp.qp_num, 1);
		return 0;
	}
	if ((qp->attr_mask & PV_QP_AV) == 0 || !qp->attr.ah_attr.is_global) {
		SROCE_LOG(ERR, "qp 0x%x: RTR needs a global AV (RoCEv2: a GRH)", qp->ibqp.qp_num);
		return EINVAL;
	}
	if (grh->sgid_index >= dev->nb_gid ||
	    sroce_gid_is_v4(dev->gid[grh->sgid_index].raw) != sroce_gid_is_v4(grh->dgid.raw)) {
		SROCE_LOG(ERR, "qp 0x%x: sgid_index %u: no such GID, or dgid of the other family",
			  qp->ibqp.qp_num, grh->sgid_index);
		return EINVAL;
	}
	if (grh->dgid.raw[0] == 0xff ||
	    (sroce_gid_is_v4(grh->dgid.raw) && (grh->dgid.raw[12] >> 4) == 0xe)) {
		SROCE_LOG(ERR, "qp 0x%x: multicast dgid on a connected QP", qp->ibqp.qp_num);
		return EINVAL;
	}
	if (qp->attr.path_mtu > dev->active_mtu || qp->attr.path_mtu < PV_MTU_256) {
		SROCE_LOG(ERR, "qp 0x%x: path_mtu %d above active_mtu %d", qp->ibqp.qp_num,
			  pv_mtu_to_bytes(qp->attr.path_mtu), pv_mtu_to_bytes(dev->active_mtu));
		return EINVAL;
	}
	/*
	 * never waits: frames wait for the neighbour instead (sroce_arp.c);
	 * to our own address (loopback) the MAC stays zero and frames go to
	 * the device's own receive path
	 */
	(void)pv_sroce_neigh_lookup(dev, grh->dgid.raw, &mac);
	qp->mtu = pv_mtu_to_bytes(qp->attr.path_mtu);
	qp->dqpn = qp->attr.dest_qp_num;
	sport = sroce_qp_sport(grh->flow_label, qp->ibqp.qp_num, qp->dqpn);
	/* IPv4: TTL 64 as before; IPv6: the AV's hop limit (rxe: both from the AV) */
	ret = pv_sroce_hdr_build(dev, qp->hdr, &mac, grh->sgid_index, grh->dgid.raw,
				 grh->traffic_class,
				 sroce_gid_is_v4(grh->dgid.raw) ? 64 : grh->hop_limit, sport,
				 qp->dqpn, &qp->path, &qp->ip_sum);
	if (ret != 0)
		return EINVAL;
	if (mask & PV_QP_RQ_PSN)
		qp->resp.epsn = qp->attr.rq_psn & SROCE_PSN_MASK;
	return 0;
}

int
pv_sroce_qp_modify(struct pv_qp *ibqp, struct pv_qp_attr *attr, int mask)
{
	struct sroce_qp *qp = sroce_qp(ibqp);
	enum pv_qp_state cur = qp->state, next = cur;
	struct pv_qp_attr *a = &qp->attr;
	int ret;

	if (mask & PV_QP_STATE)
		next = attr->qp_state;
	if (next == PV_QPS_SQD || next == PV_QPS_SQE)
		return EOPNOTSUPP;
	if ((mask & PV_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & PV_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & PV_QP_PATH_MTU) && attr->path_mtu > qp->dev->active_mtu)
		return EINVAL;
	if ((mask & PV_QP_PORT) && attr->port_num != 1)
		return EINVAL;

	/* store everything asked for; derived state below */
	if (mask & PV_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & PV_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & PV_QP_PORT)
		a->port_num = attr->port_num;
	/* the GSI QP keeps the GSI Q_Key whatever it is given (as rxe checks it) */
	if ((mask & PV_QP_QKEY) && !qp->gsi)
		a->qkey = attr->qkey;
	if (mask & PV_QP_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & PV_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & PV_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & PV_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & PV_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & PV_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & PV_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & PV_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & PV_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & PV_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & PV_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num & SROCE_QPN_MASK;
	if (mask & PV_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & PV_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & PV_QP_ALT_PATH) {
		a->alt_ah_attr = attr->alt_ah_attr;
		a->alt_pkey_index = attr->alt_pkey_index;
		a->alt_port_num = attr->alt_port_num;
		a->alt_timeout = attr->alt_timeout;
	}
	if (mask & PV_QP_RATE_LIMIT)
		a->rate_limit = attr->rate_limit;
	qp->attr_mask |= mask;
	qp->timeout_tsc = sroce_timeout_tsc(a->timeout);
	if (mask & PV_QP_RETRY_CNT)
		qp->comp.retry_left = a->retry_cnt;
	if (mask & PV_QP_RNR_RETRY)
		qp->comp.rnr_left = a->rnr_retry;

	if (!(mask & PV_QP_STATE))
		return 0;
	switch (next) {
	case PV_QPS_RESET:
		sroce_qp_list_del(qp);
		sroce_qp_reset(qp);
		break;
	case PV_QPS_INIT:
		if (cur == PV_QPS_RESET)
			sroce_qp_reset(qp);
		break;
	case PV_QPS_RTR:
		if (cur == PV_QPS_INIT) {
			ret = sroce_qp_to_rtr(qp, attr, mask);
			if (ret != 0)
				return ret;
			sroce_qp_list_add(qp);
		}
		break;
	case PV_QPS_RTS:
		if (cur == PV_QPS_RTR) {
			qp->req.psn = a->sq_psn;
			qp->req.hw_psn = a->sq_psn;
			qp->comp.psn = a->sq_psn;
			qp->req.idx = qp->sq_ci;
			qp->req.hw_idx = qp->sq_ci;
			qp->comp.retry_left = a->retry_cnt;
			qp->comp.rnr_left = a->rnr_retry;
		}
		break;
	case PV_QPS_ERR:
		pv_sroce_qp_error(qp);
		break;
	default:
		return EINVAL;
	}
	qp->state = next;
	ibqp->state = next;
	a->qp_state = next;
	a->cur_qp_state = next;
	return 0;
}

int
pv_sroce_qp_query(struct pv_qp *ibqp, struct pv_qp_attr *attr, int attr_mask __rte_unused)
{
	struct sroce_qp *qp = sroce_qp(ibqp);

	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = ibqp->cap;
	attr->sq_draining = 0;
	return 0;
}

int
pv_sroce_qp_destroy(struct pv_qp *ibqp)
{
	struct sroce_qp *qp = sroce_qp(ibqp);
	struct sroce_dev *dev = qp->dev;

	/* frames a pass held for the answer (sroce_tx_hold): the last ACK of
	 * this QP may be among them, and nothing may progress after this */
	if (qp->eng->tx_held)
		pv_sroce_tx_flush(qp->eng);
	sroce_qp_list_del(qp);
	/* its type 2 windows must not open to the next QP with its number */
	if (dev->nb_mw != 0)
		pv_sroce_mw_qp_gone(dev, ibqp->qp_num);
	if (qp->gsi) {
		dev->gsi_qp = NULL;
	} else {
		dev->qp_tbl[ibqp->qp_num - SROCE_QPN_BASE] = NULL;
	}
	dev->nb_qp_all--;
	rte_free(qp->sq);
	rte_free(qp->rq);
	rte_free(qp->srq_wqe);
	rte_free(qp);
	return 0;
}

void
pv_sroce_qp_error(struct sroce_qp *qp)
{
	qp->state = PV_QPS_ERR;
	qp->ibqp.state = PV_QPS_ERR;
	qp->attr.qp_state = PV_QPS_ERR;
	qp->flush_pending = 1;
	qp->comp.deadline = 0;
	qp->req.flags = 0;
	qp->resp.pend = SROCE_PEND_NONE;
	qp->resp.res_active = 0;
	sroce_qp_list_add(qp);
}

/*
 * A QP on an SRQ in ERR has completed its last WQE from the SRQ: tell the
 * application, which may now destroy it (the "Last WQE Reached" affiliated
 * asynchronous event, IBTA 11.6.3; rxe posts it too).
 */
static __rte_noinline void
sroce_qp_last_wqe_event(struct sroce_qp *qp)
{
	struct pv_async_event ev;

	qp->resp.last_wqe_ev = 1;
	memset(&ev, 0, sizeof(ev));
	ev.element.qp = &qp->ibqp;
	ev.event_type = PV_EVENT_QP_LAST_WQE_REACHED;
	if (qp->ibqp.context != NULL)
		(void)pv_async_event_post(qp->ibqp.context, &ev);
}

int
pv_sroce_qp_flush(struct sroce_qp *qp)
{
	int work = 0;

	while (qp->sq_ci != qp->sq_pi && sroce_cq_space(qp->scq) > 0) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);
		struct pv_wc *wc = sroce_cq_next(qp->scq);

		memset(wc, 0, sizeof(*wc));
		wc->wr_id = w->wr_id;
		/* the WQE that failed reports why, the others are flushed */
		wc->status = qp->sq_err_status != 0 ? qp->sq_err_status : PV_WC_WR_FLUSH_ERR;
		qp->sq_err_status = 0;
		wc->opcode = sroce_wc_opcode(w->opcode);
		wc->qp_num = qp->ibqp.qp_num;
		qp->sq_ci++;
		work++;
	}
	qp->req.idx = qp->sq_ci;
	while (qp->rq_ci != qp->rq_pi && sroce_cq_space(qp->rcq) > 0) {
		struct sroce_rwqe *r = sroce_rwqe_at(qp, qp->rq_ci);
		struct pv_wc *wc = sroce_cq_next(qp->rcq);

		memset(wc, 0, sizeof(*wc));
		wc->wr_id = r->wr_id;
		wc->status = qp->rq_err_status != 0 ? qp->rq_err_status : PV_WC_WR_FLUSH_ERR;
		qp->rq_err_status = 0;
		wc->opcode = PV_WC_RECV;
		wc->qp_num = qp->ibqp.qp_num;
		qp->rq_ci++;
		work++;
	}
	/*
	 * On an SRQ only the WQE this QP took (a message in progress, or the
	 * receive buffer that was too small) is flushed: the SRQ's other WQEs
	 * are not the QP's and stay for the other QPs (IBTA 10.3.1, ERR).
	 */
	if (qp->resp.srq_held && sroce_cq_space(qp->rcq) > 0) {
		struct pv_wc *wc = sroce_cq_next(qp->rcq);

		memset(wc, 0, sizeof(*wc));
		wc->wr_id = qp->srq_wqe->wr_id;
		wc->status = qp->rq_err_status != 0 ? qp->rq_err_status : PV_WC_WR_FLUSH_ERR;
		qp->rq_err_status = 0;
		wc->opcode = PV_WC_RECV;
		wc->qp_num = qp->ibqp.qp_num;
		qp->resp.srq_held = 0;
		work++;
	}
	if (work > 0) {
		pv_sroce_cq_event(qp->scq, 1);
		if (qp->rcq != qp->scq)
			pv_sroce_cq_event(qp->rcq, 1);
	}
	if (qp->srq != NULL && !qp->resp.srq_held && !qp->resp.last_wqe_ev)
		sroce_qp_last_wqe_event(qp);
	if (qp->sq_ci == qp->sq_pi && qp->rq_ci == qp->rq_pi && !qp->resp.srq_held)
		qp->flush_pending = 0;
	return work;
}
