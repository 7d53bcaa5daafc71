/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_srq: shared receive queues (drivers/mlx5/mlx5_srq.c, the
 * receive completion in mlx5_cq.c, the model's SRQ) through the device
 * model: two QPs on one SRQ receiving SENDs from two peers, contents
 * compared byte for byte; the free list over 70000 WQEs (past the 16-bit
 * doorbell counter) with completions retired out of order across QPs and
 * CQs; exactly one doorbell record store per post list (counted by a
 * hardware write watchpoint); posting, creation and destruction errnos;
 * the SRQ limit event; SRQ WQEs surviving a QP's error.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "mlx5_priv.h"
#include "ut_mlx5.h"

#define UT_BUF		256	/* bytes per receive buffer */
#define UT_NBUF		64	/* receive buffers (more than the SRQ holds) */
#define UT_SSLOT	64	/* send buffer slots */
#define UT_SRQ_WR	20	/* requested; the model grants 31 */

/*
 * Two peers s[i], each connected to a receiver r[i]; both receivers take
 * their receives from one SRQ. Receive buffer k is posted with wr_id k.
 */
struct ut_rig {
	struct pv_srq *srq;
	struct pv_cq *cq_s;		/**< both peers' CQ */
	struct pv_cq *cq_r[2];		/**< the receivers' CQs (may be one) */
	struct pv_qp *s[2];
	struct pv_qp *r[2];
	struct pv_mr *rmr;		/**< UT_NBUF receive buffers */
	struct pv_mr *smr;		/**< UT_SSLOT send slots per peer */
	uint32_t max_wr;		/**< granted */
	/* bookkeeping of the test */
	uint32_t free_buf[UT_NBUF];
	uint32_t nfree;
	uint32_t posted;		/**< receives posted, not completed */
	uint32_t seq[2];		/**< messages sent per peer */
	uint32_t got[2];		/**< messages received per peer */
	uint32_t errors;
	uint32_t rng;
};

static uint32_t
ut_rand(struct ut_rig *g)
{
	g->rng = g->rng * 1103515245u + 12345u;
	return g->rng >> 8;
}

static uint32_t
ut_msg_len(uint32_t peer, uint32_t seq)
{
	return 1 + (seq * 37 + peer * 11) % UT_BUF;
}

static struct pv_qp *
ut_srq_qp(struct pv_cq *cq, struct pv_srq *srq)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PV_QPT_RC;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.srq = srq;
	ia.cap.max_send_wr = 32;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_wr = srq == NULL ? 4 : 0;
	ia.cap.max_recv_sge = srq == NULL ? 1 : 0;
	return pv_create_qp(ut_pd, &ia);
}

static struct pv_srq *
ut_srq_create(uint32_t max_wr, uint32_t max_sge)
{
	struct pv_srq_init_attr sa;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = max_wr;
	sa.attr.max_sge = max_sge;
	return pv_create_srq(ut_pd, &sa);
}

static int
ut_rig_create(struct ut_rig *g, int shared_rcq)
{
	struct pv_srq_attr qa;
	int i;

	memset(g, 0, sizeof(*g));
	g->rng = 12345;
	g->srq = ut_srq_create(UT_SRQ_WR, 2);
	g->cq_s = pv_create_cq(ut_ctx, 256, NULL, NULL, 0);
	g->cq_r[0] = pv_create_cq(ut_ctx, 256, NULL, NULL, 0);
	g->cq_r[1] = shared_rcq ? g->cq_r[0] : pv_create_cq(ut_ctx, 256, NULL, NULL, 0);
	g->rmr = ut_mr(UT_NBUF * UT_BUF);
	g->smr = ut_mr(2 * UT_SSLOT * UT_BUF);
	if (g->srq == NULL || g->cq_s == NULL || g->cq_r[0] == NULL || g->cq_r[1] == NULL ||
	    g->rmr == NULL || g->smr == NULL)
		return -1;
	if (pv_query_srq(g->srq, &qa) != 0)
		return -1;
	g->max_wr = qa.max_wr;
	for (i = 0; i < 2; i++) {
		g->s[i] = ut_srq_qp(g->cq_s, NULL);
		g->r[i] = ut_srq_qp(g->cq_r[i], g->srq);
		if (g->s[i] == NULL || g->r[i] == NULL)
			return -1;
	}
	for (i = 0; i < 2; i++)
		if (ut_qp_connect(g->s[i], g->r[i]->qp_num, 7) != 0 ||
		    ut_qp_connect(g->r[i], g->s[i]->qp_num, 7) != 0)
			return -1;
	for (i = 0; i < UT_NBUF; i++)
		g->free_buf[g->nfree++] = UT_NBUF - 1 - i;
	return 0;
}

