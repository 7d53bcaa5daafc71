/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Address handles of UD QPs (IBTA vol. 1 9.8.4, 10.2.4).
 *
 * An address handle carries the Ethernet [802.1Q], IPv4 or IPv6 and UDP
 * headers of one destination, built when it is created: the destination MAC
 * is resolved then from the dgid through the neighbour table (ARP for an
 * IPv4-mapped dgid, neighbour discovery for IPv6; an IPv6 multicast dgid maps
 * to 33:33:xx:xx:xx:xx), as modify_qp(RTR) does for a connected QP
 * (create_ah never waits: see sroce_arp.c). A dgid that is one of the
 * device's own GIDs is loopback: its frames are received by the device
 * itself, not sent (sroce_net.c).
 *
 * The UD data path shares the RC/UC bodies under SROCE_QPF_UD: post_send in
 * sroce_qp.c, the requester in sroce_req.c (one SEND ONLY per WQE: BTH +
 * DETH [+ ImmDt] + payload, completed when queued; above the path MTU it
 * completes successfully with no packet, C10-93.1.1, counted in
 * ud_oversize), the responder in sroce_resp.c (Q_Key check, then the
 * 40-byte GRH area and the payload into a receive WQE of the RQ or SRQ; on
 * RoCEv2 over IPv4 the GRH area holds 20 zero bytes then the received IPv4
 * header, as rxe and mlx5 write it, over IPv6 the received IPv6 header; no receive WQE or CQ space: dropped and
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
	struct sroce_dev *dev = sroce_pd(ibpd)->dev;
	const uint8_t *g = attr->grh.dgid.raw;
	struct rte_ether_addr mac;
	struct sroce_ah *ah;
	int ret;

	/* lib/verbs checked port_num, is_global and sgid_index < gid_tbl_len */
	if (attr->grh.sgid_index >= dev->nb_gid ||
	    sroce_gid_is_v4(dev->gid[attr->grh.sgid_index].raw) != sroce_gid_is_v4(g)) {
		SROCE_LOG(ERR, "%s: ah: sgid_index %u: no such GID, or dgid of the other family",
			  dev->ibdev.name, attr->grh.sgid_index);
		errno = EINVAL;
		return NULL;
	}
	if (sroce_gid_is_v4(g) && (g[12] >> 4) == 0xe) {
		SROCE_LOG(ERR, "%s: ah: IPv4 multicast destinations are not implemented",
			  dev->ibdev.name);
		errno = EINVAL;
		return NULL;
	}
	ah = rte_zmalloc("sroce_ah", sizeof(*ah), RTE_CACHE_LINE_SIZE);
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* never waits: frames wait for the neighbour instead (sroce_arp.c);
	 * IPv6 multicast maps to 33:33:xx directly, our own address loops back */
	(void)pv_sroce_neigh_lookup(dev, g, &mac);
	ah->dev = dev;
	/* TTL / hop limit as given (rxe: the same); sport and dqpn per WR */
	ret = pv_sroce_hdr_build(dev, ah->hdr, &mac, attr->grh.sgid_index, g,
				 attr->grh.traffic_class, attr->grh.hop_limit, 0, 0, &ah->path,
				 &ah->ip_sum);
	if (ret != 0) {
		rte_free(ah);
		errno = EINVAL;
		return NULL;
	}
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
