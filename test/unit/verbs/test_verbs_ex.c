/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite verbs_ex: the extended verbs (verbs_ex.c, verbs_qp_ex.c,
 * verbs_cq_ex.c, the iova/rereg part of verbs_mr.c) over the fake driver,
 * whose post_send records the list it is given and whose poll_cq hands out
 * the completions a test queues.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "ut_verbs.h"

static struct pv_context *ut_ctx, *ut_ctx1;
static struct pv_pd *ut_pd, *ut_pd1;
static struct pv_cq *ut_cq;

static int
ut_ex_init(void)
{
	ut_ctx = ut_fake_open("ut_fake0");
	ut_ctx1 = ut_fake_open("ut_fake1");
	if (ut_ctx == NULL || ut_ctx1 == NULL)
		return -1;
	ut_pd = pv_alloc_pd(ut_ctx);
	ut_pd1 = pv_alloc_pd(ut_ctx1);
	ut_cq = pv_create_cq(ut_ctx, 64, NULL, NULL, 0);
	return ut_pd && ut_pd1 && ut_cq ? 0 : -1;
}

static int
ut_ex_fini(void)
{
	int ret = 0;

	ret |= pv_destroy_cq(ut_cq);
	ret |= pv_dealloc_pd(ut_pd);
	ret |= pv_dealloc_pd(ut_pd1);
	ret |= pv_close_device(ut_ctx);
	ret |= pv_close_device(ut_ctx1);
	return ret;
}

static void
test_query_port_errno(void)
{
	struct pv_port_attr pa;

	errno = 0;
	CU_ASSERT_EQUAL(pv_query_port(ut_ctx, 3, &pa), EINVAL);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_port(NULL, 1, &pa), EINVAL);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ut_ctx, 1, &pa), 0);
}

static void
test_query_device_ex(void)
{
	struct pv_query_device_ex_input in = { .comp_mask = 0 };
	struct pv_device_attr_ex ax;
	struct pv_device_attr a;

	CU_ASSERT_EQUAL(pv_query_device(ut_ctx, &a), 0);
	memset(&ax, 0xa5, sizeof(ax));
	CU_ASSERT_EQUAL(pv_query_device_ex(ut_ctx, NULL, &ax), 0);
	CU_ASSERT_EQUAL(memcmp(&ax.orig_attr, &a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(ax.phys_port_cnt_ex, 2);
	CU_ASSERT_EQUAL(ax.device_cap_flags_ex, a.device_cap_flags);
	CU_ASSERT_EQUAL(ax.odp_caps.general_caps, 0);
	CU_ASSERT_EQUAL(ax.odp_caps.per_transport_caps.rc_odp_caps, 0);
	CU_ASSERT_EQUAL(ax.completion_timestamp_mask, 0);
	CU_ASSERT_EQUAL(ax.max_dm_size, 0);
	CU_ASSERT_EQUAL(ax.tso_caps.max_tso, 0);
	CU_ASSERT_EQUAL(ax.comp_mask, 0);
	CU_ASSERT_EQUAL(pv_query_device_ex(ut_ctx, &in, &ax), 0);
	in.comp_mask = 1;
	CU_ASSERT_EQUAL(pv_query_device_ex(ut_ctx, &in, &ax), EINVAL);
	CU_ASSERT_EQUAL(pv_query_device_ex(NULL, NULL, &ax), EINVAL);
	CU_ASSERT_EQUAL(pv_query_device_ex(ut_ctx, NULL, NULL), EINVAL);
}

static void
test_query_gid_ex(void)
{
	struct pv_gid_entry e, tbl[8];
	union pv_gid gid;
	ssize_t n;

	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 1, 1, &e, 0), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ut_ctx, 1, 1, &gid), 0);
	CU_ASSERT_EQUAL(memcmp(&e.gid, &gid, sizeof(gid)), 0);
	CU_ASSERT_EQUAL(e.gid_index, 1);
	CU_ASSERT_EQUAL(e.port_num, 1);
	CU_ASSERT_EQUAL(e.gid_type, PV_GID_TYPE_ROCE_V2);	/* Ethernet port */
	CU_ASSERT_EQUAL(e.ndev_ifindex, 0);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 2, 0, &e, 0), 0);
	CU_ASSERT_EQUAL(e.gid_type, PV_GID_TYPE_IB);		/* IB port */
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 1, 2, &e, 0), ENODATA);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 1, UT_GID_TBL_LEN, &e, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 3, 0, &e, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 256 + 1, 0, &e, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 1, 0, &e, 1), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_query_gid_ex(ut_ctx, 1, 0, NULL, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_query_gid_ex(NULL, 1, 0, &e, 0), EINVAL);

	/* two valid entries on each of the two ports */
	n = pv_query_gid_table(ut_ctx, tbl, RTE_DIM(tbl), 0);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(tbl[0].port_num, 1);
	CU_ASSERT_EQUAL(tbl[1].gid_index, 1);
	CU_ASSERT_EQUAL(tbl[2].port_num, 2);
	CU_ASSERT_EQUAL(tbl[3].gid_type, PV_GID_TYPE_IB);
	CU_ASSERT_EQUAL(pv_query_gid_table(ut_ctx, tbl, 3, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_query_gid_table(ut_ctx, tbl, RTE_DIM(tbl), 1), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_query_gid_table(NULL, tbl, RTE_DIM(tbl), 0), -EINVAL);
}

