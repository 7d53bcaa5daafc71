/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Responder (IBTA vol. 1 9.7.4 / 9.7.5 RC, 9.8.3 UC, 9.8.4 UD; as Linux
 * rxe's rxe_resp.c behaves): one body, sroce_resp_rx(), taking const
 * QP-type flags, and a named responder per variant chosen at QP create
 * (pv_sroce_resp_rx, _srq, _uc, _ud, _ud_srq).
 *
 * RC packets are handled in PSN order: a packet after the expected PSN
 * draws one PSN sequence error NAK (then silence until the expected PSN
 * arrives); a packet before it is a duplicate: SEND/WRITE are
 * re-acknowledged, READ and atomics are answered again from their saved
 * resource. Every remote access is checked (rkey, PD, right, bounds)
 * before a byte moves.
 *
 * Responses go out in order: READ responses and atomic ACKs first (from the
 * resources, oldest first), then the coalesced ACK/NAK, so an ACK never
 * overtakes the READ data it implicitly acknowledges.
 *
 * Receive WQEs come from the QP's own RQ or from its SRQ. An SRQ WQE is
 * taken (copied) at the first packet that needs one and held until the
 * message completes; an empty SRQ is an RNR NAK.
 *
 * UC shares the placement but never answers: a PSN gap or an opcode out of
 * sequence drops the message in progress and every packet until the next
 * FIRST/ONLY, which starts a new message at its PSN. UD places one SEND
 * ONLY after a Q_Key check, behind the 40-byte GRH area.
 *
 * Every error is classified as IBTA 9.9.3 does (enum sroce_resp_err) and
 * handled in one place, sroce_resp_err(), which picks the action by
 * transport.
 */

#include <string.h>

#include <rte_cycles.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

/*
 * Responder errors, by IBTA class (vol. 1 9.9.3; rxe's enum resp_states).
 * The class says what the request did; sroce_resp_err() maps it:
 *   RC  class B: NAK (RNR or PSN sequence), the QP goes on;
 *       class C: NAK (invalid request / remote access), then the QP to ERR
 *       (C9-...: the responder's QP enters the error state);
 *   UC  class D1: the message in progress is dropped and counted, its
 *       receive WQE stays for the next message; no answer;
 *   UD  the packet is dropped and counted (no receive WQE, no CQ room); a
 *       receive WQE too small completes with LOC_LEN_ERR, QP to ERR.
 */
enum sroce_resp_err {
	SROCE_RESP_ERR_B_PSN_SEQ,	/* B: a PSN after the expected one (9.7.5.1.2) */
	SROCE_RESP_ERR_B_RNR,		/* B: no receive WQE, or no CQ room for it */
	SROCE_RESP_ERR_C_OP_SEQ,	/* C: opcode out of sequence (9.7.5.1.4) */
	SROCE_RESP_ERR_C_INV_REQ,	/* C: bad length, opcode, or too many READ/atomic */
	SROCE_RESP_ERR_C_REM_ACCESS,	/* C: rkey, bounds, PD or access right */
	SROCE_RESP_ERR_C_LEN,		/* C: the receive WQE is too small (LOC_LEN_ERR) */
};

/* queue an ACK/NAK; a newer PSN replaces an older one (coalescing) */
static inline void
sroce_resp_pend(struct sroce_qp *qp, uint8_t syn, uint32_t psn)
{
	if (qp->resp.pend != SROCE_PEND_NONE && sroce_psn_diff(psn, qp->resp.pend_psn) < 0)
		return;
	qp->resp.pend = SROCE_PEND_ACK;
	qp->resp.pend_syn = syn;
	qp->resp.pend_psn = psn;
	qp->resp.pend_msn = qp->resp.msn;
}

static int
sroce_resp_ack_send(struct sroce_qp *qp, uint8_t syn, uint32_t psn, uint32_t msn)
{
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	m = sroce_frame_start(qp, SROCE_OP_RC_ACK | qp->transport, psn, 0, 0, SROCE_AETH_LEN, 0,
			      &p);
	if (unlikely(m == NULL))
		return -ENOBUFS;
	sroce_put_be32(p, (uint32_t)syn << 24 | (msn & 0xffffff));
	sroce_frame_send(qp->eng, m);
	/* NAKs are counted by kind where they are decided (*_naks_tx) */
	if ((syn & SROCE_AETH_TYPE_MASK) == SROCE_AETH_ACK)
		qp->eng->stats.acks_tx++;
	return 0;
}

/* class C on RC: NAK now, then ERR (IBTA 9.7.5.2.x, rxe) */
static void
sroce_resp_nak_fatal(struct sroce_qp *qp, uint8_t nak, const struct sroce_pkt *pkt)
{
	struct pv_async_event ev;

	SROCE_DP_LOG(DEBUG, "qp 0x%x: psn 0x%x opcode 0x%x: %s", qp->ibqp.qp_num, pkt->psn,
		     pkt->opcode, pv_sroce_aeth_name(SROCE_AETH_NAK | nak));
	qp->eng->stats.err_naks_tx++;
	/* the responses of the READs and atomics before it go first (they are
	 * earlier in the PSN order; the NAK acknowledges up to its PSN only
	 * and the ERR below would drop them: the requester's READ would retry
	 * into a QP that answers no more) */
	while (qp->resp.res_active > 0 && pv_sroce_resp_tx(qp) > 0)
		pv_sroce_tx_flush(qp->eng);
	if (sroce_tx_space(qp->eng) > 0)
		(void)sroce_resp_ack_send(qp, SROCE_AETH_NAK | nak, pkt->psn, qp->resp.msn);
	pv_sroce_qp_error(qp);
	ev.element.qp = &qp->ibqp;
	ev.event_type = nak == SROCE_NAK_REM_ACCESS ? PV_EVENT_QP_ACCESS_ERR :
			PV_EVENT_QP_REQ_ERR;
	if (qp->ibqp.context != NULL)
		(void)pv_async_event_post(qp->ibqp.context, &ev);
}

/*
 * Drop the UC message in progress and every packet until the next
 * FIRST/ONLY (class D1). Placed WRITE bytes stay; a SEND's receive WQE
 * stays posted for the next message.
 */
static void
sroce_resp_uc_drop(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	SROCE_DP_LOG(DEBUG, "qp 0x%x: uc psn 0x%x opcode 0x%x dropped (expected psn 0x%x)",
		     qp->ibqp.qp_num, pkt->psn, pkt->opcode, qp->resp.epsn);
	qp->eng->stats.uc_drops++;
	qp->resp.drop_msg = 1;
	qp->resp.in_send = 0;
	qp->resp.in_write = 0;
}

/* the one error path of the responder: the action for @p err on this QP's transport */
static __rte_noinline void
sroce_resp_err(struct sroce_qp *qp, const struct sroce_pkt *pkt, enum sroce_resp_err err)
{
	if (qp->transport == SROCE_OP_UC) {
		sroce_resp_uc_drop(qp, pkt);
		return;
	}
	if (qp->transport == SROCE_OP_UD) {
		if (err != SROCE_RESP_ERR_C_LEN) {
			qp->eng->stats.ud_drops++;
			return;
		}
		/* the WQE that was too small completes with LOC_LEN_ERR on flush */
		qp->rq_err_status = PV_WC_LOC_LEN_ERR;
		pv_sroce_qp_error(qp);
		return;
	}
	switch (err) {
	case SROCE_RESP_ERR_B_PSN_SEQ:
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = 1;
			qp->eng->stats.seq_naks_tx++;
			sroce_resp_pend(qp, SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR, qp->resp.epsn);
		}
		return;
	case SROCE_RESP_ERR_B_RNR:
		qp->eng->stats.rnr_naks_tx++;
		sroce_resp_pend(qp, SROCE_AETH_RNR_NAK | (qp->attr.min_rnr_timer & 0x1f),
				pkt->psn);
		/* later packets are dropped silently until the retry arrives */
		qp->resp.nak_sent = 1;
		return;
	case SROCE_RESP_ERR_C_REM_ACCESS:
		sroce_resp_nak_fatal(qp, SROCE_NAK_REM_ACCESS, pkt);
		return;
	case SROCE_RESP_ERR_C_LEN:
		/* the receive buffer is too small: its WQE reports it */
		qp->rq_err_status = PV_WC_LOC_LEN_ERR;
		sroce_resp_nak_fatal(qp, SROCE_NAK_INV_REQ, pkt);
		return;
	case SROCE_RESP_ERR_C_OP_SEQ:
	case SROCE_RESP_ERR_C_INV_REQ:
	default:
		sroce_resp_nak_fatal(qp, SROCE_NAK_INV_REQ, pkt);
		return;
	}
}

