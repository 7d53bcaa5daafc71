/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce integration test in one process: two devices on two net_ring
 * ports whose rings are crossed (A's TX ring is B's RX ring), driven from
 * one thread. Covers every opcode at MTU boundaries, multi-SGE, inline,
 * atomics, remote access violations, RNR, a vanished peer, go-back-N under
 * injected loss, duplicates, and the port/GID layout.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_sroce.h"

#define DEPTH 256
#define BIG (1u << 20)

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static enum pv_mtu port_mtu;
static uint8_t *lbuf, *rbuf, *chk;
static struct pv_mr *lmr, *rmr;
static struct ut_buf *lb;

static int
pair_connect(struct ut_pair *p, const struct ut_qp_opts *oa, const struct ut_qp_opts *ob)
{
	/* qa's PSN wraps the 24 bits early */
	int ret = ut_pair_rtr(p, pd, cq, DEPTH, oa, ob, 0xfffff0, 0x1234, port_mtu);

	return ret ? ret : ut_pair_rts(p, oa, ob);
}

static void
pair_destroy(struct ut_pair *p)
{
	/* drain what is left so the CQs start empty for the next test */
	ut_cq_drain(cq, 2, 5);
	if (p->qa != NULL)
		pv_destroy_qp(p->qa);
	if (p->qb != NULL)
		pv_destroy_qp(p->qb);
}

static enum pv_qp_state
qp_state(struct pv_qp *qp)
{
	struct pv_qp_attr a;
	struct pv_qp_init_attr ia;

	pv_query_qp(qp, &a, PV_QP_STATE, &ia);
	return a.qp_state;
}

/* ---------------------------------------------------------------------- */

static void
test_port_and_gid(void)
{
	struct pv_port_attr pa;
	struct pv_device_attr da;
	union pv_gid gid;
	static const uint8_t g1[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1 };

	CU_ASSERT_EQUAL(pv_query_port(ctx[0], 1, &pa), 0);
	CU_ASSERT_EQUAL(pa.state, PV_PORT_ACTIVE);
	CU_ASSERT_EQUAL(pa.active_mtu, PV_MTU_1024);	/* Ethernet MTU 1500, as rxe */
	CU_ASSERT_EQUAL(pa.link_layer, PV_LINK_LAYER_ETHERNET);
	CU_ASSERT_EQUAL(pa.gid_tbl_len, 2);
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 1, &gid), 0);
	CU_ASSERT_EQUAL(memcmp(gid.raw, g1, 16), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 0, &gid), 0);
	CU_ASSERT_EQUAL(gid.raw[0], 0xfe);
	CU_ASSERT_EQUAL(gid.raw[1], 0x80);
	CU_ASSERT_EQUAL(gid.raw[11], 0xff);
	CU_ASSERT_EQUAL(gid.raw[12], 0xfe);
	CU_ASSERT_EQUAL(memcmp(&gid.raw[8], &ctx[0]->device->node_guid, 8), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 2, &gid), -1);
	CU_ASSERT_EQUAL(pv_query_device(ctx[0], &da), 0);
	CU_ASSERT_EQUAL(da.max_qp_rd_atom, 16);
	CU_ASSERT_EQUAL(da.atomic_cap, PV_ATOMIC_HCA);
	CU_ASSERT(da.max_inline_data >= 64);
}

static const uint32_t sizes[] = { 0, 1, 63, 1023, 1024, 1025, 65536, BIG };

static void
one_transfer(struct ut_pair *p, enum pv_wr_opcode op, uint32_t len, uint32_t seed)
{
	struct pv_wc wc;
	int imm = op == PV_WR_SEND_WITH_IMM || op == PV_WR_RDMA_WRITE_WITH_IMM;
	int recv = op == PV_WR_SEND || imm;
	uint8_t *src = op == PV_WR_RDMA_READ ? rbuf : lbuf;
	uint8_t *dst = op == PV_WR_RDMA_READ ? lbuf : rbuf;

	ut_fill(src, len, seed);
	memset(dst, 0xee, len + 16);
	memcpy(chk, src, len);
	if (recv)
		CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p->qb, 77, rbuf,
						    op == PV_WR_RDMA_WRITE_WITH_IMM ? 0 : BIG,
						    rmr->lkey), 0);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(p->qa, op, seed, lbuf, len, lmr->lkey,
					    (uintptr_t)rbuf, rmr->rkey, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, seed);
	CU_ASSERT_EQUAL(wc.qp_num, p->qa->qp_num);
	if (op == PV_WR_RDMA_READ) {
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_RDMA_READ);
		CU_ASSERT_EQUAL(wc.byte_len, len);
	}
	if (recv) {
		CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 77);
		CU_ASSERT_EQUAL(wc.byte_len, len);
		CU_ASSERT_EQUAL(wc.src_qp, p->qa->qp_num);
		CU_ASSERT_EQUAL(wc.opcode, op == PV_WR_RDMA_WRITE_WITH_IMM ?
				PV_WC_RECV_RDMA_WITH_IMM : PV_WC_RECV);
		CU_ASSERT_EQUAL(!!(wc.wc_flags & PV_WC_WITH_IMM), imm);
		if (imm)
			CU_ASSERT_EQUAL(wc.imm_data, htonl(0x12345678));
	}
	CU_ASSERT_EQUAL(memcmp(dst, chk, len), 0);
	/* nothing written past the message */
	CU_ASSERT_EQUAL(dst[len], 0xee);
}

