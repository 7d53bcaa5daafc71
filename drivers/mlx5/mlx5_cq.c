/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Completion data path: pollverbs reads mlx5 CQEs itself (ownership by the
 * owner bit against the consumer index), turns them into pv_wc, retires
 * send and receive WQEs, updates the consumer-index doorbell record once per
 * poll, and arms the CQ through the arm doorbell record and the UAR.
 */

#include <errno.h>
#include <stddef.h>

#include <rte_byteorder.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_io.h>

#include "mlx5_priv.h"

enum pv_wc_status
pv_mlx5_syndrome_to_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return PV_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return PV_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return PV_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return PV_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return PV_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return PV_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return PV_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return PV_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return PV_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return PV_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return PV_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return PV_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return PV_WC_REM_ABORT_ERR;
	default:
		return PV_WC_GENERAL_ERR;
	}
}

/* QPN bits of a CQE's sop_drop_qpn, in its big-endian form. */
#define MLX5_CQE_QPN_MASK_BE	RTE_BE32(0x00ffffff)

/* The CQ's "previous QP" before any CQE: matches no CQE. */
struct pv_mlx5_qp pv_mlx5_qp_none = {
	.qpn_cqe = 0xffffffff,
	.qpn = 0xffffffff,
};

/*
 * QP of a CQE that is not the previous CQE's QP. A receive of an XRC TGT
 * QP (not in the QP table: it has no queues here) is found by the XRC SRQ
 * its CQE names, as rdma-core's mlx5 does.
 */
static __rte_noinline struct pv_mlx5_qp *
mlx5_cq_qp_find(struct pv_mlx5_cq *cq, const struct mlx5_cqe64 *cqe, uint32_t qpn,
		uint8_t opcode)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qpt_lookup(cq->ctx, qpn);

	if (qp != NULL) {
		cq->last_qp = qp;
		return qp;
	}
	/* srqn_uidx of a CQE and srqn of an error CQE: the same word */
	if (cq->ctx->nb_xrc_srq != 0 && opcode != MLX5_CQE_REQ && opcode != MLX5_CQE_REQ_ERR) {
		qp = pv_mlx5_xsrqt_lookup(cq->ctx,
					  rte_be_to_cpu_32(cqe->srqn_uidx) & 0xffffff);
		if (qp != NULL)
			return qp;
	}
	MLX5_DP_LOG(ERR, "cq 0x%x: cqe for unknown qp 0x%x", cq->cqn, qpn);
	return NULL;
}

static_assert(offsetof(struct mlx5_cqe64, srqn_uidx) == offsetof(struct mlx5_err_cqe, srqn),
	      "srqn word");

/* The work completion opcode of each send WQE opcode a CQE reports. */
const uint8_t pv_mlx5_wc_opcode[256] = {
	[MLX5_OPCODE_RDMA_WRITE] = PV_WC_RDMA_WRITE,
	[MLX5_OPCODE_RDMA_WRITE_IMM] = PV_WC_RDMA_WRITE,
	[MLX5_OPCODE_SEND] = PV_WC_SEND,
	[MLX5_OPCODE_SEND_IMM] = PV_WC_SEND,
	[MLX5_OPCODE_SEND_INVAL] = PV_WC_SEND,
	[MLX5_OPCODE_RDMA_READ] = PV_WC_RDMA_READ,
	[MLX5_OPCODE_ATOMIC_CS] = PV_WC_COMP_SWAP,
	[MLX5_OPCODE_ATOMIC_FA] = PV_WC_FETCH_ADD,
	/* BIND_MW or LOCAL_INV: told apart by the QP's sq_umr_op */
	[MLX5_OPCODE_UMR] = PV_WC_BIND_MW,
};

/* Retire the send WQE a requester CQE names; @p sop holds its opcode. */
static inline void
mlx5_cqe_req_retire(struct pv_mlx5_qp *qp, uint16_t wqe_counter, pv_be32 sop,
		    struct pv_wc *wc)
{
	uint32_t idx = wqe_counter & qp->sq_mask;
	uint8_t op = rte_be_to_cpu_32(sop) >> 24;

