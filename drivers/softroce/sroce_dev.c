/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce devices: devargs, ethdev port set-up, contexts, queries, driver
 * registration.
 *
 * --pv-dev=softroce:port=<ethdev name>,ip=A.B.C.D[,mac=..][,mtu=N][,pcap=FILE]
 *                   [,icrc=0|1][,arp_timeout_ms=N][,drop_tx_every=N]
 *                   [,drop_rx_every=N][,dup_rx_every=N][,drop_tx_one_in=N]
 *                   [,drop_rx_one_in=N][,max_qp=N][,max_mr=N][,seed=N]
 *                   [,{tx,rx}_{drop,corrupt,dup,reorder,delay}_ppm=N]
 *                   [,{tx,rx}_{reorder,delay}_us=N]
 *                   [,progress=thread_safe|app][,ip6=ADDR[;ADDR...]]...
 *                   [,vlan=ID[,pcp=N]]
 *
 * ip6= (repeatable, or a semicolon list) adds IPv6 addresses to the GID
 * table after the IPv4-mapped entry, as rxe lists a netdev's addresses;
 * vlan= tags every frame sent with 802.1Q (VID 0..4094, PCP pcp=, 0..7) and
 * drops received frames of other VLANs.
 *
 * max_qp (default and maximum 65536) and max_mr (default and maximum
 * 1048575) size the QPN and key tables at probe.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_string_fns.h>

#include "sroce_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_sroce_logtype, NOTICE);

static struct sroce_dev *sroce_devs[SROCE_MAX_DEVS];
static int sroce_nb_devs;

/* link check period of the control-thread timer: polling for ports without
 * LSC interrupts (memif, ring, af_packet ...); a safety net for the others */
#define SROCE_LINK_POLL_US	100000
#define SROCE_LINK_LSC_POLL_US	1000000

/* serialises open/close: dev->nb_ctx and the link monitor's start and stop */
static pthread_mutex_t sroce_open_lock = PTHREAD_MUTEX_INITIALIZER;

struct sroce_devargs {
	char port[RTE_ETH_NAME_MAX_LEN];
	char pcap[256];
	uint32_t ip;
	struct rte_ether_addr mac;
	int has_ip, has_mac;
	uint32_t mtu;
	int icrc;
	uint32_t arp_timeout_ms;
	uint32_t max_qp;
	uint32_t max_mr;
	uint32_t queues;	/* engines: RX/TX queue pairs of the port */
	int progress;		/* enum pv_progress_mode, -1: not given */
	struct pv_sroce_fault fault;
	uint8_t ip6[SROCE_MAX_IP6][16];
	uint32_t nb_ip6;
	int vlan;		/* -1: untagged */
	uint32_t pcp;
};

/* ip6=A[;B...]: unicast IPv6 addresses, not IPv4-mapped, no duplicates */
static int
sroce_devarg_ip6(struct sroce_devargs *a, const char *value)
{
	char buf[256], *tok, *save = NULL;

	if (rte_strscpy(buf, value, sizeof(buf)) < 0)
		return -EINVAL;
	for (tok = strtok_r(buf, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
		struct in6_addr in6;
		uint32_t i;

		if (inet_pton(AF_INET6, tok, &in6) != 1 || in6.s6_addr[0] == 0xff ||
		    sroce_gid_is_v4(in6.s6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6)) {
			SROCE_LOG(ERR, "ip6=%s: not a unicast IPv6 address", tok);
			return -EINVAL;
		}
		for (i = 0; i < a->nb_ip6; i++)
			if (memcmp(a->ip6[i], in6.s6_addr, 16) == 0)
				break;
		if (i < a->nb_ip6)
			continue;
		if (a->nb_ip6 == SROCE_MAX_IP6) {
			SROCE_LOG(ERR, "ip6=: more than %d addresses", SROCE_MAX_IP6);
			return -EINVAL;
		}
		memcpy(a->ip6[a->nb_ip6++], in6.s6_addr, 16);
	}
	return 0;
}

static int
sroce_parse_u32(const char *value, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 0);
	if (errno != 0 || *value == '\0' || *end != '\0' || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* tx_<field>=N and rx_<field>=N: a field of struct pv_sroce_fault_dir */
static int
sroce_devarg_fault_dir(const char *key, const char *value, struct pv_sroce_fault_dir *d)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "drop_ppm", offsetof(struct pv_sroce_fault_dir, drop_ppm) },
		{ "corrupt_ppm", offsetof(struct pv_sroce_fault_dir, corrupt_ppm) },
		{ "dup_ppm", offsetof(struct pv_sroce_fault_dir, dup_ppm) },
		{ "reorder_ppm", offsetof(struct pv_sroce_fault_dir, reorder_ppm) },
		{ "reorder_us", offsetof(struct pv_sroce_fault_dir, reorder_us) },
		{ "delay_ppm", offsetof(struct pv_sroce_fault_dir, delay_ppm) },
		{ "delay_us", offsetof(struct pv_sroce_fault_dir, delay_us) },
	};
	size_t i;

	for (i = 0; i < RTE_DIM(fields); i++)
		if (strcmp(key + 3, fields[i].name) == 0)
			return sroce_parse_u32(value, (uint32_t *)((uint8_t *)d + fields[i].off));
	SROCE_LOG(ERR, "unknown devarg \"%s\"", key);
	return -EINVAL;
}

