/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_qp: the send/receive data path (drivers/mlx5/mlx5_qp.c) through
 * the device model: every opcode, inline sizes, MTU-crossing and 1 MiB
 * messages, 1..max_sge SGEs, byte-for-byte contents, posting errnos, one
 * doorbell per post list, and send (inline too) and receive WQE layouts
 * identical to mlx5dv.h's segment helpers.
 */

#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <rte_byteorder.h>

#include "mlx5_priv.h"
#include "ut_mlx5.h"

#define UT_MAX_SGE	16
#define UT_MAX_INLINE	256

static const struct pv_qp_cap ut_cap = {
	.max_send_wr = 64,
	.max_recv_wr = 64,
	.max_send_sge = UT_MAX_SGE,
	.max_recv_sge = UT_MAX_SGE,
	.max_inline_data = UT_MAX_INLINE,
};

/* Split [addr, addr + len) into @p n SGEs of @p lkey (the last takes the rest). */
static void
ut_sgl(struct pv_sge *sge, int n, void *addr, size_t len, uint32_t lkey)
{
	size_t part = len / n, off = 0;
	int i;

	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)addr + off;
		sge[i].length = i == n - 1 ? len - off : part;
		sge[i].lkey = lkey;
		off += part;
	}
}

/*
 * One transfer from p->a to p->b: @p len bytes in @p nsge SGEs (receive side
 * in @p rsge SGEs), inline when @p inl; contents and completions checked.
 */
static void
ut_xfer(struct ut_pair *p, enum pv_wr_opcode op, size_t len, int nsge, int rsge, int inl)
{
	struct pv_mr *la = ut_mr(len + 64), *rb = ut_mr(len + 64);
	struct pv_sge sge[UT_MAX_SGE], rsg[UT_MAX_SGE];
	struct pv_send_wr wr, *bad = NULL;
	struct pv_recv_wr rwr, *rbad = NULL;
	struct pv_wc wc[2];
	int two_sided = op == PV_WR_SEND || op == PV_WR_SEND_WITH_IMM ||
			op == PV_WR_RDMA_WRITE_WITH_IMM;
	uint8_t *lbuf, *rbuf, zero[64] = { 0 };

	CU_ASSERT_FATAL(la != NULL && rb != NULL);
	lbuf = la->addr;
	rbuf = rb->addr;
	if (op == PV_WR_RDMA_READ)
		ut_fill(rbuf, len, (uint32_t)len);
	else
		ut_fill(lbuf, len, (uint32_t)len + nsge);

	if (two_sided) {
		memset(&rwr, 0, sizeof(rwr));
		rwr.wr_id = 0xb0b0 + len;
		if (op == PV_WR_RDMA_WRITE_WITH_IMM) {
			rwr.num_sge = 0;
		} else {
			ut_sgl(rsg, rsge, rbuf, len, rb->lkey);
			rwr.sg_list = rsg;
			rwr.num_sge = len ? rsge : 0;
		}
		CU_ASSERT_EQUAL_FATAL(pv_post_recv(p->b, &rwr, &rbad), 0);
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xa0a0 + len;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED | (inl ? PV_SEND_INLINE : 0);
	wr.imm_data = rte_cpu_to_be_32(0x11223344);
	ut_sgl(sge, nsge, lbuf, len, la->lkey);
	wr.sg_list = sge;
	wr.num_sge = len ? nsge : 0;
	wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
	wr.wr.rdma.rkey = rb->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p->a, &wr, &bad), 0);

	CU_ASSERT_EQUAL_FATAL(ut_poll(p->cq_a, 1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0xa0a0 + len);
	CU_ASSERT_EQUAL(wc[0].qp_num, p->a->qp_num);
	switch (op) {
	case PV_WR_SEND:
	case PV_WR_SEND_WITH_IMM:
		CU_ASSERT_EQUAL(wc[0].opcode, PV_WC_SEND);
		break;
	case PV_WR_RDMA_READ:
		CU_ASSERT_EQUAL(wc[0].opcode, PV_WC_RDMA_READ);
		CU_ASSERT_EQUAL(wc[0].byte_len, len);
		break;
	default:
		CU_ASSERT_EQUAL(wc[0].opcode, PV_WC_RDMA_WRITE);
		break;
	}
	if (two_sided) {
		CU_ASSERT_EQUAL_FATAL(ut_poll(p->cq_b, 1, wc + 1), 1);
		CU_ASSERT_EQUAL(wc[1].status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[1].wr_id, 0xb0b0 + len);
		CU_ASSERT_EQUAL(wc[1].byte_len, len);
		CU_ASSERT_EQUAL(wc[1].qp_num, p->b->qp_num);
		CU_ASSERT_EQUAL(wc[1].src_qp, p->a->qp_num);
		if (op == PV_WR_SEND) {
			CU_ASSERT_EQUAL(wc[1].opcode, PV_WC_RECV);
			CU_ASSERT_EQUAL(wc[1].wc_flags & PV_WC_WITH_IMM, 0);
		} else {
			CU_ASSERT_EQUAL(wc[1].opcode, op == PV_WR_SEND_WITH_IMM ?
					PV_WC_RECV : PV_WC_RECV_RDMA_WITH_IMM);
			CU_ASSERT(wc[1].wc_flags & PV_WC_WITH_IMM);
			CU_ASSERT_EQUAL(wc[1].imm_data, rte_cpu_to_be_32(0x11223344));
		}
	}
	/* byte for byte, and not a byte beyond */
	CU_ASSERT_EQUAL(memcmp(lbuf, rbuf, len), 0);
	if (op == PV_WR_RDMA_READ) {
		CU_ASSERT_EQUAL(memcmp(lbuf + len, zero, 64), 0);
	} else {
		CU_ASSERT_EQUAL(memcmp(rbuf + len, zero, 64), 0);
	}
	ut_mr_free(la);
	ut_mr_free(rb);
}

