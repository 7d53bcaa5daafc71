/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The progress loop of a softroce device, run to completion on the thread
 * that owns its queues (pv_poll_cq, pv_progress, post_send):
 *   1. RX burst; each frame: ARP, or parse + ICRC check, dispatch by QPN to
 *      the responder (requests) or the completer (ACK, NAK, responses);
 *   2. per QP: flush (ERR), READ/atomic responses + coalesced ACK/NAK,
 *      timers, requester transmission;
 *   3. one TX burst of everything queued.
 * With pcap=FILE every frame is copied into a pcapng file on its way in
 * (per RX burst) and out (per TX flush, once per frame).
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "sroce_priv.h"

#define SROCE_PCAP_CHUNK 32

void
pv_sroce_pcap_burst(struct sroce_dev *dev, struct rte_mbuf *const *pkts, uint16_t n,
		    enum rte_pcapng_direction dir)
{
	struct rte_mbuf *copy[SROCE_PCAP_CHUNK];
	uint64_t tsc = rte_get_tsc_cycles();
	uint16_t i = 0, k;
	ssize_t ret;

	while (i < n && dev->pcapng != NULL) {
		for (k = 0; k < SROCE_PCAP_CHUNK && i < n; i++) {
			copy[k] = rte_pcapng_copy(dev->port_id, 0, pkts[i], dev->pcap_mp,
						  UINT32_MAX, tsc, dir);
			if (likely(copy[k] != NULL))
				k++;
		}
		if (k == 0)
			continue;
		ret = rte_pcapng_write_packets(dev->pcapng, copy, k);
		/* DPDK 22.11 does not free the copies (its header says it does) */
		rte_pktmbuf_free_bulk(copy, k);
		if (unlikely(ret < 0)) {
			SROCE_DP_LOG(WARNING, "%s: pcapng write failed, capture stopped",
				     dev->ibdev.name);
			rte_pcapng_close(dev->pcapng);
			dev->pcapng = NULL;
			pv_sroce_tx_hook_update(dev);
			return;
		}
		dev->pcap_frames += k;
	}
}

/* 1 in @p n, from a fixed-seed LCG (deterministic across runs) */
static int
sroce_fault_one_in(struct sroce_dev *dev, uint32_t n)
{
	dev->fault_rng = dev->fault_rng * 1103515245u + 12345u;
	return (dev->fault_rng >> 8) % n == 0;
}

static inline int
sroce_tx_fault_drop(struct sroce_dev *dev, const struct rte_mbuf *m)
{
	const struct pv_sroce_fault *f = &dev->fault;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (p[12] == 0x08 && p[13] == 0x06)
		return 0;	/* ARP is never touched */
	dev->fault_tx_cnt++;
	return f->drop_tx_all ||
	       (f->drop_tx_every != 0 && dev->fault_tx_cnt % f->drop_tx_every == 0) ||
	       (f->drop_tx_one_in != 0 && sroce_fault_one_in(dev, f->drop_tx_one_in));
}

/*
 * Fault injection and capture of the frames queued since the last call
 * ([tx_seen, tx_tail)), once each: frames the PMD refuses stay queued and
 * must not be dropped or captured again on the next flush. Survivors are
 * compacted in place (nothing of this range was handed to the PMD yet).
 */
static __rte_noinline void
sroce_tx_hook(struct sroce_dev *dev)
{
	const uint16_t mask = SROCE_TX_RING - 1;
	uint16_t i, w = dev->tx_seen;
	int faulty = dev->fault.drop_tx_every != 0 || dev->fault.drop_tx_all ||
		     dev->fault.drop_tx_one_in != 0;

	for (i = dev->tx_seen; i != dev->tx_tail; i = (i + 1) & mask) {
		struct rte_mbuf *m = dev->tx_ring[i];

		if (faulty && sroce_tx_fault_drop(dev, m)) {
			dev->stats.tx_drop_fault++;
			rte_pktmbuf_free(m);
			continue;
		}
		dev->tx_ring[w] = m;
		w = (w + 1) & mask;
	}
	dev->tx_tail = w;
	if (dev->pcapng != NULL) {
		/* the queued range may wrap the ring: at most two slices */
		i = dev->tx_seen;
		while (i != w) {
			uint16_t end = w > i ? w : SROCE_TX_RING;

			pv_sroce_pcap_burst(dev, &dev->tx_ring[i], end - i,
					    RTE_PCAPNG_DIRECTION_OUT);
			i = end & mask;
		}
	}
	dev->tx_seen = w;
}

void
pv_sroce_tx_hook_update(struct sroce_dev *dev)
{
	dev->tx_hook = dev->pcapng != NULL || dev->fault.drop_tx_every != 0 ||
		       dev->fault.drop_tx_all || dev->fault.drop_tx_one_in != 0;
	/* frames queued before now are not filtered */
	dev->tx_seen = dev->tx_tail;
}

void
pv_sroce_tx_flush(struct sroce_dev *dev)
{
	if (unlikely(dev->tx_hook) && dev->tx_seen != dev->tx_tail)
		sroce_tx_hook(dev);
	while (dev->tx_head != dev->tx_tail) {
		uint16_t end = dev->tx_tail > dev->tx_head ? dev->tx_tail : SROCE_TX_RING;
		uint16_t n = end - dev->tx_head, sent;

		sent = rte_eth_tx_burst(dev->port_id, 0, &dev->tx_ring[dev->tx_head], n);
		dev->stats.tx_pkts += sent;
		dev->tx_head = (dev->tx_head + sent) & (SROCE_TX_RING - 1);
		if (sent < n)
			break;	/* the PMD is full: keep the rest for the next pass */
	}
}

