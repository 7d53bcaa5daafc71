/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of softroce memory regions (sroce_mr.c): key layout and
 * randomness, table limits, remote access checks (rkey, PD, right, bounds,
 * wrap-around) and local SGE resolution.
 */

#include "sroce_mr.c"

#include <stdlib.h>

#include <CUnit/Basic.h>
#include "ut_common.h"

/* normally defined by sroce_dev.c, not linked here */
int pv_sroce_logtype;

#define UT_MAX_MR 4095		/* dev: 4096 slots, 20 random key bits */
#define UT_SAME_SLOT_REGS 10000
#define UT_MANY_MRS 70000

static struct sroce_dev dev;
static struct sroce_ctx ctx = { .dev = &dev };

static int
ut_key_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* distinct values among @p n keys (sorts them) */
static uint32_t
ut_keys_distinct(uint32_t *keys, uint32_t n)
{
	uint32_t i, d = n > 0;

	qsort(keys, n, sizeof(*keys), ut_key_cmp);
	for (i = 1; i < n; i++)
		d += keys[i] != keys[i - 1];
	return d;
}

/* a device of one MR slot: every registration reuses slot 1, 31 random bits */
static void
test_key_same_slot_random(void)
{
	static uint32_t keys[UT_SAME_SLOT_REGS];
	static uint8_t buf[64];
	struct sroce_dev one = { 0 };
	struct sroce_ctx c1 = { .dev = &one };
	struct pv_pd *pd;
	uint32_t i, repeats = 0;

	CU_ASSERT_EQUAL_FATAL(pv_sroce_tables_init(&one, 1, 1), 0);
	CU_ASSERT_EQUAL(one.mr_mask, 1);
	pd = pv_sroce_pd_alloc(&c1.ibctx);
	for (i = 0; i < UT_SAME_SLOT_REGS; i++) {
		struct pv_mr *mr = pv_sroce_mr_reg(pd, buf, sizeof(buf), PV_ACCESS_REMOTE_READ);

		CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
		keys[i] = mr->rkey;
		CU_ASSERT_EQUAL(mr->rkey & one.mr_mask, 1);
		/* a re-registered slot never gets its previous key back */
		if (i > 0 && keys[i] == keys[i - 1])
			repeats++;
		/* max_mr is 1: no second MR while this one lives */
		CU_ASSERT_PTR_NULL(pv_sroce_mr_reg(pd, buf, sizeof(buf), 0));
		CU_ASSERT_EQUAL(pv_sroce_mr_dereg(mr), 0);
		/* the dead key opens nothing */
		CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&one, sroce_pd(pd), 0, keys[i],
						      (uintptr_t)buf, 8, PV_ACCESS_REMOTE_READ));
	}
	CU_ASSERT_EQUAL(repeats, 0);
	/* 31 random bits: 10,000 draws collide about 0.02 times on average */
	CU_ASSERT(ut_keys_distinct(keys, UT_SAME_SLOT_REGS) >= UT_SAME_SLOT_REGS - 2);
	pv_sroce_pd_dealloc(pd);
	pv_sroce_tables_fini(&one);
}

/*
 * 70,000 live MRs on a device of the default size: every key distinct, each
 * opens its MR, the key with any one random bit flipped opens nothing.
 */
