/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of softroce's neighbour layer (sroce_arp.c) for IPv6: neighbour
 * solicitations answered, resolution by solicitation and advertisement, the
 * queue bound and failure aging of the shared table, loopback hand-over, and
 * the 802.1Q tag on the frames it builds. Frames are built and checked here
 * byte by byte, ICMPv6 checksums with an independent sum (RFC 1071).
 */

#include "sroce_arp.c"

#include <arpa/inet.h>
#include <stdlib.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "ut_common.h"
#include "ut_sroce_unit.h"

static struct sroce_dev *dev;
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static uint8_t peer_ll[16], our_ll[16], our_g[16];

static void
gid6(const char *s, uint8_t *out)
{
	RTE_VERIFY(inet_pton(AF_INET6, s, out) == 1);
}

static void
tx_free_all(void)
{
	while (dev->eng[0].tx_head != dev->eng[0].tx_tail) {
		rte_pktmbuf_free(dev->eng[0].tx_ring[dev->eng[0].tx_head]);
		dev->eng[0].tx_head = (dev->eng[0].tx_head + 1) & (SROCE_TX_RING - 1);
	}
}

static void
dev_reset(void)
{
	static const uint8_t mac[6] = { 0x02, 0x50, 10, 0, 0, 1 };

	tx_free_all();
	pv_sroce_neigh_fini(dev);
	memset(dev->neigh, 0, sizeof(dev->neigh));
	memcpy(dev->mac.addr_bytes, mac, 6);
	dev->ip = inet_addr("10.0.0.1");
	gid6("fe80::50:aff:fe00:1", our_ll);
	gid6("2001:db8::1", our_g);
	gid6("fe80::5054:ff:fe12:3456", peer_ll);
	memcpy(dev->gid[SROCE_GID_LL].raw, our_ll, 16);
	gid6("::ffff:10.0.0.1", dev->gid[SROCE_GID_IPV4].raw);
	memcpy(dev->gid[2].raw, our_g, 16);
	dev->nb_gid = 3;
	dev->vlan_on = 0;
	dev->vlan_tci = 0;
	dev->arp_timeout_ms = 1000;
	dev->neigh_next_tsc = UINT64_MAX;
	memset(&dev->eng[0].stats, 0, sizeof(dev->eng[0].stats));
}

/* RFC 1071 sum over the pseudo-header and the message: 0xffff when right */
static uint16_t
ref_sum(const uint8_t *ip6, const uint8_t *msg, uint32_t len)
{
	uint8_t ph[40 + 2048];
	uint64_t sum = 0;
	uint32_t i, n = 40 + len;

	memcpy(ph, ip6 + 8, 32);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = 58;
	memcpy(ph + 40, msg, len);
	if (n & 1)
		ph[n++] = 0;
	for (i = 0; i < n; i += 2)
		sum += (uint32_t)ph[i] << 8 | ph[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * An NDP frame from the peer: @p type to @p dst (Ethernet @p dmac), target
 * @p target, with a link-layer option of @p opt_type (0: none), hop limit
 * @p hl; its checksum made right, then xored with @p csum_xor.
 */
static struct rte_mbuf *
nd_frame(uint8_t type, const uint8_t *src, const uint8_t *dst, const uint8_t *target,
	 uint8_t opt_type, uint8_t hl, uint16_t csum_xor, int vlan_tci)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->mp);
	uint32_t l3 = vlan_tci >= 0 ? 18 : 14, len = 24 + (opt_type ? 8 : 0);
	uint8_t *p, *ip, *icmp;
	uint16_t sum;

	RTE_VERIFY(m != NULL);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, l3 + 40 + len);
	p[0] = 0x33;
	p[1] = 0x33;
	memcpy(p + 2, dst + 12, 4);
	memcpy(p + 6, peer_mac, 6);
	if (vlan_tci >= 0) {
		p[12] = 0x81;
		p[14] = (uint8_t)(vlan_tci >> 8);
		p[15] = (uint8_t)vlan_tci;
	}
	p[l3 - 2] = 0x86;
	p[l3 - 1] = 0xdd;
	ip = p + l3;
	ip[0] = 0x60;
	ip[5] = (uint8_t)len;
	ip[6] = 58;
	ip[7] = hl;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	icmp = ip + 40;
	icmp[0] = type;
	if (type == 136)
		icmp[4] = 0x60;
	memcpy(icmp + 8, target, 16);
	if (opt_type) {
		icmp[24] = opt_type;
		icmp[25] = 1;
		memcpy(icmp + 26, peer_mac, 6);
	}
	sum = (uint16_t)~ref_sum(ip, icmp, len) ^ csum_xor;
	icmp[2] = sum >> 8;
	icmp[3] = sum & 0xff;
	m->data_len = (uint16_t)(l3 + 40 + len);
	m->pkt_len = m->data_len;
	return m;
}