/*
 * The helpers taking a const @p qpf are always inlined into the responder
 * variants: with two callers gcc kept one shared body and tested the flag
 * per packet (with the outlined frame start: 4% fewer 8-byte RC WRITEs per
 * second, see the commit).
 */

/* the receive WQE of the message in progress (ready: see sroce_resp_rwqe_ready()) */
static __rte_always_inline struct sroce_rwqe *
sroce_resp_rwqe(const struct sroce_qp *qp, const unsigned int qpf)
{
	return (qpf & SROCE_QPF_SRQ) ? qp->srq_wqe : sroce_rwqe_at(qp, qp->rq_ci);
}

/* make a receive WQE current; @return 0, or -ENOENT none posted (RNR) */
static __rte_always_inline int
sroce_resp_rwqe_ready(struct sroce_qp *qp, const unsigned int qpf)
{
	if (!(qpf & SROCE_QPF_SRQ))
		return likely(qp->rq_ci != qp->rq_pi) ? 0 : -ENOENT;
	/* an RNR NAK after the take (CQ full) keeps the WQE for the retry */
	if (qp->resp.srq_held)
		return 0;
	return sroce_srq_take(qp);
}

static __rte_always_inline void
sroce_resp_recv_complete(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint32_t byte_len,
			 enum pv_wc_opcode opcode, const unsigned int qpf)
{
	struct sroce_rwqe *r = sroce_resp_rwqe(qp, qpf);
	struct pv_wc *wc = sroce_cq_next(qp->rcq);
	uint16_t opf = pv_sroce_opcode_info[pkt->opcode].flags;
	int imm = (opf & SROCE_OPF_IMM) != 0;

