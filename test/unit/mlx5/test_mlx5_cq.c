/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_cq: the completion data path (drivers/mlx5/mlx5_cq.c) through
 * the device model: send, receive and completion queue wraparound over many
 * thousands of WQEs, every error syndrome mapped to its pv_wc_status, flush
 * after an error, and completion events through CQ arming.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>

#include "mlx5_priv.h"
#include "ut_mlx5.h"

static const struct pv_qp_cap ut_cap = {
	.max_send_wr = 16,
	.max_recv_wr = 16,
	.max_send_sge = 4,
	.max_recv_sge = 4,
	.max_inline_data = 256,
};

#define UT_SLOT	512

/*
 * Queue wraparound: inline WRITEs of 1..5 WQEBBs interleaved with SEND_IMMs
 * on a 16-WR send queue (WQEs straddle the ring's end), a 16-WQE receive
 * queue and a 64-entry CQ, over 20000 WQEs; then 32000 more in lists of 8 with only the
 * last signalled, so one CQE retires several WQEs.
 */
static void
test_wraparound(void)
{
	struct pv_mr *la = ut_mr(16 * UT_SLOT), *rb = ut_mr(16 * UT_SLOT), *rw = ut_mr(UT_SLOT);
	struct pv_send_wr wr[8], *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge sge[8], rsge, wsge;
	struct pv_wc wc[8];
	struct ut_pair p;
	uint32_t k, max_bb;
	int i, errors = 0;

	CU_ASSERT_FATAL(la != NULL && rb != NULL && rw != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 32, 0, 0), 0);
	max_bb = pv_mlx5_qp(p.a)->max_wqe_bb;
	if (!ut_hw) {	/* the model's geometry */
		CU_ASSERT_EQUAL(max_bb, 5);
		CU_ASSERT_EQUAL(p.cq_a->cqe, 63);
	}
	for (k = 0; k < 10000; k++) {
		uint32_t slot = k % 16, len = 1 + (k * 37) % 256;
		uint8_t *src = (uint8_t *)la->addr + slot * UT_SLOT;
		uint8_t *dst = (uint8_t *)rb->addr + slot * UT_SLOT;

		ut_fill(src, len, k);
		rsge.addr = (uintptr_t)dst;
		rsge.length = UT_SLOT;
		rsge.lkey = rb->lkey;
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = k;
		rwr.sg_list = &rsge;
		rwr.num_sge = 1;
		if (pv_post_recv(p.b, &rwr, &rbad) != 0) {
			errors++;
			break;
		}
		/* an unsignalled inline WRITE, retired by the SEND's CQE */
		wsge.addr = (uintptr_t)src;
		wsge.length = len;
		wsge.lkey = la->lkey;
		memset(wr, 0, 2 * sizeof(wr[0]));
		wr[0].wr_id = ~0ull;
		wr[0].opcode = PV_WR_RDMA_WRITE;
		wr[0].send_flags = PV_SEND_INLINE;
		wr[0].sg_list = &wsge;
		wr[0].num_sge = 1;
		wr[0].wr.rdma.remote_addr = (uintptr_t)rw->addr;
		wr[0].wr.rdma.rkey = rw->rkey;
		wr[0].next = &wr[1];
		sge[0] = wsge;
		wr[1].wr_id = k;
		wr[1].opcode = PV_WR_SEND_WITH_IMM;
		wr[1].send_flags = PV_SEND_SIGNALED;
		wr[1].imm_data = rte_cpu_to_be_32(k);
		wr[1].sg_list = sge;
		wr[1].num_sge = 1;
		if (pv_post_send(p.a, wr, &bad) != 0) {
			errors++;
			break;
		}
		if (ut_poll(p.cq_a, 1, wc) != 1 || wc[0].status != PV_WC_SUCCESS ||
		    wc[0].wr_id != k) {
			errors++;
			break;
		}
		if (ut_poll(p.cq_b, 1, wc) != 1 || wc[0].status != PV_WC_SUCCESS ||
		    wc[0].wr_id != k || wc[0].byte_len != len ||
		    wc[0].imm_data != rte_cpu_to_be_32(k) || memcmp(src, dst, len) != 0 ||
		    memcmp(src, rw->addr, len) != 0) {
			errors++;
			break;
		}
	}
	CU_ASSERT_EQUAL(errors, 0);
	CU_ASSERT_EQUAL(k, 10000);
	/* every WQE retired: the send queue is empty again */
	CU_ASSERT_EQUAL(pv_mlx5_qp(p.a)->sq_ci, pv_mlx5_qp(p.a)->sq_pi);
	CU_ASSERT(pv_mlx5_qp(p.a)->sq_pi > 20000);

	/* lists of 8 SEND_IMMs, only the last signalled */
	for (k = 0; k < 4000 && errors == 0; k++) {
		for (i = 0; i < 8; i++) {
			uint32_t n = k * 8 + i;

			rsge.addr = (uintptr_t)rb->addr + (n % 16) * UT_SLOT;
			rsge.length = UT_SLOT;
			rwr.wr_id = n;
			if (pv_post_recv(p.b, &rwr, &rbad) != 0)
				errors++;
			sge[i].addr = (uintptr_t)la->addr + (n % 16) * UT_SLOT;
			sge[i].length = 1 + n % 300;
			sge[i].lkey = la->lkey;
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = n;
			wr[i].opcode = PV_WR_SEND_WITH_IMM;
			wr[i].send_flags = i == 7 ? PV_SEND_SIGNALED : 0;
			wr[i].imm_data = rte_cpu_to_be_32(n);
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].next = i == 7 ? NULL : &wr[i + 1];
		}
		if (errors || pv_post_send(p.a, wr, &bad) != 0) {
			errors++;
			break;
		}
		if (ut_poll(p.cq_a, 1, wc) != 1 || wc[0].wr_id != k * 8 + 7)
			errors++;
		if (ut_poll(p.cq_b, 8, wc) != 8)
			errors++;
		for (i = 0; i < 8 && errors == 0; i++)
			if (wc[i].wr_id != k * 8 + i || wc[i].byte_len != 1 + (k * 8 + i) % 300 ||
			    rte_be_to_cpu_32(wc[i].imm_data) != k * 8 + i)
				errors++;
	}
	CU_ASSERT_EQUAL(errors, 0);
	CU_ASSERT_EQUAL(pv_mlx5_qp(p.a)->sq_ci, pv_mlx5_qp(p.a)->sq_pi);
	/* past the 16-bit WQE counter of the ctrl segment and the CQE */
	CU_ASSERT(pv_mlx5_qp(p.a)->sq_pi > 65536);
	ut_pair_destroy(&p);
	ut_mr_free(la);
	ut_mr_free(rb);
	ut_mr_free(rw);
}