static int
sroce_devarg_kv(const char *key, const char *value, void *opaque)
{
	struct sroce_devargs *a = opaque;
	uint32_t v;

	if (strcmp(key, "port") == 0) {
		if (rte_strscpy(a->port, value, sizeof(a->port)) < 0)
			return -EINVAL;
	} else if (strcmp(key, "ip") == 0) {
		struct in_addr in;

		if (inet_pton(AF_INET, value, &in) != 1)
			return -EINVAL;
		a->ip = in.s_addr;
		a->has_ip = 1;
	} else if (strcmp(key, "ip6") == 0) {
		return sroce_devarg_ip6(a, value);
	} else if (strcmp(key, "vlan") == 0) {
		/* 4095 is reserved (IEEE 802.1Q 9.6) */
		if (sroce_parse_u32(value, &v) != 0 || v > 4094)
			return -EINVAL;
		a->vlan = (int)v;
	} else if (strcmp(key, "pcp") == 0) {
		if (sroce_parse_u32(value, &a->pcp) != 0 || a->pcp > 7)
			return -EINVAL;
	} else if (strcmp(key, "mac") == 0) {
		if (rte_ether_unformat_addr(value, &a->mac) != 0)
			return -EINVAL;
		a->has_mac = 1;
	} else if (strcmp(key, "mtu") == 0) {
		if (sroce_parse_u32(value, &a->mtu) != 0 || a->mtu < 256 + 80 ||
		    a->mtu > 9600)
			return -EINVAL;
	} else if (strcmp(key, "pcap") == 0) {
		if (rte_strscpy(a->pcap, value, sizeof(a->pcap)) < 0)
			return -EINVAL;
	} else if (strcmp(key, "icrc") == 0) {
		if (sroce_parse_u32(value, &v) != 0 || v > 1)
			return -EINVAL;
		a->icrc = v;
	} else if (strcmp(key, "arp_timeout_ms") == 0) {
		if (sroce_parse_u32(value, &a->arp_timeout_ms) != 0)
			return -EINVAL;
	} else if (strcmp(key, "progress") == 0) {
		if (strcmp(value, "thread_safe") == 0) {
			a->progress = PV_PROGRESS_THREAD_SAFE;
		} else if (strcmp(value, "app") == 0) {
			a->progress = PV_PROGRESS_APP;
		} else {
			SROCE_LOG(ERR, "progress=%s: thread_safe or app", value);
			return -EINVAL;
		}
	} else if (strcmp(key, "max_qp") == 0) {
		if (sroce_parse_u32(value, &a->max_qp) != 0 || a->max_qp == 0 ||
		    a->max_qp > SROCE_MAX_QP)
			return -EINVAL;
	} else if (strcmp(key, "max_mr") == 0) {
		if (sroce_parse_u32(value, &a->max_mr) != 0 || a->max_mr == 0 ||
		    a->max_mr > SROCE_MAX_MR)
			return -EINVAL;
	} else if (strcmp(key, "queues") == 0) {
		if (sroce_parse_u32(value, &a->queues) != 0 || a->queues == 0 ||
		    a->queues > SROCE_MAX_QUEUES) {
			SROCE_LOG(ERR, "queues=%s: 1 .. %d", value, SROCE_MAX_QUEUES);
			return -EINVAL;
		}
	} else if (strcmp(key, "seed") == 0) {
		if (sroce_parse_u32(value, &a->fault.seed) != 0)
			return -EINVAL;
	} else if (strncmp(key, "tx_", 3) == 0 || strncmp(key, "rx_", 3) == 0) {
		return sroce_devarg_fault_dir(key, value,
					      key[0] == 't' ? &a->fault.tx : &a->fault.rx);
	} else if (strcmp(key, "drop_tx_every") == 0) {
		if (sroce_parse_u32(value, &a->fault.drop_tx_every) != 0)
			return -EINVAL;
	} else if (strcmp(key, "drop_rx_every") == 0) {
		if (sroce_parse_u32(value, &a->fault.drop_rx_every) != 0)
			return -EINVAL;
	} else if (strcmp(key, "drop_tx_one_in") == 0) {
		if (sroce_parse_u32(value, &a->fault.drop_tx_one_in) != 0)
			return -EINVAL;
	} else if (strcmp(key, "drop_rx_one_in") == 0) {
		if (sroce_parse_u32(value, &a->fault.drop_rx_one_in) != 0)
			return -EINVAL;
	} else if (strcmp(key, "dup_rx_every") == 0) {
		if (sroce_parse_u32(value, &a->fault.dup_rx_every) != 0)
			return -EINVAL;
	} else {
		SROCE_LOG(ERR, "unknown devarg \"%s\"", key);
		return -EINVAL;
	}
	return 0;
}

/* rxe: the largest IB MTU that fits in the Ethernet MTU minus the headers */
static enum pv_mtu
sroce_mtu_from_eth(uint32_t eth_mtu)
{
	int v = (int)eth_mtu - 80;	/* IPv4 + UDP + BTH + RETH/AtomicETH + ICRC, rounded */

	if (v >= 4096)
		return PV_MTU_4096;
	if (v >= 2048)
		return PV_MTU_2048;
	if (v >= 1024)
		return PV_MTU_1024;
	if (v >= 512)
		return PV_MTU_512;
	return PV_MTU_256;
}

static void
sroce_gid_init(struct sroce_dev *dev, const struct sroce_devargs *a)
{
	uint8_t *g0 = dev->gid[SROCE_GID_LL].raw, *g1 = dev->gid[SROCE_GID_IPV4].raw;
	uint32_t i;
	const uint8_t *m = dev->mac.addr_bytes;

	/* index 0: IPv6 link-local from the MAC's modified EUI-64 (RFC 4291) */
	memset(g0, 0, 16);
	g0[0] = 0xfe;
	g0[1] = 0x80;
	g0[8] = m[0] ^ 0x02;
	g0[9] = m[1];
	g0[10] = m[2];
	g0[11] = 0xff;
	g0[12] = 0xfe;
	g0[13] = m[3];
	g0[14] = m[4];
	g0[15] = m[5];
	/* index 1: IPv4-mapped ::ffff:a.b.c.d, the RoCEv2 GID apps use */
	memset(g1, 0, 16);
	g1[10] = 0xff;
	g1[11] = 0xff;
	memcpy(&g1[12], &dev->ip, 4);
	/* node GUID = the EUI-64 (interface id of GID 0) */
	memcpy(&dev->ibdev.node_guid, &g0[8], 8);
	/* then the configured IPv6 addresses, in the order given */
	for (i = 0; i < a->nb_ip6; i++)
		memcpy(dev->gid[2 + i].raw, a->ip6[i], 16);
	dev->nb_gid = (uint8_t)(2 + a->nb_ip6);
}

/*
 * Receive the multicast frames neighbour discovery needs on a port that
 * filters (real NICs): the solicited-node groups of our IPv6 addresses and
 * all-nodes. The filter list, else all multicast; virtual ports ignore both.
 */
static void
sroce_mc_setup(struct sroce_dev *dev)
{
	struct rte_ether_addr mc[SROCE_GID_TBL_LEN];
	uint32_t i, n = 0;

	mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } };
	for (i = 0; i < dev->nb_gid; i++) {
		if (i == SROCE_GID_IPV4)
			continue;
		mc[n] = (struct rte_ether_addr){ { 0x33, 0x33, 0xff } };
		memcpy(&mc[n].addr_bytes[3], dev->gid[i].raw + 13, 3);
		n++;
	}
	if (rte_eth_dev_set_mc_addr_list(dev->port_id, mc, n) != 0)
		(void)rte_eth_allmulticast_enable(dev->port_id);
}