static void
ut_attr_ex(struct pv_qp_init_attr_ex *x, enum pv_qp_type type, uint64_t ops)
{
	memset(x, 0, sizeof(*x));
	x->send_cq = ut_cq;
	x->recv_cq = ut_cq;
	x->qp_type = type;
	x->cap.max_send_wr = 4;
	x->cap.max_recv_wr = 4;
	x->cap.max_send_sge = 2;
	x->cap.max_recv_sge = 1;
	x->cap.max_inline_data = 32;
	x->comp_mask = PV_QP_INIT_ATTR_PD | (ops != 0 ? PV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0);
	x->pd = ut_pd;
	x->send_ops_flags = ops;
}

static void
test_create_qp_ex_errors(void)
{
	struct pv_qp_init_attr_ex x;
	struct pv_qp *qp;
	struct pv_xrcd xrcd_fake = { 0 };

	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_SEND);
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(NULL, &x), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, NULL), EINVAL);
	x.comp_mask &= ~(uint32_t)PV_QP_INIT_ATTR_PD;		/* no PD */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_SEND);
	x.pd = ut_pd1;						/* PD of another context */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_SEND);
	x.comp_mask |= 1u << 7;					/* unknown bit */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);
	ut_attr_ex(&x, PV_QPT_RC, 1u << 11);			/* unknown op */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);
	ut_attr_ex(&x, PV_QPT_UD, PV_QP_EX_WITH_RDMA_WRITE);	/* not a UD op */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_UC, PV_QP_EX_WITH_RDMA_READ);	/* not a UC op */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_LOCAL_INV);	/* no MEM_MGT_EXTENSIONS */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_TSO);
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_ATOMIC_WRITE);
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RC, 0);
	x.comp_mask |= PV_QP_INIT_ATTR_CREATE_FLAGS;
	x.create_flags = PV_QP_CREATE_SCATTER_FCS;
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RAW_PACKET, 0);
	x.comp_mask |= PV_QP_INIT_ATTR_MAX_TSO_HEADER;
	x.max_tso_header = 64;
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_RC, 0);
	x.comp_mask |= PV_QP_INIT_ATTR_RX_HASH;
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_XRC_SEND, 0);			/* no XRC in the driver */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	ut_attr_ex(&x, PV_QPT_XRC_RECV, 0);
	x.comp_mask = PV_QP_INIT_ATTR_XRCD;
	xrcd_fake.context = ut_ctx;	/* the driver has no open_xrcd: a stand-in */
	x.xrcd = &xrcd_fake;
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EOPNOTSUPP);
	x.xrcd = NULL;
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);
	ut_attr_ex(&x, PV_QPT_RC, PV_QP_EX_WITH_SEND);
	x.cap.max_send_wr = UT_MAX_QP_WR + 1;			/* pv_create_qp()'s rules */
	UT_ASSERT_NULL_ERRNO(pv_create_qp_ex(ut_ctx, &x), EINVAL);

	/* a classic QP: no work request API, but safe pointers */
	ut_attr_ex(&x, PV_QPT_RC, 0);
	qp = pv_create_qp_ex(ut_ctx, &x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(qp->pd, ut_pd);
	CU_ASSERT_EQUAL(qp->qp_type, PV_QPT_RC);
	CU_ASSERT_EQUAL(qp->cap.max_send_wr, 4);
	UT_ASSERT_NULL_ERRNO(pv_qp_to_qp_ex(qp), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_qp_to_qp_ex(NULL), EINVAL);
	{
		struct pv_qp_ex *qpx = container_of(qp, struct pv_qp_ex, qp_base);

		pv_wr_start(qpx);
		pv_wr_send(qpx);
		pv_wr_set_sge(qpx, 1, 0x1000, 8);
		CU_ASSERT_EQUAL(pv_wr_complete(qpx), EOPNOTSUPP);
		pv_wr_abort(qpx);
	}
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
}