static struct rte_mbuf *
tx_take(void)
{
	struct rte_mbuf *m;

	CU_ASSERT_NOT_EQUAL_FATAL(dev->eng[0].tx_head, dev->eng[0].tx_tail);
	m = dev->eng[0].tx_ring[dev->eng[0].tx_head];
	dev->eng[0].tx_head = (dev->eng[0].tx_head + 1) & (SROCE_TX_RING - 1);
	return m;
}

static int
tx_count(void)
{
	return (dev->eng[0].tx_tail - dev->eng[0].tx_head) & (SROCE_TX_RING - 1);
}

/* a RoCE-looking IPv6 frame to @p dst with a zero destination MAC */
static struct rte_mbuf *
v6_frame(const uint8_t *dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->mp);
	uint8_t *p;

	RTE_VERIFY(m != NULL);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, 100);
	p[12] = 0x86;
	p[13] = 0xdd;
	p[14] = 0x60;
	p[20] = 17;
	memcpy(p + 14 + 8, our_ll, 16);
	memcpy(p + 14 + 24, dst, 16);
	m->data_len = 100;
	m->pkt_len = 100;
	return m;
}

static void
test_ns_answered(void)
{
	uint8_t sn[16];
	struct rte_mbuf *m, *na;
	const uint8_t *p, *ip, *icmp;

	dev_reset();
	gid6("ff02::1:ff00:1", sn);
	m = nd_frame(135, peer_ll, sn, our_g, 1, 255, 0, -1);
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.ndp_rx, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.ndp_tx, 1);
	CU_ASSERT_EQUAL_FATAL(tx_count(), 1);
	na = tx_take();
	p = rte_pktmbuf_mtod(na, const uint8_t *);
	ip = p + 14;
	icmp = ip + 40;
	CU_ASSERT_EQUAL(memcmp(p, peer_mac, 6), 0);
	CU_ASSERT_EQUAL(memcmp(p + 6, dev->mac.addr_bytes, 6), 0);
	CU_ASSERT_EQUAL(p[12] << 8 | p[13], 0x86dd);
	CU_ASSERT_EQUAL(ip[0], 0x60);
	CU_ASSERT_EQUAL(ip[4] << 8 | ip[5], 32);
	CU_ASSERT_EQUAL(ip[6], 58);
	CU_ASSERT_EQUAL(ip[7], 255);
	CU_ASSERT_EQUAL(memcmp(ip + 8, our_g, 16), 0);		/* from the target */
	CU_ASSERT_EQUAL(memcmp(ip + 24, peer_ll, 16), 0);	/* to the solicitor */
	CU_ASSERT_EQUAL(icmp[0], 136);
	CU_ASSERT_EQUAL(icmp[1], 0);
	CU_ASSERT_EQUAL(icmp[4], 0x60);				/* solicited, override */
	CU_ASSERT_EQUAL(memcmp(icmp + 8, our_g, 16), 0);
	CU_ASSERT_EQUAL(icmp[24], 2);				/* target link-layer */
	CU_ASSERT_EQUAL(icmp[25], 1);
	CU_ASSERT_EQUAL(memcmp(icmp + 26, dev->mac.addr_bytes, 6), 0);
	CU_ASSERT_EQUAL(ref_sum(ip, icmp, 32), 0xffff);
	rte_pktmbuf_free(na);
	/* the solicitor was learned from its source link-layer option */
	CU_ASSERT_PTR_NOT_NULL_FATAL(sroce_neigh_find(dev, peer_ll));
	CU_ASSERT_EQUAL(sroce_neigh_find(dev, peer_ll)->state, SROCE_NEIGH_REACHABLE);
	CU_ASSERT_EQUAL(memcmp(sroce_neigh_find(dev, peer_ll)->mac.addr_bytes, peer_mac, 6), 0);
}

static void
test_ns_ignored_or_dropped(void)
{
	uint8_t other[16], sn[16];
	struct rte_mbuf *m;

	dev_reset();
	gid6("ff02::1:ff00:1", sn);
	gid6("2001:db8::77", other);
	/* not our address: no answer, not an error */
	m = nd_frame(135, peer_ll, sn, other, 1, 255, 0, -1);
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(tx_count(), 0);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_other, 0);
	/* bad checksum, hop limit not 255: dropped and counted */
	m = nd_frame(135, peer_ll, sn, our_g, 1, 255, 0x0100, -1);
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	m = nd_frame(135, peer_ll, sn, our_g, 1, 254, 0, -1);
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(tx_count(), 0);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_other, 2);
	CU_ASSERT_PTR_NULL(sroce_neigh_find(dev, peer_ll));
	/* truncated: shorter than its own header */
	m = nd_frame(135, peer_ll, sn, our_g, 1, 255, 0, -1);
	m->data_len = 14 + 40 + 10;
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_other, 3);
}

