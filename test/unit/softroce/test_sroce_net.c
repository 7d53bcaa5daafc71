/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of softroce's frame building and receive filters (sroce_net.c
 * with sroce_fp.h): header templates of both families, with and without an
 * 802.1Q tag, built into frames, parsed back, and their ICRC recomputed
 * independently with zlib's crc32 over the annex A17.8 pseudo-header (the
 * masks of rxe_icrc.c); VLAN filtering, IPv6 destinations and the dispatch
 * to the GSI QP (QP 1) on receive.
 */

#include "sroce_net.c"

#include <arpa/inet.h>
#include <stdlib.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <zlib.h>

#include "sroce_fp.h"
#include "ut_common.h"
#include "ut_sroce_unit.h"

static struct sroce_dev *dev;
static struct sroce_qp qp;
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static void
gid6(const char *s, uint8_t *out)
{
	RTE_VERIFY(inet_pton(AF_INET6, s, out) == 1);
}

static void
dev_reset(void)
{
	static const uint8_t mac[6] = { 0x02, 0x50, 10, 0, 0, 1 };

	memcpy(dev->mac.addr_bytes, mac, 6);
	dev->ip = inet_addr("10.0.0.1");
	dev->ip_host = rte_be_to_cpu_32(dev->ip);
	gid6("fe80::50:aff:fe00:1", dev->gid[SROCE_GID_LL].raw);
	gid6("::ffff:10.0.0.1", dev->gid[SROCE_GID_IPV4].raw);
	gid6("2001:db8::1", dev->gid[2].raw);
	dev->nb_gid = 3;
	dev->vlan_on = 0;
	dev->vid = 0;
	dev->vlan_tci = 0;
	dev->l3_off = SROCE_ETH_HLEN;
	memset(&dev->eng[0].stats, 0, sizeof(dev->eng[0].stats));
	memset(&qp, 0, sizeof(qp));
	qp.dev = dev;
	qp.eng = &dev->eng[0];
}

static void
vlan_set(uint16_t vid, uint8_t pcp)
{
	dev->vlan_on = 1;
	dev->vid = vid;
	dev->vlan_tci = (uint16_t)(pcp << 13 | vid);
	dev->l3_off = SROCE_ETH_HLEN + SROCE_VLAN_HLEN;
}

/* the one frame queued on the TX ring (the caller frees it) */
static struct rte_mbuf *
tx_take(void)
{
	struct rte_mbuf *m;

	CU_ASSERT_EQUAL_FATAL((dev->eng[0].tx_tail - dev->eng[0].tx_head) & (SROCE_TX_RING - 1), 1);
	m = dev->eng[0].tx_ring[dev->eng[0].tx_head];
	dev->eng[0].tx_head = (dev->eng[0].tx_head + 1) & (SROCE_TX_RING - 1);
	return m;
}

/*
 * The ICRC of a frame, computed here from the annex: zlib crc32 of 8 bytes of
 * ones, the IP header (IPv4: TOS, TTL, checksum; IPv6: traffic class, flow
 * label, hop limit as ones), UDP (checksum ones), BTH (byte 4 ones) and the
 * rest up to the ICRC.
 */
static uint32_t
ref_icrc(const uint8_t *f, uint32_t l3, int v6, uint32_t len_without_icrc)
{
	uint8_t buf[8192];
	uint32_t iphl = v6 ? SROCE_IPV6_HLEN : SROCE_IPV4_HLEN;
	uint32_t n = len_without_icrc - l3;
	uint8_t *ip = buf + 8, *udp = ip + iphl;

	memset(buf, 0xff, 8);
	memcpy(ip, f + l3, n);
	if (v6) {
		ip[0] |= 0x0f;
		ip[1] = ip[2] = ip[3] = 0xff;
		ip[7] = 0xff;
	} else {
		ip[1] = 0xff;
		ip[8] = 0xff;
		ip[10] = ip[11] = 0xff;
	}
	udp[6] = udp[7] = 0xff;
	udp[SROCE_UDP_HLEN + 4] = 0xff;
	return (uint32_t)crc32(0, buf, 8 + n);
}

