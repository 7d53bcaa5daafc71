/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_mr: lib/verbs/verbs_mr.c (PD, MR, AH, AH from a completion) */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "ut_verbs.h"

static struct pv_context *ut_ctx;
static struct pv_pd *ut_pd;

static int
ut_mr_init(void)
{
	ut_ctx = ut_fake_open("ut_fake0");
	ut_pd = ut_ctx != NULL ? pv_alloc_pd(ut_ctx) : NULL;
	return ut_pd != NULL ? 0 : -1;
}

static int
ut_mr_fini(void)
{
	int ret = pv_dealloc_pd(ut_pd);

	return ret | pv_close_device(ut_ctx);
}

static void
test_pd(void)
{
	struct pv_pd *pd, *pd2;
	uint32_t before = ut_ctx->usecnt;

	UT_ASSERT_NULL_ERRNO(pv_alloc_pd(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_dealloc_pd(NULL), EINVAL);
	pd = pv_alloc_pd(ut_ctx);
	pd2 = pv_alloc_pd(ut_ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd2);
	CU_ASSERT_PTR_EQUAL(pd->context, ut_ctx);
	CU_ASSERT_NOT_EQUAL(pd->handle, pd2->handle);
	CU_ASSERT_EQUAL(pd->usecnt, 0);
	CU_ASSERT_EQUAL(ut_ctx->usecnt, before + 2);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd2), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(ut_ctx->usecnt, before);
}

/* ibv_alloc_td(3), ibv_alloc_parent_domain(3): errors, references, use as a PD */
static void
test_td_parent_domain(void)
{
	struct pv_td_init_attr tda = { .comp_mask = 0 };
	struct pv_parent_domain_init_attr pa;
	uint32_t before = ut_ctx->usecnt;
	struct pv_pd *pdom, *pdom2;
	struct pv_td *td;
	struct pv_mr *mr;
	char buf[64];

	UT_ASSERT_NULL_ERRNO(pv_alloc_td(NULL, &tda), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_alloc_td(ut_ctx, NULL), EINVAL);
	tda.comp_mask = 1;
	UT_ASSERT_NULL_ERRNO(pv_alloc_td(ut_ctx, &tda), EINVAL);
	tda.comp_mask = 0;
	td = pv_alloc_td(ut_ctx, &tda);
	CU_ASSERT_PTR_NOT_NULL_FATAL(td);
	CU_ASSERT_PTR_EQUAL(td->context, ut_ctx);
	CU_ASSERT_EQUAL(pv_dealloc_td(NULL), EINVAL);

	memset(&pa, 0, sizeof(pa));
	UT_ASSERT_NULL_ERRNO(pv_alloc_parent_domain(ut_ctx, NULL), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_alloc_parent_domain(ut_ctx, &pa), EINVAL);	/* no pd */
	pa.pd = ut_pd;
	pa.td = td;
	pa.comp_mask = 1u << 7;
	UT_ASSERT_NULL_ERRNO(pv_alloc_parent_domain(ut_ctx, &pa), EINVAL);
	pa.comp_mask = PV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;	/* without functions */
	UT_ASSERT_NULL_ERRNO(pv_alloc_parent_domain(ut_ctx, &pa), EINVAL);
	pa.comp_mask = PV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = buf;
	pdom = pv_alloc_parent_domain(ut_ctx, &pa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pdom);
	CU_ASSERT_PTR_EQUAL(pdom->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(pv_pd_base(pdom), ut_pd);
	CU_ASSERT_PTR_EQUAL(pv_pd_td(pdom), td);
	CU_ASSERT_PTR_EQUAL(pv_pd_base(ut_pd), ut_pd);
	/* a parent domain of a parent domain is refused */
	pa.pd = pdom;
	UT_ASSERT_NULL_ERRNO(pv_alloc_parent_domain(ut_ctx, &pa), EINVAL);
	pa.pd = ut_pd;
	pa.td = NULL;
	pdom2 = pv_alloc_parent_domain(ut_ctx, &pa);	/* no TD: allowed */
	CU_ASSERT_PTR_NOT_NULL_FATAL(pdom2);
	CU_ASSERT_PTR_NULL(pv_pd_td(pdom2));
	/* in use: the PD by its parent domains, the TD by one of them */
	CU_ASSERT_EQUAL(pv_dealloc_pd(ut_pd), EBUSY);
	CU_ASSERT_EQUAL(pv_dealloc_td(td), EBUSY);
	/* usable as a PD: an MR registered through it holds it */
	mr = pv_reg_mr(pdom, buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_PTR_EQUAL(mr->pd, pdom);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pdom), EBUSY);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pdom), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pdom2), 0);
	CU_ASSERT_EQUAL(pv_dealloc_td(td), 0);
	CU_ASSERT_EQUAL(ut_ctx->usecnt, before);
}