	wc->wr_id = r->wr_id;
	wc->status = PV_WC_SUCCESS;
	wc->opcode = opcode;
	wc->vendor_err = 0;
	wc->byte_len = byte_len;
	wc->imm_data = imm ? pkt->imm : 0;
	wc->qp_num = qp->ibqp.qp_num;
	wc->src_qp = (qpf & SROCE_QPF_UD) ? pkt->sqpn : qp->dqpn;
	wc->wc_flags = ((qpf & SROCE_QPF_UD) ? PV_WC_GRH : 0) | (imm ? PV_WC_WITH_IMM : 0);
	if (unlikely(opf & SROCE_OPF_INV)) {
		wc->invalidated_rkey = pkt->ieth_rkey;
		wc->wc_flags |= PV_WC_WITH_INV;
	}
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	if (qpf & SROCE_QPF_SRQ)
		qp->resp.srq_held = 0;
	else
		qp->rq_ci++;
	if (!(qpf & (SROCE_QPF_UC | SROCE_QPF_UD)))
		qp->eng->rx_cqe = 1;	/* the ACK may wait for the answer (sroce_net.c) */
	pv_sroce_cq_event(qp->rcq, pkt->se);
}

static __rte_always_inline void
sroce_resp_send(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint16_t flags,
		const unsigned int qpf)
{
	int first = (flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) != 0;
	int last = (flags & (SROCE_OPF_LAST | SROCE_OPF_ONLY)) != 0;
	uint32_t len = pkt->payload_len;
	struct sroce_rwqe *r;

	if (first) {
		if (unlikely(sroce_resp_rwqe_ready(qp, qpf) != 0)) {
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_RNR);
			return;
		}
		qp->resp.rcv_len = 0;
		qp->resp.rcur.i = 0;
		qp->resp.rcur.off = 0;
	}
	/* no room for the completion: as if no receive was posted */
	if (unlikely(last && sroce_cq_space(qp->rcq) == 0)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_RNR);
		return;
	}
	/* FIRST/MIDDLE carry exactly the MTU, ONLY/LAST at most it (C9-92) */
	if (unlikely(len > qp->mtu || (!last && len != qp->mtu))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	r = sroce_resp_rwqe(qp, qpf);
	if (unlikely(qp->resp.rcv_len + len > r->length)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_LEN);
		return;
	}
	/* SEND with Invalidate (IBTA 9.4.6 / 10.6.7.2.5): the window of the
	 * IETH's rkey must be invalidatable, else class C invalid request */
	if (unlikely(last && (flags & SROCE_OPF_INV)) &&
	    pv_sroce_key_invalidate(qp->dev, qp->pd, qp->ibqp.qp_num, pkt->ieth_rkey) != 0) {
		qp->eng->stats.inv_errors++;
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	sroce_sge_copy_in(r->sge, &qp->resp.rcur, pkt->frame + pkt->payload_off, len);
	qp->resp.rcv_len += len;
	qp->resp.epsn = sroce_psn_add(qp->resp.epsn, 1);
	if (last) {
		qp->resp.in_send = 0;
		if (!(qpf & SROCE_QPF_UC))
			qp->resp.msn++;
		sroce_resp_recv_complete(qp, pkt, qp->resp.rcv_len, PV_WC_RECV, qpf);
	} else {
		qp->resp.in_send = 1;
	}
	if (!(qpf & SROCE_QPF_UC) && pkt->ackreq)
		sroce_resp_pend(qp, SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID, pkt->psn);
}