static void
test_syndrome_table(void)
{
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR),
			PV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR),
			PV_WC_LOC_QP_OP_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_LOCAL_PROT_ERR),
			PV_WC_LOC_PROT_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_WR_FLUSH_ERR),
			PV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_MW_BIND_ERR),
			PV_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_BAD_RESP_ERR),
			PV_WC_BAD_RESP_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR),
			PV_WC_LOC_ACCESS_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR),
			PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR),
			PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_REMOTE_OP_ERR),
			PV_WC_REM_OP_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR),
			PV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR),
			PV_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR),
			PV_WC_REM_ABORT_ERR);
	CU_ASSERT_EQUAL(pv_mlx5_syndrome_to_status(0x77), PV_WC_GENERAL_ERR);
}

/* Post one signalled WR on a; return the status of its completion. */
static enum pv_wc_status
ut_one(struct ut_pair *p, struct pv_send_wr *wr, struct pv_wc *wc)
{
	struct pv_send_wr *bad;

	wr->send_flags |= PV_SEND_SIGNALED;
	if (pv_post_send(p->a, wr, &bad) != 0)
		return (enum pv_wc_status)-1;
	if (ut_poll(p->cq_a, 1, wc) != 1)
		return (enum pv_wc_status)-2;
	CU_ASSERT_EQUAL(wc->wr_id, wr->wr_id);
	CU_ASSERT_EQUAL(wc->qp_num, p->a->qp_num);
	return wc->status;
}