static void
ut_atomic(struct ut_pair *p, enum pv_wr_opcode op)
{
	struct pv_mr *la = ut_mr(8), *rb = ut_mr(8);
	struct pv_send_wr wr, *bad = NULL;
	struct pv_sge sge;
	struct pv_wc wc;
	uint64_t *res, *target;

	CU_ASSERT_FATAL(la != NULL && rb != NULL);
	res = la->addr;
	target = rb->addr;
	*target = 100;
	*res = 0xdeadbeef;
	sge.addr = (uintptr_t)res;
	sge.length = 8;
	sge.lkey = la->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = rb->rkey;
	wr.wr.atomic.compare_add = op == PV_WR_ATOMIC_CMP_AND_SWP ? 100 : 23;
	wr.wr.atomic.swap = 9;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p->a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(ut_poll(p->cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.byte_len, 8);
	CU_ASSERT_EQUAL(*res, 100);
	if (op == PV_WR_ATOMIC_CMP_AND_SWP) {
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_COMP_SWAP);
		CU_ASSERT_EQUAL(*target, 9);
		/* a failing compare leaves the target alone */
		wr.wr.atomic.compare_add = 1;
		CU_ASSERT_EQUAL_FATAL(pv_post_send(p->a, &wr, &bad), 0);
		CU_ASSERT_EQUAL_FATAL(ut_poll(p->cq_a, 1, &wc), 1);
		CU_ASSERT_EQUAL(*res, 9);
		CU_ASSERT_EQUAL(*target, 9);
	} else {
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_FETCH_ADD);
		CU_ASSERT_EQUAL(*target, 123);
	}
	ut_mr_free(la);
	ut_mr_free(rb);
}

static void
test_opcodes_1byte(void)
{
	struct ut_pair p;

	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	ut_xfer(&p, PV_WR_SEND, 1, 1, 1, 0);
	ut_xfer(&p, PV_WR_SEND_WITH_IMM, 1, 1, 1, 0);
	ut_xfer(&p, PV_WR_RDMA_WRITE, 1, 1, 1, 0);
	ut_xfer(&p, PV_WR_RDMA_WRITE_WITH_IMM, 1, 1, 1, 0);
	ut_xfer(&p, PV_WR_RDMA_READ, 1, 1, 1, 0);
	ut_xfer(&p, PV_WR_SEND, 1, 1, 1, 1);
	ut_xfer(&p, PV_WR_RDMA_WRITE_WITH_IMM, 1, 1, 1, 1);
	/* zero-length messages */
	ut_xfer(&p, PV_WR_SEND, 0, 1, 1, 0);
	ut_xfer(&p, PV_WR_RDMA_WRITE, 0, 1, 1, 0);
	ut_atomic(&p, PV_WR_ATOMIC_CMP_AND_SWP);
	ut_atomic(&p, PV_WR_ATOMIC_FETCH_AND_ADD);
	ut_pair_destroy(&p);
}