static uint32_t
wire_icrc(const uint8_t *f, uint32_t len)
{
	return (uint32_t)f[len - 4] | (uint32_t)f[len - 3] << 8 |
	       (uint32_t)f[len - 2] << 16 | (uint32_t)f[len - 1] << 24;
}

/* an RC SEND ONLY of 13 bytes from @p qp's template, parsed back */
static struct rte_mbuf *
send13(struct sroce_pkt *pkt)
{
	struct rte_mbuf *m;
	uint8_t *ext = NULL;
	int i;

	m = sroce_frame_start(&qp, SROCE_OP_RC_SEND_ONLY, 0x123456, 1, 0, 0, 13, &ext);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (i = 0; i < 13; i++)
		ext[i] = (uint8_t)(0x40 + i);
	sroce_frame_send(&dev->eng[0], m);
	m = tx_take();
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, 1, pkt),
			0);
	return m;
}

static void
test_hdr_ipv6_link_local(void)
{
	struct rte_ether_addr dmac;
	uint8_t dgid[16], *f;
	struct sroce_pkt pkt;
	struct rte_mbuf *m;

	dev_reset();
	memcpy(dmac.addr_bytes, peer_mac, 6);
	gid6("fe80::5054:ff:fe12:3456", dgid);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_LL, dgid, 0x28, 7,
					   0xc123, 0x22, &qp.path, &qp.ip_sum), 0);
	CU_ASSERT_EQUAL(qp.path.hdr_len, 14 + 40 + 8 + 12);
	CU_ASSERT_EQUAL(qp.path.l3_off, 14);
	CU_ASSERT_EQUAL(qp.path.ip6, 1);
	m = send13(&pkt);
	f = rte_pktmbuf_mtod(m, uint8_t *);
	/* Ethernet, then version 6 / traffic class 0x28 / flow label 0 (rxe) */
	CU_ASSERT_EQUAL(memcmp(f, peer_mac, 6), 0);
	CU_ASSERT_EQUAL(f[12], 0x86);
	CU_ASSERT_EQUAL(f[13], 0xdd);
	CU_ASSERT_EQUAL(f[14], 0x62);
	CU_ASSERT_EQUAL(f[15], 0x80);
	CU_ASSERT_EQUAL(f[16], 0);
	CU_ASSERT_EQUAL(f[17], 0);
	/* payload length 8 + 12 + 13 + 3 + 4, next header UDP, hop limit 7 */
	CU_ASSERT_EQUAL(f[18] << 8 | f[19], 40);
	CU_ASSERT_EQUAL(f[20], 17);
	CU_ASSERT_EQUAL(f[21], 7);
	/* UDP checksum 0, as rxe */
	CU_ASSERT_EQUAL(f[14 + 40 + 6] | f[14 + 40 + 7], 0);
	CU_ASSERT_EQUAL(m->data_len, 14 + 40 + 40);
	CU_ASSERT_EQUAL(pkt.ip_ver, 6);
	CU_ASSERT_EQUAL(pkt.tos, 0x28);
	CU_ASSERT_EQUAL(pkt.ttl, 7);
	CU_ASSERT_EQUAL(pkt.flow_label, 0);
	CU_ASSERT_EQUAL(memcmp(pkt.sip6, dev->gid[SROCE_GID_LL].raw, 16), 0);
	CU_ASSERT_EQUAL(memcmp(pkt.dip6, dgid, 16), 0);
	CU_ASSERT_EQUAL(pkt.sport, 0xc123);
	CU_ASSERT_EQUAL(pkt.dqpn, 0x22);
	CU_ASSERT_EQUAL(pkt.psn, 0x123456);
	CU_ASSERT_EQUAL(pkt.pad, 3);
	CU_ASSERT_EQUAL(pkt.payload_len, 13);
	CU_ASSERT_EQUAL(pkt.payload_off, 14 + 40 + 8 + 12);
	CU_ASSERT_EQUAL(pkt.frame_len, m->data_len);
	CU_ASSERT_EQUAL(wire_icrc(f, m->data_len), ref_icrc(f, 14, 1, m->data_len - 4));
	/* every masked field is outside the ICRC; the addresses are in it */
	f[15] ^= 0x5f;
	f[21] = 1;
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(f, m->data_len), 0);
	f[14 + 8 + 15] ^= 1;
	CU_ASSERT_EQUAL(pv_sroce_icrc_check(f, m->data_len), -EILSEQ);
	sroce_mbuf_free(m);
}