static void
test_resolve_by_ns_na(void)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *ns;
	const uint8_t *p, *ip, *icmp;
	uint8_t sn[16];

	dev_reset();
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, peer_ll, &mac), -EAGAIN);
	CU_ASSERT(rte_is_zero_ether_addr(&mac));
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_pending, 1);
	/* the solicitation: to the solicited-node group of the target */
	CU_ASSERT_EQUAL_FATAL(tx_count(), 1);
	ns = tx_take();
	p = rte_pktmbuf_mtod(ns, const uint8_t *);
	ip = p + 14;
	icmp = ip + 40;
	CU_ASSERT_EQUAL(p[0], 0x33);
	CU_ASSERT_EQUAL(p[1], 0x33);
	CU_ASSERT_EQUAL(p[2], 0xff);
	CU_ASSERT_EQUAL(memcmp(p + 3, peer_ll + 13, 3), 0);
	gid6("ff02::1:ff12:3456", sn);
	CU_ASSERT_EQUAL(memcmp(ip + 24, sn, 16), 0);
	CU_ASSERT_EQUAL(memcmp(ip + 8, our_ll, 16), 0);
	CU_ASSERT_EQUAL(ip[7], 255);
	CU_ASSERT_EQUAL(icmp[0], 135);
	CU_ASSERT_EQUAL(memcmp(icmp + 8, peer_ll, 16), 0);
	CU_ASSERT_EQUAL(icmp[24], 1);				/* source link-layer */
	CU_ASSERT_EQUAL(memcmp(icmp + 26, dev->mac.addr_bytes, 6), 0);
	CU_ASSERT_EQUAL(ref_sum(ip, icmp, 32), 0xffff);
	rte_pktmbuf_free(ns);
	/* a frame for it waits */
	pv_sroce_neigh_tx(&dev->eng[0], v6_frame(peer_ll));
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_queued, 1);
	CU_ASSERT_EQUAL(tx_count(), 0);
	/* the advertisement: learned, the frame leaves with its MAC */
	m = nd_frame(136, peer_ll, our_ll, peer_ll, 2, 255, 0, -1);
	pv_sroce_ndp_rx(&dev->eng[0], m, 14);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_resolved, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_pending, 0);
	CU_ASSERT_EQUAL_FATAL(tx_count(), 1);
	m = tx_take();
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(m, uint8_t *), peer_mac, 6), 0);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, peer_ll, &mac), 0);
	CU_ASSERT_EQUAL(memcmp(mac.addr_bytes, peer_mac, 6), 0);
}

static void
test_queue_bound_and_failure(void)
{
	struct rte_ether_addr mac;
	struct sroce_neigh *n;
	uint32_t i;

	dev_reset();
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, peer_ll, &mac), -EAGAIN);
	tx_free_all();
	for (i = 0; i < SROCE_NEIGH_QLEN + 3; i++)
		pv_sroce_neigh_tx(&dev->eng[0], v6_frame(peer_ll));
	n = sroce_neigh_find(dev, peer_ll);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nq, SROCE_NEIGH_QLEN);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_drops, 3);
	/* retried every SROCE_NEIGH_RETRANS_MS ... */
	pv_sroce_neigh_timers(&dev->eng[0], n->resolve_tsc + sroce_ms_tsc(SROCE_NEIGH_RETRANS_MS));
	CU_ASSERT_EQUAL(n->probes, 2);
	CU_ASSERT_EQUAL(tx_count(), 1);
	tx_free_all();
	/* ... and failed after arp_timeout_ms: queued frames dropped */
	pv_sroce_neigh_timers(&dev->eng[0], n->resolve_tsc + sroce_ms_tsc(dev->arp_timeout_ms));
	CU_ASSERT_EQUAL(n->state, SROCE_NEIGH_FAILED);
	CU_ASSERT_EQUAL(n->nq, 0);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_failed, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_drops, 3 + SROCE_NEIGH_QLEN);
	CU_ASSERT_EQUAL(dev->eng[0].stats.neigh_pending, 0);
	/* the next frame starts a new resolution */
	pv_sroce_neigh_tx(&dev->eng[0], v6_frame(peer_ll));
	CU_ASSERT_EQUAL(n->state, SROCE_NEIGH_INCOMPLETE);
	CU_ASSERT_EQUAL(tx_count(), 1);
}