static int
sroce_port_setup(struct sroce_dev *dev, const struct sroce_devargs *a)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t nb_rxd = SROCE_NB_RXD, nb_txd = SROCE_NB_TXD;
	uint16_t mtu, q;
	int ret;

	ret = rte_eth_dev_info_get(dev->port_id, &info);
	if (ret != 0) {
		SROCE_LOG(ERR, "port %s: dev_info: %s", dev->port_name, rte_strerror(-ret));
		return ret;
	}
	snprintf(name, sizeof(name), "sroce%d_mp", dev->index);
	dev->mp = rte_pktmbuf_pool_create(name, SROCE_NB_MBUF * dev->nb_eng, SROCE_MBUF_CACHE, 0,
					  SROCE_MBUF_DATA, rte_eth_dev_socket_id(dev->port_id));
	if (dev->mp == NULL) {
		ret = -rte_errno;
		SROCE_LOG(ERR, "port %s: mbuf pool: %s", dev->port_name, rte_strerror(rte_errno));
		return ret;
	}
	memset(&conf, 0, sizeof(conf));
	/* link changes by interrupt where the PMD has them (real NICs) */
	if (info.dev_flags != NULL && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0) {
		conf.intr_conf.lsc = 1;
		dev->lsc_intr = 1;
	}
	/* RX queue interrupts, for the progress thread to sleep on; a PMD
	 * without them may refuse the request or accept it and fail later, in
	 * rte_eth_dev_rx_intr_ctl_q() (pv_rtc_bg_add() then backs off) */
	/* the progress thread sleeps on one queue's interrupt: one engine only */
	conf.intr_conf.rxq = dev->nb_eng == 1;
	if (dev->nb_eng > 1) {
		if (info.max_rx_queues < dev->nb_eng || info.max_tx_queues < dev->nb_eng) {
			SROCE_LOG(ERR, "port %s: queues=%u but the port has %u RX and %u TX "
				  "queues at most", dev->port_name, dev->nb_eng,
				  info.max_rx_queues, info.max_tx_queues);
			return -EINVAL;
		}
		/* RSS where the PMD has it spreads flows; frames of another
		 * engine's QP are steered in software either way */
		if (info.flow_type_rss_offloads & RTE_ETH_RSS_NONFRAG_IPV4_UDP) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
				(RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP);
		}
	}
	ret = rte_eth_dev_configure(dev->port_id, dev->nb_eng, dev->nb_eng, &conf);
	if (ret != 0 && conf.intr_conf.rxq) {
		conf.intr_conf.rxq = 0;
		ret = rte_eth_dev_configure(dev->port_id, dev->nb_eng, dev->nb_eng, &conf);
	}
	dev->bg.intr = conf.intr_conf.rxq;
	if (ret != 0) {
		SROCE_LOG(ERR, "port %s: configure: %s", dev->port_name, rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(dev->port_id, &nb_rxd, &nb_txd);
	if (ret != 0)
		return ret;
	for (q = 0; q < dev->nb_eng; q++) {
		ret = rte_eth_rx_queue_setup(dev->port_id, q, nb_rxd,
					     rte_eth_dev_socket_id(dev->port_id), NULL, dev->mp);
		if (ret != 0) {
			SROCE_LOG(ERR, "port %s: rx queue %u: %s", dev->port_name, q,
				  rte_strerror(-ret));
			return ret;
		}
		ret = rte_eth_tx_queue_setup(dev->port_id, q, nb_txd,
					     rte_eth_dev_socket_id(dev->port_id), NULL);
		if (ret != 0) {
			SROCE_LOG(ERR, "port %s: tx queue %u: %s", dev->port_name, q,
				  rte_strerror(-ret));
			return ret;
		}
	}
	if (a->mtu != 0) {
		ret = rte_eth_dev_set_mtu(dev->port_id, a->mtu);
		if (ret != 0)
			SROCE_LOG(INFO, "port %s: set_mtu %u: %s (using it anyway)",
				  dev->port_name, a->mtu, rte_strerror(-ret));
		dev->eth_mtu = a->mtu;
	} else if (rte_eth_dev_get_mtu(dev->port_id, &mtu) == 0 && mtu != 0) {
		dev->eth_mtu = mtu;
	} else {
		dev->eth_mtu = RTE_ETHER_MTU;
	}
	ret = rte_eth_dev_start(dev->port_id);
	if (ret != 0) {
		SROCE_LOG(ERR, "port %s: start: %s", dev->port_name, rte_strerror(-ret));
		return ret;
	}
	dev->port_started = 1;
	/* frames for our MAC only on real NICs; virtual ports ignore it */
	(void)rte_eth_promiscuous_disable(dev->port_id);
	return 0;
}

/*
 * librte_pcapng (22.11) sets its TSC-to-time base lazily, inside the first
 * rte_pcapng_copy(), from a TSC read after the caller's: the first stamp is
 * then "before" the base, the unsigned difference wraps and shifts the base
 * by centuries for every later packet. One throwaway copy stamped a little
 * in the future (less than a second) sets the base right.
 */
static void
sroce_pcap_clock_prime(struct sroce_dev *dev)
{
	struct rte_mbuf *m, *c;

	m = sroce_mbuf_alloc(dev->pcap_mp);
	if (m == NULL)
		return;
	memset(rte_pktmbuf_append(m, RTE_ETHER_HDR_LEN), 0, RTE_ETHER_HDR_LEN);
	c = rte_pcapng_copy(dev->port_id, 0, m, dev->pcap_mp, UINT32_MAX,
			    rte_get_tsc_cycles() + rte_get_tsc_hz() / 4,
			    RTE_PCAPNG_DIRECTION_UNKNOWN);
	sroce_mbuf_free(c);
	sroce_mbuf_free(m);
}

/* pcap=FILE: a pcapng file written through librte_pcapng */
static int
sroce_pcap_open(struct sroce_dev *dev, const char *path)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	/* the largest frame the port may deliver, VLAN tag included */
	uint32_t snap = RTE_MAX((uint32_t)SROCE_FRAME_MAX,
				(uint32_t)dev->eth_mtu + RTE_ETHER_HDR_LEN + 4);
	int fd, ret;

	/* copies live from rte_pcapng_copy() to rte_pcapng_write_packets()
	 * of the same chunk only: two chunks' worth is plenty */
	snprintf(name, sizeof(name), "sroce%d_pcap", dev->index);
	dev->pcap_mp = rte_pktmbuf_pool_create(name, 63, 0, 0, rte_pcapng_mbuf_size(snap),
					       rte_eth_dev_socket_id(dev->port_id));
	if (dev->pcap_mp == NULL) {
		ret = -rte_errno;
		SROCE_LOG(ERR, "pcap %s: pool: %s", path, rte_strerror(rte_errno));
		return ret;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		SROCE_LOG(ERR, "pcap %s: %s", path, strerror(errno));
		return ret;
	}
	/* writes the section header and one interface block per ethdev port;
	 * packets name their port (DPDK 22.11 has no per-port add_interface) */
	dev->pcapng = rte_pcapng_fdopen(fd, NULL, NULL, "pollverbs softroce", dev->port_name);
	if (dev->pcapng == NULL) {
		ret = -rte_errno;
		SROCE_LOG(ERR, "pcap %s: pcapng: %s", path, rte_strerror(rte_errno));
		close(fd);
		return ret;
	}
	sroce_pcap_clock_prime(dev);
	pv_sroce_tx_hook_update(dev);
	SROCE_LOG(INFO, "port %s: capturing to %s (pcapng)", dev->port_name, path);
	return 0;
}

/* the counters of a device at its end (--log-level=pv.drv.softroce:info) */
static void
sroce_stats_log(const struct sroce_dev *dev)
{
	struct pv_sroce_stats st;
	const struct pv_sroce_stats *s = &st;

	pv_sroce_stats_sum(dev, &st);
	SROCE_LOG(INFO, "%s: rx %" PRIu64 " tx %" PRIu64 " tx_nombuf %" PRIu64
		  " drop icrc/hdr/qpn/state/other %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
		  "/%" PRIu64 " retransmits %" PRIu64 " timeouts %" PRIu64
		  " seq_naks tx/rx %" PRIu64 "/%" PRIu64 " rnr_naks tx/rx %" PRIu64 "/%" PRIu64
		  " dup_reqs %" PRIu64 " acks_tx %" PRIu64 " steered %" PRIu64,
		  dev->ibdev.name, s->rx_pkts, s->tx_pkts, s->tx_nombuf, s->rx_drop_icrc,
		  s->rx_drop_hdr, s->rx_drop_qpn, s->rx_drop_state, s->rx_drop_other,
		  s->retransmits, s->timeouts, s->seq_naks_tx, s->seq_naks_rx, s->rnr_naks_tx,
		  s->rnr_naks_rx, s->dup_reqs, s->acks_tx, s->rx_steered);
}