/* Every syndrome, first from the condition that causes it, then injected. */
static void
test_error_syndromes(void)
{
	static const struct {
		uint8_t syndrome;
		enum pv_wc_status status;
	} inj[] = {
		{ MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, PV_WC_LOC_LEN_ERR },
		{ MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, PV_WC_LOC_QP_OP_ERR },
		{ MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, PV_WC_LOC_PROT_ERR },
		{ MLX5_CQE_SYNDROME_WR_FLUSH_ERR, PV_WC_WR_FLUSH_ERR },
		{ MLX5_CQE_SYNDROME_MW_BIND_ERR, PV_WC_MW_BIND_ERR },
		{ MLX5_CQE_SYNDROME_BAD_RESP_ERR, PV_WC_BAD_RESP_ERR },
		{ MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR, PV_WC_LOC_ACCESS_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, PV_WC_REM_INV_REQ_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, PV_WC_REM_ACCESS_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_OP_ERR, PV_WC_REM_OP_ERR },
		{ MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, PV_WC_RETRY_EXC_ERR },
		{ MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, PV_WC_RNR_RETRY_EXC_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR, PV_WC_REM_ABORT_ERR },
		{ 0x77, PV_WC_GENERAL_ERR },
	};
	struct pv_mr *la = ut_mr(4096), *rb = ut_mr(4096);
	struct pv_mr *ro = pv_reg_mr(ut_pd, rb->addr, 64, 0);	/* read-only, local */
	struct pv_qp_attr attr;
	struct pv_send_wr wr, *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge sge, rsge;
	struct pv_wc wc;
	struct ut_pair p;
	unsigned int i;

	CU_ASSERT_FATAL(la != NULL && rb != NULL && ro != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	sge.addr = (uintptr_t)la->addr;
	sge.length = 64;
	sge.lkey = la->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)rb->addr;
	wr.wr.rdma.rkey = rb->rkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 9;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;

	/* local protection: an lkey that does not exist */
	wr.opcode = PV_WR_RDMA_WRITE;
	sge.lkey = 0xbad00;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_LOC_PROT_ERR);
	CU_ASSERT(wc.vendor_err != 0);
	sge.lkey = la->lkey;
	/* and flush: every later WQE, signalled or not, completes in error */
	wr.send_flags = 0;
	wr.wr_id = 6;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc.wr_id, 6);
	rsge.addr = (uintptr_t)la->addr;
	rsge.length = 64;
	rsge.lkey = la->lkey;
	CU_ASSERT_EQUAL(pv_post_recv(p.a, &rwr, &rbad), 0);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(wc.wr_id, 9);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
	memset(&attr, 0, sizeof(attr));
	{
		struct pv_qp_init_attr ia;

		CU_ASSERT_EQUAL(pv_query_qp(p.a, &attr, PV_QP_STATE, &ia), 0);
		CU_ASSERT_EQUAL(attr.qp_state, PV_QPS_ERR);
	}
	wr.wr_id = 5;
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* local protection: a READ into memory without LOCAL_WRITE */
	wr.opcode = PV_WR_RDMA_READ;
	sge.lkey = ro->lkey;
	sge.addr = (uintptr_t)ro->addr;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_LOC_PROT_ERR);
	sge.lkey = la->lkey;
	sge.addr = (uintptr_t)la->addr;
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* remote access: wrong rkey, then beyond the MR */
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.wr.rdma.rkey = rb->rkey ^ 0x100;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	wr.wr.rdma.rkey = rb->rkey;
	wr.wr.rdma.remote_addr = (uintptr_t)rb->addr + 4096 - 63;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	wr.wr.rdma.remote_addr = (uintptr_t)rb->addr + 4096 - 64;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_SUCCESS);
	wr.wr.rdma.remote_addr = (uintptr_t)rb->addr;

	/* receive buffer too small: invalid request here, length error there */
	wr.opcode = PV_WR_SEND;
	rsge.addr = (uintptr_t)rb->addr;
	rsge.length = 63;
	rsge.lkey = rb->lkey;
	CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(ut_poll(p.cq_b, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_LOC_LEN_ERR);
	CU_ASSERT_EQUAL(wc.wr_id, 9);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* receive buffer with a bad key: remote operation error here */
	rsge.length = 64;
	rsge.lkey = 0xbad00;
	CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_REM_OP_ERR);
	CU_ASSERT_EQUAL(ut_poll(p.cq_b, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_LOC_PROT_ERR);
	rsge.lkey = rb->lkey;
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* atomics: misaligned target, result buffer not 8 bytes */
	wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	sge.length = 8;
	wr.wr.atomic.remote_addr = (uintptr_t)rb->addr + 4;
	wr.wr.atomic.rkey = rb->rkey;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	wr.wr.atomic.remote_addr = (uintptr_t)rb->addr;
	sge.length = 4;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_LOC_LEN_ERR);
	sge.length = 64;
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* nobody answers: the responder is in RESET */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = PV_QPS_RESET;
	CU_ASSERT_EQUAL(pv_modify_qp(p.b, &attr, PV_QP_STATE), 0);
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)rb->addr;
	wr.wr.rdma.rkey = rb->rkey;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* receiver not ready with rnr_retry 2: retries run out */
	CU_ASSERT_EQUAL_FATAL(ut_qp_connect(p.a, p.b->qp_num, 2), 0);
	wr.opcode = PV_WR_SEND;
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_RNR_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* and every syndrome a ConnectX can report, injected */
	wr.opcode = PV_WR_RDMA_WRITE;
	for (i = 0; i < RTE_DIM(inj); i++) {
		CU_ASSERT_EQUAL(pv_mlx5_model_qp_inject(p.a, inj[i].syndrome), 0);
		CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), inj[i].status);
		CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	}
	CU_ASSERT_EQUAL(ut_one(&p, &wr, &wc), PV_WC_SUCCESS);
	ut_pair_destroy(&p);
	pv_dereg_mr(ro);
	ut_mr_free(la);
	ut_mr_free(rb);
}

