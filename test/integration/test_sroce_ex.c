/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce through the extended verbs (issue 10), in one process: two
 * devices on crossed net_ring ports driven from one thread. A posts with the
 * pv_wr_* API on a QP of pv_create_qp_ex(), both sides read completions
 * with pv_start_poll()/pv_next_poll() on CQs of pv_create_cq_ex().
 *
 * rc: one batch of SEND, SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM and
 *   inline SEND (one post), then READ, FETCH_ADD and CMP_SWAP; payloads
 *   compared byte for byte, canaries around every buffer intact.
 * iova: B's buffer registered again at an IOVA far from its address; A
 *   writes and reads through the IOVA, B receives into an IOVA SGE.
 * TODO: UD through the wr_* API and the same over the mlx5 device model.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>

#include "pv_rtc.h"
#include "pv_verbs.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define DEPTH	32
#define BUFSZ	(64u * 1024)
#define TMO	3000
#define IOVA	0x7000000000ull

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];		/* ut_devs_open()'s, unused */
static struct pv_cq_ex *cqx[2];
static struct ut_buf *lb, *rb;		/* A's local buffer, B's remote one */

static struct pv_qp *
qp_ex_create(int side, uint64_t ops)
{
	struct pv_qp_init_attr_ex x;

	memset(&x, 0, sizeof(x));
	x.send_cq = pv_cq_ex_to_cq(cqx[side]);
	x.recv_cq = pv_cq_ex_to_cq(cqx[side]);
	x.qp_type = PV_QPT_RC;
	x.cap.max_send_wr = DEPTH;
	x.cap.max_recv_wr = DEPTH;
	x.cap.max_send_sge = 2;
	x.cap.max_recv_sge = 1;
	x.cap.max_inline_data = 64;
	x.comp_mask = PV_QP_INIT_ATTR_PD | (ops != 0 ? PV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0);
	x.pd = pd[side];
	x.send_ops_flags = ops;
	return pv_create_qp_ex(ctx[side], &x);
}

