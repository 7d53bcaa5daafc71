/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The device model's engine: what a ConnectX does with the queues between
 * the doorbell and the CQE. It consumes BlueFlame writes (the doorbell),
 * checks them against the doorbell record, executes the announced WQEs in
 * order (RDMA on registered memory, with key, bounds, PD and rights checks),
 * consumes receive WQEs through the receive doorbell record, and writes
 * CQEs with the owner bit of the current pass. Protocol errors end in error
 * CQEs with the syndromes a ConnectX reports and move the QP to error,
 * after which every WQE is flushed.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_io.h>
#include <rte_spinlock.h>

#include "mlx5_model.h"

struct pv_mlx5_mdl_fabric pv_mlx5_mdl = {
	.lock = RTE_SPINLOCK_INITIALIZER,
};

/* A scatter/gather list resolved to process addresses. */
struct mdl_sge {
	uint8_t *ptr;
	uint32_t len;
};

struct mdl_sgl {
	struct mdl_sge e[PV_MLX5_MAX_WQE_DS];
	int n;
	uint64_t total;
};

enum mdl_res {
	MDL_DONE,	/* WQE retired (completed, failed or flushed) */
	MDL_STALL,	/* responder not ready (RNR): retry on a later step */
};

/* A decoded send WQE. */
struct mdl_wqe {
	uint8_t opcode;
	uint8_t fm_ce_se;
	uint16_t idx;
	uint32_t ds;
	pv_be32 imm;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
	const uint8_t *umr;	/* UMR: its UMR control segment, in the copy */
	uint32_t xrc_srqn;	/* XRC INI: the remote XRC SRQ */
	struct mdl_sgl sgl;
};

static struct pv_mlx5_mdl_qp *
mdl_qp_find(uint32_t qpn)
{
	uint32_t i = qpn - PV_MLX5_MDL_QPN_BASE;

	if (i >= PV_MLX5_MDL_MAX_QP)
		return NULL;
	return pv_mlx5_mdl.qps[i];
}

/*
 * Memory of key @p key for [addr, addr + len) as seen by a queue of @p dev
 * and PD @p pdn: the key must be live, of that device and PD, grant @p need,
 * and cover the range.
 */
static uint8_t *
mdl_mr_check_pd(const struct pv_mlx5_mdl_dev *dev, uint32_t pdn, uint32_t key, uint64_t addr,
		uint64_t len, unsigned int need)
{
	uint32_t i = pv_mlx5_mdl_key_idx(key);
	const struct pv_mlx5_mdl_mr *mr;

	if (i == 0 || i >= PV_MLX5_MDL_MAX_MR)
		return NULL;
	mr = &pv_mlx5_mdl.mrs[i];
	/* a window is no local key */
	if (__atomic_load_n(&mr->key, __ATOMIC_ACQUIRE) != key || mr->mw_type != 0 ||
	    mr->dev != dev || mr->pdn != pdn || (mr->access & need) != need)
		return NULL;
	if (addr < mr->addr || len > mr->length || addr - mr->addr > mr->length - len)
		return NULL;
	return (uint8_t *)(uintptr_t)addr;
}

/* mdl_mr_check_pd() for the QP's device and PD. */
static uint8_t *
mdl_mr_check(const struct pv_mlx5_mdl_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
	     unsigned int need)
{
	return mdl_mr_check_pd(qp->dev, qp->pdn, key, addr, len, need);
}

/* The key table entry of a live window @p key, or NULL. */
static struct pv_mlx5_mdl_mr *
mdl_mw_find(uint32_t key)
{
	uint32_t i = pv_mlx5_mdl_key_idx(key);
	struct pv_mlx5_mdl_mr *e;

	if (i == 0)
		return NULL;
	e = &pv_mlx5_mdl.mrs[i];
	if (__atomic_load_n(&e->key, __ATOMIC_ACQUIRE) != key || e->mw_type == 0)
		return NULL;
	return e;
}

/*
 * Memory an incoming RDMA of @p rqp names with @p rkey: an MR's, or a bound
 * window's (of the QP's PD; a type 2 window only for the QP it is bound
 * to), inside the window's range and rights and, below it, inside its MR,
 * which must still be registered.
 */
static uint8_t *
mdl_rkey_check(const struct pv_mlx5_mdl_qp *rqp, uint32_t rkey, uint64_t addr, uint64_t len,
	       unsigned int need)
{
	const struct pv_mlx5_mdl_mr *w = mdl_mw_find(rkey);
	uint64_t va;

	if (w == NULL)
		return mdl_mr_check(rqp, rkey, addr, len, need);
	if (!w->bound || w->dev != rqp->dev || w->pdn != rqp->pdn ||
	    (w->mw_type == PV_MW_TYPE_2 && w->qpn != rqp->qpn) || (w->access & need) != need)
		return NULL;
	if (addr < w->base || len > w->length || addr - w->base > w->length - len)
		return NULL;
	va = w->addr + (addr - w->base);
	return mdl_mr_check_pd(w->dev, w->pdn, w->mr_key, va, len, 0);
}

/*
 * Invalidate @p rkey for @p qp (LOCAL_INV, or SEND_WITH_INV at the
 * responder): a bound type 2 window of the QP's PD, bound to that QP; it
 * grants nothing afterwards. MRs of reg_mr are not invalidatable (no
 * fast-register MRs here). @return 0, -1 when not allowed.
 */
static int
mdl_key_invalidate(const struct pv_mlx5_mdl_qp *qp, uint32_t rkey)
{
	struct pv_mlx5_mdl_mr *w = mdl_mw_find(rkey);

	if (w == NULL || w->mw_type != PV_MW_TYPE_2 || !w->bound || w->dev != qp->dev ||
	    w->pdn != qp->pdn || w->qpn != qp->qpn)
		return -1;
	w->bound = 0;
	return 0;
}