static struct pv_qp_ex *
ut_qpx_create(enum pv_qp_type type, uint64_t ops)
{
	struct pv_qp_init_attr_ex x;
	struct pv_qp *qp;

	ut_attr_ex(&x, type, ops);
	qp = pv_create_qp_ex(ut_ctx, &x);
	if (qp == NULL)
		return NULL;
	return pv_qp_to_qp_ex(qp);
}

static void
test_wr_batch_rc(void)
{
	struct pv_qp_ex *qpx = ut_qpx_create(PV_QPT_RC, PV_QP_EX_WITH_SEND |
					     PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
					     PV_QP_EX_WITH_RDMA_READ |
					     PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	const struct pv_sge two[2] = {
		{ .addr = 0x2000, .length = 16, .lkey = 5 },
		{ .addr = 0x3000, .length = 32, .lkey = 6 },
	};
	const char msg[] = "inline payload";
	int calls;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	calls = ut_fake.post_send_calls;
	pv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = PV_SEND_SIGNALED;
	pv_wr_send(qpx);
	pv_wr_set_inline_data(qpx, (void *)(uintptr_t)msg, sizeof(msg));
	qpx->wr_id = 2;
	qpx->wr_flags = 0;
	pv_wr_rdma_write_imm(qpx, 0x77, 0x9000, rte_cpu_to_be_32(0xabcd));
	pv_wr_set_sge_list(qpx, 2, two);
	qpx->wr_id = 3;
	pv_wr_rdma_read(qpx, 0x78, 0xa000);
	pv_wr_set_sge(qpx, 9, 0x4000, 64);
	qpx->wr_id = 4;
	pv_wr_atomic_fetch_add(qpx, 0x79, 0xb000, 5);
	pv_wr_set_sge(qpx, 9, 0x5000, 8);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), 0);
	/* one post for the batch, the list in order */
	CU_ASSERT_EQUAL(ut_fake.post_send_calls, calls + 1);
	CU_ASSERT_EQUAL(ut_fake.sent_nwr, 4);
	CU_ASSERT_EQUAL(ut_fake.sent[0].wr_id, 1);
	CU_ASSERT_EQUAL(ut_fake.sent[0].opcode, PV_WR_SEND);
	CU_ASSERT_EQUAL(ut_fake.sent[0].send_flags, PV_SEND_SIGNALED | PV_SEND_INLINE);
	CU_ASSERT_EQUAL(ut_fake.sent[0].num_sge, 1);
	CU_ASSERT_EQUAL(ut_fake.sent_sge[0].length, sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(ut_fake.sent_inline[0], msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(ut_fake.sent[1].opcode, PV_WR_RDMA_WRITE_WITH_IMM);
	CU_ASSERT_EQUAL(ut_fake.sent[1].send_flags, 0);
	CU_ASSERT_EQUAL(ut_fake.sent[1].imm_data, rte_cpu_to_be_32(0xabcd));
	CU_ASSERT_EQUAL(ut_fake.sent[1].wr.rdma.rkey, 0x77);
	CU_ASSERT_EQUAL(ut_fake.sent[1].wr.rdma.remote_addr, 0x9000);
	CU_ASSERT_EQUAL(ut_fake.sent[1].num_sge, 2);
	CU_ASSERT_EQUAL(ut_fake.sent_sge[1].lkey, 5);
	CU_ASSERT_EQUAL(ut_fake.sent[2].opcode, PV_WR_RDMA_READ);
	CU_ASSERT_EQUAL(ut_fake.sent_sge[2].addr, 0x4000);
	CU_ASSERT_EQUAL(ut_fake.sent[3].opcode, PV_WR_ATOMIC_FETCH_AND_ADD);
	CU_ASSERT_EQUAL(ut_fake.sent[3].wr.atomic.compare_add, 5);
	CU_ASSERT_EQUAL(ut_fake.sent[3].wr.atomic.rkey, 0x79);

	/* abort: nothing posted */
	calls = ut_fake.post_send_calls;
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	pv_wr_abort(qpx);
	pv_wr_start(qpx);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), 0);	/* empty batch */
	CU_ASSERT_EQUAL(ut_fake.post_send_calls, calls);

	/* an operation not in send_ops_flags fails the whole batch */
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	pv_wr_rdma_write(qpx, 1, 0x1000);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	CU_ASSERT_EQUAL(ut_fake.post_send_calls, calls);
	/* more WRs than max_send_wr (4) */
	pv_wr_start(qpx);
	for (int i = 0; i < 5; i++) {
		pv_wr_send(qpx);
		pv_wr_set_sge(qpx, 1, 0x1000, 8);
	}
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), ENOMEM);
	/* more SGEs than max_send_sge (2), inline beyond max_inline_data */
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_sge_list(qpx, 3, two);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	{
		char big[UT_MAX_INLINE] = { 0 };

		pv_wr_set_inline_data(qpx, big, 33);
	}
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	/* a setter with no WR, a UD setter on RC, an XRC setter on RC */
	pv_wr_start(qpx);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_ud_addr(qpx, (struct pv_ah *)qpx, 1, 2);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_xrc_srqn(qpx, 3);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	CU_ASSERT_EQUAL(ut_fake.post_send_calls, calls);
	/* the driver's errno comes back */
	ut_fake.post_send_ret = ENOMEM;
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), ENOMEM);
	ut_fake.post_send_ret = 0;
	/* ops refused at creation record EINVAL */
	pv_wr_start(qpx);
	pv_wr_send_tso(qpx, NULL, 0, 0);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	pv_wr_start(qpx);
	pv_wr_bind_mw(qpx, NULL, 0, NULL);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	pv_wr_start(qpx);
	pv_wr_atomic_write(qpx, 0, 0, NULL);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(&qpx->qp_base), 0);
}

