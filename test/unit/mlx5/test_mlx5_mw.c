/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_mw: memory windows and invalidation on the mlx5 data path,
 * executed by the device model: type 2 binds posted as PV_WR_BIND_MW and
 * type 1 binds through pv_bind_mw() (UMR WQEs), LOCAL_INV (a UMR freeing
 * the window) and SEND_WITH_INV (MLX5_OPCODE_SEND_INVAL; the responder's
 * CQE says which rkey it invalidated). A window's rkey reaches its range
 * only, with its rights, and nothing once invalidated.
 */

#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "mlx5_priv.h"
#include "ut_mlx5.h"

static const struct pv_qp_cap ut_mw_cap = {
	.max_send_wr = 16,
	.max_recv_wr = 16,
	.max_send_sge = 2,
	.max_recv_sge = 2,
	.max_inline_data = 64,
};

#define UT_MW_ACCESS	(PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | \
			 PV_ACCESS_REMOTE_READ | PV_ACCESS_MW_BIND)

static struct pv_mr *
ut_mw_mr(size_t len, int access)
{
	void *buf = aligned_alloc(64, RTE_ALIGN_CEIL(len, 64));

	if (buf == NULL)
		return NULL;
	memset(buf, 0, len);
	return pv_reg_mr(ut_pd, buf, len, access);
}

/* Post one WR on @p qp and poll its completion from @p cq: its status, or -1. */
static int
ut_post1(struct pv_qp *qp, struct pv_cq *cq, struct pv_send_wr *wr, struct pv_wc *wc)
{
	struct pv_send_wr *bad;

	wr->send_flags |= PV_SEND_SIGNALED;
	if (pv_post_send(qp, wr, &bad) != 0 || ut_poll(cq, 1, wc) != 1)
		return -1;
	return wc->status;
}

/* RDMA WRITE of @p len bytes of @p l from a to b's @p raddr through @p rkey. */
static int
ut_mw_write(struct ut_pair *p, struct pv_mr *l, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct pv_sge sge = { (uintptr_t)l->addr, len, l->lkey };
	struct pv_send_wr wr;
	struct pv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ut_post1(p->a, p->cq_a, &wr, &wc);
}

/* fm_ce_se of the WQE at producer index @p pi of @p qp. */
static uint8_t
ut_wqe_fm(struct pv_qp *qp, uint32_t pi)
{
	struct pv_mlx5_qp *q = pv_mlx5_qp(qp);
	const struct mlx5_wqe_ctrl_seg *ctrl = (const struct mlx5_wqe_ctrl_seg *)
		(q->sq_buf + ((pi & q->sq_mask) << MLX5_SEND_WQE_SHIFT));

	return ctrl->fm_ce_se;
}

/* Bind type 2 window @p mw on b to [addr, addr + len) of @p mr. */
static int
ut_mw_bind2(struct ut_pair *p, struct pv_mw *mw, struct pv_mr *mr, uint64_t addr,
	    uint64_t len, unsigned int access, struct pv_wc *wc)
{
	struct pv_send_wr wr;
	int st;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0xb1;
	wr.opcode = PV_WR_BIND_MW;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = pv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	st = ut_post1(p->b, p->cq_b, &wr, wc);
	if (st == PV_WC_SUCCESS)
		mw->rkey = wr.bind_mw.rkey;	/* type 2: the application's to track */
	return st;
}

