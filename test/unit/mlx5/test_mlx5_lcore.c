/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_lcore: the device model as pv-perf meets it. EAL -l 0,1 and
 * --pv-dev=mlx5_model: the model polls on lcore 1 (a pv_rtc poller), the
 * test posts and polls through pv_* on lcore 0 and never steps the model,
 * like an application beside a NIC.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "pv_rtc.h"
#include "ut_mlx5.h"
#include "ut_common.h"

int ut_hw;

/* Poll without stepping: the model's lcore does the work. */
static int
ut_poll_async(struct pv_cq *cq, int n, struct pv_wc *wc)
{
	uint64_t deadline = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	int got = 0;

	while (got < n && rte_get_tsc_cycles() < deadline) {
		int r = pv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

static void
test_lcore_pingpong(void)
{
	static const struct pv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1,
		.max_inline_data = 64,
	};
	struct pv_mr *la = ut_mr(1 << 16), *rb = ut_mr(1 << 16);
	struct pv_send_wr wr[16], *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge sge, rsge;
	struct pv_wc wc[16];
	struct ut_pair p;
	int k, i, errors = 0;

	CU_ASSERT_FATAL(la != NULL && rb != NULL);
	CU_ASSERT_EQUAL(pv_mlx5_model_lcore(), 1);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 256, 0, 0), 0);
	for (k = 0; k < 2000 && errors == 0; k++) {
		uint32_t len = 1 + (k * 97) % 4096;

		ut_fill(la->addr, len, k);
		rsge = (struct pv_sge){ (uintptr_t)rb->addr, 1 << 16, rb->lkey };
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = k;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		if (pv_post_recv(p.b, &rwr, &rbad) != 0)
			errors++;
		sge = (struct pv_sge){ (uintptr_t)la->addr, len, la->lkey };
		memset(wr, 0, sizeof(wr));
		wr[0].wr_id = k;
		wr[0].opcode = PV_WR_SEND_WITH_IMM;
		wr[0].send_flags = PV_SEND_SIGNALED | (len <= 64 ? PV_SEND_INLINE : 0);
		wr[0].imm_data = rte_cpu_to_be_32(k);
		wr[0].sg_list = &sge;
		wr[0].num_sge = 1;
		if (pv_post_send(p.a, wr, &bad) != 0)
			errors++;
		if (ut_poll_async(p.cq_a, 1, wc) != 1 || wc[0].status != PV_WC_SUCCESS)
			errors++;
		if (ut_poll_async(p.cq_b, 1, wc) != 1 || wc[0].status != PV_WC_SUCCESS ||
		    wc[0].byte_len != len || wc[0].imm_data != rte_cpu_to_be_32(k) ||
		    memcmp(la->addr, rb->addr, len) != 0)
			errors++;
	}
	CU_ASSERT_EQUAL(errors, 0);
	/* lists of 16 WRITEs, one signalled, racing the model's lcore */
	for (k = 0; k < 500 && errors == 0; k++) {
		for (i = 0; i < 16; i++) {
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = i;
			wr[i].opcode = PV_WR_RDMA_WRITE;
			wr[i].send_flags = PV_SEND_INLINE | (i == 15 ? PV_SEND_SIGNALED : 0);
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].wr.rdma.remote_addr = (uintptr_t)rb->addr + 8 * i;
			wr[i].wr.rdma.rkey = rb->rkey;
			wr[i].next = i == 15 ? NULL : &wr[i + 1];
		}
		sge = (struct pv_sge){ (uintptr_t)la->addr, 8, la->lkey };
		if (pv_post_send(p.a, wr, &bad) != 0 || ut_poll_async(p.cq_a, 1, wc) != 1 ||
		    wc[0].status != PV_WC_SUCCESS || wc[0].wr_id != 15)
			errors++;
	}
	CU_ASSERT_EQUAL(errors, 0);
	ut_pair_destroy(&p);
	ut_mr_free(la);
	ut_mr_free(rb);
}

/*
 * Thread safety, as rdma-core's mlx5 (the default mode): one thread posts
 * WRITEs on a QP, two other threads poll its send CQ. Every WR completes
 * once, in order per poller's view of the CQ, and every byte lands.
 */
#define MT_WRS	4000
#define MT_SLOT	8
/* a watchdog, not a speed limit: under valgrind on a loaded 2-core machine
 * the 4000 WRs took more than 20 s (the model runs on its own lcore) */
#define MT_WATCHDOG_S	100

struct mt_state {
	struct ut_pair *p;
	struct pv_mr *la, *rb;
	uint32_t done;		/* completions polled, both pollers (atomic) */
	uint32_t errors;
	uint8_t seen[MT_WRS];
};

