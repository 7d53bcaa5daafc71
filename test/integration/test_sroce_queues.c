/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Multi-queue softroce (devarg queues=N, issue 15): two devices, each with
 * queues=2, on net_ring ports with two RX/TX queue pairs crossed (A's TX
 * queue i is B's RX queue i). A CQ of completion vector i belongs to
 * engine i; a QP to its send CQ's engine.
 *
 *   engines       num_comp_vectors is 2; a QP whose send and receive CQs
 *                 are on two engines is EINVAL; an SRQ serves one engine;
 *                 PV_PROGRESS_APP and fault injection are refused.
 *   two_lcores    two threads, each driving one engine of A and the other
 *                 engine of B: QP pair t links A's engine t with B's engine
 *                 1 - t, so every frame arrives on the other engine's queue
 *                 and is steered. SENDs of random sizes up to 64 KiB, RDMA
 *                 WRITEs and READs back, every byte compared; rx_steered
 *                 counts them, nothing is dropped.
 *
 * Also built with -fsanitize=thread (suite 'threads', make test's TSan pass).
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include <rte_ring.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_common.h"
#include "ut_sroce.h"

#define NQ		2
#define N_MSG		400
#define MSG_MAX		65536
#define DEPTH		64
#define WAIT_MS		30000

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];

/* QP pair t: A's side on engine t, B's on engine 1 - t */
struct qpair {
	struct pv_cq *cq[2];
	struct pv_qp *qp[2];
	uint8_t *buf[2];		/* [0, MSG_MAX): receive; [MSG_MAX, 2 MSG_MAX): send */
	struct pv_mr *mr[2];
	int idx;
	int fails;
};

static struct qpair pairs[NQ];

static int
ports_crossed(const char *name, unsigned int slots)
{
	struct rte_ring *ab[NQ], *ba[NQ];
	char rname[RTE_RING_NAMESIZE];
	ut_from_rings_fn from_rings = ut_from_rings();
	char a[32], b[32];
	int q;

	if (from_rings == NULL)
		return -ENOENT;
	for (q = 0; q < NQ; q++) {
		snprintf(rname, sizeof(rname), "%s_ab%d", name, q);
		ab[q] = rte_ring_create(rname, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(rname, sizeof(rname), "%s_ba%d", name, q);
		ba[q] = rte_ring_create(rname, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (ab[q] == NULL || ba[q] == NULL)
			return -ENOMEM;
	}
	snprintf(a, sizeof(a), "%s_a", name);
	snprintf(b, sizeof(b), "%s_b", name);
	if (from_rings(a, ba, NQ, ab, NQ, 0) < 0 || from_rings(b, ab, NQ, ba, NQ, 0) < 0)
		return -EIO;
	return 0;
}

static struct pv_qp *
qp_create(struct pv_pd *p, struct pv_cq *scq, struct pv_cq *rcq, struct pv_srq *srq)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = PV_QPT_RC;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return pv_create_qp(p, &ia);
}

static void
test_engines(void)
{
	struct pv_cq *c0 = pv_create_cq(ctx[0], 16, NULL, NULL, 0);
	struct pv_cq *c1 = pv_create_cq(ctx[0], 16, NULL, NULL, 1);
	struct pv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct pv_srq *srq = pv_create_srq(pd[0], &sa);
	struct pv_sroce_fault f;
	struct pv_qp *q0, *q1;

	CU_ASSERT_EQUAL(ctx[0]->num_comp_vectors, NQ);
	CU_ASSERT_PTR_NULL(pv_create_cq(ctx[0], 16, NULL, NULL, NQ));
	CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	/* send and receive CQ on two engines */
	errno = 0;
	CU_ASSERT_PTR_NULL(qp_create(pd[0], c0, c1, NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* the SRQ goes with the engine of its first QP */
	q0 = qp_create(pd[0], c0, c0, srq);
	CU_ASSERT_PTR_NOT_NULL(q0);
	errno = 0;
	CU_ASSERT_PTR_NULL(qp_create(pd[0], c1, c1, srq));
	CU_ASSERT_EQUAL(errno, EINVAL);
	q1 = qp_create(pd[0], c1, c1, NULL);
	CU_ASSERT_PTR_NOT_NULL(q1);
	/* thread-safe mode only; fault injection is a one-engine feature */
	CU_ASSERT_EQUAL(pv_set_progress_mode(ctx[1], PV_PROGRESS_APP), EOPNOTSUPP);
	memset(&f, 0, sizeof(f));
	f.drop_tx_every = 2;
	CU_ASSERT_EQUAL(pv_sroce_fault_set(ctx[0], &f), -ENOTSUP);
	if (q0 != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(q0), 0);
	if (q1 != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(q1), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(c0), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(c1), 0);
}

static uint8_t
pattern(int t, uint32_t msg, uint32_t i)
{
	return (uint8_t)(t * 131 + msg * 7 + i * 13 + (i >> 8));
}

/* a size between 1 and MSG_MAX, several packets more often than not */
static uint32_t
msg_len(uint32_t *rng)
{
	*rng = *rng * 1103515245u + 12345u;
	return 1 + (*rng >> 8) % MSG_MAX;
}

static int
pair_setup(struct qpair *p, int t)
{
	struct ut_peer peer[2];
	int s, ret;

	p->idx = t;
	for (s = 0; s < 2; s++) {
		int vec = s == 0 ? t : NQ - 1 - t;

		p->cq[s] = pv_create_cq(ctx[s], 4 * DEPTH, NULL, NULL, vec);
		if (p->cq[s] == NULL)
			return -1;
		p->qp[s] = qp_create(pd[s], p->cq[s], p->cq[s], NULL);
		p->buf[s] = calloc(1, 2 * MSG_MAX);
		if (p->qp[s] == NULL || p->buf[s] == NULL)
			return -1;
		p->mr[s] = pv_reg_mr(pd[s], p->buf[s], 2 * MSG_MAX,
				     PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
				     PV_ACCESS_REMOTE_READ);
		if (p->mr[s] == NULL)
			return -1;
		memset(&peer[s], 0, sizeof(peer[s]));
		peer[s].qpn = p->qp[s]->qp_num;
		peer[s].psn = 100 + s;
		peer[s].addr = (uintptr_t)p->buf[s];
		peer[s].rkey = p->mr[s]->rkey;
		if (pv_query_gid(ctx[s], 1, 1, &peer[s].gid) != 0)
			return -1;
	}
	for (s = 0; s < 2; s++) {
		ret = ut_qp_init(p->qp[s], &ut_qp_defaults);
		ret = ret ? ret : ut_qp_rtr(p->qp[s], &ut_qp_defaults, &peer[1 - s], PV_MTU_1024);
		if (ret != 0)
			return -1;
	}
	for (s = 0; s < 2; s++)
		if (ut_qp_rts(p->qp[s], &ut_qp_defaults, peer[s].psn) != 0)
			return -1;
	return 0;
}

/*
 * Wait for @p n completions on side @p s's CQ of pair @p p, checking each;
 * the other side's engine is driven meanwhile (a poll of nothing).
 */
static int
wait_ok(struct qpair *p, int s, int n, enum pv_wc_opcode op, uint32_t *len_p)
{
	uint64_t end = ut_now_ms() + WAIT_MS;
	struct pv_wc wc;

	while (n > 0) {
		int got = pv_poll_cq(p->cq[s], 1, &wc);

		(void)pv_poll_cq(p->cq[1 - s], 0, &wc);
		if (got < 0)
			return -1;
		if (got == 0) {
			if (ut_now_ms() > end)
				return -1;
			continue;
		}
		if (wc.status != PV_WC_SUCCESS || wc.opcode != op) {
			fprintf(stderr, "wc status %s opcode %d (want %d)\n",
				pv_wc_status_str(wc.status), wc.opcode, op);
			return -1;
		}
		if (len_p != NULL)
			*len_p = wc.byte_len;
		n--;
	}
	return 0;
}

/*
 * Thread @p arg: pair t's traffic. A SENDs a message to B (B's receive
 * checked byte for byte), then WRITEs the next one into B's buffer and
 * READs it back into its own receive area (both compared). Only this
 * thread polls pair t's CQs: A's engine t and B's engine 1 - t.
 */
static void *
pair_run(void *arg)
{
	struct qpair *p = arg;
	uint8_t *a_rx = p->buf[0], *a_tx = p->buf[0] + MSG_MAX;
	uint8_t *b_rx = p->buf[1];
	uint32_t rng = 0x1234 + p->idx, m, i, len, got;

	for (m = 0; m < N_MSG; m++) {
		len = msg_len(&rng);
		for (i = 0; i < len; i++)
			a_tx[i] = pattern(p->idx, m, i);
		if (ut_post_recv1(p->qp[1], m, b_rx, MSG_MAX, p->mr[1]->lkey) != 0 ||
		    ut_post_send1(p->qp[0], PV_WR_SEND, m, a_tx, len, p->mr[0]->lkey, 0, 0, 0) != 0)
			goto fail;
		if (wait_ok(p, 0, 1, PV_WC_SEND, NULL) != 0 ||
		    wait_ok(p, 1, 1, PV_WC_RECV, &got) != 0 || got != len ||
		    memcmp(b_rx, a_tx, len) != 0) {
			fprintf(stderr, "pair %d: SEND %u of %u bytes (got %u)\n", p->idx, m, len,
				got);
			goto fail;
		}
		/* WRITE into B's second half, READ it back */
		for (i = 0; i < len; i++)
			a_tx[i] = pattern(p->idx, m + N_MSG, i);
		memset(a_rx, 0, len);
		if (ut_post_send1(p->qp[0], PV_WR_RDMA_WRITE, m, a_tx, len, p->mr[0]->lkey,
				  (uintptr_t)p->buf[1] + MSG_MAX, p->mr[1]->rkey, 0) != 0 ||
		    wait_ok(p, 0, 1, PV_WC_RDMA_WRITE, NULL) != 0 ||
		    memcmp(p->buf[1] + MSG_MAX, a_tx, len) != 0)
			goto fail;
		if (ut_post_send1(p->qp[0], PV_WR_RDMA_READ, m, a_rx, len, p->mr[0]->lkey,
				  (uintptr_t)p->buf[1] + MSG_MAX, p->mr[1]->rkey, 0) != 0 ||
		    wait_ok(p, 0, 1, PV_WC_RDMA_READ, NULL) != 0 ||
		    memcmp(a_rx, a_tx, len) != 0) {
			fprintf(stderr, "pair %d: READ %u of %u bytes\n", p->idx, m, len);
			goto fail;
		}
	}
	return NULL;
fail:
	p->fails++;
	return NULL;
}

static void
test_two_lcores(void)
{
	struct pv_sroce_stats st[2];
	pthread_t th[NQ];
	int t, s;

	for (t = 0; t < NQ; t++)
		CU_ASSERT_EQUAL_FATAL(pair_setup(&pairs[t], t), 0);
	for (t = 0; t < NQ; t++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, pair_run, &pairs[t]), 0);
	for (t = 0; t < NQ; t++) {
		pthread_join(th[t], NULL);
		CU_ASSERT_EQUAL(pairs[t].fails, 0);
	}
	for (s = 0; s < 2; s++) {
		CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[s], &st[s]), 0);
		/* every frame of a pair arrives on the other engine's queue */
		CU_ASSERT(st[s].rx_steered > 0);
		CU_ASSERT_EQUAL(st[s].rx_drop_steer, 0);
		CU_ASSERT_EQUAL(st[s].rx_drop_qpn, 0);
	}
	for (t = 0; t < NQ; t++)
		for (s = 0; s < 2; s++) {
			pv_destroy_qp(pairs[t].qp[s]);
			pv_dereg_mr(pairs[t].mr[s]);
			pv_destroy_cq(pairs[t].cq[s]);
			free(pairs[t].buf[s]);
		}
}

static const struct ut_case queues_cases[] = {
	{ "engines", test_engines, NULL },
	{ "two_lcores", test_two_lcores, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite queues_suite = { "sroce_queues", NULL, NULL, queues_cases };

int
main(void)
{
	char prefix[64];
	int ret, fails;

	snprintf(prefix, sizeof(prefix), "ut_mq_%d", (int)getpid());
	ret = ut_pv_init("test_sroce_queues", 256, prefix, "0",
			 "--pv-dev=softroce:port=net_ring_mq_a,ip=10.0.11.1,queues=2",
			 "--pv-dev=softroce:port=net_ring_mq_b,ip=10.0.11.2,queues=2", NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 77;
	}
	if (ports_crossed("mq", 4096) != 0) {
		fprintf(stderr, "net_ring PMD not available\n");
		return 77;
	}
	if (ut_devs_open_mt(ctx, pd) != 0)
		return 1;
	fails = ut_cunit_run_one(&queues_suite);
	ut_devs_close_mt(ctx, pd);
	return fails != 0;
}
