/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce fast path: the per-packet inline helpers (queue slots, CQ
 * entries, SGE copies, the engine TX ring) and frame construction from the
 * per-QP header template or a UD address handle. static inline only;
 * objects and prototypes are in sroce_priv.h.
 */

#ifndef PV_DRIVERS_SOFTROCE_SROCE_FP_H
#define PV_DRIVERS_SOFTROCE_SROCE_FP_H

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "sroce_priv.h"

static inline struct sroce_swqe *
sroce_swqe_at(const struct sroce_qp *qp, uint32_t idx)
{
	return (struct sroce_swqe *)(qp->sq + (size_t)(idx & qp->sq_mask) * qp->sq_stride);
}

static inline struct sroce_rwqe *
sroce_rwqe_at(const struct sroce_qp *qp, uint32_t idx)
{
	return (struct sroce_rwqe *)(qp->rq + (size_t)(idx & qp->rq_mask) * qp->rq_stride);
}


/*
 * Fill receive WQE @p r from @p wr (SGE count already checked): every SGE
 * must name a local MR of @p pd with LOCAL_WRITE. Shared by the QP's RQ and
 * the SRQ. Returns 0 or EINVAL (positive: the post_recv errno).
 */
static inline int
sroce_rwqe_fill(const struct sroce_dev *dev, const struct sroce_pd *pd,
		struct sroce_rwqe *r, const struct pv_recv_wr *wr)
{
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (unlikely(pv_sroce_mr_local(dev, pd, &wr->sg_list[i], 1, &r->sge[i]) != 0))
			return EINVAL;
		len += wr->sg_list[i].length;
	}
	r->wr_id = wr->wr_id;
	r->num_sge = wr->num_sge;
	r->length = len;
	return 0;
}


static inline uint32_t
sroce_cq_space(const struct sroce_cq *cq)
{
	return cq->mask + 1 - (cq->prod - cq->cons);
}

/** Reserve the next CQE (caller checked sroce_cq_space() > 0). */
static inline struct pv_wc *
sroce_cq_next(struct sroce_cq *cq)
{
	return &cq->ring[cq->prod++ & cq->mask];
}


static inline enum pv_wc_opcode
sroce_wc_opcode(uint8_t wr_opcode)
{
	switch (wr_opcode) {
	case PV_WR_RDMA_WRITE:
	case PV_WR_RDMA_WRITE_WITH_IMM:
		return PV_WC_RDMA_WRITE;
	case PV_WR_RDMA_READ:
		return PV_WC_RDMA_READ;
	case PV_WR_ATOMIC_CMP_AND_SWP:
		return PV_WC_COMP_SWAP;
	case PV_WR_ATOMIC_FETCH_AND_ADD:
		return PV_WC_FETCH_ADD;
	case PV_WR_BIND_MW:
		return PV_WC_BIND_MW;
	case PV_WR_LOCAL_INV:
		return PV_WC_LOCAL_INV;
	default:
		return PV_WC_SEND;
	}
}


static inline struct sroce_rwqe *
sroce_srq_wqe_at(const struct sroce_srq *srq, uint32_t idx)
{
	return (struct sroce_rwqe *)(srq->rq + (size_t)(idx & srq->mask) * srq->stride);
}

/**
 * Take the oldest WQE of @p qp's SRQ into qp->srq_wqe (a copy: the slot is
 * reposted while a multi-packet message is still being placed).
 * @return 0, or -ENOENT the SRQ is empty.
 */
static inline int
sroce_srq_take(struct sroce_qp *qp)
{
	struct sroce_srq *srq = qp->srq;
	const struct sroce_rwqe *r;

	if (unlikely(srq->ci == srq->pi))
		return -ENOENT;
	r = sroce_srq_wqe_at(srq, srq->ci);
	memcpy(qp->srq_wqe, r, sizeof(*r) + r->num_sge * sizeof(r->sge[0]));
	srq->ci++;
	qp->resp.srq_held = 1;
	/* IBTA 10.2.9.2: the event fires once WQEs fall below the armed limit */
	if (unlikely(srq->limit != 0) && srq->pi - srq->ci < srq->limit)
		pv_sroce_srq_limit_fire(srq);
	return 0;
}


/** Free TX slots of engine @p eng. */
static inline uint32_t
sroce_tx_space(const struct sroce_eng *eng)
{
	return SROCE_TX_RING - 1 - (uint16_t)((eng->tx_tail - eng->tx_head) &
					      (SROCE_TX_RING - 1));
}