static void
ut_rig_destroy(struct ut_rig *g)
{
	struct pv_wc wc[64];
	int i;

	pv_mlx5_model_drain();
	for (i = 0; i < 2; i++) {
		if (g->s[i] != NULL)
			pv_destroy_qp(g->s[i]);
		if (g->r[i] != NULL)
			pv_destroy_qp(g->r[i]);
	}
	if (g->srq != NULL)
		CU_ASSERT_EQUAL(pv_destroy_srq(g->srq), 0);
	if (g->cq_s != NULL) {
		while (pv_poll_cq(g->cq_s, 64, wc) > 0)
			;
		pv_destroy_cq(g->cq_s);
	}
	for (i = 0; i < 2; i++) {
		if (g->cq_r[i] == NULL || (i == 1 && g->cq_r[1] == g->cq_r[0]))
			continue;
		while (pv_poll_cq(g->cq_r[i], 64, wc) > 0)
			;
		pv_destroy_cq(g->cq_r[i]);
	}
	ut_mr_free(g->rmr);
	ut_mr_free(g->smr);
	memset(g, 0, sizeof(*g));
}

/* Post @p n receives as one list: buffer k as wr_id k; odd k in two SGEs. */
static int
ut_rig_post_recv(struct ut_rig *g, uint32_t n)
{
	struct pv_recv_wr rwr[UT_NBUF], *bad = NULL;
	struct pv_sge sge[UT_NBUF][2];
	uint32_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint32_t k = g->free_buf[--g->nfree];
		uint8_t *buf = (uint8_t *)g->rmr->addr + k * UT_BUF;

		memset(buf, 0, UT_BUF);
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = k;
		rwr[i].sg_list = sge[i];
		sge[i][0].addr = (uintptr_t)buf;
		sge[i][0].lkey = g->rmr->lkey;
		if (k & 1) {
			sge[i][0].length = 100;
			sge[i][1].addr = (uintptr_t)buf + 100;
			sge[i][1].length = UT_BUF - 100;
			sge[i][1].lkey = g->rmr->lkey;
			rwr[i].num_sge = 2;
		} else {
			sge[i][0].length = UT_BUF;
			rwr[i].num_sge = 1;
		}
		rwr[i].next = i + 1 < n ? &rwr[i + 1] : NULL;
	}
	if (pv_post_srq_recv(g->srq, rwr, &bad) != 0)
		return -1;
	g->posted += n;
	return 0;
}

/* Peer @p peer sends @p n SEND_WITH_IMMs as one list; imm = peer << 20 | seq. */
static int
ut_rig_send(struct ut_rig *g, int peer, uint32_t n)
{
	struct pv_send_wr wr[32], *bad = NULL;
	struct pv_sge sge[32];
	uint32_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		uint32_t seq = g->seq[peer]++;
		uint32_t len = ut_msg_len(peer, seq);
		uint8_t *src = (uint8_t *)g->smr->addr +
			       (peer * UT_SSLOT + seq % UT_SSLOT) * UT_BUF;

		ut_fill(src, len, (uint32_t)peer << 20 | seq);
		sge[i].addr = (uintptr_t)src;
		sge[i].length = len;
		sge[i].lkey = g->smr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = seq;
		wr[i].opcode = PV_WR_SEND_WITH_IMM;
		wr[i].send_flags = PV_SEND_SIGNALED;
		wr[i].imm_data = rte_cpu_to_be_32((uint32_t)peer << 20 | seq);
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return pv_post_send(g->s[peer], wr, &bad) == 0 ? 0 : -1;
}

/*
 * A receive completion: the buffer its wr_id names holds, byte for byte,
 * the message its immediate names, from the peer connected to its QP.
 */