static void
test_inline_sizes(void)
{
	static const size_t sizes[] = { 1, 4, 8, 11, 12, 13, 27, 28, 44, 60, 64, 100, 200, 255,
					UT_MAX_INLINE };
	struct ut_pair p;
	unsigned int i;
	int n;

	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		ut_xfer(&p, PV_WR_RDMA_WRITE, sizes[i], 1, 1, 1);
		ut_xfer(&p, PV_WR_SEND_WITH_IMM, sizes[i], 1, 1, 1);
		/* inline gathered from several SGEs */
		for (n = 2; n <= UT_MAX_SGE && (size_t)n <= sizes[i]; n *= 2)
			ut_xfer(&p, PV_WR_SEND, sizes[i], n, 1, 1);
	}
	ut_pair_destroy(&p);
}

static void
test_large_sizes(void)
{
	static const size_t sizes[] = { 1023, 1024, 1025, 4095, 4096, 4097, 9000, 65536,
					1u << 20 };
	struct ut_pair p;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		ut_xfer(&p, PV_WR_SEND, sizes[i], 1, 1, 0);
		ut_xfer(&p, PV_WR_RDMA_WRITE, sizes[i], 1, 1, 0);
		ut_xfer(&p, PV_WR_RDMA_WRITE_WITH_IMM, sizes[i], 3, 1, 0);
		ut_xfer(&p, PV_WR_RDMA_READ, sizes[i], 2, 1, 0);
	}
	ut_pair_destroy(&p);
}

static void
test_sge_counts(void)
{
	struct ut_pair p;
	int n;

	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	for (n = 1; n <= UT_MAX_SGE; n++) {
		ut_xfer(&p, PV_WR_SEND, 4096 + n, n, UT_MAX_SGE + 1 - n, 0);
		ut_xfer(&p, PV_WR_RDMA_WRITE, 100 * n + 3, n, 1, 0);
		ut_xfer(&p, PV_WR_RDMA_READ, 100 * n + 5, n, 1, 0);
	}
	ut_pair_destroy(&p);
}

static void
test_post_errors(void)
{
	struct pv_qp_cap cap = ut_cap;
	struct pv_mr *mr = ut_mr(4096);
	struct pv_sge sge[UT_MAX_SGE + 1];
	struct pv_send_wr wr[2], *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;
	struct ut_pair p;
	int i, n;

	CU_ASSERT_FATAL(mr != NULL);
	cap.max_send_wr = 4;
	cap.max_recv_wr = 4;
	cap.max_inline_data = 16;
	cap.max_send_sge = 2;
	cap.max_recv_sge = 2;
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 256, 0, 0), 0);
	ut_sgl(sge, UT_MAX_SGE + 1, mr->addr, 4096, mr->lkey);
	memset(wr, 0, sizeof(wr));
	wr[0].opcode = PV_WR_RDMA_WRITE;
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	wr[0].wr.rdma.remote_addr = (uintptr_t)mr->addr;
	wr[0].wr.rdma.rkey = mr->rkey;
	wr[1] = wr[0];
	wr[0].send_flags = PV_SEND_SIGNALED;
	wr[0].next = &wr[1];

	/* unknown or unsupported opcode */
	wr[1].opcode = PV_WR_TSO;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.a, wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	wr[1].opcode = (enum pv_wr_opcode)99;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	/* more SGEs than granted */
	wr[1].opcode = PV_WR_SEND;
	wr[1].num_sge = 3;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	/* inline beyond the granted size */
	wr[1].num_sge = 1;
	sge[0].length = p.a->cap.max_inline_data + 1;
	wr[1].send_flags = PV_SEND_INLINE;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	/* inline gathered: 16 + 0xfffffff0 wraps to 0 in 32 bits, still too long */
	sge[0].length = 16;
	sge[1].length = 0xfffffff0u;
	wr[1].num_sge = 2;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	/* inline with more SGEs than granted */
	sge[1].length = 4;
	wr[1].num_sge = 3;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr[1]);
	wr[1].num_sge = 1;
	sge[1].length = 4096;
	sge[0].length = 8;
	wr[1].send_flags = 0;
	/* atomic with two SGEs */
	wr[1].opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	wr[1].num_sge = 2;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[1], &bad), EINVAL);
	/* the valid head of the first list went out */
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);

	/* full send queue: ENOMEM at the first WR that does not fit */
	wr[0].next = NULL;
	wr[0].send_flags = 0;
	wr[0].opcode = PV_WR_RDMA_WRITE;
	for (n = 0; n < 1000; n++) {
		int r = pv_post_send(p.a, &wr[0], &bad);

		if (r != 0) {
			CU_ASSERT_EQUAL(r, ENOMEM);
			CU_ASSERT_PTR_EQUAL(bad, &wr[0]);
			break;
		}
	}
	CU_ASSERT((uint32_t)n >= p.a->cap.max_send_wr);
	CU_ASSERT(n < 1000);
	pv_mlx5_model_drain();

	/* receive: too many SGEs, full queue */
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = sge;
	rwr.num_sge = (int)p.b->cap.max_recv_sge + 1;
	CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), EINVAL);
	CU_ASSERT_PTR_EQUAL(rbad, &rwr);
	rwr.num_sge = 1;
	for (i = 0; i < 1000; i++) {
		int r = pv_post_recv(p.b, &rwr, &rbad);

		if (r != 0) {
			CU_ASSERT_EQUAL(r, ENOMEM);
			break;
		}
	}
	CU_ASSERT_EQUAL((uint32_t)i, p.b->cap.max_recv_wr);

	/* a QP in RESET takes nothing */
	{
		struct pv_qp_attr attr = { .qp_state = PV_QPS_RESET };

		CU_ASSERT_EQUAL(pv_modify_qp(p.a, &attr, PV_QP_STATE), 0);
		CU_ASSERT_EQUAL(pv_post_send(p.a, &wr[0], &bad), EINVAL);
		CU_ASSERT_EQUAL(pv_post_recv(p.a, &rwr, &rbad), EINVAL);
	}
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/*
 * The expected WQE of @p wr in @p expect, built with mlx5dv.h's segment
 * helpers (mlx5dv_set_ctrl_seg(), mlx5dv_set_data_seg(), or their x86
 * variants when @p x86) where mlx5dv.h has one; the remote address, atomic
 * and inline segments have no helper there and are written field by field.
 * @return the bytes to compare: the WQE less the padding of an inline
 *         segment, which neither rdma-core nor pollverbs clears.
 */
