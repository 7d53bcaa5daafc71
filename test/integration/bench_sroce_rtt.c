/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * bench_sroce_rtt: the software cost of one RC SEND round trip through
 * softroce, measured in one thread. Two softroce devices over crossed
 * net_ring ports (no memif, no second core, no scheduler between the
 * sides): A sends SIZE bytes inline, B's receive completes, B reposts its
 * receive and answers, A's receive completes; perftest's send_lat shape
 * (one send in 100 signalled). Every cycle of the round trip is softroce and
 * the ring PMD on one core, so the figure moves when the data path's cost
 * moves and hardly with the machine's load (min and median over blocks).
 *
 * usage: bench_sroce_rtt [ITERS [SIZE]]   (defaults 200000, 8)
 * Prints ns per round trip (min / median of 1000-iteration blocks) and the
 * ACKs each side sent. Not a test: built with the integration tests, run
 * by hand (doc/guides/apps/perf.rst, "Profiling the round trip").
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_sroce.h"

#define BLOCK 1000

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* spin both devices until a RECV completes on @p c; @return 0 or -1 (error WC) */
static int
wait_recv(struct pv_cq *c)
{
	struct pv_wc wc;

	for (;;) {
		if (pv_poll_cq(c, 1, &wc) == 1) {
			if (wc.status != PV_WC_SUCCESS) {
				fprintf(stderr, "bench_sroce_rtt: completion: %s\n",
					pv_wc_status_str(wc.status));
				return -1;
			}
			if (wc.opcode == PV_WC_RECV)
				return 0;
			continue;
		}
		pv_progress(ctx[0]);
		pv_progress(ctx[1]);
	}
}

static int
send_inline(struct pv_qp *qp, void *buf, uint32_t len, uint32_t lkey, int signal)
{
	struct pv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = (len <= 64 ? PV_SEND_INLINE : 0) | (signal ? PV_SEND_SIGNALED : 0);
	return pv_post_send(qp, &wr, &bad);
}

int
main(int argc, char **argv)
{
	uint32_t iters = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 200000;
	uint32_t size = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 8;
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_sroce_stats sa, sb;
	struct ut_buf *ba, *bb;
	struct ut_pair p;
	uint64_t *blk, t0 = 0, hz;
	uint32_t i, nblk;
	int ret;

	if (iters < BLOCK || size == 0 || size > 4096) {
		fprintf(stderr, "usage: bench_sroce_rtt [ITERS>=%u [SIZE 1..4096]]\n", BLOCK);
		return 2;
	}
	ret = ut_ring_pair_init("bench_sroce_rtt", 256, "rtt", 1024, "ip=10.0.0.1,mtu=9000",
				"ip=10.0.0.2,mtu=9000");
	if (ret != 0)
		return ret;
	/* pv-perf's mode: this thread is the only one of both devices */
	if (ut_devs_open_app(ctx, pd, cq, 1024, 0, 1) != 0)
		return 1;
	ba = ut_buf_alloc(pd[0], 2 * 4096, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	bb = ut_buf_alloc(pd[1], 2 * 4096, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	nblk = iters / BLOCK;
	blk = calloc(nblk, sizeof(*blk));
	if (ba == NULL || bb == NULL || blk == NULL)
		return 1;
	ret = ut_pair_rtr(&p, pd, cq, 256, &o, &o, 0x100, 0x200, PV_MTU_4096);
	if (ret == 0)
		ret = ut_pair_rts(&p, &o, &o);
	if (ret != 0) {
		fprintf(stderr, "bench_sroce_rtt: connect: %s\n", strerror(ret));
		return 1;
	}
	if (ut_post_recv1(p.qa, 1, ba->addr + 4096, 4096, ba->mr->lkey) != 0 ||
	    ut_post_recv1(p.qb, 2, bb->addr + 4096, 4096, bb->mr->lkey) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	for (i = 0; i < nblk * BLOCK; i++) {
		int sig = i % 100 == 99;

		if (i % BLOCK == 0)
			t0 = rte_rdtsc();
		if (send_inline(p.qa, ba->addr, size, ba->mr->lkey, sig) != 0 ||
		    wait_recv(cq[1]) != 0 ||
		    ut_post_recv1(p.qb, 2, bb->addr + 4096, 4096, bb->mr->lkey) != 0 ||
		    send_inline(p.qb, bb->addr, size, bb->mr->lkey, sig) != 0 ||
		    wait_recv(cq[0]) != 0 ||
		    ut_post_recv1(p.qa, 1, ba->addr + 4096, 4096, ba->mr->lkey) != 0) {
			fprintf(stderr, "bench_sroce_rtt: iteration %u failed\n", i);
			return 1;
		}
		if (i % BLOCK == BLOCK - 1)
			blk[i / BLOCK] = rte_rdtsc() - t0;
	}
	qsort(blk, nblk, sizeof(*blk), cmp_u64);
	pv_sroce_stats_get(ctx[0], &sa);
	pv_sroce_stats_get(ctx[1], &sb);
	printf("bench_sroce_rtt: %u round trips of %u B: ns per round trip min %.1f median %.1f "
	       "(blocks of %u); ACKs sent A %" PRIu64 " B %" PRIu64 "\n",
	       nblk * BLOCK, size, blk[0] * 1e9 / hz / BLOCK, blk[nblk / 2] * 1e9 / hz / BLOCK,
	       BLOCK, sa.acks_tx, sb.acks_tx);
	free(blk);
	ut_buf_free(ba);
	ut_buf_free(bb);
	pv_cleanup();
	return 0;
}