static void
ut_rig_check(struct ut_rig *g, const struct pv_wc *wc)
{
	uint8_t expect[UT_BUF];
	uint32_t imm = rte_be_to_cpu_32(wc->imm_data), peer = imm >> 20, seq = imm & 0xfffff;
	uint32_t len = ut_msg_len(peer, seq);
	const uint8_t *buf;

	if (wc->status != PV_WC_SUCCESS || wc->opcode != PV_WC_RECV ||
	    !(wc->wc_flags & PV_WC_WITH_IMM) || wc->wr_id >= UT_NBUF || peer > 1 ||
	    seq >= g->seq[peer] || wc->byte_len != len || wc->qp_num != g->r[peer]->qp_num ||
	    wc->src_qp != g->s[peer]->qp_num) {

		g->errors++;
		return;
	}
	buf = (const uint8_t *)g->rmr->addr + wc->wr_id * UT_BUF;
	ut_fill(expect, len, imm);
	if (memcmp(buf, expect, len) != 0 || (len < UT_BUF && buf[len] != 0))
		g->errors++;
	g->got[peer]++;
	g->free_buf[g->nfree++] = (uint32_t)wc->wr_id;
	g->posted--;
}

/* Take @p n receive completions from @p cq and check each. */
static void
ut_rig_reap(struct ut_rig *g, struct pv_cq *cq, uint32_t n)
{
	struct pv_wc wc[64];
	uint32_t i;

	while (n > 0) {
		int got = ut_poll(cq, (int)RTE_MIN(n, 64u), wc);

		if (got <= 0) {
			g->errors++;
			return;
		}
		for (i = 0; i < (uint32_t)got; i++)
			ut_rig_check(g, &wc[i]);
		n -= got;
	}
}

/* Take the peers' @p n send completions. */
static void
ut_rig_reap_sends(struct ut_rig *g, uint32_t n)
{
	struct pv_wc wc[64];
	uint32_t i;

	if (n == 0)
		return;
	if (ut_poll(g->cq_s, (int)n, wc) != (int)n) {

		g->errors++;
		return;
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != PV_WC_SUCCESS || wc[i].opcode != PV_WC_SEND)
			g->errors++;
}

/*
 * One round: post @p nrecv receives, peer 0 sends @p a and peer 1 @p b
 * messages, then reap the receivers' completions: @p first's CQ first,
 * @p part of it, then @p repost more receives (reusing WQEs freed out of
 * order), then the rest.
 */
static void
ut_rig_round(struct ut_rig *g, uint32_t nrecv, uint32_t a, uint32_t b, int first, uint32_t part,
	     uint32_t repost)
{
	uint32_t cnt[2] = { a, b };
	int other = !first;

	if (ut_rig_post_recv(g, nrecv) != 0 || ut_rig_send(g, 0, a) != 0 ||
	    ut_rig_send(g, 1, b) != 0) {

		g->errors++;
		return;
	}
	ut_rig_reap_sends(g, a + b);
	if (g->cq_r[0] == g->cq_r[1]) {
		ut_rig_reap(g, g->cq_r[0], a + b);
		return;
	}
	part = RTE_MIN(part, cnt[first]);
	ut_rig_reap(g, g->cq_r[first], part);
	if (ut_rig_post_recv(g, RTE_MIN(repost, g->max_wr - g->posted)) != 0)
		g->errors++;
	ut_rig_reap(g, g->cq_r[first], cnt[first] - part);
	ut_rig_reap(g, g->cq_r[other], cnt[other]);
}

/* Two QPs on one SRQ, one receive CQ, SENDs from two peers. */
static void
test_srq_two_peers(void)
{
	struct ut_rig g;
	uint32_t k;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 1), 0);
	CU_ASSERT(g.max_wr >= UT_SRQ_WR);
	/* the first round by hand: 6 receives, 3 + 3 messages */
	ut_rig_round(&g, 6, 3, 3, 0, 0, 0);
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT_EQUAL(g.got[0], 3);
	CU_ASSERT_EQUAL(g.got[1], 3);
	CU_ASSERT_EQUAL(g.posted, 0);
	for (k = 0; k < 300 && g.errors == 0; k++) {
		uint32_t n = ut_rand(&g) % (g.max_wr - g.posted + 1);
		uint32_t a = ut_rand(&g) % (RTE_MIN(g.posted + n, 32u) + 1);
		uint32_t b = ut_rand(&g) % (RTE_MIN(g.posted + n - a, 32u) + 1);

		ut_rig_round(&g, n, a, b, 0, 0, 0);
	}
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT(g.got[0] + g.got[1] > 1000);
	CU_ASSERT_EQUAL(g.got[0], g.seq[0]);
	CU_ASSERT_EQUAL(g.got[1], g.seq[1]);
	ut_rig_destroy(&g);
}