/* Copy min(dst->total, src->total) bytes between two scatter lists. */
static void
mdl_sgl_copy(const struct mdl_sgl *dst, const struct mdl_sgl *src)
{
	int di = 0, si = 0;
	uint32_t doff = 0, soff = 0;

	while (di < dst->n && si < src->n) {
		uint32_t n = RTE_MIN(dst->e[di].len - doff, src->e[si].len - soff);

		/* memmove: a buffer may be sent into itself, as DMA would allow */
		memmove(dst->e[di].ptr + doff, src->e[si].ptr + soff, n);
		doff += n;
		soff += n;
		if (doff == dst->e[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src->e[si].len) {
			si++;
			soff = 0;
		}
	}
}

static void
mdl_cq_fire(struct pv_mlx5_mdl_cq *cq)
{
	cq->armed = 0;
	pv_mlx5_mdl.st.cq_events++;
	/* like the EQ interrupt: the event is raised by the device side;
	 * pv_cq_event_raise() is safe from any thread */
	pv_mlx5_cq_event_ack(cq->drv);
	pv_cq_event_raise(&cq->drv->ibcq);
}

/*
 * Write a CQE: everything but op_own from @p tmpl, then op_own with the
 * owner bit of this pass, released after the body.
 */
static void
mdl_cqe_write(struct pv_mlx5_mdl_cq *cq, const struct mlx5_cqe64 *tmpl, uint8_t opcode, int se)
{
	uint32_t ci = rte_be_to_cpu_32(__atomic_load_n(&cq->dbrec[PV_MLX5_CQ_SET_CI],
						       __ATOMIC_ACQUIRE)) & 0xffffff;
	struct mlx5_cqe64 *cqe;
	uint8_t op_own;

	if (((cq->pi - ci) & 0xffffff) >= cq->cqe_cnt) {
		/* the consumer did not free a slot: a CQ overrun is a CQ error */
		pv_mlx5_mdl.st.cq_overruns++;
		if (!cq->overrun) {
			struct pv_async_event ev = {
				.element.cq = &cq->drv->ibcq,
				.event_type = PV_EVENT_CQ_ERR,
			};

			cq->overrun = 1;
			if (cq->drv->ibcq.context != NULL)
				pv_async_event_post(cq->drv->ibcq.context, &ev);
		}
		return;
	}
	cqe = (struct mlx5_cqe64 *)(cq->buf + ((cq->pi & (cq->cqe_cnt - 1)) * cq->cqe_size) +
				    cq->cqe_size - sizeof(*cqe));
	memcpy(cqe, tmpl, offsetof(struct mlx5_cqe64, op_own));
	op_own = opcode << 4 | (se ? 2 : 0) | ((cq->pi >> cq->log_cnt) & MLX5_CQE_OWNER_MASK);
	/* the CQE body must be visible before the owner bit hands it over */
	__atomic_store_n(&cqe->op_own, op_own, __ATOMIC_RELEASE);
	cq->pi++;
	pv_mlx5_mdl.st.cqes++;
	if (opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR)
		pv_mlx5_mdl.st.err_cqes++;
	if (cq->armed && (!cq->arm_sol || se || opcode == MLX5_CQE_REQ_ERR ||
			  opcode == MLX5_CQE_RESP_ERR))
		mdl_cq_fire(cq);
}

static void
mdl_qp_error(struct pv_mlx5_mdl_qp *qp)
{
	qp->state = PV_QPS_ERR;
}

/* Requester error CQE for the WQE at @p w; the QP enters error. */
static void
mdl_req_fail(struct pv_mlx5_mdl_qp *qp, const struct mdl_wqe *w, uint8_t syndrome)
{
	struct mlx5_err_cqe ecqe;

	memset(&ecqe, 0, sizeof(ecqe));
	ecqe.syndrome = syndrome;
	ecqe.vendor_err_synd = syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR ? 0xf9 : 0x81;
	ecqe.s_wqe_opcode_qpn = rte_cpu_to_be_32((uint32_t)w->opcode << 24 | qp->qpn);
	ecqe.wqe_counter = rte_cpu_to_be_16(w->idx);
	mdl_cqe_write(qp->scq, (const struct mlx5_cqe64 *)&ecqe, MLX5_CQE_REQ_ERR, 0);
	mdl_qp_error(qp);
}

/* Responder error CQE for receive WQE @p idx; the QP enters error. */
static void
mdl_resp_fail(struct pv_mlx5_mdl_qp *qp, uint16_t idx, uint8_t syndrome)
{
	struct mlx5_err_cqe ecqe;

	memset(&ecqe, 0, sizeof(ecqe));
	ecqe.syndrome = syndrome;
	ecqe.vendor_err_synd = syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR ? 0xf9 : 0x81;
	ecqe.s_wqe_opcode_qpn = rte_cpu_to_be_32(qp->qpn);
	ecqe.wqe_counter = rte_cpu_to_be_16(idx);
	if (qp->srq != NULL)
		ecqe.srqn = rte_cpu_to_be_32(qp->srq->srqn);
	mdl_cqe_write(qp->rcq, (const struct mlx5_cqe64 *)&ecqe, MLX5_CQE_RESP_ERR, 0);
	mdl_qp_error(qp);
}

static void
mdl_req_done(struct pv_mlx5_mdl_qp *qp, const struct mdl_wqe *w, uint32_t byte_cnt)
{
	struct mlx5_cqe64 cqe;

	if (!(w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE))
		return;
	memset(&cqe, 0, sizeof(cqe));
	cqe.byte_cnt = rte_cpu_to_be_32(byte_cnt);
	cqe.sop_drop_qpn = rte_cpu_to_be_32((uint32_t)w->opcode << 24 | qp->qpn);
	cqe.wqe_counter = rte_cpu_to_be_16(w->idx);
	mdl_cqe_write(qp->scq, &cqe, MLX5_CQE_REQ, 0);
}

/* Receive WQE the responder would use next, or NULL when none is posted. */
static uint8_t *
mdl_rq_peek(struct pv_mlx5_mdl_qp *qp)
{
	uint16_t pi;

	if (qp->rq_cnt == 0)
		return NULL;
	/* the record is read before the WQEs it covers */
	pi = rte_be_to_cpu_32(__atomic_load_n(&qp->dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE));
	if (pi == qp->rq_hw_ci)
		return NULL;
	return qp->rq_buf + (qp->rq_hw_ci & (qp->rq_cnt - 1)) * qp->rq_stride;
}

/*
 * The receive WQE a responder uses next, from the QP's RQ or from its SRQ:
 * where its data segments are, how many it may have, whose PD checks their
 * keys, and the index its CQE reports (wqe_counter).
 */
struct mdl_rwqe {
	const struct mlx5_wqe_data_seg *dseg;
	uint32_t slots;
	uint32_t pdn;
	const struct pv_mlx5_mdl_dev *dev;
	uint16_t idx;
};

/* WQEs posted to @p srq and not consumed yet (the record counts posts). */
static uint16_t
mdl_srq_outstanding(const struct pv_mlx5_mdl_srq *srq)
{
	/* the record is read before the WQEs it covers */
	uint16_t posted = rte_be_to_cpu_32(__atomic_load_n(srq->dbrec, __ATOMIC_ACQUIRE));

	return posted - srq->hw_cnt;
}

/* Fill @p r with the next receive WQE of @p qp; -1: none is posted. */
static int
mdl_recv_peek(struct pv_mlx5_mdl_qp *qp, struct mdl_rwqe *r)
{
	struct pv_mlx5_mdl_srq *srq = qp->srq;
	uint8_t *wqe;

	if (srq == NULL) {
		wqe = mdl_rq_peek(qp);
		if (wqe == NULL)
			return -1;
		r->dseg = (const struct mlx5_wqe_data_seg *)wqe;
		r->slots = qp->rq_stride / sizeof(struct mlx5_wqe_data_seg);
		r->pdn = qp->pdn;
		r->dev = qp->dev;
		r->idx = qp->rq_hw_ci;
		return 0;
	}
	if (mdl_srq_outstanding(srq) == 0)
		return -1;
	wqe = srq->buf + (size_t)srq->hw_head * srq->stride;
	r->dseg = (const struct mlx5_wqe_data_seg *)(wqe + sizeof(struct mlx5_wqe_srq_next_seg));
	r->slots = (srq->stride - sizeof(struct mlx5_wqe_srq_next_seg)) /
		   sizeof(struct mlx5_wqe_data_seg);
	/* receive buffers are checked against the SRQ's PD (IBTA 10.2.9.4) */
	r->pdn = srq->pdn;
	r->dev = srq->dev;
	r->idx = srq->hw_head;
	return 0;
}

/* The SRQ's posted WQEs dropped below its armed limit: event, disarm. */
static void
mdl_srq_limit_fire(struct pv_mlx5_mdl_srq *srq)
{
	struct pv_async_event ev = {
		.element.srq = &srq->drv->ibsrq,
		.event_type = PV_EVENT_SRQ_LIMIT_REACHED,
	};

	/* one event per arming (ibv_modify_srq(3)): the application re-arms */
	srq->limit = 0;
	pv_mlx5_mdl.st.srq_limit_events++;
	if (srq->drv->ibsrq.context != NULL)
		pv_async_event_post(srq->drv->ibsrq.context, &ev);
}

/* Consume the receive WQE mdl_recv_peek() returned. */
static void
mdl_recv_take(struct pv_mlx5_mdl_qp *qp, const struct mdl_rwqe *r)
{
	struct pv_mlx5_mdl_srq *srq = qp->srq;
	const struct mlx5_wqe_srq_next_seg *next;

	pv_mlx5_mdl.st.recv_wqes++;
	if (srq == NULL) {
		qp->rq_hw_ci++;
		return;
	}
	/* the HCA's side of the list: follow the link of the WQE it took */
	next = (const struct mlx5_wqe_srq_next_seg *)(srq->buf + (size_t)r->idx * srq->stride);
	srq->hw_head = rte_be_to_cpu_16(next->next_wqe_index) & (srq->wqe_cnt - 1);
	srq->hw_cnt++;
	pv_mlx5_mdl.st.srq_wqes++;
	if (srq->limit != 0 && mdl_srq_outstanding(srq) < srq->limit)
		mdl_srq_limit_fire(srq);
}

/* Resolve a receive WQE's scatter list; -1: a key is bad. */
static int
mdl_rq_sgl(const struct mdl_rwqe *r, struct mdl_sgl *sgl)
{
	const struct mlx5_wqe_data_seg *d = r->dseg;
	uint32_t i;

	sgl->n = 0;
	sgl->total = 0;
	for (i = 0; i < r->slots; i++) {
		uint32_t lkey = rte_be_to_cpu_32(d[i].lkey);
		uint32_t len = rte_be_to_cpu_32(d[i].byte_count);
		uint64_t addr = rte_be_to_cpu_64(d[i].addr);
		uint8_t *p;

		if (lkey == MLX5_INVALID_LKEY)
			break;
		p = mdl_mr_check_pd(r->dev, r->pdn, lkey, addr, len, PV_ACCESS_LOCAL_WRITE);
		if (p == NULL)
			return -1;
		sgl->e[sgl->n].ptr = p;
		sgl->e[sgl->n].len = len;
		sgl->n++;
		sgl->total += len;
	}
	return 0;
}

/* RNR: the responder has no receive WQE. @return MDL_STALL or MDL_DONE. */
static enum mdl_res
mdl_rnr(struct pv_mlx5_mdl_qp *qp, const struct mdl_wqe *w)
{
	pv_mlx5_mdl.st.rnr_naks++;
	if (qp->rnr_retry == 7)		/* 7: retry forever */
		return MDL_STALL;
	if (++qp->rnr_tries <= qp->rnr_retry)
		return MDL_STALL;
	qp->rnr_tries = 0;
	mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
	return MDL_DONE;
}

/*
 * Decode a WQE copied out of the ring. Inline data stays in @p wqe.
 * @return 0 or a syndrome (local QP operation or protection error).
 */
static uint8_t
mdl_wqe_decode(const struct pv_mlx5_mdl_qp *qp, uint8_t *wqe, struct mdl_wqe *w)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)wqe;
	uint32_t opmod_idx_opcode = rte_be_to_cpu_32(ctrl->opmod_idx_opcode);
	uint32_t qpn_ds = rte_be_to_cpu_32(ctrl->qpn_ds);
	uint8_t *seg = wqe + sizeof(*ctrl), *end;
	unsigned int need = 0;
	int raddr = 0, atomic = 0, inl_ok = 0;

	w->opcode = opmod_idx_opcode & 0xff;
	w->idx = (opmod_idx_opcode >> 8) & 0xffff;
	w->ds = qpn_ds & 0x3f;
	w->fm_ce_se = ctrl->fm_ce_se;
	w->imm = ctrl->imm;
	w->sgl.n = 0;
	w->sgl.total = 0;
	if (w->idx != qp->sq_hw_ci || (qpn_ds >> 8) != qp->qpn || w->ds < 1)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	end = wqe + w->ds * 16;

	w->umr = NULL;
	switch (w->opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
		inl_ok = 1;
		break;
	case MLX5_OPCODE_UMR:
		/* UMR control and mkey context at least; the KLM is checked
		 * by mdl_exec_umr() */
		if (seg + sizeof(struct mlx5_wqe_umr_ctrl_seg) +
		    sizeof(struct mlx5_wqe_mkey_context_seg) > end)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		w->umr = seg;
		return 0;
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		raddr = 1;
		inl_ok = 1;
		break;
	case MLX5_OPCODE_RDMA_READ:
		raddr = 1;
		need = PV_ACCESS_LOCAL_WRITE;
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		raddr = 1;
		atomic = 1;
		need = PV_ACCESS_LOCAL_WRITE;
		break;
	default:
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (qp->type == PV_QPT_XRC_SEND) {
		const struct pv_mlx5_wqe_xrc_seg *x = (const struct pv_mlx5_wqe_xrc_seg *)seg;

		if (seg + sizeof(*x) > end)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		w->xrc_srqn = rte_be_to_cpu_32(x->xrc_srqn) & 0xffffff;
		seg += sizeof(*x);
	}
	if (raddr) {
		const struct mlx5_wqe_raddr_seg *r = (const struct mlx5_wqe_raddr_seg *)seg;

		if (seg + sizeof(*r) > end)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		w->raddr = rte_be_to_cpu_64(r->raddr);
		w->rkey = rte_be_to_cpu_32(r->rkey);
		seg += sizeof(*r);
	}
	if (atomic) {
		const struct mlx5_wqe_atomic_seg *a = (const struct mlx5_wqe_atomic_seg *)seg;

		if (seg + sizeof(*a) > end)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		w->swap_add = rte_be_to_cpu_64(a->swap_add);
		w->compare = rte_be_to_cpu_64(a->compare);
		seg += sizeof(*a);
	}
	while (seg < end) {
		uint32_t bc = rte_be_to_cpu_32(*(const pv_be32 *)seg);
		struct mdl_sge *e = &w->sgl.e[w->sgl.n];

		if (bc & MLX5_INLINE_SEG) {
			uint32_t len = bc & ~MLX5_INLINE_SEG;

			if (!inl_ok || seg + 4 + len > end)
				return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			e->ptr = seg + 4;
			e->len = len;
			seg += RTE_ALIGN_CEIL(4 + len, 16u);
		} else {
			const struct mlx5_wqe_data_seg *d = (const struct mlx5_wqe_data_seg *)seg;
			uint64_t len = bc ? bc : PV_MLX5_MDL_MAX_MSG;

			e->ptr = mdl_mr_check(qp, rte_be_to_cpu_32(d->lkey),
					      rte_be_to_cpu_64(d->addr), len, need);
			if (e->ptr == NULL)
				return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			e->len = len;
			seg += sizeof(*d);
		}
		w->sgl.total += e->len;
		w->sgl.n++;
	}
	if (w->sgl.total > PV_MLX5_MDL_MAX_MSG)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	return 0;
}

