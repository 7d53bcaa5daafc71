/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce memory windows, SEND_WITH_INV and LOCAL_INV (issue 10), in one
 * process: two devices on crossed net_ring ports driven from one thread.
 * Device A (10.0.3.1) is the remote peer, device B (10.0.3.2) owns the
 * memory, its MR and the windows.
 *
 * type1: pv_bind_mw() on B's QP, PV_WC_BIND_MW; A writes and reads through
 *   the window (bytes compared, canaries around the MR intact), a write one
 *   byte past the window but inside the MR is NAKed (REM_ACCESS_ERR), the
 *   rkey of the previous bind stops working after a rebind, an unbind.
 * type2: a BIND_MW work request (zero based), A writes at offset 0..; A's
 *   SEND_WITH_INV names the rkey: B's receive completes WITH_INV with it,
 *   the rkey then fails; LOCAL_INV on B does the same locally; a window
 *   bound to one QP refuses another QP of the same PD.
 * errors: every errno of pv_alloc_mw/pv_bind_mw/pv_dealloc_mw, dereg of a
 *   bound MR (EBUSY), bind to an MR without MW_BIND (PV_WC_MW_BIND_ERR),
 *   LOCAL_INV of an MR key (LOC_QP_OP_ERR), SEND_WITH_INV of an MR key
 *   (REM_INV_REQ_ERR at A, B's QP in ERR), SEND_WITH_INV refused on UC.
 * rereg: pv_rereg_mr() changes access, translation and PD in place with
 *   the same keys (remote writes follow), EBUSY with a bound window.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define DEPTH	32
#define BUFSZ	(64u * 1024)
#define WIN_OFF	4096u		/* window: [rbuf + WIN_OFF, + WIN_LEN) */
#define WIN_LEN	8192u
#define TMO	3000

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static struct ut_buf *sb, *rb, *nb;	/* A's source, B's memory, B's MR without MW_BIND */

struct pair {
	struct pv_qp *qa, *qb;
};

static struct pv_qp *
qp_create(struct pv_pd *p, struct pv_cq *c, enum pv_qp_type type)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c;
	ia.recv_cq = c;
	ia.qp_type = type;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return pv_create_qp(p, &ia);
}

static void
qp_opts(struct pv_app_qp_opts *o, struct pv_context *other)
{
	pv_app_qp_opts_init(o);
	o->name = "test_sroce_mw";
	o->sgid_index = 1;
	o->access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	o->retry_cnt = 1;
	o->timeout = 10;
	o->modify = ut_qp_modify_progress_fn;
	o->modify_arg = other;
}

static int
pair_connect(struct pair *p, enum pv_qp_type type)
{
	struct pv_app_qp_peer peer_a = { 0 }, peer_b = { 0 };
	struct pv_app_qp_opts oa, ob;
	int ret;

	p->qa = qp_create(pd[0], cq[0], type);
	p->qb = qp_create(pd[1], cq[1], type);
	if (p->qa == NULL || p->qb == NULL)
		return ENOMEM;
	qp_opts(&oa, ctx[1]);
	qp_opts(&ob, ctx[0]);
	peer_a.qpn = p->qa->qp_num;
	peer_b.qpn = p->qb->qp_num;
	pv_query_gid(ctx[0], 1, 1, &peer_a.gid);
	pv_query_gid(ctx[1], 1, 1, &peer_b.gid);
	ret = pv_app_qp_modify(p->qa, PV_QPS_INIT, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_INIT, &ob, NULL);
	ret = ret ?: pv_app_qp_modify(p->qa, PV_QPS_RTR, &oa, &peer_b);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_RTR, &ob, &peer_a);
	ret = ret ?: pv_app_qp_modify(p->qa, PV_QPS_RTS, &oa, NULL);
	ret = ret ?: pv_app_qp_modify(p->qb, PV_QPS_RTS, &ob, NULL);
	return -ret;
}

static void
pair_destroy(struct pair *p)
{
	ut_cq_drain(cq, 2, 3);
	if (p->qa != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qa), 0);
	if (p->qb != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qb), 0);
	p->qa = p->qb = NULL;
}