static void
test_hdr_ipv6_global_ud(void)
{
	struct rte_ether_addr dmac;
	struct sroce_ah ah;
	struct sroce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t dgid[16], *ext = NULL, *f;

	dev_reset();
	memset(&ah, 0, sizeof(ah));
	memcpy(dmac.addr_bytes, peer_mac, 6);
	gid6("2001:db8::2", dgid);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, ah.hdr, &dmac, 2, dgid, 0, 64, 0, 0, &ah.path,
					   &ah.ip_sum), 0);
	qp.ud_sport = 0xd00d;
	m = sroce_frame_start_ud(&qp, &ah, 0x33, SROCE_OP_UD_SEND_ONLY, 5, 0, 0, SROCE_DETH_LEN, 8,
				 &ext);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(ext, 0, SROCE_DETH_LEN + 8);
	sroce_frame_send(&dev->eng[0], m);
	m = tx_take();
	f = rte_pktmbuf_mtod(m, uint8_t *);
	CU_ASSERT_EQUAL(pv_sroce_pkt_parse(f, m->data_len, 1, &pkt), 0);
	CU_ASSERT_EQUAL(pkt.ip_ver, 6);
	CU_ASSERT_EQUAL(pkt.sport, 0xd00d);
	CU_ASSERT_EQUAL(pkt.dqpn, 0x33);
	CU_ASSERT_EQUAL(pkt.payload_len, 8);
	CU_ASSERT_EQUAL(memcmp(pkt.sip6, dev->gid[2].raw, 16), 0);
	CU_ASSERT_EQUAL(wire_icrc(f, m->data_len), ref_icrc(f, 14, 1, m->data_len - 4));
	sroce_mbuf_free(m);
}

static void
test_hdr_family_checks(void)
{
	struct rte_ether_addr dmac = { { 0 } };
	uint8_t v6[16], v4[16];

	dev_reset();
	gid6("fe80::1", v6);
	gid6("::ffff:10.0.0.2", v4);
	/* sgid and dgid families must agree, and the sgid must exist */
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_IPV4, v6, 0, 64, 1, 1,
					   &qp.path, &qp.ip_sum), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_LL, v4, 0, 64, 1, 1,
					   &qp.path, &qp.ip_sum), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, 3, v6, 0, 64, 1, 1, &qp.path,
					   &qp.ip_sum), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_IPV4, v4, 0, 64, 1, 1,
					   &qp.path, &qp.ip_sum), 0);
	CU_ASSERT_EQUAL(qp.path.hdr_len, SROCE_HDR_TMPL_LEN);
	CU_ASSERT_EQUAL(qp.path.ip6, 0);
}

/* vlan=100,pcp=5: every frame tagged, IPv4 and IPv6 alike */
static void
test_vlan_tx_tag(void)
{
	struct rte_ether_addr dmac;
	struct sroce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t dgid[16], *f;
	int fam;

	for (fam = 0; fam < 2; fam++) {
		dev_reset();
		vlan_set(100, 5);
		memcpy(dmac.addr_bytes, peer_mac, 6);
		gid6(fam ? "fe80::2" : "::ffff:10.0.0.2", dgid);
		CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac,
						   fam ? SROCE_GID_LL : SROCE_GID_IPV4, dgid, 0,
						   64, 0xc000, 0x22, &qp.path, &qp.ip_sum), 0);
		CU_ASSERT_EQUAL(qp.path.l3_off, 18);
		m = send13(&pkt);
		f = rte_pktmbuf_mtod(m, uint8_t *);
		CU_ASSERT_EQUAL(f[12], 0x81);
		CU_ASSERT_EQUAL(f[13], 0x00);
		CU_ASSERT_EQUAL(f[14] << 8 | f[15], 5 << 13 | 100);
		CU_ASSERT_EQUAL(f[16], fam ? 0x86 : 0x08);
		CU_ASSERT_EQUAL(f[17], fam ? 0xdd : 0x00);
		CU_ASSERT_EQUAL(pkt.vlan_tci, 5 << 13 | 100);
		CU_ASSERT_EQUAL(pkt.l3_off, 18);
		CU_ASSERT_EQUAL(pkt.payload_len, 13);
		CU_ASSERT_EQUAL(wire_icrc(f, m->data_len),
				ref_icrc(f, 18, fam, m->data_len - 4));
		sroce_mbuf_free(m);
	}
}

