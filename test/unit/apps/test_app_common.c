/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite app_common: the helpers of apps/common (pv_app.h) that the
 * applications and tests share: the attributes of each QP transition per QP
 * type, the transition sequence and its errors through a modify hook, and
 * the EAL argument vector. No EAL, no device: the QPs are bare structs.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <CUnit/Basic.h>

#include "pv_app.h"
#include "ut_common.h"

#define UT_RC_RTR_MASK	(PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | \
			 PV_QP_RQ_PSN | PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER)
#define UT_RC_RTS_MASK	(PV_QP_STATE | PV_QP_SQ_PSN | PV_QP_TIMEOUT | PV_QP_RETRY_CNT | \
			 PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC)

static const struct pv_app_qp_peer ut_peer = {
	.qpn = 0x1234,
	.psn = 0xabcdef,
	.gid = { .raw = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 } },
	.lid = 7,
};

static void
ut_opts(struct pv_app_qp_opts *o)
{
	pv_app_qp_opts_init(o);
	o->port_num = 2;
	o->sgid_index = 1;
	o->mtu = PV_MTU_4096;
	o->access = PV_ACCESS_REMOTE_WRITE;
	o->sq_psn = 0x4321;
	o->max_rd_atomic = 4;
	o->max_dest_rd_atomic = 8;
}

static void
test_opts_defaults(void)
{
	struct pv_app_qp_opts o;

	memset(&o, 0xa5, sizeof(o));
	pv_app_qp_opts_init(&o);
	CU_ASSERT_PTR_NULL(o.name);
	CU_ASSERT_EQUAL(o.port_num, 1);
	CU_ASSERT_EQUAL(o.pkey_index, 0);
	CU_ASSERT_EQUAL(o.sgid_index, 0);
	CU_ASSERT_EQUAL(o.hop_limit, 64);
	CU_ASSERT_EQUAL(o.mtu, PV_MTU_1024);
	CU_ASSERT_EQUAL(o.access, 0);
	CU_ASSERT_EQUAL(o.qkey, 0x11111111);
	CU_ASSERT_EQUAL(o.timeout, 14);
	CU_ASSERT_EQUAL(o.retry_cnt, 7);
	CU_ASSERT_EQUAL(o.rnr_retry, 7);
	CU_ASSERT_EQUAL(o.min_rnr_timer, 12);
	CU_ASSERT_EQUAL(o.max_rd_atomic, 1);
	CU_ASSERT_EQUAL(o.max_dest_rd_atomic, 1);
	CU_ASSERT_PTR_NULL(o.modify);
}

static void
test_attr_rc(void)
{
	struct pv_qp qp = { .qp_type = PV_QPT_RC };
	struct pv_app_qp_peer lid_only = { .qpn = 5, .psn = 6, .lid = 9 };
	struct pv_app_qp_opts o;
	struct pv_qp_attr a;

	ut_opts(&o);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_INIT, &o, NULL, &a),
			PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS);
	CU_ASSERT_EQUAL(a.qp_state, PV_QPS_INIT);
	CU_ASSERT_EQUAL(a.port_num, 2);
	CU_ASSERT_EQUAL(a.qp_access_flags, PV_ACCESS_REMOTE_WRITE);

	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTR, &o, &ut_peer, &a), UT_RC_RTR_MASK);
	CU_ASSERT_EQUAL(a.qp_state, PV_QPS_RTR);
	CU_ASSERT_EQUAL(a.path_mtu, PV_MTU_4096);
	CU_ASSERT_EQUAL(a.dest_qp_num, 0x1234);
	CU_ASSERT_EQUAL(a.rq_psn, 0xabcdef);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 8);
	CU_ASSERT_EQUAL(a.min_rnr_timer, 12);
	CU_ASSERT_EQUAL(a.ah_attr.port_num, 2);
	CU_ASSERT_EQUAL(a.ah_attr.dlid, 7);
	CU_ASSERT_EQUAL(a.ah_attr.is_global, 1);
	CU_ASSERT_EQUAL(memcmp(&a.ah_attr.grh.dgid, &ut_peer.gid, sizeof(ut_peer.gid)), 0);
	CU_ASSERT_EQUAL(a.ah_attr.grh.sgid_index, 1);
	CU_ASSERT_EQUAL(a.ah_attr.grh.hop_limit, 64);
	/* no GID from the peer: no GRH (LID-routed InfiniBand) */
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTR, &o, &lid_only, &a), UT_RC_RTR_MASK);
	CU_ASSERT_EQUAL(a.ah_attr.is_global, 0);
	CU_ASSERT_EQUAL(a.ah_attr.dlid, 9);

	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTS, &o, NULL, &a), UT_RC_RTS_MASK);
	CU_ASSERT_EQUAL(a.qp_state, PV_QPS_RTS);
	CU_ASSERT_EQUAL(a.sq_psn, 0x4321);
	CU_ASSERT_EQUAL(a.timeout, 14);
	CU_ASSERT_EQUAL(a.retry_cnt, 7);
	CU_ASSERT_EQUAL(a.rnr_retry, 7);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 4);
}