static void
test_cq_events(void)
{
	struct pv_mr *mr = ut_mr(4096);
	struct pv_send_wr wr, *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge sge;
	struct pv_wc wc;
	struct pv_cq *ev_cq, *plain;
	struct ut_pair p;
	void *ev_ctx;
	int i;

	CU_ASSERT_FATAL(mr != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 1), 0);
	CU_ASSERT_EQUAL(fcntl(p.ch->fd, F_SETFL, fcntl(p.ch->fd, F_GETFL) | O_NONBLOCK), 0);
	sge.addr = (uintptr_t)mr->addr;
	sge.length = 16;
	sge.lkey = mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;

	/* no channel: EINVAL */
	plain = pv_create_cq(ut_ctx, 4, NULL, NULL, 0);
	CU_ASSERT_FATAL(plain != NULL);
	CU_ASSERT_EQUAL(pv_req_notify_cq(plain, 0), EINVAL);
	pv_destroy_cq(plain);

	for (i = 0; i < 3; i++) {
		/* nothing armed, nothing raised */
		CU_ASSERT_EQUAL(pv_get_cq_event(p.ch, &ev_cq, &ev_ctx), -1);
		CU_ASSERT_EQUAL(errno, EAGAIN);
		/* armed for any completion: a receive raises it */
		CU_ASSERT_EQUAL(pv_req_notify_cq(p.cq_b, 0), 0);
		CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
		CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
		pv_mlx5_model_drain();
		CU_ASSERT_EQUAL(pv_get_cq_event(p.ch, &ev_cq, &ev_ctx), 0);
		CU_ASSERT_PTR_EQUAL(ev_cq, p.cq_b);
		pv_ack_cq_events(ev_cq, 1);
		CU_ASSERT_EQUAL(pv_poll_cq(p.cq_b, 1, &wc), 1);

		/* solicited only: an unsolicited SEND stays quiet */
		CU_ASSERT_EQUAL(pv_req_notify_cq(p.cq_b, 1), 0);
		CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
		CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
		pv_mlx5_model_drain();
		CU_ASSERT_EQUAL(pv_get_cq_event(p.ch, &ev_cq, &ev_ctx), -1);
		CU_ASSERT_EQUAL(pv_poll_cq(p.cq_b, 1, &wc), 1);
		/* ... a solicited one raises it */
		CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
		wr.send_flags = PV_SEND_SOLICITED;
		CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
		wr.send_flags = 0;
		pv_mlx5_model_drain();
		CU_ASSERT_EQUAL(pv_get_cq_event(p.ch, &ev_cq, &ev_ctx), 0);
		CU_ASSERT_PTR_EQUAL(ev_cq, p.cq_b);
		pv_ack_cq_events(ev_cq, 1);
		CU_ASSERT_EQUAL(pv_poll_cq(p.cq_b, 1, &wc), 1);

		/* arming with a completion already queued raises at once */
		CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
		CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
		pv_mlx5_model_drain();
		CU_ASSERT_EQUAL(pv_req_notify_cq(p.cq_b, 0), 0);
		pv_mlx5_model_drain();
		CU_ASSERT_EQUAL(pv_get_cq_event(p.ch, &ev_cq, &ev_ctx), 0);
		pv_ack_cq_events(ev_cq, 1);
		CU_ASSERT_EQUAL(pv_poll_cq(p.cq_b, 1, &wc), 1);
	}
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/* Post @p n signalled 8-byte inline WRITEs on p->a, wr_id first.. (no step). */
static void
ut_writes(struct ut_pair *p, struct pv_mr *mr, uint32_t first, uint32_t n)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	uint32_t i;

	sge.addr = (uintptr_t)mr->addr;
	sge.length = 8;
	sge.lkey = mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.send_flags = PV_SEND_SIGNALED | PV_SEND_INLINE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + 64;
	wr.wr.rdma.rkey = mr->rkey;
	for (i = 0; i < n; i++) {
		wr.wr_id = first + i;
		CU_ASSERT_EQUAL(pv_post_send(p->a, &wr, &bad), 0);
	}
}

