/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of softroce memory regions (sroce_mr.c): key layout, remote
 * access checks (rkey, generation, PD, right, bounds, wrap-around) and local
 * SGE resolution.
 */

#include "sroce_mr.c"

#include <stdlib.h>

#include <CUnit/Basic.h>
#include "ut_common.h"

/* normally defined by sroce_dev.c, not linked here */
int pv_sroce_logtype;

static struct sroce_dev dev;
static struct sroce_ctx ctx = { .dev = &dev };

static void
test_remote_checks(void)
{
	static uint8_t buf[4096];
	struct pv_pd *pd1 = pv_sroce_pd_alloc(&ctx.ibctx), *pd2 = pv_sroce_pd_alloc(&ctx.ibctx);
	struct sroce_pd *p1 = sroce_pd(pd1), *p2 = sroce_pd(pd2);
	struct pv_mr *mr = pv_sroce_mr_reg(pd1, buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE |
					   PV_ACCESS_REMOTE_WRITE);
	uint64_t va = (uintptr_t)buf;
	uint32_t k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	k = mr->rkey;
	CU_ASSERT_EQUAL(mr->lkey, k);
	CU_ASSERT_NOT_EQUAL(k >> 8, 0);
	CU_ASSERT_PTR_EQUAL(pv_sroce_mr_remote(&dev, p1, k, va, 4096, PV_ACCESS_REMOTE_WRITE),
			    buf);
	CU_ASSERT_PTR_EQUAL(pv_sroce_mr_remote(&dev, p1, k, va + 4095, 1,
					       PV_ACCESS_REMOTE_WRITE), buf + 4095);
	/* bounds */
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, va + 1, 4096, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, va - 1, 2, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, UINT64_MAX - 2, 8,
					      PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, va + 4096, 1, PV_ACCESS_REMOTE_WRITE));
	/* right, PD, key */
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, va, 8, PV_ACCESS_REMOTE_READ));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p2, k, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k ^ 1, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0xffffff00, va, 8,
					      PV_ACCESS_REMOTE_WRITE));
	/* the key of a deregistered MR is dead */
	CU_ASSERT_EQUAL(pv_sroce_mr_dereg(mr), 0);
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, k, va, 8, PV_ACCESS_REMOTE_WRITE));
	pv_sroce_pd_dealloc(pd1);
	pv_sroce_pd_dealloc(pd2);
}

static void
test_local_sge(void)
{
	static uint8_t buf[100];
	struct pv_pd *pd = pv_sroce_pd_alloc(&ctx.ibctx);
	struct pv_mr *ro = pv_sroce_mr_reg(pd, buf, sizeof(buf), 0);
	struct pv_mr *rw = pv_sroce_mr_reg(pd, buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE);
	struct pv_sge sge = { (uintptr_t)buf + 10, 90, 0 };
	struct sroce_sge out;

	CU_ASSERT_NOT_EQUAL(ro->lkey, rw->lkey);
	sge.lkey = ro->lkey;
	CU_ASSERT_EQUAL(pv_sroce_mr_local(&dev, sroce_pd(pd), &sge, 0, &out), 0);
	CU_ASSERT_PTR_EQUAL(out.addr, buf + 10);
	CU_ASSERT_EQUAL(out.length, 90);
	CU_ASSERT_EQUAL(pv_sroce_mr_local(&dev, sroce_pd(pd), &sge, 1, &out), -EINVAL);
	sge.lkey = rw->lkey;
	CU_ASSERT_EQUAL(pv_sroce_mr_local(&dev, sroce_pd(pd), &sge, 1, &out), 0);
	sge.length = 91;
	CU_ASSERT_EQUAL(pv_sroce_mr_local(&dev, sroce_pd(pd), &sge, 1, &out), -EINVAL);
	sge.length = 0;		/* empty SGEs are never checked */
	sge.lkey = 12345;
	CU_ASSERT_EQUAL(pv_sroce_mr_local(&dev, sroce_pd(pd), &sge, 1, &out), 0);
	pv_sroce_mr_dereg(ro);
	pv_sroce_mr_dereg(rw);
	pv_sroce_pd_dealloc(pd);
}

static void
test_key_exhaustion(void)
{
	static uint8_t b;
	static struct pv_mr *mrs[SROCE_MAX_MR];
	struct pv_pd *pd = pv_sroce_pd_alloc(&ctx.ibctx);
	int i, n = 0;

	for (i = 0; i < SROCE_MAX_MR; i++) {
		mrs[i] = pv_sroce_mr_reg(pd, &b, 1, 0);
		if (mrs[i] == NULL)
			break;
		n++;
	}
	CU_ASSERT_EQUAL(n, SROCE_MAX_MR - 1);
	CU_ASSERT_EQUAL(errno, ENOMEM);
	CU_ASSERT_PTR_NULL(pv_sroce_mr_reg(pd, &b, 1, PV_ACCESS_ON_DEMAND));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	for (i = 0; i < n; i++)
		pv_sroce_mr_dereg(mrs[i]);
	CU_ASSERT_EQUAL(dev.nb_mr, 0);
	pv_sroce_pd_dealloc(pd);
}

static const struct ut_case ut_sroce_mr_cases[] = {
	{ "remote_checks", test_remote_checks },
	{ "local_sge", test_local_sge },
	{ "key_exhaustion", test_key_exhaustion },
	{ NULL, NULL },
};

static const struct ut_suite ut_sroce_mr_suite = { "sroce_mr", NULL, NULL, ut_sroce_mr_cases };

int
main(void)
{
	dev.mr_next = 1;
	dev.mr_gen = 1;
	return ut_cunit_run_one(&ut_sroce_mr_suite);
}
