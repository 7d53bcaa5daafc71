/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite mlx5_model: what the device model (drivers/mlx5/mlx5_model*.c)
 * promises beyond the data path: it says it is a model, it enforces keys,
 * PDs, bounds and QP access rights before a byte moves, and it waits for
 * receive WQEs when rnr_retry is 7.
 */

#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "mlx5_priv.h"
#include "ut_mlx5.h"

static const struct pv_qp_cap ut_cap = {
	.max_send_wr = 16,
	.max_recv_wr = 16,
	.max_send_sge = 2,
	.max_recv_sge = 2,
	.max_inline_data = 64,
};

static void
test_model_attrs(void)
{
	struct pv_device_attr da;
	struct pv_port_attr pa;

	CU_ASSERT_EQUAL(pv_query_device(ut_ctx, &da), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(da.fw_ver, "device model"));
	CU_ASSERT_EQUAL(da.vendor_part_id, 0);
	CU_ASSERT_EQUAL(da.max_inline_data, PV_MLX5_MDL_MAX_INLINE);
	CU_ASSERT_EQUAL(da.max_sge, PV_MLX5_MDL_MAX_SGE);
	CU_ASSERT_EQUAL(pv_query_port(ut_ctx, 1, &pa), 0);
	CU_ASSERT_EQUAL(pa.state, PV_PORT_ACTIVE);
	CU_ASSERT_EQUAL(pv_query_port(ut_ctx, 2, &pa), EINVAL);
	CU_ASSERT_STRING_EQUAL(ut_ctx->device->dev_name, "mlx5 device model");
	CU_ASSERT(pv_mlx5_model_is(ut_ctx));
	CU_ASSERT_EQUAL(pv_mlx5_model_lcore(), -1);	/* lcore=none: stepped */
}

static enum pv_wc_status
ut_write(struct ut_pair *p, struct pv_mr *l, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge = { (uintptr_t)l->addr, len, l->lkey };
	struct pv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (pv_post_send(p->a, &wr, &bad) != 0 || ut_poll(p->cq_a, 1, &wc) != 1)
		return (enum pv_wc_status)-1;
	return wc.status;
}

