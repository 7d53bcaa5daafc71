/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Requester and completer of an RC QP (IBTA vol. 1 9.7, as Linux rxe's
 * rxe_req.c / rxe_comp.c behave).
 *
 * Send queue indices (free running):
 *   sq_ci <= req.idx <= sq_pi; req.hw_idx = one past the last WQE that ever
 *   went on the wire. [sq_ci, hw_idx) have PSNs assigned; req.idx and req.off
 *   are the transmit cursor, moved back by go-back-N (NAK, timeout, RNR),
 *   never behind sq_ci: a completion past the cursor moves it forward (a
 *   completed WQE's buffers are the application's again and are never read).
 * PSNs: comp.psn = oldest unacknowledged, req.psn = next to send.
 *
 * UC (IBTA 9.8) shares the segmentation: the same opcodes in the UC range
 * (0x20..), no AckReq, no PSN window, no ACK and no retransmission; a WQE
 * completes when its last packet is queued (sq_ci == req.idx). UD (9.8.4)
 * is one SEND ONLY per WQE (BTH + DETH to the WR's address handle),
 * completed the same way; a UD WQE above the MTU completes without a packet
 * (C10-93.1.1, as rxe) and is counted in ud_oversize. The transmit body
 * takes const QP-type flags; pv_sroce_req_tx, pv_sroce_req_tx_uc and
 * pv_sroce_req_tx_ud are its variants (qp->fp_req_tx).
 */

#include <string.h>

#include <rte_cycles.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

/* RNR timer codes in microseconds (IBTA vol. 1 table 45) */
static const uint32_t sroce_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

uint64_t
pv_sroce_rnr_tsc(uint8_t code)
{
	return rte_get_tsc_hz() / 1000000 * sroce_rnr_us[code & 0x1f];
}

static inline uint32_t
sroce_wqe_npkts(const struct sroce_qp *qp, const struct sroce_swqe *w)
{
	if (w->rd_atomic && w->opcode != PV_WR_RDMA_READ)
		return 1;
	if (w->length == 0)
		return 1;
	/* in 64 bits: length + mtu - 1 must not wrap */
	return (uint32_t)(((uint64_t)w->length + qp->mtu - 1) / qp->mtu);
}

/* ---------------------------------------------------------------------- */
/* Requester                                                              */
/* ---------------------------------------------------------------------- */

static inline uint8_t
sroce_req_opcode(uint8_t wr_op, int first, int last)
{
	static const uint8_t send_op[2][2] = {
		/* [first][last] */
		{ SROCE_OP_RC_SEND_MIDDLE, SROCE_OP_RC_SEND_LAST },
		{ SROCE_OP_RC_SEND_FIRST, SROCE_OP_RC_SEND_ONLY },
	};
	static const uint8_t write_op[2][2] = {
		{ SROCE_OP_RC_WRITE_MIDDLE, SROCE_OP_RC_WRITE_LAST },
		{ SROCE_OP_RC_WRITE_FIRST, SROCE_OP_RC_WRITE_ONLY },
	};

	switch (wr_op) {
	case PV_WR_SEND:
		return send_op[first][last];
	case PV_WR_SEND_WITH_IMM:
		if (last)
			return first ? SROCE_OP_RC_SEND_ONLY_IMM : SROCE_OP_RC_SEND_LAST_IMM;
		return send_op[first][0];
	case PV_WR_SEND_WITH_INV:
		if (last)
			return first ? SROCE_OP_RC_SEND_ONLY_INV : SROCE_OP_RC_SEND_LAST_INV;
		return send_op[first][0];
	case PV_WR_RDMA_WRITE:
		return write_op[first][last];
	default:	/* PV_WR_RDMA_WRITE_WITH_IMM */
		if (last)
			return first ? SROCE_OP_RC_WRITE_ONLY_IMM : SROCE_OP_RC_WRITE_LAST_IMM;
		return write_op[first][0];
	}
}

/* one SEND/WRITE packet of @p w at the transmit cursor; @return 0 or -ENOBUFS.
 * Always inlined: @p qpf must fold away in each variant. */
static __rte_always_inline int
sroce_req_send_pkt(struct sroce_qp *qp, struct sroce_swqe *w, const unsigned int qpf)
{
	const int uc = (qpf & SROCE_QPF_UC) != 0;
	const int ud = (qpf & SROCE_QPF_UD) != 0;
	const int xrc = (qpf & SROCE_QPF_XRC) != 0;
	uint32_t off = qp->req.off;
	uint32_t paylen = RTE_MIN(qp->mtu, w->length - off);
	int first = off == 0;
	int last = off + paylen == w->length;
	uint8_t op = sroce_req_opcode(w->opcode, first, last);
	uint32_t ext = 0;
	int ackreq, imm = 0;
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	if (first && (op == SROCE_OP_RC_WRITE_FIRST || op == SROCE_OP_RC_WRITE_ONLY ||
		      op == SROCE_OP_RC_WRITE_ONLY_IMM))
		ext += SROCE_RETH_LEN;
	/* ImmDt or IETH: both 4 bytes at the same place (w->imm holds either) */
	if (last && (op == SROCE_OP_RC_SEND_LAST_IMM || op == SROCE_OP_RC_SEND_ONLY_IMM ||
		     op == SROCE_OP_RC_WRITE_LAST_IMM || op == SROCE_OP_RC_WRITE_ONLY_IMM ||
		     op == SROCE_OP_RC_SEND_LAST_INV || op == SROCE_OP_RC_SEND_ONLY_INV)) {
		ext += SROCE_IMM_LEN;
		imm = 1;
	}
	if (xrc)
		ext += SROCE_XRCETH_LEN;
	/*
	 * UC and UD are never acknowledged: no AckReq (as rxe sends them), but
	 * on the GSI QP's packets, which rxe sends with AckReq (its QP1 is of
	 * type GSI, not UD: AckReq on the last packet, as RC)
	 */
	ackreq = !uc && !ud && (last || ++qp->req.noack >= SROCE_ACK_EVERY);
	if (ud) {
		/* one SEND ONLY (caller checked the MTU) with a DETH */
		ext += SROCE_DETH_LEN;
		op = op == SROCE_OP_RC_SEND_ONLY_IMM ? SROCE_OP_UD_SEND_ONLY_IMM :
		     SROCE_OP_UD_SEND_ONLY;
		m = sroce_frame_start_ud(qp, w->ud.ah, w->ud.remote_qpn, op, qp->req.psn,
					 qp->gsi, w->se, ext, paylen, &p);
	} else {
		/* UC and XRC SEND/WRITE opcodes are the RC ones in their range
		 * (IBTA table 38) */
		m = sroce_frame_start(qp, uc ? op | SROCE_OP_UC : xrc ? op | SROCE_OP_XRC : op,
				      qp->req.psn, ackreq, last && w->se, ext, paylen, &p);
	}
	if (unlikely(m == NULL))
		return -ENOBUFS;
	if (ackreq)
		qp->req.noack = 0;
	if (xrc) {
		sroce_put_be32(p, w->xrc_srqn);
		p += SROCE_XRCETH_LEN;
	}
	if (ud) {
		sroce_put_be32(p, w->ud.qkey);
		sroce_put_be32(p + 4, qp->ibqp.qp_num);
		p += SROCE_DETH_LEN;
	} else if (first && (w->opcode == PV_WR_RDMA_WRITE ||
			     w->opcode == PV_WR_RDMA_WRITE_WITH_IMM)) {
		sroce_put_be64(p, w->rdma.raddr);
		sroce_put_be32(p + 8, w->rdma.rkey);
		sroce_put_be32(p + 12, w->length);
		p += SROCE_RETH_LEN;
	}
	if (imm) {
		memcpy(p, &w->imm, 4);
		p += SROCE_IMM_LEN;
	}
	if (w->inl)
		sroce_payload_copy(p, (const uint8_t *)w->sge + off, paylen);
	else
		sroce_sge_copy_out(w->sge, &qp->req.cur, p, paylen);
	sroce_frame_send(qp->eng, m);
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);
	qp->req.off = off + paylen;
	return 0;
}