/* received: frames of another VLAN (or untagged) are dropped and counted */
static void
test_vlan_rx_filter(void)
{
	struct rte_ether_addr dmac;
	struct sroce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t dgid[16];

	dev_reset();
	memcpy(dmac.addr_bytes, dev->mac.addr_bytes, 6);
	/* a frame from 10.0.0.1 to itself, as a peer would send it */
	gid6("::ffff:10.0.0.1", dgid);
	vlan_set(7, 0);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_IPV4, dgid, 0, 64,
					   0xc000, 0x7777, &qp.path, &qp.ip_sum), 0);
	m = send13(&pkt);
	/* our own VLAN: accepted (then dropped for its unknown QPN) */
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_vlan, 0);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 1);
	/* another VLAN */
	dev->vid = 8;
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_vlan, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 1);
	sroce_mbuf_free(m);
	/* untagged while vlan=8 */
	dev->vlan_on = 0;
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, SROCE_GID_IPV4, dgid, 0, 64,
					   0xc000, 0x7777, &qp.path, &qp.ip_sum), 0);
	m = send13(&pkt);
	dev->vlan_on = 1;
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_vlan, 2);
	/* without vlan=: accepted as before */
	dev->vlan_on = 0;
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_vlan, 2);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 2);
	sroce_mbuf_free(m);
}

/* an IPv6 RoCE frame from GID 2 to @p dst (text) received; its counters */
static void
rx_v6_to(const char *dst)
{
	struct rte_ether_addr dmac;
	struct sroce_pkt pkt;
	struct rte_mbuf *m;
	uint8_t dgid[16];

	memcpy(dmac.addr_bytes, dev->mac.addr_bytes, 6);
	gid6(dst, dgid);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, qp.hdr, &dmac, 2, dgid, 0, 64, 0xc000, 0x7777,
					   &qp.path, &qp.ip_sum), 0);
	m = send13(&pkt);
	sroce_rx_one(&dev->eng[0], m);
	sroce_mbuf_free(m);
}

/* IPv6 RoCE frames: to one of our IPv6 GIDs accepted, to others dropped */
static void
test_rx_ipv6_destination(void)
{
	dev_reset();
	rx_v6_to("2001:db8::1");
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 1);	/* accepted, no such QP */
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_other, 0);
	rx_v6_to("fe80::50:aff:fe00:1");
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 2);
	rx_v6_to("2001:db8::99");
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_other, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 2);
}

static int gsi_rx_calls;

static void
gsi_resp_record(struct sroce_qp *q, struct sroce_pkt *pkt)
{
	CU_ASSERT_PTR_EQUAL(q, dev->gsi_qp);
	CU_ASSERT_EQUAL(pkt->dqpn, SROCE_GSI_QPN);
	gsi_rx_calls++;
}

/* a UD SEND ONLY from 10.0.0.1 to itself, to QPN @p dqpn with BTH P_Key @p pkey */
static struct rte_mbuf *
ud_frame_to(uint32_t dqpn, uint16_t pkey)
{
	struct rte_ether_addr dmac;
	struct sroce_ah ah;
	struct sroce_bth *bth;
	struct rte_mbuf *m;
	uint8_t dgid[16], *ext = NULL;

	memset(&ah, 0, sizeof(ah));
	memcpy(dmac.addr_bytes, dev->mac.addr_bytes, 6);
	gid6("::ffff:10.0.0.1", dgid);
	CU_ASSERT_EQUAL(pv_sroce_hdr_build(dev, ah.hdr, &dmac, SROCE_GID_IPV4, dgid, 0, 64, 0, 0,
					   &ah.path, &ah.ip_sum), 0);
	m = sroce_frame_start_ud(&qp, &ah, dqpn, SROCE_OP_UD_SEND_ONLY, 0, 1, 0, SROCE_DETH_LEN,
				 8, &ext);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	memset(ext, 0, SROCE_DETH_LEN + 8);
	bth = rte_pktmbuf_mtod_offset(m, struct sroce_bth *, ah.path.hdr_len - SROCE_BTH_LEN);
	bth->pkey = rte_cpu_to_be_16(pkey);
	sroce_frame_send(&dev->eng[0], m);	/* the ICRC covers the P_Key */
	return tx_take();
}