static void
test_mw_type2_send_inv(void)
{
	struct pv_mr *l = ut_mw_mr(256, UT_MW_ACCESS), *r = ut_mw_mr(256, UT_MW_ACCESS);
	struct pv_mr *rq = ut_mw_mr(64, UT_MW_ACCESS);
	struct pv_mw *mw = pv_alloc_mw(ut_pd, PV_MW_TYPE_2);
	struct pv_sge sge, rsge;
	struct pv_send_wr wr;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;
	uint8_t *rbuf;
	uint32_t key;
	struct ut_pair p;

	CU_ASSERT_FATAL(l != NULL && r != NULL && rq != NULL && mw != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_mw_cap, 64, 0, 0), 0);
	rbuf = r->addr;
	ut_fill(l->addr, 256, 7);

	/* an unbound window grants nothing */
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf, mw->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* bound to 64 bytes at offset 64, writable */
	key = mw->rkey;
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, r, (uintptr_t)rbuf + 64, 64,
				    PV_ACCESS_REMOTE_WRITE, &wc), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_BIND_MW);
	CU_ASSERT_EQUAL(wc.wr_id, 0xb1);
	CU_ASSERT_NOT_EQUAL(mw->rkey, key);
	CU_ASSERT_EQUAL(mw->rkey & ~0xffu, key & ~0xffu);
	/* its old rkey is dead, the new one reaches its range only */
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf + 64, key), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 64, (uintptr_t)rbuf + 64, mw->rkey), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rbuf + 64, l->addr, 64), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf + 120, mw->rkey),
			PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf, mw->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	{
		uint8_t zero[64] = { 0 };

		CU_ASSERT_EQUAL(memcmp(rbuf, zero, 64), 0);
		CU_ASSERT_EQUAL(memcmp(rbuf + 128, zero, 64), 0);
	}
	/* a type 2 window binds from the free state only */
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, r, (uintptr_t)rbuf, 64, PV_ACCESS_REMOTE_WRITE, &wc),
			PV_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_BIND_MW);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* SEND_WITH_INV from a: b's receive completes with the rkey */
	rsge = (struct pv_sge){ (uintptr_t)rq->addr, 64, rq->lkey };
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0x5e;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	sge = (struct pv_sge){ (uintptr_t)l->addr, 32, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x51;
	wr.opcode = PV_WR_SEND_WITH_INV;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.invalidate_rkey = mw->rkey;
	CU_ASSERT_EQUAL(ut_post1(p.a, p.cq_a, &wr, &wc), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_SEND);
	CU_ASSERT_EQUAL(wc.wr_id, 0x51);
	CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_b, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(wc.wr_id, 0x5e);
	CU_ASSERT_EQUAL(wc.byte_len, 32);
	CU_ASSERT(wc.wc_flags & PV_WC_WITH_INV);
	CU_ASSERT_FALSE(wc.wc_flags & PV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(wc.invalidated_rkey, mw->rkey);
	CU_ASSERT_EQUAL(memcmp(rq->addr, l->addr, 32), 0);
	/* the window is free: its rkey reaches nothing */
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf + 64, mw->rkey),
			PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* invalidating it again (or an MR's rkey) is an invalid request */
	CU_ASSERT_EQUAL_FATAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	wr.invalidate_rkey = r->rkey;
	CU_ASSERT_EQUAL(ut_post1(p.a, p.cq_a, &wr, &wc), PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(ut_poll(p.cq_b, 1, &wc), 1);
	CU_ASSERT_NOT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* a type 2 window dies with the QP it is bound to: the QPN of a
	 * new QP (the model reuses the slot) reaches nothing through it */
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, r, (uintptr_t)rbuf, 64, PV_ACCESS_REMOTE_WRITE, &wc),
			PV_WC_SUCCESS);
	ut_pair_destroy(&p);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_mw_cap, 64, 0, 0), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, (uintptr_t)rbuf, mw->rkey), PV_WC_REM_ACCESS_ERR);

	ut_pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	ut_mr_free(l);
	ut_mr_free(r);
	ut_mr_free(rq);
}