static uint32_t
ut_wqe_expect(const struct pv_mlx5_qp *qp, const struct pv_send_wr *wr, uint32_t pi,
	      uint8_t mlx5_op, uint8_t fm_ce_se, int x86, uint8_t *expect)
{
	uint8_t *seg = expect + sizeof(struct mlx5_wqe_ctrl_seg);
	uint32_t ds, len = 0, imm = 0;
	int i;

	if (wr->opcode != PV_WR_SEND && wr->opcode != PV_WR_SEND_WITH_IMM) {
		struct mlx5_wqe_raddr_seg *r = (struct mlx5_wqe_raddr_seg *)seg;

		r->raddr = rte_cpu_to_be_64(wr->wr.rdma.remote_addr);
		r->rkey = rte_cpu_to_be_32(wr->opcode >= PV_WR_ATOMIC_CMP_AND_SWP ?
					   wr->wr.atomic.rkey : wr->wr.rdma.rkey);
		seg += sizeof(*r);
	}
	if (wr->opcode == PV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == PV_WR_ATOMIC_FETCH_AND_ADD) {
		struct mlx5_wqe_atomic_seg *a = (struct mlx5_wqe_atomic_seg *)seg;

		if (wr->opcode == PV_WR_ATOMIC_CMP_AND_SWP) {
			a->swap_add = rte_cpu_to_be_64(wr->wr.atomic.swap);
			a->compare = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
		} else {
			a->swap_add = rte_cpu_to_be_64(wr->wr.atomic.compare_add);
		}
		seg += sizeof(*a);
	}
	if (wr->send_flags & PV_SEND_INLINE) {
		struct mlx5_wqe_inl_data_seg *inl = (struct mlx5_wqe_inl_data_seg *)seg;

		seg += sizeof(*inl);
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(seg, (void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			seg += wr->sg_list[i].length;
			len += wr->sg_list[i].length;
		}
		inl->byte_count = rte_cpu_to_be_32(len | MLX5_INLINE_SEG);
	}
	for (i = 0; !(wr->send_flags & PV_SEND_INLINE) && i < wr->num_sge; i++) {
		struct mlx5_wqe_data_seg *d = (struct mlx5_wqe_data_seg *)seg;

#if defined(__SSE3__)
		if (x86)
			mlx5dv_x86_set_data_seg(d, wr->sg_list[i].length, wr->sg_list[i].lkey,
						wr->sg_list[i].addr);
		else
#endif
			mlx5dv_set_data_seg(d, wr->sg_list[i].length, wr->sg_list[i].lkey,
					    wr->sg_list[i].addr);
		seg += sizeof(*d);
	}
	ds = (seg - expect + 15) / 16;
	if (wr->opcode == PV_WR_SEND_WITH_IMM || wr->opcode == PV_WR_RDMA_WRITE_WITH_IMM)
		imm = wr->imm_data;
#if defined(__SSE3__)
	if (x86)
		mlx5dv_x86_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)expect, (uint16_t)pi, mlx5_op,
					0, qp->qpn, fm_ce_se, ds, 0, imm);
	else
