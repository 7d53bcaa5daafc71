/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-mlx5-bench: the mlx5 data path's instruction budget. Posts 8-byte
 * inline RDMA WRITEs in lists of 32 on a loopback QP of the device model,
 * steps the model synchronously (deterministic, no second lcore), and polls
 * the 32 CQEs. Run under callgrind by usertools/pv-bench-mlx5.sh, which
 * counts instructions in the driver's post_send and poll_cq only.
 *
 * Usage: pv-mlx5-bench [EAL options] -- [-n LISTS] [-b LIST_LEN]
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "pv_rtc.h"
#include "pv_verbs.h"

#include "mlx5_model.h"
#include "pv_app.h"

#define BENCH_MAX_LIST 256

struct bench {
	struct pv_context *ctx;
	struct pv_pd *pd;
	struct pv_mr *mr;
	struct pv_cq *cq_a;
	struct pv_cq *cq_b;
	struct pv_qp *a;
	struct pv_qp *b;
	uint8_t buf[4096] __rte_aligned(64);
};

static int
bench_connect(struct pv_qp *qp, uint32_t dest)
{
	struct pv_app_qp_peer peer = { .qpn = dest };
	struct pv_app_qp_opts o;

	if (pv_query_gid(qp->context, 1, 0, &peer.gid) != 0)
		return -1;
	pv_app_qp_opts_init(&o);
	o.name = "pv-mlx5-bench";
	o.mtu = PV_MTU_4096;
	o.access = PV_ACCESS_REMOTE_WRITE;
	o.min_rnr_timer = 1;
	return pv_app_qp_connect(qp, &o, &peer) == 0 ? 0 : -1;
}

static int
bench_setup(struct bench *b)
{
	struct pv_qp_init_attr ia;
	struct pv_device **list;
	int i, n;

	list = pv_get_device_list(&n);
	if (list == NULL)
		return -1;
	for (i = 0; i < n && b->ctx == NULL; i++)
		if (strncmp(pv_get_device_name(list[i]), "mlx5_model", 10) == 0)
			b->ctx = pv_open_device(list[i]);
	pv_free_device_list(list);
	if (b->ctx == NULL) {
		fprintf(stderr, "no mlx5 device model (--pv-dev=mlx5_model:lcore=none)\n");
		return -1;
	}
	b->pd = pv_alloc_pd(b->ctx);
	if (b->pd == NULL)
		return -1;
	b->mr = pv_reg_mr(b->pd, b->buf, sizeof(b->buf),
			  PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	b->cq_a = pv_create_cq(b->ctx, 1024, NULL, NULL, 0);
	b->cq_b = pv_create_cq(b->ctx, 1024, NULL, NULL, 0);
	if (b->mr == NULL || b->cq_a == NULL || b->cq_b == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PV_QPT_RC;
	ia.cap.max_send_wr = 128;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 64;
	ia.send_cq = b->cq_a;
	ia.recv_cq = b->cq_a;
	b->a = pv_create_qp(b->pd, &ia);
	ia.send_cq = b->cq_b;
	ia.recv_cq = b->cq_b;
	b->b = pv_create_qp(b->pd, &ia);
	if (b->a == NULL || b->b == NULL)
		return -1;
	return bench_connect(b->a, b->b->qp_num) || bench_connect(b->b, b->a->qp_num);
}

static void
bench_teardown(struct bench *b)
{
	pv_destroy_qp(b->a);
	pv_destroy_qp(b->b);
	pv_destroy_cq(b->cq_a);
	pv_destroy_cq(b->cq_b);
	pv_dereg_mr(b->mr);
	pv_dealloc_pd(b->pd);
	pv_close_device(b->ctx);
}

int
main(int argc, char **argv)
{
	static struct bench b;
	struct pv_send_wr wr[BENCH_MAX_LIST], *bad;
	struct pv_wc wc[BENCH_MAX_LIST];
	struct pv_sge sge;
	struct pv_mlx5_mdl_stats st;
	unsigned long lists = 10000, len = 32, l, wqes = 0, cqes = 0;
	uint64_t t0, tsc_post = 0, tsc_poll = 0;
	int ret, opt, i;

	ret = pv_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((opt = getopt(argc, argv, "n:b:")) != -1) {
		switch (opt) {
		case 'n':
			lists = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			len = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: pv-mlx5-bench [EAL] -- [-n lists] [-b list_len]\n");
			return 2;
		}
	}
	if (len == 0 || len > BENCH_MAX_LIST || len > 64) {
		fprintf(stderr, "list length must be 1..64\n");
		return 2;
	}
	if (bench_setup(&b) != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}

	sge.addr = (uintptr_t)b.buf;
	sge.length = 8;
	sge.lkey = b.mr->lkey;
	for (i = 0; i < (int)len; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].opcode = PV_WR_RDMA_WRITE;
		wr[i].send_flags = PV_SEND_INLINE | PV_SEND_SIGNALED;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].wr.rdma.remote_addr = (uintptr_t)b.buf + 2048 + 8 * i;
		wr[i].wr.rdma.rkey = b.mr->rkey;
		wr[i].next = i + 1 < (int)len ? &wr[i + 1] : NULL;
	}
	for (l = 0; l < lists; l++) {
		int got = 0;

		t0 = rte_rdtsc();
		ret = pv_post_send(b.a, wr, &bad);
		if (ret != 0) {
			fprintf(stderr, "post_send failed at list %lu: %s\n", l, strerror(ret));
			return 1;
		}
		tsc_post += rte_rdtsc() - t0;
		wqes += len;
		/* the device: outside the measured functions */
		pv_mlx5_model_step();
		while (got < (int)len) {
			int n;

			t0 = rte_rdtsc();
			n = pv_poll_cq(b.cq_a, (int)len - got, wc + got);
			tsc_poll += rte_rdtsc() - t0;
			if (n < 0) {
				fprintf(stderr, "poll_cq failed\n");
				return 1;
			}
			if (n == 0)
				pv_mlx5_model_step();
			got += n;
		}
		for (i = 0; i < got; i++) {
			if (wc[i].status != PV_WC_SUCCESS || wc[i].wr_id != (uint64_t)i) {
				fprintf(stderr, "bad completion %d: status %d wr_id %lu\n", i,
					wc[i].status, (unsigned long)wc[i].wr_id);
				return 1;
			}
		}
		cqes += got;
	}
	pv_mlx5_model_stats_get(&st);
	printf("device: %s (device model)\n", pv_get_device_name(b.ctx->device));
	printf("lists: %lu of %lu\n", lists, len);
	printf("wqes: %lu\n", wqes);
	printf("cqes: %lu\n", cqes);
	printf("doorbells: %lu\n", (unsigned long)st.doorbells);
	printf("bf_full: %lu\n", (unsigned long)st.bf_full);
	printf("db_errors: %lu\n", (unsigned long)st.db_errors);
	printf("tsc per wqe (post_send): %.1f\n", (double)tsc_post / wqes);
	printf("tsc per cqe (poll_cq): %.1f\n", (double)tsc_poll / cqes);
	bench_teardown(&b);
	pv_cleanup();
	return 0;
}