static void
test_mw_local_inv(void)
{
	struct pv_mr *l = ut_mw_mr(128, UT_MW_ACCESS), *r = ut_mw_mr(128, UT_MW_ACCESS);
	struct pv_mr *nobind = ut_mw_mr(128, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	struct pv_mw *mw = pv_alloc_mw(ut_pd, PV_MW_TYPE_2);
	struct pv_send_wr wr;
	struct pv_wc wc;
	uint8_t *rbuf;
	struct ut_pair p;

	CU_ASSERT_FATAL(l != NULL && r != NULL && nobind != NULL && mw != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_mw_cap, 64, 0, 0), 0);
	rbuf = r->addr;
	ut_fill(l->addr, 128, 9);

	/* rights a window cannot have: refused at the post */
	{
		struct pv_send_wr bw, *bad;

		memset(&bw, 0, sizeof(bw));
		bw.opcode = PV_WR_BIND_MW;
		bw.bind_mw.mw = mw;
		bw.bind_mw.rkey = pv_inc_rkey(mw->rkey);
		bw.bind_mw.bind_info.mr = r;
		bw.bind_mw.bind_info.addr = (uintptr_t)rbuf;
		bw.bind_mw.bind_info.length = 64;
		bw.bind_mw.bind_info.mw_access_flags = PV_ACCESS_LOCAL_WRITE;
		CU_ASSERT_EQUAL(pv_post_send(p.b, &bw, &bad), EINVAL);
		CU_ASSERT_PTR_EQUAL(bad, &bw);
		bw.bind_mw.mw = NULL;
		bw.bind_mw.bind_info.mw_access_flags = PV_ACCESS_REMOTE_READ;
		CU_ASSERT_EQUAL(pv_post_send(p.b, &bw, &bad), EINVAL);
	}
	/* the MR must allow binds */
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, nobind, (uintptr_t)nobind->addr, 64,
				    PV_ACCESS_REMOTE_WRITE, &wc), PV_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* and cover the window */
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, r, (uintptr_t)rbuf + 64, 128,
				    PV_ACCESS_REMOTE_WRITE, &wc), PV_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* zero based: a WR names the window's first byte as 0 */
	CU_ASSERT_EQUAL(ut_mw_bind2(&p, mw, r, (uintptr_t)rbuf + 32, 64,
				    PV_ACCESS_REMOTE_WRITE | PV_ACCESS_ZERO_BASED, &wc),
			PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 64, 0, mw->rkey), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rbuf + 32, l->addr, 64), 0);

	/* LOCAL_INV on b, the QP it is bound to */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x11;
	wr.opcode = PV_WR_LOCAL_INV;
	wr.invalidate_rkey = mw->rkey;
	CU_ASSERT_EQUAL(ut_post1(p.b, p.cq_b, &wr, &wc), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_LOCAL_INV);
	CU_ASSERT_EQUAL(wc.wr_id, 0x11);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 16, 0, mw->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* an MR of reg_mr is not invalidatable */
	wr.invalidate_rkey = r->rkey;
	CU_ASSERT_EQUAL(ut_post1(p.b, p.cq_b, &wr, &wc), PV_WC_LOC_QP_OP_ERR);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_LOCAL_INV);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* freed, the window binds again; a list mixing UMR and other WQEs
	 * completes each with its own opcode */
	{
		struct pv_send_wr w2[3], *bad;
		struct pv_sge sge = { (uintptr_t)r->addr, 8, r->lkey };
		struct pv_wc wcs[3];
		uint32_t nkey = pv_inc_rkey(mw->rkey);

		memset(w2, 0, sizeof(w2));
		w2[0].wr_id = 1;
		w2[0].opcode = PV_WR_BIND_MW;
		w2[0].send_flags = PV_SEND_SIGNALED;
		w2[0].bind_mw.mw = mw;
		w2[0].bind_mw.rkey = nkey;
		w2[0].bind_mw.bind_info.mr = r;
		w2[0].bind_mw.bind_info.addr = (uintptr_t)rbuf;
		w2[0].bind_mw.bind_info.length = 128;
		w2[0].bind_mw.bind_info.mw_access_flags = PV_ACCESS_REMOTE_READ;
		w2[0].next = &w2[1];
		w2[1].wr_id = 2;
		w2[1].opcode = PV_WR_LOCAL_INV;
		w2[1].send_flags = PV_SEND_SIGNALED;
		w2[1].invalidate_rkey = nkey;
		w2[1].next = &w2[2];
		w2[2].wr_id = 3;
		w2[2].opcode = PV_WR_RDMA_WRITE;
		w2[2].send_flags = PV_SEND_SIGNALED;
		w2[2].sg_list = &sge;
		w2[2].num_sge = 1;
		w2[2].wr.rdma.remote_addr = (uintptr_t)l->addr;
		w2[2].wr.rdma.rkey = l->rkey;
		uint32_t pi = pv_mlx5_qp(p.b)->sq_pi;

		CU_ASSERT_EQUAL_FATAL(pv_post_send(p.b, w2, &bad), 0);
		/* BIND (3 WQEBBs), LOCAL_INV (2), WRITE: the last two fenced */
		CU_ASSERT_EQUAL(ut_wqe_fm(p.b, pi + 3) & 0xe0,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
		CU_ASSERT_EQUAL(ut_wqe_fm(p.b, pi + 5) & 0xe0,
				MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
		CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_b, 3, wcs), 3);
		CU_ASSERT(wcs[0].status == PV_WC_SUCCESS && wcs[0].opcode == PV_WC_BIND_MW);
		CU_ASSERT(wcs[1].status == PV_WC_SUCCESS && wcs[1].opcode == PV_WC_LOCAL_INV);
		CU_ASSERT(wcs[2].status == PV_WC_SUCCESS && wcs[2].opcode == PV_WC_RDMA_WRITE);
		CU_ASSERT(wcs[0].wr_id == 1 && wcs[1].wr_id == 2 && wcs[2].wr_id == 3);
	}

	ut_pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	ut_mr_free(l);
	ut_mr_free(r);
	ut_mr_free(nobind);
}

