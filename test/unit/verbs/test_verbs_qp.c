/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_qp: lib/verbs/verbs_qp.c (SRQ, QP create/modify/destroy, mcast) */

#include <string.h>

#include <rte_lcore.h>

#include "ut_verbs.h"

static struct pv_context *ut_ctx, *ut_ctx1;
static struct pv_pd *ut_pd, *ut_pd1;
static struct pv_cq *ut_cq, *ut_cq1;

static int
ut_qp_init(void)
{
	ut_ctx = ut_fake_open("ut_fake0");
	ut_ctx1 = ut_fake_open("ut_fake1");
	if (ut_ctx == NULL || ut_ctx1 == NULL)
		return -1;
	ut_pd = pv_alloc_pd(ut_ctx);
	ut_pd1 = pv_alloc_pd(ut_ctx1);
	ut_cq = pv_create_cq(ut_ctx, 64, NULL, NULL, 0);
	ut_cq1 = pv_create_cq(ut_ctx1, 64, NULL, NULL, 0);
	return ut_pd && ut_pd1 && ut_cq && ut_cq1 ? 0 : -1;
}

static int
ut_qp_fini(void)
{
	int ret = 0;

	ret |= pv_destroy_cq(ut_cq);
	ret |= pv_destroy_cq(ut_cq1);
	ret |= pv_dealloc_pd(ut_pd);
	ret |= pv_dealloc_pd(ut_pd1);
	ret |= pv_close_device(ut_ctx);
	ret |= pv_close_device(ut_ctx1);
	return ret;
}

static void
ut_init_attr(struct pv_qp_init_attr *ia, enum pv_qp_type type)
{
	memset(ia, 0, sizeof(*ia));
	ia->send_cq = ut_cq;
	ia->recv_cq = ut_cq;
	ia->qp_type = type;
	ia->cap.max_send_wr = 100;
	ia->cap.max_recv_wr = 64;
	ia->cap.max_send_sge = 2;
	ia->cap.max_recv_sge = 1;
	ia->cap.max_inline_data = 64;
}