static void
test_reg_mr_args(void)
{
	char buf[64];
	struct pv_mr *mr;

	UT_ASSERT_NULL_ERRNO(pv_reg_mr(NULL, buf, sizeof(buf), 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, NULL, sizeof(buf), 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, 0, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, UT_MAX_MR_SIZE + 1, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_dereg_mr(NULL), EINVAL);

	mr = pv_reg_mr(ut_pd, buf + 1, 17, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_PTR_EQUAL(mr->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(mr->pd, ut_pd);
	CU_ASSERT_PTR_EQUAL(mr->addr, buf + 1);
	CU_ASSERT_EQUAL(mr->length, 17);
	CU_ASSERT_EQUAL(mr->access, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 1);
	CU_ASSERT_EQUAL(pv_dealloc_pd(ut_pd), EBUSY);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
}

/* Every combination of the four basic flags: remote write or atomic need
 * local write (ibv_reg_mr(3)). */
static void
test_reg_mr_access_matrix(void)
{
	static const int bits[] = {
		PV_ACCESS_LOCAL_WRITE, PV_ACCESS_REMOTE_WRITE,
		PV_ACCESS_REMOTE_READ, PV_ACCESS_REMOTE_ATOMIC,
	};
	char buf[64];
	int combo, i;

	for (combo = 0; combo < 16; combo++) {
		int access = 0;
		int bad;
		struct pv_mr *mr;

		for (i = 0; i < 4; i++)
			if (combo & (1 << i))
				access |= bits[i];
		bad = (access & (PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_ATOMIC)) &&
		      !(access & PV_ACCESS_LOCAL_WRITE);
		errno = 0;
		mr = pv_reg_mr(ut_pd, buf, sizeof(buf), access | PV_ACCESS_MW_BIND);
		if (bad) {
			CU_ASSERT_PTR_NULL(mr);
			CU_ASSERT_EQUAL(errno, EINVAL);
		} else {
			CU_ASSERT_PTR_NOT_NULL(mr);
			if (mr != NULL) {
				CU_ASSERT_EQUAL(mr->access, (unsigned int)(access |
							PV_ACCESS_MW_BIND));
				CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
			}
		}
	}
	/* flags libibverbs does not define */
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, sizeof(buf), 1 << 8), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, sizeof(buf), 1 << 30), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, sizeof(buf), -1), EINVAL);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);
}

