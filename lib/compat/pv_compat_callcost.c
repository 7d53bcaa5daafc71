/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-compat-callcost (build/lib/compat, not installed): what the compat
 * data path adds to a verb. Polls one empty CQ of a softroce device N times
 * through the program's inline ibv_poll_cq() (ops.poll_cq of lib/compat)
 * and N times through pv_poll_cq() on the pollverbs CQ behind it (what a
 * native program calls), alternating, four rounds; prints nanoseconds per
 * call of the best round of each and their difference. Both do the same
 * work underneath (the device lock and a progress pass: an RX burst).
 *
 *   build/usertools/pv-run --vdev=net_null0 \
 *       --pv-dev=softroce:port=net_null0,ip=10.99.5.1 -- \
 *       build/lib/compat/pv-compat-callcost [N]
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "compat_priv.h"

#define CALLCOST_ROUNDS 4

static double
callcost_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	double best_ibv = 1e18, best_pv = 1e18, t0;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct pv_cq *pvcq;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	long sink = 0;
	long i;
	int num = 0;
	int r;

	list = ibv_get_device_list(&num);
	if (list == NULL || num == 0) {
		fprintf(stderr, "pv-compat-callcost: no device (run it through pv-run)\n");
		return 77;
	}
	ctx = ibv_open_device(list[0]);
	cq = ctx == NULL ? NULL : ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (cq == NULL) {
		perror("pv-compat-callcost: device or CQ");
		return 1;
	}
	pvcq = pvc_cq(cq)->pv;
	for (r = 0; r < CALLCOST_ROUNDS; r++) {
		t0 = callcost_now_ns();
		for (i = 0; i < n; i++)
			sink += ibv_poll_cq(cq, 1, &wc);
		if ((callcost_now_ns() - t0) / n < best_ibv)
			best_ibv = (callcost_now_ns() - t0) / n;
		t0 = callcost_now_ns();
		for (i = 0; i < n; i++)
			sink += pv_poll_cq(pvcq, 1, (struct pv_wc *)&wc);
		if ((callcost_now_ns() - t0) / n < best_pv)
			best_pv = (callcost_now_ns() - t0) / n;
	}
	printf("empty poll of a softroce CQ, best of %d rounds of %ld calls:\n",
	       CALLCOST_ROUNDS, n);
	printf("  ibv_poll_cq (lib/compat)  %8.2f ns/call\n", best_ibv);
	printf("  pv_poll_cq  (native)      %8.2f ns/call\n", best_pv);
	printf("  compat adds               %8.2f ns/call (%.1f %%)%s\n", best_ibv - best_pv,
	       100.0 * (best_ibv - best_pv) / best_pv, sink != 0 ? " (completions seen)" : "");
	ibv_destroy_cq(cq);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