/* one RDMA WRITE/READ or SEND(_WITH_INV) from A of @p len bytes at sbuf */
static int
post_a(struct pv_qp *qa, enum pv_wr_opcode op, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)sb->addr, len, sb->mr->lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	if (op == PV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = rkey;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return pv_post_send(qa, &wr, &bad);
}

static int
post_recv_b(struct pv_qp *qb, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)rb->addr, len, rb->mr->lkey };
	struct pv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return pv_post_recv(qb, &wr, &bad);
}

/* a type 2 bind (or LOCAL_INV when @p mw is NULL) on @p qb */
static int
post_b_local(struct pv_qp *qb, struct pv_mw *mw, uint32_t rkey, struct pv_mr *mr,
	     uint64_t addr, uint64_t len, unsigned int access)
{
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 99;
	wr.send_flags = PV_SEND_SIGNALED;
	if (mw == NULL) {
		wr.opcode = PV_WR_LOCAL_INV;
		wr.invalidate_rkey = rkey;
	} else {
		wr.opcode = PV_WR_BIND_MW;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info.mr = mr;
		wr.bind_mw.bind_info.addr = addr;
		wr.bind_mw.bind_info.length = len;
		wr.bind_mw.bind_info.mw_access_flags = access;
	}
	return pv_post_send(qb, &wr, &bad);
}

/* the next completion of @p c, asserting its status and opcode */
static void
expect_wc(struct pv_cq *c, enum pv_wc_status st, enum pv_wc_opcode op, struct pv_wc *out)
{
	struct pv_wc wc;

	memset(&wc, 0, sizeof(wc));
	CU_ASSERT_FATAL(ut_wait_wc(c, &wc, TMO) == 1);
	if (wc.status != st || (st == PV_WC_SUCCESS && wc.opcode != op))
		fprintf(stderr, "wc: status %s opcode 0x%x, want %s 0x%x\n",
			pv_wc_status_str(wc.status), wc.opcode, pv_wc_status_str(st), op);
	CU_ASSERT_EQUAL(wc.status, st);
	if (st == PV_WC_SUCCESS)
		CU_ASSERT_EQUAL(wc.opcode, op);
	if (out != NULL)
		*out = wc;
}

static void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void
test_mw_type1(void)
{
	uint8_t *win = rb->addr + WIN_OFF;
	struct pv_mw_bind bind;
	struct pair p = { 0 };
	uint32_t old_rkey;
	struct pv_mw *mw;

	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	mw = pv_alloc_mw(pd[1], PV_MW_TYPE_1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	CU_ASSERT_EQUAL(mw->type, PV_MW_TYPE_1);
	CU_ASSERT_PTR_EQUAL(mw->pd, pd[1]);

	/* bind: the rkey moves to pv_inc_rkey() of the old one */
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 5;
	bind.send_flags = PV_SEND_SIGNALED;
	bind.bind_info.mr = rb->mr;
	bind.bind_info.addr = (uintptr_t)win;
	bind.bind_info.length = WIN_LEN;
	bind.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	old_rkey = mw->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.qb, mw, &bind), 0);
	CU_ASSERT_EQUAL(mw->rkey, pv_inc_rkey(old_rkey));
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);

	/* a WRITE through the window, then a READ of it back */
	memset(rb->addr, 0, BUFSZ);
	fill(sb->addr, WIN_LEN, 3);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, mw->rkey, WIN_LEN), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_WRITE, NULL);
	CU_ASSERT_EQUAL(memcmp(win, sb->addr, WIN_LEN), 0);
	CU_ASSERT_EQUAL(rb->addr[WIN_OFF - 1], 0);
	CU_ASSERT_EQUAL(rb->addr[WIN_OFF + WIN_LEN], 0);
	fill(win, WIN_LEN, 11);
	memset(sb->addr, 0, WIN_LEN);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_READ, (uintptr_t)win + 100, mw->rkey, 4000), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_READ, NULL);
	CU_ASSERT_EQUAL(memcmp(sb->addr, win + 100, 4000), 0);

	/* rebind to a smaller window: the old rkey stops working */
	old_rkey = mw->rkey;
	bind.bind_info.length = 16;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.qb, mw, &bind), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	CU_ASSERT_NOT_EQUAL(mw->rkey, old_rkey);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, mw->rkey, 16), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_WRITE, NULL);
	/* one byte past the window, inside the MR: NAKed, nothing written */
	memset(win, 0xee, 32);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)win + 1, mw->rkey, 16), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	CU_ASSERT_EQUAL(win[16], 0xee);
	/* the MR cannot go while the window is bound to it */
	CU_ASSERT_EQUAL(pv_dereg_mr(rb->mr), EBUSY);
	pair_destroy(&p);

	/* the old rkey on a fresh pair: refused too */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, old_rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&p);

	/* unbind (no MR): the rkey fails; dealloc frees it */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	memset(&bind.bind_info, 0, sizeof(bind.bind_info));
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.qb, mw, &bind), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_READ, (uintptr_t)win, mw->rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_READ, NULL);
	pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
}