/* the READ request or atomic of @p w at the transmit cursor (RC or XRC) */
static __rte_always_inline int
sroce_req_rd_atomic_pkt(struct sroce_qp *qp, struct sroce_swqe *w, const unsigned int qpf)
{
	const uint32_t x = (qpf & SROCE_QPF_XRC) ? SROCE_XRCETH_LEN : 0;
	const uint8_t t = (qpf & SROCE_QPF_XRC) ? SROCE_OP_XRC : SROCE_OP_RC;
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	if (w->opcode == PV_WR_RDMA_READ) {
		uint32_t off = qp->req.off;

		m = sroce_frame_start(qp, SROCE_OP_RC_READ_REQ | t, qp->req.psn, 1, 0,
				      x + SROCE_RETH_LEN, 0, &p);
		if (unlikely(m == NULL))
			return -ENOBUFS;
		if (x != 0) {
			sroce_put_be32(p, w->xrc_srqn);
			p += x;
		}
		/* a retry asks for the rest of the message only */
		sroce_put_be64(p, w->rdma.raddr + off);
		sroce_put_be32(p + 8, w->rdma.rkey);
		sroce_put_be32(p + 12, w->length - off);
	} else {
		m = sroce_frame_start(qp, (w->opcode == PV_WR_ATOMIC_CMP_AND_SWP ?
					   SROCE_OP_RC_CMP_SWAP : SROCE_OP_RC_FETCH_ADD) | t,
				      qp->req.psn, 1, 0, x + SROCE_ATMETH_LEN, 0, &p);
		if (unlikely(m == NULL))
			return -ENOBUFS;
		if (x != 0) {
			sroce_put_be32(p, w->xrc_srqn);
			p += x;
		}
		sroce_put_be64(p, w->atomic.raddr);
		sroce_put_be32(p + 8, w->atomic.rkey);
		if (w->opcode == PV_WR_ATOMIC_CMP_AND_SWP) {
			sroce_put_be64(p + 12, w->atomic.swap);
			sroce_put_be64(p + 20, w->atomic.compare_add);
		} else {
			sroce_put_be64(p + 12, w->atomic.compare_add);
			sroce_put_be64(p + 20, 0);
		}
	}
	sroce_frame_send(qp->eng, m);
	qp->req.noack = 0;
	qp->req.psn = sroce_psn_add(w->last_psn, 1);
	qp->req.off = 0;
	qp->req.rd_inflight++;
	qp->req.idx++;
	return 0;
}

