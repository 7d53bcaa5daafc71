/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The neighbour layer of a softroce port: ARP (RFC 826) for IPv4, neighbour
 * discovery (RFC 4861: solicitations to the solicited-node multicast
 * address, solicited+override advertisements) for IPv6, in one table keyed
 * on 16-byte addresses (IPv4 as ::ffff:a.b.c.d), with the Linux neighbour
 * table's states and the same non-blocking rule (ARCHITECTURE decision 5:
 * address resolution never blocks a verb):
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
 *
 * Our own addresses are never resolved: their templates keep a zero MAC and
 * pv_sroce_neigh_tx() hands their frames to the loopback ring, which the
 * next RX pass receives like frames from the port (as rxe_loopback()).
 * IPv6 multicast destinations map to 33:33 + the low 32 bits (RFC 2464 7).
 * Frames we build here carry the 802.1Q tag of vlan= like RoCE frames.
 */

#include <errno.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

#define SROCE_NEIGH_RETRANS_MS		100	/* neigh/default/retrans_time_ms: 1000 */
#define SROCE_NEIGH_REACHABLE_S		30	/* neigh/default/base_reachable_time */

/* ICMPv6 (RFC 4443) neighbour discovery messages and options (RFC 4861 4.3-4.6) */
#define SROCE_IPPROTO_ICMPV6		58
#define SROCE_ND_NS			135
#define SROCE_ND_NA			136
#define SROCE_ND_OPT_SLLA		1
#define SROCE_ND_OPT_TLLA		2
#define SROCE_ND_NA_SOLICITED		0x40
#define SROCE_ND_NA_OVERRIDE		0x20
#define SROCE_ND_MSG_LEN		24	/* type, code, checksum, flags, target */
#define SROCE_ND_OPT_LL_LEN		8	/* a link-layer address option */
#define SROCE_ND_HOP_LIMIT		255	/* sent and required (RFC 4861 7.1) */

