/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite rtc_init: option extraction, argv permutation, the memlock decision,
 * cleanup hooks, pv_init()/pv_cleanup() once each (one EAL per process),
 * EAL's interrupt thread parked by pv_cleanup() before the hooks.
 */

#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rtc_init.c"

#include "ut_rtc.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void
test_args_split(void)
{
	char *argv[] = {
		"prog", "--pv-dev=softroce:port=0,mtu=1024", "-l", "0", "--pv-dev", "mlx5",
		"-m", "128", "--", "--pv-dev=app", "x",
	};
	struct rtc_args a;

	CU_ASSERT_EQUAL_FATAL(rtc_args_parse(ARRAY_LEN(argv), argv, &a), 0);
	CU_ASSERT_EQUAL(a.nb_devargs, 2);
	CU_ASSERT_STRING_EQUAL(a.devargs[0], "softroce:port=0,mtu=1024");
	CU_ASSERT_STRING_EQUAL(a.devargs[1], "mlx5");
	CU_ASSERT_EQUAL(a.eal_argc, 8);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[0], argv[0]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[1], argv[2]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[2], argv[3]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[3], argv[6]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[4], argv[7]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[5], argv[8]);
	/* after "--" nothing is pollverbs' */
	CU_ASSERT_PTR_EQUAL(a.eal_argv[6], argv[9]);
	CU_ASSERT_PTR_EQUAL(a.eal_argv[7], argv[10]);
	CU_ASSERT_PTR_NULL(a.eal_argv[8]);
	CU_ASSERT_EQUAL(a.mem_bytes, 128ULL << 20);
	CU_ASSERT_FALSE(a.no_huge);
	rtc_args_free(&a);
}

static void
test_args_bad(void)
{
	char *bad[][3] = {
		{ "prog", "--pv-dev", NULL },		/* value missing */
		{ "prog", "--pv-dev=", NULL },		/* empty */
		{ "prog", "--pv-dev=:a=1", NULL },	/* no driver */
		{ "prog", "--pv-dev", "--no-huge" },	/* option is no driver */
		{ "prog", "--pv-devx=a", NULL },	/* unknown */
		{ "prog", "--pv-foo", NULL },		/* unknown */
	};
	struct rtc_args a;
	int i;

	for (i = 0; i < ARRAY_LEN(bad); i++) {
		int argc = bad[i][2] == NULL ? 2 : 3;

		CU_ASSERT_EQUAL(rtc_args_parse(argc, bad[i], &a), -EINVAL);
		CU_ASSERT_PTR_NULL(a.eal_argv);
		CU_ASSERT_PTR_NULL(a.devargs);
	}
	CU_ASSERT_EQUAL(rtc_args_parse(0, bad[0], &a), -EINVAL);
}

static void
test_args_memory(void)
{
	struct {
		char *argv[4];
		int argc;
		uint64_t mem_mb;
		bool no_huge;
		bool want_huge;
	} c[] = {
		{ { "p", "-m", "256" }, 3, 256, false, false },
		{ { "p", "-m96" }, 2, 96, false, false },
		{ { "p", "--socket-mem=100,28" }, 2, 128, false, true },
		{ { "p", "--socket-mem", "64,0,0" }, 3, 64, false, true },
		{ { "p", "--no-huge", "-m", "32" }, 4, 32, true, false },
		{ { "p", "--proc-type=secondary" }, 2, 0, false, true },
		{ { "p", "-l", "0" }, 3, 0, false, false },
	};
	struct rtc_args a;
	int i;

	for (i = 0; i < ARRAY_LEN(c); i++) {
		CU_ASSERT_EQUAL_FATAL(rtc_args_parse(c[i].argc, c[i].argv, &a), 0);
		CU_ASSERT_EQUAL(a.mem_bytes, c[i].mem_mb << 20);
		CU_ASSERT_EQUAL(a.no_huge, c[i].no_huge);
		CU_ASSERT_EQUAL(a.want_huge, c[i].want_huge);
		CU_ASSERT_EQUAL(a.eal_argc, c[i].argc);
		rtc_args_free(&a);
	}
	/* --no-huge goes right after the program name */
	CU_ASSERT_EQUAL_FATAL(rtc_args_parse(c[0].argc, c[0].argv, &a), 0);
	rtc_args_add_no_huge(&a);
	CU_ASSERT_EQUAL(a.eal_argc, 4);
	CU_ASSERT_STRING_EQUAL(a.eal_argv[1], "--no-huge");
	CU_ASSERT_STRING_EQUAL(a.eal_argv[2], "-m");
	CU_ASSERT_STRING_EQUAL(a.eal_argv[3], "256");
	CU_ASSERT_PTR_NULL(a.eal_argv[4]);
	CU_ASSERT_TRUE(a.no_huge);
	rtc_args_free(&a);
}