static void
test_all_opcodes_sizes(void)
{
	static const enum pv_wr_opcode ops[] = {
		PV_WR_SEND, PV_WR_SEND_WITH_IMM, PV_WR_RDMA_WRITE, PV_WR_RDMA_WRITE_WITH_IMM,
		PV_WR_RDMA_READ,
	};
	struct ut_pair p;
	unsigned int i, j;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	for (i = 0; i < RTE_DIM(ops); i++)
		for (j = 0; j < RTE_DIM(sizes); j++)
			one_transfer(&p, ops[i], sizes[j], i * 100 + j + 1);
	pair_destroy(&p);
}

static void
test_atomics(void)
{
	struct ut_pair p;
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	struct pv_wc wc;
	uint64_t *target = (uint64_t *)rbuf, *res = (uint64_t *)lbuf;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	*target = 100;
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)res;
	sge.length = 8;
	sge.lkey = lmr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = rmr->rkey;
	wr.wr.atomic.compare_add = 5;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, &wr, &bad), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(*res, 100);
	CU_ASSERT_EQUAL(*target, 105);

	wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.swap = 7;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, &wr, &bad), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_COMP_SWAP);
	CU_ASSERT_EQUAL(*res, 105);
	CU_ASSERT_EQUAL(*target, 7);

	wr.wr.atomic.compare_add = 1;	/* mismatch: no swap */
	wr.wr.atomic.swap = 9;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, &wr, &bad), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(*res, 7);
	CU_ASSERT_EQUAL(*target, 7);
	pair_destroy(&p);
}

static void
test_multi_sge_inline_unsignaled(void)
{
	struct ut_pair p;
	struct pv_sge s[3], r[2];
	struct pv_send_wr wr[3], *bad;
	struct pv_recv_wr rw, *rbad;
	struct pv_wc wc;
	uint8_t inl[60];

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	ut_fill(lbuf, 4096, 42);
	memset(rbuf, 0, 16384);
	s[0] = (struct pv_sge){ (uintptr_t)lbuf, 100, lmr->lkey };
	s[1] = (struct pv_sge){ (uintptr_t)lbuf + 1000, 2000, lmr->lkey };
	s[2] = (struct pv_sge){ (uintptr_t)lbuf + 3500, 1, lmr->lkey };
	r[0] = (struct pv_sge){ (uintptr_t)rbuf, 1500, rmr->lkey };
	r[1] = (struct pv_sge){ (uintptr_t)rbuf + 4000, 601, rmr->lkey };
	memset(&rw, 0, sizeof(rw));
	rw.wr_id = 5;
	rw.sg_list = r;
	rw.num_sge = 2;
	CU_ASSERT_EQUAL_FATAL(pv_post_recv(p.qb, &rw, &rbad), 0);
	rw.wr_id = 6;
	r[0].addr = (uintptr_t)rbuf + 8192;
	rw.sg_list = r;
	rw.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_recv(p.qb, &rw, &rbad), 0);
	memset(wr, 0, sizeof(wr));
	/* unsignaled 3-SGE SEND, then a signaled inline SEND: one completion */
	wr[0].wr_id = 1;
	wr[0].sg_list = s;
	wr[0].num_sge = 3;
	wr[0].opcode = PV_WR_SEND;
	wr[0].next = &wr[1];
	memset(inl, 0x5a, sizeof(inl));
	s[0].addr = (uintptr_t)lbuf;
	wr[1].wr_id = 2;
	wr[1].sg_list = &(struct pv_sge){ (uintptr_t)inl, sizeof(inl), 0 };
	wr[1].num_sge = 1;
	wr[1].opcode = PV_WR_SEND;
	wr[1].send_flags = PV_SEND_INLINE | PV_SEND_SIGNALED;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, wr, &bad), 0);
	memset(inl, 0, sizeof(inl));	/* inline bytes were copied at post time */
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 5);
	CU_ASSERT_EQUAL(wc.byte_len, 2101);
	CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, 100), 0);
	CU_ASSERT_EQUAL(memcmp(rbuf + 100, lbuf + 1000, 1400), 0);
	CU_ASSERT_EQUAL(memcmp(rbuf + 4000, lbuf + 2400, 600), 0);
	CU_ASSERT_EQUAL(rbuf[4600], lbuf[3500]);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 6);
	CU_ASSERT_EQUAL(wc.byte_len, 60);
	CU_ASSERT_EQUAL(rbuf[8192], 0x5a);
	CU_ASSERT_EQUAL(rbuf[8192 + 59], 0x5a);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[0], 1, &wc), 0);	/* wr 1 was unsignaled */
	pair_destroy(&p);
}