static const uint8_t sroce_v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static uint64_t
sroce_ms_tsc(uint64_t ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

static void
sroce_ip_fmt(const uint8_t ip[16], char *buf, size_t len)
{
	if (sroce_gid_is_v4(ip))
		(void)inet_ntop(AF_INET, ip + 12, buf, len);
	else
		(void)inet_ntop(AF_INET6, ip, buf, len);
}

static struct sroce_neigh *
sroce_neigh_find(struct sroce_dev *dev, const uint8_t ip[16])
{
	uint32_t i;

	for (i = 0; i < SROCE_NEIGH_MAX; i++)
		if (dev->neigh[i].state != SROCE_NEIGH_FREE &&
		    memcmp(dev->neigh[i].ip, ip, 16) == 0)
			return &dev->neigh[i];
	return NULL;
}

int
pv_sroce_addr_is_local(const struct sroce_dev *dev, const uint8_t ip[16])
{
	uint32_t i;

	for (i = 0; i < dev->nb_gid; i++)
		if (memcmp(dev->gid[i].raw, ip, 16) == 0)
			return 1;
	return 0;
}

/* one of our IPv6 addresses (GID 0 and the ip6= ones, not the IPv4-mapped) */
static int
sroce_addr6_is_local(const struct sroce_dev *dev, const uint8_t ip[16])
{
	return !sroce_gid_is_v4(ip) && pv_sroce_addr_is_local(dev, ip);
}

/*
 * A frame to @p dmac of @p ethertype: Ethernet header, the 802.1Q tag of
 * vlan=, and @p l3_len bytes after it (padded to the Ethernet minimum).
 * @return the mbuf with *l3_p at the L3 header, NULL (no TX slot or mbuf).
 */
static struct rte_mbuf *
sroce_l2_frame(struct sroce_eng *eng, const uint8_t dmac[6], uint16_t ethertype,
	       uint32_t l3_len, uint8_t **l3_p)
{
	struct sroce_dev *dev = eng->dev;
	struct rte_mbuf *m;
	uint8_t *p;
	uint32_t l3, len;

	if (sroce_tx_space(eng) == 0)
		return NULL;
	m = sroce_mbuf_alloc(dev->mp);
	if (m == NULL) {
		eng->stats.tx_nombuf++;
		return NULL;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	l3 = pv_sroce_eth_hdr_put(dev, p, dmac, ethertype);
	len = RTE_MAX(l3 + l3_len, (uint32_t)(RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN));
	memset(p + l3, 0, len - l3);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	*l3_p = p + l3;
	return m;
}

/* build and queue an ARP frame; @return 0 or -ENOBUFS */
static int
sroce_arp_send(struct sroce_eng *eng, uint16_t op, const struct rte_ether_addr *tha,
	       uint32_t tip)
{
	struct sroce_dev *dev = eng->dev;
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;
	uint8_t *l3;

	m = sroce_l2_frame(eng, op == RTE_ARP_OP_REQUEST ? bcast : tha->addr_bytes,
			   RTE_ETHER_TYPE_ARP, sizeof(*arp), &l3);
	if (m == NULL)
		return -ENOBUFS;
	arp = (struct rte_arp_hdr *)l3;
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
	sroce_tx_enqueue(eng, m);
	eng->stats.arp_tx++;
	return 0;
}

/*
 * ICMPv6 checksum (RFC 4443 2.3) of the @p len-byte message at @p icmp of
 * the IPv6 header @p ip6: over the pseudo-header (RFC 8200 8.1) and the
 * message. @return the ones' complement sum, folded and complemented: the
 * value to store, or 0 when a received message (checksum included) is right.
 */
static uint16_t
sroce_icmp6_csum(const uint8_t *ip6, const uint8_t *icmp, uint32_t len)
{
	uint32_t sum = 0, i;

	for (i = 8; i < 40; i += 2)		/* source and destination */
		sum += (uint32_t)ip6[i] << 8 | ip6[i + 1];
	sum += len >> 16;
	sum += len & 0xffff;
	sum += SROCE_IPPROTO_ICMPV6;
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)icmp[i] << 8 | icmp[i + 1];
	if (len & 1)
		sum += (uint32_t)icmp[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Build and queue a neighbour solicitation or advertisement: IPv6 from
 * @p src to @p dst (Ethernet @p dmac), hop limit 255, @p type with @p flags
 * (NA), target @p target, and our MAC as the source (NS) or target (NA)
 * link-layer address option. @return 0 or -ENOBUFS
 */
static int
sroce_ndp_send(struct sroce_eng *eng, uint8_t type, uint8_t flags, const uint8_t dmac[6],
	       const uint8_t src[16], const uint8_t dst[16], const uint8_t target[16])
{
	struct sroce_dev *dev = eng->dev;
	const uint32_t len = SROCE_ND_MSG_LEN + SROCE_ND_OPT_LL_LEN;
	struct rte_mbuf *m;
	uint8_t *ip, *icmp;
	uint16_t csum;

	m = sroce_l2_frame(eng, dmac, SROCE_ETHERTYPE_IPV6, SROCE_IPV6_HLEN + len, &ip);
	if (m == NULL)
		return -ENOBUFS;
	ip[0] = 0x60;
	ip[4] = len >> 8;
	ip[5] = len & 0xff;
	ip[6] = SROCE_IPPROTO_ICMPV6;
	ip[7] = SROCE_ND_HOP_LIMIT;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	icmp = ip + SROCE_IPV6_HLEN;
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == SROCE_ND_NS ? SROCE_ND_OPT_SLLA : SROCE_ND_OPT_TLLA;
	icmp[25] = 1;				/* in units of 8 bytes */
	memcpy(icmp + 26, dev->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	csum = sroce_icmp6_csum(ip, icmp, len);
	icmp[2] = csum >> 8;
	icmp[3] = csum & 0xff;
	sroce_tx_enqueue(eng, m);
	eng->stats.ndp_tx++;
	return 0;
}

/* a solicitation for @p target: to its solicited-node multicast address
 * ff02::1:ffXX:XXXX at 33:33:ff:XX:XX:XX (RFC 4291 2.7.1, RFC 2464 7), from
 * our link-local address */
static int
sroce_ndp_solicit(struct sroce_eng *eng, const uint8_t target[16])
{
	struct sroce_dev *dev = eng->dev;
	uint8_t dst[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t dmac[6] = { 0x33, 0x33, 0xff };

	memcpy(dst + 13, target + 13, 3);
	memcpy(dmac + 3, target + 13, 3);
	return sroce_ndp_send(eng, SROCE_ND_NS, 0, dmac, dev->gid[SROCE_GID_LL].raw, dst,
			      target);
}

/* ask for @p n's MAC once more: an ARP request or a neighbour solicitation */
static void
sroce_neigh_probe(struct sroce_eng *eng, const struct sroce_neigh *n)
{
	uint32_t ip4;

	if (sroce_gid_is_v4(n->ip)) {
		memcpy(&ip4, n->ip + 12, 4);
		(void)sroce_arp_send(eng, RTE_ARP_OP_REQUEST, NULL, ip4);
	} else {
		(void)sroce_ndp_solicit(eng, n->ip);
	}
}

/* Move @p n to @p state, keeping the neigh_pending gauge. */
static void
sroce_neigh_state(struct sroce_eng *eng, struct sroce_neigh *n, uint8_t state)
{
	if (n->state == SROCE_NEIGH_INCOMPLETE)
		eng->stats.neigh_pending--;
	if (state == SROCE_NEIGH_INCOMPLETE)
		eng->stats.neigh_pending++;
	n->state = state;
}

static void
sroce_neigh_timer_set(struct sroce_dev *dev, struct sroce_neigh *n, uint64_t due)
{
	n->timer_tsc = due;
	/* read unlocked by engine 0's pass (and the progress thread) */
	if (due < __atomic_load_n(&dev->neigh_next_tsc, __ATOMIC_RELAXED))
		__atomic_store_n(&dev->neigh_next_tsc, due, __ATOMIC_RELAXED);
}

/* Start (or restart) the resolution of @p n: INCOMPLETE, first request now. */
static void
sroce_neigh_resolve(struct sroce_eng *eng, struct sroce_neigh *n, uint64_t now)
{
	struct sroce_dev *dev = eng->dev;
	sroce_neigh_state(eng, n, SROCE_NEIGH_INCOMPLETE);
	n->probes = 1;
	n->resolve_tsc = now;
	sroce_neigh_probe(eng, n);
	sroce_neigh_timer_set(dev, n, now + sroce_ms_tsc(SROCE_NEIGH_RETRANS_MS));
}

/*
 * A new entry for @p ip: a free one, else the least recently created one
 * that holds no frame (the table is a cache; templates keep their MAC).
 */
static struct sroce_neigh *
sroce_neigh_new(struct sroce_dev *dev, const uint8_t ip[16])
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
	memcpy(n->ip, ip, 16);
	return n;
}

/*
 * Patch the destination MAC of the templates to @p n->ip: of the QPs of
 * @p eng, and of the AHs when the device has one engine. With several, the
 * other engines' QPs and every AH may be sending from their templates right
 * now: their frames still reach pv_sroce_neigh_tx(), which patches each
 * frame and the templates of the sending engine's QPs.
 */
static void
sroce_neigh_templates(struct sroce_eng *eng, const struct sroce_neigh *n)
{
	struct sroce_dev *dev = eng->dev;
	struct sroce_ah *ah;
	uint32_t q;

	for (q = 0; q < eng->nb_qps; q++) {
		struct sroce_qp *qp = eng->qps[q];

		if (qp->ibqp.qp_type != PV_QPT_UD && memcmp(qp->path.dst, n->ip, 16) == 0)
			memcpy(qp->hdr, n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	if (dev->nb_eng > 1)
		return;
	TAILQ_FOREACH(ah, &dev->ahs, next)
		if (memcmp(ah->path.dst, n->ip, 16) == 0)
			memcpy(ah->hdr, n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
}

/* @p n answered with @p mac: REACHABLE, templates patched, queued frames out. */
static void
sroce_neigh_confirm(struct sroce_eng *eng, struct sroce_neigh *n,
		    const struct rte_ether_addr *mac, uint64_t now)
{
	struct sroce_dev *dev = eng->dev;
	uint32_t i;

	if (n->state != SROCE_NEIGH_REACHABLE && n->state != SROCE_NEIGH_STALE)
		eng->stats.neigh_resolved++;
	if (!rte_is_same_ether_addr(&n->mac, mac) || n->state == SROCE_NEIGH_INCOMPLETE ||
	    n->state == SROCE_NEIGH_FAILED) {
		n->mac = *mac;
		sroce_neigh_state(eng, n, SROCE_NEIGH_REACHABLE);
		sroce_neigh_templates(eng, n);
	}
	sroce_neigh_state(eng, n, SROCE_NEIGH_REACHABLE);
	n->probes = 0;
	sroce_neigh_timer_set(dev, n, now + rte_get_tsc_hz() * SROCE_NEIGH_REACHABLE_S);
	for (i = 0; i < n->nq; i++) {
		struct rte_mbuf *m = n->q[i];

		if (sroce_tx_space(eng) == 0) {
			sroce_mbuf_free(m);
			eng->stats.neigh_drops++;
			continue;
		}
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), mac->addr_bytes, RTE_ETHER_ADDR_LEN);
		sroce_tx_enqueue(eng, m);
	}
	n->nq = 0;
}

static void
sroce_neigh_flush_queue(struct sroce_eng *eng, struct sroce_neigh *n)
{
	if (n->nq == 0)
		return;
	sroce_mbuf_free_bulk(n->q, n->nq);
	eng->stats.neigh_drops += n->nq;
	n->nq = 0;
}

/* pv_sroce_neigh_learn() under the neighbour lock */
static void
sroce_neigh_learn(struct sroce_eng *eng, const uint8_t ip[16], const struct rte_ether_addr *mac)
{
	struct sroce_dev *dev = eng->dev;
	struct sroce_neigh *n;

	/* our own addresses loop back; a peer claiming one changes nothing */
	if (pv_sroce_addr_is_local(dev, ip))
		return;
	n = sroce_neigh_find(dev, ip);
	if (n == NULL) {
		n = sroce_neigh_new(dev, ip);
		if (n == NULL)
			return;
	}
	sroce_neigh_confirm(eng, n, mac, rte_rdtsc());
}

void
pv_sroce_neigh_learn(struct sroce_eng *eng, const uint8_t ip[16],
		     const struct rte_ether_addr *mac)
{
	sroce_neigh_lock(eng->dev);
	sroce_neigh_learn(eng, ip, mac);
	sroce_neigh_unlock(eng->dev);
}

void
pv_sroce_arp_rx(struct sroce_eng *eng, struct rte_mbuf *m, uint32_t l3)
{
	struct sroce_dev *dev = eng->dev;
	const struct rte_arp_hdr *arp;
	uint8_t sip[16];
	uint16_t op;

	eng->stats.arp_rx++;
	if (m->data_len < l3 + sizeof(*arp)) {
		eng->stats.rx_drop_other++;
		return;
	}
	arp = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, l3);
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
	memcpy(sip, sroce_v4map, sizeof(sroce_v4map));
	memcpy(sip + 12, &arp->arp_data.arp_sip, 4);
	pv_sroce_neigh_learn(eng, sip, &arp->arp_data.arp_sha);
	if (op == RTE_ARP_OP_REQUEST)
		(void)sroce_arp_send(eng, RTE_ARP_OP_REPLY, &arp->arp_data.arp_sha,
				     arp->arp_data.arp_sip);
}

/*
 * The link-layer address option @p type of the options at @p opt (@p len
 * bytes). @return 0 with *mac_p set, -ENOENT absent, -EBADMSG an option of
 * length 0 or past the end (RFC 4861 4.6: the message is discarded)
 */
static int
sroce_ndp_opt_ll(const uint8_t *opt, uint32_t len, uint8_t type, struct rte_ether_addr *mac_p)
{
	int ret = -ENOENT;

	while (len > 0) {
		uint32_t olen;

		if (len < 2)
			return -EBADMSG;
		olen = opt[1] * 8u;
		if (olen == 0 || olen > len)
			return -EBADMSG;
		if (opt[0] == type && olen >= 8) {
			memcpy(mac_p->addr_bytes, opt + 2, RTE_ETHER_ADDR_LEN);
			ret = 0;
		}
		opt += olen;
		len -= olen;
	}
	return ret;
}

void
pv_sroce_ndp_rx(struct sroce_eng *eng, struct rte_mbuf *m, uint32_t l3)
{
	struct sroce_dev *dev = eng->dev;
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t unspec[16];
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3), *icmp;
	struct rte_ether_addr ll;
	uint32_t plen;
	int has_ll;

	if (m->data_len < l3 + SROCE_IPV6_HLEN + SROCE_ND_MSG_LEN || (ip[0] >> 4) != 6 ||
	    ip[6] != SROCE_IPPROTO_ICMPV6)
		goto drop;
	plen = (uint32_t)ip[4] << 8 | ip[5];
	icmp = ip + SROCE_IPV6_HLEN;
	if (icmp[0] != SROCE_ND_NS && icmp[0] != SROCE_ND_NA)
		goto drop;	/* other ICMPv6 (echo, router discovery): not ours to answer */
	/* RFC 4861 7.1.1 / 7.1.2 validation */
	if (plen < SROCE_ND_MSG_LEN || m->data_len < l3 + SROCE_IPV6_HLEN + plen ||
	    ip[7] != SROCE_ND_HOP_LIMIT || icmp[1] != 0 ||
	    sroce_icmp6_csum(ip, icmp, plen) != 0 || icmp[8] == 0xff)
		goto drop;
	eng->stats.ndp_rx++;
	has_ll = sroce_ndp_opt_ll(icmp + SROCE_ND_MSG_LEN, plen - SROCE_ND_MSG_LEN,
				  icmp[0] == SROCE_ND_NS ? SROCE_ND_OPT_SLLA : SROCE_ND_OPT_TLLA,
				  &ll);
	if (has_ll == -EBADMSG)
		goto drop;
	if (has_ll == 0 && (rte_is_zero_ether_addr(&ll) || !rte_is_unicast_ether_addr(&ll)))
		goto drop;
	if (icmp[0] == SROCE_ND_NA) {
		/* the target's MAC: its option, else the frame's source */
		if (has_ll != 0)
			memcpy(ll.addr_bytes, rte_pktmbuf_mtod_offset(m, const uint8_t *, 6), 6);
		pv_sroce_neigh_learn(eng, icmp + 8, &ll);
		return;
	}
	/* solicitation: answer for our addresses only */
	if (!sroce_addr6_is_local(dev, icmp + 8))
		return;
	if (memcmp(ip + 8, unspec, 16) == 0) {
		/* duplicate address detection (no SLLA allowed): tell all nodes */
		if (has_ll == 0)
			goto drop;
		(void)sroce_ndp_send(eng, SROCE_ND_NA, SROCE_ND_NA_OVERRIDE,
				     (const uint8_t[6]){ 0x33, 0x33, 0, 0, 0, 1 }, icmp + 8,
				     all_nodes, icmp + 8);
		return;
	}
	if (has_ll != 0)
		memcpy(ll.addr_bytes, rte_pktmbuf_mtod_offset(m, const uint8_t *, 6), 6);
	else
		pv_sroce_neigh_learn(eng, ip + 8, &ll);	/* RFC 4861 7.2.3 */
	(void)sroce_ndp_send(eng, SROCE_ND_NA, SROCE_ND_NA_SOLICITED | SROCE_ND_NA_OVERRIDE,
			     ll.addr_bytes, icmp + 8, ip + 8, icmp + 8);
	return;
drop:
	eng->stats.rx_drop_other++;
}

int
pv_sroce_neigh_lookup(struct sroce_dev *dev, const uint8_t ip[16],
		      struct rte_ether_addr *mac_p)
{
	struct sroce_eng *eng = &dev->eng[0];
	struct sroce_neigh *n;
	int ret;

	memset(mac_p, 0, sizeof(*mac_p));
	if (pv_sroce_addr_is_local(dev, ip))
		return 0;	/* loopback: the zero MAC sends frames to pv_sroce_neigh_tx() */
	if (ip[0] == 0xff) {
		/* IPv6 multicast: 33:33 and the address's low 32 bits */
		mac_p->addr_bytes[0] = 0x33;
		mac_p->addr_bytes[1] = 0x33;
		memcpy(&mac_p->addr_bytes[2], ip + 12, 4);
		return 0;
	}
	sroce_neigh_lock(dev);
	n = sroce_neigh_find(dev, ip);
	if (n != NULL && (n->state == SROCE_NEIGH_REACHABLE || n->state == SROCE_NEIGH_STALE)) {
		*mac_p = n->mac;
		ret = 0;
	} else if (n == NULL && (n = sroce_neigh_new(dev, ip)) == NULL) {
		ret = -ENOSPC;	/* resolved on the first frame instead */
	} else {
		if (n->state != SROCE_NEIGH_INCOMPLETE)
			sroce_neigh_resolve(eng, n, rte_rdtsc());
		ret = -EAGAIN;
	}
	sroce_neigh_unlock(dev);
	if (ret == -EAGAIN)
		pv_sroce_tx_flush(eng);	/* the request leaves now, not at the next progress */
	return ret;
}

/* the loopback ring: received by the next RX pass (sroce_net.c) */
static void
sroce_lo_enqueue(struct sroce_eng *eng, struct rte_mbuf *m)
{
	struct sroce_dev *dev = eng->dev;
	uint16_t next = (eng->lo_tail + 1) & (SROCE_LO_RING - 1);

	if (next == eng->lo_head) {
		eng->stats.lo_drops++;
		sroce_mbuf_free(m);
		return;
	}
	/* a well-formed frame to ourselves: from our MAC to our MAC */
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), dev->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	eng->lo_ring[eng->lo_tail] = m;
	eng->lo_tail = next;
}

void
pv_sroce_neigh_tx(struct sroce_eng *eng, struct rte_mbuf *m)
{
	struct sroce_dev *dev = eng->dev;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	struct sroce_neigh *n;
	uint32_t l3 = SROCE_ETH_HLEN;
	uint8_t ip[16];

	if (p[12] == (SROCE_ETHERTYPE_VLAN >> 8) && p[13] == (SROCE_ETHERTYPE_VLAN & 0xff))
		l3 += SROCE_VLAN_HLEN;
	if (p[l3 - 2] == (SROCE_ETHERTYPE_IPV6 >> 8) &&
	    p[l3 - 1] == (SROCE_ETHERTYPE_IPV6 & 0xff)) {
		memcpy(ip, p + l3 + 24, 16);
	} else {
		memcpy(ip, sroce_v4map, sizeof(sroce_v4map));
		memcpy(ip + 12, p + l3 + 16, 4);
	}
	if (pv_sroce_addr_is_local(dev, ip)) {
		sroce_lo_enqueue(eng, m);
		return;
	}
	sroce_neigh_lock(dev);
	n = sroce_neigh_find(dev, ip);
	if (n == NULL)
		n = sroce_neigh_new(dev, ip);
	if (n == NULL) {
		sroce_neigh_unlock(dev);
		sroce_mbuf_free(m);
		eng->stats.neigh_drops++;
		return;
	}
	if (n->state == SROCE_NEIGH_REACHABLE || n->state == SROCE_NEIGH_STALE) {
		/* resolved since the template was built (by another engine, say) */
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), n->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
		if (dev->nb_eng > 1)
			sroce_neigh_templates(eng, n);
		sroce_neigh_unlock(dev);
		sroce_tx_enqueue(eng, m);
		return;
	}
	if (n->state != SROCE_NEIGH_INCOMPLETE)
		sroce_neigh_resolve(eng, n, rte_rdtsc());
	if (n->nq == SROCE_NEIGH_QLEN) {
		/* the kernel drops the oldest (__neigh_event_send) */
		sroce_mbuf_free(n->q[0]);
		memmove(&n->q[0], &n->q[1], (SROCE_NEIGH_QLEN - 1) * sizeof(n->q[0]));
		n->nq--;
		eng->stats.neigh_drops++;
	}
	n->q[n->nq++] = m;
	eng->stats.neigh_queued++;
	sroce_neigh_unlock(dev);
}

static __rte_noinline void
sroce_neigh_fail_log(struct sroce_dev *dev, const struct sroce_neigh *n)
{
	char a[INET6_ADDRSTRLEN];

	sroce_ip_fmt(n->ip, a, sizeof(a));
	SROCE_DP_LOG(NOTICE, "%s: no %s answer for %s in %u ms", dev->ibdev.name,
		     sroce_gid_is_v4(n->ip) ? "ARP" : "neighbour discovery", a,
		     dev->arp_timeout_ms);
}

int
pv_sroce_neigh_timers(struct sroce_eng *eng, uint64_t now)
{
	struct sroce_dev *dev = eng->dev;
	uint64_t retrans = sroce_ms_tsc(SROCE_NEIGH_RETRANS_MS);
	uint64_t give_up = sroce_ms_tsc(dev->arp_timeout_ms);
	uint32_t i;
	int work = 0;

	sroce_neigh_lock(dev);
	__atomic_store_n(&dev->neigh_next_tsc, UINT64_MAX, __ATOMIC_RELAXED);
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
				sroce_neigh_state(eng, n, SROCE_NEIGH_FAILED);
				eng->stats.neigh_failed++;
				sroce_neigh_flush_queue(eng, n);
				sroce_neigh_fail_log(dev, n);
				continue;
			}
			n->probes++;
			sroce_neigh_probe(eng, n);
			sroce_neigh_timer_set(dev, n, now + retrans);
			break;
		case SROCE_NEIGH_REACHABLE:
		case SROCE_NEIGH_STALE:
			/* aged: keep using the MAC, ask again (a reply makes it REACHABLE) */
			sroce_neigh_state(eng, n, SROCE_NEIGH_STALE);
			sroce_neigh_probe(eng, n);
			sroce_neigh_timer_set(dev, n, now + rte_get_tsc_hz() *
						      SROCE_NEIGH_REACHABLE_S);
			break;
		default:
			break;
		}
	}
	sroce_neigh_unlock(dev);
	return work;
}

void
pv_sroce_neigh_fini(struct sroce_dev *dev)
{
	uint32_t i;

	uint16_t e;

	for (i = 0; i < SROCE_NEIGH_MAX; i++)
		sroce_neigh_flush_queue(&dev->eng[0], &dev->neigh[i]);
	for (e = 0; e < dev->nb_eng; e++) {
		struct sroce_eng *eng = &dev->eng[e];

		while (eng->lo_head != eng->lo_tail) {
			sroce_mbuf_free(eng->lo_ring[eng->lo_head]);
			eng->lo_head = (eng->lo_head + 1) & (SROCE_LO_RING - 1);
		}
	}
}