static inline int sroce_comp_wqe(struct sroce_qp *qp, struct sroce_swqe *w);

/* the transmit cursor invariant (debug builds) */
static inline void
sroce_req_assert_cursor(const struct sroce_qp *qp)
{
	SROCE_ASSERT((int32_t)(qp->req.idx - qp->sq_ci) >= 0);
	SROCE_ASSERT((int32_t)(qp->sq_pi - qp->req.idx) >= 0);
	RTE_SET_USED(qp);
}

/*
 * A UD WQE above the MTU: no packet, a successful completion (room checked
 * by the caller).
 */
static __rte_noinline void
sroce_req_ud_oversize(struct sroce_qp *qp, struct sroce_swqe *w)
{
	qp->eng->stats.ud_oversize++;
	qp->req.idx++;
	(void)sroce_comp_wqe(qp, w);
}

static __rte_noinline void sroce_comp_fail(struct sroce_qp *qp, enum pv_wc_status status);

/*
 * Run the local operation at the head of the send queue (sq_ci == req.idx):
 * bind a memory window or invalidate an rkey, then complete it at once.
 * @return 0, or -1 it failed: the QP went to ERR with its status
 * (PV_WC_MW_BIND_ERR; PV_WC_LOC_QP_OP_ERR for LOCAL_INV, as rxe).
 */
static __rte_noinline int
sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *w)
{
	enum pv_wc_status st;

	if (w->opcode == PV_WR_BIND_MW)
		st = pv_sroce_mw_bind(qp->dev, qp->pd, qp->ibqp.qp_num, w->bind.mw_idx,
				      w->bind.mw_serial, w->bind.rkey, w->bind.mr_key,
				      w->bind.addr, w->bind.length, w->bind.access);
	else
		st = pv_sroce_key_invalidate(qp->dev, qp->pd, qp->ibqp.qp_num, w->inv.rkey) == 0 ?
		     PV_WC_SUCCESS : PV_WC_LOC_QP_OP_ERR;
	if ((int32_t)(qp->req.idx - qp->req.hw_idx) >= 0)
		qp->req.hw_idx = qp->req.idx + 1;
	if (st != PV_WC_SUCCESS) {
		qp->eng->stats.local_op_errors++;
		sroce_comp_fail(qp, st);
		return -1;
	}
	w->first_psn = qp->req.psn;
	w->npkts = 0;
	w->last_psn = sroce_psn_add(qp->req.psn, SROCE_PSN_MASK);	/* psn - 1 */
	qp->req.idx++;
	(void)sroce_comp_wqe(qp, w);	/* room checked by the caller */
	return 0;
}

