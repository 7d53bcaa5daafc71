/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The progress loop of a softroce device, run to completion on the thread
 * that owns its queues (pv_poll_cq, pv_progress, post_send):
 *   1. RX burst; each frame: ARP, or parse + ICRC check, dispatch by QPN
 *      (the QPN table; QP 1: the device's GSI QP) to the responder
 *      (requests) or the completer (ACK, NAK, responses);
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
#include <rte_ring.h>

#include "sroce_priv.h"

#define SROCE_PCAP_CHUNK 32

uint32_t
pv_sroce_eth_hdr_put(const struct sroce_dev *dev, uint8_t *p, const uint8_t dmac[6],
		     uint16_t ethertype)
{
	uint32_t l3 = SROCE_ETH_HLEN;

	memcpy(p, dmac, RTE_ETHER_ADDR_LEN);
	memcpy(p + 6, dev->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	if (dev->vlan_on) {
		/* as a VLAN netdev sends it: the tag, then the real ethertype */
		p[12] = SROCE_ETHERTYPE_VLAN >> 8;
		p[13] = SROCE_ETHERTYPE_VLAN & 0xff;
		p[14] = dev->vlan_tci >> 8;
		p[15] = dev->vlan_tci & 0xff;
		l3 += SROCE_VLAN_HLEN;
	}
	p[l3 - 2] = ethertype >> 8;
	p[l3 - 1] = ethertype & 0xff;
	return l3;
}

int
pv_sroce_hdr_build(const struct sroce_dev *dev, uint8_t *hdr,
		   const struct rte_ether_addr *dmac, uint8_t sgid_index,
		   const uint8_t dgid[16], uint8_t tclass, uint8_t hop_limit, uint16_t sport,
		   uint32_t dqpn, struct sroce_path *path, uint32_t *ip_sum_p)
{
	const uint8_t *sgid;
	uint8_t *ip, *udp;
	struct sroce_bth *bth;
	uint32_t l3, sum = 0, i;
	int v6;

	if (sgid_index >= dev->nb_gid)
		return -EINVAL;
	sgid = dev->gid[sgid_index].raw;
	v6 = !sroce_gid_is_v4(sgid);
	if (v6 == sroce_gid_is_v4(dgid))
		return -EINVAL;		/* one family per path */
	memset(hdr, 0, SROCE_HDR_TMPL_MAX);
	l3 = pv_sroce_eth_hdr_put(dev, hdr, dmac->addr_bytes,
				  v6 ? SROCE_ETHERTYPE_IPV6 : SROCE_ETHERTYPE_IPV4);
	ip = hdr + l3;
	if (!v6) {
		ip[0] = 0x45;
		ip[1] = tclass;
		/* tot_len (2..3) and checksum (10..11) patched per packet; id 0 with DF */
		ip[6] = 0x40;
		ip[8] = hop_limit;
		ip[9] = 17;
		memcpy(ip + 12, sgid + 12, 4);
		memcpy(ip + 16, dgid + 12, 4);
		for (i = 0; i < SROCE_IPV4_HLEN; i += 2)
			sum += (uint32_t)ip[i] << 8 | ip[i + 1];
		udp = ip + SROCE_IPV4_HLEN;
	} else {
		/* version 6, traffic class, flow label 0 (rxe: ip6_flow_hdr(.., 0)) */
		ip[0] = 0x60 | tclass >> 4;
		ip[1] = (uint8_t)(tclass << 4);
		/* payload length (4..5) patched per packet */
		ip[6] = 17;
		ip[7] = hop_limit;
		memcpy(ip + 8, sgid, 16);
		memcpy(ip + 24, dgid, 16);
		udp = ip + SROCE_IPV6_HLEN;
	}
	udp[0] = sport >> 8;
	udp[1] = sport & 0xff;
	udp[2] = SROCE_UDP_PORT >> 8;
	udp[3] = SROCE_UDP_PORT & 0xff;
	/* UDP length patched per packet, checksum 0 (as rxe, IPv6 too) */
	bth = (struct sroce_bth *)(udp + SROCE_UDP_HLEN);
	bth->pkey = rte_cpu_to_be_16(SROCE_DEFAULT_PKEY);
	bth->qpn = rte_cpu_to_be_32(dqpn & SROCE_QPN_MASK);
	path->hdr_len = (uint8_t)(udp + SROCE_UDP_HLEN + SROCE_BTH_LEN - hdr);
	path->l3_off = (uint8_t)l3;
	path->ip6 = (uint8_t)v6;
	memcpy(path->dst, dgid, 16);
	*ip_sum_p = sum;
	return 0;
}

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
		sroce_mbuf_free_bulk(copy, k);
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

/* xorshift64*: the random faults' generator, one per direction */
static inline uint64_t
sroce_fault_rand(struct sroce_fault_q *q)
{
	q->rng ^= q->rng >> 12;
	q->rng ^= q->rng << 25;
	q->rng ^= q->rng >> 27;
	return q->rng * 0x2545f4914f6cdd1dull;
}

/* true with probability @p ppm / 10^6 */
static inline int
sroce_fault_chance(struct sroce_fault_q *q, uint32_t ppm)
{
	return ppm != 0 && (ppm >= 1000000 || (sroce_fault_rand(q) >> 11) % 1000000 < ppm);
}

static int
sroce_fault_dir_on(const struct pv_sroce_fault_dir *d)
{
	return d->drop_ppm != 0 || d->corrupt_ppm != 0 || d->dup_ppm != 0 ||
	       d->reorder_ppm != 0 || d->delay_us != 0;
}

void
pv_sroce_fault_reset(struct sroce_dev *dev)
{
	const struct pv_sroce_fault_dir *dir[2] = { &dev->fault.tx, &dev->fault.rx };
	uint64_t hz = rte_get_tsc_hz();
	int d;
	uint32_t i;

	for (d = 0; d < 2; d++) {
		struct sroce_fault_q *q = &dev->fault_q[d];
		/* splitmix64 of seed and direction: never the all-zero state */
		uint64_t z = (uint64_t)dev->fault.seed * 2 + d + 0x9e3779b97f4a7c15ull;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		q->rng = (z ^ (z >> 31)) | 1;
		q->reorder_tsc = (uint64_t)dir[d]->reorder_us * hz / 1000000;
		q->delay_tsc = (uint64_t)dir[d]->delay_us * hz / 1000000;
		q->on = sroce_fault_dir_on(dir[d]);
		for (i = 0; i < q->n; i++)
			q->held[i].due_tsc = 0;
	}
	dev->fault_rx_on = dev->fault_q[SROCE_FAULT_RX].on;
}

void
pv_sroce_fault_free(struct sroce_dev *dev)
{
	int d;
	uint32_t i;

	for (d = 0; d < 2; d++) {
		for (i = 0; i < dev->fault_q[d].n; i++)
			sroce_mbuf_free(dev->fault_q[d].held[i].m);
		dev->fault_q[d].n = 0;
	}
}

/*
 * Offsets of the ICRC-covered RoCE part of a frame, from the BTH to the
 * end of the ICRC (the IP total/payload length, not Ethernet padding): 0
 * when the frame is not IPv4 or IPv6 / UDP 4791 or too short to hold a BTH
 * and an ICRC.
 */
static uint32_t
sroce_fault_roce_span(const struct rte_mbuf *m, uint32_t *end_p)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = SROCE_ETH_HLEN, ihl, end;

	if (m->data_len < SROCE_L2L4_HLEN + 4)
		return 0;
	if (p[12] == 0x81 && p[13] == 0x00)
		l3 += 4;
	if (p[l3 - 2] == 0x86 && p[l3 - 1] == 0xdd) {
		/* IPv6: 40-byte header, next header UDP, payload length */
		if (l3 + 40 + SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN > m->data_len ||
		    (p[l3] >> 4) != 6 || p[l3 + 6] != 17 ||
		    (p[l3 + 40 + 2] << 8 | p[l3 + 40 + 3]) != SROCE_UDP_PORT)
			return 0;
		end = l3 + 40 + (p[l3 + 4] << 8 | p[l3 + 5]);
		if (end > m->data_len ||
		    end < l3 + 40 + SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
			return 0;
		*end_p = end;
		return l3 + 40 + SROCE_UDP_HLEN;
	}
	if (p[l3 - 2] != 0x08 || p[l3 - 1] != 0x00 || (p[l3] >> 4) != 4 || p[l3 + 9] != 17)
		return 0;
	ihl = (p[l3] & 0xf) * 4u;
	if (l3 + ihl + SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN > m->data_len)
		return 0;
	if ((p[l3 + ihl + 2] << 8 | p[l3 + ihl + 3]) != SROCE_UDP_PORT)
		return 0;
	end = l3 + (p[l3 + 2] << 8 | p[l3 + 3]);
	if (end > m->data_len || end < l3 + ihl + SROCE_UDP_HLEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return 0;
	*end_p = end;
	return l3 + ihl + SROCE_UDP_HLEN;
}

/* flip one bit of the ICRC-covered part (BTH byte 4, resv8a, is masked: never it) */
static void
sroce_fault_corrupt(struct sroce_fault_q *q, struct rte_mbuf *m, uint32_t bth, uint32_t end)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint64_t r = sroce_fault_rand(q);
	uint32_t off = bth + (uint32_t)((r >> 16) % (end - bth - 1));

	if (off >= bth + 4)
		off++;	/* skip resv8a */
	p[off] ^= 1u << (r & 7);
}

static int
sroce_fault_hold(struct sroce_dev *dev, struct sroce_fault_q *q, struct rte_mbuf *m,
		 uint64_t due)
{
	if (q->n == PV_SROCE_FAULT_HOLD) {
		dev->eng[0].stats.fault_hold_full++;
		return 0;
	}
	q->held[q->n].m = m;
	q->held[q->n].due_tsc = due;
	q->n++;
	return 1;
}

/*
 * The random faults of direction @p d for frame @p m.
 * @return 1 when the frame was consumed (dropped and freed, or held), 0 when
 * it goes on (perhaps corrupted, perhaps with a copy held behind it)
 */
static __rte_noinline int
sroce_fault_apply(struct sroce_dev *dev, int d, struct rte_mbuf *m, uint64_t now)
{
	const struct pv_sroce_fault_dir *f = d == SROCE_FAULT_TX ? &dev->fault.tx : &dev->fault.rx;
	struct sroce_fault_q *q = &dev->fault_q[d];
	uint32_t bth, end = 0;

	bth = sroce_fault_roce_span(m, &end);
	if (bth == 0)
		return 0;	/* ARP, not RoCE */
	if (sroce_fault_chance(q, f->drop_ppm)) {
		if (d == SROCE_FAULT_TX)
			dev->eng[0].stats.tx_drop_fault++;
		else
			dev->eng[0].stats.rx_drop_fault++;
		sroce_mbuf_free(m);
		return 1;
	}
	if (sroce_fault_chance(q, f->corrupt_ppm)) {
		sroce_fault_corrupt(q, m, bth, end);
		if (d == SROCE_FAULT_TX)
			dev->eng[0].stats.tx_fault_corrupt++;
		else
			dev->eng[0].stats.rx_fault_corrupt++;
	}
	if (sroce_fault_chance(q, f->dup_ppm)) {
		struct rte_mbuf *c = rte_pktmbuf_copy(m, dev->mp, 0, UINT32_MAX);

		if (c != NULL) {
			if (sroce_fault_hold(dev, q, c, now)) {
				if (d == SROCE_FAULT_TX)
					dev->eng[0].stats.tx_fault_dup++;
				else
					dev->eng[0].stats.rx_fault_dup++;
			} else {
				sroce_mbuf_free(c);
			}
		}
	}
	if (sroce_fault_chance(q, f->reorder_ppm) ||
	    (f->delay_us != 0 && (f->delay_ppm == 0 || sroce_fault_chance(q, f->delay_ppm)))) {
		uint64_t due = now + RTE_MAX(q->reorder_tsc, q->delay_tsc);

		if (sroce_fault_hold(dev, q, m, due)) {
			if (d == SROCE_FAULT_TX)
				dev->eng[0].stats.tx_fault_held++;
			else
				dev->eng[0].stats.rx_fault_held++;
			return 1;
		}
	}
	return 0;
}

/*
 * Take the held frames of direction @p d that are due at @p now (all when
 * @p now is UINT64_MAX), in the order they were held, up to @p max into
 * @p out. @return the frames taken
 */
static uint32_t
sroce_fault_release(struct sroce_fault_q *q, uint64_t now, struct rte_mbuf **out, uint32_t max)
{
	uint32_t i, w = 0, k = 0;

	for (i = 0; i < q->n; i++) {
		if (k < max && q->held[i].due_tsc <= now)
			out[k++] = q->held[i].m;
		else
			q->held[w++] = q->held[i];
	}
	q->n = w;
	return k;
}

/* 1 in @p n, from a fixed-seed LCG (deterministic across runs) */
static int
sroce_fault_one_in(struct sroce_dev *dev, uint32_t n)
{
	dev->fault_rng = dev->fault_rng * 1103515245u + 12345u;
	return (dev->fault_rng >> 8) % n == 0;
}

/* an ARP or ICMPv6 frame (after an optional 802.1Q tag) */
static inline int
sroce_frame_is_nd(const uint8_t *p)
{
	uint32_t l3 = SROCE_ETH_HLEN;

	if (p[12] == 0x81 && p[13] == 0x00)
		l3 += SROCE_VLAN_HLEN;
	if (p[l3 - 2] == 0x08 && p[l3 - 1] == 0x06)
		return 1;
	return p[l3 - 2] == 0x86 && p[l3 - 1] == 0xdd && p[l3 + 6] == 58;
}

static inline int
sroce_tx_fault_drop(struct sroce_dev *dev, const struct rte_mbuf *m)
{
	const struct pv_sroce_fault *f = &dev->fault;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (sroce_frame_is_nd(p))
		return 0;	/* ARP and neighbour discovery are never touched */
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
sroce_tx_hook(struct sroce_eng *eng)
{
	struct sroce_dev *dev = eng->dev;
	const uint16_t mask = SROCE_TX_RING - 1;
	struct sroce_fault_q *q = &dev->fault_q[SROCE_FAULT_TX];
	uint16_t i, w = eng->tx_seen;
	int faulty = dev->fault.drop_tx_every != 0 || dev->fault.drop_tx_all ||
		     dev->fault.drop_tx_one_in != 0;
	uint64_t now = rte_rdtsc();

	for (i = eng->tx_seen; i != eng->tx_tail; i = (i + 1) & mask) {
		struct rte_mbuf *m = eng->tx_ring[i];

		if (faulty && sroce_tx_fault_drop(dev, m)) {
			eng->stats.tx_drop_fault++;
			sroce_mbuf_free(m);
			continue;
		}
		if (q->on && sroce_fault_apply(dev, SROCE_FAULT_TX, m, now))
			continue;
		eng->tx_ring[w] = m;
		w = (w + 1) & mask;
	}
	/* held frames now due go behind this pass's, never filtered again */
	if (q->n != 0) {
		uint32_t space = SROCE_TX_RING - 1 - ((w - eng->tx_head) & mask);
		struct rte_mbuf *rel[PV_SROCE_FAULT_HOLD];
		uint32_t k, n = sroce_fault_release(q, now, rel, RTE_MIN(space, RTE_DIM(rel)));

		for (k = 0; k < n; k++) {
			eng->tx_ring[w] = rel[k];
			w = (w + 1) & mask;
		}
	}
	eng->tx_tail = w;
	if (dev->pcapng != NULL) {
		/* the queued range may wrap the ring: at most two slices */
		i = eng->tx_seen;
		while (i != w) {
			uint16_t end = w > i ? w : SROCE_TX_RING;

			pv_sroce_pcap_burst(dev, &eng->tx_ring[i], end - i,
					    RTE_PCAPNG_DIRECTION_OUT);
			i = end & mask;
		}
	}
	eng->tx_seen = w;
}

void
pv_sroce_tx_hook_update(struct sroce_dev *dev)
{
	uint16_t e;

	dev->tx_hook = dev->pcapng != NULL || dev->fault.drop_tx_every != 0 ||
		       dev->fault.drop_tx_all || dev->fault.drop_tx_one_in != 0 ||
		       dev->fault_q[SROCE_FAULT_TX].on;
	/* frames queued before now are not filtered */
	for (e = 0; e < dev->nb_eng; e++)
		dev->eng[e].tx_seen = dev->eng[e].tx_tail;
}

void
pv_sroce_tx_flush(struct sroce_eng *eng)
{
	struct sroce_dev *dev = eng->dev;

	if (unlikely(dev->tx_hook || dev->fault_q[SROCE_FAULT_TX].n != 0) &&
	    (eng->tx_seen != eng->tx_tail || dev->fault_q[SROCE_FAULT_TX].n != 0))
		sroce_tx_hook(eng);
	eng->tx_held = 0;
	while (eng->tx_head != eng->tx_tail) {
		uint16_t end = eng->tx_tail > eng->tx_head ? eng->tx_tail : SROCE_TX_RING;
		uint16_t n = end - eng->tx_head, sent;

#ifdef __SANITIZE_THREAD__
		for (sent = 0; sent < n; sent++)
			sroce_mbuf_tsan_give(eng->tx_ring[eng->tx_head + sent]);
#endif
		sent = rte_eth_tx_burst(dev->port_id, eng->queue_id, &eng->tx_ring[eng->tx_head],
					n);
		eng->stats.tx_pkts += sent;
		eng->tx_head = (eng->tx_head + sent) & (SROCE_TX_RING - 1);
		if (sent < n)
			break;	/* the PMD is full: keep the rest for the next pass */
	}
}

void
pv_sroce_stats_sum(const struct sroce_dev *dev, struct pv_sroce_stats *out)
{
	uint64_t *o = (uint64_t *)out;
	size_t i, n = sizeof(*out) / sizeof(uint64_t);
	uint16_t e;

	RTE_BUILD_BUG_ON(sizeof(*out) % sizeof(uint64_t) != 0);
	memset(out, 0, sizeof(*out));
	for (e = 0; e < dev->nb_eng; e++) {
		const uint64_t *in = (const uint64_t *)&dev->eng[e].stats;

		for (i = 0; i < n; i++)
			o[i] += in[i];
	}
}

/*
 * With vlan=, a frame of another VLAN (or untagged, unless vlan=0: priority
 * tagged and untagged frames are the same network) is not ours, as a Linux
 * VLAN netdev does not see it. @return non-zero to drop (counted)
 */
static __rte_noinline int
sroce_rx_vlan_drop(struct sroce_eng *eng, uint16_t tci, int tagged)
{
	const struct sroce_dev *dev = eng->dev;

	if (!dev->vlan_on || (tagged ? (tci & 0xfff) == dev->vid : dev->vid == 0))
		return 0;
	eng->stats.rx_drop_vlan++;
	return 1;
}

static __rte_noinline void
sroce_rx_other(struct sroce_eng *eng, struct rte_mbuf *m)
{
	const struct sroce_dev *dev = eng->dev;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = SROCE_ETH_HLEN;
	uint16_t type;
	int tagged = 0;

	if (m->data_len < SROCE_ETH_HLEN)
		goto drop;
	type = (uint16_t)(p[12] << 8 | p[13]);
	if (type == SROCE_ETHERTYPE_VLAN) {
		if (m->data_len < SROCE_ETH_HLEN + SROCE_VLAN_HLEN)
			goto drop;
		tagged = 1;
		l3 += SROCE_VLAN_HLEN;
		type = (uint16_t)(p[16] << 8 | p[17]);
	}
	if (type != SROCE_ETHERTYPE_ARP && type != SROCE_ETHERTYPE_IPV6)
		goto drop;
	if (unlikely(dev->vlan_on) &&
	    sroce_rx_vlan_drop(eng, tagged ? (uint16_t)(p[14] << 8 | p[15]) : 0, tagged))
		return;
	if (type == SROCE_ETHERTYPE_ARP)
		pv_sroce_arp_rx(eng, m, l3);
	else
		pv_sroce_ndp_rx(eng, m, l3);
	return;
drop:
	eng->stats.rx_drop_other++;
}

/* a RoCEv2 frame not to our IPv4 address: to one of our IPv6 ones? */
static __rte_noinline int
sroce_rx_dst_ok(const struct sroce_dev *dev, const struct sroce_pkt *pkt)
{
	uint32_t i;

	if (pkt->ip_ver != 6)
		return 0;
	for (i = 0; i < dev->nb_gid; i++)
		if (i != SROCE_GID_IPV4 && memcmp(dev->gid[i].raw, pkt->dip6, 16) == 0)
			return 1;
	return 0;
}

static __rte_noinline int
sroce_rx_fault(struct sroce_dev *dev)
{
	const struct pv_sroce_fault *f = &dev->fault;

	dev->fault_rx_cnt++;
	if (f->drop_rx_all ||
	    (f->drop_rx_every != 0 && dev->fault_rx_cnt % f->drop_rx_every == 0) ||
	    (f->drop_rx_one_in != 0 && sroce_fault_one_in(dev, f->drop_rx_one_in))) {
		dev->eng[0].stats.rx_drop_fault++;
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

/*
 * The destination of @p pkt is no progressed QP of the QPN table (@p qp: the
 * table's entry, NULL or a QP in RESET/INIT; or the GSI QP when not in its
 * engine's list). QP 1 is the GSI QP, kept in dev->gsi_qp; as rxe it takes
 * the default partition only (pkey_match() against 0xffff: the low 15 bits
 * all ones). @return the QP to deliver to, or NULL: dropped and counted
 * (unknown QPN, no GSI QP, not ready, P_Key)
 */
static __rte_noinline struct sroce_qp *
sroce_rx_qp_slow(struct sroce_eng *eng, const struct sroce_pkt *pkt, struct sroce_qp *qp)
{
	const struct sroce_dev *dev = eng->dev;

	if (pkt->dqpn == SROCE_GSI_QPN && qp == NULL) {
		eng->stats.rx_drop_gsi++;
		SROCE_DP_LOG(DEBUG, "%s: qp 0x1: no GSI QP", dev->ibdev.name);
		return NULL;
	}
	if (qp != NULL && qp->gsi && qp->in_list) {
		if ((pkt->pkey & 0x7fff) == (SROCE_DEFAULT_PKEY & 0x7fff))
			return qp;
		eng->stats.rx_drop_pkey++;
		SROCE_DP_LOG(DEBUG, "%s: qp 0x1: pkey 0x%04x", dev->ibdev.name, pkt->pkey);
		return NULL;
	}
	/* a QP in RESET or INIT exists but accepts nothing yet */
	if (qp != NULL)
		eng->stats.rx_drop_state++;
	else
		eng->stats.rx_drop_qpn++;
	SROCE_DP_LOG(DEBUG, "%s: qp 0x%x %s", dev->ibdev.name, pkt->dqpn,
		     qp != NULL ? "not ready" : "unknown");
	return NULL;
}

/*
 * A frame for a QP of engine @p to, received by @p eng: onto @p to's
 * steering ring (its next pass receives it), or dropped and counted when
 * that is full. @return 1: the frame is no longer the caller's
 */
static __rte_noinline int
sroce_rx_steer(struct sroce_eng *eng, struct sroce_eng *to, struct rte_mbuf *m)
{
	sroce_mbuf_tsan_give(m);
	if (unlikely(sroce_steer_put(to, m) != 0)) {
		eng->stats.rx_drop_steer++;
		return 0;
	}
	eng->stats.rx_steered++;
	return 1;
}

/* @return 1 when @p m was handed to another engine (not to be freed) */
static inline int
sroce_rx_one(struct sroce_eng *eng, struct rte_mbuf *m)
{
	struct sroce_dev *dev = eng->dev;
	struct sroce_pkt pkt;
	struct sroce_qp *qp;
	uint16_t flags;
	int ret, times = 1;

	if (unlikely(m->nb_segs > 1) && rte_pktmbuf_linearize(m) != 0) {
		eng->stats.rx_drop_other++;
		return 0;
	}
	ret = pv_sroce_pkt_parse(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len,
				 dev->verify_icrc, &pkt);
	if (unlikely(ret != 0)) {
		if (ret == -ENOENT)
			sroce_rx_other(eng, m);
		else if (ret == -EILSEQ)
			eng->stats.rx_drop_icrc++;
		else
			eng->stats.rx_drop_hdr++;
		return 0;
	}
	if (unlikely(pkt.dip != dev->ip_host) && !sroce_rx_dst_ok(dev, &pkt)) {
		eng->stats.rx_drop_other++;
		return 0;
	}
	/* one test for both: no tag and no vlan= (the common case) */
	if (unlikely(pkt.vlan_tci != 0 || dev->vlan_on) &&
	    sroce_rx_vlan_drop(eng, pkt.vlan_tci, pkt.l3_off != SROCE_ETH_HLEN))
		return 0;
	qp = sroce_qp_lookup(dev, pkt.dqpn);
	if (unlikely(qp == NULL) && pkt.dqpn == SROCE_GSI_QPN)
		qp = dev->gsi_qp;
	/* the QP's engine is fixed at create: its state is that engine's */
	if (unlikely(qp != NULL && qp->eng != eng))
		return sroce_rx_steer(eng, qp->eng, m);
	if (unlikely(qp == NULL || !qp->in_list || qp->gsi)) {
		qp = sroce_rx_qp_slow(eng, &pkt, qp);
		if (qp == NULL)
			return 0;
	}
	/* RC opcodes for RC QPs, UC ones for UC QPs (UD: no QP accepts them) */
	if (unlikely(SROCE_OP_TRANSPORT(pkt.opcode) != qp->transport)) {
		eng->stats.rx_drop_other++;
		return 0;
	}
	if (unlikely(sroce_rx_faulty(dev))) {
		times = sroce_rx_fault(dev) + 1;
		if (times == 0)
			return 0;
	}
	eng->stats.rx_pkts++;
	flags = pv_sroce_opcode_info[pkt.opcode].flags;
	while (times-- > 0) {
		if (flags & SROCE_OPF_REQ)
			qp->fp_resp_rx(qp, &pkt);
		else
			pv_sroce_comp_rx(qp, &pkt);
	}
	return 0;
}

/* RX random faults of a burst: consumed frames become NULL in @p pkts */
static __rte_noinline void
sroce_rx_fault_burst(struct sroce_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t now = rte_rdtsc();
	uint16_t i;

	for (i = 0; i < n; i++)
		if (sroce_fault_apply(dev, SROCE_FAULT_RX, pkts[i], now))
			pkts[i] = NULL;
}

/* receive a burst; the frames kept (not steered elsewhere) are freed */
static inline void
sroce_rx_burst(struct sroce_eng *eng, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (i + 1 < n && pkts[i + 1] != NULL)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (pkts[i] != NULL && sroce_rx_one(eng, pkts[i]))
			pkts[i] = NULL;
	}
	if (n > 0)
		sroce_mbuf_free_bulk(pkts, n);	/* skips the NULLs */
}

/* process the received frames held by fault injection that are due */
static __rte_noinline int
sroce_rx_held(struct sroce_eng *eng)
{
	struct rte_mbuf *rel[PV_SROCE_FAULT_HOLD];
	uint32_t n;

	n = sroce_fault_release(&eng->dev->fault_q[SROCE_FAULT_RX], rte_rdtsc(), rel,
				RTE_DIM(rel));
	sroce_rx_burst(eng, rel, (uint16_t)n);
	return n;
}

/*
 * Receive the frames sent to our own addresses (pv_sroce_neigh_tx() queued
 * them) like frames from the port: parsed, ICRC checked (icrc=1) and
 * dispatched, as rxe_loopback() hands them to rxe_rcv(). Only the frames
 * queued before this pass: the ACKs and responses they cause go out in the
 * next one, so that no pass loops for ever. @return frames received
 */
static __rte_noinline int
sroce_lo_rx(struct sroce_eng *eng)
{
	uint16_t tail = eng->lo_tail, n = 0;

	while (eng->lo_head != tail) {
		struct rte_mbuf *m = eng->lo_ring[eng->lo_head];

		eng->lo_head = (eng->lo_head + 1) & (SROCE_LO_RING - 1);
		if (!sroce_rx_one(eng, m))
			sroce_mbuf_free(m);
		n++;
	}
	eng->stats.lo_pkts += n;
	return n;
}

/* the frames other engines received for our QPs */
static __rte_noinline int
sroce_steer_rx(struct sroce_eng *eng)
{
	struct rte_mbuf *pkts[SROCE_RX_BURST];
	uint16_t n, i;

	n = (uint16_t)sroce_steer_take(eng, pkts, SROCE_RX_BURST);
	for (i = 0; i < n; i++)
		sroce_mbuf_tsan_take(pkts[i]);
	sroce_rx_burst(eng, pkts, n);
	return n;
}

/*
 * The ACK and the answer in one burst: a pass that completed an RC receive
 * leaves its frames (that receive's ACK) in the TX ring, once. The
 * application usually answers as soon as it sees the completion; its
 * post_send then flushes the ACK and the answer together: one memif
 * descriptor batch and one ring update for the peer to see instead of two,
 * and the peer takes both in one RX burst. Otherwise the next pass flushes
 * them, whatever it finds (the progress thread looks again within
 * SROCE_BG_BUSY_US while frames wait).
 */
static inline int
sroce_tx_hold(struct sroce_eng *eng)
{
	int hold = eng->rx_cqe && !eng->tx_held && likely(!eng->dev->tx_hook) &&
		   likely(eng->dev->fault_q[SROCE_FAULT_TX].n == 0);

	eng->tx_held = hold;
	return hold;
}

int
pv_sroce_eng_progress(struct sroce_eng *eng)
{
	struct sroce_dev *dev = eng->dev;
	struct rte_mbuf *pkts[SROCE_RX_BURST];
	uint16_t n;
	uint32_t q;
	uint64_t now;
	int work;

	if (unlikely(eng->in_progress))
		return 0;
	eng->in_progress = 1;
	if (unlikely(dev->fault_q[SROCE_FAULT_RX].n != 0))
		work = sroce_rx_held(eng);
	else
		work = 0;
	if (unlikely(eng->lo_head != eng->lo_tail))
		work += sroce_lo_rx(eng);
	if (eng->steer != NULL && sroce_steer_pending(eng))
		work += sroce_steer_rx(eng);
	n = rte_eth_rx_burst(dev->port_id, eng->queue_id, pkts, SROCE_RX_BURST);
#ifdef __SANITIZE_THREAD__
	for (uint16_t i = 0; i < n; i++)
		sroce_mbuf_tsan_take(pkts[i]);
#endif
	work += n;
	if (unlikely(dev->pcapng != NULL) && n > 0)
		pv_sroce_pcap_burst(dev, pkts, n, RTE_PCAPNG_DIRECTION_IN);
	if (unlikely(dev->fault_rx_on) && n > 0)
		sroce_rx_fault_burst(dev, pkts, n);
	sroce_rx_burst(eng, pkts, n);
	now = rte_rdtsc();
	if (unlikely(now >= __atomic_load_n(&dev->neigh_next_tsc, __ATOMIC_RELAXED)) &&
	    eng->queue_id == 0)
		work += pv_sroce_neigh_timers(eng, now);
	for (q = 0; q < eng->nb_qps; q++) {
		struct sroce_qp *qp = eng->qps[q];

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
	if (eng->tx_head != eng->tx_tail || unlikely(dev->fault_q[SROCE_FAULT_TX].n != 0)) {
		if (sroce_tx_hold(eng))
			work++;
		else
			pv_sroce_tx_flush(eng);
	}
	eng->rx_cqe = 0;
	eng->in_progress = 0;
	return work;
}

int
pv_sroce_progress(struct pv_context *context)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	int work = 0;
	uint16_t e;

	if (!dev->mt) {
		sroce_owner_check(&dev->eng[0]);
		return pv_sroce_eng_progress(&dev->eng[0]);
	}
	for (e = 0; e < dev->nb_eng; e++) {
		struct sroce_eng *eng = &dev->eng[e];

		pv_rtc_spin_lock(&eng->lock);
		sroce_app_progressed(eng);
		work += pv_sroce_eng_progress(eng);
		pv_rtc_spin_unlock(&eng->lock);
	}
	return work;
}