static void
test_mw_type1(void)
{
	struct pv_mr *l = ut_mw_mr(128, UT_MW_ACCESS), *r = ut_mw_mr(128, UT_MW_ACCESS);
	struct pv_mw *mw = pv_alloc_mw(ut_pd, PV_MW_TYPE_1);
	struct pv_mw_bind bind;
	struct pv_send_wr wr;
	struct pv_wc wc;
	uint8_t *rbuf;
	uint32_t key;
	struct ut_pair p;

	CU_ASSERT_FATAL(l != NULL && r != NULL && mw != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_mw_cap, 64, 0, 0), 0);
	rbuf = r->addr;
	ut_fill(l->addr, 128, 11);

	/* bound through any QP of its PD (here a), used by any (b answers) */
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 0x71;
	bind.send_flags = PV_SEND_SIGNALED;
	bind.bind_info.mr = r;
	bind.bind_info.addr = (uintptr_t)rbuf;
	bind.bind_info.length = 64;
	bind.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE;
	key = mw->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	CU_ASSERT_EQUAL(mw->rkey, pv_inc_rkey(key));
	CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_BIND_MW);
	CU_ASSERT_EQUAL(wc.wr_id, 0x71);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 64, (uintptr_t)rbuf, mw->rkey), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rbuf, l->addr, 64), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 8, (uintptr_t)rbuf + 64, mw->rkey),
			PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* type 1 windows cannot be invalidated */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_LOCAL_INV;
	wr.invalidate_rkey = mw->rkey;
	CU_ASSERT_EQUAL(ut_post1(p.a, p.cq_a, &wr, &wc), PV_WC_LOC_QP_OP_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* unbind: mr NULL, length 0 */
	memset(&bind.bind_info, 0, sizeof(bind.bind_info));
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_BIND_MW);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 8, (uintptr_t)rbuf, mw->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* a deallocated window's rkey is dead at once */
	bind.bind_info.mr = r;
	bind.bind_info.addr = (uintptr_t)rbuf;
	bind.bind_info.length = 64;
	bind.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	key = mw->rkey;
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	CU_ASSERT_EQUAL(ut_mw_write(&p, l, 8, (uintptr_t)rbuf, key), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);

	/* zero based windows are type 2 only (pv_bind_mw() moved mw->rkey on
	 * at the post, as ibv_bind_mw(3) does: the window is not used after) */
	mw = pv_alloc_mw(ut_pd, PV_MW_TYPE_1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mw);
	bind.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_ZERO_BASED;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	CU_ASSERT_EQUAL_FATAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_MW_BIND_ERR);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);

	ut_pair_destroy(&p);
	ut_mr_free(l);
	ut_mr_free(r);
}