static void
test_key_many_live(void)
{
	static struct pv_mr *mrs[UT_MANY_MRS];
	static uint32_t keys[UT_MANY_MRS];
	static uint8_t buf[64];
	struct sroce_dev big = { 0 };
	struct sroce_ctx cb = { .dev = &big };
	struct sroce_pd *p;
	struct pv_pd *pd;
	uint32_t i, bits, flip_ok = 0, rng = 12345;

	CU_ASSERT_EQUAL_FATAL(pv_sroce_tables_init(&big, SROCE_MAX_QP, SROCE_MAX_MR), 0);
	CU_ASSERT(big.max_mr >= 1000000);
	CU_ASSERT(big.max_qp >= 65536);
	bits = 32 - __builtin_popcount(big.mr_mask);
	CU_ASSERT_EQUAL(bits, 12);
	pd = pv_sroce_pd_alloc(&cb.ibctx);
	p = sroce_pd(pd);
	for (i = 0; i < UT_MANY_MRS; i++) {
		mrs[i] = pv_sroce_mr_reg(pd, buf, sizeof(buf), PV_ACCESS_REMOTE_WRITE);
		CU_ASSERT_PTR_NOT_NULL_FATAL(mrs[i]);
		keys[i] = mrs[i]->rkey;
	}
	CU_ASSERT_EQUAL(big.nb_mr, UT_MANY_MRS);
	for (i = 0; i < UT_MANY_MRS; i++) {
		uint32_t k = mrs[i]->rkey, bad;

		rng = rng * 1103515245u + 12345u;
		bad = k ^ (1u << (32 - bits + (rng >> 8) % bits));
		if (pv_sroce_mr_remote(&big, p, 0, k, (uintptr_t)buf, 8,
				       PV_ACCESS_REMOTE_WRITE) == buf &&
		    pv_sroce_mr_remote(&big, p, 0, bad, (uintptr_t)buf, 8,
				       PV_ACCESS_REMOTE_WRITE) == NULL)
			flip_ok++;
	}
	CU_ASSERT_EQUAL(flip_ok, UT_MANY_MRS);
	/* no two live keys are equal (their slots differ) */
	CU_ASSERT_EQUAL(ut_keys_distinct(keys, UT_MANY_MRS), UT_MANY_MRS);
	for (i = 0; i < UT_MANY_MRS; i++)
		pv_sroce_mr_dereg(mrs[i]);
	CU_ASSERT_EQUAL(big.nb_mr, 0);
	pv_sroce_pd_dealloc(pd);
	pv_sroce_tables_fini(&big);
}

static void
test_table_limits(void)
{
	struct sroce_dev d = { 0 };

	CU_ASSERT_EQUAL(pv_sroce_tables_init(&d, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_tables_init(&d, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_tables_init(&d, SROCE_MAX_QP + 1, 1), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_tables_init(&d, 1, SROCE_MAX_MR + 1), -EINVAL);
	CU_ASSERT_EQUAL(pv_sroce_tables_init(&d, 300, 4095), 0);
	CU_ASSERT_EQUAL(d.max_qp, 300);
	CU_ASSERT_EQUAL(d.mr_mask, 4095);
	pv_sroce_tables_fini(&d);
	pv_sroce_tables_fini(&d);	/* idempotent */
	CU_ASSERT_PTR_NULL(d.mr_dir);
}

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
	CU_ASSERT_NOT_EQUAL(k & dev.mr_mask, 0);
	CU_ASSERT_PTR_EQUAL(pv_sroce_mr_remote(&dev, p1, 0, k, va, 4096, PV_ACCESS_REMOTE_WRITE),
			    buf);
	CU_ASSERT_PTR_EQUAL(pv_sroce_mr_remote(&dev, p1, 0, k, va + 4095, 1,
					       PV_ACCESS_REMOTE_WRITE), buf + 4095);
	/* bounds */
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, va + 1, 4096, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, va - 1, 2, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, UINT64_MAX - 2, 8,
					      PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, va + 4096, 1, PV_ACCESS_REMOTE_WRITE));
	/* right, PD, key */
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, va, 8, PV_ACCESS_REMOTE_READ));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p2, 0, k, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k ^ 1, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, 0, va, 8, PV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, 0xffffff00, va, 8,
					      PV_ACCESS_REMOTE_WRITE));
	/* the key of a deregistered MR is dead */
	CU_ASSERT_EQUAL(pv_sroce_mr_dereg(mr), 0);
	CU_ASSERT_PTR_NULL(pv_sroce_mr_remote(&dev, p1, 0, k, va, 8, PV_ACCESS_REMOTE_WRITE));
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
	static struct pv_mr *mrs[UT_MAX_MR + 1];
	struct pv_pd *pd = pv_sroce_pd_alloc(&ctx.ibctx);
	int i, n = 0;

	for (i = 0; i < UT_MAX_MR + 1; i++) {
		mrs[i] = pv_sroce_mr_reg(pd, &b, 1, 0);
		if (mrs[i] == NULL)
			break;
		n++;
	}
	CU_ASSERT_EQUAL(n, UT_MAX_MR);
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
	{ "key_same_slot_random", test_key_same_slot_random },
	{ "key_many_live", test_key_many_live },
	{ "table_limits", test_table_limits },
	{ NULL, NULL },
};

static const struct ut_suite ut_sroce_mr_suite = { "sroce_mr", NULL, NULL, ut_sroce_mr_cases };

int
main(void)
{
	int fails;

	if (pv_sroce_tables_init(&dev, 16, UT_MAX_MR) != 0)
		return 1;
	fails = ut_cunit_run_one(&ut_sroce_mr_suite);
	pv_sroce_tables_fini(&dev);
	return fails;
}