/* UC: no RNR, no retries, no READ/atomic resources (IBTA table 91) */
static void
test_attr_uc(void)
{
	struct pv_qp qp = { .qp_type = PV_QPT_UC };
	struct pv_app_qp_opts o;
	struct pv_qp_attr a;

	ut_opts(&o);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_INIT, &o, NULL, &a),
			PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTR, &o, &ut_peer, &a),
			UT_RC_RTR_MASK & ~(PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER));
	CU_ASSERT_EQUAL(a.dest_qp_num, 0x1234);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 0);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTS, &o, NULL, &a),
			PV_QP_STATE | PV_QP_SQ_PSN);
	CU_ASSERT_EQUAL(a.sq_psn, 0x4321);
	CU_ASSERT_EQUAL(a.timeout, 0);
}

static void
test_attr_ud(void)
{
	struct pv_qp qp = { .qp_type = PV_QPT_UD };
	struct pv_app_qp_opts o;
	struct pv_qp_attr a;

	ut_opts(&o);
	o.qkey = 0x22222222;
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_INIT, &o, NULL, &a),
			PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY);
	CU_ASSERT_EQUAL(a.qkey, 0x22222222);
	CU_ASSERT_EQUAL(a.qp_access_flags, 0);
	/* a UD QP's peers come with each WR's AH: RTR needs none */
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTR, &o, NULL, &a), PV_QP_STATE);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&qp, PV_QPS_RTS, &o, NULL, &a),
			PV_QP_STATE | PV_QP_SQ_PSN);
	CU_ASSERT_EQUAL(a.sq_psn, 0x4321);
}