/* ---- link monitor: PV_EVENT_PORT_ACTIVE / PV_EVENT_PORT_ERR ---- */

static uint8_t
sroce_link_read(const struct sroce_dev *dev)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(dev->port_id, &link) != 0)
		return 0;
	return link.link_status == RTE_ETH_LINK_UP;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14, <linux/mman.h> */
#endif

/*
 * Warm start: net_memif maps its shared rings and packet buffers (one memfd,
 * "memif_region_N", created by the memif client and mapped by the server
 * when the link comes up) without populating them, so the first use of each
 * 4 KiB page costs a page fault in each process: about 2200 faults over the
 * first pass of a 1024-slot ring of 4352-byte buffers, which is the whole of
 * a short 4 KiB bandwidth run. MADV_POPULATE_WRITE pre-faults those
 * mappings of this process, writable, without touching their contents.
 * Under a hypervisor that is not all: in the Firecracker VMs this runs in,
 * the first user-space access to each populated page still cost about 5 us
 * (measured: 11.8 ms over the first pass of 9 MiB, 0.4 ms over the second;
 * kernel-side accesses do not help), 8 us per slot of the first ring pass.
 * So each page is also read once, here, which leaves the contents alone.
 * That read must not race with memif unmapping the region when the peer
 * leaves: it runs on the EAL interrupt thread (an alarm), the thread where
 * net_memif connects and disconnects, after checking the link is still up.
 * Best effort: another PMD, an old kernel (EINVAL) or a mapping gone
 * meanwhile only skip it, logged at DEBUG; nothing here can fault.
 */
static int
sroce_port_is_memif(const struct sroce_dev *dev)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(dev->port_id, &info) == 0 && info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

static void
sroce_port_prefault(const struct sroce_dev *dev)
{
	unsigned long start, end, a;
	size_t total = 0;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char perms[8];

		if (strstr(line, "/memfd:memif_region_") == NULL ||
		    sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[1] != 'w' ||
		    perms[3] != 's' || end <= start)
			continue;
		if (madvise((void *)start, end - start, MADV_POPULATE_WRITE) != 0) {
			SROCE_LOG(DEBUG, "%s: pre-faulting memif region %#lx-%#lx: %s",
				  dev->ibdev.name, start, end, strerror(errno));
			continue;
		}
		for (a = start; a < end; a += 4096)
			(void)*(volatile const uint8_t *)a;
		total += end - start;
	}
	fclose(f);
	if (total != 0)
		SROCE_LOG(INFO, "%s: pre-faulted %zu KiB of memif rings and buffers",
			  dev->ibdev.name, total / 1024);
}

struct sroce_prefault_req {
	const struct sroce_dev *dev;
	int done;
};