static __rte_always_inline void
sroce_resp_write(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint16_t flags,
		 const unsigned int qpf)
{
	int first = (flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) != 0;
	int last = (flags & (SROCE_OPF_LAST | SROCE_OPF_ONLY)) != 0;
	int imm = (flags & SROCE_OPF_IMM) != 0;
	uint32_t len = pkt->payload_len;
	uint8_t *dst = NULL;

	if (unlikely(imm && (sroce_cq_space(qp->rcq) == 0 ||
			     sroce_resp_rwqe_ready(qp, qpf) != 0))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_RNR);
		return;
	}
	if (first) {
		/* above max_msg_sz: an invalid request (as rxe's check_length) */
		if (unlikely(pkt->dma_len > SROCE_MAX_MSG)) {
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
			return;
		}
		if (unlikely(!(qp->attr.qp_access_flags & PV_ACCESS_REMOTE_WRITE))) {
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
			return;
		}
		/* a zero-length WRITE touches nothing and is not checked (9.7.4.1.5) */
		if (pkt->dma_len != 0) {
			dst = pv_sroce_mr_remote(qp->dev, qp->pd, qp->ibqp.qp_num, pkt->rkey,
						 pkt->va, pkt->dma_len, PV_ACCESS_REMOTE_WRITE);
			if (unlikely(dst == NULL)) {
				sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
				return;
			}
		}
		qp->resp.wr_va = pkt->va;
		qp->resp.wr_rkey = pkt->rkey;
		qp->resp.wr_resid = pkt->dma_len;
		qp->resp.wr_total = pkt->dma_len;
	}
	if (unlikely(len > qp->mtu || len > qp->resp.wr_resid || (!last && len != qp->mtu) ||
		     (last && len != qp->resp.wr_resid))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	/*
	 * MIDDLE/LAST: the MR checked at FIRST may have been deregistered
	 * since; check this packet's bytes again by rkey, never through a
	 * pointer kept from FIRST (as rxe holds a reference on the MR).
	 */
	if (!first && len != 0) {
		dst = pv_sroce_mr_remote(qp->dev, qp->pd, qp->ibqp.qp_num, qp->resp.wr_rkey,
					 qp->resp.wr_va, len, PV_ACCESS_REMOTE_WRITE);
		if (unlikely(dst == NULL)) {
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
			return;
		}
	}
	if (len != 0)
		sroce_payload_copy(dst, pkt->frame + pkt->payload_off, len);
	qp->resp.wr_va += len;
	qp->resp.wr_resid -= len;
	qp->resp.epsn = sroce_psn_add(qp->resp.epsn, 1);
	if (last) {
		qp->resp.in_write = 0;
		if (!(qpf & SROCE_QPF_UC))
			qp->resp.msn++;
		if (imm)
			sroce_resp_recv_complete(qp, pkt, qp->resp.wr_total,
						 PV_WC_RECV_RDMA_WITH_IMM, qpf);
	} else {
		qp->resp.in_write = 1;
	}
	if (!(qpf & SROCE_QPF_UC) && pkt->ackreq)
		sroce_resp_pend(qp, SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID, pkt->psn);
}

