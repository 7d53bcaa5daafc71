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
 */

#include <string.h>
#include <sys/time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "sroce_priv.h"

void
pv_sroce_pcap_write(struct sroce_dev *dev, const struct rte_mbuf *m)
{
	struct timeval tv;
	uint32_t rec[4];

	gettimeofday(&tv, NULL);
	rec[0] = (uint32_t)tv.tv_sec;
	rec[1] = (uint32_t)tv.tv_usec;
	rec[2] = rte_pktmbuf_data_len(m);
	rec[3] = rte_pktmbuf_pkt_len(m);
	if (fwrite(rec, sizeof(rec), 1, dev->pcap) != 1 ||
	    fwrite(rte_pktmbuf_mtod(m, const void *), rec[2], 1, dev->pcap) != 1) {
		SROCE_DP_LOG(WARNING, "%s: pcap write failed, capture stopped",
			     dev->ibdev.name);
		fclose(dev->pcap);
		dev->pcap = NULL;
	}
}

/* 1 in @p n, from a fixed-seed LCG (deterministic across runs) */
static int
sroce_fault_one_in(struct sroce_dev *dev, uint32_t n)
{
	dev->fault_rng = dev->fault_rng * 1103515245u + 12345u;
	return (dev->fault_rng >> 8) % n == 0;
}

/* fault injection and capture on the way out (rare: behind one test) */
static __rte_noinline uint16_t
sroce_tx_filter(struct sroce_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	const struct pv_sroce_fault *f = &dev->fault;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int arp = rte_pktmbuf_mtod(m, const uint8_t *)[12] == 0x08 &&
			  rte_pktmbuf_mtod(m, const uint8_t *)[13] == 0x06;

		if (!arp) {
			dev->fault_tx_cnt++;
			if (f->drop_tx_all ||
			    (f->drop_tx_every != 0 && dev->fault_tx_cnt % f->drop_tx_every == 0) ||
			    (f->drop_tx_one_in != 0 && sroce_fault_one_in(dev, f->drop_tx_one_in))) {
				dev->stats.tx_drop_fault++;
				rte_pktmbuf_free(m);
				continue;
			}
		}
		if (dev->pcap != NULL)
			pv_sroce_pcap_write(dev, m);
		pkts[k++] = m;
	}
	return k;
}

static inline int
sroce_tx_slow(const struct sroce_dev *dev)
{
	return dev->pcap != NULL || dev->fault.drop_tx_every != 0 || dev->fault.drop_tx_all ||
	       dev->fault.drop_tx_one_in != 0;
}

void
pv_sroce_tx_flush(struct sroce_dev *dev)
{
	while (dev->tx_head != dev->tx_tail) {
		uint16_t end = dev->tx_tail > dev->tx_head ? dev->tx_tail : SROCE_TX_RING;
		uint16_t n = end - dev->tx_head, sent;
		struct rte_mbuf **pkts = &dev->tx_ring[dev->tx_head];

		if (unlikely(sroce_tx_slow(dev))) {
			uint16_t k = sroce_tx_filter(dev, pkts, n);

			/* keep the survivors at the end of the slice */
			memmove(pkts + (n - k), pkts, k * sizeof(*pkts));
			dev->tx_head = (dev->tx_head + n - k) & (SROCE_TX_RING - 1);
			pkts += n - k;
			n = k;
			if (n == 0)
				continue;
		}
		sent = rte_eth_tx_burst(dev->port_id, 0, pkts, n);
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
	if (unlikely(dev->pcap != NULL))
		pv_sroce_pcap_write(dev, m);
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
	if (unlikely(pkt.dip != dev->ip_host || SROCE_OP_TRANSPORT(pkt.opcode) != SROCE_OP_RC)) {
		dev->stats.rx_drop_other++;
		return;
	}
	qp = sroce_qp_lookup(dev, pkt.dqpn);
	if (unlikely(qp == NULL || !qp->in_list)) {
		dev->stats.rx_drop_qpn++;
		SROCE_DP_LOG(DEBUG, "%s: no qp 0x%x", dev->ibdev.name, pkt.dqpn);
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
			pv_sroce_resp_rx(qp, &pkt);
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
			work += pv_sroce_req_tx(qp);
	}
	if (dev->tx_head != dev->tx_tail)
		pv_sroce_tx_flush(dev);
	dev->in_progress = 0;
	return work;
}

int
pv_sroce_progress(struct pv_context *context)
{
	return pv_sroce_dev_progress(sroce_dev_of(context));
}