static void
test_srq(void)
{
	struct pv_srq_init_attr si;
	struct pv_srq_attr sa;
	struct pv_srq *srq;
	int tag;

	memset(&si, 0, sizeof(si));
	si.srq_context = &tag;
	si.attr.max_wr = 100;
	si.attr.max_sge = 2;
	UT_ASSERT_NULL_ERRNO(pv_create_srq(NULL, &si), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_srq(ut_pd, NULL), EINVAL);
	si.attr.max_wr = 0;
	UT_ASSERT_NULL_ERRNO(pv_create_srq(ut_pd, &si), EINVAL);
	si.attr.max_wr = UT_MAX_SRQ_WR + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_srq(ut_pd, &si), EINVAL);
	si.attr.max_wr = 100;
	si.attr.max_sge = UT_MAX_SRQ_SGE + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_srq(ut_pd, &si), EINVAL);
	si.attr.max_sge = 2;
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);

	srq = pv_create_srq(ut_pd, &si);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	CU_ASSERT_PTR_EQUAL(srq->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(srq->pd, ut_pd);
	CU_ASSERT_PTR_EQUAL(srq->srq_context, &tag);
	CU_ASSERT_EQUAL(srq->lcore_id, rte_lcore_id());
	CU_ASSERT_EQUAL(ut_pd->usecnt, 1);

	memset(&sa, 0, sizeof(sa));
	CU_ASSERT_EQUAL(pv_modify_srq(NULL, &sa, PV_SRQ_LIMIT), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, NULL, PV_SRQ_LIMIT), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, 1 << 2), EINVAL);
	sa.srq_limit = 101;	/* above the current max_wr 100 */
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_LIMIT), EINVAL);
	sa.max_wr = 0;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_MAX_WR), EINVAL);
	sa.max_wr = UT_MAX_SRQ_WR + 1;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_MAX_WR), EINVAL);
	sa.max_wr = 200;	/* resize and limit together: limit against the new size */
	sa.srq_limit = 150;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_MAX_WR | PV_SRQ_LIMIT), 0);
	sa.srq_limit = 10;
	CU_ASSERT_EQUAL(pv_modify_srq(srq, &sa, PV_SRQ_LIMIT), 0);
	memset(&sa, 0, sizeof(sa));
	CU_ASSERT_EQUAL(pv_query_srq(NULL, &sa), EINVAL);
	CU_ASSERT_EQUAL(pv_query_srq(srq, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_query_srq(srq, &sa), 0);
	CU_ASSERT_EQUAL(sa.max_wr, 200);
	CU_ASSERT_EQUAL(sa.srq_limit, 10);

	CU_ASSERT_EQUAL(pv_destroy_srq(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
}

static void
test_create_qp_errors(void)
{
	struct pv_qp_init_attr ia;
	struct pv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct pv_srq *srq1 = pv_create_srq(ut_pd1, &si);
	static const int bad_types[] = { 0, 1, 5, 7, 11, 100, -1 };
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(srq1);
	ut_init_attr(&ia, PV_QPT_RC);
	UT_ASSERT_NULL_ERRNO(pv_create_qp(NULL, &ia), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, NULL), EINVAL);
	ia.send_cq = NULL;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.recv_cq = NULL;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.recv_cq = ut_cq1;	/* another context's CQ */
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.send_cq = ut_cq1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.srq = srq1;		/* another context's SRQ */
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	for (i = 0; i < RTE_DIM(bad_types); i++) {
		ut_init_attr(&ia, (enum pv_qp_type)bad_types[i]);
		UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	}
	/* known types the fake driver does not implement */
	ut_init_attr(&ia, PV_QPT_XRC_SEND);
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EOPNOTSUPP);
	ut_init_attr(&ia, PV_QPT_DRIVER);
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EOPNOTSUPP);

	/* caps beyond the device's limits */
	ut_init_attr(&ia, PV_QPT_RC);
	ia.cap.max_send_wr = UT_MAX_QP_WR + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.cap.max_recv_wr = UT_MAX_QP_WR + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.cap.max_send_sge = UT_MAX_SGE + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.cap.max_recv_sge = UT_MAX_SGE + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	ia.cap.max_inline_data = UT_MAX_INLINE + 1;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
	CU_ASSERT_EQUAL(ut_cq->usecnt, 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq1), 0);
}

static void
test_create_qp_fields(void)
{
	struct pv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct pv_cq *rcq = pv_create_cq(ut_ctx, 16, NULL, NULL, 0);
	struct pv_qp_init_attr ia;
	struct pv_qp *qp, *qp2;
	struct pv_srq *srq;
	int tag;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rcq);
	srq = pv_create_srq(ut_pd, &si);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);

	ut_init_attr(&ia, PV_QPT_RC);
	ia.qp_context = &tag;
	ia.recv_cq = rcq;
	ia.sq_sig_all = 1;
	qp = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_PTR_EQUAL(qp->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(qp->pd, ut_pd);
	CU_ASSERT_PTR_EQUAL(qp->qp_context, &tag);
	CU_ASSERT_PTR_EQUAL(qp->send_cq, ut_cq);
	CU_ASSERT_PTR_EQUAL(qp->recv_cq, rcq);
	CU_ASSERT_PTR_NULL(qp->srq);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RESET);
	CU_ASSERT_EQUAL(qp->qp_type, PV_QPT_RC);
	CU_ASSERT_EQUAL(qp->lcore_id, rte_lcore_id());
	CU_ASSERT_EQUAL(qp->sq_sig_all, 1);
	/* the driver's granted caps reach the caller */
	CU_ASSERT_EQUAL(qp->cap.max_send_wr, 128);
	CU_ASSERT_EQUAL(ia.cap.max_send_wr, 128);
	CU_ASSERT_EQUAL(ia.cap.max_recv_wr, 64);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 2);	/* srq and qp */
	CU_ASSERT_EQUAL(ut_cq->usecnt, 1);
	CU_ASSERT_EQUAL(rcq->usecnt, 1);
	CU_ASSERT_EQUAL(pv_destroy_cq(rcq), EBUSY);
	CU_ASSERT_EQUAL(pv_dealloc_pd(ut_pd), EBUSY);

	/* SRQ with UD; receive caps are not checked with an SRQ */
	ut_init_attr(&ia, PV_QPT_UD);
	ia.srq = srq;
	ia.cap.max_recv_wr = UT_MAX_QP_WR + 100;
	ia.cap.max_recv_sge = UT_MAX_SGE + 1;
	qp2 = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp2);
	CU_ASSERT_PTR_EQUAL(qp2->srq, srq);
	CU_ASSERT_NOT_EQUAL(qp2->handle, qp->handle);
	CU_ASSERT_EQUAL(srq->usecnt, 1);
	CU_ASSERT_EQUAL(ut_cq->usecnt, 3);	/* send+recv of qp2 */
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), EBUSY);
	/* SRQ needs RC or UD */
	ut_init_attr(&ia, PV_QPT_UC);
	ia.srq = srq;
	UT_ASSERT_NULL_ERRNO(pv_create_qp(ut_pd, &ia), EINVAL);

	CU_ASSERT_EQUAL(pv_destroy_qp(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp2), 0);
	CU_ASSERT_EQUAL(srq->usecnt, 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(ut_cq->usecnt, 0);
	CU_ASSERT_EQUAL(rcq->usecnt, 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(rcq), 0);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
}