/* EAL alarm (interrupt thread): memif cannot unmap its region meanwhile */
static void
sroce_prefault_alarm(void *arg)
{
	struct sroce_prefault_req *req = arg;
	/* acquire: pairs with the release below, which TSan sees (DPDK's
	 * alarm list lock is not a lock it knows) */
	const struct sroce_dev *dev = __atomic_load_n(&req->dev, __ATOMIC_ACQUIRE);

	if (sroce_link_read(dev))
		sroce_port_prefault(dev);
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

/* how long the link monitor waits for the interrupt thread to pre-fault (ms) */
#define SROCE_PREFAULT_WAIT_MS	500

/* the port's link came up: pre-fault on the interrupt thread, waited for */
static void
sroce_port_warm(const struct sroce_dev *dev)
{
	struct sroce_prefault_req req = { .dev = NULL, .done = 0 };
	unsigned int ms;

	if (!sroce_port_is_memif(dev))
		return;
	__atomic_store_n(&req.dev, dev, __ATOMIC_RELEASE);
	if (rte_eal_alarm_set(1, sroce_prefault_alarm, &req) != 0)
		return;
	for (ms = 0; !__atomic_load_n(&req.done, __ATOMIC_ACQUIRE) &&
		     ms < SROCE_PREFAULT_WAIT_MS; ms++)
		rte_delay_us_sleep(1000);
	/* not run yet: never will; running: waited for. req is then unused */
	(void)rte_eal_alarm_cancel(sroce_prefault_alarm, &req);
}

/*
 * Control-thread timer: on a link change, update what query_port reports,
 * then tell every open context of the device (IBTA 11.6.3.2: port active /
 * port error are unaffiliated events, port_num 1).
 */
static void
sroce_link_check(void *arg)
{
	struct sroce_dev *dev = arg;
	struct pv_async_event ev;
	uint8_t up = sroce_link_read(dev);
	int n;

	if (up == __atomic_load_n(&dev->link_up, __ATOMIC_RELAXED))
		return;
	/* before the state is published: who waits for ACTIVE finds it warm */
	if (up)
		sroce_port_warm(dev);
	/* published first: an application woken by the event sees the new state */
	__atomic_store_n(&dev->link_up, up, __ATOMIC_RELEASE);
	memset(&ev, 0, sizeof(ev));
	ev.element.port_num = 1;
	ev.event_type = up ? PV_EVENT_PORT_ACTIVE : PV_EVENT_PORT_ERR;
	n = pv_device_async_event_post(&dev->ibdev, &ev);
	SROCE_LOG(INFO, "%s: port %s link %s, %s posted to %d context(s)", dev->ibdev.name,
		  dev->port_name, up ? "up" : "down", pv_event_type_str(ev.event_type), n);
}

/* EAL interrupt thread: the check itself runs on the control thread */
static int
sroce_link_lsc_cb(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct sroce_dev *dev = arg;

	RTE_SET_USED(port_id);
	RTE_SET_USED(type);
	RTE_SET_USED(ret_param);
	(void)pv_rtc_ctrl_timer_kick(dev->link_timer);
	return 0;
}

/* First context opened: read the link, then watch it. Under the open lock. */
static int
sroce_link_monitor_start(struct sroce_dev *dev)
{
	int ret;

	if (sroce_link_read(dev)) {
		sroce_port_warm(dev);
		__atomic_store_n(&dev->link_up, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&dev->link_up, 0, __ATOMIC_RELEASE);
	}
	dev->link_timer = pv_rtc_ctrl_timer_start(sroce_link_check, dev, dev->lsc_intr ?
						  SROCE_LINK_LSC_POLL_US : SROCE_LINK_POLL_US);
	if (dev->link_timer == NULL) {
		ret = -errno;
		SROCE_LOG(ERR, "%s: link monitor: %s", dev->ibdev.name, rte_strerror(-ret));
		return ret;
	}
	/* the timer exists before the callback can kick it */
	if (dev->lsc_intr) {
		ret = rte_eth_dev_callback_register(dev->port_id, RTE_ETH_EVENT_INTR_LSC,
						    sroce_link_lsc_cb, dev);
		if (ret == 0)
			dev->lsc_cb = 1;
		else
			SROCE_LOG(WARNING, "%s: no LSC callback (%s): polling every %u ms",
				  dev->ibdev.name, rte_strerror(-ret), SROCE_LINK_LSC_POLL_US / 1000);
	}
	return 0;
}

/* Last context closed (or device removed): stop watching. Under the open lock. */
static void
sroce_link_monitor_stop(struct sroce_dev *dev)
{
	int ret;

	if (dev->lsc_cb) {
		/* -EAGAIN: the callback is running; it returns soon */
		while ((ret = rte_eth_dev_callback_unregister(dev->port_id,
							      RTE_ETH_EVENT_INTR_LSC,
							      sroce_link_lsc_cb, dev)) == -EAGAIN)
			rte_delay_us_sleep(100);
		dev->lsc_cb = 0;
	}
	if (dev->link_timer != NULL) {
		(void)pv_rtc_ctrl_timer_stop(dev->link_timer);
		dev->link_timer = NULL;
	}
}

/* how long a closing device gives its last frames to leave (milliseconds) */
#define SROCE_CLOSE_DRAIN_MS	100
#define SROCE_CLOSE_LINGER_MS	20

/*
 * The wire drains before the port stops: the frames still queued (the last
 * MADs of a process that exits, say: a DREP) are handed to the PMD for up
 * to SROCE_CLOSE_DRAIN_MS, then, if the port ever sent anything, the peer
 * gets SROCE_CLOSE_LINGER_MS to read them: a net_memif client's frames sit
 * in shared memory that stopping the port unmaps, unread frames included.
 * Called with the progress thread stopped.
 */
static void
sroce_tx_drain(struct sroce_dev *dev)
{
	unsigned int ms;
	uint64_t tx_pkts = 0;
	uint16_t e;

	for (e = 0; e < dev->nb_eng; e++) {
		struct sroce_eng *eng = &dev->eng[e];

		for (ms = 0; eng->tx_head != eng->tx_tail && ms < SROCE_CLOSE_DRAIN_MS; ms++) {
			pv_sroce_tx_flush(eng);
			if (eng->tx_head != eng->tx_tail)
				rte_delay_us_sleep(1000);
		}
		tx_pkts += eng->stats.tx_pkts;
	}
	if (tx_pkts != 0)
		rte_delay_us_sleep(SROCE_CLOSE_LINGER_MS * 1000);
}

/*
 * @p close_port: removal; stop and close the port, then free the mbuf pool
 * its queues used. Otherwise (a probe that failed) the port is only stopped
 * and stays the application's, and so does the pool, which its queues may
 * still name.
 */
static void
sroce_dev_free(struct sroce_dev *dev, int close_port)
{
	uint16_t e;
	int ret;

	if (dev->eng != NULL)
		sroce_stats_log(dev);
	/* contexts left open at pv_cleanup() */
	pv_sroce_bg_stop(dev);
	sroce_link_monitor_stop(dev);
	pv_sroce_fault_free(dev);
	if (dev->eng != NULL)
		pv_sroce_neigh_fini(dev);
	if (dev->port_started && dev->eng != NULL)
		sroce_tx_drain(dev);
	for (e = 0; dev->eng != NULL && e < dev->nb_eng; e++) {
		struct sroce_eng *eng = &dev->eng[e];
		struct rte_mbuf *m;

		while (eng->tx_head != eng->tx_tail) {
			sroce_mbuf_free(eng->tx_ring[eng->tx_head]);
			eng->tx_head = (eng->tx_head + 1) & (SROCE_TX_RING - 1);
		}
		while (eng->steer != NULL && rte_ring_dequeue(eng->steer, (void **)&m) == 0)
			sroce_mbuf_free(m);
	}
	if (dev->port_started) {
		ret = rte_eth_dev_stop(dev->port_id);
		if (ret != 0)
			SROCE_LOG(WARNING, "port %s: stop: %s", dev->port_name, rte_strerror(-ret));
		dev->port_started = 0;
	}
	if (close_port) {
		ret = rte_eth_dev_close(dev->port_id);
		if (ret != 0)
			SROCE_LOG(WARNING, "port %s: close: %s", dev->port_name, rte_strerror(-ret));
	}
	if (dev->pcapng != NULL) {
		rte_pcapng_close(dev->pcapng);	/* closes the file */
		dev->pcapng = NULL;
	}
	rte_mempool_free(dev->pcap_mp);
	pv_sroce_tables_fini(dev);
	/* closed, the port holds no mbuf of the pool (rx queue release) */
	if (close_port)
		rte_mempool_free(dev->mp);
	rte_free(dev);
}

/*
 * queues=N > 1: thread-safe mode (each engine is driven under its lock by
 * whichever thread polls its CQs, the control verbs take them all); fault
 * injection and capture are one-engine features. @return 0 or -EINVAL
 */
static int
sroce_queues_check(const struct sroce_dev *dev, const struct sroce_devargs *a)
{
	static const struct pv_sroce_fault none;

	if (a->queues == 1)
		return 0;
	if (a->progress == PV_PROGRESS_APP) {
		SROCE_LOG(ERR, "%s: queues=%u needs progress=thread_safe", dev->ibdev.name,
			  a->queues);
		return -EINVAL;
	}
	if (a->pcap[0] != '\0' || memcmp(&a->fault, &none, sizeof(none)) != 0) {
		SROCE_LOG(ERR, "%s: pcap= and fault injection need queues=1", dev->ibdev.name);
		return -EINVAL;
	}
	return 0;
}

/* queues=N > 1: each engine's steering ring (frames of its QPs that another
 * engine received; several producers, one consumer) */
static int
sroce_steer_init(struct sroce_dev *dev)
{
	char name[RTE_RING_NAMESIZE];
	uint16_t e;

	if (dev->nb_eng == 1)
		return 0;
	for (e = 0; e < dev->nb_eng; e++) {
		snprintf(name, sizeof(name), "sroce%d_st%u", dev->index, e);
		dev->eng[e].steer = rte_ring_create(name, SROCE_STEER_RING,
						    rte_eth_dev_socket_id(dev->port_id),
						    RING_F_SC_DEQ);
		if (dev->eng[e].steer == NULL) {
			SROCE_LOG(ERR, "%s: steering ring: %s", dev->ibdev.name,
				  rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	return 0;
}

static int
sroce_dev_probe_one(const char *args, int index, struct sroce_dev **dev_p)
{
	struct sroce_devargs a;
	struct sroce_dev *dev;
	uint16_t port_id;
	int ret;

	memset(&a, 0, sizeof(a));
	a.icrc = 1;
	a.progress = -1;
	a.arp_timeout_ms = 3000;
	a.max_qp = SROCE_MAX_QP;
	a.max_mr = SROCE_MAX_MR;
	a.queues = 1;
	a.vlan = -1;
	ret = pv_devargs_parse(args, sroce_devarg_kv, &a);
	if (ret != 0) {
		SROCE_LOG(ERR, "bad devargs \"%s\"", args);
		return -EINVAL;
	}
	if (a.port[0] == '\0' || !a.has_ip) {
		SROCE_LOG(ERR, "devargs \"%s\": port= and ip= are required", args);
		return -EINVAL;
	}
	ret = rte_eth_dev_get_port_by_name(a.port, &port_id);
	if (ret != 0) {
		SROCE_LOG(ERR, "no ethdev port \"%s\" (create it with --vdev or before "
			  "pv_get_device_list())", a.port);
		return -ENODEV;
	}
	dev = rte_zmalloc("sroce_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE);
	if (dev == NULL)
		return -ENOMEM;
	dev->index = index;
	dev->port_id = port_id;
	rte_strscpy(dev->port_name, a.port, sizeof(dev->port_name));
	dev->ip = a.ip;
	dev->ip_host = rte_be_to_cpu_32(a.ip);
	dev->verify_icrc = a.icrc;
	dev->arp_timeout_ms = a.arp_timeout_ms;
	dev->l3_off = SROCE_ETH_HLEN;
	if (a.vlan >= 0) {
		dev->vlan_on = 1;
		dev->vid = (uint16_t)a.vlan;
		dev->vlan_tci = (uint16_t)(a.pcp << 13 | (uint32_t)a.vlan);
		dev->l3_off += SROCE_VLAN_HLEN;
	}
	dev->fault = a.fault;
	dev->fault_rng = 1;
	pv_sroce_fault_reset(dev);
	snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "sroce%d", index);
	dev->nb_eng = (uint16_t)a.queues;
	ret = sroce_queues_check(dev, &a);
	if (ret != 0)
		goto err_free;
	ret = pv_sroce_tables_init(dev, a.max_qp, a.max_mr);
	if (ret != 0)
		goto err_free;
	ret = sroce_steer_init(dev);
	if (ret != 0)
		goto err_free;
	pv_sroce_tx_hook_update(dev);
	if (a.has_mac) {
		dev->mac = a.mac;
		(void)rte_eth_dev_default_mac_addr_set(port_id, &dev->mac);
	} else if (rte_eth_macaddr_get(port_id, &dev->mac) != 0 ||
		   rte_is_zero_ether_addr(&dev->mac)) {
		/* the port has none: a locally administered one from the IP */
		dev->mac.addr_bytes[0] = 0x02;
		dev->mac.addr_bytes[1] = 0x50;
		memcpy(&dev->mac.addr_bytes[2], &dev->ip, 4);
	}
	if (a.progress >= 0)
		dev->progress_mode = (enum pv_progress_mode)a.progress;
	else
		dev->progress_mode = pv_progress_mode_default();
	dev->mt = dev->progress_mode == PV_PROGRESS_THREAD_SAFE || dev->nb_eng > 1;
	if (dev->nb_eng > 1)
		dev->progress_mode = PV_PROGRESS_THREAD_SAFE;
	ret = sroce_port_setup(dev, &a);
	if (ret != 0)
		goto err_free;
	dev->active_mtu = sroce_mtu_from_eth(dev->eth_mtu);
	if (a.pcap[0] != '\0') {
		ret = sroce_pcap_open(dev, a.pcap);
		if (ret != 0)
			goto err_free;
	}
	snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "sroce%d", index);
	snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path), "ethdev:%s", a.port);
	snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path), "ethdev:%s", a.port);
	dev->ibdev.node_type = PV_NODE_CA;
	dev->ibdev.transport_type = PV_TRANSPORT_IB;
	dev->ibdev.driver_data = dev;
	sroce_gid_init(dev, &a);
	sroce_mc_setup(dev);
	*dev_p = dev;
	return 0;