/* Always inlined into its three variants: @p qpf must fold away for RC. */
static __rte_always_inline int
sroce_req_tx(struct sroce_qp *qp, const unsigned int qpf)
{
	/* unacknowledged: complete when the last packet is queued */
	const int uc = (qpf & (SROCE_QPF_UC | SROCE_QPF_UD)) != 0;
	uint32_t budget = RTE_MIN((uint32_t)SROCE_TX_BUDGET, sroce_tx_space(qp->eng));
	uint32_t max_rd = RTE_MAX(qp->attr.max_rd_atomic, (uint8_t)1);
	uint32_t n = 0;

	if (unlikely(qp->req.flags != 0 || qp->state != PV_QPS_RTS))
		return 0;
	sroce_req_assert_cursor(qp);
	while (n < budget && qp->req.idx != qp->sq_pi) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->req.idx);

		if (!uc && unlikely(sroce_psn_diff(qp->req.psn, qp->comp.psn) >= SROCE_WINDOW))
			break;
		/* UC/UD complete at the last packet: keep it queued until the CQ has room */
		if (uc && unlikely(w->signaled && sroce_cq_space(qp->scq) == 0 &&
				   ((qpf & SROCE_QPF_UD) || w->length - qp->req.off <= qp->mtu)))
			break;
		if ((qpf & SROCE_QPF_UD) && unlikely(w->length > qp->mtu)) {
			sroce_req_ud_oversize(qp, w);
			continue;
		}
		if (!(qpf & SROCE_QPF_UD) && unlikely(w->local)) {
			/* after every WQE before it completed, room for its own */
			if (qp->sq_ci != qp->req.idx ||
			    (w->signaled && sroce_cq_space(qp->scq) == 0))
				break;
			if (sroce_req_local(qp, w) != 0)
				break;
			n++;
			continue;
		}
		if (qp->req.off == 0) {
			if (!uc && unlikely(w->rd_atomic && qp->req.rd_inflight >= max_rd))
				break;
			if (!uc && unlikely(w->fence && qp->req.rd_inflight > 0))
				break;
			/* first packet of the WQE (again, after go-back-N: same PSN) */
			w->first_psn = qp->req.psn;
			w->npkts = sroce_wqe_npkts(qp, w);
			w->last_psn = sroce_psn_add(w->first_psn, w->npkts - 1);
			qp->req.cur.i = 0;
			qp->req.cur.off = 0;
			if ((int32_t)(qp->req.idx - qp->req.hw_idx) >= 0)
				qp->req.hw_idx = qp->req.idx + 1;
		}
		if (!uc && w->rd_atomic) {
			if (unlikely(sroce_req_rd_atomic_pkt(qp, w, qpf) != 0))
				break;
		} else {
			if (unlikely(sroce_req_send_pkt(qp, w, qpf) != 0))
				break;
			if (qp->req.off == w->length) {
				qp->req.idx++;
				qp->req.off = 0;
				/* UC/UD: done once on the wire (room checked above) */
				if (uc)
					(void)sroce_comp_wqe(qp, w);
			}
		}
		n++;
	}
	if (!uc && n > 0) {
		if (sroce_psn_diff(qp->req.psn, qp->req.hw_psn) > 0)
			qp->req.hw_psn = qp->req.psn;
		if (qp->comp.deadline == 0 && qp->timeout_tsc != 0)
			qp->comp.deadline = rte_rdtsc() + qp->timeout_tsc;
	}
	return (int)n;
}

int
pv_sroce_req_tx(struct sroce_qp *qp)
{
	return sroce_req_tx(qp, 0);
}

int
pv_sroce_req_tx_uc(struct sroce_qp *qp)
{
	return sroce_req_tx(qp, SROCE_QPF_UC);
}

int
pv_sroce_req_tx_ud(struct sroce_qp *qp)
{
	return sroce_req_tx(qp, SROCE_QPF_UD);
}

int
pv_sroce_req_tx_xrc(struct sroce_qp *qp)
{
	return sroce_req_tx(qp, SROCE_QPF_XRC);
}

