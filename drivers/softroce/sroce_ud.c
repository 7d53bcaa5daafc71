/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Address handles of UD QPs (IBTA vol. 1 9.8.4, 10.2.4).
 *
 * An address handle carries the Ethernet, IPv4 and UDP headers of one
 * destination, built when it is created: the destination MAC is resolved
 * then from the IPv4-mapped dgid through the ARP cache, as modify_qp(RTR)
 * does for a connected QP (create_ah never waits: see sroce_arp.c).
 *
 * The UD data path shares the RC/UC bodies under SROCE_QPF_UD: post_send in
 * sroce_qp.c, the requester in sroce_req.c (one SEND ONLY per WQE: BTH +
 * DETH [+ ImmDt] + payload, completed when queued; above the path MTU it
 * completes successfully with no packet, C10-93.1.1, counted in
 * ud_oversize), the responder in sroce_resp.c (Q_Key check, then the
 * 40-byte GRH area and the payload into a receive WQE of the RQ or SRQ; on
 * RoCEv2 over IPv4 the GRH area holds 20 zero bytes then the received IPv4
 * header, as rxe and mlx5 write it; no receive WQE or CQ space: dropped and
 * counted in ud_drops, UD has no RNR; a receive buffer smaller than 40 +
 * payload completes with LOC_LEN_ERR and moves the QP to ERR).
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sroce_priv.h"

struct pv_ah *
pv_sroce_ah_create(struct pv_pd *ibpd, struct pv_ah_attr *attr)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct sroce_dev *dev = sroce_pd(ibpd)->dev;
	const uint8_t *g = attr->grh.dgid.raw;
	struct rte_ether_addr mac;
	struct sroce_ah *ah;
	uint8_t *ip;
	uint32_t dip, sum = 0;
	int i;

	/* lib/verbs checked port_num, is_global and sgid_index < gid_tbl_len */
	if (memcmp(g, v4map, sizeof(v4map)) != 0) {
		SROCE_LOG(ERR, "%s: ah: dgid is not IPv4-mapped (IPv6 RoCEv2 not implemented)",
			  dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	if (attr->grh.sgid_index != 1) {
		SROCE_LOG(ERR, "%s: ah: sgid_index %u: only index 1 (IPv4 RoCEv2) is usable",
			  dev->ibdev.name, attr->grh.sgid_index);
		errno = EINVAL;
		return NULL;
	}
	memcpy(&dip, g + 12, 4);
	if (dip == dev->ip || (rte_be_to_cpu_32(dip) >> 28) == 0xe) {
		SROCE_LOG(ERR, "%s: ah: loopback and multicast destinations are not implemented",
			  dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	/* never waits: frames wait for the neighbour instead (sroce_arp.c) */
	(void)pv_sroce_neigh_lookup(dev, dip, &mac);
	ah = rte_zmalloc("sroce_ah", sizeof(*ah), RTE_CACHE_LINE_SIZE);
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->dev = dev;
	memcpy(ah->hdr, mac.addr_bytes, 6);
	memcpy(ah->hdr + 6, dev->mac.addr_bytes, 6);
	ah->hdr[12] = 0x08;
	ah->hdr[13] = 0x00;
	ip = ah->hdr + SROCE_ETH_HLEN;
	ip[0] = 0x45;
	ip[1] = attr->grh.traffic_class;
	ip[6] = 0x40;				/* DF, id 0 */
	ip[8] = attr->grh.hop_limit;		/* TTL as given (rxe: the same) */
	ip[9] = 17;
	memcpy(ip + 12, &dev->ip, 4);
	memcpy(ip + 16, &dip, 4);
	ip[SROCE_IPV4_HLEN + 2] = SROCE_UDP_PORT >> 8;
	ip[SROCE_IPV4_HLEN + 3] = SROCE_UDP_PORT & 0xff;
	for (i = 0; i < SROCE_IPV4_HLEN; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	ah->ip_sum = sum;
	TAILQ_INSERT_TAIL(&dev->ahs, ah, next);
	dev->nb_ah++;
	return &ah->ibah;
}

int
pv_sroce_ah_destroy(struct pv_ah *ibah)
{
	struct sroce_ah *ah = sroce_ah(ibah);

	TAILQ_REMOVE(&ah->dev->ahs, ah, next);
	ah->dev->nb_ah--;
	rte_free(ah);
	return 0;
}
