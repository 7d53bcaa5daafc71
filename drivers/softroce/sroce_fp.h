/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce fast path: frame construction from the per-QP header template.
 * static inline only; included by sroce_req.c and sroce_resp.c.
 */

#ifndef PV_DRIVERS_SOFTROCE_SROCE_FP_H
#define PV_DRIVERS_SOFTROCE_SROCE_FP_H

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "sroce_priv.h"

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
sroce_frame_nombuf(struct sroce_dev *dev)
{
	dev->stats.tx_nombuf++;
	SROCE_DP_LOG(DEBUG, "%s: mbuf pool empty", dev->ibdev.name);
	return NULL;
}

/**
 * Start a frame of @p qp: template, lengths, IPv4 checksum, BTH.
 *
 * Always inlined: with the UC requester as a fourth caller gcc outlined it
 * (a call per packet, no constant folding of ext_len/ackreq): 4% fewer
 * 8-byte RC WRITEs per second.
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
	struct sroce_dev *dev = qp->dev;
	uint32_t pad = (4 - (paylen & 3)) & 3;
	uint32_t iplen = SROCE_IPV4_HLEN + SROCE_UDP_HLEN + SROCE_BTH_LEN + ext_len + paylen +
			 pad + SROCE_ICRC_LEN;
	uint32_t sum;
	struct rte_mbuf *m;
	struct sroce_bth *bth;
	uint8_t *p, *ip;

	m = rte_pktmbuf_alloc(dev->mp);
	if (unlikely(m == NULL))
		return sroce_frame_nombuf(dev);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	m->data_len = (uint16_t)(SROCE_ETH_HLEN + iplen);
	m->pkt_len = m->data_len;
	rte_memcpy(p, qp->hdr, SROCE_HDR_TMPL_LEN);
	ip = p + SROCE_ETH_HLEN;
	ip[2] = iplen >> 8;
	ip[3] = iplen & 0xff;
	/* the template's header sum excludes tot_len; add it and fold */
	sum = qp->ip_sum + iplen;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
	ip[SROCE_IPV4_HLEN + 4] = (iplen - SROCE_IPV4_HLEN) >> 8;
	ip[SROCE_IPV4_HLEN + 5] = (iplen - SROCE_IPV4_HLEN) & 0xff;
	bth = (struct sroce_bth *)(p + SROCE_L2L4_HLEN);
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) | pad << SROCE_BTH_PAD_SHIFT;
	bth->apsn = rte_cpu_to_be_32((ackreq ? SROCE_BTH_ACKREQ : 0) | psn);
	*ext_p = p + SROCE_HDR_TMPL_LEN;
	if (pad != 0)
		memset(p + SROCE_HDR_TMPL_LEN + ext_len + paylen, 0, pad);
	return m;
}

/** Seal a frame with its ICRC and queue it for the next TX burst. */
static inline void
sroce_frame_send(struct sroce_dev *dev, struct rte_mbuf *m)
{
	pv_sroce_icrc_set(rte_pktmbuf_mtod(m, uint8_t *), m->data_len);
	sroce_tx_enqueue(dev, m);
}

#endif /* PV_DRIVERS_SOFTROCE_SROCE_FP_H */