static void
test_reg_mr_on_demand(void)
{
	struct pv_context *ctx;
	struct pv_pd *pd;
	struct pv_mr *mr;
	char buf[64];

	/* the fake device reports no ODP */
	UT_ASSERT_NULL_ERRNO(pv_reg_mr(ut_pd, buf, sizeof(buf),
				       PV_ACCESS_ON_DEMAND | PV_ACCESS_LOCAL_WRITE), EOPNOTSUPP);
	/* a device that reports PV_ODP_SUPPORT (attributes are read at open) */
	ut_fake.odp_caps = PV_ODP_SUPPORT;
	ctx = ut_fake_open("ut_fake1");
	ut_fake.odp_caps = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	pd = pv_alloc_pd(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	mr = pv_reg_mr(pd, buf, sizeof(buf), PV_ACCESS_ON_DEMAND | PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL(mr);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

static void
ut_roce_ah_attr(struct pv_ah_attr *a)
{
	CU_ASSERT_EQUAL_FATAL(ut_ah_attr_ipv4("10.0.0.2", a), 0);
}

static void
test_create_ah(void)
{
	struct pv_ah_attr a;
	struct pv_ah *ah;

	ut_roce_ah_attr(&a);
	UT_ASSERT_NULL_ERRNO(pv_create_ah(NULL, &a), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, NULL), EINVAL);
	a.port_num = 0;
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, &a), EINVAL);
	a.port_num = 3;
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, &a), EINVAL);
	ut_roce_ah_attr(&a);
	a.is_global = 0;	/* RoCE needs a GRH */
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, &a), EINVAL);
	ut_roce_ah_attr(&a);
	a.grh.sgid_index = UT_GID_TBL_LEN;
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, &a), EINVAL);
	ut_roce_ah_attr(&a);
	a.static_rate = 1;	/* no such rate */
	UT_ASSERT_NULL_ERRNO(pv_create_ah(ut_pd, &a), EINVAL);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);

	ut_roce_ah_attr(&a);
	a.static_rate = PV_RATE_25_GBPS;
	ah = pv_create_ah(ut_pd, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	CU_ASSERT_PTR_EQUAL(ah->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(ah->pd, ut_pd);
	CU_ASSERT_EQUAL(memcmp(&ah->attr, &a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 1);
	CU_ASSERT_EQUAL(pv_destroy_ah(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
	CU_ASSERT_EQUAL(ut_pd->usecnt, 0);

	/* the InfiniBand port needs no GRH */
	memset(&a, 0, sizeof(a));
	a.port_num = 2;
	a.dlid = 9;
	ah = pv_create_ah(ut_pd, &a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
}

/* A RoCE v2 IPv4 receive: 20 unused bytes, then the IPv4 header. */
static void
ut_grh_ipv4(struct pv_grh *grh, uint32_t src, uint32_t dst)
{
	struct rte_ipv4_hdr ip4;

	memset(grh, 0, sizeof(*grh));
	memset(&ip4, 0, sizeof(ip4));
	ip4.version_ihl = 0x45;
	ip4.type_of_service = 0x28;
	ip4.total_length = rte_cpu_to_be_16(20 + 8 + 12 + 4 + 4);
	ip4.time_to_live = 61;
	ip4.next_proto_id = IPPROTO_UDP;
	ip4.src_addr = rte_cpu_to_be_32(src);
	ip4.dst_addr = rte_cpu_to_be_32(dst);
	ip4.hdr_checksum = rte_ipv4_cksum(&ip4);
	memcpy((uint8_t *)grh + 20, &ip4, sizeof(ip4));
}

static void
test_init_ah_from_wc(void)
{
	static const uint8_t peer4[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2,
	};
	struct pv_ah_attr a;
	struct pv_grh grh;
	struct pv_wc wc;
	struct pv_ah *ah;

	memset(&wc, 0, sizeof(wc));
	wc.slid = 5;
	wc.sl = 3;
	/* RoCE: no GRH, no reply path */
	errno = 0;
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 1, &wc, &grh, &a), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(NULL, 1, &wc, &grh, &a), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 3, &wc, &grh, &a), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* IB port: LID routed */
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 2, &wc, NULL, &a), 0);
	CU_ASSERT_EQUAL(a.dlid, 5);
	CU_ASSERT_EQUAL(a.sl, 3);
	CU_ASSERT_EQUAL(a.port_num, 2);
	CU_ASSERT_EQUAL(a.is_global, 0);

	/* IPv4: sgid/dgid swapped, sgid_index found in the table */
	wc.wc_flags = PV_WC_GRH;
	ut_grh_ipv4(&grh, 0x0a000002, 0x0a000001);
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 1, &wc, &grh, &a), 0);
	CU_ASSERT_EQUAL(a.is_global, 1);
	CU_ASSERT_EQUAL(memcmp(a.grh.dgid.raw, peer4, 16), 0);
	CU_ASSERT_EQUAL(a.grh.sgid_index, 1);
	CU_ASSERT_EQUAL(a.grh.hop_limit, 61);
	CU_ASSERT_EQUAL(a.grh.traffic_class, 0x28);
	CU_ASSERT_EQUAL(a.port_num, 1);
	/* a destination that is not ours */
	ut_grh_ipv4(&grh, 0x0a000002, 0x0a000009);
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 1, &wc, &grh, &a), -1);
	/* multicast destination */
	ut_grh_ipv4(&grh, 0x0a000002, 0xe0000001);
	errno = 0;
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 1, &wc, &grh, &a), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	/* IPv6 GRH addressed to fe80::1 (GID 0) */
	memset(&grh, 0, sizeof(grh));
	grh.version_tclass_flow = rte_cpu_to_be_32((6u << 28) | (0x12u << 20) | 0xabcde);
	grh.next_hdr = IPPROTO_UDP;
	grh.hop_limit = 9;
	grh.dgid.raw[0] = 0xfe;
	grh.dgid.raw[1] = 0x80;
	grh.dgid.raw[15] = 1;
	grh.sgid.raw[0] = 0xfe;
	grh.sgid.raw[1] = 0x80;
	grh.sgid.raw[15] = 2;
	CU_ASSERT_EQUAL(pv_init_ah_from_wc(ut_ctx, 1, &wc, &grh, &a), 0);
	CU_ASSERT_EQUAL(memcmp(&a.grh.dgid, &grh.sgid, 16), 0);
	CU_ASSERT_EQUAL(a.grh.sgid_index, 0);
	CU_ASSERT_EQUAL(a.grh.flow_label, 0xabcde);
	CU_ASSERT_EQUAL(a.grh.traffic_class, 0x12);
	CU_ASSERT_EQUAL(a.grh.hop_limit, 9);

	ah = pv_create_ah_from_wc(ut_pd, &wc, &grh, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	CU_ASSERT_EQUAL(ah->attr.grh.sgid_index, 0);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah), 0);
	UT_ASSERT_NULL_ERRNO(pv_create_ah_from_wc(NULL, &wc, &grh, 1), EINVAL);
	wc.wc_flags = 0;
	UT_ASSERT_NULL_ERRNO(pv_create_ah_from_wc(ut_pd, &wc, &grh, 1), EINVAL);
}