static void
test_post_errors(void)
{
	struct ut_pair p;
	struct pv_sge s[8];
	struct pv_send_wr wr, *bad = NULL;
	int i, ret = 0;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	for (i = 0; i < 8; i++)
		s[i] = (struct pv_sge){ (uintptr_t)lbuf, 8, lmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = s;
	wr.num_sge = 8;		/* > max_send_sge 4 */
	wr.opcode = PV_WR_SEND;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	wr.num_sge = 1;
	wr.opcode = PV_WR_BIND_MW;
	bad = NULL;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	CU_ASSERT_PTR_EQUAL(bad, &wr);
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_INLINE;
	s[0].length = 4096;	/* > max_inline_data */
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	/* 16 + 0xfffffff0 wraps to 0 in 32 bits: still above max_inline_data */
	s[0].length = 16;
	s[1].length = 0xfffffff0u;
	wr.num_sge = 2;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	/* inline or not, num_sge is checked before any SGE is read */
	wr.num_sge = 8;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	wr.num_sge = 1;
	s[1].length = 8;
	s[0].length = 8;
	s[0].lkey = lmr->lkey ^ 0x100;	/* no such MR */
	wr.send_flags = 0;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), EINVAL);
	s[0].lkey = lmr->lkey;
	/* fill the SQ without progress: the peer cannot ACK, so it fills */
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
	wr.wr.rdma.rkey = rmr->rkey;
	for (i = 0; i <= DEPTH && ret == 0; i++)
		ret = pv_post_send(p.qa, &wr, &bad);
	CU_ASSERT_EQUAL(ret, ENOMEM);
	CU_ASSERT_EQUAL(i, DEPTH + 1);
	pair_destroy(&p);
}

enum viol {
	VIOL_BAD_RKEY,
	VIOL_BOUNDS,
	VIOL_NO_WRITE,
	VIOL_NO_READ,
	VIOL_OTHER_PD,
	VIOL_QP_NO_WRITE,
};

static void
one_violation(enum viol v)
{
	struct ut_pair p;
	struct pv_wc wc;
	struct pv_mr *mr = rmr;
	struct pv_pd *pd2 = NULL;
	enum pv_wr_opcode op = PV_WR_RDMA_WRITE;
	uint64_t raddr = (uintptr_t)rbuf;
	uint32_t rkey, len = 2048;
	struct ut_qp_opts ob = ut_qp_defaults;
	uint8_t *target = rbuf;

	switch (v) {
	case VIOL_NO_WRITE:
		mr = pv_reg_mr(pd[1], rbuf, BIG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
		break;
	case VIOL_NO_READ:
		mr = pv_reg_mr(pd[1], rbuf, BIG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
		op = PV_WR_RDMA_READ;
		target = lbuf;
		break;
	case VIOL_OTHER_PD:
		pd2 = pv_alloc_pd(ctx[1]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pd2);
		mr = pv_reg_mr(pd2, rbuf, BIG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
		break;
	case VIOL_QP_NO_WRITE:
		ob.access = PV_ACCESS_REMOTE_READ;
		break;
	default:
		break;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	rkey = mr->rkey;
	if (v == VIOL_BAD_RKEY)
		rkey ^= 0x80;
	if (v == VIOL_BOUNDS)
		raddr = (uintptr_t)rbuf + BIG - 100;
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ob), 0);
	ut_fill(lbuf, len, v + 7);
	/* the whole target buffer must stay as it was */
	ut_fill(rbuf, BIG, v + 99);
	memcpy(chk, target, target == rbuf ? BIG : len);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, op, 1, lbuf, len, lmr->lkey, raddr, rkey, 0),
			      0);
	/* a second WR behind it is flushed */
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, PV_WR_RDMA_WRITE, 2, lbuf, 8, lmr->lkey,
					    (uintptr_t)rbuf, rmr->rkey, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	ut_spin(2);
	CU_ASSERT_EQUAL(memcmp(target, chk, target == rbuf ? BIG : len), 0);
	CU_ASSERT_EQUAL(qp_state(p.qa), PV_QPS_ERR);
	CU_ASSERT_EQUAL(qp_state(p.qb), PV_QPS_ERR);
	pair_destroy(&p);
	if (mr != rmr)
		pv_dereg_mr(mr);
	if (pd2 != NULL)
		pv_dealloc_pd(pd2);
}