err_free:
	sroce_dev_free(dev, 0);
	return ret;
}

static int
sroce_probe(const struct pv_driver *driver, const char *const *devargs, int nb_devargs)
{
	int i, ret, added = 0;

	pv_sroce_wire_init();
	for (i = 0; i < nb_devargs; i++) {
		struct sroce_dev *dev;

		if (sroce_nb_devs == SROCE_MAX_DEVS) {
			SROCE_LOG(ERR, "more than %d softroce devices", SROCE_MAX_DEVS);
			return added > 0 ? added : -ENOSPC;
		}
		ret = sroce_dev_probe_one(devargs[i], sroce_nb_devs, &dev);
		if (ret != 0)
			continue;
		ret = pv_device_add(driver, &dev->ibdev);
		if (ret != 0) {
			SROCE_LOG(ERR, "%s: registry: %s", dev->ibdev.name, rte_strerror(-ret));
			sroce_dev_free(dev, 0);
			continue;
		}
		sroce_devs[sroce_nb_devs++] = dev;
		added++;
		SROCE_LOG(INFO, "%s: port %s mac " RTE_ETHER_ADDR_PRT_FMT " ip %s mtu %u "
			  "active_mtu %d", dev->ibdev.name, dev->port_name,
			  RTE_ETHER_ADDR_BYTES(&dev->mac),
			  inet_ntoa((struct in_addr){ .s_addr = dev->ip }), dev->eth_mtu,
			  pv_mtu_to_bytes(dev->active_mtu));
	}
	if (added == 0 && nb_devargs > 0)
		return -ENODEV;
	return added;
}

static void
sroce_remove(struct pv_device *device)
{
	struct sroce_dev *dev = device->driver_data;
	int i;

	for (i = 0; i < sroce_nb_devs; i++) {
		if (sroce_devs[i] == dev) {
			sroce_devs[i] = sroce_devs[--sroce_nb_devs];
			sroce_devs[sroce_nb_devs] = NULL;
			break;
		}
	}
	sroce_dev_free(dev, 1);
}

static struct pv_context *
sroce_open_device(struct pv_device *device)
{
	struct sroce_ctx *ctx;

	struct sroce_dev *dev = device->driver_data;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&sroce_open_lock);
	ret = dev->nb_ctx == 0 ? sroce_link_monitor_start(dev) : 0;
	if (ret == 0 && dev->nb_ctx == 0 && dev->mt) {
		ret = pv_sroce_bg_start(dev);
		if (ret != 0)
			sroce_link_monitor_stop(dev);
	}
	if (ret == 0)
		dev->nb_ctx++;
	pthread_mutex_unlock(&sroce_open_lock);
	if (ret != 0) {
		free(ctx);
		errno = -ret;
		return NULL;
	}
	ctx->dev = dev;
	ctx->ibctx.device = device;
	ctx->ibctx.cmd_fd = -1;
	ctx->ibctx.async_fd = -1;
	ctx->ibctx.num_comp_vectors = dev->nb_eng;	/* CQ of vector i: engine i */
	return &ctx->ibctx;
}

static int
sroce_close_device(struct pv_context *context)
{
	struct sroce_dev *dev = sroce_dev_of(context);

	pthread_mutex_lock(&sroce_open_lock);
	if (--dev->nb_ctx == 0) {
		pv_sroce_bg_stop(dev);
		sroce_link_monitor_stop(dev);
	}
	pthread_mutex_unlock(&sroce_open_lock);
	free(sroce_ctx(context));
	return 0;
}

static int
sroce_query_device(struct pv_context *context, struct pv_device_attr *attr)
{
	struct sroce_dev *dev = sroce_dev_of(context);

	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "pollverbs-softroce");
	attr->node_guid = dev->ibdev.node_guid;
	attr->sys_image_guid = dev->ibdev.node_guid;
	attr->max_mr_size = UINT32_MAX;
	attr->page_size_cap = 0xfffff000;
	attr->vendor_id = 0xffffff;	/* as rxe: no IEEE OUI */
	attr->vendor_part_id = 0;
	attr->hw_ver = 0;
	attr->max_qp = dev->max_qp;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->device_cap_flags = PV_DEVICE_RC_RNR_NAK_GEN | PV_DEVICE_SYS_IMAGE_GUID |
				 PV_DEVICE_MEM_WINDOW | PV_DEVICE_MEM_WINDOW_TYPE_2B |
				 PV_DEVICE_XRC;
	attr->max_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = SROCE_MAX_CQ;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = dev->max_mr;
	attr->max_mw = SROCE_MAX_MW;
	attr->max_pd = 0xffff;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = SROCE_MAX_RD_ATOMIC * dev->max_qp;
	attr->atomic_cap = PV_ATOMIC_HCA;
	attr->max_srq = SROCE_MAX_SRQ;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_ah = SROCE_MAX_AH;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	attr->phys_port_cnt = 1;
	attr->max_inline_data = SROCE_MAX_INLINE;
	return 0;
}