static enum mdl_res
mdl_exec_send(struct pv_mlx5_mdl_qp *qp, struct pv_mlx5_mdl_qp *rqp, const struct mdl_wqe *w)
{
	struct mlx5_cqe64 cqe;
	struct mdl_sgl rsgl;
	struct mdl_rwqe rw;
	uint16_t ridx;
	uint8_t opcode;

	if (mdl_recv_peek(rqp, &rw) != 0)
		return mdl_rnr(qp, w);
	qp->rnr_tries = 0;
	ridx = rw.idx;
	mdl_recv_take(rqp, &rw);
	if (mdl_rq_sgl(&rw, &rsgl) != 0) {
		mdl_resp_fail(rqp, ridx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
		return MDL_DONE;
	}
	if (w->sgl.total > rsgl.total) {
		mdl_resp_fail(rqp, ridx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		return MDL_DONE;
	}
	/* SEND with Invalidate (IBTA 10.6.7.2.5): the rkey must be one the
	 * responder may invalidate, else an invalid request; nothing lands */
	if (w->opcode == MLX5_OPCODE_SEND_INVAL &&
	    mdl_key_invalidate(rqp, rte_be_to_cpu_32(w->imm)) != 0) {
		mdl_resp_fail(rqp, ridx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		return MDL_DONE;
	}
	mdl_sgl_copy(&rsgl, &w->sgl);

	memset(&cqe, 0, sizeof(cqe));
	cqe.byte_cnt = rte_cpu_to_be_32(w->sgl.total);
	cqe.sop_drop_qpn = rte_cpu_to_be_32(rqp->qpn);
	cqe.flags_rqpn = rte_cpu_to_be_32(qp->qpn);
	cqe.wqe_counter = rte_cpu_to_be_16(ridx);
	if (rqp->srq != NULL)
		cqe.srqn_uidx = rte_cpu_to_be_32(rqp->srq->srqn);
	if (w->opcode == MLX5_OPCODE_SEND_IMM) {
		cqe.imm_inval_pkey = w->imm;
		opcode = MLX5_CQE_RESP_SEND_IMM;
	} else if (w->opcode == MLX5_OPCODE_SEND_INVAL) {
		cqe.imm_inval_pkey = w->imm;	/* the invalidated rkey */
		opcode = MLX5_CQE_RESP_SEND_INV;
	} else {
		opcode = MLX5_CQE_RESP_SEND;
	}
	mdl_cqe_write(rqp->rcq, &cqe, opcode, !!(w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED));
	mdl_req_done(qp, w, w->sgl.total);
	return MDL_DONE;
}

/*
 * The last SGE of an RDMA WRITE, its last byte stored last: a ConnectX's
 * DMA writes land in increasing address order, and applications poll the
 * last byte of a WRITE to know the whole message is there (perftest's
 * write_lat, pv-perf). memmove() may store the tail first (overlapping
 * vector stores) or use non-temporal stores, so the last byte goes alone
 * after a store fence. It is read first: the buffers may overlap.
 */
static void
mdl_write_last_place(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	uint8_t last;

	if (len == 0)
		return;
	last = src[len - 1];
	memmove(dst, src, len - 1);
	/* the payload's other bytes are visible before its last byte */
	rte_wmb();
	dst[len - 1] = last;
}

static enum mdl_res
mdl_exec_write(struct pv_mlx5_mdl_qp *qp, struct pv_mlx5_mdl_qp *rqp, const struct mdl_wqe *w)
{
	struct mdl_rwqe rw;
	uint8_t *dst = NULL;
	int i, imm = w->opcode == MLX5_OPCODE_RDMA_WRITE_IMM;

	if (imm) {
		if (mdl_recv_peek(rqp, &rw) != 0)
			return mdl_rnr(qp, w);
		qp->rnr_tries = 0;
	}
	/* a zero-length RDMA WRITE carries no R_Key to check (IBTA 9.7.5.1.3) */
	if (w->sgl.total != 0) {
		if (rqp->access & PV_ACCESS_REMOTE_WRITE)
			dst = mdl_rkey_check(rqp, w->rkey, w->raddr, w->sgl.total,
					   PV_ACCESS_REMOTE_WRITE);
		if (dst == NULL) {
			mdl_qp_error(rqp);
			mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			return MDL_DONE;
		}
		for (i = 0; i < w->sgl.n - 1; i++) {
			memmove(dst, w->sgl.e[i].ptr, w->sgl.e[i].len);
			dst += w->sgl.e[i].len;
		}
		mdl_write_last_place(dst, w->sgl.e[i].ptr, w->sgl.e[i].len);
	}
	if (imm) {
		struct mlx5_cqe64 cqe;

		mdl_recv_take(rqp, &rw);
		memset(&cqe, 0, sizeof(cqe));
		cqe.byte_cnt = rte_cpu_to_be_32(w->sgl.total);
		cqe.imm_inval_pkey = w->imm;
		cqe.sop_drop_qpn = rte_cpu_to_be_32(rqp->qpn);
		cqe.flags_rqpn = rte_cpu_to_be_32(qp->qpn);
		cqe.wqe_counter = rte_cpu_to_be_16(rw.idx);
		if (rqp->srq != NULL)
			cqe.srqn_uidx = rte_cpu_to_be_32(rqp->srq->srqn);
		mdl_cqe_write(rqp->rcq, &cqe, MLX5_CQE_RESP_WR_IMM,
			      !!(w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED));
	}
	mdl_req_done(qp, w, w->sgl.total);
	return MDL_DONE;
}

static enum mdl_res
mdl_exec_read(struct pv_mlx5_mdl_qp *qp, struct pv_mlx5_mdl_qp *rqp, const struct mdl_wqe *w)
{
	struct mdl_sgl src;

	if (w->sgl.total != 0) {
		src.e[0].ptr = NULL;
		if (rqp->access & PV_ACCESS_REMOTE_READ)
			src.e[0].ptr = mdl_rkey_check(rqp, w->rkey, w->raddr, w->sgl.total,
						    PV_ACCESS_REMOTE_READ);
		if (src.e[0].ptr == NULL) {
			mdl_qp_error(rqp);
			mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
			return MDL_DONE;
		}
		src.e[0].len = w->sgl.total;
		src.n = 1;
		src.total = w->sgl.total;
		mdl_sgl_copy(&w->sgl, &src);
	}
	mdl_req_done(qp, w, w->sgl.total);
	return MDL_DONE;
}

static enum mdl_res
mdl_exec_atomic(struct pv_mlx5_mdl_qp *qp, struct pv_mlx5_mdl_qp *rqp, const struct mdl_wqe *w)
{
	uint64_t *target = NULL, orig;

	if (w->sgl.n != 1 || w->sgl.total != sizeof(uint64_t)) {
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		return MDL_DONE;
	}
	if (w->raddr & (sizeof(uint64_t) - 1)) {
		mdl_qp_error(rqp);
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		return MDL_DONE;
	}
	if (rqp->access & PV_ACCESS_REMOTE_ATOMIC)
		target = (uint64_t *)mdl_rkey_check(rqp, w->rkey, w->raddr, sizeof(uint64_t),
						  PV_ACCESS_REMOTE_ATOMIC);
	if (target == NULL) {
		mdl_qp_error(rqp);
		mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
		return MDL_DONE;
	}
	/* host-endian atomics, as a ConnectX set to host atomic mode */
	if (w->opcode == MLX5_OPCODE_ATOMIC_CS) {
		orig = w->compare;
		__atomic_compare_exchange_n(target, &orig, w->swap_add, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(target, w->swap_add, __ATOMIC_SEQ_CST);
	}
	memcpy(w->sgl.e[0].ptr, &orig, sizeof(orig));
	mdl_req_done(qp, w, sizeof(uint64_t));
	return MDL_DONE;
}

/* Access rights of an mkey context, as pv_access_flags. */
static uint32_t
mdl_umr_access(uint8_t a)
{
	uint32_t f = 0;

	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE)
		f |= PV_ACCESS_LOCAL_WRITE;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE)
		f |= PV_ACCESS_REMOTE_WRITE;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ)
		f |= PV_ACCESS_REMOTE_READ;
	if (a & MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC)
		f |= PV_ACCESS_REMOTE_ATOMIC;
	return f;
}

/*
 * A UMR WQE, as rdma-core's mlx5 builds them for windows: the ctrl
 * segment's imm names the window's current key. The free bit with a QPN
 * check is LOCAL_INV (type 2), without it a type 1 unbind; otherwise a
 * bind of the KLM's MR range with the mkey context's rights and tag, to
 * the QP (type 2, from the free state only) or to none (type 1). Checks as
 * IBTA 10.6.7: window of the QP's PD, MR of that PD with MW_BIND rights,
 * remote write or atomic rights only over a locally writable MR, zero
 * based windows of type 2 only.
 */
static enum mdl_res
mdl_exec_umr(struct pv_mlx5_mdl_qp *qp, const struct mdl_wqe *w, const uint8_t *end)
{
	const struct mlx5_wqe_umr_ctrl_seg *uc = (const struct mlx5_wqe_umr_ctrl_seg *)w->umr;
	const struct mlx5_wqe_mkey_context_seg *mk =
		(const struct mlx5_wqe_mkey_context_seg *)(uc + 1);
	const struct mlx5_wqe_umr_klm_seg *klm = (const struct mlx5_wqe_umr_klm_seg *)(mk + 1);
	uint64_t mask = rte_be_to_cpu_64(uc->mkey_mask);
	uint32_t key = rte_be_to_cpu_32(w->imm), qpn_mkey = rte_be_to_cpu_32(mk->qpn_mkey);
	uint32_t new_key = (key & ~0xffu) | (qpn_mkey & 0xff), access;
	int type = (mask & MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN) ? PV_MW_TYPE_2 : PV_MW_TYPE_1;
	struct pv_mlx5_mdl_mr *win = mdl_mw_find(key);
	uint64_t len, start, maddr;
	uint32_t mkey;

	if (mk->free & MLX5_WQE_MKEY_CONTEXT_FREE) {
		if (uc->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN) {
			/* LOCAL_INV: a local QP operation error when refused,
			 * as rxe and softroce report it */
			if (mdl_key_invalidate(qp, key) != 0) {
				mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
				return MDL_DONE;
			}
			mdl_req_done(qp, w, 0);
			return MDL_DONE;
		}
		if (win == NULL || win->mw_type != PV_MW_TYPE_1 || win->dev != qp->dev ||
		    win->pdn != qp->pdn)
			goto bind_err;
		win->bound = 0;
		__atomic_store_n(&win->key, new_key, __ATOMIC_RELEASE);
		mdl_req_done(qp, w, 0);
		return MDL_DONE;
	}
	if (win == NULL || win->mw_type != type || win->dev != qp->dev || win->pdn != qp->pdn ||
	    (const uint8_t *)(klm + 1) > end)
		goto bind_err;
	if (type == PV_MW_TYPE_2 &&
	    (((uc->flags & MLX5_WQE_UMR_CTRL_FLAG_CHECK_FREE) && win->bound) ||
	     (qpn_mkey >> 8) != qp->qpn))
		goto bind_err;
	len = rte_be_to_cpu_64(mk->len);
	start = rte_be_to_cpu_64(mk->start_addr);
	maddr = rte_be_to_cpu_64(klm->address);
	mkey = rte_be_to_cpu_32(klm->mkey);
	access = mdl_umr_access(mk->access_flags);
	if (len == 0 || rte_be_to_cpu_32(klm->byte_count) != len ||
	    (start != maddr && (start != 0 || type != PV_MW_TYPE_2)))
		goto bind_err;
	if (mdl_mr_check(qp, mkey, maddr, len, PV_ACCESS_MW_BIND) == NULL ||
	    ((access & (PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_ATOMIC)) &&
	     mdl_mr_check(qp, mkey, maddr, len, PV_ACCESS_LOCAL_WRITE) == NULL))
		goto bind_err;
	win->addr = maddr;
	win->base = start;
	win->length = len;
	win->access = access;
	win->mr_key = mkey;
	win->qpn = type == PV_MW_TYPE_2 ? qp->qpn : 0;
	win->bound = 1;
	__atomic_store_n(&win->key, new_key, __ATOMIC_RELEASE);
	mdl_req_done(qp, w, 0);
	return MDL_DONE;
bind_err:
	mdl_req_fail(qp, w, MLX5_CQE_SYNDROME_MW_BIND_ERR);
	return MDL_DONE;
}

/*
 * Whether @p qp may answer a request of @p req: RC to RC, XRC INI to an
 * XRC TGT QP. A TGT QP serves each request with the XRC SRQ it names,
 * which must be of its domain (IBTA 11.2.x XRC): that SRQ's receive WQEs,
 * CQ and PD stand in for the TGT QP's for this request. @return 0, -1:
 * an invalid request.
 */
static int
mdl_resp_bind(const struct pv_mlx5_mdl_qp *req, struct pv_mlx5_mdl_qp *qp,
	      const struct mdl_wqe *w)
{
	struct pv_mlx5_mdl_srq *srq;
	uint32_t i;

	if (req->type == PV_QPT_RC)
		return qp->type == PV_QPT_RC ? 0 : -1;
	if (qp->type != PV_QPT_XRC_RECV)
		return -1;
	i = w->xrc_srqn - PV_MLX5_MDL_SRQN_BASE;
	srq = i < PV_MLX5_MDL_MAX_SRQ ? pv_mlx5_mdl.srqs[i] : NULL;
	if (srq == NULL || srq->xrcdn == 0 || srq->xrcdn != qp->xrcdn || srq->dev != qp->dev)
		return -1;
	qp->srq = srq;
	qp->rcq = srq->xrc_cq;
	qp->pdn = srq->pdn;
	return 0;
}

/* Execute the WQE copied at @p wqe (nbb WQEBBs). */
static enum mdl_res
mdl_wqe_exec(struct pv_mlx5_mdl_qp *qp, uint8_t *wqe)
{
	struct pv_mlx5_mdl_qp *rqp;
	struct mdl_wqe w;
	uint8_t syndrome;

	syndrome = mdl_wqe_decode(qp, wqe, &w);
	pv_mlx5_mdl.st.wqes++;
	if (qp->state == PV_QPS_ERR || qp->state < PV_QPS_RTS) {
		mdl_req_fail(qp, &w, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		return MDL_DONE;
	}
	if (unlikely(qp->inject_syndrome != 0)) {
		syndrome = qp->inject_syndrome;
		qp->inject_syndrome = 0;
	}
	if (syndrome != 0) {
		mdl_req_fail(qp, &w, syndrome);
		return MDL_DONE;
	}
	/* a local operation: no responder */
	if (w.opcode == MLX5_OPCODE_UMR)
		return mdl_exec_umr(qp, &w, wqe + w.ds * 16);
	rqp = mdl_qp_find(qp->dest_qpn);
	if (rqp == NULL || (rqp->state != PV_QPS_RTR && rqp->state != PV_QPS_RTS)) {
		/* nobody answers: the requester retries until retry_cnt runs out */
		mdl_req_fail(qp, &w, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
		return MDL_DONE;
	}
	if (mdl_resp_bind(qp, rqp, &w) != 0) {
		/* a NAK invalid request: the responder's state does not change */
		mdl_req_fail(qp, &w, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
		return MDL_DONE;
	}
	switch (w.opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
		return mdl_exec_send(qp, rqp, &w);
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		return mdl_exec_write(qp, rqp, &w);
	case MLX5_OPCODE_RDMA_READ:
		return mdl_exec_read(qp, rqp, &w);
	default:
		return mdl_exec_atomic(qp, rqp, &w);
	}
}

/* Execute announced WQEs in order, up to the step budget. */
static int
mdl_qp_sq_run(struct pv_mlx5_mdl_qp *qp)
{
	uint8_t wqe[PV_MLX5_MAX_WQE_BB * MLX5_SEND_WQE_BB] __rte_aligned(16);
	uint32_t mask = qp->sq_cnt - 1;
	int done = 0;

	while (qp->sq_hw_ci != qp->sq_db_pi && done < PV_MLX5_MDL_STEP_BUDGET) {
		uint32_t ds, nbb, i;

		memcpy(wqe, qp->sq_buf + ((qp->sq_hw_ci & mask) << MLX5_SEND_WQE_SHIFT),
		       MLX5_SEND_WQE_BB);
		ds = rte_be_to_cpu_32(((struct mlx5_wqe_ctrl_seg *)wqe)->qpn_ds) & 0x3f;
		nbb = ds ? (ds + 3) / 4 : 1;
		for (i = 1; i < nbb; i++)
			memcpy(wqe + (i << MLX5_SEND_WQE_SHIFT),
			       qp->sq_buf + (((qp->sq_hw_ci + i) & mask) << MLX5_SEND_WQE_SHIFT),
			       MLX5_SEND_WQE_BB);
		if (mdl_wqe_exec(qp, wqe) == MDL_STALL)
			break;
		qp->sq_hw_ci += nbb;
		done++;
	}
	return done;
}

/*
 * Consume one BlueFlame half: its first 8 bytes are the doorbell (the
 * control segment's opmod_idx_opcode and qpn_ds of the last WQE posted).
 */
static void
mdl_qp_doorbell(struct pv_mlx5_mdl_qp *qp, const uint64_t *bf, uint32_t half)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)bf;
	uint32_t qpn_ds = rte_be_to_cpu_32(ctrl->qpn_ds);
	uint16_t idx = rte_be_to_cpu_32(ctrl->opmod_idx_opcode) >> 8;
	uint32_t ds = qpn_ds & 0x3f, nbb = (ds + 3) / 4;
	uint16_t end = idx + nbb, rec, behind;

	qp->st.doorbells++;
	qp->st.last_bf_half = half;
	pv_mlx5_mdl.st.doorbells++;
	if ((qpn_ds >> 8) != qp->qpn || ds == 0) {
		qp->st.db_errors++;
		pv_mlx5_mdl.st.db_errors++;
		return;
	}
	/* the doorbell record was written before the BlueFlame write */
	rec = rte_be_to_cpu_32(__atomic_load_n(&qp->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE));
	if (rec != qp->last_sq_dbrec) {
		qp->last_sq_dbrec = rec;
		qp->st.sq_dbrec_seen++;
	}
	/*
	 * Stale: the engine reads half 0, then half 1, so a write to half 0
	 * can be seen after the next write (half 1) was consumed and its WQEs
	 * executed. It announces nothing new; taken as new, it would move
	 * sq_db_pi behind sq_hw_ci and the engine would run a whole lap of
	 * old WQEs.
	 */
	behind = qp->sq_hw_ci - end;
	if (behind != 0 && behind <= qp->sq_cnt)
		return;
	if ((uint16_t)(rec - qp->sq_hw_ci) < (uint16_t)(end - qp->sq_hw_ci)) {
		qp->st.db_errors++;
		pv_mlx5_mdl.st.db_errors++;
	}
	if ((nbb << MLX5_SEND_WQE_SHIFT) <= PV_MLX5_MDL_BF_SIZE &&
	    (idx & (qp->sq_cnt - 1)) + nbb <= qp->sq_cnt &&
	    memcmp(bf, qp->sq_buf + ((idx & (qp->sq_cnt - 1)) << MLX5_SEND_WQE_SHIFT),
		   nbb << MLX5_SEND_WQE_SHIFT) == 0) {
		qp->st.bf_full++;
		pv_mlx5_mdl.st.bf_full++;
	}
	if ((uint16_t)(end - qp->sq_hw_ci) > (uint16_t)(qp->sq_db_pi - qp->sq_hw_ci))
		qp->sq_db_pi = end;
}

/* Poll both BlueFlame halves of @p qp; @return doorbells consumed. */
static int
mdl_qp_db_poll(struct pv_mlx5_mdl_qp *qp)
{
	uint64_t bf[PV_MLX5_MDL_BF_SIZE / 8];
	int work = 0;
	uint32_t h, i;

	for (h = 0; h < 2; h++) {
		uint64_t *reg = (uint64_t *)(qp->uar + PV_MLX5_MDL_BF_OFFSET +
					     h * PV_MLX5_MDL_BF_SIZE);
		uint64_t v = __atomic_load_n(reg, __ATOMIC_ACQUIRE);

		if (v == 0)
			continue;
		for (i = 1; i < RTE_DIM(bf); i++)
			bf[i] = __atomic_load_n(&reg[i], __ATOMIC_RELAXED);
		/* consume the write; a newer one racing in keeps the register
		 * nonzero and is seen on the next step */
		if (!__atomic_compare_exchange_n(reg, &v, 0, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		bf[0] = v;
		mdl_qp_doorbell(qp, bf, h);
		work++;
	}
	return work;
}

/*
 * A QP in error flushes every receive WQE posted to it; an SRQ's WQEs are
 * not the QP's and stay for the other QPs (its RQ is empty: rq_cnt 0).
 */
static int
mdl_qp_rq_flush(struct pv_mlx5_mdl_qp *qp)
{
	int n = 0;

	while (mdl_rq_peek(qp) != NULL) {
		mdl_resp_fail(qp, qp->rq_hw_ci, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		qp->rq_hw_ci++;
		n++;
	}
	return n;
}

/* Consume an arm doorbell written to the CQ's UAR. */
static int
mdl_cq_arm_poll(struct pv_mlx5_mdl_cq *cq)
{
	uint64_t *reg = (uint64_t *)(cq->uar + MLX5_CQ_DOORBELL);
	uint64_t v = __atomic_load_n(reg, __ATOMIC_ACQUIRE);
	uint32_t cmd, ci;

	if (v == 0 || !__atomic_compare_exchange_n(reg, &v, 0, 0, __ATOMIC_ACQ_REL,
						   __ATOMIC_RELAXED))
		return 0;
	v = rte_be_to_cpu_64(v);
	if ((uint32_t)v != cq->cqn) {
		pv_mlx5_mdl.st.db_errors++;
		return 1;
	}
	cmd = (uint32_t)(v >> 32);
	ci = cmd & 0xffffff;
	cq->armed = 1;
	cq->arm_sol = !!(cmd & MLX5_CQ_DB_REQ_NOT_SOL);
	pv_mlx5_mdl.st.cq_arms++;
	/* CQEs written after the consumer index the arm names fire at once */
	if (!cq->arm_sol && ((cq->pi - ci) & 0xffffff) != 0)
		mdl_cq_fire(cq);
	return 1;
}

void
pv_mlx5_mdl_qp_reset(struct pv_mlx5_mdl_qp *mqp)
{
	memset(mqp->uar + PV_MLX5_MDL_BF_OFFSET, 0, 2 * PV_MLX5_MDL_BF_SIZE);
	mqp->sq_hw_ci = 0;
	mqp->sq_db_pi = 0;
	mqp->rq_hw_ci = 0;
	mqp->last_sq_dbrec = 0;
	mqp->rnr_tries = 0;
	mqp->inject_syndrome = 0;
}

int
pv_mlx5_mdl_step_locked(void)
{
	int work = 0;
	uint32_t i;

	for (i = 0; i < PV_MLX5_MDL_MAX_QP; i++) {
		struct pv_mlx5_mdl_qp *qp = pv_mlx5_mdl.qps[i];

		if (qp == NULL || qp->state == PV_QPS_RESET)
			continue;
		work += mdl_qp_db_poll(qp);
		work += mdl_qp_sq_run(qp);
		if (qp->state == PV_QPS_ERR)
			work += mdl_qp_rq_flush(qp);
	}
	for (i = 0; i < PV_MLX5_MDL_MAX_CQ; i++) {
		struct pv_mlx5_mdl_cq *cq = pv_mlx5_mdl.cqs[i];

		if (cq != NULL)
			work += mdl_cq_arm_poll(cq);
	}
	return work;
}

int
pv_mlx5_model_step(void)
{
	int work;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	work = pv_mlx5_mdl_step_locked();
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return work;
}

int
pv_mlx5_model_drain(void)
{
	int total = 0, n;

	while ((n = pv_mlx5_model_step()) > 0)
		total += n;
	return total;
}

void
pv_mlx5_model_stats_get(struct pv_mlx5_mdl_stats *st)
{
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	*st = pv_mlx5_mdl.st;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
}

int
pv_mlx5_model_srq_outstanding(struct pv_srq *ibsrq)
{
	int n;

	if (ibsrq == NULL || !pv_mlx5_model_is(ibsrq->context))
		return -EINVAL;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	n = mdl_srq_outstanding(pv_mlx5_srq(ibsrq)->mdl);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return n;
}
