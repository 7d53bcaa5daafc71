/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Helpers of the softroce engine unit tests (test_sroce_req.c,
 * test_sroce_resp.c): a QP's header template without a port, and the
 * frames a test's device queued, parsed back.
 */

#ifndef PV_TEST_UNIT_SOFTROCE_UT_SROCE_UNIT_H
#define PV_TEST_UNIT_SOFTROCE_UT_SROCE_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "sroce_priv.h"

/* Eth / IPv4 10.0.0.1 > 10.0.0.2 / UDP 0xc001 > 4791 / BTH to qp->dqpn */
static inline void
ut_qp_hdr_build(struct sroce_qp *qp)
{
	uint8_t *h = qp->hdr, *ip, *udp;
	uint32_t sum = 0;
	int i;

	memset(h, 0, sizeof(qp->hdr));
	memset(h, 0x02, 12);
	h[12] = 0x08;
	ip = h + 14;
	ip[0] = 0x45;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = 1;
	ip[16] = 10;
	ip[19] = 2;
	udp = ip + 20;
	udp[0] = 0xc0;
	udp[1] = 0x01;
	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	((struct sroce_bth *)(udp + 8))->pkey = rte_cpu_to_be_16(0xffff);
	((struct sroce_bth *)(udp + 8))->qpn = rte_cpu_to_be_32(qp->dqpn);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	qp->ip_sum = sum;
	qp->path.hdr_len = SROCE_HDR_TMPL_LEN;
	qp->path.l3_off = SROCE_ETH_HLEN;
	qp->path.ip6 = 0;
	memset(qp->path.dst, 0, sizeof(qp->path.dst));
	qp->path.dst[10] = 0xff;
	qp->path.dst[11] = 0xff;
	memcpy(qp->path.dst + 12, ip + 16, 4);
}

/*
 * Parse (ICRC verified) and free every frame @p dev queued; the first @p max
 * land in @p pkts without their frame pointer. @return how many
 */
static inline int
ut_tx_drain(struct sroce_dev *dev, struct sroce_pkt *pkts, int max)
{
	int n = 0;

	while (dev->eng[0].tx_head != dev->eng[0].tx_tail) {
		struct rte_mbuf *m = dev->eng[0].tx_ring[dev->eng[0].tx_head];
		struct sroce_pkt p;

		CU_ASSERT_EQUAL(pv_sroce_pkt_parse(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, 1,
						   &p), 0);
		p.frame = NULL;
		if (n < max)
			pkts[n] = p;
		n++;
		rte_pktmbuf_free(m);
		dev->eng[0].tx_head = (dev->eng[0].tx_head + 1) & (SROCE_TX_RING - 1);
	}
	return n;
}

/*
 * EAL without hugepages or PCI on lcore 0 (--file-prefix=@p prog), and a
 * device with an mbuf pool and nothing else. @return the device; NULL and
 * *@p rc_p set to 77 (no EAL: skipped) or 1 when it cannot be set up
 */
static inline struct sroce_dev *
ut_eal_dev_init(const char *prog, int *rc_p)
{
	char prefix[64];
	char *eal[] = { (char *)(uintptr_t)prog, "--no-huge", "--no-pci", "-m", "64", "-l", "0",
			prefix, "--log-level=*:error" };
	struct sroce_dev *d;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", prog);
	*rc_p = 77;
	if (rte_eal_init(RTE_DIM(eal), eal) < 0)
		return NULL;
	*rc_p = 1;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	if (pv_sroce_tables_init(d, 16, 16) != 0) {
		free(d);
		return NULL;
	}
	d->mp = rte_pktmbuf_pool_create(prog, 2048, 0, 0, SROCE_MBUF_DATA, 0);
	if (d->mp == NULL) {
		pv_sroce_tables_fini(d);
		free(d);
		return NULL;
	}
	return d;
}

#endif /* PV_TEST_UNIT_SOFTROCE_UT_SROCE_UNIT_H */