/* EAL's result simulated: it permuted and consumed, we map back. */
static void
test_args_permute(void)
{
	char *argv[] = { "prog", "-l", "app1", "0", "--pv-dev=x", "--", "app2" };
	char *orig[ARRAY_LEN(argv)];
	struct rtc_args a;
	int ret;

	memcpy(orig, argv, sizeof(argv));
	CU_ASSERT_EQUAL_FATAL(rtc_args_parse(ARRAY_LEN(argv), argv, &a), 0);
	CU_ASSERT_EQUAL_FATAL(a.eal_argc, 6);
	/* what GNU getopt + EAL make of "prog -l app1 0 -- app2": -l takes
	 * app1 as its value, 0 is a non-option moved behind "--", which becomes
	 * the program name
	 */
	a.eal_argv[0] = orig[0];
	a.eal_argv[1] = orig[1];
	a.eal_argv[2] = orig[2];
	a.eal_argv[3] = orig[0];
	a.eal_argv[4] = orig[3];
	a.eal_argv[5] = orig[6];
	ret = rtc_args_permute(ARRAY_LEN(argv), argv, &a, 3);
	CU_ASSERT_EQUAL(ret, 4);
	CU_ASSERT_PTR_EQUAL(argv[0], orig[0]);
	CU_ASSERT_PTR_EQUAL(argv[ret], orig[0]);
	CU_ASSERT_PTR_EQUAL(argv[ret + 1], orig[3]);
	CU_ASSERT_PTR_EQUAL(argv[ret + 2], orig[6]);
	/* consumed ones keep their relative order */
	CU_ASSERT_PTR_EQUAL(argv[1], orig[1]);
	CU_ASSERT_PTR_EQUAL(argv[2], orig[2]);
	CU_ASSERT_PTR_EQUAL(argv[3], orig[4]);
	rtc_args_free(&a);
}

static void
test_memlock_verdict(void)
{
	struct rlimit rl = { .rlim_cur = 8192 << 10, .rlim_max = RLIM_INFINITY };
	uint64_t need = 64ULL << 20;

	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, need), RTC_MEMLOCK_WARN);
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 1, need), RTC_MEMLOCK_OK_CAP);
	rl.rlim_cur = need - 1;
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, need), RTC_MEMLOCK_WARN);
	rl.rlim_cur = need;
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, need), RTC_MEMLOCK_OK);
	rl.rlim_cur = RLIM_INFINITY;
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, need), RTC_MEMLOCK_OK);
	rl.rlim_cur = 0;
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, 0), RTC_MEMLOCK_OK);
	CU_ASSERT_EQUAL(rtc_memlock_verdict(&rl, 0, 1), RTC_MEMLOCK_WARN);
}

static rlim_t ut_rlim_cur;
static int ut_rlim_err;
static int ut_cap;

static int
ut_rlimit_get(struct rlimit *rl)
{
	if (ut_rlim_err != 0)
		return -ut_rlim_err;
	rl->rlim_cur = ut_rlim_cur;
	rl->rlim_max = RLIM_INFINITY;
	return 0;
}

static int
ut_cap_ipc_lock(void)
{
	return ut_cap;
}

static void
test_memlock_check(void)
{
	struct rlimit rl;
	int ret;

	rtc_rlimit_get = ut_rlimit_get;
	rtc_cap_ipc_lock = ut_cap_ipc_lock;

	ut_rlim_cur = 64 << 10;		/* the usual 64 KiB default */
	ut_cap = 0;
	CU_ASSERT_EQUAL(rtc_memlock_check(256ULL << 20), RTC_MEMLOCK_WARN);
	ut_cap = 1;
	CU_ASSERT_EQUAL(rtc_memlock_check(256ULL << 20), RTC_MEMLOCK_OK_CAP);
	ut_cap = 0;
	ut_rlim_cur = RLIM_INFINITY;
	CU_ASSERT_EQUAL(rtc_memlock_check(256ULL << 20), RTC_MEMLOCK_OK);
	ut_rlim_err = EPERM;
	CU_ASSERT_EQUAL(rtc_memlock_check(256ULL << 20), RTC_MEMLOCK_UNKNOWN);
	ut_rlim_err = 0;

	/* the real ones answer; a non-root process never has the capability */
	ret = rtc_cap_ipc_lock_sys();
	CU_ASSERT(ret == 0 || ret == 1);
	if (geteuid() != 0)
		CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(rtc_rlimit_get_sys(&rl) == 0);
}