#endif
		mlx5dv_set_ctrl_seg((struct mlx5_wqe_ctrl_seg *)expect, (uint16_t)pi, mlx5_op, 0,
				    qp->qpn, fm_ce_se, ds, 0, imm);
	RTE_SET_USED(x86);
	return seg - expect;
}

/*
 * The WQE pollverbs wrote for @p wr, compared byte for byte with the one
 * ut_wqe_expect() builds with mlx5dv.h's helpers (and their x86 variants).
 */
static void
ut_layout_check(struct pv_qp *ibqp, struct pv_send_wr *wr, uint8_t mlx5_op, uint8_t fm_ce_se)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	uint8_t expect[PV_MLX5_MAX_WQE_BB * 64] __rte_aligned(64);
	uint8_t got[PV_MLX5_MAX_WQE_BB * 64];
	struct pv_send_wr *bad = NULL;
	uint32_t pi = qp->sq_pi, len, bb;
	int x86;

	CU_ASSERT_EQUAL_FATAL(pv_post_send(ibqp, wr, &bad), 0);
	/* the WQE as the HCA reads it: WQEBB by WQEBB, across the ring's end */
	for (bb = 0; bb < PV_MLX5_MAX_WQE_BB; bb++)
		memcpy(got + bb * 64, qp->sq_buf + (((pi + bb) & qp->sq_mask) << 6), 64);
	for (x86 = 0; x86 < 2; x86++) {
		memset(expect, 0, sizeof(expect));
		len = ut_wqe_expect(qp, wr, pi, mlx5_op, fm_ce_se, x86, expect);
		CU_ASSERT_EQUAL(memcmp(got, expect, len), 0);
	}
}

/*
 * The receive WQE pollverbs wrote for @p wr at RQ index @p head, compared
 * with one built by mlx5dv_set_data_seg(): a data segment per SGE of
 * nonzero length, then one of lkey MLX5_INVALID_LKEY ending a list shorter
 * than the WQE.
 */
static void
ut_rq_layout_check(struct pv_qp *ibqp, const struct pv_recv_wr *wr, uint32_t head)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	struct mlx5_wqe_data_seg expect[UT_MAX_SGE + 1];
	uint32_t n = 0;
	int i;

	memset(expect, 0, sizeof(expect));
	for (i = 0; i < wr->num_sge; i++)
		if (wr->sg_list[i].length != 0)
			mlx5dv_set_data_seg(&expect[n++], wr->sg_list[i].length,
					    wr->sg_list[i].lkey, wr->sg_list[i].addr);
	if (n < qp->rq_slots)
		mlx5dv_set_data_seg(&expect[n++], 0, MLX5_INVALID_LKEY, 0);
	CU_ASSERT_EQUAL(memcmp(qp->rq_buf + ((head & qp->rq_mask) << qp->rq_stride_shift),
			       expect, n * sizeof(expect[0])), 0);
}