static void
test_wr_batch_ud(void)
{
	struct pv_qp_ex *qpx = ut_qpx_create(PV_QPT_UD, PV_QP_EX_WITH_SEND |
					     PV_QP_EX_WITH_SEND_WITH_IMM);
	struct pv_data_buf bufs[2] = { { "abc", 3 }, { "defg", 4 } };
	struct pv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct pv_ah *ah = pv_create_ah(ut_pd, &aa);

	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	pv_wr_start(qpx);
	qpx->wr_id = 9;
	pv_wr_send_imm(qpx, rte_cpu_to_be_32(7));
	pv_wr_set_ud_addr(qpx, ah, 0x123, 0x11111111);
	pv_wr_set_inline_data_list(qpx, 2, bufs);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), 0);
	CU_ASSERT_EQUAL(ut_fake.sent_nwr, 1);
	CU_ASSERT_EQUAL(ut_fake.sent[0].opcode, PV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(ut_fake.sent[0].wr.ud.ah, ah);
	CU_ASSERT_EQUAL(ut_fake.sent[0].wr.ud.remote_qpn, 0x123);
	CU_ASSERT_EQUAL(ut_fake.sent[0].wr.ud.remote_qkey, 0x11111111);
	CU_ASSERT_EQUAL(ut_fake.sent_sge[0].length, 7);
	CU_ASSERT_EQUAL(memcmp(ut_fake.sent_inline[0], "abcdefg", 7), 0);
	/* a UD WR without its address */
	pv_wr_start(qpx);
	pv_wr_send(qpx);
	pv_wr_set_sge(qpx, 1, 0x1000, 8);
	CU_ASSERT_EQUAL(pv_wr_complete(qpx), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(&qpx->qp_base), 0);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
}