static int
pair_connect(struct pv_qp *qa, struct pv_qp *qb)
{
	struct pv_app_qp_peer peer_a = { 0 }, peer_b = { 0 };
	struct pv_app_qp_opts oa, ob;
	int ret;

	pv_app_qp_opts_init(&oa);
	oa.name = "test_sroce_ex";
	oa.sgid_index = 1;
	oa.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC;
	oa.modify = ut_qp_modify_progress_fn;
	ob = oa;
	oa.modify_arg = ctx[1];
	ob.modify_arg = ctx[0];
	peer_a.qpn = qa->qp_num;
	peer_b.qpn = qb->qp_num;
	pv_query_gid(ctx[0], 1, 1, &peer_a.gid);
	pv_query_gid(ctx[1], 1, 1, &peer_b.gid);
	ret = pv_app_qp_modify(qa, PV_QPS_INIT, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(qb, PV_QPS_INIT, &ob, NULL);
	ret = ret ?: pv_app_qp_modify(qa, PV_QPS_RTR, &oa, &peer_b);
	ret = ret ?: pv_app_qp_modify(qb, PV_QPS_RTR, &ob, &peer_a);
	ret = ret ?: pv_app_qp_modify(qa, PV_QPS_RTS, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(qb, PV_QPS_RTS, &ob, NULL);
	return -ret;
}

static int
post_recv(struct pv_qp *qp, uint64_t addr, uint32_t lkey, uint32_t len, uint64_t wr_id)
{
	struct pv_sge sge = { addr, len, lkey };
	struct pv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad = NULL;

	return pv_post_recv(qp, &wr, &bad);
}

struct ut_wcx {
	uint64_t wr_id;
	enum pv_wc_status status;
	enum pv_wc_opcode opcode;
	uint32_t byte_len;
	pv_be32 imm;
	unsigned int flags;
	uint32_t qp_num;
};

/* read @p n completions of @p c with start/next/end_poll; @return how many */
static int
poll_ex(struct pv_cq_ex *c, struct ut_wcx *out, int n)
{
	uint64_t end = ut_now_ms() + TMO;
	struct pv_poll_cq_attr attr = { 0 };
	int got = 0, ret;

	while (got < n && ut_now_ms() < end) {
		ret = pv_start_poll(c, &attr);
		if (ret == ENOENT) {
			ut_progress();
			continue;
		}
		while (ret == 0 && got < n) {
			out[got].wr_id = c->wr_id;
			out[got].status = c->status;
			out[got].opcode = pv_wc_read_opcode(c);
			out[got].byte_len = pv_wc_read_byte_len(c);
			out[got].imm = pv_wc_read_imm_data(c);
			out[got].flags = pv_wc_read_wc_flags(c);
			out[got].qp_num = pv_wc_read_qp_num(c);
			got++;
			ret = got < n ? pv_next_poll(c) : 0;
		}
		pv_end_poll(c);
	}
	return got;
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

static void
test_rc(void)
{
	const uint64_t ops = PV_QP_EX_WITH_SEND | PV_QP_EX_WITH_SEND_WITH_IMM |
			     PV_QP_EX_WITH_RDMA_WRITE | PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			     PV_QP_EX_WITH_RDMA_READ | PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			     PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	struct pv_qp *qa = qp_ex_create(0, ops), *qb = qp_ex_create(1, 0);
	uint8_t *l = lb->addr, *r = rb->addr;
	uint64_t raddr = (uintptr_t)r;
	uint32_t lkey = lb->mr->lkey, rkey = rb->mr->rkey;
	const char inl[] = "inline through pv_wr_set_inline_data";
	struct pv_sge two[2];
	struct ut_wcx wa[8], wb[8];
	struct pv_qp_ex *qx;
	uint64_t v;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qb);
	CU_ASSERT_PTR_NULL(pv_qp_to_qp_ex(qb));		/* no send_ops_flags */
	qx = pv_qp_to_qp_ex(qa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qx);
	CU_ASSERT_EQUAL_FATAL(pair_connect(qa, qb), 0);

	memset(r, 0, BUFSZ);
	fill(l, BUFSZ, 1);
	/* B: receives for SEND, SEND_WITH_IMM, WRITE_WITH_IMM, inline SEND */
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(post_recv(qb, raddr + 1024 * i, rb->mr->lkey, 1024, 10 + i), 0);

	pv_wr_start(qx);
	qx->wr_flags = PV_SEND_SIGNALED;
	qx->wr_id = 1;
	pv_wr_send(qx);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l, 1000);
	qx->wr_id = 2;
	pv_wr_send_imm(qx, rte_cpu_to_be_32(0x1234));
	two[0] = (struct pv_sge){ (uintptr_t)l + 2000, 100, lkey };
	two[1] = (struct pv_sge){ (uintptr_t)l + 3000, 200, lkey };
	pv_wr_set_sge_list(qx, 2, two);
	qx->wr_id = 3;
	pv_wr_rdma_write(qx, rkey, raddr + 8192);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 8192, 5000);
	qx->wr_id = 4;
	pv_wr_rdma_write_imm(qx, rkey, raddr + 16384, rte_cpu_to_be_32(0x5678));
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 16384, 3000);
	qx->wr_id = 5;
	pv_wr_send(qx);
	pv_wr_set_inline_data(qx, (void *)(uintptr_t)inl, sizeof(inl));
	CU_ASSERT_EQUAL_FATAL(pv_wr_complete(qx), 0);

	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[0], wa, 5), 5);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(wa[i].wr_id, (uint64_t)i + 1);
		CU_ASSERT_EQUAL(wa[i].status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wa[i].qp_num, qa->qp_num);
	}
	CU_ASSERT_EQUAL(wa[2].opcode, PV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[1], wb, 4), 4);
	CU_ASSERT_EQUAL(wb[0].wr_id, 10);
	CU_ASSERT_EQUAL(wb[0].opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(wb[0].byte_len, 1000);
	CU_ASSERT_EQUAL(wb[1].byte_len, 300);
	CU_ASSERT(wb[1].flags & PV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wb[1].imm, rte_cpu_to_be_32(0x1234));
	CU_ASSERT_EQUAL(wb[2].opcode, PV_WC_RECV_RDMA_WITH_IMM);
	CU_ASSERT_EQUAL(wb[2].imm, rte_cpu_to_be_32(0x5678));
	CU_ASSERT_EQUAL(wb[3].byte_len, sizeof(inl));
	CU_ASSERT_EQUAL(memcmp(r, l, 1000), 0);
	CU_ASSERT_EQUAL(memcmp(r + 1024, l + 2000, 100), 0);
	CU_ASSERT_EQUAL(memcmp(r + 1124, l + 3000, 200), 0);
	CU_ASSERT_EQUAL(memcmp(r + 3072, inl, sizeof(inl)), 0);
	CU_ASSERT_EQUAL(memcmp(r + 8192, l + 8192, 5000), 0);
	CU_ASSERT_EQUAL(memcmp(r + 16384, l + 16384, 3000), 0);

	/* READ back, then the atomics on 8 aligned bytes of B */
	memset(l + 32768, 0, 4096);
	v = 40;
	memcpy(r + 40960, &v, sizeof(v));
	pv_wr_start(qx);
	qx->wr_id = 6;
	pv_wr_rdma_read(qx, rkey, raddr + 8192);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 32768, 4096);
	qx->wr_id = 7;
	pv_wr_atomic_fetch_add(qx, rkey, raddr + 40960, 2);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 40960, 8);
	qx->wr_id = 8;
	pv_wr_atomic_cmp_swp(qx, rkey, raddr + 40960, 42, 7);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 40968, 8);
	CU_ASSERT_EQUAL_FATAL(pv_wr_complete(qx), 0);
	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[0], wa, 3), 3);
	CU_ASSERT_EQUAL(wa[0].opcode, PV_WC_RDMA_READ);
	CU_ASSERT_EQUAL(wa[1].opcode, PV_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(wa[2].opcode, PV_WC_COMP_SWAP);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(wa[i].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(l + 32768, r + 8192, 4096), 0);
	memcpy(&v, l + 40960, sizeof(v));
	CU_ASSERT_EQUAL(v, 40);
	memcpy(&v, l + 40968, sizeof(v));
	CU_ASSERT_EQUAL(v, 42);
	memcpy(&v, r + 40960, sizeof(v));
	CU_ASSERT_EQUAL(v, 7);

	ut_cq_drain(cq, 2, 3);
	CU_ASSERT_EQUAL(pv_destroy_qp(qa), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(qb), 0);
}