/*
 * wr_id mapping with completions retired out of order: the receivers' CQs
 * polled in either order, partly, with receives posted in between, so freed
 * WQEs return to the list in an order unlike the one they were taken in.
 */
static void
test_srq_out_of_order(void)
{
	struct pv_mlx5_srq *srq;
	struct ut_rig g;
	uint32_t k, tail0;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 0), 0);
	srq = pv_mlx5_srq(g.srq);
	/* by hand: WQEs 0..3 taken, peer 0's two (0, 1) then peer 1's (2, 3);
	 * r1's completions retired first put 2 and 3 behind the tail first */
	tail0 = srq->tail;
	ut_rig_round(&g, 4, 2, 2, 1, 1, 3);
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT_EQUAL(g.got[0], 2);
	CU_ASSERT_EQUAL(g.got[1], 2);
	if (!ut_hw) {
		const struct mlx5_wqe_srq_next_seg *t =
			(const struct mlx5_wqe_srq_next_seg *)(srq->buf +
				((size_t)tail0 << srq->stride_shift));

		CU_ASSERT_EQUAL(rte_be_to_cpu_16(t->next_wqe_index), 2);
		CU_ASSERT_EQUAL(srq->tail, 1);
		CU_ASSERT_EQUAL(pv_mlx5_model_srq_outstanding(g.srq), 3);
	}
	for (k = 0; k < 3000 && g.errors == 0; k++) {
		uint32_t room = g.max_wr - g.posted;
		uint32_t n = ut_rand(&g) % (RTE_MIN(room, g.nfree) + 1);
		uint32_t avail = g.posted + n, a, b;

		a = ut_rand(&g) % (RTE_MIN(avail, 16u) + 1);
		b = ut_rand(&g) % (RTE_MIN(avail - a, 16u) + 1);
		ut_rig_round(&g, n, a, b, ut_rand(&g) & 1, ut_rand(&g) % 8, ut_rand(&g) % 8);
	}
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT_EQUAL(g.got[0], g.seq[0]);
	CU_ASSERT_EQUAL(g.got[1], g.seq[1]);
	CU_ASSERT(g.got[0] + g.got[1] > 5000);
	ut_rig_destroy(&g);
}

/*
 * The free list over 70000 WQEs: the 16-bit doorbell counter and the
 * model's consumed counter wrap; every WQE index is reused thousands of
 * times, in an order the alternating CQs keep shuffling.
 */
static void
test_srq_wraparound(void)
{
	struct ut_rig g;
	uint32_t k, total = 0;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 0), 0);
	for (k = 0; total < 70000 && g.errors == 0; k++) {
		uint32_t a = 4 + k % 13;

		ut_rig_round(&g, 16 - g.posted + 8, a, 16 - a, k & 1, k % 5, 0);
		total += 16;
	}
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT_EQUAL(g.got[0] + g.got[1], total);
	CU_ASSERT_EQUAL(g.posted, 8);
	/* the counter wrapped: the record shows it modulo 2^16 */
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(*pv_mlx5_srq(g.srq)->dbrec),
			(total + 8) & 0xffff);
	ut_rig_destroy(&g);
}

/*
 * The data segments of SRQ receive WQEs, compared byte for byte with
 * mlx5dv_set_data_seg()'s: one per SGE of nonzero length, then one of lkey
 * MLX5_INVALID_LKEY ending a list shorter than the WQE. The next segment
 * before them is the free list's and is checked by the other cases.
 */