static int
sroce_query_port(struct pv_context *context, uint8_t port_num, struct pv_port_attr *attr)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	struct pv_sroce_stats st;
	struct rte_eth_link link;
	uint8_t up;

	if (port_num != 1)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	memset(&link, 0, sizeof(link));
	(void)rte_eth_link_get_nowait(dev->port_id, &link);
	/* the state the link monitor last saw, so that it agrees with the
	 * PORT_ACTIVE / PORT_ERR events (at most a poll period behind) */
	up = __atomic_load_n(&dev->link_up, __ATOMIC_ACQUIRE);
	attr->state = up ? PV_PORT_ACTIVE : PV_PORT_DOWN;
	attr->phys_state = up ? 5 : 3;	/* LinkUp : Disabled */
	attr->max_mtu = PV_MTU_4096;
	attr->active_mtu = dev->active_mtu;
	attr->gid_tbl_len = dev->nb_gid;
	attr->port_cap_flags = PV_PORT_CM_SUP | PV_PORT_IP_BASED_GIDS;
	attr->max_msg_sz = SROCE_MAX_MSG;
	/* UD packets dropped for a Q_Key mismatch (32 bits, wraps) */
	sroce_dev_lock(dev);	/* the engines' counters */
	pv_sroce_stats_sum(dev, &st);
	sroce_dev_unlock(dev);
	attr->qkey_viol_cntr = (uint32_t)st.ud_qkey_drops;
	/* packets to the GSI QP dropped for their P_Key */
	attr->bad_pkey_cntr = (uint32_t)st.rx_drop_pkey;
	attr->pkey_tbl_len = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->subnet_timeout = 0;
	attr->active_width = 1;		/* 1X */
	/* speed: 25G (EDR lane) when the link says >= 25G, else 10G (QDR) */
	attr->active_speed = link.link_speed >= 25000 ? 32 : 4;
	attr->link_layer = PV_LINK_LAYER_ETHERNET;
	return 0;
}

static int
sroce_query_gid(struct pv_context *context, uint8_t port_num, int index, union pv_gid *gid)
{
	struct sroce_dev *dev = sroce_dev_of(context);

	if (port_num != 1 || index < 0 || index >= dev->nb_gid)
		return EINVAL;
	*gid = dev->gid[index];
	return 0;
}

static int
sroce_query_pkey(struct pv_context *context __rte_unused, uint8_t port_num, int index,
		 pv_be16 *pkey)
{
	if (port_num != 1 || index != 0)
		return EINVAL;
	*pkey = rte_cpu_to_be_16(SROCE_DEFAULT_PKEY);
	return 0;
}

static int
sroce_is_mine(struct pv_context *context)
{
	return context != NULL && context->device != NULL &&
	       context->device->driver != NULL &&
	       strcmp(context->device->driver->name, "softroce") == 0;
}

int
pv_sroce_stats_get(struct pv_context *context, struct pv_sroce_stats *stats)
{
	struct sroce_dev *dev;

	if (!sroce_is_mine(context) || stats == NULL)
		return -EINVAL;
	dev = sroce_dev_of(context);
	sroce_dev_lock(dev);
	pv_sroce_stats_sum(dev, stats);
	sroce_dev_unlock(dev);
	return 0;
}

int
pv_sroce_fault_set(struct pv_context *context, const struct pv_sroce_fault *fault)
{
	struct sroce_dev *dev;

	if (!sroce_is_mine(context) || fault == NULL)
		return -EINVAL;
	dev = sroce_dev_of(context);
	if (dev->nb_eng > 1)
		return -ENOTSUP;	/* fault injection: queues=1 */
	sroce_dev_lock(dev);
	dev->fault = *fault;
	dev->fault_tx_cnt = 0;
	dev->fault_rx_cnt = 0;
	dev->fault_rng = 1;
	pv_sroce_fault_reset(dev);
	pv_sroce_tx_hook_update(dev);
	sroce_dev_unlock(dev);
	return 0;
}

static int
sroce_set_progress_mode(struct pv_context *context, enum pv_progress_mode mode)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	int ret = 0;

	pthread_mutex_lock(&sroce_open_lock);
	sroce_dev_lock(dev);
	if (dev->nb_qp_all != 0 || dev->nb_cq != 0 || dev->nb_srq != 0) {
		sroce_dev_unlock(dev);
		pthread_mutex_unlock(&sroce_open_lock);
		SROCE_LOG(ERR, "%s: progress mode: the device has QPs, CQs or SRQs",
			  dev->ibdev.name);
		return EBUSY;
	}
	sroce_dev_unlock(dev);
	if (mode == PV_PROGRESS_APP && dev->nb_eng > 1) {
		pthread_mutex_unlock(&sroce_open_lock);
		SROCE_LOG(ERR, "%s: queues=%u: thread-safe mode only", dev->ibdev.name,
			  dev->nb_eng);
		return EOPNOTSUPP;
	}
	if (mode == PV_PROGRESS_APP) {
		pv_sroce_bg_stop(dev);
		dev->mt = 0;
		dev->eng[0].owner_set = 0;
	} else {
		dev->mt = 1;
		if (dev->nb_ctx != 0)
			ret = -pv_sroce_bg_start(dev);
	}
	if (ret == 0)
		dev->progress_mode = mode;
	else
		dev->mt = dev->progress_mode == PV_PROGRESS_THREAD_SAFE;
	pthread_mutex_unlock(&sroce_open_lock);
	return ret;
}

static int
sroce_get_progress_mode(struct pv_context *context)
{
	return (int)sroce_dev_of(context)->progress_mode;
}

/*
 * Control verbs under the device lock in thread-safe mode (the engine may run
 * on the progress thread meanwhile); the function names the driver's own.
 */
#define SROCE_LOCKED(ret_t, fn, dev_of, proto, args) \
static ret_t \
sroce_locked_##fn proto \
{ \
	struct sroce_dev *dev = (dev_of); \
	ret_t r; \
	sroce_dev_lock(dev); \
	r = pv_sroce_##fn args; \
	sroce_dev_unlock(dev); \
	return r; \
}

SROCE_LOCKED(struct pv_pd *, pd_alloc, sroce_dev_of(c), (struct pv_context *c), (c))
SROCE_LOCKED(int, pd_dealloc, sroce_pd(p)->dev, (struct pv_pd *p), (p))
SROCE_LOCKED(struct pv_mr *, mr_reg, sroce_pd(p)->dev,
	     (struct pv_pd *p, void *addr, size_t len, int acc), (p, addr, len, acc))