static unsigned int ut_hook_calls;
static unsigned int ut_hook_order[3];
static int ut_hook_saw_parked;	/* a hook ran after the interrupt thread parked */

static void
ut_hook_a(void)
{
	ut_hook_order[ut_hook_calls++ % 3] = 'a';
}

static void
ut_hook_b(void)
{
	ut_hook_order[ut_hook_calls++ % 3] = 'b';
	ut_hook_saw_parked = __atomic_load_n(&rtc_intr_parked, __ATOMIC_ACQUIRE);
}

static void
ut_hook_nop(void)
{
}

static void
ut_hook_nop_msg(void *arg)
{
	RTE_SET_USED(arg);
}

static void
test_cleanup_hook_add(void)
{
	unsigned int i;

	CU_ASSERT_EQUAL(pv_rtc_cleanup_hook_add(NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_cleanup_hook_add(ut_hook_a), 0);
	CU_ASSERT_EQUAL(pv_rtc_cleanup_hook_add(ut_hook_b), 0);
	for (i = 2; i < PV_RTC_MAX_CLEANUP_HOOKS; i++)
		CU_ASSERT_EQUAL(pv_rtc_cleanup_hook_add(ut_hook_nop), 0);
	CU_ASSERT_EQUAL(pv_rtc_cleanup_hook_add(ut_hook_nop), -ENOSPC);
	/* keep a and b only, the test of pv_cleanup() checks their order */
	rtc_nb_hooks = 2;
}

static void
test_init_bad_option(void)
{
	char *argv[] = { "prog", "--no-huge", "--pv-bogus" };

	CU_ASSERT_EQUAL(pv_init(ARRAY_LEN(argv), argv), -EINVAL);
	/* nothing was initialised: a correct pv_init() still works */
	CU_ASSERT_EQUAL(rtc_state, RTC_STATE_NONE);
	CU_ASSERT_EQUAL(pv_cleanup(), -EINVAL);
}

static char ut_log[1 << 16];

static void
test_init(void)
{
	/* app args before and after "--", pollverbs options on both sides of
	 * EAL's; "--pv-dev" after "--" is the application's
	 */
	char *argv[] = {
		"prog", "--pv-dev=softroce:ifname=ring0", "appA", "--no-huge", "--no-pci",
		"-m", "64", "--file-prefix=ut_rtc_init", "-l", "0", "--pv-dev", "mlx5",
		"--", "app1", "--pv-dev=mine", "-x",
	};
	char *orig[ARRAY_LEN(argv)];
	const char *const *devargs;
	FILE *log;
	int nb = -1;
	int ret;

	memcpy(orig, argv, sizeof(argv));
	devargs = pv_rtc_devargs(&nb);
	CU_ASSERT_PTR_NULL(devargs);
	CU_ASSERT_EQUAL(nb, 0);

	/* pretend a low limit and no capability: the warning must say the fix */
	rtc_rlimit_get = ut_rlimit_get;
	rtc_cap_ipc_lock = ut_cap_ipc_lock;
	ut_rlim_cur = 64 << 10;
	ut_cap = 0;
	log = fmemopen(ut_log, sizeof(ut_log) - 1, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	rte_openlog_stream(log);

	ret = pv_init(ARRAY_LEN(argv), argv);

	rte_openlog_stream(NULL);
	fclose(log);
	rtc_rlimit_get = rtc_rlimit_get_sys;
	rtc_cap_ipc_lock = rtc_cap_ipc_lock_sys;
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log, "RLIMIT_MEMLOCK is 64 KiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log, "ulimit -l unlimited"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log, "memlock unlimited"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log, "LimitMEMLOCK=infinity"));

	CU_ASSERT_EQUAL_FATAL(ret, ARRAY_LEN(argv) - 5);
	/* rte_eal_init()'s convention: argv[ret] is the program name */
	CU_ASSERT_STRING_EQUAL(argv[ret], "prog");
	CU_ASSERT_PTR_EQUAL(argv[ret + 1], orig[2]);	/* appA */
	CU_ASSERT_PTR_EQUAL(argv[ret + 2], orig[13]);	/* app1 */
	CU_ASSERT_PTR_EQUAL(argv[ret + 3], orig[14]);	/* --pv-dev=mine */
	CU_ASSERT_PTR_EQUAL(argv[ret + 4], orig[15]);	/* -x */
	CU_ASSERT_PTR_EQUAL(argv[0], orig[0]);

	devargs = pv_rtc_devargs(&nb);
	CU_ASSERT_EQUAL_FATAL(nb, 2);
	CU_ASSERT_STRING_EQUAL(devargs[0], "softroce:ifname=ring0");
	CU_ASSERT_STRING_EQUAL(devargs[1], "mlx5");

	CU_ASSERT_FALSE(rte_eal_has_hugepages());
	CU_ASSERT_EQUAL(rte_lcore_count(), 1);
	CU_ASSERT_EQUAL(pv_init(ARRAY_LEN(argv), argv), -EALREADY);
	CU_ASSERT_FALSE(pv_rtc_is_ctrl_thread());
}

/* an interrupt source of the test's: an eventfd, and its callback's count */
static int ut_intr_fd = -1;
static unsigned int ut_intr_calls;

static void
ut_intr_cb(void *arg)
{
	uint64_t v;

	RTE_SET_USED(arg);
	if (read(ut_intr_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		__atomic_add_fetch(&ut_intr_calls, 1, __ATOMIC_RELEASE);
}

/* signal the source, then wait up to @p ms for its callback count to reach @p n */
static int
ut_intr_kick_wait(unsigned int n, unsigned int ms)
{
	uint64_t one = 1;
	unsigned int i;

	if (write(ut_intr_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		return -1;
	for (i = 0; i < ms && __atomic_load_n(&ut_intr_calls, __ATOMIC_ACQUIRE) < n; i++)
		usleep(1000);
	return __atomic_load_n(&ut_intr_calls, __ATOMIC_ACQUIRE) >= n ? 0 : -1;
}

static void
test_cleanup(void)
{
	struct rte_intr_handle *ih;
	int nb = -1;

	/* EAL's interrupt thread runs callbacks until pv_cleanup() */
	ut_intr_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	CU_ASSERT_FATAL(ut_intr_fd >= 0);
	ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ih);
	CU_ASSERT_EQUAL_FATAL(rte_intr_fd_set(ih, ut_intr_fd), 0);
	CU_ASSERT_EQUAL_FATAL(rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT), 0);
	CU_ASSERT_EQUAL_FATAL(rte_intr_callback_register(ih, ut_intr_cb, NULL), 0);
	rte_intr_instance_free(ih);
	CU_ASSERT_EQUAL(ut_intr_kick_wait(1, 5000), 0);
	CU_ASSERT_FALSE(__atomic_load_n(&rtc_intr_parked, __ATOMIC_ACQUIRE));

	ut_hook_calls = 0;
	ut_hook_saw_parked = 0;
	CU_ASSERT_EQUAL(pv_cleanup(), 0);
	CU_ASSERT_EQUAL(ut_hook_calls, 2);
	CU_ASSERT_EQUAL(ut_hook_order[0], 'b');		/* reverse order */
	CU_ASSERT_EQUAL(ut_hook_order[1], 'a');
	/* parked before the hooks (device removal) ran, and for good: the
	 * source's next signal is never handled */
	CU_ASSERT_TRUE(ut_hook_saw_parked);
	CU_ASSERT_EQUAL(ut_intr_kick_wait(2, 200), -1);
	CU_ASSERT_EQUAL(__atomic_load_n(&ut_intr_calls, __ATOMIC_ACQUIRE), 1);
	close(ut_intr_fd);
	CU_ASSERT_PTR_NULL(pv_rtc_devargs(&nb));
	CU_ASSERT_EQUAL(nb, 0);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_hook_nop_msg, NULL, 0), -ESHUTDOWN);
	CU_ASSERT_EQUAL(pv_cleanup(), -EINVAL);
	CU_ASSERT_EQUAL(ut_hook_calls, 2);
	/* EAL cannot come back in the same process */
	CU_ASSERT_EQUAL(pv_init(1, (char *[]){ "prog", NULL }), -EALREADY);
}

int
main(void)
{
	static const struct ut_case cases[] = {
		{ "args_split", test_args_split },
		{ "args_bad", test_args_bad },
		{ "args_memory", test_args_memory },
		{ "args_permute", test_args_permute },
		{ "memlock_verdict", test_memlock_verdict },
		{ "memlock_check", test_memlock_check },
		{ "cleanup_hook_add", test_cleanup_hook_add },
		{ "init_bad_option", test_init_bad_option },
		{ "init", test_init },
		{ "cleanup", test_cleanup },
		{ NULL, NULL },
	};

	return ut_run("rtc_init", cases);
}