static void
test_srq_wqe_layout(void)
{
	struct pv_srq_init_attr ia = { .attr = { .max_wr = 16, .max_sge = 4 } };
	struct mlx5_wqe_data_seg expect[5];
	struct pv_recv_wr wr, *bad;
	struct pv_mlx5_srq *srq;
	struct pv_sge sge[4];
	struct pv_mr *mr;
	struct pv_srq *ibsrq;
	uint32_t head, n, i;
	int k;

	mr = ut_mr(4096);
	ibsrq = pv_create_srq(ut_pd, &ia);
	CU_ASSERT_FATAL(mr != NULL && ibsrq != NULL);
	srq = pv_mlx5_srq(ibsrq);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sge;
	for (k = 0; k < 12; k++) {
		wr.wr_id = k;
		wr.num_sge = 1 + k % 4;
		for (i = 0; i < (uint32_t)wr.num_sge; i++)
			sge[i] = (struct pv_sge){ (uintptr_t)mr->addr + 512 * i + k,
						  k % 4 == 2 && i == 1 ? 0 : 100 + k + i,
						  mr->lkey };
		head = srq->head;
		CU_ASSERT_EQUAL_FATAL(pv_post_srq_recv(ibsrq, &wr, &bad), 0);
		memset(expect, 0, sizeof(expect));
		for (i = 0, n = 0; i < (uint32_t)wr.num_sge; i++)
			if (sge[i].length != 0)
				mlx5dv_set_data_seg(&expect[n++], sge[i].length, sge[i].lkey,
						    sge[i].addr);
		if (n < srq->max_sge)
			mlx5dv_set_data_seg(&expect[n++], 0, MLX5_INVALID_LKEY, 0);
		CU_ASSERT_EQUAL(memcmp(srq->buf + ((size_t)head << srq->stride_shift) +
				       sizeof(struct mlx5_wqe_srq_next_seg), expect,
				       n * sizeof(expect[0])), 0);
	}
	CU_ASSERT_EQUAL(pv_destroy_srq(ibsrq), 0);
	ut_mr_free(mr);
}

/* A counting write watchpoint on 4 bytes at @p addr; -1 when unavailable. */
static int
ut_wwatch_open(volatile void *addr)
{
	struct perf_event_attr a;
	uint64_t n0, n1;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)addr;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	/*
	 * Some hypervisors accept the event but never count (seen on a VM
	 * with 2 vCPUs): calibrate with one store of the value already there.
	 */
	if (read(fd, &n0, sizeof(n0)) != sizeof(n0))
		goto err_close;
	*(volatile uint32_t *)addr = *(volatile uint32_t *)addr;
	if (read(fd, &n1, sizeof(n1)) != sizeof(n1) || n1 - n0 != 1)
		goto err_close;
	return fd;

err_close:
	close(fd);
	errno = EOPNOTSUPP;
	return -1;
}

static uint64_t
ut_wwatch_read(int fd)
{
	uint64_t n = 0;

	if (fd < 0 || read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

/* Exactly one doorbell record store per post list, after all its WQEs. */
static void
test_srq_doorbell_per_list(void)
{
	static const uint32_t lists[] = { 1, 2, 7, 16, 31, 5 };
	struct pv_recv_wr rwr[32], *bad;
	struct pv_sge sge[3];
	struct pv_mlx5_srq *srq;
	struct ut_rig g;
	uint64_t w0, w1;
	uint32_t l, i, ctr;
	int fd;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 1), 0);
	srq = pv_mlx5_srq(g.srq);
	fd = ut_wwatch_open(srq->dbrec);
	if (fd < 0)
		fprintf(stderr, "\n  (no perf write watchpoint: %s; stores not counted)\n",
			strerror(errno));
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)g.rmr->addr + i * UT_BUF;
		sge[i].length = UT_BUF;
		sge[i].lkey = g.rmr->lkey;
	}
	for (i = 0; i < RTE_DIM(rwr); i++) {
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = i;
		rwr[i].sg_list = sge;
		rwr[i].num_sge = 1;
	}
	ctr = 0;
	for (l = 0; l < RTE_DIM(lists); l++) {
		uint32_t n = lists[l];

		for (i = 0; i < n; i++)
			rwr[i].next = i + 1 < n ? &rwr[i + 1] : NULL;
		w0 = ut_wwatch_read(fd);
		CU_ASSERT_EQUAL_FATAL(pv_post_srq_recv(g.srq, rwr, &bad), 0);
		w1 = ut_wwatch_read(fd);
		ctr += n;
		CU_ASSERT_EQUAL(rte_be_to_cpu_32(*srq->dbrec), ctr & 0xffff);
		if (fd >= 0)
			CU_ASSERT_EQUAL(w1 - w0, 1);
		if (!ut_hw)
			CU_ASSERT_EQUAL(pv_mlx5_model_srq_outstanding(g.srq), (int)n);
		/* consume them, in the order they were posted: SENDs of peer 0 */
		CU_ASSERT_EQUAL_FATAL(ut_rig_send(&g, 0, n), 0);
		ut_rig_reap_sends(&g, n);
		{
			struct pv_wc wc[32];

			CU_ASSERT_EQUAL(ut_poll(g.cq_r[0], (int)n, wc), (int)n);
			for (i = 0; i < n; i++) {
				CU_ASSERT_EQUAL(wc[i].status, PV_WC_SUCCESS);
				CU_ASSERT_EQUAL(wc[i].wr_id, i);
			}
		}
	}
	/* a list failing at its fourth WR: one store, for the first three */
	rwr[2].next = &rwr[3];
	rwr[3].num_sge = (int)srq->max_sge + 1;
	rwr[3].next = &rwr[4];
	rwr[4].next = NULL;
	w0 = ut_wwatch_read(fd);
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, rwr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[3]);
	w1 = ut_wwatch_read(fd);
	ctr += 3;
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(*srq->dbrec), ctr & 0xffff);
	if (fd >= 0)
		CU_ASSERT_EQUAL(w1 - w0, 1);
	/* a list failing at its first WR: no store */
	w0 = ut_wwatch_read(fd);
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, &rwr[3], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[3]);
	if (fd >= 0)
		CU_ASSERT_EQUAL(ut_wwatch_read(fd) - w0, 0);
	CU_ASSERT_EQUAL(rte_be_to_cpu_32(*srq->dbrec), ctr & 0xffff);
	if (fd >= 0)
		close(fd);
	ut_rig_destroy(&g);
}