/* go-back-N: restart transmission at @p psn (IBTA 9.7.4.1.4 / 9.7.5.1.2) */
static __rte_noinline void
sroce_req_rewind(struct sroce_qp *qp, uint32_t psn)
{
	uint32_t i, rd = 0;

	for (i = qp->sq_ci; i != qp->req.hw_idx; i++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (sroce_psn_diff(psn, w->first_psn) >= 0 &&
		    sroce_psn_diff(psn, w->last_psn) <= 0) {
			uint32_t k = (uint32_t)sroce_psn_diff(psn, w->first_psn);

			qp->req.idx = i;
			qp->req.psn = psn;
			qp->req.off = w->rd_atomic && w->opcode != PV_WR_RDMA_READ ? 0 :
				      k * qp->mtu;
			if (!w->rd_atomic && !w->inl)
				sroce_cursor_seek(w->sge, w->num_sge, &qp->req.cur, qp->req.off);
			qp->req.rd_inflight = rd;
			qp->req.noack = 0;
			qp->eng->stats.retransmits++;
			SROCE_DP_LOG(DEBUG, "qp 0x%x: go back to psn 0x%x (wqe %u)",
				     qp->ibqp.qp_num, psn, i);
			return;
		}
		rd += w->rd_atomic;
	}
}

/*
 * Completions went past the transmit cursor (an ACK or READ response for
 * WQEs a rewind had moved it back over): restart transmission at the oldest
 * unacknowledged PSN, comp.psn, inside the WQE at sq_ci if it was sent, so
 * that nothing completed goes out again (issue 11 bug 3).
 */
static __rte_noinline void
sroce_req_cursor_skip(struct sroce_qp *qp)
{
	uint32_t psn = qp->comp.psn;

	qp->req.idx = qp->sq_ci;
	qp->req.off = 0;
	qp->req.cur.i = 0;
	qp->req.cur.off = 0;
	qp->req.rd_inflight = 0;	/* none before the cursor */
	qp->req.noack = 0;
	if (qp->sq_ci != qp->req.hw_idx) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);
		int32_t k = sroce_psn_diff(psn, w->first_psn);

		if (k < 0 || sroce_psn_diff(psn, w->last_psn) > 0) {
			psn = w->first_psn;
			k = 0;
		}
		if (!w->rd_atomic) {
			qp->req.off = (uint32_t)k * qp->mtu;
			if (!w->inl)
				sroce_cursor_seek(w->sge, w->num_sge, &qp->req.cur, qp->req.off);
		}
	}
	if (sroce_psn_diff(psn, qp->req.psn) > 0 || qp->sq_ci != qp->req.hw_idx)
		qp->req.psn = psn;
	SROCE_DP_LOG(DEBUG, "qp 0x%x: acked past the cursor: resume at psn 0x%x (wqe %u)",
		     qp->ibqp.qp_num, qp->req.psn, qp->req.idx);
}

/* ---------------------------------------------------------------------- */
/* Completer                                                              */
/* ---------------------------------------------------------------------- */

/* keep req.idx >= sq_ci after completions */
static inline void
sroce_comp_cursor_check(struct sroce_qp *qp)
{
	if (unlikely((int32_t)(qp->sq_ci - qp->req.idx) > 0))
		sroce_req_cursor_skip(qp);
	sroce_req_assert_cursor(qp);
}

static inline void
sroce_comp_progress(struct sroce_qp *qp)
{
	sroce_comp_cursor_check(qp);
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.rd_retried = 0;
	if (sroce_psn_diff(qp->req.psn, qp->comp.psn) > 0 && qp->timeout_tsc != 0)
		qp->comp.deadline = rte_rdtsc() + qp->timeout_tsc;
	else
		qp->comp.deadline = 0;
}

/* write the success completion of the head WQE; @return 0 or -ENOSPC */
static inline int
sroce_comp_wqe(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (w->signaled) {
		struct pv_wc *wc;

		if (unlikely(sroce_cq_space(qp->scq) == 0)) {
			qp->comp.stalled = 1;
			return -ENOSPC;
		}
		wc = sroce_cq_next(qp->scq);
		wc->wr_id = w->wr_id;
		wc->status = PV_WC_SUCCESS;
		wc->opcode = sroce_wc_opcode(w->opcode);
		wc->vendor_err = 0;
		wc->byte_len = w->length;
		wc->imm_data = 0;
		wc->qp_num = qp->ibqp.qp_num;
		wc->src_qp = 0;
		wc->wc_flags = 0;
		wc->pkey_index = 0;
		wc->slid = 0;
		wc->sl = 0;
		wc->dlid_path_bits = 0;
		pv_sroce_cq_event(qp->scq, 0);
	}
	/* counted in rd_inflight only while before the transmit cursor */
	if (w->rd_atomic && (int32_t)(qp->req.idx - qp->sq_ci) > 0)
		qp->req.rd_inflight--;
	qp->sq_ci++;
	return 0;
}

