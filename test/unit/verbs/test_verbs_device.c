/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_device: lib/verbs/verbs_device.c */

#include <string.h>

#include <rte_byteorder.h>

#include "ut_verbs.h"

static struct pv_device *
ut_find(struct pv_device **list, const char *name)
{
	for (; *list != NULL; list++)
		if (strcmp((*list)->name, name) == 0)
			return *list;
	return NULL;
}

static void
test_device_list_probes_once(void)
{
	struct pv_device **list, **list2;
	struct pv_device *d0, *d1;
	int n = -1, n2 = -1;

	list = pv_get_device_list(&n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT(n >= 2);
	CU_ASSERT_PTR_NULL(list[n]);
	d0 = ut_find(list, "ut_fake0");
	d1 = ut_find(list, "ut_fake1");
	CU_ASSERT_PTR_NOT_NULL(d0);
	CU_ASSERT_PTR_NOT_NULL(d1);
	/* one probe call with the three ut_fake devargs; the nameless is skipped */
	CU_ASSERT_EQUAL(ut_fake.probe_calls, 1);
	CU_ASSERT_EQUAL(ut_fake.probe_nb_devargs, 3);
	/* a driver named by no --pv-dev is probed too, with no devargs */
	CU_ASSERT_EQUAL(ut_fake.nodev_probe_calls, 1);
	CU_ASSERT_EQUAL(ut_fake.nodev_probe_nb_devargs, 0);

	list2 = pv_get_device_list(&n2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list2);
	CU_ASSERT_EQUAL(n2, n);
	CU_ASSERT_EQUAL(ut_fake.probe_calls, 1);
	CU_ASSERT_PTR_EQUAL(ut_find(list2, "ut_fake0"), d0);
	CU_ASSERT_PTR_NOT_EQUAL(list2, list);
	pv_free_device_list(list2);
	list2 = pv_get_device_list(NULL);
	CU_ASSERT_PTR_NOT_NULL(list2);
	pv_free_device_list(list2);

	CU_ASSERT_STRING_EQUAL(pv_get_device_name(d0), "ut_fake0");
	CU_ASSERT_PTR_NULL(pv_get_device_name(NULL));
	CU_ASSERT_EQUAL(pv_get_device_guid(d0), rte_cpu_to_be_64(0x0002c90300001000ull));
	CU_ASSERT_EQUAL(pv_get_device_guid(NULL), 0);
	CU_ASSERT_STRING_EQUAL(d0->driver->name, "ut_fake");
	pv_free_device_list(list);
	pv_free_device_list(NULL);
}

static void
test_device_add_errors(void)
{
	struct pv_device **list = pv_get_device_list(NULL);
	struct pv_device dup, empty;
	const struct pv_driver *drv;

	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	drv = ut_find(list, "ut_fake0")->driver;
	memset(&dup, 0, sizeof(dup));
	strcpy(dup.name, "ut_fake0");
	CU_ASSERT_EQUAL(pv_device_add(drv, &dup), -EEXIST);
	memset(&empty, 0, sizeof(empty));
	CU_ASSERT_EQUAL(pv_device_add(drv, &empty), -EINVAL);
	CU_ASSERT_EQUAL(pv_device_add(NULL, &dup), -EINVAL);
	CU_ASSERT_EQUAL(pv_device_add(drv, NULL), -EINVAL);
	pv_free_device_list(list);
}

static void
test_open_close(void)
{
	struct pv_context *ctx;
	struct pv_pd *pd;

	UT_ASSERT_NULL_ERRNO(pv_open_device(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_close_device(NULL), EINVAL);

	ctx = ut_fake_open("ut_fake0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_STRING_EQUAL(ctx->device->name, "ut_fake0");
	CU_ASSERT_EQUAL(ctx->usecnt, 0);
	CU_ASSERT_EQUAL(ctx->num_comp_vectors, UT_COMP_VECTORS);
	CU_ASSERT_EQUAL(ctx->cmd_fd, -1);
	CU_ASSERT(ctx->async_fd >= 0);

	pd = pv_alloc_pd(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_EQUAL(ctx->usecnt, 1);
	CU_ASSERT_EQUAL(pv_close_device(ctx), EBUSY);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(ctx->usecnt, 0);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

static void
test_query_device_port(void)
{
	struct pv_context *ctx = ut_fake_open("ut_fake0");
	struct pv_device_attr dattr;
	struct pv_port_attr pattr;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(pv_query_device(NULL, &dattr), EINVAL);
	CU_ASSERT_EQUAL(pv_query_device(ctx, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_query_device(ctx, &dattr), 0);
	CU_ASSERT_EQUAL(dattr.phys_port_cnt, 2);
	CU_ASSERT_EQUAL(dattr.max_qp_wr, UT_MAX_QP_WR);
	CU_ASSERT_STRING_EQUAL(dattr.fw_ver, "1.2.3");

	CU_ASSERT_EQUAL(pv_query_port(NULL, 1, &pattr), EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 1, NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 0, &pattr), EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 3, &pattr), EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 255, &pattr), EINVAL);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 1, &pattr), 0);
	CU_ASSERT_EQUAL(pattr.state, PV_PORT_ACTIVE);
	CU_ASSERT_EQUAL(pattr.link_layer, PV_LINK_LAYER_ETHERNET);
	CU_ASSERT_EQUAL(pv_query_port(ctx, 2, &pattr), 0);
	CU_ASSERT_EQUAL(pattr.link_layer, PV_LINK_LAYER_INFINIBAND);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

static void
test_query_gid_pkey(void)
{
	static const uint8_t gid1[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1,
	};
	struct pv_context *ctx = ut_fake_open("ut_fake0");
	union pv_gid gid;
	pv_be16 pkey = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 1, 1, &gid), 0);
	CU_ASSERT_EQUAL(memcmp(gid.raw, gid1, sizeof(gid1)), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 1, UT_GID_TBL_LEN - 1, &gid), 0);

	/* ibv_query_gid(3): -1 and errno */
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 1, UT_GID_TBL_LEN, &gid), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 1, -1, &gid), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 0, 0, &gid), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 3, 0, &gid), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(NULL, 1, 0, &gid), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_gid(ctx, 1, 0, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);

	CU_ASSERT_EQUAL(pv_query_pkey(ctx, 1, 0, &pkey), 0);
	CU_ASSERT_EQUAL(pkey, rte_cpu_to_be_16(0xffff));
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_pkey(ctx, 1, 1, &pkey), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_pkey(ctx, 0, 0, &pkey), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_pkey(NULL, 1, 0, &pkey), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_query_pkey(ctx, 1, 0, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

static void
test_progress_fork(void)
{
	struct pv_context *ctx = ut_fake_open("ut_fake1");

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(pv_progress(NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_progress(ctx), UT_PROGRESS_RET);
	CU_ASSERT_EQUAL(pv_fork_init(), 0);
	CU_ASSERT_EQUAL(pv_close_device(ctx), 0);
}

struct ut_kv {
	int n;
	char keys[4][16];
	char values[4][16];
	int stop_at;	/* return 99 on this pair (1-based), 0: never */
};

static int
ut_kv_cb(const char *key, const char *value, void *opaque)
{
	struct ut_kv *kv = opaque;

	if (kv->n < 4) {
		snprintf(kv->keys[kv->n], sizeof(kv->keys[0]), "%s", key);
		snprintf(kv->values[kv->n], sizeof(kv->values[0]), "%s", value);
	}
	kv->n++;
	return kv->n == kv->stop_at ? 99 : 0;
}

static void
test_devargs_parse(void)
{
	struct ut_kv kv;

	memset(&kv, 0, sizeof(kv));
	CU_ASSERT_EQUAL(pv_devargs_parse("port=net_memif0,ip=10.0.0.1,mac=", ut_kv_cb, &kv), 0);
	CU_ASSERT_EQUAL(kv.n, 3);
	CU_ASSERT_STRING_EQUAL(kv.keys[0], "port");
	CU_ASSERT_STRING_EQUAL(kv.values[0], "net_memif0");
	CU_ASSERT_STRING_EQUAL(kv.keys[1], "ip");
	CU_ASSERT_STRING_EQUAL(kv.values[1], "10.0.0.1");
	CU_ASSERT_STRING_EQUAL(kv.keys[2], "mac");
	CU_ASSERT_STRING_EQUAL(kv.values[2], "");

	memset(&kv, 0, sizeof(kv));
	CU_ASSERT_EQUAL(pv_devargs_parse("", ut_kv_cb, &kv), 0);
	CU_ASSERT_EQUAL(kv.n, 0);

	memset(&kv, 0, sizeof(kv));
	CU_ASSERT_EQUAL(pv_devargs_parse("a=1,b,c=3", ut_kv_cb, &kv), -EINVAL);
	CU_ASSERT_EQUAL(kv.n, 1);
	memset(&kv, 0, sizeof(kv));
	CU_ASSERT_EQUAL(pv_devargs_parse("=1", ut_kv_cb, &kv), -EINVAL);
	CU_ASSERT_EQUAL(kv.n, 0);

	memset(&kv, 0, sizeof(kv));
	kv.stop_at = 2;
	CU_ASSERT_EQUAL(pv_devargs_parse("a=1,b=2,c=3", ut_kv_cb, &kv), 99);
	CU_ASSERT_EQUAL(kv.n, 2);

	CU_ASSERT_EQUAL(pv_devargs_parse(NULL, ut_kv_cb, &kv), -EINVAL);
	CU_ASSERT_EQUAL(pv_devargs_parse("a=1", NULL, &kv), -EINVAL);
}

static const struct ut_case ut_verbs_device_cases[] = {
	{ "device list probes once", test_device_list_probes_once },
	{ "pv_device_add errors", test_device_add_errors },
	{ "open/close, EBUSY", test_open_close },
	{ "query device/port", test_query_device_port },
	{ "query gid/pkey", test_query_gid_pkey },
	{ "progress, fork_init", test_progress_fork },
	{ "devargs parse", test_devargs_parse },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_device = {
	.name = "verbs_device",
	.cases = ut_verbs_device_cases,
};