	wc->wr_id = qp->sq_wrid[idx];
	wc->opcode = op == MLX5_OPCODE_UMR ? qp->sq_umr_op[idx] : pv_mlx5_wc_opcode[op];
	qp->sq_ci = qp->sq_next[idx];
}

/*
 * The fast loop took requester CQEs [@p first, @p stop) into @p w: give the
 * UMR ones among them the opcode their WQE was posted with (LOCAL_INV or
 * BIND_MW). The CQEs are still there: the consumer index is not updated.
 */
static __rte_noinline void
mlx5_cqe_umr_fix(const struct pv_mlx5_qp *qp, const uint8_t *first, const uint8_t *stop,
		 uint32_t shift, struct pv_wc *w)
{
	const uint8_t *cqe;

	for (cqe = first; cqe != stop; cqe += 1u << shift, w++) {
		const struct mlx5_cqe64 *c = (const struct mlx5_cqe64 *)cqe;

		if (*(const uint8_t *)&c->sop_drop_qpn == MLX5_OPCODE_UMR)
			w->opcode = qp->sq_umr_op[rte_be_to_cpu_16(c->wqe_counter) & qp->sq_mask];
	}
}

uint64_t
pv_mlx5_rq_recv_retire(struct pv_mlx5_qp *qp, uint16_t wqe_counter __rte_unused)
{
	/* an RQ completes in order: every receive CQE is for its oldest WQE */
	return qp->rq_wrid[qp->rq_tail++ & qp->rq_mask];
}

/*
 * Responder CQE: receive completion of the WQE recv_retire names (the RQ's
 * oldest, or the SRQ WQE of the CQE's wqe_counter). The QP's choice was made
 * at its creation; the requester fast loop never comes here.
 */
static void
mlx5_cqe_resp(struct pv_mlx5_qp *qp, const struct mlx5_cqe64 *cqe, uint8_t opcode,
	      struct pv_wc *wc)
{
	uint32_t flags_rqpn = rte_be_to_cpu_32(cqe->flags_rqpn);

	wc->wr_id = qp->recv_retire(qp, rte_be_to_cpu_16(cqe->wqe_counter));
	wc->status = PV_WC_SUCCESS;
	wc->vendor_err = 0;
	wc->byte_len = rte_be_to_cpu_32(cqe->byte_cnt);
	wc->src_qp = flags_rqpn & 0xffffff;
	wc->sl = (flags_rqpn >> 24) & 0xf;
	wc->wc_flags = ((flags_rqpn >> 28) & 3) ? PV_WC_GRH : 0;
	wc->slid = rte_be_to_cpu_16(cqe->slid);
	wc->dlid_path_bits = cqe->ml_path & 0x7f;
	wc->pkey_index = 0;
	switch (opcode) {
	case MLX5_CQE_RESP_WR_IMM:
		wc->opcode = PV_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags |= PV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND_IMM:
		wc->opcode = PV_WC_RECV;
		wc->wc_flags |= PV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_inval_pkey;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		wc->opcode = PV_WC_RECV;
		wc->wc_flags |= PV_WC_WITH_INV;
		wc->invalidated_rkey = rte_be_to_cpu_32(cqe->imm_inval_pkey);
		break;
	default:
		wc->opcode = PV_WC_RECV;
		wc->imm_data = 0;
		break;
	}
}

/* Error CQE (requester or responder): status from the syndrome. */
static void
mlx5_cqe_err(struct pv_mlx5_qp *qp, const struct mlx5_cqe64 *cqe, uint8_t opcode,
	     struct pv_wc *wc)
{
	const struct mlx5_err_cqe *ecqe = (const struct mlx5_err_cqe *)cqe;