static void
test_wqe_layout(void)
{
	struct pv_mr *mr = ut_mr(1 << 16);
	struct pv_sge sge[4], rsge[4];
	struct pv_send_wr wr;
	struct pv_recv_wr rwr, *rbad;
	struct ut_pair p;
	static const struct {
		enum pv_wr_opcode op;
		uint8_t mlx5_op;
		unsigned int flags;
		int nsge;
		uint8_t fm_ce_se;
	} tbl[] = {
		{ PV_WR_SEND, MLX5_OPCODE_SEND, 0, 1, 0 },
		{ PV_WR_SEND, MLX5_OPCODE_SEND, PV_SEND_SIGNALED, 3, MLX5_WQE_CTRL_CQ_UPDATE },
		{ PV_WR_SEND_WITH_IMM, MLX5_OPCODE_SEND_IMM, PV_SEND_SOLICITED, 2,
		  MLX5_WQE_CTRL_SOLICITED },
		{ PV_WR_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE, PV_SEND_FENCE | PV_SEND_SIGNALED, 4,
		  MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE },
		{ PV_WR_RDMA_WRITE_WITH_IMM, MLX5_OPCODE_RDMA_WRITE_IMM, PV_SEND_SIGNALED |
		  PV_SEND_SOLICITED, 1, MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED },
		{ PV_WR_RDMA_READ, MLX5_OPCODE_RDMA_READ, PV_SEND_SIGNALED, 2,
		  MLX5_WQE_CTRL_CQ_UPDATE },
		{ PV_WR_ATOMIC_CMP_AND_SWP, MLX5_OPCODE_ATOMIC_CS, PV_SEND_SIGNALED, 1,
		  MLX5_WQE_CTRL_CQ_UPDATE },
		{ PV_WR_ATOMIC_FETCH_AND_ADD, MLX5_OPCODE_ATOMIC_FA, PV_SEND_FENCE, 1,
		  MLX5_WQE_CTRL_FENCE },
		/* inline payloads of 64 to 192 bytes: a data segment mlx5dv.h has no helper for */
		{ PV_WR_SEND, MLX5_OPCODE_SEND, PV_SEND_INLINE, 1, 0 },
		{ PV_WR_SEND_WITH_IMM, MLX5_OPCODE_SEND_IMM, PV_SEND_INLINE | PV_SEND_SIGNALED, 2,
		  MLX5_WQE_CTRL_CQ_UPDATE },
		{ PV_WR_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE, PV_SEND_INLINE, 3, 0 },
		{ PV_WR_RDMA_WRITE_WITH_IMM, MLX5_OPCODE_RDMA_WRITE_IMM, PV_SEND_INLINE |
		  PV_SEND_SOLICITED, 1, MLX5_WQE_CTRL_SOLICITED },
	};
	unsigned int i, round;
	uint32_t head;
	struct pv_wc wc[64];

	CU_ASSERT_FATAL(mr != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 256, 0, 0), 0);
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = rsge;
	/* several rounds, so the WQEBB index in the ctrl segment moves */
	for (round = 0; round < 5; round++) {
		for (i = 0; i < RTE_DIM(tbl); i++) {
			/* 1 to 4 receive SGEs; with 3 a zero-length one, which takes no segment */
			head = pv_mlx5_qp(p.b)->rq_head;
			rwr.num_sge = 1 + (round + i) % 4;
			ut_sgl(rsge, rwr.num_sge, mr->addr, 4096, mr->lkey);
			if (rwr.num_sge == 3)
				rsge[1].length = 0;
			CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
			ut_rq_layout_check(p.b, &rwr, head);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = i;
			wr.opcode = tbl[i].op;
			wr.send_flags = tbl[i].flags;
			wr.imm_data = rte_cpu_to_be_32(0xabcd0000 + i);
			ut_sgl(sge, tbl[i].nsge, (uint8_t *)mr->addr + 8 * i, 64 * tbl[i].nsge,
			       mr->lkey);
			if (tbl[i].op >= PV_WR_ATOMIC_CMP_AND_SWP) {
				sge[0].length = 8;
				wr.wr.atomic.remote_addr = (uintptr_t)mr->addr + 32768;
				wr.wr.atomic.rkey = mr->rkey;
				wr.wr.atomic.compare_add = 0x0102030405060708ull;
				wr.wr.atomic.swap = 0x1112131415161718ull;
			} else {
				wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + 16384 + i;
				wr.wr.rdma.rkey = mr->rkey;
			}
			wr.sg_list = sge;
			wr.num_sge = tbl[i].nsge;
			ut_layout_check(p.a, &wr, tbl[i].mlx5_op, tbl[i].fm_ce_se);
		}
		pv_mlx5_model_drain();
		while (pv_poll_cq(p.cq_a, 64, wc) > 0)
			;
		while (pv_poll_cq(p.cq_b, 64, wc) > 0)
			;
	}
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/* Exactly one doorbell record update and one BlueFlame write per list. */
static void
test_doorbell_per_list(void)
{
	static const int lists[] = { 1, 2, 7, 32, 5, 16 };
	struct pv_mr *mr = ut_mr(4096);
	struct pv_mlx5_mdl_qp_stats s0, s1;
	struct pv_send_wr wr[32], *bad;
	struct pv_sge sge;
	struct pv_wc wc[32];
	struct pv_qp_cap cap = ut_cap;
	struct ut_pair p;
	unsigned int l;
	int i;

	CU_ASSERT_FATAL(mr != NULL);
	cap.max_send_wr = 128;
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &cap, 1024, 0, 0), 0);
	sge.addr = (uintptr_t)mr->addr;
	sge.lkey = mr->lkey;
	for (l = 0; l < RTE_DIM(lists) * 2; l++) {
		struct pv_mlx5_qp *qp = pv_mlx5_qp(p.a);
		int n = lists[l % RTE_DIM(lists)];
		int big = l >= RTE_DIM(lists);	/* second pass: WQEs beyond a BF half */
		uint32_t last_pi, half;

		sge.length = big ? UT_MAX_INLINE : 8;
		for (i = 0; i < n; i++) {
			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = i;
			wr[i].opcode = PV_WR_RDMA_WRITE;
			wr[i].send_flags = PV_SEND_INLINE |
					   (i == n - 1 ? PV_SEND_SIGNALED : 0);
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].wr.rdma.remote_addr = (uintptr_t)mr->addr + 1024;
			wr[i].wr.rdma.rkey = mr->rkey;
			wr[i].next = i == n - 1 ? NULL : &wr[i + 1];
		}
		CU_ASSERT_EQUAL(pv_mlx5_model_qp_stats_get(p.a, &s0), 0);
		half = qp->bf_off;
		CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, wr, &bad), 0);
		/* the record names the new producer index; the BlueFlame half
		 * holds the last WQE (whole if it fits), and the halves alternate */
		CU_ASSERT_EQUAL(rte_be_to_cpu_32(qp->sq_dbrec[0]), qp->sq_pi & 0xffff);
		CU_ASSERT_EQUAL(qp->bf_off, half ^ qp->bf_size);
		last_pi = rte_be_to_cpu_32(*(pv_be32 *)(qp->bf_reg + half)) >> 8 & 0xffff;
		CU_ASSERT_EQUAL(last_pi, (qp->sq_pi - (big ? 5 : 1)) & 0xffff);
		CU_ASSERT_EQUAL(memcmp(qp->bf_reg + half,
				       qp->sq_buf + ((last_pi & qp->sq_mask) << 6),
				       big ? 8 : 64), 0);
		CU_ASSERT_EQUAL(pv_mlx5_model_step() > 0, 1);
		CU_ASSERT_EQUAL(pv_mlx5_model_qp_stats_get(p.a, &s1), 0);
		CU_ASSERT_EQUAL(s1.doorbells - s0.doorbells, 1);
		CU_ASSERT_EQUAL(s1.sq_dbrec_seen - s0.sq_dbrec_seen, 1);
		CU_ASSERT_EQUAL(s1.db_errors, 0);
		CU_ASSERT_EQUAL(s1.bf_full - s0.bf_full, big ? 0 : 1);
		CU_ASSERT_EQUAL(s1.last_bf_half, half ? 1 : 0);
		CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, wc), 1);
		CU_ASSERT_EQUAL(wc[0].status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].wr_id, (uint64_t)n - 1);
	}
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/* the kernel owns QP1: no GSI QP through pollverbs (model and hardware) */
static void
test_no_gsi_qp(void)
{
	struct pv_cq *cq = pv_create_cq(ut_ctx, 16, NULL, NULL, 0);
	struct pv_qp_init_attr ia;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PV_QPT_UD;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_verbs_create_gsi_qp(ut_pd, &ia));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
}

static const struct ut_case ut_mlx5_qp_cases[] = {
	{ "every opcode at 1 byte", test_opcodes_1byte },
	{ "inline sizes", test_inline_sizes },
	{ "mtu-crossing and 1 MiB", test_large_sizes },
	{ "1..max_sge sges", test_sge_counts },
	{ "posting errnos", test_post_errors },
	{ "no GSI QP (EOPNOTSUPP)", test_no_gsi_qp },
	{ "wqe layouts = mlx5dv helpers (send, inline, receive)", test_wqe_layout },
	{ "one doorbell per post list", test_doorbell_per_list, ut_on_model },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_qp = {
	.name = "mlx5_qp",
	.cases = ut_mlx5_qp_cases,
};