/* UD SEND ONLY (9.8.4): the GRH area, then the payload, into one receive WQE */
static __rte_always_inline void
sroce_resp_ud_send(struct sroce_qp *qp, const struct sroce_pkt *pkt, const unsigned int qpf)
{
	uint8_t grh[SROCE_GRH_LEN];
	struct sroce_cursor cur = { 0, 0 };
	struct sroce_rwqe *r;

	if (unlikely(pkt->qkey != qp->attr.qkey)) {
		qp->eng->stats.ud_qkey_drops++;
		SROCE_DP_LOG(DEBUG, "qp 0x%x: qkey 0x%x, expected 0x%x: dropped",
			     qp->ibqp.qp_num, pkt->qkey, qp->attr.qkey);
		return;
	}
	if (unlikely(sroce_cq_space(qp->rcq) == 0 || sroce_resp_rwqe_ready(qp, qpf) != 0)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_RNR);
		return;
	}
	r = sroce_resp_rwqe(qp, qpf);
	if (unlikely((uint64_t)pkt->payload_len + SROCE_GRH_LEN > r->length)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_LEN);
		return;
	}
	/* RoCEv2 over IPv4: 20 zero bytes, then the IPv4 header as received;
	 * over IPv6 the IPv6 header is the GRH (rxe and mlx5 write both so) */
	if (unlikely(pkt->ip_ver == 6)) {
		memcpy(grh, pkt->frame + pkt->l3_off, SROCE_IPV6_HLEN);
	} else {
		memset(grh, 0, SROCE_GRH_LEN - SROCE_IPV4_HLEN);
		memcpy(grh + SROCE_GRH_LEN - SROCE_IPV4_HLEN, pkt->frame + pkt->l3_off,
		       SROCE_IPV4_HLEN);
	}
	sroce_sge_copy_in(r->sge, &cur, grh, SROCE_GRH_LEN);
	sroce_sge_copy_in(r->sge, &cur, pkt->frame + pkt->payload_off, pkt->payload_len);
	sroce_resp_recv_complete(qp, pkt, pkt->payload_len + SROCE_GRH_LEN, PV_WC_RECV, qpf);
}

static inline struct sroce_res *
sroce_resp_res_new(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	uint32_t nres = qp->attr.max_dest_rd_atomic;
	struct sroce_res *res;

	if (unlikely(nres == 0 || qp->resp.res_active >= nres)) {
		/* more READ/atomics in flight than max_dest_rd_atomic allows */
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return NULL;
	}
	if (qp->resp.res_head >= nres)
		qp->resp.res_head = 0;
	/* the ring recycles the oldest resource that is not sending (as rxe) */
	res = &qp->resp.res[qp->resp.res_head];
	while (res->active) {
		qp->resp.res_head = (qp->resp.res_head + 1) % nres;
		res = &qp->resp.res[qp->resp.res_head];
	}
	qp->resp.res_head = (qp->resp.res_head + 1) % nres;
	return res;
}