static void
test_multicast_and_loopback(void)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint8_t mc[16];

	dev_reset();
	gid6("ff0e::1:2:3", mc);
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, mc, &mac), 0);
	CU_ASSERT_EQUAL(mac.addr_bytes[0], 0x33);
	CU_ASSERT_EQUAL(mac.addr_bytes[1], 0x33);
	CU_ASSERT_EQUAL(memcmp(&mac.addr_bytes[2], mc + 12, 4), 0);
	CU_ASSERT_EQUAL(tx_count(), 0);
	/* our own address: nothing resolved, frames go to the loopback ring */
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, our_g, &mac), 0);
	CU_ASSERT(rte_is_zero_ether_addr(&mac));
	CU_ASSERT_EQUAL(tx_count(), 0);
	m = v6_frame(our_g);
	pv_sroce_neigh_tx(&dev->eng[0], m);
	CU_ASSERT_EQUAL(tx_count(), 0);
	CU_ASSERT_EQUAL((dev->eng[0].lo_tail - dev->eng[0].lo_head) & (SROCE_LO_RING - 1), 1);
	CU_ASSERT_PTR_EQUAL(dev->eng[0].lo_ring[dev->eng[0].lo_head], m);
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(m, uint8_t *), dev->mac.addr_bytes, 6), 0);
	/* a peer claiming our address is not learned */
	pv_sroce_neigh_learn(&dev->eng[0], our_g, (const struct rte_ether_addr *)peer_mac);
	CU_ASSERT_PTR_NULL(sroce_neigh_find(dev, our_g));
	pv_sroce_neigh_fini(dev);
	CU_ASSERT_EQUAL(dev->eng[0].lo_head, dev->eng[0].lo_tail);
}

/* vlan=: solicitations, advertisements and ARP carry the tag */
static void
test_vlan_tagged_nd(void)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	const uint8_t *p;
	uint8_t sn[16], v4[16];

	dev_reset();
	dev->vlan_on = 1;
	dev->vid = 42;
	dev->vlan_tci = 3 << 13 | 42;
	gid6("ff02::1:ff00:1", sn);
	m = nd_frame(135, peer_ll, sn, our_g, 1, 255, 0, 3 << 13 | 42);
	pv_sroce_ndp_rx(&dev->eng[0], m, 18);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL_FATAL(tx_count(), 1);
	m = tx_take();
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	CU_ASSERT_EQUAL(p[12] << 8 | p[13], 0x8100);
	CU_ASSERT_EQUAL(p[14] << 8 | p[15], 3 << 13 | 42);
	CU_ASSERT_EQUAL(p[16] << 8 | p[17], 0x86dd);
	CU_ASSERT_EQUAL(p[18 + 40], 136);
	CU_ASSERT_EQUAL(ref_sum(p + 18, p + 58, 32), 0xffff);
	rte_pktmbuf_free(m);
	gid6("::ffff:10.0.0.9", v4);
	CU_ASSERT_EQUAL(pv_sroce_neigh_lookup(dev, v4, &mac), -EAGAIN);
	CU_ASSERT_EQUAL_FATAL(tx_count(), 1);
	m = tx_take();
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	CU_ASSERT_EQUAL(p[12] << 8 | p[13], 0x8100);
	CU_ASSERT_EQUAL(p[14] << 8 | p[15], 3 << 13 | 42);
	CU_ASSERT_EQUAL(p[16] << 8 | p[17], 0x0806);
	CU_ASSERT_EQUAL(memcmp(p + 18 + 24, v4 + 12, 4), 0);	/* target IP */
	CU_ASSERT(m->data_len >= 60);
	rte_pktmbuf_free(m);
}

static const struct ut_case ut_sroce_arp_cases[] = {
	{ "ns_answered", test_ns_answered, NULL },
	{ "ns_ignored_or_dropped", test_ns_ignored_or_dropped, NULL },
	{ "resolve_by_ns_na", test_resolve_by_ns_na, NULL },
	{ "queue_bound_and_failure", test_queue_bound_and_failure, NULL },
	{ "multicast_and_loopback", test_multicast_and_loopback, NULL },
	{ "vlan_tagged_nd", test_vlan_tagged_nd, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite ut_sroce_arp_suite = {
	.name = "sroce_arp",
	.cases = ut_sroce_arp_cases,
};

int
main(void)
{
	int fails, rc;

	dev = ut_eal_dev_init("ut_sroce_arp", &rc);
	if (dev == NULL)
		return rc;
	TAILQ_INIT(&dev->ahs);
	fails = ut_cunit_run_one(&ut_sroce_arp_suite);
	tx_free_all();
	pv_sroce_neigh_fini(dev);
	rte_mempool_free(dev->mp);
	pv_sroce_tables_fini(dev);
	free(dev);
	rte_eal_cleanup();
	return fails;
}
