/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * What every test suite shares (test/common, a static library): the CUnit
 * run from a table of suites, and registered buffers with guard canaries.
 * The QP bring-up is apps/common's (pv_app.h), shared with the applications.
 */

#ifndef PV_TEST_COMMON_UT_COMMON_H
#define PV_TEST_COMMON_UT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

#include "pv_verbs.h"

/* exit code of a test that cannot run here (meson: skipped) */
#define UT_EXIT_SKIP 77

/** One test of a suite. */
struct ut_case {
	const char *name;
	CU_TestFunc fn;
	int (*when)(void);	/* NULL, or registered only when it returns nonzero */
};

/** A CUnit suite: its set-up, tear-down and cases ({ NULL } terminated). */
struct ut_suite {
	const char *name;
	CU_InitializeFunc init;		/* NULL: none; nonzero return fails the suite */
	CU_CleanupFunc fini;		/* NULL: none */
	const struct ut_case *cases;
};

/**
 * Register @p suites, run them (verbose) and clean the registry up.
 *
 * @param suites  Array of @p n suites.
 * @return The process exit code: 0 when every assertion held, 1 when one
 *         failed, a test or a suite set-up failed, or CUnit could not
 *         register (said on stderr). A test that cannot run at all returns
 *         UT_EXIT_SKIP from main() before calling this.
 */
int ut_cunit_run(const struct ut_suite *const suites[], unsigned int n);

/** ut_cunit_run() of one suite. */
static inline int
ut_cunit_run_one(const struct ut_suite *suite)
{
	return ut_cunit_run(&suite, 1);
}

/**
 * pv_init() with the EAL options of every test: @p prog, --no-huge,
 * --no-pci, -m @p mem_mb, --file-prefix=@p prefix, --log-level=*:warning,
 * -l @p lcores, then the NULL-terminated strings that follow (--vdev,
 * --pv-dev, more --log-level). The strings are copied. Once per process.
 *
 * @return pv_init()'s, or -E2BIG past PV_APP_EAL_MAX_ARGS arguments.
 */
int ut_pv_init(const char *prog, unsigned int mem_mb, const char *prefix, const char *lcores,
	       ...) __attribute__((sentinel));

/**
 * @p gid_p = ::ffff:@p ip, the IPv4-mapped GID softroce lists at index 1.
 * @param ip  Dotted quad.
 * @return 0, or -EINVAL when @p ip is not one (@p gid_p untouched).
 */
int ut_gid_ipv4(const char *ip, union pv_gid *gid_p);

/**
 * @p a_p = a global address towards ut_gid_ipv4(@p ip): port 1, source GID
 * index 1, hop limit 64, the rest zero. @return ut_gid_ipv4()'s.
 */
int ut_ah_attr_ipv4(const char *ip, struct pv_ah_attr *a_p);

/** A buffer registered as one MR, with optional guard canaries around it. */
struct ut_buf {
	uint8_t *addr;		/* @p len bytes, 64-byte aligned; registered as @p mr */
	size_t len;
	struct pv_mr *mr;
	size_t canary_len;	/* guard bytes before and after addr, not registered */
	uint8_t *base;		/* the allocation: canary, buffer, canary */
};

/**
 * Allocate @p len bytes (zeroed, 64-byte aligned) with @p canary_len guard
 * bytes of a known pattern on each side, and register the @p len bytes on
 * @p pd with @p access. The canaries sit outside the MR: a device that
 * writes or a check that lets a write land past either end of the MR
 * changes them, which ut_buf_check_canaries() reports.
 *
 * @param canary_len  Guard bytes on each side; 0 for none, else rounded up
 *                    to a multiple of 64.
 * @return The buffer, or NULL (allocation or pv_reg_mr() failed; errno set).
 * Ownership: the caller's; release with ut_buf_free().
 */
struct ut_buf *ut_buf_alloc(struct pv_pd *pd, size_t len, unsigned int access,
			    size_t canary_len);

/**
 * Check both canaries of @p b; prints the first changed byte on stderr.
 * @return 0 when intact, else the number of bytes changed.
 */
size_t ut_buf_check_canaries(const struct ut_buf *b);

/**
 * Deregister and free @p b (NULL: nothing). Checks the canaries first.
 * @return ut_buf_check_canaries()'s, or 0 for NULL; a failed pv_dereg_mr()
 *         counts as 1 and is said on stderr.
 */
size_t ut_buf_free(struct ut_buf *b);

#endif /* PV_TEST_COMMON_UT_COMMON_H */