	if (opcode == MLX5_CQE_REQ_ERR) {
		mlx5_cqe_req_retire(qp, rte_be_to_cpu_16(ecqe->wqe_counter),
				    ecqe->s_wqe_opcode_qpn, wc);
	} else {
		wc->wr_id = qp->recv_retire(qp, rte_be_to_cpu_16(ecqe->wqe_counter));
		wc->opcode = PV_WC_RECV;
	}
	wc->status = pv_mlx5_syndrome_to_status(ecqe->syndrome);
	wc->vendor_err = ecqe->vendor_err_synd;
	wc->byte_len = 0;
	wc->wc_flags = 0;
	wc->src_qp = 0;
	if (ecqe->syndrome != MLX5_CQE_SYNDROME_WR_FLUSH_ERR)
		MLX5_DP_LOG(DEBUG, "qp 0x%x: error cqe syndrome 0x%x vendor 0x%x",
			    qp->qpn, ecqe->syndrome, ecqe->vendor_err_synd);
}

/*
 * Every CQE the fast loop does not take: not yet ours (@return -1), a CQE
 * of another QP, a responder or an error CQE (@return 1 when @p wc was
 * filled, 0 when the CQE carried no completion).
 */
static __rte_noinline int
mlx5_cqe_slow(struct pv_mlx5_cq *cq, const struct mlx5_cqe64 *cqe, struct pv_wc *wc,
	      uint8_t own)
{
	uint8_t op_own = *(volatile const uint8_t *)&cqe->op_own;
	uint8_t opcode = op_own >> 4;
	uint32_t qpn;
	struct pv_mlx5_qp *qp;

	/* hardware still owns it, or never wrote it (first pass) */
	if (((op_own ^ own) & MLX5_CQE_OWNER_MASK) || opcode == MLX5_CQE_INVALID)
		return -1;
	rte_io_rmb();
	qpn = rte_be_to_cpu_32(cqe->sop_drop_qpn) & 0xffffff;
	qp = cq->last_qp;
	if (qp->qpn != qpn) {
		qp = mlx5_cq_qp_find(cq, cqe, qpn, opcode);
		if (qp == NULL)
			return 0;
	}
	wc->qp_num = qpn;
	switch (opcode) {
	case MLX5_CQE_REQ:
		mlx5_cqe_req_retire(qp, rte_be_to_cpu_16(cqe->wqe_counter), cqe->sop_drop_qpn,
				    wc);
		wc->status = PV_WC_SUCCESS;
		wc->byte_len = rte_be_to_cpu_32(cqe->byte_cnt);
		wc->wc_flags = 0;
		return 1;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		mlx5_cqe_resp(qp, cqe, opcode, wc);
		return 1;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR:
		mlx5_cqe_err(qp, cqe, opcode, wc);
		return 1;
	default:
		MLX5_DP_LOG(WARNING, "cq 0x%x: cqe opcode 0x%x ignored", cq->cqn, opcode);
		return 0;
	}
}

/*
 * Poll: an outer loop per run of CQEs that neither wraps the ring nor
 * overruns @p wc (so the owner parity is fixed in it), an inner loop that
 * takes successful requester CQEs of one QP, and the slow path for the rest.
 * The QP's fields are read into locals once per run: wc stores may alias.
 */