static void
ut_wc_queue(int n)
{
	int i;

	memset(ut_fake.wc, 0, sizeof(ut_fake.wc));
	for (i = 0; i < n; i++) {
		ut_fake.wc[i].wr_id = 100 + i;
		ut_fake.wc[i].status = i == 1 ? PV_WC_REM_ACCESS_ERR : PV_WC_SUCCESS;
		ut_fake.wc[i].opcode = PV_WC_RECV;
		ut_fake.wc[i].byte_len = 10 * i;
		ut_fake.wc[i].imm_data = rte_cpu_to_be_32(i);
		ut_fake.wc[i].qp_num = 0x40 + i;
		ut_fake.wc[i].src_qp = 0x50 + i;
		ut_fake.wc[i].wc_flags = PV_WC_WITH_IMM;
		ut_fake.wc[i].slid = 3;
		ut_fake.wc[i].sl = 2;
		ut_fake.wc[i].dlid_path_bits = 1;
	}
	ut_fake.nb_wc = n;
	ut_fake.wc_next = 0;
}

static void
test_cq_ex(void)
{
	struct pv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = PV_WC_STANDARD_FLAGS,
	};
	struct pv_poll_cq_attr pa = { .comp_mask = 0 };
	struct pv_parent_domain_init_attr pda = { .pd = ut_pd };
	struct pv_wc_tm_info tm;
	struct pv_cq_ex *cq;
	struct pv_pd *par;
	uint64_t seen = 0;
	int i, ret;

	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(NULL, &ca), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, NULL), EINVAL);
	ca.wc_flags = PV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EOPNOTSUPP);
	ca.wc_flags = PV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EOPNOTSUPP);
	ca.wc_flags = PV_WC_EX_WITH_FLOW_TAG;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EOPNOTSUPP);
	ca.wc_flags = PV_WC_STANDARD_FLAGS;
	ca.comp_mask = 1u << 2;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EINVAL);
	ca.comp_mask = PV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = PV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EOPNOTSUPP);
	ca.comp_mask = PV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = ut_pd;		/* a PD, not a parent domain */
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EINVAL);
	ca.comp_mask = 0;
	ca.cqe = 0;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EINVAL);
	ca.cqe = UT_MAX_CQE + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EINVAL);
	ca.cqe = 32;
	ca.comp_vector = UT_COMP_VECTORS;
	UT_ASSERT_NULL_ERRNO(pv_create_cq_ex(ut_ctx, &ca), EINVAL);
	ca.comp_vector = 0;

	par = pv_alloc_parent_domain(ut_ctx, &pda);
	CU_ASSERT_PTR_NOT_NULL_FATAL(par);
	ca.comp_mask = PV_CQ_INIT_ATTR_MASK_PD | PV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.parent_domain = par;
	ca.flags = PV_CREATE_CQ_ATTR_SINGLE_THREADED;
	ca.cq_context = &seen;
	cq = pv_create_cq_ex(ut_ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(pv_cq_ex_to_cq(cq)->cq_context, &seen);
	CU_ASSERT(pv_cq_ex_to_cq(cq)->cqe >= 32);

	ut_wc_queue(0);
	CU_ASSERT_EQUAL(pv_start_poll(cq, &pa), ENOENT);
	pa.comp_mask = 1;
	CU_ASSERT_EQUAL(pv_start_poll(cq, &pa), EINVAL);
	pa.comp_mask = 0;

	/* 20 completions: more than one burst; every field read back */
	ut_wc_queue(20);
	ret = pv_start_poll(cq, &pa);
	for (i = 0; ret == 0; i++, ret = pv_next_poll(cq)) {
		CU_ASSERT_EQUAL(cq->wr_id, 100u + i);
		CU_ASSERT_EQUAL(cq->status, i == 1 ? PV_WC_REM_ACCESS_ERR : PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(pv_wc_read_opcode(cq), PV_WC_RECV);
		CU_ASSERT_EQUAL(pv_wc_read_byte_len(cq), 10u * i);
		CU_ASSERT_EQUAL(pv_wc_read_imm_data(cq), rte_cpu_to_be_32(i));
		CU_ASSERT_EQUAL(pv_wc_read_invalidated_rkey(cq), rte_cpu_to_be_32(i));
		CU_ASSERT_EQUAL(pv_wc_read_qp_num(cq), 0x40u + i);
		CU_ASSERT_EQUAL(pv_wc_read_src_qp(cq), 0x50u + i);
		CU_ASSERT_EQUAL(pv_wc_read_wc_flags(cq), PV_WC_WITH_IMM);
		CU_ASSERT_EQUAL(pv_wc_read_slid(cq), 3);
		CU_ASSERT_EQUAL(pv_wc_read_sl(cq), 2);
		CU_ASSERT_EQUAL(pv_wc_read_dlid_path_bits(cq), 1);
		CU_ASSERT_EQUAL(pv_wc_read_vendor_err(cq), 0);
		CU_ASSERT_EQUAL(pv_wc_read_completion_ts(cq), 0);
		CU_ASSERT_EQUAL(pv_wc_read_completion_wallclock_ns(cq), 0);
		CU_ASSERT_EQUAL(pv_wc_read_cvlan(cq), 0);
		CU_ASSERT_EQUAL(pv_wc_read_flow_tag(cq), 0);
		pv_wc_read_tm_info(cq, &tm);
		CU_ASSERT_EQUAL(tm.tag, 0);
	}
	CU_ASSERT_EQUAL(ret, ENOENT);
	CU_ASSERT_EQUAL(i, 20);
	pv_end_poll(cq);

	/* end_poll consumes only the current one: the rest of a burst stays */
	ut_wc_queue(3);
	CU_ASSERT_EQUAL(pv_start_poll(cq, NULL), 0);
	CU_ASSERT_EQUAL(cq->wr_id, 100);
	pv_end_poll(cq);
	CU_ASSERT_EQUAL(pv_start_poll(cq, NULL), 0);
	CU_ASSERT_EQUAL(cq->wr_id, 101);
	CU_ASSERT_EQUAL(pv_next_poll(cq), 0);
	CU_ASSERT_EQUAL(cq->wr_id, 102);
	pv_end_poll(cq);
	CU_ASSERT_EQUAL(pv_start_poll(cq, NULL), ENOENT);

	CU_ASSERT_EQUAL(pv_dealloc_pd(par), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(pv_cq_ex_to_cq(cq)), 0);
}

static void
test_mr_ex(void)
{
	static uint8_t buf[4096];
	struct pv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = 1 };
	struct pv_alloc_dm_attr dma = { .length = 4096 };
	struct pv_ece ece;
	struct pv_dm fake_dm = { .context = ut_ctx };	/* the driver has no alloc_dm */
	struct pv_dm *dm = &fake_dm;
	struct pv_mr *mr;

	/* iova == addr: the classic op; iova != addr: not on this driver */
	mr = pv_reg_mr_iova(ut_pd, buf, sizeof(buf), (uintptr_t)buf, PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_EQUAL(mr->addr, buf);
	CU_ASSERT_EQUAL(mr->length, sizeof(buf));
	UT_ASSERT_NULL_ERRNO(pv_reg_mr_iova2(ut_pd, buf, sizeof(buf), 0x1000, 0), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr_iova2(ut_pd, buf, sizeof(buf), UINT64_MAX - 10, 0),
			     EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr_iova2(NULL, buf, sizeof(buf), 0, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr_iova2(ut_pd, buf, sizeof(buf), 0,
					     PV_ACCESS_REMOTE_WRITE), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr_iova2(ut_pd, buf, sizeof(buf), 0,
					     PV_ACCESS_ON_DEMAND), EOPNOTSUPP);

	/* rereg: libibverbs' input errors, then the driver's refusal */
	errno = 0;
	CU_ASSERT_EQUAL(pv_rereg_mr(NULL, PV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0),
			PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, 1 << 3, NULL, NULL, 0, 0), PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, PV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0),
			PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, PV_REREG_MR_CHANGE_PD, NULL, NULL, 0,
				    PV_ACCESS_LOCAL_WRITE), PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, PV_REREG_MR_CHANGE_PD, ut_pd1, NULL, 0, 0),
			PV_REREG_MR_ERR_INPUT);
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, PV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    PV_ACCESS_REMOTE_ATOMIC), PV_REREG_MR_ERR_INPUT);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rereg_mr(mr, PV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    PV_ACCESS_LOCAL_WRITE), PV_REREG_MR_ERR_CMD);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(mr->addr, buf);

	CU_ASSERT_EQUAL(pv_advise_mr(ut_pd, PV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1),
			EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_advise_mr(ut_pd, PV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				     PV_ADVISE_MR_FLAG_FLUSH, &sge, 1), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_advise_mr(NULL, PV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1), EINVAL);
	CU_ASSERT_EQUAL(pv_advise_mr(ut_pd, PV_ADVISE_MR_ADVICE_PREFETCH, 2, &sge, 1), EINVAL);
	CU_ASSERT_EQUAL(pv_advise_mr(ut_pd, (enum pv_advise_mr_advice)3, 0, &sge, 1), EINVAL);
	CU_ASSERT_EQUAL(pv_advise_mr(ut_pd, PV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);

	UT_ASSERT_NULL_ERRNO(pv_alloc_null_mr(ut_pd), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_alloc_null_mr(NULL), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_alloc_dm(ut_ctx, &dma), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_alloc_dm(NULL, &dma), EINVAL);
	dma.length = 0;
	UT_ASSERT_NULL_ERRNO(pv_alloc_dm(ut_ctx, &dma), EINVAL);
	dma.length = 64;
	dma.comp_mask = 1;
	UT_ASSERT_NULL_ERRNO(pv_alloc_dm(ut_ctx, &dma), EINVAL);
	CU_ASSERT_EQUAL(pv_free_dm(NULL), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_dm_mr(ut_pd, dm, 0, 64, PV_ACCESS_ZERO_BASED), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_reg_dm_mr(ut_pd, dm, 0, 64, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_dm_mr(ut_pd, NULL, 0, 64, PV_ACCESS_ZERO_BASED), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_dm_mr(ut_pd, dm, 0, 0, PV_ACCESS_ZERO_BASED), EINVAL);
	CU_ASSERT_EQUAL(pv_free_dm(dm), EOPNOTSUPP);

	CU_ASSERT_EQUAL(pv_get_device_index(ut_ctx->device), -1);
	CU_ASSERT_EQUAL(pv_query_ece(NULL, &ece), EINVAL);
	CU_ASSERT_EQUAL(pv_set_ece(NULL, &ece), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_import_device(3), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_import_pd(ut_ctx, 1), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_import_pd(NULL, 1), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_import_mr(ut_pd, 1), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_import_mr(NULL, 1), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_import_dm(ut_ctx, 1), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_import_dm(NULL, 1), EINVAL);
	pv_unimport_pd(NULL);
	pv_unimport_mr(NULL);
	pv_unimport_dm(NULL);
}

static void
test_qp_ece_data_in_order(void)
{
	struct pv_qp_ex *qpx = ut_qpx_create(PV_QPT_RC, PV_QP_EX_WITH_SEND);
	struct pv_ece ece;

	CU_ASSERT_PTR_NOT_NULL_FATAL(qpx);
	CU_ASSERT_EQUAL(pv_query_ece(&qpx->qp_base, &ece), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_set_ece(&qpx->qp_base, &ece), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_query_qp_data_in_order(&qpx->qp_base, PV_WR_RDMA_WRITE, 0), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(&qpx->qp_base), 0);
}

/* the verbs of verbs.h v44 answered without a driver op */
static void
test_small_verbs(void)
{
	struct pv_qp_open_attr oa = { 0 };
	struct pv_modify_cq_attr ma = { 0 };
	struct pv_qp_rate_limit_attr ra = { 0 };
	struct pv_values_ex va = { 0 };
	struct pv_ah_attr ah = { 0 };
	struct pv_xrcd x = { 0 };
	uint8_t mac[6];
	uint16_t vid;
	pv_be16 pkey;

	CU_ASSERT_TRUE(pv_is_qpt_supported(1u << PV_QPT_RC, PV_QPT_RC));
	CU_ASSERT_FALSE(pv_is_qpt_supported(1u << PV_QPT_RC, PV_QPT_UD));
	/* label 0: port 0xc000; the top 6 bits fold into the low 14 */
	CU_ASSERT_EQUAL(pv_flow_label_to_udp_sport(0), 0xc000);
	CU_ASSERT_EQUAL(pv_flow_label_to_udp_sport(0x04001), 0xc000);
	CU_ASSERT_EQUAL(pv_flow_label_to_udp_sport(0xfffff), 0xc000 | (0x3fff ^ 0x3f));
	CU_ASSERT_EQUAL(pv_is_fork_initialized(), PV_FORK_UNNEEDED);

	CU_ASSERT_EQUAL_FATAL(pv_query_pkey(ut_ctx, 1, 0, &pkey), 0);
	CU_ASSERT_EQUAL(pv_get_pkey_index(ut_ctx, 1, pkey), 0);
	errno = 0;
	CU_ASSERT_EQUAL(pv_get_pkey_index(ut_ctx, 1, (pv_be16)(pkey ^ 0x1)), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	errno = 0;
	CU_ASSERT_EQUAL(pv_get_pkey_index(ut_ctx, 9, pkey), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_get_pkey_index(NULL, 1, pkey), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	CU_ASSERT_EQUAL(pv_modify_cq(NULL, &ma), EINVAL);
	ma.attr_mask = PV_CQ_ATTR_RESERVED;
	CU_ASSERT_EQUAL(pv_modify_cq((struct pv_cq *)&x, &ma), EINVAL);
	ma.attr_mask = PV_CQ_ATTR_MODERATE;
	CU_ASSERT_EQUAL(pv_modify_cq((struct pv_cq *)&x, &ma), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_open_qp(ut_ctx, &oa), EINVAL);
	oa.comp_mask = PV_QP_OPEN_ATTR_NUM | PV_QP_OPEN_ATTR_XRCD | PV_QP_OPEN_ATTR_TYPE;
	oa.xrcd = &x;
	UT_ASSERT_NULL_ERRNO(pv_open_qp(NULL, &oa), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_open_qp(ut_ctx, &oa), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_modify_qp_rate_limit(NULL, &ra), EINVAL);
	CU_ASSERT_EQUAL(pv_query_rt_values_ex(ut_ctx, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_query_rt_values_ex(ut_ctx, &va), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_resolve_eth_l2_from_gid(ut_ctx, &ah, mac, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_resolve_eth_l2_from_gid(ut_ctx, &ah, mac, &vid), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(pv_reg_dmabuf_mr(NULL, 0, 4096, 0, 3, 0), EINVAL);
}

static const struct ut_case ut_verbs_ex_cases[] = {
	{ "query_port sets errno", test_query_port_errno },
	{ "query_device_ex", test_query_device_ex },
	{ "query_gid_ex and gid table", test_query_gid_ex },
	{ "create_qp_ex errors", test_create_qp_ex_errors },
	{ "wr batch rc", test_wr_batch_rc },
	{ "wr batch ud", test_wr_batch_ud },
	{ "cq_ex poll", test_cq_ex },
	{ "mr iova, rereg, advise, dm, misc", test_mr_ex },
	{ "ece and data in order", test_qp_ece_data_in_order },
	{ "smaller verbs of verbs.h", test_small_verbs },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_ex = {
	.name = "verbs_ex",
	.init = ut_ex_init,
	.fini = ut_ex_fini,
	.cases = ut_verbs_ex_cases,
};