static void
ut_rc_attr(struct pv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->pkey_index = 0;
	a->port_num = 1;
	a->qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	a->path_mtu = PV_MTU_1024;
	a->dest_qp_num = 0x123;
	a->rq_psn = 0x10;
	a->sq_psn = 0x20;
	a->max_dest_rd_atomic = UT_MAX_RD_ATOM;
	a->max_rd_atomic = UT_MAX_RD_ATOM;
	a->min_rnr_timer = 12;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->ah_attr.port_num = 1;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.hop_limit = 64;
}

#define M_INIT (PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS)
#define M_RTR (PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN | \
	       PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER)
#define M_RTS (PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | \
	       PV_QP_SQ_PSN | PV_QP_MAX_QP_RD_ATOMIC)

/* One bad value: EINVAL, the driver is not called, the state stays. */
static void
ut_modify_bad(struct pv_qp *qp, struct pv_qp_attr *a, int mask)
{
	enum pv_qp_state before = qp->state;
	int calls = ut_fake.modify_qp_calls;

	CU_ASSERT_EQUAL(pv_modify_qp(qp, a, mask), EINVAL);
	CU_ASSERT_EQUAL(ut_fake.modify_qp_calls, calls);
	CU_ASSERT_EQUAL(qp->state, before);
}

