/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * ARP (RFC 826) for a softroce port: answer requests for our address, learn
 * senders that talk to us, and resolve a peer at modify_qp(RTR) time by
 * polling the port (the control path may block; it runs the device's
 * progress meanwhile, so the peer's own ARP requests are answered too).
 */

#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

static struct sroce_arp_ent *
sroce_arp_find(struct sroce_dev *dev, uint32_t ip)
{
	uint32_t i;

	for (i = 0; i < SROCE_ARP_CACHE; i++)
		if (dev->arp[i].valid && dev->arp[i].ip == ip)
			return &dev->arp[i];
	return NULL;
}

void
pv_sroce_arp_learn(struct sroce_dev *dev, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct sroce_arp_ent *e = sroce_arp_find(dev, ip);

	if (e == NULL) {
		e = &dev->arp[dev->arp_next];
		dev->arp_next = (dev->arp_next + 1) % SROCE_ARP_CACHE;
	}
	e->ip = ip;
	e->mac = *mac;
	e->valid = 1;
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
	m = rte_pktmbuf_alloc(dev->mp);
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
	/* the sender talks to us: remember it (saves its own resolution) */
	pv_sroce_arp_learn(dev, arp->arp_data.arp_sip, &arp->arp_data.arp_sha);
	if (op == RTE_ARP_OP_REQUEST)
		(void)sroce_arp_send(dev, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha,
				     arp->arp_data.arp_sip);
}

int
pv_sroce_arp_resolve(struct sroce_dev *dev, uint32_t ip, struct rte_ether_addr *mac_p)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t now = rte_rdtsc(), deadline = now + hz / 1000 * dev->arp_timeout_ms;
	uint64_t next_req = now;
	struct sroce_arp_ent *e;

	for (;;) {
		e = sroce_arp_find(dev, ip);
		if (e != NULL) {
			*mac_p = e->mac;
			return 0;
		}
		now = rte_rdtsc();
		if (now >= deadline)
			break;
		if (now >= next_req) {
			if (sroce_arp_send(dev, RTE_ARP_OP_REQUEST, NULL, ip) == 0)
				pv_sroce_tx_flush(dev);
			next_req = now + hz / 10;	/* every 100 ms */
		}
		if (pv_sroce_dev_progress(dev) == 0)
			rte_delay_us_sleep(50);
	}
	SROCE_LOG(ERR, "%s: no ARP answer for %u.%u.%u.%u in %u ms (is the peer polling?)",
		  dev->ibdev.name, ((uint8_t *)&ip)[0], ((uint8_t *)&ip)[1],
		  ((uint8_t *)&ip)[2], ((uint8_t *)&ip)[3], dev->arp_timeout_ms);
	return -ETIMEDOUT;
}