SROCE_LOCKED(struct pv_mr *, mr_reg_iova, sroce_pd(p)->dev,
	     (struct pv_pd *p, void *addr, size_t len, uint64_t iova, int acc),
	     (p, addr, len, iova, acc))
SROCE_LOCKED(int, mr_dereg, sroce_mr(m)->pd->dev, (struct pv_mr *m), (m))
SROCE_LOCKED(int, mr_rereg, sroce_mr(m)->pd->dev,
	     (struct pv_mr *m, int f, struct pv_pd *p, void *a, size_t l, int acc),
	     (m, f, p, a, l, acc))
SROCE_LOCKED(struct pv_cq *, cq_create, sroce_dev_of(c),
	     (struct pv_context *c, int cqe, struct pv_comp_channel *ch, int vec),
	     (c, cqe, ch, vec))
SROCE_LOCKED(int, cq_resize, sroce_cq(cq)->dev, (struct pv_cq *cq, int cqe), (cq, cqe))
SROCE_LOCKED(int, cq_destroy, sroce_cq(cq)->dev, (struct pv_cq *cq), (cq))
SROCE_LOCKED(struct pv_srq *, srq_create, sroce_pd(p)->dev,
	     (struct pv_pd *p, struct pv_srq_init_attr *a), (p, a))
SROCE_LOCKED(int, srq_modify, sroce_srq(s)->dev,
	     (struct pv_srq *s, struct pv_srq_attr *a, int m), (s, a, m))
SROCE_LOCKED(int, srq_query, sroce_srq(s)->dev, (struct pv_srq *s, struct pv_srq_attr *a),
	     (s, a))
SROCE_LOCKED(int, srq_destroy, sroce_srq(s)->dev, (struct pv_srq *s), (s))
SROCE_LOCKED(struct pv_qp *, qp_create, sroce_pd(p)->dev,
	     (struct pv_pd *p, struct pv_qp_init_attr *a), (p, a))
SROCE_LOCKED(struct pv_qp *, qp_create_gsi, sroce_pd(p)->dev,
	     (struct pv_pd *p, struct pv_qp_init_attr *a), (p, a))
SROCE_LOCKED(int, qp_modify, sroce_qp(q)->dev, (struct pv_qp *q, struct pv_qp_attr *a, int m),
	     (q, a, m))
SROCE_LOCKED(int, qp_query, sroce_qp(q)->dev, (struct pv_qp *q, struct pv_qp_attr *a, int m),
	     (q, a, m))
SROCE_LOCKED(int, qp_destroy, sroce_qp(q)->dev, (struct pv_qp *q), (q))
SROCE_LOCKED(struct pv_ah *, ah_create, sroce_pd(p)->dev,
	     (struct pv_pd *p, struct pv_ah_attr *a), (p, a))
SROCE_LOCKED(int, ah_destroy, sroce_ah(a)->dev, (struct pv_ah *a), (a))
SROCE_LOCKED(struct pv_mw *, mw_alloc, sroce_pd(p)->dev, (struct pv_pd *p, enum pv_mw_type t),
	     (p, t))
SROCE_LOCKED(int, mw_dealloc, sroce_pd(w->pd)->dev, (struct pv_mw *w), (w))
SROCE_LOCKED(struct pv_xrcd *, xrcd_open, sroce_dev_of(c),
	     (struct pv_context *c, struct pv_xrcd_init_attr *a), (c, a))
SROCE_LOCKED(int, xrcd_close, sroce_dev_of(x->context), (struct pv_xrcd *x), (x))
SROCE_LOCKED(struct pv_srq *, srq_create_ex, sroce_dev_of(c),
	     (struct pv_context *c, struct pv_srq_init_attr_ex *a), (c, a))
SROCE_LOCKED(int, srq_num, sroce_srq(s)->dev, (struct pv_srq *s, uint32_t *n), (s, n))

/*
 * create_qp_ex: XRC INI/TGT QPs here, every other type as create_qp.
 * lib/verbs checked comp_mask, the PD or XRCD, send_ops_flags; creation
 * flags, TSO headers, RSS are not implemented.
 */
static struct pv_qp *
sroce_qp_create_ex(struct pv_context *c, struct pv_qp_init_attr_ex *x)
{
	struct sroce_dev *dev = sroce_dev_of(c);
	struct pv_qp_init_attr a;
	struct pv_qp *qp;

	if (x->comp_mask & ~(uint32_t)(PV_QP_INIT_ATTR_PD | PV_QP_INIT_ATTR_XRCD |
				       PV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		SROCE_LOG(ERR, "%s: qp comp_mask 0x%x: creation flags, TSO and RSS are not "
			  "implemented", dev->ibdev.name, x->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	pv_qp_init_attr_from_ex(&a, x);
	sroce_dev_lock(dev);
	if (x->qp_type == PV_QPT_XRC_SEND || x->qp_type == PV_QPT_XRC_RECV)
		qp = pv_sroce_qp_create_xrc(c, x->pd, &a,
					    x->qp_type == PV_QPT_XRC_RECV ? x->xrcd : NULL);
	else
		qp = pv_sroce_qp_create(x->pd, &a);
	sroce_dev_unlock(dev);
	if (qp != NULL)
		x->cap = a.cap;
	return qp;
}

static const struct pv_driver_ops sroce_ops = {
	.probe = sroce_probe,
	.remove = sroce_remove,
	.open_device = sroce_open_device,
	.close_device = sroce_close_device,
	.query_device = sroce_query_device,
	.query_port = sroce_query_port,
	.query_gid = sroce_query_gid,
	.query_pkey = sroce_query_pkey,
	.alloc_pd = sroce_locked_pd_alloc,
	.dealloc_pd = sroce_locked_pd_dealloc,
	.reg_mr = sroce_locked_mr_reg,
	.reg_mr_iova = sroce_locked_mr_reg_iova,
	.rereg_mr = sroce_locked_mr_rereg,
	.dereg_mr = sroce_locked_mr_dereg,
	.create_ah = sroce_locked_ah_create,
	.destroy_ah = sroce_locked_ah_destroy,
	.create_cq = sroce_locked_cq_create,
	.resize_cq = sroce_locked_cq_resize,
	.destroy_cq = sroce_locked_cq_destroy,
	.create_srq = sroce_locked_srq_create,
	.modify_srq = sroce_locked_srq_modify,
	.query_srq = sroce_locked_srq_query,
	.destroy_srq = sroce_locked_srq_destroy,
	.create_qp = sroce_locked_qp_create,
	.create_qp_ex = sroce_qp_create_ex,
	.create_gsi_qp = sroce_locked_qp_create_gsi,
	.modify_qp = sroce_locked_qp_modify,
	.query_qp = sroce_locked_qp_query,
	.destroy_qp = sroce_locked_qp_destroy,
	.alloc_mw = sroce_locked_mw_alloc,
	.dealloc_mw = sroce_locked_mw_dealloc,
	.open_xrcd = sroce_locked_xrcd_open,
	.close_xrcd = sroce_locked_xrcd_close,
	.create_srq_ex = sroce_locked_srq_create_ex,
	.get_srq_num = sroce_locked_srq_num,
	.progress = pv_sroce_progress,
	.set_progress_mode = sroce_set_progress_mode,
	.get_progress_mode = sroce_get_progress_mode,
};

PV_DRIVER_REGISTER(softroce, sroce_ops);