/** Queue @p m for transmission on @p eng (caller checked sroce_tx_space()). */
static inline void
sroce_tx_enqueue(struct sroce_eng *eng, struct rte_mbuf *m)
{
	eng->tx_ring[eng->tx_tail] = m;
	eng->tx_tail = (eng->tx_tail + 1) & (SROCE_TX_RING - 1);
}

/*
 * Payload copies (frame <-> registered memory, KiBs each) use libc's
 * memcpy: glibc picks its AVX-512 / ERMS variant at run time, whereas
 * rte_memcpy is inlined for the build's baseline ISA (-march=corei7 from
 * libdpdk's pkg-config: SSE with palignr shifts for the unaligned payload).
 * At 64 KiB writes with MTU 4096 the sender spent 43% of its time in the
 * SSE copy.
 */
static inline void
sroce_payload_copy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/* one body for both directions: @p to_sge copies @p buf into the SGE list */
static __rte_always_inline void
sroce_sge_copy(const struct sroce_sge *sge, struct sroce_cursor *cur, uint8_t *buf,
	       uint32_t len, const int to_sge)
{
	while (len > 0) {
		const struct sroce_sge *s = &sge[cur->i];
		uint32_t n = RTE_MIN(len, s->length - cur->off);

		if (to_sge)
			sroce_payload_copy(s->addr + cur->off, buf, n);
		else
			sroce_payload_copy(buf, s->addr + cur->off, n);
		buf += n;
		len -= n;
		cur->off += n;
		if (cur->off == s->length) {
			cur->i++;
			cur->off = 0;
		}
	}
}

/** Copy @p len bytes from an SGE list at @p cur into @p dst, advancing it. */
static inline void
sroce_sge_copy_out(const struct sroce_sge *sge, struct sroce_cursor *cur, uint8_t *dst,
		   uint32_t len)
{
	sroce_sge_copy(sge, cur, dst, len, 0);
}

/** Copy @p len bytes from @p src into an SGE list at @p cur, advancing it. */
static inline void
sroce_sge_copy_in(const struct sroce_sge *sge, struct sroce_cursor *cur, const uint8_t *src,
		  uint32_t len)
{
	sroce_sge_copy(sge, cur, (uint8_t *)(uintptr_t)src, len, 1);
}

/** Move a cursor @p off bytes from the start of an SGE list. */
static inline void
sroce_cursor_seek(const struct sroce_sge *sge, uint32_t num_sge, struct sroce_cursor *cur,
		  uint32_t off)
{
	cur->i = 0;
	cur->off = 0;
	while (cur->i < num_sge && off >= sge[cur->i].length) {
		off -= sge[cur->i].length;
		cur->i++;
	}
	cur->off = off;
}

/** Store a big-endian 64-bit value at an unaligned address. */
static inline void
sroce_put_be64(uint8_t *p, uint64_t v)
{
	v = rte_cpu_to_be_64(v);
	memcpy(p, &v, 8);
}

static inline void
sroce_put_be32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, 4);
}

static __rte_noinline struct rte_mbuf *
sroce_frame_nombuf(struct sroce_eng *eng)
{
	eng->stats.tx_nombuf++;
	SROCE_DP_LOG(DEBUG, "%s: mbuf pool empty", eng->dev->ibdev.name);
	return NULL;
}

/*
 * One body for every frame: the Eth[/802.1Q]/IP/UDP headers come from the
 * QP's template (connected QPs, BTH included) or from the address handle
 * @p ah (UD: UDP source port, P_Key and destination QPN @p dqpn written
 * here); then lengths, the IPv4 checksum, BTH and the zeroed pad. A template
 * is copied whole (SROCE_HDR_TMPL_MAX, a constant size) whatever its family;
 * IPv4 and IPv6 differ in one branch per frame (the length fields), each
 * family having its own prebuilt template.
 *
 * Always inlined: with the UC requester as a fourth caller gcc outlined it
 * (a call per packet, no constant folding of ext_len/ackreq): 4% fewer
 * 8-byte RC WRITEs per second.
 */