/*
 * Complete the SEND/WRITE WQEs whose last PSN is at or before @p psn; stop
 * at the first READ/atomic (they complete with their response data).
 * @return the head WQE if it is a READ/atomic that @p psn covers, else NULL.
 */
static inline struct sroce_swqe *
sroce_comp_ack_upto(struct sroce_qp *qp, uint32_t psn)
{
	struct sroce_swqe *head = NULL;
	int done = 0;

	while (qp->sq_ci != qp->req.hw_idx) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);

		if (w->rd_atomic) {
			if (sroce_psn_diff(psn, w->first_psn) >= 0)
				head = w;
			break;
		}
		if (sroce_psn_diff(psn, w->last_psn) < 0)
			break;
		if (sroce_comp_wqe(qp, w) != 0)
			break;
		done++;
	}
	/* the READ/atomic at the head completes with its response, not here */
	if (head == NULL && sroce_psn_diff(sroce_psn_add(psn, 1), qp->comp.psn) > 0) {
		qp->comp.psn = sroce_psn_add(psn, 1);
		done++;
	}
	/* also when a READ/atomic head is returned: the WQEs before it may have
	 * completed past the transmit cursor */
	if (done)
		sroce_comp_progress(qp);
	return head;
}

/* PSN the head READ/atomic expects next */
static inline uint32_t
sroce_rd_psn(const struct sroce_qp *qp, const struct sroce_swqe *w)
{
	if (w->opcode != PV_WR_RDMA_READ)
		return w->first_psn;
	return sroce_psn_add(w->first_psn, w->rd_off / qp->mtu);
}

static __rte_noinline void
sroce_comp_fail(struct sroce_qp *qp, enum pv_wc_status status)
{
	SROCE_DP_LOG(DEBUG, "qp 0x%x: wqe %u fails: %s", qp->ibqp.qp_num, qp->sq_ci,
		     pv_wc_status_str(status));
	/* the flush reports the head WQE with this status, the rest as flushed */
	qp->sq_err_status = status;
	pv_sroce_qp_error(qp);
}

/* a response for the head READ/atomic is missing: resend from its PSN */
static __rte_noinline void
sroce_comp_rd_retry(struct sroce_qp *qp, struct sroce_swqe *w)
{
	uint32_t psn = sroce_rd_psn(qp, w);

	/* once per gap: the rest of a response stream that overtook the lost
	 * packet would otherwise resend the request for each of its packets;
	 * if the resent request is lost too, the timer retries */
	if (qp->comp.rd_retried && qp->comp.rd_retry_psn == psn)
		return;
	qp->comp.rd_retried = 1;
	qp->comp.rd_retry_psn = psn;
	qp->comp.psn = psn;
	if (sroce_psn_diff(qp->req.psn, psn) > 0)
		sroce_req_rewind(qp, psn);
}

/*
 * A NAK for a PSN before every outstanding WQE (acknowledged long ago), or
 * with nothing outstanding, is a late duplicate: a ghost, ignored.
 */
static inline int
sroce_comp_nak_ghost(const struct sroce_qp *qp, uint32_t psn)
{
	if (qp->sq_ci == qp->req.hw_idx)
		return 1;
	return sroce_psn_diff(psn, sroce_swqe_at(qp, qp->sq_ci)->first_psn) < 0;
}