static void
test_mw_type2_inv(void)
{
	uint8_t *win = rb->addr + WIN_OFF;
	struct pair p = { 0 }, q = { 0 };
	struct pv_mw *mw;
	struct pv_wc wc;
	uint32_t rkey;

	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	mw = pv_alloc_mw(pd[1], PV_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	/* bind zero based with a work request: offsets from 0 */
	rkey = pv_inc_rkey(mw->rkey);
	CU_ASSERT_EQUAL_FATAL(post_b_local(p.qb, mw, rkey, rb->mr, (uintptr_t)win, WIN_LEN,
					   PV_ACCESS_REMOTE_WRITE | PV_ACCESS_ZERO_BASED), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	memset(rb->addr, 0, BUFSZ);
	fill(sb->addr, 3000, 21);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, 1000, rkey, 3000), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_WRITE, NULL);
	CU_ASSERT_EQUAL(memcmp(win + 1000, sb->addr, 3000), 0);
	CU_ASSERT_EQUAL(win[999], 0);
	/* no READ right */
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_READ, 0, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_READ, NULL);
	pair_destroy(&p);

	/* QP-bound (2B): the window died with its QP; rebind on a new QP,
	 * then another QP of the same PD may not use it */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_FATAL(pair_connect(&q, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, 0, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	rkey = pv_inc_rkey(rkey);
	CU_ASSERT_EQUAL_FATAL(post_b_local(q.qb, mw, rkey, rb->mr, (uintptr_t)win, WIN_LEN,
					   PV_ACCESS_REMOTE_WRITE), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	pair_destroy(&p);
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&p);

	/* SEND_WITH_INV through q: the receive says which rkey went */
	CU_ASSERT_EQUAL(post_a(q.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_WRITE, NULL);
	CU_ASSERT_EQUAL(post_recv_b(q.qb, 256), 0);
	fill(sb->addr, 200, 5);
	CU_ASSERT_EQUAL(post_a(q.qa, PV_WR_SEND_WITH_INV, 0, rkey, 200), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_SEND, NULL);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_RECV, &wc);
	CU_ASSERT(wc.wc_flags & PV_WC_WITH_INV);
	CU_ASSERT_FALSE(wc.wc_flags & PV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wc.invalidated_rkey, rkey);
	CU_ASSERT_EQUAL(wc.byte_len, 200);
	CU_ASSERT_EQUAL(memcmp(rb->addr, sb->addr, 200), 0);
	CU_ASSERT_EQUAL(post_a(q.qa, PV_WR_RDMA_WRITE, (uintptr_t)win, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&q);

	/* LOCAL_INV: bind, invalidate locally, the rkey fails */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	rkey = pv_inc_rkey(rkey);
	CU_ASSERT_EQUAL_FATAL(post_b_local(p.qb, mw, rkey, rb->mr, (uintptr_t)win, WIN_LEN,
					   PV_ACCESS_REMOTE_READ), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_READ, (uintptr_t)win, rkey, 64), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_READ, NULL);
	CU_ASSERT_EQUAL(post_b_local(p.qb, NULL, rkey, NULL, 0, 0, 0), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_LOCAL_INV, NULL);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_READ, (uintptr_t)win, rkey, 64), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_READ, NULL);
	pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
}