static __rte_always_inline struct rte_mbuf *
sroce_frame_open(struct sroce_qp *qp, const struct sroce_ah *ah, uint32_t dqpn, uint8_t opcode,
		 uint32_t psn, int ackreq, int se, uint32_t ext_len, uint32_t paylen,
		 uint8_t **ext_p, const unsigned int qpf)
{
	struct sroce_dev *dev = qp->dev;
	const struct sroce_path *path = (qpf & SROCE_QPF_UD) ? &ah->path : &qp->path;
	uint32_t pad = (4 - (paylen & 3)) & 3;
	uint32_t l4len = SROCE_UDP_HLEN + SROCE_BTH_LEN + ext_len + paylen + pad +
			 SROCE_ICRC_LEN;
	uint32_t hlen = path->hdr_len;
	uint32_t sum, iplen;
	struct rte_mbuf *m;
	struct sroce_bth *bth;
	uint8_t *p, *ip, *udp;

	m = sroce_mbuf_alloc(dev->mp);
	if (unlikely(m == NULL))
		return sroce_frame_nombuf(qp->eng);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	ip = p + path->l3_off;
	if (qpf & SROCE_QPF_UD) {
		rte_memcpy(p, ah->hdr, SROCE_HDR_TMPL_MAX);
		sum = ah->ip_sum;
	} else {
		rte_memcpy(p, qp->hdr, SROCE_HDR_TMPL_MAX);
		sum = qp->ip_sum;
	}
	if (likely(!path->ip6)) {
		udp = ip + SROCE_IPV4_HLEN;
		iplen = SROCE_IPV4_HLEN + l4len;
		ip[2] = iplen >> 8;
		ip[3] = iplen & 0xff;
		/* the template's header sum excludes tot_len; add it and fold */
		sum += iplen;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = ~sum & 0xffff;
		ip[10] = sum >> 8;
		ip[11] = sum & 0xff;
	} else {
		/* IPv6 payload length: the UDP datagram */
		udp = ip + SROCE_IPV6_HLEN;
		iplen = SROCE_IPV6_HLEN + l4len;
		ip[4] = l4len >> 8;
		ip[5] = l4len & 0xff;
	}
	m->data_len = (uint16_t)(path->l3_off + iplen);
	m->pkt_len = m->data_len;
	if (qpf & SROCE_QPF_UD) {
		udp[0] = qp->ud_sport >> 8;
		udp[1] = qp->ud_sport & 0xff;
	}
	udp[4] = l4len >> 8;
	udp[5] = l4len & 0xff;
	bth = (struct sroce_bth *)(udp + SROCE_UDP_HLEN);
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) | pad << SROCE_BTH_PAD_SHIFT;
	if (qpf & SROCE_QPF_UD) {
		bth->pkey = rte_cpu_to_be_16(SROCE_DEFAULT_PKEY);
		bth->qpn = rte_cpu_to_be_32(dqpn);
	}
	bth->apsn = rte_cpu_to_be_32((ackreq ? SROCE_BTH_ACKREQ : 0) | psn);
	*ext_p = p + hlen;
	if (pad != 0)
		memset(p + hlen + ext_len + paylen, 0, pad);
	return m;
}

/**
 * Start a frame of connected QP @p qp: template, lengths, IPv4 checksum, BTH.
 *
 * @param ext_len  Extension header bytes after the BTH.
 * @param paylen   Payload bytes (pad is added here and zeroed).
 * @param ext_p    Set to the first byte after the BTH.
 * @return the mbuf (not yet queued), NULL when the pool is empty.
 */
static __rte_always_inline struct rte_mbuf *
sroce_frame_start(struct sroce_qp *qp, uint8_t opcode, uint32_t psn, int ackreq, int se,
		  uint32_t ext_len, uint32_t paylen, uint8_t **ext_p)
{
	return sroce_frame_open(qp, NULL, 0, opcode, psn, ackreq, se, ext_len, paylen, ext_p, 0);
}

/** Start a frame of UD QP @p qp to @p ah, QPN @p dqpn (AckReq: the GSI QP's only). */
static __rte_always_inline struct rte_mbuf *
sroce_frame_start_ud(struct sroce_qp *qp, const struct sroce_ah *ah, uint32_t dqpn,
		     uint8_t opcode, uint32_t psn, int ackreq, int se, uint32_t ext_len,
		     uint32_t paylen, uint8_t **ext_p)
{
	return sroce_frame_open(qp, ah, dqpn, opcode, psn, ackreq, se, ext_len, paylen, ext_p,
				SROCE_QPF_UD);
}

/** Seal a frame with its ICRC and queue it for the next TX burst of @p eng. */
static inline void
sroce_frame_send(struct sroce_eng *eng, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	pv_sroce_icrc_set(rte_pktmbuf_mtod(m, uint8_t *), m->data_len);
	/* a template built before its neighbour answered (the MAC is not in
	 * the ICRC): the neighbour layer patches or queues the frame */
	if (unlikely((p[0] | p[1] | p[2] | p[3] | p[4] | p[5]) == 0)) {
		pv_sroce_neigh_tx(eng, m);
		return;
	}
	sroce_tx_enqueue(eng, m);
}

#endif /* PV_DRIVERS_SOFTROCE_SROCE_FP_H */