static inline void
sroce_resp_read(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_res *res;
	uint32_t npkts;

	if (unlikely(pkt->dma_len > SROCE_MAX_MSG)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	if (unlikely(!(qp->attr.qp_access_flags & PV_ACCESS_REMOTE_READ))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
		return;
	}
	if (pkt->dma_len != 0 &&
	    unlikely(pv_sroce_mr_remote(qp->dev, qp->pd, qp->ibqp.qp_num, pkt->rkey, pkt->va,
					pkt->dma_len, PV_ACCESS_REMOTE_READ) == NULL)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
		return;
	}
	res = sroce_resp_res_new(qp, pkt);
	if (unlikely(res == NULL))
		return;
	/* in 64 bits: dma_len + mtu - 1 wraps 32 (at most 2^31 / 256 = 2^23 packets) */
	npkts = pkt->dma_len == 0 ? 1 :
		(uint32_t)(((uint64_t)pkt->dma_len + qp->mtu - 1) / qp->mtu);
	qp->resp.msn++;
	res->type = SROCE_RES_READ;
	res->first_psn = pkt->psn;
	res->last_psn = sroce_psn_add(pkt->psn, npkts - 1);
	res->start_psn = pkt->psn;
	res->msn = qp->resp.msn;
	res->va = pkt->va;
	res->rkey = pkt->rkey;
	res->len = pkt->dma_len;
	res->cur_psn = pkt->psn;
	res->cur_off = 0;
	res->active = 1;
	qp->resp.res_active++;
	qp->resp.epsn = sroce_psn_add(qp->resp.epsn, npkts);
}

static inline void
sroce_resp_atomic(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	struct sroce_res *res;
	uint64_t *dst, orig;

	if (unlikely(!(qp->attr.qp_access_flags & PV_ACCESS_REMOTE_ATOMIC))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
		return;
	}
	if (unlikely(pkt->va & 7)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	dst = (uint64_t *)pv_sroce_mr_remote(qp->dev, qp->pd, qp->ibqp.qp_num, pkt->rkey,
					     pkt->va, 8, PV_ACCESS_REMOTE_ATOMIC);
	if (unlikely(dst == NULL)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_REM_ACCESS);
		return;
	}
	res = sroce_resp_res_new(qp, pkt);
	if (unlikely(res == NULL))
		return;
	/* atomic against this process' CPUs (PV_ATOMIC_HCA) */
	if (pkt->opcode == SROCE_OP_RC_CMP_SWAP) {
		orig = pkt->compare;
		__atomic_compare_exchange_n(dst, &orig, pkt->swap_add, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(dst, pkt->swap_add, __ATOMIC_SEQ_CST);
	}
	qp->resp.msn++;
	res->type = SROCE_RES_ATOMIC;
	res->first_psn = pkt->psn;
	res->last_psn = pkt->psn;
	res->start_psn = pkt->psn;
	res->cur_psn = pkt->psn;
	res->msn = qp->resp.msn;
	res->orig = orig;
	res->active = 1;
	qp->resp.res_active++;
	qp->resp.epsn = sroce_psn_add(qp->resp.epsn, 1);
}

/* a request before the expected PSN (IBTA 9.7.5.1.3) */
static __rte_noinline void
sroce_resp_duplicate(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint16_t flags)
{
	uint32_t i;

	qp->eng->stats.dup_reqs++;
	if (!(flags & (SROCE_OPF_READ | SROCE_OPF_ATOMIC))) {
		sroce_resp_pend(qp, SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID,
				sroce_psn_add(qp->resp.epsn, SROCE_PSN_MASK));
		return;
	}
	for (i = 0; i < (uint32_t)RTE_MIN(qp->attr.max_dest_rd_atomic, SROCE_MAX_RD_ATOMIC); i++) {
		struct sroce_res *res = &qp->resp.res[i];

		if (res->type == SROCE_RES_FREE ||
		    sroce_psn_diff(pkt->psn, res->first_psn) < 0 ||
		    sroce_psn_diff(pkt->psn, res->last_psn) > 0)
			continue;
		if ((res->type == SROCE_RES_READ) != (pkt->opcode == SROCE_OP_RC_READ_REQ))
			return;
		/* answer again from the requested PSN: a new response stream,
		 * abandoning the one in progress (the requester discards it) */
		res->start_psn = pkt->psn;
		res->cur_psn = pkt->psn;
		res->cur_off = (uint32_t)sroce_psn_diff(pkt->psn, res->first_psn) * qp->mtu;
		if (!res->active) {
			res->active = 1;
			qp->resp.res_active++;
		}
		return;
	}
	/* resource recycled: nothing to replay (rxe drops it too) */
}

/*
 * A request for a QP not in RTS: in RTR the first one raises COMM_EST (IBTA
 * 11.6.3.1 communication established: data arrived before the CM's RTU),
 * once; in any other state it is dropped. @return 0 to process it.
 */
static __rte_noinline int
sroce_resp_not_rts(struct sroce_qp *qp)
{
	struct pv_async_event ev;

	if (qp->state != PV_QPS_RTR) {
		qp->eng->stats.rx_drop_state++;
		return -1;
	}
	/* a connected QP's event: UD has no connection */
	if (!qp->resp.comm_est && qp->transport != SROCE_OP_UD) {
		qp->resp.comm_est = 1;
		ev.element.qp = &qp->ibqp;
		ev.event_type = PV_EVENT_COMM_EST;
		if (qp->ibqp.context != NULL)
			(void)pv_async_event_post(qp->ibqp.context, &ev);
	}
	return 0;
}

/*
 * Opcode sequence (9.7.5.1.4, 9.8.3.1): inside a message only its MIDDLE or
 * LAST may come; outside one, only a FIRST or ONLY.
 */
static inline int
sroce_resp_opseq_ok(const struct sroce_qp *qp, uint16_t flags)
{
	const uint16_t cont = SROCE_OPF_MIDDLE | SROCE_OPF_LAST;

	if (qp->resp.in_send)
		return (flags & SROCE_OPF_SEND) && (flags & cont);
	if (qp->resp.in_write)
		return (flags & SROCE_OPF_WRITE) && (flags & cont);
	return !(flags & cont);
}

/* RC: @return 0 when @p pkt is the expected PSN and in sequence, else it was handled */
static __rte_always_inline int
sroce_resp_rc_seq(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint16_t flags)
{
	int32_t d = sroce_psn_diff(pkt->psn, qp->resp.epsn);

	if (unlikely(d != 0)) {
		if (d > 0)
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_PSN_SEQ);
		else
			sroce_resp_duplicate(qp, pkt, flags);
		return -1;
	}
	qp->resp.nak_sent = 0;
	if (unlikely(!sroce_resp_opseq_ok(qp, flags))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_OP_SEQ);
		return -1;
	}
	return 0;
}

/*
 * UC: a FIRST/ONLY starts a new message at its PSN (one in progress is
 * lost); a MIDDLE/LAST must follow in PSN and opcode sequence in a message
 * not being dropped. @return 0 to place @p pkt.
 */