/* post_srq_recv errnos, and post_recv on a QP that uses an SRQ. */
static void
test_srq_post_errors(void)
{
	struct pv_recv_wr rwr[2], *bad;
	struct pv_srq_attr qa;
	struct pv_sge sge[32];
	struct ut_rig g;
	uint32_t i;
	int r = 0;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 1), 0);
	CU_ASSERT_EQUAL_FATAL(pv_query_srq(g.srq, &qa), 0);
	CU_ASSERT(qa.max_sge >= 2);
	for (i = 0; i < RTE_DIM(sge); i++) {
		sge[i].addr = (uintptr_t)g.rmr->addr + i * 8;
		sge[i].length = 8;
		sge[i].lkey = g.rmr->lkey;
	}
	memset(rwr, 0, sizeof(rwr));
	rwr[0].sg_list = sge;
	rwr[0].num_sge = 1;
	rwr[0].next = &rwr[1];
	rwr[1].sg_list = sge;
	rwr[1].num_sge = (int)qa.max_sge + 1;
	/* too many SGEs: EINVAL at that WR, the one before it posted */
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, rwr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[1]);
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, &rwr[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[1]);
	/* max_sge itself is fine */
	rwr[1].num_sge = (int)qa.max_sge;
	rwr[1].next = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, &rwr[1], &bad), 0);
	/* full: max_wr WQEs fit, the next is ENOMEM with bad_wr */
	rwr[0].next = NULL;
	for (i = 2; i < qa.max_wr; i++) {
		r = pv_post_srq_recv(g.srq, &rwr[0], &bad);
		if (r != 0)
			break;
	}
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(i, qa.max_wr);
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_srq_recv(g.srq, &rwr[0], &bad), ENOMEM);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[0]);
	if (!ut_hw)
		CU_ASSERT_EQUAL(pv_mlx5_model_srq_outstanding(g.srq), (int)qa.max_wr);
	/* a QP on an SRQ has no receive queue of its own */
	CU_ASSERT_EQUAL(g.r[0]->cap.max_recv_wr, 0);
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_recv(g.r[0], &rwr[0], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &rwr[0]);
	ut_rig_destroy(&g);
}

