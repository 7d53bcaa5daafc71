/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The neighbour layer of a softroce port: ARP (RFC 826) for IPv4, with the
 * Linux neighbour table's states and the same non-blocking rule (ARCHITECTURE
 * decision 5: address resolution never blocks a verb):
 *
 *   INCOMPLETE  a request went out; frames to it wait in the entry's queue
 *               (SROCE_NEIGH_QLEN, as the kernel's unres_qlen: the oldest is
 *               dropped when full); requests are repeated every
 *               SROCE_NEIGH_RETRANS_MS until arp_timeout_ms, then FAILED.
 *   REACHABLE   answered; SROCE_NEIGH_REACHABLE_S later it turns STALE.
 *   STALE       still used; a request refreshes it (every REACHABLE period
 *               until answered).
 *   FAILED      queued frames dropped (counted); the next frame to it starts
 *               a new resolution. An RC QP keeps retransmitting into it and
 *               ends in its own retry timeout (RETRY_EXC_ERR), as on a NIC.
 *
 * modify_qp(RTR) and create_ah take the MAC if known and otherwise start a
 * resolution and build their header template with a zero destination MAC.
 * sroce_frame_send() sends a frame with a zero destination MAC here (one
 * predictable branch on the fast path); a reply patches the queued frames
 * and the templates of the QPs and AHs to that address. Senders that talk to
 * us (requests and replies for our address) are learned, as before.
 */

#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

#define SROCE_NEIGH_RETRANS_MS		100	/* neigh/default/retrans_time_ms: 1000 */
#define SROCE_NEIGH_REACHABLE_S		30	/* neigh/default/base_reachable_time */

static uint64_t
sroce_ms_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

static struct sroce_neigh *
sroce_neigh_find(struct sroce_dev *dev, uint32_t ip)
{
	uint32_t i;

	for (i = 0; i < SROCE_NEIGH_MAX; i++)
		if (dev->neigh[i].state != SROCE_NEIGH_FREE && dev->neigh[i].ip == ip)
			return &dev->neigh[i];
	return NULL;
}

/* build and queue an ARP frame; @return 0 or -ENOBUFS */
static int
sroce_arp_send(struct sroce_dev *dev, uint16_t op, const struct rte_ether_addr *tha,
	       uint32_t tip)
{
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;

	if (sroce_tx_space(dev) == 0)
		return -ENOBUFS;
	m = sroce_mbuf_alloc(dev->mp);
	if (m == NULL)
		return -ENOBUFS;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	arp = (struct rte_arp_hdr *)(eth + 1);
	if (op == RTE_ARP_OP_REQUEST)
		memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	else
		eth->dst_addr = *tha;
	eth->src_addr = dev->mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(op);
	arp->arp_data.arp_sha = dev->mac;
	arp->arp_data.arp_sip = dev->ip;
	if (op == RTE_ARP_OP_REQUEST)
		memset(&arp->arp_data.arp_tha, 0, RTE_ETHER_ADDR_LEN);
	else
		arp->arp_data.arp_tha = *tha;
	arp->arp_data.arp_tip = tip;
	/* 42 bytes, padded to the Ethernet minimum of 60 */
	m->data_len = RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN;
	m->pkt_len = m->data_len;
	memset((uint8_t *)(arp + 1), 0, m->data_len - sizeof(*eth) - sizeof(*arp));
	sroce_tx_enqueue(dev, m);
	dev->stats.arp_tx++;
	return 0;
}

/* Move @p n to @p state, keeping the neigh_pending gauge. */
static void
sroce_neigh_state(struct sroce_dev *dev, struct sroce_neigh *n, uint8_t state)
{
	if (n->state == SROCE_NEIGH_INCOMPLETE)
		dev->stats.neigh_pending--;
	if (state == SROCE_NEIGH_INCOMPLETE)
		dev->stats.neigh_pending++;
	n->state = state;
}

static void
sroce_neigh_timer_set(struct sroce_dev *dev, struct sroce_neigh *n, uint64_t due)
{
	n->timer_tsc = due;
	if (due < dev->neigh_next_tsc)
		dev->neigh_next_tsc = due;
}

/* Start (or restart) the resolution of @p n: INCOMPLETE, first request now. */
static void
sroce_neigh_resolve(struct sroce_dev *dev, struct sroce_neigh *n, uint64_t now)
{
	sroce_neigh_state(dev, n, SROCE_NEIGH_INCOMPLETE);
	n->probes = 1;
	n->resolve_tsc = now;
	(void)sroce_arp_send(dev, RTE_ARP_OP_REQUEST, NULL, n->ip);
	sroce_neigh_timer_set(dev, n, now + sroce_ms_tsc(SROCE_NEIGH_RETRANS_MS));
}

/*
 * A new entry for @p ip: a free one, else the least recently created one
 * that holds no frame (the table is a cache; templates keep their MAC).
 */