static void
test_remote_access_errors(void)
{
	one_violation(VIOL_BAD_RKEY);
	one_violation(VIOL_BOUNDS);
	one_violation(VIOL_NO_WRITE);
	one_violation(VIOL_NO_READ);
	one_violation(VIOL_OTHER_PD);
	one_violation(VIOL_QP_NO_WRITE);
}

static void
test_rnr_retry_exceeded(void)
{
	struct ut_qp_opts oa = ut_qp_defaults;
	struct ut_pair p;
	struct pv_wc wc;

	oa.rnr_retry = 0;
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &oa, &ut_qp_defaults), 0);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, PV_WR_SEND, 9, lbuf, 64, lmr->lkey, 0, 0, 0),
			      0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 9);
	CU_ASSERT_EQUAL(wc.status, PV_WC_RNR_RETRY_EXC_ERR);
	pair_destroy(&p);
}

static void
test_rnr_then_recv(void)
{
	struct ut_pair p;
	struct pv_wc wc;

	/* rnr_retry 7 = forever: a late receive lets the SEND through */
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	ut_fill(lbuf, 3000, 3);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, PV_WR_SEND, 9, lbuf, 3000, lmr->lkey, 0, 0, 0),
			      0);
	ut_spin(3);
	CU_ASSERT_EQUAL(pv_poll_cq(cq[0], 1, &wc), 0);
	CU_ASSERT_EQUAL_FATAL(ut_post_recv1(p.qb, 10, rbuf, 4096, rmr->lkey), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_FATAL(ut_wait_wc(cq[1], &wc, 5000));
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, 3000), 0);
	pair_destroy(&p);
}

static void
test_vanished_peer(void)
{
	struct ut_qp_opts oa = ut_qp_defaults;
	struct ut_pair p;
	struct pv_wc wc;
	int i;

	oa.timeout = 8;		/* ~1 ms */
	oa.retry_cnt = 2;
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &oa, &ut_qp_defaults), 0);
	pv_destroy_qp(p.qb);	/* the peer is gone: its QPN is unknown now */
	p.qb = NULL;
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(ut_post_send1(p.qa, PV_WR_RDMA_WRITE, 20 + i, lbuf, 5000,
						    lmr->lkey, (uintptr_t)rbuf, rmr->rkey, 0),
				      0);
	CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 20);
	CU_ASSERT_EQUAL(wc.status, PV_WC_RETRY_EXC_ERR);
	for (i = 1; i < 3; i++) {
		CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
		CU_ASSERT_EQUAL(wc.wr_id, 20 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	}
	CU_ASSERT_EQUAL(qp_state(p.qa), PV_QPS_ERR);
	pair_destroy(&p);
}

static void
lossy_run(const struct pv_sroce_fault *fa, const struct pv_sroce_fault *fb)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_sroce_fault none = { 0 };
	struct pv_sroce_stats sa0, sa1;
	struct ut_pair p;
	int k;

	o.timeout = 10;		/* ~4 ms */
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &o, &o), 0);
	pv_sroce_stats_get(ctx[0], &sa0);
	pv_sroce_fault_set(ctx[0], fa);
	pv_sroce_fault_set(ctx[1], fb);
	for (k = 0; k < 2; k++) {
		one_transfer(&p, PV_WR_RDMA_WRITE, 300000, 500 + k);
		one_transfer(&p, PV_WR_RDMA_READ, 300000, 600 + k);
		one_transfer(&p, PV_WR_SEND, 70000, 700 + k);
		one_transfer(&p, PV_WR_RDMA_WRITE_WITH_IMM, 5000, 800 + k);
		one_transfer(&p, PV_WR_SEND, 1, 900 + k);
	}
	pv_sroce_fault_set(ctx[0], &none);
	pv_sroce_fault_set(ctx[1], &none);
	pv_sroce_stats_get(ctx[0], &sa1);
	CU_ASSERT(sa1.retransmits > sa0.retransmits);
	pair_destroy(&p);
}