static __rte_always_inline int
sroce_resp_uc_seq(struct sroce_qp *qp, const struct sroce_pkt *pkt, uint16_t flags)
{
	if (flags & (SROCE_OPF_FIRST | SROCE_OPF_ONLY)) {
		if (unlikely(qp->resp.in_send || qp->resp.in_write))
			sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_OP_SEQ);
		qp->resp.drop_msg = 0;
		qp->resp.epsn = pkt->psn;
		return 0;
	}
	if (unlikely(pkt->psn != qp->resp.epsn)) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_B_PSN_SEQ);
		return -1;
	}
	if (unlikely(qp->resp.drop_msg || !sroce_resp_opseq_ok(qp, flags))) {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_OP_SEQ);
		return -1;
	}
	return 0;
}

static __rte_always_inline void
sroce_resp_rx(struct sroce_qp *qp, struct sroce_pkt *pkt, const unsigned int qpf)
{
	uint16_t flags = pv_sroce_opcode_info[pkt->opcode].flags;

	if (unlikely(qp->state != PV_QPS_RTS) && sroce_resp_not_rts(qp) != 0)
		return;
	if (qpf & SROCE_QPF_UD) {
		sroce_resp_ud_send(qp, pkt, qpf);
		return;
	}
	if (qpf & SROCE_QPF_UC) {
		if (sroce_resp_uc_seq(qp, pkt, flags) != 0)
			return;
	} else if (sroce_resp_rc_seq(qp, pkt, flags) != 0) {
		return;
	}
	if (flags & SROCE_OPF_SEND) {
		sroce_resp_send(qp, pkt, flags, qpf);
	} else if (flags & SROCE_OPF_WRITE) {
		sroce_resp_write(qp, pkt, flags, qpf);
	} else if (!(qpf & SROCE_QPF_UC) && pkt->opcode == SROCE_OP_RC_READ_REQ) {
		sroce_resp_read(qp, pkt);
	} else if (!(qpf & SROCE_QPF_UC) && (flags & SROCE_OPF_ATOMIC)) {
		sroce_resp_atomic(qp, pkt);
	} else {
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
	}
}

void
pv_sroce_resp_rx(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_resp_rx(qp, pkt, 0);
}

void
pv_sroce_resp_rx_srq(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_resp_rx(qp, pkt, SROCE_QPF_SRQ);
}

void
pv_sroce_resp_rx_uc(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_resp_rx(qp, pkt, SROCE_QPF_UC);
}

void
pv_sroce_resp_rx_ud(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_resp_rx(qp, pkt, SROCE_QPF_UD);
}

void
pv_sroce_resp_rx_ud_srq(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_resp_rx(qp, pkt, SROCE_QPF_UD | SROCE_QPF_SRQ);
}

/*
 * XRC TGT responder (IBTA 9.2.3, 11.2.x): the request's XRCETH names the
 * XRC SRQ whose WQEs, CQ and PD serve it; it must be in the QP's XRC
 * domain, else the request is an invalid request (class C). The opcode is
 * then handled as its RC equivalent (XRC = RC + 0xa0), on the SRQ path.
 */
void
pv_sroce_resp_rx_xrc(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	struct sroce_dev *dev = qp->dev;
	uint32_t slot = pkt->xrcsrq - SROCE_SRQN_BASE;
	struct sroce_srq *srq = slot < SROCE_MAX_SRQ ? dev->xsrq[slot] : NULL;

	pkt->opcode &= 0x1f;
	/* a WQE held from another SRQ belongs to the message it was taken
	 * for (in progress, or an RNR retry): another SRQ now is invalid */
	if (unlikely(srq == NULL || srq->xrcd != qp->xrcd ||
		     (qp->srq != srq && qp->resp.srq_held))) {
		qp->eng->stats.xrc_srq_drops++;
		sroce_resp_err(qp, pkt, SROCE_RESP_ERR_C_INV_REQ);
		return;
	}
	if (qp->srq != srq) {
		qp->srq = srq;
		qp->rcq = srq->cq;
		qp->scq = srq->cq;
		qp->pd = srq->pd;
	}
	sroce_resp_rx(qp, pkt, SROCE_QPF_SRQ);
}

/* oldest resource with responses to send */
static inline struct sroce_res *
sroce_resp_res_next(struct sroce_qp *qp)
{
	struct sroce_res *best = NULL;
	uint32_t i;

	for (i = 0; i < SROCE_MAX_RD_ATOMIC; i++) {
		struct sroce_res *res = &qp->resp.res[i];

		if (res->active && (best == NULL ||
				    sroce_psn_diff(res->cur_psn, best->cur_psn) < 0))
			best = res;
	}
	return best;
}