static void
test_mw_errors(void)
{
	struct pv_mw_bind bind;
	struct pair p = { 0 };
	struct pv_mw *mw, *mw2;
	struct pv_pd *other;

	errno = 0;
	CU_ASSERT_PTR_NULL(pv_alloc_mw(NULL, PV_MW_TYPE_1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_alloc_mw(pd[1], (enum pv_mw_type)3));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_dealloc_mw(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_inc_rkey(0x123456ff), 0x12345600u);
	CU_ASSERT_EQUAL(pv_inc_rkey(0x12345601), 0x12345602u);

	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	mw = pv_alloc_mw(pd[1], PV_MW_TYPE_1);
	mw2 = pv_alloc_mw(pd[1], PV_MW_TYPE_2);
	other = pv_alloc_pd(ctx[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_NOT_EQUAL(mw->rkey, mw2->rkey);
	memset(&bind, 0, sizeof(bind));
	bind.send_flags = PV_SEND_SIGNALED;
	CU_ASSERT_EQUAL(pv_bind_mw(NULL, mw, &bind), EINVAL);
	CU_ASSERT_EQUAL(pv_bind_mw(p.qb, mw2, &bind), EINVAL);	/* type 2 */
	bind.bind_info.length = 8;				/* range, no MR */
	CU_ASSERT_EQUAL(pv_bind_mw(p.qb, mw, &bind), EINVAL);
	bind.bind_info.mr = rb->mr;
	bind.bind_info.addr = (uintptr_t)rb->addr;
	CU_ASSERT_EQUAL(pv_dealloc_pd(other), 0);
	other = pv_alloc_pd(ctx[1]);
	{
		struct pv_mr *omr = pv_reg_mr(other, rb->addr, 64, PV_ACCESS_MW_BIND);

		CU_ASSERT_PTR_NOT_NULL_FATAL(omr);
		bind.bind_info.mr = omr;
		CU_ASSERT_EQUAL(pv_bind_mw(p.qb, mw, &bind), EPERM);
		CU_ASSERT_EQUAL(pv_dereg_mr(omr), 0);
	}
	CU_ASSERT_EQUAL(pv_dealloc_pd(other), 0);
	/* a bad access flag in a BIND_MW work request: EINVAL at post */
	CU_ASSERT_EQUAL(post_b_local(p.qb, mw2, pv_inc_rkey(mw2->rkey), rb->mr,
				     (uintptr_t)rb->addr, 8, PV_ACCESS_LOCAL_WRITE), EINVAL);
	/* an MR without MW_BIND: the bind completes in error, the QP goes to ERR */
	bind.bind_info.mr = nb->mr;
	bind.bind_info.addr = (uintptr_t)nb->addr;
	CU_ASSERT_EQUAL(pv_bind_mw(p.qb, mw, &bind), 0);
	expect_wc(cq[1], PV_WC_MW_BIND_ERR, PV_WC_BIND_MW, NULL);
	pair_destroy(&p);

	/* a window outside its MR */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_b_local(p.qb, mw2, pv_inc_rkey(mw2->rkey), rb->mr,
				     (uintptr_t)rb->addr + BUFSZ - 8, 16, PV_ACCESS_REMOTE_READ), 0);
	expect_wc(cq[1], PV_WC_MW_BIND_ERR, PV_WC_BIND_MW, NULL);
	pair_destroy(&p);

	/* LOCAL_INV of an MR's key: not invalidatable */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_b_local(p.qb, NULL, rb->mr->rkey, NULL, 0, 0, 0), 0);
	expect_wc(cq[1], PV_WC_LOC_QP_OP_ERR, PV_WC_LOCAL_INV, NULL);
	pair_destroy(&p);

	/* SEND_WITH_INV of an MR's key: A gets REM_INV_REQ_ERR */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_recv_b(p.qb, 256), 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_SEND_WITH_INV, 0, rb->mr->rkey, 16), 0);
	expect_wc(cq[0], PV_WC_REM_INV_REQ_ERR, PV_WC_SEND, NULL);
	pair_destroy(&p);

	/* UC has no SEND_WITH_INV (IBTA table 38) */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_UC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_SEND_WITH_INV, 0, 1, 16), EINVAL);
	pair_destroy(&p);

	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw2), 0);
}