/* dispatch to QP 1: the device's GSI QP, outside the QPN table */
static void
test_rx_gsi_dispatch(void)
{
	struct rte_mbuf *m, *other, *limited, *foreign;
	struct sroce_qp gsi;

	dev_reset();
	gsi_rx_calls = 0;
	m = ud_frame_to(SROCE_GSI_QPN, 0xffff);
	other = ud_frame_to(2, 0xffff);
	limited = ud_frame_to(SROCE_GSI_QPN, 0x7fff);
	foreign = ud_frame_to(SROCE_GSI_QPN, 0x8001);
	/* no GSI QP: dropped and counted apart from unknown QPNs */
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_gsi, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 0);
	sroce_rx_one(&dev->eng[0], other);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_gsi, 1);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 1);
	/* a GSI QP in RESET or INIT (not progressed) accepts nothing yet */
	memset(&gsi, 0, sizeof(gsi));
	gsi.dev = dev;
	gsi.eng = &dev->eng[0];
	gsi.gsi = 1;
	gsi.transport = SROCE_OP_UD;
	gsi.fp_resp_rx = gsi_resp_record;
	dev->gsi_qp = &gsi;
	sroce_rx_one(&dev->eng[0], m);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_state, 1);
	CU_ASSERT_EQUAL(gsi_rx_calls, 0);
	/* ready: the default partition, full or limited member, gets through */
	gsi.in_list = 1;
	sroce_rx_one(&dev->eng[0], m);
	sroce_rx_one(&dev->eng[0], limited);
	CU_ASSERT_EQUAL(gsi_rx_calls, 2);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_pkts, 2);
	sroce_rx_one(&dev->eng[0], foreign);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_pkey, 1);
	CU_ASSERT_EQUAL(gsi_rx_calls, 2);
	/* QPN 2 is still nobody's */
	sroce_rx_one(&dev->eng[0], other);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_qpn, 2);
	CU_ASSERT_EQUAL(dev->eng[0].stats.rx_drop_gsi, 1);
	dev->gsi_qp = NULL;
	sroce_mbuf_free(m);
	sroce_mbuf_free(other);
	sroce_mbuf_free(limited);
	sroce_mbuf_free(foreign);
}

static const struct ut_case ut_sroce_net_cases[] = {
	{ "hdr_ipv6_link_local", test_hdr_ipv6_link_local, NULL },
	{ "hdr_ipv6_global_ud", test_hdr_ipv6_global_ud, NULL },
	{ "hdr_family_checks", test_hdr_family_checks, NULL },
	{ "vlan_tx_tag", test_vlan_tx_tag, NULL },
	{ "vlan_rx_filter", test_vlan_rx_filter, NULL },
	{ "rx_ipv6_destination", test_rx_ipv6_destination, NULL },
	{ "rx_gsi_dispatch", test_rx_gsi_dispatch, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite ut_sroce_net_suite = {
	.name = "sroce_net",
	.cases = ut_sroce_net_cases,
};

int
main(void)
{
	int fails, rc;

	dev = ut_eal_dev_init("ut_sroce_net", &rc);
	if (dev == NULL)
		return rc;
	dev->arp_timeout_ms = 1000;
	dev->neigh_next_tsc = UINT64_MAX;
	TAILQ_INIT(&dev->ahs);
	fails = ut_cunit_run_one(&ut_sroce_net_suite);
	rte_mempool_free(dev->mp);
	pv_sroce_tables_fini(dev);
	free(dev);
	rte_eal_cleanup();
	return fails;
}