static __rte_noinline void
sroce_rx_other(struct sroce_dev *dev, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->data_len >= 14 && p[12] == 0x08 && p[13] == 0x06) {
		pv_sroce_arp_rx(dev, m);
		return;
	}
	dev->stats.rx_drop_other++;
}

static __rte_noinline int
sroce_rx_fault(struct sroce_dev *dev)
{
	const struct pv_sroce_fault *f = &dev->fault;

	dev->fault_rx_cnt++;
	if (f->drop_rx_all ||
	    (f->drop_rx_every != 0 && dev->fault_rx_cnt % f->drop_rx_every == 0) ||
	    (f->drop_rx_one_in != 0 && sroce_fault_one_in(dev, f->drop_rx_one_in))) {
		dev->stats.rx_drop_fault++;
		return -1;	/* drop */
	}
	if (f->dup_rx_every != 0 && dev->fault_rx_cnt % f->dup_rx_every == 0)
		return 1;	/* twice */
	return 0;
}

static inline int
sroce_rx_faulty(const struct sroce_dev *dev)
{
	return dev->fault.drop_rx_every != 0 || dev->fault.dup_rx_every != 0 ||
	       dev->fault.drop_rx_all || dev->fault.drop_rx_one_in != 0;
}

static inline void
sroce_rx_one(struct sroce_dev *dev, struct rte_mbuf *m)
{
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	uint16_t flags;
	int ret, times = 1;

	if (unlikely(m->nb_segs > 1) && rte_pktmbuf_linearize(m) != 0) {
		dev->stats.rx_drop_other++;
		return;
	}
	ret = pv_sroce_pkt_parse(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
				 dev->verify_icrc, &pkt);
	if (unlikely(ret != 0)) {
		if (ret == -ENOENT)
			sroce_rx_other(dev, m);
		else if (ret == -EILSEQ)
			dev->stats.rx_drop_icrc++;
		else
			dev->stats.rx_drop_hdr++;
		return;
	}
	if (unlikely(pkt.dip != dev->ip_host)) {
		dev->stats.rx_drop_other++;
		return;
	}
	qp = sroce_qp_lookup(dev, pkt.dqpn);
	if (unlikely(qp == NULL || !qp->in_list)) {
		/* a QP in RESET or INIT exists but accepts nothing yet */
		if (qp != NULL)
			dev->stats.rx_drop_state++;
		else
			dev->stats.rx_drop_qpn++;
		SROCE_DP_LOG(DEBUG, "%s: qp 0x%x %s", dev->ibdev.name, pkt.dqpn,
			     qp != NULL ? "not ready" : "unknown");
		return;
	}
	/* RC opcodes for RC QPs, UC ones for UC QPs (UD: no QP accepts them) */
	if (unlikely(SROCE_OP_TRANSPORT(pkt.opcode) != qp->transport)) {
		dev->stats.rx_drop_other++;
		return;
	}
	if (unlikely(sroce_rx_faulty(dev))) {
		times = sroce_rx_fault(dev) + 1;
		if (times == 0)
			return;
	}
	dev->stats.rx_pkts++;
	flags = pv_sroce_opcode_info[pkt.opcode].flags;
	while (times-- > 0) {
		if (flags & SROCE_OPF_REQ)
			qp->fp_resp_rx(qp, &pkt);
		else
			pv_sroce_comp_rx(qp, &pkt);
	}
}

int
pv_sroce_dev_progress(struct sroce_dev *dev)
{
	struct rte_mbuf *pkts[SROCE_RX_BURST];
	uint16_t n, i;
	uint32_t q;
	uint64_t now;
	int work;

	if (unlikely(dev->in_progress))
		return 0;
	dev->in_progress = 1;
	n = rte_eth_rx_burst(dev->port_id, 0, pkts, SROCE_RX_BURST);
	work = n;
	if (unlikely(dev->pcapng != NULL) && n > 0)
		pv_sroce_pcap_burst(dev, pkts, n, RTE_PCAPNG_DIRECTION_IN);
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		sroce_rx_one(dev, pkts[i]);
	}
	if (n > 0)
		rte_pktmbuf_free_bulk(pkts, n);
	now = rte_rdtsc();
	for (q = 0; q < dev->nb_qps; q++) {
		struct sroce_qp *qp = dev->qps[q];

		if (unlikely(qp->flush_pending)) {
			work += pv_sroce_qp_flush(qp);
			continue;
		}
		if (qp->resp.pend != SROCE_PEND_NONE || qp->resp.res_active != 0)
			work += pv_sroce_resp_tx(qp);
		if (qp->state != PV_QPS_RTS)
			continue;
		if (unlikely(qp->comp.deadline != 0 || qp->req.flags != 0))
			if (now >= qp->comp.deadline || qp->req.flags != 0)
				work += pv_sroce_req_timers(qp, now);
		if (unlikely(qp->comp.stalled))
			work += pv_sroce_comp_drain(qp);
		if (qp->req.idx != qp->sq_pi)
			work += qp->fp_req_tx(qp);
	}
	if (dev->tx_head != dev->tx_tail)
		pv_sroce_tx_flush(dev);
	dev->in_progress = 0;
	return work;
}

int
pv_sroce_progress(struct pv_context *context)
{
	sroce_owner_check(sroce_dev_of(context));
	return pv_sroce_dev_progress(sroce_dev_of(context));
}