static __rte_always_inline int
mlx5_poll_cq_common(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc, const uint32_t shift)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	uint8_t *const buf = cq->buf;
	const uint32_t cnt = cq->cqe_cnt;
	const uint32_t cnt_mask = cnt - 1;
	const uint32_t log_cnt = cq->log_cnt;
	struct pv_wc *w = wc, *const end = wc + num_entries;
	uint32_t ci = cq->ci;

	while (w < end) {
		struct pv_mlx5_qp *qp = cq->last_qp;
		const uint64_t *const sq_wrid = qp->sq_wrid;
		const uint32_t *const sq_next = qp->sq_next;
		const uint32_t sq_mask = qp->sq_mask;
		const pv_be32 qpn_cqe = qp->qpn_cqe;
		const uint32_t qpn = qp->qpn;
		uint32_t sq_ci = qp->sq_ci;
		const uint32_t idx = ci & cnt_mask;
		/* software owns CQEs whose owner bit is the pass parity */
		const uint8_t own = (ci >> log_cnt) & MLX5_CQE_OWNER_MASK;
		const uint32_t n = RTE_MIN((uint32_t)(end - w), cnt - idx);
		const uint8_t *const first = buf + ((size_t)idx << shift);
		const uint8_t *const stop = first + ((size_t)n << shift);
		const uint8_t *cqe;
		int r;

		for (cqe = first; cqe != stop; cqe += 1u << shift) {
			const struct mlx5_cqe64 *c = (const struct mlx5_cqe64 *)cqe;
			uint32_t i;

			/* ours and a successful requester CQE (opcode 0) */
			if ((*(volatile const uint8_t *)&c->op_own & 0xf1) != own)
				break;
			/* read the CQE body only after its ownership was seen */
			rte_io_rmb();
			if (unlikely((c->sop_drop_qpn & MLX5_CQE_QPN_MASK_BE) != qpn_cqe))
				break;
			i = rte_be_to_cpu_16(c->wqe_counter) & sq_mask;
			w->wr_id = sq_wrid[i];
			w->status = PV_WC_SUCCESS;
			/* the WQE's opcode: the first byte of sop_drop_qpn */
			w->opcode = pv_mlx5_wc_opcode[*(const uint8_t *)&c->sop_drop_qpn];
			w->byte_len = rte_be_to_cpu_32(c->byte_cnt);
			w->qp_num = qpn;
			w->wc_flags = 0;
			sq_ci = sq_next[i];
			w++;
		}
		if (cqe != first) {
			uint32_t taken = (uint32_t)((cqe - first) >> shift);

			qp->sq_ci = sq_ci;
			ci += taken;
			/* read after the CQEs: a UMR CQE seen implies its post,
			 * which set the flag before ringing, is visible */
			if (unlikely(qp->sq_umr_used))
				mlx5_cqe_umr_fix(qp, first, cqe, shift, w - taken);
		}
		if (cqe == stop)
			continue;	/* end of the ring (parity flips) or of wc[] */
		r = mlx5_cqe_slow(cq, (const struct mlx5_cqe64 *)cqe, w, own);
		if (r < 0)
			break;		/* no more CQEs */
		ci++;
		w += r;
	}
	if (likely(ci != cq->ci)) {
		cq->ci = ci;
		/* the CQEs were read (their values fed the wc stores) before
		 * the consumer index lets the HCA overwrite them */
		rte_atomic_thread_fence(__ATOMIC_RELEASE);
		cq->dbrec[PV_MLX5_CQ_SET_CI] = rte_cpu_to_be_32(ci & 0xffffff);
	}
	return (int)(w - wc);
}

/* Variant for 64-byte CQEs. */
static int
mlx5_poll_cq_64(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	return mlx5_poll_cq_common(ibcq, num_entries, wc, 6);
}

/* Variant for 128-byte CQEs (the 64-byte CQE in each entry's second half). */
static int
mlx5_poll_cq_128(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	return mlx5_poll_cq_common(ibcq, num_entries, wc, 7);
}

static int
mlx5_req_notify_cq(struct pv_cq *ibcq, int solicited_only)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	uint32_t sn = cq->arm_sn & PV_MLX5_CQ_ARM_SN_MASK;
	uint32_t cmd = solicited_only ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT;
	uint32_t db = sn << 28 | cmd | (cq->ci & 0xffffff);
	uint64_t uar_db = (uint64_t)db << 32 | cq->cqn;

	if (ibcq->channel == NULL)
		return EINVAL;
	ibcq->armed = 1;
	cq->dbrec[PV_MLX5_CQ_ARM_DB] = rte_cpu_to_be_32(db);
	/* the arm record must be in memory before the UAR doorbell that makes
	 * the HCA read it */
	rte_wmb();
	*(volatile uint64_t *)(cq->cq_uar + MLX5_CQ_DOORBELL) = rte_cpu_to_be_64(uar_db);
	return 0;
}

/* thread-safe mode (rdma-core's mlx5 locking): the CQ's lock around poll and arm */
static int
mlx5_poll_cq_64_mt(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	int n;

	pv_rtc_spin_lock(&cq->lock);
	n = mlx5_poll_cq_64(ibcq, num_entries, wc);
	pv_rtc_spin_unlock(&cq->lock);
	return n;
}

