/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/verbs unit tests: the fake drivers (ut_fake_driver.c) and the suites.
 *
 * ut_fake devices: port 1 is RoCE (Ethernet, 4 GIDs: fe80::1 and
 * ::ffff:10.0.0.1), port 2 (if ports=2) is InfiniBand. Limits below.
 */

#ifndef PV_TEST_UNIT_VERBS_UT_VERBS_H
#define PV_TEST_UNIT_VERBS_UT_VERBS_H

#include <errno.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

#include "pv_verbs.h"
#include "pv_verbs_driver.h"
#include "ut_common.h"

#define UT_MAX_QP_WR 1024
#define UT_MAX_SGE 4
#define UT_MAX_CQE 4096
#define UT_MAX_SRQ_WR 512
#define UT_MAX_SRQ_SGE 4
#define UT_MAX_RD_ATOM 16
#define UT_MAX_INLINE 128
#define UT_MAX_MR_SIZE (1ull << 30)
#define UT_GID_TBL_LEN 4
#define UT_COMP_VECTORS 2
#define UT_PROGRESS_RET 7
#define UT_SENT_MAX 64

/* What the fake drivers saw and how they should behave. */
struct ut_fake_state {
	int probe_calls;		/* ut_fake probe() calls */
	int probe_nb_devargs;		/* nb_devargs of the last one */
	int nodev_probe_calls;		/* ut_nodev probe() calls */
	int nodev_probe_nb_devargs;
	int modify_qp_calls;
	int modify_qp_ret;		/* what modify_qp returns (0 = success) */
	uint32_t odp_caps;		/* reported odp_general_caps */
	/* post_send: the last list seen, and what to return */
	int post_send_calls;
	int post_send_ret;
	int sent_nwr;
	struct pv_send_wr sent[UT_SENT_MAX];
	struct pv_sge sent_sge[UT_SENT_MAX];	/* first SGE of each */
	uint8_t sent_inline[UT_SENT_MAX][UT_MAX_INLINE];
	/* poll_cq: completions handed out in order */
	int poll_cq_calls;
	int nb_wc;
	int wc_next;
	struct pv_wc wc[64];
};

extern struct ut_fake_state ut_fake;

/** Open the fake device called @p name; NULL if absent or on error. */
struct pv_context *ut_fake_open(const char *name);

extern const struct ut_suite ut_suite_verbs_device;
extern const struct ut_suite ut_suite_verbs_ops;
extern const struct ut_suite ut_suite_verbs_mr;
extern const struct ut_suite ut_suite_verbs_cq;
extern const struct ut_suite ut_suite_verbs_qp;
extern const struct ut_suite ut_suite_verbs_qp_state;
extern const struct ut_suite ut_suite_verbs_async;
extern const struct ut_suite ut_suite_verbs_str;
extern const struct ut_suite ut_suite_verbs_ex;

/* Assert a pointer verb failed with @p err. */
#define UT_ASSERT_NULL_ERRNO(expr, err) do { \
	errno = 0; \
	CU_ASSERT_PTR_NULL(expr); \
	CU_ASSERT_EQUAL(errno, err); \
} while (0)

#endif /* PV_TEST_UNIT_VERBS_UT_VERBS_H */