/*
 * The WQE after a UMR carries the small fence (as rdma-core's mlx5 puts
 * it), in the same post list or the next call; the one after it does not;
 * PV_SEND_FENCE keeps the full fence.
 */
static void
test_mw_fence_after_umr(void)
{
	struct pv_mr *l = ut_mw_mr(64, UT_MW_ACCESS), *r = ut_mw_mr(64, UT_MW_ACCESS);
	struct pv_mw *mw = pv_alloc_mw(ut_pd, PV_MW_TYPE_1);
	struct pv_sge sge;
	struct pv_mw_bind bind;
	struct pv_send_wr wr, *bad;
	struct pv_wc wc[5];
	uint32_t pi;
	struct ut_pair p;

	CU_ASSERT_FATAL(l != NULL && r != NULL && mw != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_mw_cap, 64, 1, 0), 0);
	memset(&bind, 0, sizeof(bind));
	bind.bind_info.mr = r;
	bind.bind_info.addr = (uintptr_t)r->addr;
	bind.bind_info.length = 64;
	bind.bind_info.mw_access_flags = PV_ACCESS_REMOTE_WRITE;
	sge = (struct pv_sge){ (uintptr_t)l->addr, 8, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)r->addr;

	pi = pv_mlx5_qp(p.a)->sq_pi;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	wr.wr.rdma.rkey = mw->rkey;
	/* the next call: fenced, the one after: not */
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(ut_wqe_fm(p.a, pi) & 0xe0, 0);
	CU_ASSERT_EQUAL(ut_wqe_fm(p.a, pi + 3) & 0xe0, MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE);
	CU_ASSERT_EQUAL(ut_wqe_fm(p.a, pi + 4) & 0xe0, 0);
	/* the full fence stays full */
	pi = pv_mlx5_qp(p.a)->sq_pi;
	CU_ASSERT_EQUAL_FATAL(pv_bind_mw(p.a, mw, &bind), 0);
	wr.wr.rdma.rkey = mw->rkey;
	wr.send_flags = PV_SEND_FENCE;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(ut_wqe_fm(p.a, pi + 3) & 0xe0, MLX5_WQE_CTRL_FENCE);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 5, wc), 5);
	CU_ASSERT(wc[0].status == PV_WC_SUCCESS && wc[0].opcode == PV_WC_BIND_MW);
	CU_ASSERT(wc[4].status == PV_WC_SUCCESS && wc[4].opcode == PV_WC_RDMA_WRITE);

	ut_pair_destroy(&p);
	CU_ASSERT_EQUAL(pv_dealloc_mw(mw), 0);
	ut_mr_free(l);
	ut_mr_free(r);
}

static const struct ut_case ut_mlx5_mw_cases[] = {
	{ "type 2 window, send with invalidate", test_mw_type2_send_inv, ut_on_model },
	{ "local invalidate, bind checks", test_mw_local_inv, ut_on_model },
	{ "type 1 window through pv_bind_mw", test_mw_type1, ut_on_model },
	{ "small fence after a umr", test_mw_fence_after_umr, ut_on_model },
	{ NULL, NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_mw = {
	.name = "mlx5_mw",
	.cases = ut_mlx5_mw_cases,
};