/* pv_rereg_mr on softroce: access, translation and PD change in place, keys kept */
static void
test_rereg(void)
{
	struct ut_buf *t = ut_buf_alloc(pd[1], 8192, PV_ACCESS_LOCAL_WRITE |
					PV_ACCESS_REMOTE_WRITE, UT_CANARY);
	uint8_t *other = aligned_alloc(64, 8192);
	struct pair p = { 0 };
	struct pv_mw *mw;
	struct pv_pd *pd2;
	uint32_t rkey;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	memset(other, 0, 8192);
	rkey = t->mr->rkey;
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	fill(sb->addr, 4096, 9);
	/* access: without REMOTE_WRITE the write is NAKed, the key is the same */
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ), 0);
	CU_ASSERT_EQUAL(t->mr->rkey, rkey);
	CU_ASSERT_EQUAL(t->mr->access, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)t->addr, rkey, 64), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&p);
	/* translation and access: the same rkey now lands in the other buffer */
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_TRANSLATION |
				    PV_REREG_MR_CHANGE_ACCESS, NULL, other, 8192,
				    PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE), 0);
	CU_ASSERT_PTR_EQUAL(t->mr->addr, other);
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)other + 100, rkey, 4096), 0);
	expect_wc(cq[0], PV_WC_SUCCESS, PV_WC_RDMA_WRITE, NULL);
	CU_ASSERT_EQUAL(memcmp(other + 100, sb->addr, 4096), 0);
	/* the old buffer is not the MR's any more */
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)t->addr, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&p);
	/* PD: QPs of the old PD cannot use it */
	pd2 = pv_alloc_pd(ctx[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd2);
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0), 0);
	CU_ASSERT_PTR_EQUAL(t->mr->pd, pd2);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd2), EBUSY);
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	CU_ASSERT_EQUAL(post_a(p.qa, PV_WR_RDMA_WRITE, (uintptr_t)other, rkey, 8), 0);
	expect_wc(cq[0], PV_WC_REM_ACCESS_ERR, PV_WC_RDMA_WRITE, NULL);
	pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_PD | PV_REREG_MR_CHANGE_TRANSLATION |
				    PV_REREG_MR_CHANGE_ACCESS, pd[1], t->addr, 8192,
				    PV_ACCESS_LOCAL_WRITE | PV_ACCESS_MW_BIND), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd2), 0);
	/* not while a window is bound to it */
	CU_ASSERT_FATAL(pair_connect(&p, PV_QPT_RC) == 0);
	mw = pv_alloc_mw(pd[1], PV_MW_TYPE_2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	CU_ASSERT_EQUAL(post_b_local(p.qb, mw, pv_inc_rkey(mw->rkey), t->mr, (uintptr_t)t->addr,
				     64, PV_ACCESS_REMOTE_READ), 0);
	expect_wc(cq[1], PV_WC_SUCCESS, PV_WC_BIND_MW, NULL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    PV_ACCESS_LOCAL_WRITE), PV_REREG_MR_ERR_CMD);
	CU_ASSERT_EQUAL(errno, EBUSY);
	/* bad input: the MR stays */
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, 0, NULL, NULL, 0, 0), PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(pv_rereg_mr(t->mr, PV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0),
			PV_REREG_MR_ERR_INPUT);
	pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(ut_buf_free(t), 0);
	free(other);
}

static int
suite_init(void)
{
	struct pv_device_attr attr;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	if (pv_query_device(ctx[1], &attr) != 0 || attr.max_mw == 0 ||
	    !(attr.device_cap_flags & PV_DEVICE_MEM_WINDOW_TYPE_2B))
		return -1;
	sb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	rb = ut_buf_alloc(pd[1], BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_MW_BIND, UT_CANARY);
	nb = ut_buf_alloc(pd[1], 4096, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE, UT_CANARY);
	return sb != NULL && rb != NULL && nb != NULL ? 0 : -1;
}

static int
suite_clean(void)
{
	size_t bad = ut_buf_free(sb) + ut_buf_free(rb) + ut_buf_free(nb);

	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_mw_cases[] = {
	{ "type1", test_mw_type1 },
	{ "type2_inv", test_mw_type2_inv },
	{ "errors", test_mw_errors },
	{ "rereg", test_rereg },
	{ NULL, NULL },
};

static const struct ut_suite sroce_mw_suite = {
	.name = "sroce_mw",
	.cases = sroce_mw_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_mw", 256, "mw", 4096, "ip=10.0.3.1", "ip=10.0.3.2");
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_mw_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed */
	pv_cleanup();
	return fails != 0;
}