static void
test_modify_qp_rc_walk(void)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	struct pv_qp *qp;
	int calls;

	ut_init_attr(&ia, PV_QPT_RC);
	qp = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	ut_rc_attr(&a);
	CU_ASSERT_EQUAL(pv_modify_qp(NULL, &a, M_INIT), EINVAL);
	CU_ASSERT_EQUAL(pv_modify_qp(qp, NULL, M_INIT), EINVAL);

	/* RESET -> RTR skips INIT */
	a.qp_state = PV_QPS_RTR;
	ut_modify_bad(qp, &a, M_RTR);
	/* RESET -> INIT: missing PORT, extra QKEY, bad values */
	a.qp_state = PV_QPS_INIT;
	ut_modify_bad(qp, &a, M_INIT & ~PV_QP_PORT);
	ut_modify_bad(qp, &a, M_INIT | PV_QP_QKEY);
	a.port_num = 0;
	ut_modify_bad(qp, &a, M_INIT);
	a.port_num = 3;
	ut_modify_bad(qp, &a, M_INIT);
	a.port_num = 1;
	a.pkey_index = 1;
	ut_modify_bad(qp, &a, M_INIT);
	a.pkey_index = 0;
	a.qp_access_flags = 1 << 9;
	ut_modify_bad(qp, &a, M_INIT);
	a.qp_access_flags = PV_ACCESS_REMOTE_WRITE;
	/* CUR_STATE is not allowed here, and must match where it is */
	a.cur_qp_state = PV_QPS_RESET;
	ut_modify_bad(qp, &a, M_INIT | PV_QP_CUR_STATE);
	a.qp_state = 8;
	ut_modify_bad(qp, &a, PV_QP_STATE);

	/* a driver failure leaves the state alone */
	a.qp_state = PV_QPS_INIT;
	ut_fake.modify_qp_ret = ENOMEM;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, M_INIT), ENOMEM);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RESET);
	ut_fake.modify_qp_ret = 0;
	calls = ut_fake.modify_qp_calls;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, M_INIT), 0);
	CU_ASSERT_EQUAL(ut_fake.modify_qp_calls, calls + 1);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_INIT);

	/* INIT -> RTR value checks */
	a.qp_state = PV_QPS_RTR;
	a.path_mtu = 0;
	ut_modify_bad(qp, &a, M_RTR);
	a.path_mtu = 6;
	ut_modify_bad(qp, &a, M_RTR);
	a.path_mtu = PV_MTU_4096;
	a.min_rnr_timer = 32;
	ut_modify_bad(qp, &a, M_RTR);
	a.min_rnr_timer = 31;
	a.max_dest_rd_atomic = UT_MAX_RD_ATOM + 1;
	ut_modify_bad(qp, &a, M_RTR);
	a.max_dest_rd_atomic = 1;
	a.rq_psn = 0x1000000;
	ut_modify_bad(qp, &a, M_RTR);
	a.rq_psn = 0xffffff;
	a.dest_qp_num = 0x1000000;
	ut_modify_bad(qp, &a, M_RTR);
	a.dest_qp_num = 0x123;
	a.ah_attr.is_global = 0;	/* RoCE port: GRH required */
	ut_modify_bad(qp, &a, M_RTR);
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 2;		/* the IB port needs no GRH */
	a.ah_attr.is_global = 0;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, M_RTR), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTR);

	/* RTR -> RTS */
	a.qp_state = PV_QPS_RTS;
	ut_modify_bad(qp, &a, M_RTS & ~PV_QP_SQ_PSN);
	a.timeout = 32;
	ut_modify_bad(qp, &a, M_RTS);
	a.timeout = 31;
	a.retry_cnt = 8;
	ut_modify_bad(qp, &a, M_RTS);
	a.retry_cnt = 7;
	a.rnr_retry = 8;
	ut_modify_bad(qp, &a, M_RTS);
	a.rnr_retry = 7;
	a.max_rd_atomic = UT_MAX_RD_ATOM + 1;
	ut_modify_bad(qp, &a, M_RTS);
	a.max_rd_atomic = 0;
	a.sq_psn = 0x1000000;
	ut_modify_bad(qp, &a, M_RTS);
	a.sq_psn = 0;
	a.cur_qp_state = PV_QPS_INIT;	/* wrong current state */
	ut_modify_bad(qp, &a, M_RTS | PV_QP_CUR_STATE);
	a.cur_qp_state = PV_QPS_RTR;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, M_RTS | PV_QP_CUR_STATE), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);

	/* RTS -> RTS without PV_QP_STATE: attributes only */
	a.min_rnr_timer = 3;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_MIN_RNR_TIMER), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	ut_modify_bad(qp, &a, PV_QP_SQ_PSN);
	/* RTS -> SQD -> RTS, then ERR and RESET */
	a.qp_state = PV_QPS_SQD;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_SQD);
	a.qp_state = PV_QPS_RTS;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE), 0);
	a.qp_state = PV_QPS_ERR;
	ut_modify_bad(qp, &a, PV_QP_STATE | PV_QP_SQ_PSN);
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_ERR);
	a.qp_state = PV_QPS_RTS;
	ut_modify_bad(qp, &a, PV_QP_STATE);
	a.qp_state = PV_QPS_RESET;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RESET);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
}