static void
test_attr_errors(void)
{
	struct pv_qp rc = { .qp_type = PV_QPT_RC }, xrc = { .qp_type = PV_QPT_XRC_SEND };
	struct pv_app_qp_opts o;
	struct pv_qp_attr a;

	pv_app_qp_opts_init(&o);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&rc, PV_QPS_RESET, &o, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&rc, PV_QPS_ERR, &o, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&rc, PV_QPS_RTR, &o, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(pv_app_qp_attr(&xrc, PV_QPS_INIT, &o, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(pv_app_qp_modify(&rc, PV_QPS_RTR, &o, NULL), -EINVAL);
}

/* what a modify hook saw */
struct ut_seen {
	int n;
	enum pv_qp_state state[4];
	int mask[4];
	int fail_at;		/* transition number that fails with EIO; -1: none */
};

static int
ut_modify_record(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask, void *arg)
{
	struct ut_seen *s = arg;

	(void)qp;
	if (s->n < 4) {
		s->state[s->n] = attr->qp_state;
		s->mask[s->n] = attr_mask;
	}
	return s->n++ == s->fail_at ? EIO : 0;
}

static void
test_connect_sequence(void)
{
	struct pv_qp qp = { .qp_type = PV_QPT_RC, .qp_num = 0x99 };
	struct ut_seen seen = { .fail_at = -1 };
	struct pv_app_qp_opts o;

	ut_opts(&o);
	o.name = "test_app_common";
	o.modify = ut_modify_record;
	o.modify_arg = &seen;
	CU_ASSERT_EQUAL(pv_app_qp_connect(&qp, &o, &ut_peer), 0);
	CU_ASSERT_EQUAL(seen.n, 3);
	CU_ASSERT_EQUAL(seen.state[0], PV_QPS_INIT);
	CU_ASSERT_EQUAL(seen.state[1], PV_QPS_RTR);
	CU_ASSERT_EQUAL(seen.state[2], PV_QPS_RTS);
	CU_ASSERT_EQUAL(seen.mask[1], UT_RC_RTR_MASK);
	CU_ASSERT_EQUAL(seen.mask[2], UT_RC_RTS_MASK);
	/* a failed RTR: its negated errno, RTS not tried (and RTR named on stderr) */
	memset(&seen, 0, sizeof(seen));
	seen.fail_at = 1;
	CU_ASSERT_EQUAL(pv_app_qp_connect(&qp, &o, &ut_peer), -EIO);
	CU_ASSERT_EQUAL(seen.n, 2);
	memset(&seen, 0, sizeof(seen));
	seen.fail_at = 0;
	CU_ASSERT_EQUAL(pv_app_qp_modify(&qp, PV_QPS_INIT, &o, NULL), -EIO);
}

static void
test_eal_vector(void)
{
	struct pv_app_eal e;
	char big[600];
	int i;

	pv_app_eal_init(&e, "prog");
	CU_ASSERT_EQUAL(e.argc, 1);
	CU_ASSERT_STRING_EQUAL(e.argv[0], "prog");
	CU_ASSERT_PTR_NULL(e.argv[1]);
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "-m"), 0);
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "%u", 256u), 0);
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "--file-prefix=%s_%d", "ut", 7), 0);
	CU_ASSERT_EQUAL(e.argc, 4);
	CU_ASSERT_STRING_EQUAL(e.argv[2], "256");
	CU_ASSERT_STRING_EQUAL(e.argv[3], "--file-prefix=ut_7");
	CU_ASSERT_PTR_NULL(e.argv[4]);
	/* string space: a too long argument is refused and leaves @p e as it was */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "%s", big), 0);
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "%s", big), -E2BIG);
	CU_ASSERT_EQUAL(e.argc, 5);
	CU_ASSERT_PTR_NULL(e.argv[5]);
	/* argument count */
	for (i = e.argc; i < PV_APP_EAL_MAX_ARGS; i++)
		CU_ASSERT_EQUAL(pv_app_eal_add(&e, "-v"), 0);
	CU_ASSERT_EQUAL(e.argc, PV_APP_EAL_MAX_ARGS);
	CU_ASSERT_EQUAL(pv_app_eal_add(&e, "-v"), -E2BIG);
	CU_ASSERT_PTR_NULL(e.argv[PV_APP_EAL_MAX_ARGS]);
}

static void
test_mtu_from_bytes(void)
{
	CU_ASSERT_EQUAL(pv_app_mtu_from_bytes(256), PV_MTU_256);
	CU_ASSERT_EQUAL(pv_app_mtu_from_bytes(1024), PV_MTU_1024);
	CU_ASSERT_EQUAL(pv_app_mtu_from_bytes(4096), PV_MTU_4096);
	CU_ASSERT_EQUAL(pv_app_mtu_from_bytes(1500), 0);
	CU_ASSERT_EQUAL(pv_app_mtu_from_bytes(0), 0);
}

static void
test_sock_wait(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/pv-ut-app-%d.sock", (int)getpid());
	unlink(sa.sun_path);
	CU_ASSERT_EQUAL(pv_app_sock_wait(sa.sun_path, 0), -ETIMEDOUT);
	CU_ASSERT_EQUAL(pv_app_sock_wait(sa.sun_path, 200), -ETIMEDOUT);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* bound is not enough: a stale socket file is bound too */
	CU_ASSERT_EQUAL(pv_app_sock_wait(sa.sun_path, 0), -ETIMEDOUT);
	CU_ASSERT_EQUAL_FATAL(listen(fd, 1), 0);
	CU_ASSERT_EQUAL(pv_app_sock_wait(sa.sun_path, 0), 0);
	close(fd);
	unlink(sa.sun_path);
}

static const struct ut_case ut_app_common_cases[] = {
	{ "qp opts defaults", test_opts_defaults },
	{ "rc attributes", test_attr_rc },
	{ "uc attributes", test_attr_uc },
	{ "ud attributes", test_attr_ud },
	{ "attribute errors", test_attr_errors },
	{ "connect sequence and failures", test_connect_sequence },
	{ "eal vector", test_eal_vector },
	{ "mtu from bytes", test_mtu_from_bytes },
	{ "socket wait", test_sock_wait },
	{ NULL, NULL },
};

static const struct ut_suite ut_app_common_suite = {
	.name = "app_common",
	.cases = ut_app_common_cases,
};

int
main(void)
{
	return ut_cunit_run_one(&ut_app_common_suite);
}