static void
test_go_back_n_loss(void)
{
	struct pv_sroce_fault fa = { .drop_tx_one_in = 10 };	/* requests lost */
	struct pv_sroce_fault fb = { .drop_tx_one_in = 10 };	/* ACKs, READ data lost */

	lossy_run(&fa, &fb);
}

static void
test_duplicates(void)
{
	struct pv_sroce_fault fa = { .dup_rx_every = 3 };
	struct pv_sroce_fault fb = { .dup_rx_every = 2, .drop_tx_one_in = 20 };
	struct pv_sroce_stats s0, s1;
	struct ut_pair p;
	struct pv_wc wc;
	uint64_t *target = (uint64_t *)rbuf, *res = (uint64_t *)lbuf;
	int i;

	pv_sroce_stats_get(ctx[1], &s0);
	lossy_run(&fa, &fb);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT(s1.dup_reqs > s0.dup_reqs);

	/* a duplicated or retried FETCH_ADD executes once */
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	pv_sroce_fault_set(ctx[1], &(struct pv_sroce_fault){ .dup_rx_every = 1 });
	*target = 1000;
	for (i = 0; i < 10; i++) {
		struct pv_sge sge = { (uintptr_t)res, 8, lmr->lkey };
		struct pv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = PV_SEND_SIGNALED;
		wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)target;
		wr.wr.atomic.rkey = rmr->rkey;
		wr.wr.atomic.compare_add = 1;
		CU_ASSERT_EQUAL_FATAL(pv_post_send(p.qa, &wr, &bad), 0);
		CU_ASSERT_FATAL(ut_wait_wc(cq[0], &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(*res, 1000 + (uint64_t)i);
	}
	CU_ASSERT_EQUAL(*target, 1010);
	pv_sroce_fault_set(ctx[1], &(struct pv_sroce_fault){ 0 });
	pair_destroy(&p);
}

static void
test_bad_frames_counted(void)
{
	struct pv_sroce_stats s;

	CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[1], &s), 0);
	/* the vanished-peer test sent to a destroyed QPN */
	CU_ASSERT(s.rx_drop_qpn > 0);
	CU_ASSERT(s.arp_rx > 0);
	CU_ASSERT_EQUAL(pv_sroce_stats_get(NULL, &s), -EINVAL);
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 0) != 0)
		return -1;
	port_mtu = PV_MTU_1024;
	chk = aligned_alloc(64, BIG + 4096);
	if (chk == NULL)
		return -1;
	lb = ut_buf_alloc(pd[0], BIG + 4096, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	if (lb == NULL)
		return -1;
	lbuf = lb->addr;
	lmr = lb->mr;
	/*
	 * Not a ut_buf: one_transfer() marks the 16 bytes past a message with
	 * its own guard, also past a message of the whole MR, so they must be
	 * unregistered memory of the test rather than a canary.
	 */
	rbuf = aligned_alloc(64, BIG + 4096);
	if (rbuf == NULL)
		return -1;
	rmr = pv_reg_mr(pd[1], rbuf, BIG, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC);
	if (rmr == NULL)
		return -1;
	return 0;
}

static int
suite_clean(void)
{
	size_t bad;

	/* nonzero: a canary changed, the suite fails */
	bad = ut_buf_free(lb);
	pv_dereg_mr(rmr);
	ut_devs_close(ctx, pd, cq);
	free(rbuf);
	free(chk);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_ring_cases[] = {
	{ "port_and_gid", test_port_and_gid },
	{ "all_opcodes_sizes", test_all_opcodes_sizes },
	{ "atomics", test_atomics },
	{ "multi_sge_inline_unsignaled", test_multi_sge_inline_unsignaled },
	{ "post_errors", test_post_errors },
	{ "remote_access_errors", test_remote_access_errors },
	{ "rnr_retry_exceeded", test_rnr_retry_exceeded },
	{ "rnr_then_recv", test_rnr_then_recv },
	{ "vanished_peer", test_vanished_peer },
	{ "go_back_n_loss", test_go_back_n_loss },
	{ "duplicates", test_duplicates },
	{ "bad_frames_counted", test_bad_frames_counted },
	{ NULL, NULL },
};

static const struct ut_suite sroce_ring_suite = {
	.name = "sroce_ring",
	.init = suite_init,
	.fini = suite_clean,
	.cases = sroce_ring_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_ring", 512, "sroce_ut", 4096, "ip=10.0.0.1",
				"ip=10.0.0.2");
	if (ret != 0)
		return ret;
	fails = ut_cunit_run_one(&sroce_ring_suite);
	pv_cleanup();
	return fails != 0;
}