static void
test_model_protection(void)
{
	struct pv_mr *l = ut_mr(256), *r = ut_mr(256), *other, *ro;
	struct pv_pd *pd2 = pv_alloc_pd(ut_ctx);
	uint8_t *rbuf;
	uint32_t stale;
	struct pv_qp_attr attr;
	struct ut_pair p;

	CU_ASSERT_FATAL(l != NULL && r != NULL && pd2 != NULL);
	rbuf = r->addr;
	other = pv_reg_mr(pd2, rbuf, 256, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	ro = pv_reg_mr(ut_pd, rbuf, 256, PV_ACCESS_REMOTE_READ);
	CU_ASSERT_FATAL(other != NULL && ro != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 64, 0, 0), 0);
	ut_fill(l->addr, 256, 3);

	/* a zero-length WRITE checks no key */
	CU_ASSERT_EQUAL(ut_write(&p, l, 0, 0, 0xdead), PV_WC_SUCCESS);
	/* the key of another PD */
	CU_ASSERT_EQUAL(ut_write(&p, l, 16, (uintptr_t)rbuf, other->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* a key without REMOTE_WRITE */
	CU_ASSERT_EQUAL(ut_write(&p, l, 16, (uintptr_t)rbuf, ro->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* below the MR */
	CU_ASSERT_EQUAL(ut_write(&p, l, 16, (uintptr_t)rbuf - 1, r->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* not a byte moved by any of them */
	{
		uint8_t zero[256] = { 0 };

		CU_ASSERT_EQUAL(memcmp(rbuf, zero, 256), 0);
	}
	/* a stale key after deregistration */
	stale = other->rkey;
	CU_ASSERT_EQUAL(pv_dereg_mr(other), 0);
	CU_ASSERT_EQUAL(ut_write(&p, l, 16, (uintptr_t)rbuf, stale), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* the responder QP does not allow remote writes */
	memset(&attr, 0, sizeof(attr));
	attr.qp_access_flags = PV_ACCESS_REMOTE_READ;
	CU_ASSERT_EQUAL(pv_modify_qp(p.b, &attr, PV_QP_ACCESS_FLAGS), 0);
	CU_ASSERT_EQUAL(ut_write(&p, l, 16, (uintptr_t)rbuf, r->rkey), PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	/* and the right key moves the bytes */
	CU_ASSERT_EQUAL(ut_write(&p, l, 256, (uintptr_t)rbuf, r->rkey), PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(rbuf, l->addr, 256), 0);

	ut_pair_destroy(&p);
	pv_dereg_mr(ro);
	pv_dealloc_pd(pd2);
	ut_mr_free(l);
	ut_mr_free(r);
}

static void
test_model_rnr_wait(void)
{
	struct pv_mr *mr = ut_mr(64);
	struct pv_send_wr wr, *bad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_sge sge;
	struct pv_wc wc;
	struct ut_pair p;
	int i;

	CU_ASSERT_FATAL(mr != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 64, 1, 0), 0);
	sge.addr = (uintptr_t)mr->addr;
	sge.length = 32;
	sge.lkey = mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = PV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
	/* rnr_retry 7: the SEND waits as long as it takes */
	for (i = 0; i < 100; i++)
		pv_mlx5_model_step();
	CU_ASSERT_EQUAL(pv_poll_cq(p.cq_a, 1, &wc), 0);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(pv_post_recv(p.b, &rwr, &rbad), 0);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(ut_poll(p.cq_b, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.byte_len, 32);
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/*
 * A BlueFlame write to one half seen only after the next write (the other
 * half) was consumed and executed, as the engine on its own lcore can see
 * them (it reads half 0, then half 1): it announces nothing, and must not
 * send the engine round the ring again (pv-perf send_bw over the model
 * failed with "local QP operation error" on the next post).
 */
static void
test_model_stale_blueflame(void)
{
	struct pv_mr *mr = ut_mr(64);
	struct pv_mlx5_mdl_stats st0, st1;
	struct pv_mlx5_mdl_qp *mqp = NULL;
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	struct pv_wc wc[4];
	uint64_t *half[2], old;
	struct ut_pair p;
	unsigned int i;
	int h;

	CU_ASSERT_FATAL(mr != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 64, 1, 0), 0);
	for (i = 0; i < PV_MLX5_MDL_MAX_QP; i++)
		if (pv_mlx5_mdl.qps[i] != NULL && pv_mlx5_mdl.qps[i]->qpn == p.a->qp_num)
			mqp = pv_mlx5_mdl.qps[i];
	CU_ASSERT_FATAL(mqp != NULL);
	for (h = 0; h < 2; h++)
		half[h] = (uint64_t *)(mqp->uar + PV_MLX5_MDL_BF_OFFSET + h * PV_MLX5_MDL_BF_SIZE);
	sge.addr = (uintptr_t)mr->addr;
	sge.length = 8;
	sge.lkey = mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr + 32;
	wr.wr.rdma.rkey = mr->rkey;
	/* two posts, one per half, then the first half's write again, late */
	wr.wr_id = 1;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
	h = half[0][0] != 0 ? 0 : 1;
	old = half[h][0];
	CU_ASSERT_NOT_EQUAL_FATAL(old, 0);
	wr.wr_id = 2;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 2, wc), 2);
	pv_mlx5_model_stats_get(&st0);
	__atomic_store_n(&half[h][0], old, __ATOMIC_RELEASE);
	pv_mlx5_model_drain();
	pv_mlx5_model_stats_get(&st1);
	CU_ASSERT_EQUAL(st1.doorbells, st0.doorbells + 1);
	CU_ASSERT_EQUAL(st1.wqes, st0.wqes);
	CU_ASSERT_EQUAL(st1.err_cqes, st0.err_cqes);
	CU_ASSERT_EQUAL(pv_poll_cq(p.cq_a, 4, wc), 0);
	/* and the next post runs as usual */
	wr.wr_id = 3;
	CU_ASSERT_EQUAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, wc), 1);
	CU_ASSERT_EQUAL(wc[0].status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].wr_id, 3);
	ut_pair_destroy(&p);
	ut_mr_free(mr);
}

/*
 * MR lifetime: a WQE posted before its local and remote MRs were
 * deregistered and their buffers freed executes afterwards (the engine is
 * stepped only then): it fails with an access error and touches neither
 * buffer (ASan: no use after free); the same with the responder QP
 * destroyed under a WRITE.
 */
static void
test_model_dereg_before_exec(void)
{
	struct pv_mr *l = ut_mr(256), *r = ut_mr(256);
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	struct pv_wc wc;
	struct ut_pair p;
	void *lbuf, *rbuf;

	CU_ASSERT_FATAL(l != NULL && r != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 64, 0, 0), 0);
	lbuf = l->addr;
	rbuf = r->addr;
	sge = (struct pv_sge){ (uintptr_t)lbuf, 256, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)rbuf;
	wr.wr.rdma.rkey = r->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	/* the remote MR goes first, then the local one; no step in between */
	ut_mr_free(r);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL_FATAL(ut_pair_reconnect(&p), 0);
	r = ut_mr(256);
	CU_ASSERT_FATAL(r != NULL);
	wr.wr.rdma.remote_addr = (uintptr_t)r->addr;
	wr.wr.rdma.rkey = r->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	ut_mr_free(l);
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_LOC_PROT_ERR);
	ut_pair_destroy(&p);
	ut_mr_free(r);
}

static void
test_model_qp_destroyed_under_write(void)
{
	struct pv_mr *l = ut_mr(4096), *r = ut_mr(4096);
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	struct pv_wc wc;
	struct ut_pair p;
	uint8_t zero[64] = { 0 };

	CU_ASSERT_FATAL(l != NULL && r != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_create(&p, &ut_cap, 64, 0, 0), 0);
	ut_fill(l->addr, 4096, 9);
	sge = (struct pv_sge){ (uintptr_t)l->addr, 4096, l->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = PV_WR_RDMA_WRITE;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)r->addr;
	wr.wr.rdma.rkey = r->rkey;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(p.a, &wr, &bad), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(p.b), 0);
	p.b = NULL;
	/* the peer is gone: the WRITE fails, nothing reaches the buffer */
	CU_ASSERT_EQUAL(ut_poll(p.cq_a, 1, &wc), 1);
	CU_ASSERT_NOT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(r->addr, zero, sizeof(zero)), 0);
	ut_pair_destroy(&p);
	ut_mr_free(l);
	ut_mr_free(r);
}