static void
test_modify_qp_ud(void)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	struct pv_qp *qp;

	ut_init_attr(&ia, PV_QPT_UD);
	qp = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_state = PV_QPS_INIT;
	/* UD wants QKEY, not ACCESS_FLAGS */
	ut_modify_bad(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS);
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
				     PV_QP_QKEY), 0);
	a.qp_state = PV_QPS_RTR;
	ut_modify_bad(qp, &a, PV_QP_STATE | PV_QP_AV);
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE), 0);
	a.qp_state = PV_QPS_RTS;
	CU_ASSERT_EQUAL(pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_SQ_PSN), 0);
	CU_ASSERT_EQUAL(qp->state, PV_QPS_RTS);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
}

static void
test_mcast(void)
{
	struct pv_qp_init_attr ia;
	union pv_gid gid;
	struct pv_qp *rc;

	ut_init_attr(&ia, PV_QPT_RC);
	rc = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	memset(&gid, 0, sizeof(gid));
	gid.raw[0] = 0xff;
	CU_ASSERT_EQUAL(pv_attach_mcast(rc, &gid, 0xc000), EINVAL);
	CU_ASSERT_EQUAL(pv_detach_mcast(rc, &gid, 0xc000), EINVAL);
	CU_ASSERT_EQUAL(pv_attach_mcast(NULL, &gid, 0xc000), EINVAL);
	CU_ASSERT_EQUAL(pv_attach_mcast(rc, NULL, 0xc000), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(rc), 0);

	ut_init_attr(&ia, PV_QPT_UD);
	rc = pv_create_qp(ut_pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	gid.raw[0] = 0xfe;	/* not a multicast GID */
	CU_ASSERT_EQUAL(pv_attach_mcast(rc, &gid, 0xc000), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_qp(rc), 0);
}

/* pv_verbs_create_gsi_qp(): pv_create_qp()'s checks for a UD QP, then the op */
static void
test_create_gsi_qp(void)
{
	struct pv_qp_init_attr ia;

	ut_init_attr(&ia, PV_QPT_UD);
	UT_ASSERT_NULL_ERRNO(pv_verbs_create_gsi_qp(NULL, &ia), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_verbs_create_gsi_qp(ut_pd, NULL), EINVAL);
	ut_init_attr(&ia, PV_QPT_RC);
	UT_ASSERT_NULL_ERRNO(pv_verbs_create_gsi_qp(ut_pd, &ia), EINVAL);
	/* pv_create_qp()'s own checks (the same code: one is enough here) */
	ut_init_attr(&ia, PV_QPT_UD);
	ia.send_cq = ut_cq1;	/* another context's CQ */
	UT_ASSERT_NULL_ERRNO(pv_verbs_create_gsi_qp(ut_pd, &ia), EINVAL);
	/* valid: the fake driver has no GSI QP (lib/verbs' stub) */
	ut_init_attr(&ia, PV_QPT_UD);
	UT_ASSERT_NULL_ERRNO(pv_verbs_create_gsi_qp(ut_pd, &ia), EOPNOTSUPP);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
	CU_ASSERT_EQUAL(ut_cq->usecnt, 0);
}

static const struct ut_case ut_verbs_qp_cases[] = {
	{ "srq", test_srq },
	{ "create_qp errors", test_create_qp_errors },
	{ "create_qp fields and counts", test_create_qp_fields },
	{ "create_gsi_qp checks, EOPNOTSUPP", test_create_gsi_qp },
	{ "modify_qp rc walk and values", test_modify_qp_rc_walk },
	{ "modify_qp ud", test_modify_qp_ud },
	{ "attach/detach mcast", test_mcast },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_qp = {
	.name = "verbs_qp",
	.init = ut_qp_init,
	.fini = ut_qp_fini,
	.cases = ut_verbs_qp_cases,
};