static struct sroce_neigh *
sroce_neigh_new(struct sroce_dev *dev, uint32_t ip)
{
	struct sroce_neigh *n = NULL;
	uint32_t i;

	for (i = 0; i < SROCE_NEIGH_MAX && n == NULL; i++)
		if (dev->neigh[i].state == SROCE_NEIGH_FREE)
			n = &dev->neigh[i];
	for (i = 0; i < SROCE_NEIGH_MAX && n == NULL; i++) {
		struct sroce_neigh *c = &dev->neigh[(dev->neigh_evict + i) % SROCE_NEIGH_MAX];

		if (c->nq == 0 && c->state != SROCE_NEIGH_INCOMPLETE) {
			n = c;
			dev->neigh_evict = (uint32_t)(c - dev->neigh + 1) % SROCE_NEIGH_MAX;
		}
	}
	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->ip = ip;
	return n;
}

/* Patch the destination MAC of the templates of the QPs and AHs to @p n->ip. */
static void
sroce_neigh_templates(struct sroce_dev *dev, const struct sroce_neigh *n)
{
	struct sroce_ah *ah;
	uint32_t q;

	for (q = 0; q < dev->nb_qps; q++) {
		struct sroce_qp *qp = dev->qps[q];

		if (qp->ibqp.qp_type != PV_QPT_UD &&
		    memcmp(qp->hdr + SROCE_ETH_HLEN + 16, &n->ip, 4) == 0)
			memcpy(qp->hdr, n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	TAILQ_FOREACH(ah, &dev->ahs, next)
		if (memcmp(ah->hdr + SROCE_ETH_HLEN + 16, &n->ip, 4) == 0)
			memcpy(ah->hdr, n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
}

/* @p n answered with @p mac: REACHABLE, templates patched, queued frames out. */
static void
sroce_neigh_confirm(struct sroce_dev *dev, struct sroce_neigh *n,
		    const struct rte_ether_addr *mac, uint64_t now)
{
	uint32_t i;

	if (n->state != SROCE_NEIGH_REACHABLE && n->state != SROCE_NEIGH_STALE)
		dev->stats.neigh_resolved++;
	if (!rte_is_same_ether_addr(&n->mac, mac) || n->state == SROCE_NEIGH_INCOMPLETE ||
	    n->state == SROCE_NEIGH_FAILED) {
		n->mac = *mac;
		sroce_neigh_state(dev, n, SROCE_NEIGH_REACHABLE);
		sroce_neigh_templates(dev, n);
	}
	sroce_neigh_state(dev, n, SROCE_NEIGH_REACHABLE);
	n->probes = 0;
	sroce_neigh_timer_set(dev, n, now + rte_get_tsc_hz() * SROCE_NEIGH_REACHABLE_S);
	for (i = 0; i < n->nq; i++) {
		struct rte_mbuf *m = n->q[i];

		if (sroce_tx_space(dev) == 0) {
			sroce_mbuf_free(m);
			dev->stats.neigh_drops++;
			continue;
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), mac->addr_bytes, RTE_ETHER_ADDR_LEN);
		sroce_tx_enqueue(dev, m);
	}
	n->nq = 0;
}

static void
sroce_neigh_flush_queue(struct sroce_dev *dev, struct sroce_neigh *n)
{
	if (n->nq == 0)
		return;
	sroce_mbuf_free_bulk(n->q, n->nq);
	dev->stats.neigh_drops += n->nq;
	n->nq = 0;
}

void
pv_sroce_arp_learn(struct sroce_dev *dev, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct sroce_neigh *n = sroce_neigh_find(dev, ip);

	if (n == NULL) {
		n = sroce_neigh_new(dev, ip);
		if (n == NULL)
			return;
	}
	sroce_neigh_confirm(dev, n, mac, rte_rdtsc());
}

void
pv_sroce_arp_rx(struct sroce_dev *dev, struct rte_mbuf *m)
{
	const struct rte_arp_hdr *arp;
	uint16_t op;

	dev->stats.arp_rx++;
	if (m->data_len < sizeof(struct rte_ether_hdr) + sizeof(*arp)) {
		dev->stats.rx_drop_other++;
		return;
	}
	arp = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *,
				      sizeof(struct rte_ether_hdr));
	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4)
		return;
	op = rte_be_to_cpu_16(arp->arp_opcode);
	if (arp->arp_data.arp_tip != dev->ip)
		return;
	if (rte_is_zero_ether_addr(&arp->arp_data.arp_sha) ||
	    !rte_is_unicast_ether_addr(&arp->arp_data.arp_sha))
		return;
	/* the sender talks to us: remember it (saves its own resolution) */
	pv_sroce_arp_learn(dev, arp->arp_data.arp_sip, &arp->arp_data.arp_sha);
	if (op == RTE_ARP_OP_REQUEST)
		(void)sroce_arp_send(dev, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha,
				     arp->arp_data.arp_sip);
}