static int
mlx5_poll_cq_128_mt(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	int n;

	pv_rtc_spin_lock(&cq->lock);
	n = mlx5_poll_cq_128(ibcq, num_entries, wc);
	pv_rtc_spin_unlock(&cq->lock);
	return n;
}

static int
mlx5_req_notify_cq_mt(struct pv_cq *ibcq, int solicited_only)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	int ret;

	pv_rtc_spin_lock(&cq->lock);
	ret = mlx5_req_notify_cq(ibcq, solicited_only);
	pv_rtc_spin_unlock(&cq->lock);
	return ret;
}

void
pv_mlx5_cq_event_ack(struct pv_mlx5_cq *cq)
{
	cq->arm_sn++;
}

int
pv_mlx5_cq_dp_init(struct pv_mlx5_cq *cq, const struct mlx5dv_cq *dv)
{
	if (dv->cqe_cnt == 0 || !rte_is_power_of_2(dv->cqe_cnt) ||
	    (dv->cqe_size != 64 && dv->cqe_size != 128)) {
		MLX5_LOG(ERR, "cq 0x%x: unsupported geometry: %u cqes of %u bytes",
			 dv->cqn, dv->cqe_cnt, dv->cqe_size);
		return -EINVAL;
	}
	/* with 128-byte CQEs the 64-byte CQE sits in the second half */
	cq->buf = (uint8_t *)dv->buf + dv->cqe_size - sizeof(struct mlx5_cqe64);
	cq->ci = 0;
	cq->cqe_cnt = dv->cqe_cnt;
	cq->log_cnt = rte_log2_u32(dv->cqe_cnt);
	cq->cqe_shift = rte_log2_u32(dv->cqe_size);
	cq->dbrec = dv->dbrec;
	cq->cq_uar = dv->cq_uar;
	cq->cqn = dv->cqn;
	cq->last_qp = &pv_mlx5_qp_none;
	cq->ibcq.cqe = dv->cqe_cnt - 1;
	rte_spinlock_init(&cq->lock);
	if (cq->ctx->single_threaded) {
		cq->ibcq.fp_poll_cq = dv->cqe_size == 64 ? mlx5_poll_cq_64 : mlx5_poll_cq_128;
		cq->ibcq.fp_req_notify_cq = mlx5_req_notify_cq;
	} else {
		cq->ibcq.fp_poll_cq = dv->cqe_size == 64 ? mlx5_poll_cq_64_mt :
							   mlx5_poll_cq_128_mt;
		cq->ibcq.fp_req_notify_cq = mlx5_req_notify_cq_mt;
	}
	cq->ctx->nb_queues++;
	return 0;
}

void
pv_mlx5_cq_dp_fini(struct pv_mlx5_cq *cq)
{
	cq->ctx->nb_queues--;
}

int
pv_mlx5_set_progress_mode(struct pv_context *ibctx, enum pv_progress_mode mode)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);

	/* the locks are chosen when a queue is created */
	if (ctx->nb_queues != 0) {
		MLX5_LOG(ERR, "progress mode: the context has %u QPs, CQs or SRQs",
			 ctx->nb_queues);
		return EBUSY;
	}
	ctx->single_threaded = mode == PV_PROGRESS_APP;
	return 0;
}

int
pv_mlx5_get_progress_mode(struct pv_context *ibctx)
{
	return pv_mlx5_ctx(ibctx)->single_threaded ? PV_PROGRESS_APP : PV_PROGRESS_THREAD_SAFE;
}

void
pv_mlx5_cq_dp_rebuf(struct pv_mlx5_cq *cq, uint8_t *buf, uint32_t cqe_cnt)
{
	cq->buf = buf + (1u << cq->cqe_shift) - sizeof(struct mlx5_cqe64);
	cq->ci = 0;
	cq->cqe_cnt = cqe_cnt;
	cq->log_cnt = rte_log2_u32(cqe_cnt);
	cq->dbrec[PV_MLX5_CQ_SET_CI] = 0;
	cq->ibcq.cqe = cqe_cnt - 1;
}