static void *
mt_poster(void *arg)
{
	struct mt_state *s = arg;
	uint64_t deadline = rte_get_tsc_cycles() + MT_WATCHDOG_S * rte_get_tsc_hz();
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	uint8_t src[MT_SLOT];
	uint32_t i, k;

	for (i = 0; i < MT_WRS && rte_get_tsc_cycles() < deadline;) {
		if (i - __atomic_load_n(&s->done, __ATOMIC_ACQUIRE) >= 32)
			continue;
		for (k = 0; k < MT_SLOT; k++)
			src[k] = (uint8_t)(i * 7 + k);
		/* inline: the source buffer is free again once posted */
		sge = (struct pv_sge){ (uintptr_t)src, MT_SLOT, s->la->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = PV_WR_RDMA_WRITE;
		wr.send_flags = PV_SEND_SIGNALED | PV_SEND_INLINE;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)s->rb->addr + (uint64_t)i * MT_SLOT;
		wr.wr.rdma.rkey = s->rb->rkey;
		if (pv_post_send(s->p->a, &wr, &bad) != 0) {
			__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		i++;
	}
	return NULL;
}

static void *
mt_poller(void *arg)
{
	struct mt_state *s = arg;
	uint64_t deadline = rte_get_tsc_cycles() + MT_WATCHDOG_S * rte_get_tsc_hz();
	struct pv_wc wc[4];
	int n, i;

	while (__atomic_load_n(&s->done, __ATOMIC_RELAXED) < MT_WRS &&
	       rte_get_tsc_cycles() < deadline) {
		n = pv_poll_cq(s->p->cq_a, 4, wc);
		for (i = 0; i < n; i++)
			if (wc[i].status != PV_WC_SUCCESS || wc[i].wr_id >= MT_WRS ||
			    __atomic_exchange_n(&s->seen[wc[i].wr_id], 1, __ATOMIC_RELAXED))
				__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
		if (n > 0)
			__atomic_fetch_add(&s->done, (uint32_t)n, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
test_threads_one_qp_one_cq(void)
{
	static const struct pv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1,
		.max_inline_data = 64,
	};
	struct mt_state *s = calloc(1, sizeof(*s));
	struct ut_pair p;
	pthread_t th[3];
	uint32_t i, k, bad = 0;
	const uint8_t *d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(pv_get_progress_mode(ut_ctx), PV_PROGRESS_THREAD_SAFE);
	s->la = ut_mr(MT_SLOT);
	s->rb = ut_mr((size_t)MT_WRS * MT_SLOT);
	CU_ASSERT_FATAL(s->la != NULL && s->rb != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 256, 0, 0), 0);
	s->p = &p;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th[0], NULL, mt_poster, s), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th[1], NULL, mt_poller, s), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th[2], NULL, mt_poller, s), 0);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(s->done, MT_WRS);
	CU_ASSERT_EQUAL(s->errors, 0);
	d = s->rb->addr;
	for (i = 0; i < MT_WRS; i++)
		for (k = 0; k < MT_SLOT; k++)
			bad += d[i * MT_SLOT + k] != (uint8_t)(i * 7 + k);
	CU_ASSERT_EQUAL(bad, 0);
	ut_pair_destroy(&p);
	ut_mr_free(s->la);
	ut_mr_free(s->rb);
	free(s);
}

static const struct ut_case ut_mlx5_lcore_cases[] = {
	{ "model on lcore 1, pv_* on lcore 0", test_lcore_pingpong },
	{ "one QP posted by one thread, its CQ polled by two", test_threads_one_qp_one_cq },
	{ NULL, NULL },
};

static const struct ut_suite ut_mlx5_lcore_suite = {
	.name = "mlx5_lcore",
	.cases = ut_mlx5_lcore_cases,
};

int
main(void)
{
	struct pv_device **list;
	int ret, n, i;

	ret = ut_pv_init("test_mlx5_lcore", 256, "pv_ut_mlx5_lcore", "0,1", "--pv-dev=mlx5_model",
			 NULL);
	if (ret < 0) {
		printf("test_mlx5_lcore: EAL with lcores 0,1 unavailable (%d): skipped\n", ret);
		return 77;
	}
	list = pv_get_device_list(&n);
	for (i = 0; list != NULL && i < n && ut_ctx == NULL; i++)
		if (strcmp(pv_get_device_name(list[i]), "mlx5_model0") == 0)
			ut_ctx = pv_open_device(list[i]);
	pv_free_device_list(list);
	if (ut_ctx == NULL || (ut_pd = pv_alloc_pd(ut_ctx)) == NULL) {
		fprintf(stderr, "cannot open mlx5_model0\n");
		return 1;
	}
	ret = ut_cunit_run_one(&ut_mlx5_lcore_suite);
	pv_dealloc_pd(ut_pd);
	pv_close_device(ut_ctx);
	pv_cleanup();
	return ret;
}
