/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_ops: lib/verbs/verbs_ops.c (registration, EOPNOTSUPP stubs) */

#include <string.h>

#include "ut_verbs.h"

static int
ut_only_progress(struct pv_context *context __rte_unused)
{
	return 3;
}

static const struct pv_driver_ops ut_empty_ops;
static const struct pv_driver_ops ut_one_ops = {
	.progress = ut_only_progress,
};
static struct pv_driver ut_empty = { .name = "ut_empty", .ops = &ut_empty_ops };
static struct pv_driver ut_one = { .name = "ut_one", .ops = &ut_one_ops };
static struct pv_driver ut_dup = { .name = "ut_empty", .ops = &ut_one_ops };

/* Every op of an empty driver is a stub answering EOPNOTSUPP. */
static void
test_stubs_all_eopnotsupp(void)
{
	const struct pv_driver_ops *o;
	union pv_gid gid;
	pv_be16 pkey;
	char buf[8];

	pv_driver_register(&ut_empty);
	o = &ut_empty.ops_full;

	CU_ASSERT_EQUAL(o->probe(&ut_empty, NULL, 0), -EOPNOTSUPP);
	o->remove(NULL);
	UT_ASSERT_NULL_ERRNO(o->open_device(NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->close_device(NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_device(NULL, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_port(NULL, 1, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_gid(NULL, 1, 0, &gid), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_pkey(NULL, 1, 0, &pkey), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->alloc_pd(NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->dealloc_pd(NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->reg_mr(NULL, buf, sizeof(buf), 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->dereg_mr(NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->create_ah(NULL, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->destroy_ah(NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->create_cq(NULL, 1, NULL, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->resize_cq(NULL, 1), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->destroy_cq(NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->create_srq(NULL, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->modify_srq(NULL, NULL, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_srq(NULL, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->destroy_srq(NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->create_qp(NULL, NULL), EOPNOTSUPP);
	UT_ASSERT_NULL_ERRNO(o->create_gsi_qp(NULL, NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->modify_qp(NULL, NULL, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->query_qp(NULL, NULL, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->destroy_qp(NULL), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->attach_mcast(NULL, &gid, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->detach_mcast(NULL, &gid, 0), EOPNOTSUPP);
	CU_ASSERT_EQUAL(o->progress(NULL), -EOPNOTSUPP);
}

/* Ops a driver sets are kept; a second driver of the same name is ignored. */
static void
test_register_keeps_ops(void)
{
	pv_driver_register(&ut_one);
	CU_ASSERT_PTR_EQUAL(ut_one.ops_full.progress, ut_only_progress);
	CU_ASSERT_EQUAL(ut_one.ops_full.progress(NULL), 3);
	UT_ASSERT_NULL_ERRNO(ut_one.ops_full.alloc_pd(NULL), EOPNOTSUPP);

	pv_driver_register(&ut_dup);
	CU_ASSERT_PTR_NULL(ut_dup.ops_full.progress);
	pv_driver_register(NULL);
}

/* The fake driver leaves some ops unset: the verbs answer EOPNOTSUPP. */
static void
test_unset_ops_through_verbs(void)
{
	struct pv_context *ctx = ut_fake_open("ut_fake0");
	struct pv_qp_init_attr ia;
	struct pv_qp_attr attr;
	union pv_gid mgid;
	struct pv_pd *pd;
	struct pv_cq *cq;
	struct pv_qp *qp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	pd = pv_alloc_pd(ctx);
	cq = pv_create_cq(ctx, 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(pv_resize_cq(cq, 32), EOPNOTSUPP);

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PV_QPT_UD;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	qp = pv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_EQUAL(pv_query_qp(qp, &attr, PV_QP_STATE, &ia), EOPNOTSUPP);
	memset(&mgid, 0, sizeof(mgid));
	mgid.raw[0] = 0xff;
	CU_ASSERT_EQUAL(pv_attach_mcast(qp, &mgid, 0xc001), EOPNOTSUPP);
	CU_ASSERT_EQUAL(pv_detach_mcast(qp, &mgid, 0xc001), EOPNOTSUPP);

	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

static const struct ut_case ut_verbs_ops_cases[] = {
	{ "empty driver: every op EOPNOTSUPP", test_stubs_all_eopnotsupp },
	{ "register keeps set ops", test_register_keeps_ops },
	{ "unset ops via verbs", test_unset_ops_through_verbs },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_ops = {
	.name = "verbs_ops",
	.cases = ut_verbs_ops_cases,
};