/*
 * The MR of a READ in progress (or replayed for a duplicate) is gone: stop
 * the stream with a remote access NAK at the READ's PSN, then ERR (class C),
 * as rxe does when rxe_recheck_mr() fails.
 */
static __rte_noinline void
sroce_resp_read_revoked(struct sroce_qp *qp, struct sroce_res *res)
{
	struct sroce_pkt pkt = { .opcode = SROCE_OP_RC_READ_REQ, .psn = res->first_psn };

	res->active = 0;
	qp->resp.res_active--;
	sroce_resp_err(qp, &pkt, SROCE_RESP_ERR_C_REM_ACCESS);
}

static inline int
sroce_resp_read_pkt(struct sroce_qp *qp, struct sroce_res *res)
{
	uint32_t left = res->len - res->cur_off;
	uint32_t paylen = RTE_MIN(left, qp->mtu);
	int first = res->cur_psn == res->start_psn;
	int last = paylen == left;
	const uint8_t *src = NULL;
	uint8_t op;
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	/* every packet is checked again: no pointer into the MR is kept */
	if (paylen != 0) {
		src = pv_sroce_mr_remote(qp->dev, qp->pd, qp->ibqp.qp_num, res->rkey,
					 res->va + res->cur_off, paylen, PV_ACCESS_REMOTE_READ);
		if (unlikely(src == NULL)) {
			sroce_resp_read_revoked(qp, res);
			return -EACCES;
		}
	}

	if (first)
		op = last ? SROCE_OP_RC_READ_RESP_ONLY : SROCE_OP_RC_READ_RESP_FIRST;
	else
		op = last ? SROCE_OP_RC_READ_RESP_LAST : SROCE_OP_RC_READ_RESP_MIDDLE;
	m = sroce_frame_start(qp, op | qp->transport, res->cur_psn, 0, 0,
			      op == SROCE_OP_RC_READ_RESP_MIDDLE ? 0 : SROCE_AETH_LEN, paylen,
			      &p);
	if (unlikely(m == NULL))
		return -ENOBUFS;
	if (op != SROCE_OP_RC_READ_RESP_MIDDLE) {
		sroce_put_be32(p, (uint32_t)(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID) << 24 |
			       (res->msn & 0xffffff));
		p += SROCE_AETH_LEN;
	}
	if (paylen != 0)
		sroce_payload_copy(p, src, paylen);
	sroce_frame_send(qp->eng, m);
	res->cur_off += paylen;
	res->cur_psn = sroce_psn_add(res->cur_psn, 1);
	if (last) {
		res->active = 0;
		qp->resp.res_active--;
	}
	return 0;
}

static inline int
sroce_resp_atomic_pkt(struct sroce_qp *qp, struct sroce_res *res)
{
	struct rte_mbuf *m;
	uint8_t *p = NULL;

	m = sroce_frame_start(qp, SROCE_OP_RC_ATOMIC_ACK | qp->transport, res->first_psn, 0, 0,
			      SROCE_AETH_LEN + SROCE_ATMACK_LEN, 0, &p);
	if (unlikely(m == NULL))
		return -ENOBUFS;
	sroce_put_be32(p, (uint32_t)(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID) << 24 |
		       (res->msn & 0xffffff));
	sroce_put_be64(p + SROCE_AETH_LEN, res->orig);
	sroce_frame_send(qp->eng, m);
	res->active = 0;
	qp->resp.res_active--;
	return 0;
}

int
pv_sroce_resp_tx(struct sroce_qp *qp)
{
	uint32_t budget = RTE_MIN((uint32_t)SROCE_TX_BUDGET, sroce_tx_space(qp->eng));
	uint32_t n = 0;

	while (qp->resp.res_active > 0 && n < budget) {
		struct sroce_res *res = sroce_resp_res_next(qp);
		int ret;

		if (res->type == SROCE_RES_READ)
			ret = sroce_resp_read_pkt(qp, res);
		else
			ret = sroce_resp_atomic_pkt(qp, res);
		if (unlikely(ret != 0))
			return (int)n;
		n++;
	}
	if (qp->resp.pend != SROCE_PEND_NONE && qp->resp.res_active == 0 && n < budget) {
		if (sroce_resp_ack_send(qp, qp->resp.pend_syn, qp->resp.pend_psn,
					qp->resp.pend_msn) == 0) {
			qp->resp.pend = SROCE_PEND_NONE;
			n++;
		}
	}
	return (int)n;
}