/*
 * test/common's registered buffers: the MR covers the buffer only, and a
 * byte changed on either side of it is reported by the canary check and
 * by the free (the security tests rely on both).
 */
static void
test_ut_buf_canaries(void)
{
	struct ut_buf *b = ut_buf_alloc(ut_pd, 100, PV_ACCESS_LOCAL_WRITE, 10);
	uint8_t saved;

	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL(b->len, 100);
	CU_ASSERT_EQUAL(b->canary_len, 64);	/* rounded up to 64 */
	CU_ASSERT_EQUAL((uintptr_t)b->addr % 64, 0);
	CU_ASSERT_PTR_EQUAL(b->mr->addr, b->addr);
	CU_ASSERT_EQUAL(b->mr->length, 100);
	CU_ASSERT_EQUAL(ut_buf_check_canaries(b), 0);
	memset(b->addr, 0xff, b->len);		/* the buffer itself is free to change */
	CU_ASSERT_EQUAL(ut_buf_check_canaries(b), 0);
	saved = b->addr[b->len];
	b->addr[b->len] ^= 1;			/* one byte past the end */
	CU_ASSERT_EQUAL(ut_buf_check_canaries(b), 1);
	b->addr[b->len] = saved;
	saved = b->addr[-64];
	b->addr[-64] ^= 0x80;			/* the first byte of the leading canary */
	b->addr[-1] ^= 0x80;			/* and the last */
	CU_ASSERT_EQUAL(ut_buf_check_canaries(b), 2);
	b->addr[-64] = saved;
	CU_ASSERT_EQUAL(ut_buf_free(b), 1);	/* still one changed byte */
	CU_ASSERT_EQUAL(ut_buf_free(NULL), 0);

	b = ut_buf_alloc(ut_pd, 0x1000, PV_ACCESS_LOCAL_WRITE, 0);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_EQUAL(b->canary_len, 0);
	CU_ASSERT_EQUAL(ut_buf_free(b), 0);
	/* pv_reg_mr()'s refusal comes back as NULL and its errno */
	errno = 0;
	CU_ASSERT_PTR_NULL(ut_buf_alloc(ut_pd, 64, PV_ACCESS_REMOTE_WRITE, 64));
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static const struct ut_case ut_verbs_mr_cases[] = {
	{ "alloc/dealloc pd", test_pd },
	{ "thread and parent domains", test_td_parent_domain },
	{ "reg_mr arguments", test_reg_mr_args },
	{ "reg_mr access matrix", test_reg_mr_access_matrix },
	{ "reg_mr on demand", test_reg_mr_on_demand },
	{ "create/destroy ah", test_create_ah },
	{ "init_ah_from_wc", test_init_ah_from_wc },
	{ "ut_buf canaries", test_ut_buf_canaries },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_mr = {
	.name = "verbs_mr",
	.init = ut_mr_init,
	.fini = ut_mr_fini,
	.cases = ut_verbs_mr_cases,
};