int
pv_sroce_neigh_lookup(struct sroce_dev *dev, uint32_t ip, struct rte_ether_addr *mac_p)
{
	struct sroce_neigh *n = sroce_neigh_find(dev, ip);

	if (n != NULL && (n->state == SROCE_NEIGH_REACHABLE || n->state == SROCE_NEIGH_STALE)) {
		*mac_p = n->mac;
		return 0;
	}
	memset(mac_p, 0, sizeof(*mac_p));
	if (n == NULL) {
		n = sroce_neigh_new(dev, ip);
		if (n == NULL)
			return -ENOSPC;	/* resolved on the first frame instead */
	}
	if (n->state != SROCE_NEIGH_INCOMPLETE) {
		sroce_neigh_resolve(dev, n, rte_rdtsc());
		pv_sroce_tx_flush(dev);	/* the request leaves now, not at the next progress */
	}
	return -EAGAIN;
}

void
pv_sroce_neigh_tx(struct sroce_dev *dev, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	struct sroce_neigh *n;
	uint32_t ip;

	memcpy(&ip, p + SROCE_ETH_HLEN + 16, 4);
	n = sroce_neigh_find(dev, ip);
	if (n == NULL)
		n = sroce_neigh_new(dev, ip);
	if (n == NULL) {
		sroce_mbuf_free(m);
		dev->stats.neigh_drops++;
		return;
	}
	if (n->state == SROCE_NEIGH_REACHABLE || n->state == SROCE_NEIGH_STALE) {
		/* resolved since the template was built */
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
		sroce_tx_enqueue(dev, m);
		return;
	}
	if (n->state != SROCE_NEIGH_INCOMPLETE)
		sroce_neigh_resolve(dev, n, rte_rdtsc());
	if (n->nq == SROCE_NEIGH_QLEN) {
		/* the kernel drops the oldest (__neigh_event_send) */
		sroce_mbuf_free(n->q[0]);
		memmove(&n->q[0], &n->q[1], (SROCE_NEIGH_QLEN - 1) * sizeof(n->q[0]));
		n->nq--;
		dev->stats.neigh_drops++;
	}
	n->q[n->nq++] = m;
	dev->stats.neigh_queued++;
}

int
pv_sroce_neigh_timers(struct sroce_dev *dev, uint64_t now)
{
	uint64_t retrans = sroce_ms_tsc(SROCE_NEIGH_RETRANS_MS);
	uint64_t give_up = sroce_ms_tsc(dev->arp_timeout_ms);
	uint32_t i;
	int work = 0;

	dev->neigh_next_tsc = UINT64_MAX;
	for (i = 0; i < SROCE_NEIGH_MAX; i++) {
		struct sroce_neigh *n = &dev->neigh[i];

		if (n->state == SROCE_NEIGH_FREE || n->state == SROCE_NEIGH_FAILED)
			continue;
		if (now < n->timer_tsc) {
			sroce_neigh_timer_set(dev, n, n->timer_tsc);
			continue;
		}
		work++;
		switch (n->state) {
		case SROCE_NEIGH_INCOMPLETE:
			if (now - n->resolve_tsc >= give_up) {
				sroce_neigh_state(dev, n, SROCE_NEIGH_FAILED);
				dev->stats.neigh_failed++;
				sroce_neigh_flush_queue(dev, n);
				SROCE_DP_LOG(NOTICE, "%s: no ARP answer for %u.%u.%u.%u in %u ms",
					     dev->ibdev.name, ((uint8_t *)&n->ip)[0],
					     ((uint8_t *)&n->ip)[1], ((uint8_t *)&n->ip)[2],
					     ((uint8_t *)&n->ip)[3], dev->arp_timeout_ms);
				continue;
			}
			n->probes++;
			(void)sroce_arp_send(dev, RTE_ARP_OP_REQUEST, NULL, n->ip);
			sroce_neigh_timer_set(dev, n, now + retrans);
			break;
		case SROCE_NEIGH_REACHABLE:
		case SROCE_NEIGH_STALE:
			/* aged: keep using the MAC, ask again (a reply makes it REACHABLE) */
			sroce_neigh_state(dev, n, SROCE_NEIGH_STALE);
			(void)sroce_arp_send(dev, RTE_ARP_OP_REQUEST, NULL, n->ip);
			sroce_neigh_timer_set(dev, n, now + rte_get_tsc_hz() *
						      SROCE_NEIGH_REACHABLE_S);
			break;
		default:
			break;
		}
	}
	return work;
}

void
pv_sroce_neigh_fini(struct sroce_dev *dev)
{
	uint32_t i;

	for (i = 0; i < SROCE_NEIGH_MAX; i++)
		sroce_neigh_flush_queue(dev, &dev->neigh[i]);
}