static void
test_iova(void)
{
	const unsigned int acc = PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
				 PV_ACCESS_REMOTE_READ;
	struct pv_qp *qa = qp_ex_create(0, PV_QP_EX_WITH_SEND | PV_QP_EX_WITH_RDMA_WRITE |
					   PV_QP_EX_WITH_RDMA_READ);
	struct pv_qp *qb = qp_ex_create(1, 0);
	struct pv_mr *imr = pv_reg_mr_iova2(pd[1], rb->addr, BUFSZ, IOVA, acc);
	uint8_t *l = lb->addr, *r = rb->addr;
	uint32_t lkey = lb->mr->lkey;
	struct ut_wcx wa[4], wb[2];
	struct pv_qp_ex *qx;

	CU_ASSERT_PTR_NOT_NULL_FATAL(imr);
	CU_ASSERT_EQUAL(imr->addr, rb->addr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qb);
	qx = pv_qp_to_qp_ex(qa);
	CU_ASSERT_EQUAL_FATAL(pair_connect(qa, qb), 0);
	memset(r, 0, BUFSZ);
	fill(l, BUFSZ, 77);
	/* B receives into an SGE addressed by IOVA */
	CU_ASSERT_EQUAL(post_recv(qb, IOVA + 20000, imr->lkey, 512, 30), 0);

	pv_wr_start(qx);
	qx->wr_flags = PV_SEND_SIGNALED;
	qx->wr_id = 1;
	pv_wr_rdma_write(qx, imr->rkey, IOVA + 4096);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l, 6000);
	qx->wr_id = 2;
	pv_wr_send(qx);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 10000, 512);
	qx->wr_id = 3;
	pv_wr_rdma_read(qx, imr->rkey, IOVA + 4096);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l + 32768, 6000);
	CU_ASSERT_EQUAL_FATAL(pv_wr_complete(qx), 0);
	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[0], wa, 3), 3);
	/* past the end of the IOVA range: NAKed, not a wild access */
	pv_wr_start(qx);
	qx->wr_id = 4;
	pv_wr_rdma_write(qx, imr->rkey, IOVA + BUFSZ - 8);
	pv_wr_set_sge(qx, lkey, (uintptr_t)l, 16);
	CU_ASSERT_EQUAL_FATAL(pv_wr_complete(qx), 0);
	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[0], wa + 3, 1), 1);
	for (int i = 0; i < 4; i++)
		if (wa[i].status != PV_WC_SUCCESS)
			fprintf(stderr, "wc %" PRIu64 ": %s\n", wa[i].wr_id,
				pv_wc_status_str(wa[i].status));
	CU_ASSERT_EQUAL(wa[0].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wa[1].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wa[2].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wa[3].status, PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(poll_ex(cqx[1], wb, 1), 1);
	CU_ASSERT_EQUAL(wb[0].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(r + 4096, l, 6000), 0);
	CU_ASSERT_EQUAL(memcmp(r + 20000, l + 10000, 512), 0);
	CU_ASSERT_EQUAL(memcmp(l + 32768, l, 6000), 0);

	ut_cq_drain(cq, 2, 3);
	while (poll_ex(cqx[1], wb, 1) == 1)	/* B's flushed receives, if any */
		;
	CU_ASSERT_EQUAL(pv_destroy_qp(qa), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(qb), 0);
	CU_ASSERT_EQUAL(pv_dereg_mr(imr), 0);
}

static int
suite_init(void)
{
	struct pv_cq_init_attr_ex ca = { .cqe = 4 * DEPTH, .wc_flags = PV_WC_STANDARD_FLAGS };
	int i;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		cqx[i] = pv_create_cq_ex(ctx[i], &ca);
		if (cqx[i] == NULL)
			return -1;
	}
	return ut_buf_pair_alloc(pd, BUFSZ, &lb, &rb);
}

static int
suite_clean(void)
{
	size_t bad = ut_buf_free(lb) + ut_buf_free(rb);
	int i;

	for (i = 0; i < 2; i++)
		if (cqx[i] != NULL)
			pv_destroy_cq(pv_cq_ex_to_cq(cqx[i]));
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_ex_cases[] = {
	{ "rc", test_rc },
	{ "iova", test_iova },
	{ NULL, NULL },
};

static const struct ut_suite sroce_ex_suite = {
	.name = "sroce_ex",
	.cases = sroce_ex_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_ex", 256, "ex", 4096, "ip=10.0.4.1", "ip=10.0.4.2");
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_ex_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed */
	pv_cleanup();
	return fails != 0;
}