/* pv_create_srq: granted sizes, query, and each errno. */
static void
test_srq_create_errnos(void)
{
	struct pv_srq *srqs[PV_MLX5_MDL_MAX_SRQ + 1];
	struct pv_srq_init_attr sa;
	struct pv_device_attr da;
	struct pv_srq_attr qa;
	struct pv_srq *srq;
	int i, n;

	CU_ASSERT_EQUAL_FATAL(pv_query_device(ut_ctx, &da), 0);
	CU_ASSERT(da.max_srq > 0);
	CU_ASSERT(da.max_srq_wr > 0);
	CU_ASSERT(da.max_srq_sge > 0);
	/* granted: at least what was asked, reported back and by query */
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 100;
	sa.attr.max_sge = 3;
	sa.srq_context = &sa;
	srq = pv_create_srq(ut_pd, &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT(sa.attr.max_wr >= 100);
	CU_ASSERT(sa.attr.max_sge >= 3);
	CU_ASSERT_PTR_EQUAL(srq->srq_context, &sa);
	CU_ASSERT_PTR_EQUAL(srq->pd, ut_pd);
	CU_ASSERT_EQUAL(pv_query_srq(srq, &qa), 0);
	CU_ASSERT_EQUAL(qa.max_wr, sa.attr.max_wr);
	CU_ASSERT_EQUAL(qa.max_sge, sa.attr.max_sge);
	CU_ASSERT_EQUAL(qa.srq_limit, 0);
	/* modify: resize is not supported, limits above max_wr are invalid */
	qa.max_wr = 200;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &qa, PV_SRQ_MAX_WR), EOPNOTSUPP);
	qa.srq_limit = sa.attr.max_wr + 1;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &qa, PV_SRQ_LIMIT), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &qa, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, NULL, PV_SRQ_LIMIT), EINVAL);
	CU_ASSERT_EQUAL(pv_query_srq(srq, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(NULL), EINVAL);

	/* EINVAL: no pd, max_wr 0 or beyond the device, max_sge beyond it */
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq(NULL, &sa));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_create_srq(ut_pd, NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(ut_srq_create(0, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(ut_srq_create((uint32_t)da.max_srq_wr + 1, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(ut_srq_create(16, (uint32_t)da.max_srq_sge + 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* the largest the device allows */
	srq = ut_srq_create((uint32_t)da.max_srq_wr, (uint32_t)da.max_srq_sge);
	CU_ASSERT_PTR_NOT_NULL(srq);
	if (srq != NULL)
		CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	if (ut_hw)
		return;
	/* ENOMEM: every SRQ of the model in use */
	for (n = 0; n < PV_MLX5_MDL_MAX_SRQ + 1; n++) {
		srqs[n] = ut_srq_create(1, 1);
		if (srqs[n] == NULL)
			break;
	}
	CU_ASSERT_EQUAL(n, PV_MLX5_MDL_MAX_SRQ);
	CU_ASSERT_EQUAL(errno, ENOMEM);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(pv_destroy_srq(srqs[i]), 0);
}

/* Destroying an SRQ a QP uses: EBUSY (lib/verbs counts users), then fine. */
static void
test_srq_destroy_busy(void)
{
	struct pv_cq *cq = pv_create_cq(ut_ctx, 16, NULL, NULL, 0);
	struct pv_srq *srq = ut_srq_create(8, 1);
	struct pv_qp *qp, *qp2;

	CU_ASSERT_FATAL(cq != NULL && srq != NULL);
	qp = ut_srq_qp(cq, srq);
	qp2 = ut_srq_qp(cq, srq);
	CU_ASSERT_FATAL(qp != NULL && qp2 != NULL);
	CU_ASSERT_PTR_EQUAL(qp->srq, srq);
	CU_ASSERT_EQUAL(srq->usecnt, 2);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), EBUSY);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), EBUSY);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp2), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
}

/* Read one async event without blocking; -1 when none is queued. */
static int
ut_async_get(struct pv_async_event *ev)
{
	int fd = ut_ctx->async_fd, fl = fcntl(fd, F_GETFL), r;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	r = pv_get_async_event(ut_ctx, ev);
	fcntl(fd, F_SETFL, fl);
	return r;
}

/*
 * The limit event: armed with pv_modify_srq(PV_SRQ_LIMIT), raised once
 * when fewer WQEs than the limit remain posted, then disarmed (query
 * reports 0) until armed again.
 */
static void
test_srq_limit(void)
{
	struct pv_async_event ev;
	struct pv_srq_attr qa;
	struct ut_rig g;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 1), 0);
	while (ut_async_get(&ev) == 0)	/* nothing left over from earlier tests */
		pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL_FATAL(ut_rig_post_recv(&g, 20), 0);
	memset(&qa, 0, sizeof(qa));
	qa.srq_limit = 10;
	CU_ASSERT_EQUAL(pv_modify_srq(g.srq, &qa, PV_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(pv_query_srq(g.srq, &qa), 0);
	CU_ASSERT_EQUAL(qa.srq_limit, 10);
	/* 20 -> 10 posted: not below the limit yet */
	ut_rig_round(&g, 0, 6, 4, 0, 0, 0);
	CU_ASSERT_EQUAL(pv_mlx5_model_srq_outstanding(g.srq), 10);
	CU_ASSERT_EQUAL(ut_async_get(&ev), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	/* 10 -> 9: the event, once */
	ut_rig_round(&g, 0, 1, 0, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(ut_async_get(&ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(ev.element.srq, g.srq);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL(g.srq->events_completed, 1);
	CU_ASSERT_EQUAL(pv_query_srq(g.srq, &qa), 0);
	CU_ASSERT_EQUAL(qa.srq_limit, 0);
	ut_rig_round(&g, 0, 2, 2, 0, 0, 0);
	CU_ASSERT_EQUAL(ut_async_get(&ev), -1);
	/* re-armed above what is posted (5): the next consumption raises it */
	qa.srq_limit = 8;
	CU_ASSERT_EQUAL(pv_modify_srq(g.srq, &qa, PV_SRQ_LIMIT), 0);
	CU_ASSERT_EQUAL(ut_async_get(&ev), -1);
	ut_rig_round(&g, 0, 0, 1, 0, 0, 0);
	CU_ASSERT_EQUAL_FATAL(ut_async_get(&ev), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_SRQ_LIMIT_REACHED);
	pv_ack_async_event(&ev);
	/* disarming with 0: refill, drain below any limit, no event */
	qa.srq_limit = 0;
	CU_ASSERT_EQUAL(pv_modify_srq(g.srq, &qa, PV_SRQ_LIMIT), 0);
	ut_rig_round(&g, 10, 8, 6, 0, 0, 0);
	CU_ASSERT_EQUAL(ut_async_get(&ev), -1);
	CU_ASSERT_EQUAL(g.errors, 0);
	ut_rig_destroy(&g);
}

/*
 * A receive error on one QP: the responder error CQE names the SRQ WQE it
 * used (its wr_id, the WQE freed), the QP enters error, and the SRQ's other
 * WQEs are not flushed: the second QP keeps receiving from them.
 */
static void
test_srq_qp_error(void)
{
	struct pv_recv_wr rwr, *bad;
	struct pv_send_wr wr, *sbad;
	struct pv_sge sge, ssge;
	struct pv_wc wc[4];
	struct ut_rig g;

	CU_ASSERT_EQUAL_FATAL(ut_rig_create(&g, 0), 0);
	/* first WQE with a bad lkey, then 4 good ones */
	sge.addr = (uintptr_t)g.rmr->addr;
	sge.length = UT_BUF;
	sge.lkey = g.rmr->lkey ^ 0x100;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0xbad;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_srq_recv(g.srq, &rwr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(ut_rig_post_recv(&g, 4), 0);
	ssge.addr = (uintptr_t)g.smr->addr;
	ssge.length = 16;
	ssge.lkey = g.smr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &ssge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(g.s[0], &wr, &sbad), 0);
	CU_ASSERT_EQUAL(ut_poll(g.cq_s, 1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].status, PV_WC_REM_OP_ERR);
	CU_ASSERT_EQUAL(ut_poll(g.cq_r[0], 1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].status, PV_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0xbad);
	CU_ASSERT_EQUAL(wc[0].qp_num, g.r[0]->qp_num);
	/* nothing is flushed from the SRQ */
	CU_ASSERT_EQUAL(ut_poll(g.cq_r[0], 4, wc), 0);
	if (!ut_hw)
		CU_ASSERT_EQUAL(pv_mlx5_model_srq_outstanding(g.srq), 4);
	/* the other QP still receives, from the WQEs posted after the bad one */
	ut_rig_round(&g, 0, 0, 4, 1, 0, 0);
	CU_ASSERT_EQUAL(g.errors, 0);
	CU_ASSERT_EQUAL(g.got[1], 4);
	/* the freed WQE of the error is reused */
	ut_rig_round(&g, g.max_wr, 0, 16, 1, 0, 0);
	CU_ASSERT_EQUAL(g.errors, 0);
	ut_rig_destroy(&g);
}

static const struct ut_case ut_mlx5_srq_cases[] = {
	{ "two qps, one srq, two peers", test_srq_two_peers },
	{ "wr_id with out-of-order completion", test_srq_out_of_order },
	{ "free list wraparound", test_srq_wraparound },
	{ "one doorbell record per list", test_srq_doorbell_per_list },
	{ "post_srq_recv errnos", test_srq_post_errors },
	{ "create_srq errnos", test_srq_create_errnos },
	{ "destroy with a qp attached", test_srq_destroy_busy },
	{ "qp error keeps srq wqes", test_srq_qp_error },
	{ "srq wqe layout = mlx5dv helpers", test_srq_wqe_layout },
	{ "srq limit event", test_srq_limit, ut_on_model },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_srq = {
	.name = "mlx5_srq",
	.cases = ut_mlx5_srq_cases,
};
