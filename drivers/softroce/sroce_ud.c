/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unreliable datagram (IBTA vol. 1 9.8.4, 10.2.4) and address handles.
 *
 * An address handle carries the Ethernet, IPv4 and UDP headers of one
 * destination, built when it is created: the destination MAC is resolved
 * then from the IPv4-mapped dgid through the ARP cache, as modify_qp(RTR)
 * does for a connected QP (so create_ah may block up to arp_timeout_ms).
 *
 * A UD message is one packet: UD SEND ONLY (0x64) or SEND ONLY with
 * immediate (0x65), BTH + DETH (Q_Key, source QPN) [+ ImmDt] + payload.
 * No ACK: a send completes when its frame is queued for transmission. A
 * send longer than the path MTU (the port's active MTU) completes
 * successfully and transmits nothing (IBTA C10-93.1.1; rxe does the same)
 * and is counted in ud_oversize.
 *
 * The responder checks the Q_Key (a mismatch is dropped and counted:
 * ud_qkey_drops, query_port's qkey_viol_cntr), takes a receive WQE from the
 * RQ or the SRQ and writes the 40-byte GRH area first then the payload. On
 * RoCEv2 over IPv4 the GRH area holds 20 zero bytes then the received IPv4
 * header (as rxe and mlx5 write it; pv_init_ah_from_wc() reads it so). No
 * receive WQE or no CQ space: the packet is dropped and counted (ud_drops),
 * UD has no RNR. A receive buffer smaller than 40 + payload completes that
 * WQE with LOC_LEN_ERR and moves the QP to ERR.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

/* ---------------------------------------------------------------------- */
/* Address handles                                                        */
/* ---------------------------------------------------------------------- */

struct pv_ah *
pv_sroce_ah_create(struct pv_pd *ibpd, struct pv_ah_attr *attr)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct sroce_dev *dev = sroce_pd(ibpd)->dev;
	const uint8_t *g = attr->grh.dgid.raw;
	struct rte_ether_addr mac;
	struct sroce_ah *ah;
	uint8_t *ip;
	uint32_t dip, sum = 0;
	int i, ret;

	/* lib/verbs checked port_num, is_global and sgid_index < gid_tbl_len */
	if (memcmp(g, v4map, sizeof(v4map)) != 0) {
		SROCE_LOG(ERR, "%s: ah: dgid is not IPv4-mapped (IPv6 RoCEv2 not implemented)",
			  dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	if (attr->grh.sgid_index != 1) {
		SROCE_LOG(ERR, "%s: ah: sgid_index %u: only index 1 (IPv4 RoCEv2) is usable",
			  dev->ibdev.name, attr->grh.sgid_index);
		errno = EINVAL;
		return NULL;
	}
	memcpy(&dip, g + 12, 4);
	if (dip == dev->ip || (rte_be_to_cpu_32(dip) >> 28) == 0xe) {
		SROCE_LOG(ERR, "%s: ah: loopback and multicast destinations are not implemented",
			  dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	ret = pv_sroce_arp_resolve(dev, dip, &mac);
	if (ret != 0) {
		errno = -ret;
		return NULL;
	}
	ah = rte_zmalloc("sroce_ah", sizeof(*ah), RTE_CACHE_LINE_SIZE);
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->dev = dev;
	memcpy(ah->hdr, mac.addr_bytes, 6);
	memcpy(ah->hdr + 6, dev->mac.addr_bytes, 6);
	ah->hdr[12] = 0x08;
	ah->hdr[13] = 0x00;
	ip = ah->hdr + SROCE_ETH_HLEN;
	ip[0] = 0x45;
	ip[1] = attr->grh.traffic_class;
	ip[6] = 0x40;				/* DF, id 0 */
	ip[8] = attr->grh.hop_limit;		/* TTL as given (rxe: the same) */
	ip[9] = 17;
	memcpy(ip + 12, &dev->ip, 4);
	memcpy(ip + 16, &dip, 4);
	ip[SROCE_IPV4_HLEN + 2] = SROCE_UDP_PORT >> 8;
	ip[SROCE_IPV4_HLEN + 3] = SROCE_UDP_PORT & 0xff;
	for (i = 0; i < SROCE_IPV4_HLEN; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	ah->ip_sum = sum;
	dev->nb_ah++;
	return &ah->ibah;
}

int
pv_sroce_ah_destroy(struct pv_ah *ibah)
{
	struct sroce_ah *ah = container_of(ibah, struct sroce_ah, ibah);

	ah->dev->nb_ah--;
	rte_free(ah);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Requester                                                              */
/* ---------------------------------------------------------------------- */

int
pv_sroce_post_send_ud(struct pv_qp *ibqp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	struct sroce_qp *qp = sroce_qp(ibqp);
	int ret = 0;

	if (unlikely(qp->state != PV_QPS_RTS && qp->state != PV_QPS_ERR)) {
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct sroce_swqe *w;
		uint32_t len = 0;
		int i;

		if (unlikely((wr->opcode != PV_WR_SEND && wr->opcode != PV_WR_SEND_WITH_IMM) ||
			     wr->wr.ud.ah == NULL || wr->wr.ud.ah->context != ibqp->context ||
			     wr->num_sge < 0 ||
			     (uint32_t)wr->num_sge > qp->ibqp.cap.max_send_sge)) {
			ret = EINVAL;
			break;
		}
		if (unlikely(qp->sq_pi - qp->sq_ci > qp->sq_mask)) {
			ret = ENOMEM;
			break;
		}
		w = sroce_swqe_at(qp, qp->sq_pi);
		w->wr_id = wr->wr_id;
		w->opcode = wr->opcode;
		w->signaled = qp->sig_all || (wr->send_flags & PV_SEND_SIGNALED);
		w->fence = 0;
		w->se = (wr->send_flags & PV_SEND_SOLICITED) != 0;
		w->rd_atomic = 0;
		w->imm = wr->imm_data;
		w->raddr = (uintptr_t)container_of(wr->wr.ud.ah, struct sroce_ah, ibah);
		w->rkey = wr->wr.ud.remote_qpn & SROCE_QPN_MASK;
		/* IBTA 10.2.5: a Q_Key with the high bit set means the QP's own */
		w->compare_add = (wr->wr.ud.remote_qkey & 0x80000000u) ? qp->attr.qkey :
				 wr->wr.ud.remote_qkey;
		if (wr->send_flags & PV_SEND_INLINE) {
			uint8_t *dst = (uint8_t *)w->sge;

			/* 64-bit sum: 32-bit lengths must not wrap past the check */
			if (unlikely(pv_sge_total_len(wr->sg_list, wr->num_sge) >
				     qp->ibqp.cap.max_inline_data)) {
				ret = EINVAL;
				break;
			}
			for (i = 0; i < wr->num_sge; i++) {
				uint32_t l = wr->sg_list[i].length;

				memcpy(dst + len, (void *)(uintptr_t)wr->sg_list[i].addr, l);
				len += l;
			}
			w->inl = 1;
			w->num_sge = 0;
		} else {
			w->inl = 0;
			w->num_sge = wr->num_sge;
			for (i = 0; i < wr->num_sge; i++) {
				if (unlikely(pv_sroce_mr_local(qp->dev, qp->pd, &wr->sg_list[i], 0,
							       &w->sge[i]) != 0)) {
					ret = EINVAL;
					break;
				}
				len += wr->sg_list[i].length;
				if (unlikely(len < wr->sg_list[i].length)) {
					ret = EINVAL;	/* wrapped */
					break;
				}
			}
		}
		if (unlikely(ret != 0))
			break;
		w->length = len;
		qp->sq_pi++;
	}
	if (unlikely(ret != 0))
		*bad_wr = wr;
	if (likely(qp->state == PV_QPS_RTS)) {
		if (pv_sroce_req_tx_ud(qp) > 0)
			pv_sroce_tx_flush(qp->dev);
	} else {
		qp->flush_pending = 1;
	}
	return ret;
}

/* the frame of UD WQE @p w; @return 0 or -ENOBUFS */
static inline int
sroce_ud_send_pkt(struct sroce_qp *qp, struct sroce_swqe *w)
{
	const struct sroce_ah *ah = (const struct sroce_ah *)(uintptr_t)w->raddr;
	int imm = w->opcode == PV_WR_SEND_WITH_IMM;
	uint32_t ext = SROCE_DETH_LEN + (imm ? SROCE_IMM_LEN : 0);
	uint32_t pad = (4 - (w->length & 3)) & 3;
	uint32_t iplen = SROCE_IPV4_HLEN + SROCE_UDP_HLEN + SROCE_BTH_LEN + ext + w->length +
			 pad + SROCE_ICRC_LEN;
	struct sroce_bth *bth;
	struct rte_mbuf *m;
	uint8_t *p, *ip, *udp;
	uint32_t sum;

	m = rte_pktmbuf_alloc(qp->dev->mp);
	if (unlikely(m == NULL)) {
		qp->dev->stats.tx_nombuf++;
		return -ENOBUFS;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	m->data_len = (uint16_t)(SROCE_ETH_HLEN + iplen);
	m->pkt_len = m->data_len;
	memcpy(p, ah->hdr, SROCE_L2L4_HLEN);
	ip = p + SROCE_ETH_HLEN;
	ip[2] = iplen >> 8;
	ip[3] = iplen & 0xff;
	sum = ah->ip_sum + iplen;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
	udp = ip + SROCE_IPV4_HLEN;
	udp[0] = qp->ud_sport >> 8;
	udp[1] = qp->ud_sport & 0xff;
	udp[4] = (iplen - SROCE_IPV4_HLEN) >> 8;
	udp[5] = (iplen - SROCE_IPV4_HLEN) & 0xff;
	bth = (struct sroce_bth *)(p + SROCE_L2L4_HLEN);
	bth->opcode = imm ? SROCE_OP_UD_SEND_ONLY_IMM : SROCE_OP_UD_SEND_ONLY;
	bth->flags = (w->se ? SROCE_BTH_SE : 0) | pad << SROCE_BTH_PAD_SHIFT;
	bth->pkey = rte_cpu_to_be_16(SROCE_DEFAULT_PKEY);
	bth->qpn = rte_cpu_to_be_32(w->rkey);
	bth->apsn = rte_cpu_to_be_32(qp->req.psn);
	p += SROCE_HDR_TMPL_LEN;
	sroce_put_be32(p, (uint32_t)w->compare_add);
	sroce_put_be32(p + 4, qp->ibqp.qp_num);
	p += SROCE_DETH_LEN;
	if (imm) {
		memcpy(p, &w->imm, 4);
		p += SROCE_IMM_LEN;
	}
	if (w->inl) {
		memcpy(p, w->sge, w->length);
	} else {
		struct sroce_cursor cur = { 0, 0 };

		sroce_sge_copy_out(w->sge, &cur, p, w->length);
	}
	if (pad != 0)
		memset(p + w->length, 0, pad);
	sroce_frame_send(qp->dev, m);
	qp->req.psn = sroce_psn_add(qp->req.psn, 1);
	return 0;
}

static inline void
sroce_ud_send_complete(struct sroce_qp *qp, const struct sroce_swqe *w)
{
	if (w->signaled) {
		struct pv_wc *wc = sroce_cq_next(qp->scq);

		memset(wc, 0, sizeof(*wc));
		wc->wr_id = w->wr_id;
		wc->status = PV_WC_SUCCESS;
		wc->opcode = PV_WC_SEND;
		wc->byte_len = w->length;
		wc->qp_num = qp->ibqp.qp_num;
		pv_sroce_cq_event(qp->scq, 0);
	}
	qp->sq_ci++;
}

int
pv_sroce_req_tx_ud(struct sroce_qp *qp)
{
	uint32_t budget = RTE_MIN((uint32_t)SROCE_TX_BUDGET, sroce_tx_space(qp->dev));
	uint32_t n = 0;

	if (unlikely(qp->state != PV_QPS_RTS))
		return 0;
	/* the requester never runs ahead of the completions: req.idx == sq_ci */
	while (n < budget && qp->sq_ci != qp->sq_pi) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq_ci);

		if (w->signaled && unlikely(sroce_cq_space(qp->scq) == 0))
			break;
		if (unlikely(w->length > qp->mtu)) {
			qp->dev->stats.ud_oversize++;	/* C10-93.1.1: no packet, no error */
		} else {
			if (unlikely(sroce_ud_send_pkt(qp, w) != 0))
				break;
			n++;
		}
		sroce_ud_send_complete(qp, w);
	}
	qp->req.idx = qp->sq_ci;
	return (int)n;
}

/* ---------------------------------------------------------------------- */
/* Responder                                                              */
/* ---------------------------------------------------------------------- */

static __rte_noinline void
sroce_ud_len_err(struct sroce_qp *qp, const int srq)
{
	/* the WQE that was too small completes with LOC_LEN_ERR on flush */
	if (srq && sroce_srq_take(qp) != 0)
		return;
	qp->rq_err_status = PV_WC_LOC_LEN_ERR;
	pv_sroce_qp_error(qp);
}

static __rte_always_inline void
sroce_ud_resp_rx(struct sroce_qp *qp, struct sroce_pkt *pkt, const int srq)
{
	struct sroce_dev *dev = qp->dev;
	uint8_t grh[SROCE_GRH_LEN];
	struct sroce_cursor cur = { 0, 0 };
	struct sroce_rwqe *r;
	struct pv_wc *wc;
	int imm;

	if (unlikely(qp->state != PV_QPS_RTR && qp->state != PV_QPS_RTS)) {
		dev->stats.rx_drop_state++;
		return;
	}
	if (unlikely(pkt->qkey != qp->attr.qkey)) {
		dev->stats.ud_qkey_drops++;
		SROCE_DP_LOG(DEBUG, "qp 0x%x: qkey 0x%x, expected 0x%x: dropped",
			     qp->ibqp.qp_num, pkt->qkey, qp->attr.qkey);
		return;
	}
	if (unlikely(sroce_cq_space(qp->rcq) == 0 ||
		     (srq ? qp->srq->ci == qp->srq->pi : qp->rq_ci == qp->rq_pi))) {
		dev->stats.ud_drops++;
		return;
	}
	r = srq ? sroce_srq_wqe_at(qp->srq, qp->srq->ci) : sroce_rwqe_at(qp, qp->rq_ci);
	if (unlikely((uint64_t)pkt->payload_len + SROCE_GRH_LEN > r->length)) {
		sroce_ud_len_err(qp, srq);
		return;
	}
	if (srq) {
		(void)sroce_srq_take(qp);	/* not empty: checked above */
		r = qp->srq_wqe;
	}
	/* RoCEv2 over IPv4: 20 zero bytes, then the IPv4 header as received */
	memset(grh, 0, SROCE_GRH_LEN - SROCE_IPV4_HLEN);
	memcpy(grh + SROCE_GRH_LEN - SROCE_IPV4_HLEN, pkt->frame + pkt->l3_off,
	       SROCE_IPV4_HLEN);
	sroce_sge_copy_in(r->sge, &cur, grh, SROCE_GRH_LEN);
	sroce_sge_copy_in(r->sge, &cur, pkt->frame + pkt->payload_off, pkt->payload_len);
	imm = pkt->opcode == SROCE_OP_UD_SEND_ONLY_IMM;
	wc = sroce_cq_next(qp->rcq);
	wc->wr_id = r->wr_id;
	wc->status = PV_WC_SUCCESS;
	wc->opcode = PV_WC_RECV;
	wc->vendor_err = 0;
	wc->byte_len = pkt->payload_len + SROCE_GRH_LEN;
	wc->imm_data = imm ? pkt->imm : 0;
	wc->qp_num = qp->ibqp.qp_num;
	wc->src_qp = pkt->sqpn;
	wc->wc_flags = PV_WC_GRH | (imm ? PV_WC_WITH_IMM : 0);
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
	if (srq)
		qp->resp.srq_held = 0;
	else
		qp->rq_ci++;
	pv_sroce_cq_event(qp->rcq, pkt->se);
}

void
pv_sroce_resp_rx_ud(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_ud_resp_rx(qp, pkt, 0);
}

void
pv_sroce_resp_rx_ud_srq(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	sroce_ud_resp_rx(qp, pkt, 1);
}