static __rte_noinline void
sroce_comp_nak(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	uint8_t syn = pkt->aeth_syndrome;
	uint32_t psn = pkt->psn;
	struct sroce_swqe *w;

	if (unlikely(sroce_comp_nak_ghost(qp, psn))) {
		qp->eng->stats.stale_naks_rx++;
		SROCE_DP_LOG(DEBUG, "qp 0x%x: ghost %s psn 0x%x ignored", qp->ibqp.qp_num,
			     pv_sroce_aeth_name(syn), psn);
		return;
	}

	/* a NAK acknowledges every packet before its PSN */
	w = sroce_comp_ack_upto(qp, sroce_psn_add(psn, SROCE_PSN_MASK));
	if (w != NULL) {
		sroce_comp_rd_retry(qp, w);
		return;
	}
	if ((syn & SROCE_AETH_TYPE_MASK) == SROCE_AETH_RNR_NAK) {
		qp->eng->stats.rnr_naks_rx++;
		if (qp->comp.rnr_left == 0) {
			sroce_comp_fail(qp, PV_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->comp.rnr_left != 7)	/* 7: retry forever */
			qp->comp.rnr_left--;
		qp->comp.psn = psn;
		sroce_req_rewind(qp, psn);
		qp->req.flags |= SROCE_REQ_RNR_WAIT;
		qp->req.rnr_until = rte_rdtsc() + pv_sroce_rnr_tsc(syn & SROCE_AETH_VALUE_MASK);
		qp->comp.deadline = 0;
		return;
	}
	switch (syn & SROCE_AETH_VALUE_MASK) {
	case SROCE_NAK_PSN_SEQ_ERR:
		/* not counted against retry_cnt: the responder told us what it misses */
		qp->eng->stats.seq_naks_rx++;
		if (sroce_psn_diff(qp->req.psn, psn) > 0 &&
		    sroce_psn_diff(psn, qp->comp.psn) >= 0) {
			qp->comp.psn = psn;
			sroce_req_rewind(qp, psn);
		}
		return;
	case SROCE_NAK_INV_REQ:
		qp->eng->stats.err_naks_rx++;
		sroce_comp_fail(qp, PV_WC_REM_INV_REQ_ERR);
		return;
	case SROCE_NAK_REM_ACCESS:
		qp->eng->stats.err_naks_rx++;
		sroce_comp_fail(qp, PV_WC_REM_ACCESS_ERR);
		return;
	case SROCE_NAK_REM_OP:
		qp->eng->stats.err_naks_rx++;
		sroce_comp_fail(qp, PV_WC_REM_OP_ERR);
		return;
	case SROCE_NAK_INV_RD_REQ:
		qp->eng->stats.err_naks_rx++;
		sroce_comp_fail(qp, PV_WC_REM_INV_RD_REQ_ERR);
		return;
	default:
		qp->eng->stats.rx_drop_hdr++;
		return;
	}
}

static inline void
sroce_comp_read_resp(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_swqe *w;
	uint32_t exp, len = pkt->payload_len, left;
	int last;

	/* responses acknowledge every request before the READ */
	w = sroce_comp_ack_upto(qp, sroce_psn_add(pkt->psn, SROCE_PSN_MASK));
	if (w == NULL) {
		if (qp->sq_ci == qp->req.hw_idx)
			return;		/* stale */
		w = sroce_swqe_at(qp, qp->sq_ci);
		if (!w->rd_atomic || sroce_psn_diff(pkt->psn, w->first_psn) < 0)
			return;		/* stale or misrouted */
	}
	if (unlikely(w->opcode != PV_WR_RDMA_READ)) {
		sroce_comp_rd_retry(qp, w);
		return;
	}
	exp = sroce_rd_psn(qp, w);
	if (unlikely(pkt->psn != exp)) {
		/* later than expected: responses were lost */
		if (sroce_psn_diff(pkt->psn, exp) > 0)
			sroce_comp_rd_retry(qp, w);
		return;
	}
	left = w->length - w->rd_off;
	last = len >= left;
	if (unlikely(len > left || (!last && len != qp->mtu))) {
		qp->eng->stats.rx_drop_hdr++;
		return;
	}
	if (w->rd_off == 0) {
		qp->comp.cur.i = 0;
		qp->comp.cur.off = 0;
	}
	sroce_sge_copy_in(w->sge, &qp->comp.cur, pkt->frame + pkt->payload_off, len);
	w->rd_off += len;
	qp->comp.psn = sroce_psn_add(pkt->psn, 1);
	if (last) {
		if (sroce_comp_wqe(qp, w) != 0) {
			/* no CQ space: keep the data, complete on a later ACK/drain */
			w->rd_off = w->length;
		}
	}
	sroce_comp_progress(qp);
}

static inline void
sroce_comp_atomic_ack(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_swqe *w;
	uint64_t orig = pkt->atomic_orig;

	w = sroce_comp_ack_upto(qp, sroce_psn_add(pkt->psn, SROCE_PSN_MASK));
	if (w == NULL) {
		if (qp->sq_ci == qp->req.hw_idx)
			return;
		w = sroce_swqe_at(qp, qp->sq_ci);
		if (!w->rd_atomic)
			return;
	}
	if (w->opcode == PV_WR_RDMA_READ || pkt->psn != w->first_psn) {
		if (sroce_psn_diff(pkt->psn, w->first_psn) > 0)
			sroce_comp_rd_retry(qp, w);
		return;
	}
	if (w->rd_off == 0) {
		struct sroce_cursor c = { 0, 0 };

		/* the original value lands in host order, as verbs returns it */
		sroce_sge_copy_in(w->sge, &c, (const uint8_t *)&orig, 8);
		w->rd_off = 8;
	}
	qp->comp.psn = sroce_psn_add(pkt->psn, 1);
	(void)sroce_comp_wqe(qp, w);
	sroce_comp_progress(qp);
}

void
pv_sroce_comp_rx(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_swqe *w;

	if (unlikely(qp->state != PV_QPS_RTS)) {
		qp->eng->stats.rx_drop_state++;
		return;
	}
	/* ignore responses to PSNs never sent */
	if (unlikely(sroce_psn_diff(pkt->psn, qp->req.hw_psn) >= 0)) {
		qp->eng->stats.rx_drop_hdr++;
		return;
	}
	/* XRC responses are the RC ones + 0xa0: the low 5 bits tell them apart */
	switch (pkt->opcode & 0x1f) {
	case SROCE_OP_RC_ACK:
		if (likely((pkt->aeth_syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_ACK)) {
			w = sroce_comp_ack_upto(qp, pkt->psn);
			if (unlikely(w != NULL))
				sroce_comp_rd_retry(qp, w);
		} else {
			sroce_comp_nak(qp, pkt);
		}
		break;
	case SROCE_OP_RC_READ_RESP_FIRST:
	case SROCE_OP_RC_READ_RESP_MIDDLE:
	case SROCE_OP_RC_READ_RESP_LAST:
	case SROCE_OP_RC_READ_RESP_ONLY:
		sroce_comp_read_resp(qp, pkt);
		break;
	case SROCE_OP_RC_ATOMIC_ACK:
		sroce_comp_atomic_ack(qp, pkt);
		break;
	default:
		qp->eng->stats.rx_drop_hdr++;
		break;
	}
	if (qp->state == PV_QPS_RTS)
		sroce_req_assert_cursor(qp);
}

int
pv_sroce_comp_drain(struct sroce_qp *qp)
{
	uint32_t ci = qp->sq_ci;

	qp->comp.stalled = 0;
	(void)sroce_comp_ack_upto(qp, sroce_psn_add(qp->comp.psn, SROCE_PSN_MASK));
	/* a READ whose data all arrived while the CQ was full */
	while (qp->sq_ci != qp->req.hw_idx) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);

		if (!w->rd_atomic || w->rd_off != w->length || w->length == 0 ||
		    sroce_comp_wqe(qp, w) != 0)
			break;
		(void)sroce_comp_ack_upto(qp, sroce_psn_add(qp->comp.psn, SROCE_PSN_MASK));
	}
	sroce_comp_cursor_check(qp);
	return (int)(qp->sq_ci - ci);
}

int
pv_sroce_req_timers(struct sroce_qp *qp, uint64_t now)
{
	if ((qp->req.flags & SROCE_REQ_RNR_WAIT) && now >= qp->req.rnr_until) {
		qp->req.flags &= ~SROCE_REQ_RNR_WAIT;
		return 1;
	}
	if (qp->comp.deadline == 0 || now < qp->comp.deadline)
		return 0;
	if (sroce_psn_diff(qp->req.psn, qp->comp.psn) <= 0 && qp->sq_ci == qp->req.hw_idx) {
		qp->comp.deadline = 0;
		return 0;
	}
	qp->eng->stats.timeouts++;
	if (qp->comp.retry_left == 0) {
		sroce_comp_fail(qp, PV_WC_RETRY_EXC_ERR);
		return 1;
	}
	qp->comp.retry_left--;
	qp->comp.rd_retried = 0;
	if (qp->sq_ci != qp->req.hw_idx) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);

		if (w->rd_atomic)
			qp->comp.psn = sroce_rd_psn(qp, w);
	}
	sroce_req_rewind(qp, qp->comp.psn);
	sroce_req_assert_cursor(qp);
	qp->comp.deadline = now + qp->timeout_tsc;
	return 1;
}