/* @p n completions with wr_ids first.., in order. */
static void
ut_reap_writes(struct ut_pair *p, uint32_t first, uint32_t n)
{
	struct pv_wc wc[64];
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(ut_poll(p->cq_a, (int)n, wc), (int)n);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(wc[i].status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[i].wr_id, first + i);
	}
}

/*
 * resize_cq keeps the CQEs not polled yet, in order, also when they wrap
 * the old ring; the new size is used at once; a size below what is held
 * is EINVAL. (Hardware: EOPNOTSUPP, rdma-core's resize needs its own
 * consumer index.)
 */
static void
test_cq_resize(void)
{
	struct pv_mr *mr = ut_mr(4096);
	struct pv_qp_cap cap = ut_cap;
	struct pv_wc wc;
	struct ut_pair p;

	CU_ASSERT_FATAL(mr != NULL);
	cap.max_send_wr = 64;
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 7, 0, 0), 0);
	CU_ASSERT_EQUAL(p.cq_a->cqe, 7);
	if (ut_hw) {
		CU_ASSERT_EQUAL(pv_resize_cq(p.cq_a, 100), EOPNOTSUPP);
		goto out;
	}
	CU_ASSERT_EQUAL(pv_resize_cq(p.cq_a, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_resize_cq(NULL, 10), EINVAL);
	/* 6 polled, then 5 held across the old ring's end (6, 7, 0, 1, 2) */
	ut_writes(&p, mr, 0, 6);
	ut_reap_writes(&p, 0, 6);
	ut_writes(&p, mr, 100, 5);
	pv_mlx5_model_drain();
	CU_ASSERT_EQUAL(pv_resize_cq(p.cq_a, 4), EINVAL);
	CU_ASSERT_EQUAL(pv_resize_cq(p.cq_a, 100), 0);
	CU_ASSERT_EQUAL(p.cq_a->cqe, 127);
	/* more CQEs than the old size held, behind the 5 kept */
	ut_writes(&p, mr, 105, 40);
	pv_mlx5_model_drain();
	ut_reap_writes(&p, 100, 45);
	/* around the new ring twice */
	ut_writes(&p, mr, 200, 60);
	ut_reap_writes(&p, 200, 60);
	ut_writes(&p, mr, 300, 60);
	ut_reap_writes(&p, 300, 60);
	ut_writes(&p, mr, 400, 60);
	ut_reap_writes(&p, 400, 60);
	/* shrink with 3 held */
	ut_writes(&p, mr, 500, 3);
	pv_mlx5_model_drain();
	CU_ASSERT_EQUAL(pv_resize_cq(p.cq_a, 3), 0);
	CU_ASSERT_EQUAL(p.cq_a->cqe, 3);
	ut_reap_writes(&p, 500, 3);
	CU_ASSERT_EQUAL(pv_poll_cq(p.cq_a, 1, &wc), 0);
	ut_writes(&p, mr, 600, 3);
	ut_reap_writes(&p, 600, 3);
out:
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

static const struct ut_case ut_mlx5_cq_cases[] = {
	{ "sq, rq and cq wraparound", test_wraparound },
	{ "syndrome -> status table", test_syndrome_table },
	{ "resize_cq keeps unpolled cqes", test_cq_resize },
	{ "every error syndrome", test_error_syndromes, ut_on_model },
	{ "cq arming and events", test_cq_events, ut_on_model },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_cq = {
	.name = "mlx5_cq",
	.cases = ut_mlx5_cq_cases,
};
