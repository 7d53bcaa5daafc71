/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_ex: the extended verbs' work request API (pv_qp_to_qp_ex,
 * pv_wr_start ... pv_wr_complete) and the extended CQ's poll API
 * (pv_start_poll, pv_next_poll, pv_wc_read_*) on the mlx5 data path,
 * executed by the device model: one batch of SEND, SEND_WITH_IMM,
 * RDMA_WRITE, RDMA_WRITE_WITH_IMM, inline SEND, RDMA_READ and
 * FETCH_AND_ADD posted with one doorbell, the bytes compared, the
 * completions read through the cq_ex accessors.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "mlx5_model.h"
#include "mlx5_priv.h"
#include "ut_mlx5.h"

#define EX_OPS (PV_QP_EX_WITH_SEND | PV_QP_EX_WITH_SEND_WITH_IMM | PV_QP_EX_WITH_RDMA_WRITE | \
		PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | PV_QP_EX_WITH_RDMA_READ | \
		PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

static void
test_ex_batch(void)
{
	static const struct pv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2, .max_recv_sge = 2,
		.max_inline_data = 64,
	};
	struct pv_cq_init_attr_ex ca = { .cqe = 64 };
	struct pv_poll_cq_attr pa = { 0 };
	struct pv_qp_init_attr_ex ia;
	struct pv_mr *l = ut_mr(65536), *r = ut_mr(65536);
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge rsge;
	struct pv_cq_ex *cqx;
	struct pv_qp_ex *qpx;
	struct pv_qp *ax;
	struct ut_pair p;
	uint8_t *lb, *rb;
	uint64_t v;
	int n, ret, i, recvs = 0, sends = 0;

	CU_ASSERT_FATAL(l != NULL && r != NULL);
	lb = l->addr;
	rb = r->addr;
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 64, 0, 0), 0);
	/* a's side again, as an extended QP on an extended CQ */
	cqx = pv_create_cq_ex(ut_ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cqx);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = PV_QPT_RC;
	ia.send_cq = pv_cq_ex_to_cq(cqx);
	ia.recv_cq = pv_cq_ex_to_cq(cqx);
	ia.cap = cap;
	ia.comp_mask = PV_QP_INIT_ATTR_PD | PV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.pd = ut_pd;
	ia.send_ops_flags = EX_OPS;
	ax = pv_create_qp_ex(ut_ctx, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ax);
	CU_ASSERT_EQUAL_FATAL(ut_qp_connect(ax, p.b->qp_num, 7), 0);
	CU_ASSERT_EQUAL_FATAL(ut_qp_connect(p.b, ax->qp_num, 7), 0);
	qpx = pv_qp_to_qp_ex(ax);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);

	ut_fill(lb, 65536, 3);
	memset(rb, 0, 65536);
	memcpy(rb + 60000, &(uint64_t){ 40 }, 8);
	for (i = 0; i < 3; i++) {	/* receives for the two SENDs and the WRITE_IMM */
		rsge = (struct pv_sge){ (uintptr_t)rb + 40000 + i * 4096, 4096, r->lkey };
		rwr = (struct pv_recv_wr){ .wr_id = 100 + i, .sg_list = &rsge, .num_sge = 1 };
		CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	}
	pv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = PV_SEND_SIGNALED;
	pv_wr_send(qpx);
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb, 1000);
	qpx->wr_id = 2;
	pv_wr_send_imm(qpx, htonl(0xabcd));
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb + 1000, 2000);
	qpx->wr_id = 3;
	pv_wr_rdma_write(qpx, r->rkey, (uintptr_t)rb);
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb + 3000, 8192);
	qpx->wr_id = 4;
	pv_wr_rdma_write_imm(qpx, r->rkey, (uintptr_t)rb + 10000, htonl(7));
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb + 20000, 100);
	qpx->wr_id = 5;
	pv_wr_rdma_read(qpx, r->rkey, (uintptr_t)rb + 50000);
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb + 30000, 512);
	qpx->wr_id = 6;
	pv_wr_atomic_fetch_add(qpx, r->rkey, (uintptr_t)rb + 60000, 2);
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb + 32000, 8);
	/* the READ and the atomic read what the model holds before the batch */
	memset(rb + 50000, 0x5c, 512);
	ret = pv_wr_complete(qpx);
	CU_ASSERT_EQUAL_FATAL(ret, 0);

	/* six send completions on the extended CQ, in order, read field by field */
	for (n = 0; n < 200 && sends < 6; n++) {
		(void)pv_mlx5_model_step();	/* the model executes the WQEs */
		ret = pv_start_poll(cqx, &pa);
		if (ret == ENOENT)
			continue;
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		do {
			CU_ASSERT_EQUAL(cqx->status, PV_WC_SUCCESS);
			CU_ASSERT_EQUAL(cqx->wr_id, (uint64_t)sends + 1);
			CU_ASSERT_EQUAL(pv_wc_read_qp_num(cqx), ax->qp_num);
			if (cqx->wr_id == 5)
				CU_ASSERT_EQUAL(pv_wc_read_opcode(cqx), PV_WC_RDMA_READ);
			if (cqx->wr_id == 6)
				CU_ASSERT_EQUAL(pv_wc_read_opcode(cqx), PV_WC_FETCH_ADD);
			sends++;
		} while (pv_next_poll(cqx) == 0);
		pv_end_poll(cqx);
	}
	CU_ASSERT_EQUAL(sends, 6);
	/* the receiver: two SENDs and the WRITE_IMM, bytes compared */
	{
		struct pv_wc wc[3];

		recvs = ut_poll(p.cq_b, 3, wc);
		CU_ASSERT_EQUAL_FATAL(recvs, 3);
		CU_ASSERT(wc[0].byte_len == 1000 && wc[0].opcode == PV_WC_RECV);
		CU_ASSERT(wc[1].byte_len == 2000 && (wc[1].wc_flags & PV_WC_WITH_IMM) &&
			  wc[1].imm_data == htonl(0xabcd));
		CU_ASSERT(wc[2].opcode == PV_WC_RECV_RDMA_WITH_IMM && wc[2].imm_data == htonl(7));
	}
	CU_ASSERT_EQUAL(memcmp(rb + 40000, lb, 1000), 0);
	CU_ASSERT_EQUAL(memcmp(rb + 44096, lb + 1000, 2000), 0);
	CU_ASSERT_EQUAL(memcmp(rb, lb + 3000, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(rb + 10000, lb + 20000, 100), 0);
	for (i = 0; i < 512; i++)
		if (lb[30000 + i] != 0x5c)
			break;
	CU_ASSERT_EQUAL(i, 512);
	memcpy(&v, lb + 32000, 8);
	CU_ASSERT_EQUAL(v, 40);
	memcpy(&v, rb + 60000, 8);
	CU_ASSERT_EQUAL(v, 42);

	/* an operation not in send_ops_flags fails the whole batch */
	pv_wr_start(qpx);
	qpx->wr_id = 9;
	pv_wr_atomic_cmp_swp(qpx, r->rkey, (uintptr_t)rb + 60000, 1, 2);
	pv_wr_set_sge(qpx, l->lkey, (uintptr_t)lb, 8);
	CU_ASSERT_NOT_EQUAL(pv_wr_complete(qpx), 0);

	CU_ASSERT_EQUAL(pv_destroy_qp(ax), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(pv_cq_ex_to_cq(cqx)), 0);
	ut_pair_destroy(&p);
	ut_mr_free(l);
	ut_mr_free(r);
}

static const struct ut_case ut_mlx5_ex_cases[] = {
	{ "wr_* batch and start_poll", test_ex_batch, ut_on_model },
	{ NULL, NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_ex = {
	.name = "mlx5_ex",
	.cases = ut_mlx5_ex_cases,
};