/*
 * A deregistered key stays dead: 1000 registrations reusing its slot never
 * hand it out again (an 8-bit generation did after 255).
 */
static void
test_model_stale_key_reuse(void)
{
	struct pv_mr *mr = ut_mr(64);
	uint32_t stale, i, back = 0;
	void *buf;

	CU_ASSERT_FATAL(mr != NULL);
	buf = mr->addr;
	stale = mr->rkey;
	pv_dereg_mr(mr);
	for (i = 0; i < 1000; i++) {
		mr = pv_reg_mr(ut_pd, buf, 64, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
		back += mr->rkey == stale;
		pv_dereg_mr(mr);
	}
	CU_ASSERT_EQUAL(back, 0);
	free(buf);
}

static const struct ut_case ut_mlx5_model_cases[] = {
	{ "device says it is a model", test_model_attrs },
	{ "keys, pds, bounds, rights", test_model_protection },
	{ "rnr_retry 7 waits", test_model_rnr_wait },
	{ "late blueflame write is stale", test_model_stale_blueflame },
	{ "mr deregistered before its wqe runs", test_model_dereg_before_exec },
	{ "responder qp destroyed under a write", test_model_qp_destroyed_under_write },
	{ "a dead key stays dead", test_model_stale_key_reuse },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_mlx5_model = {
	.name = "mlx5_model",
	.cases = ut_mlx5_model_cases,
};
