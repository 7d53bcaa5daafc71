/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv_init() / pv_cleanup(): pollverbs option extraction, the EAL argv
 * permutation, the RLIMIT_MEMLOCK check and the cleanup hook list.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "pv_rtc.h"
#include "pv_rtc_internal.h"
#include "rtc_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_rtc_logtype, NOTICE);

#define RTC_OPT_DEV		"--pv-dev"
#define RTC_OPT_PREFIX		"--pv-"
/* EAL's memory when neither -m nor --socket-mem is given and no hugepages
 * (EAL's own --no-huge default), also used as the expected registration size.
 */
#define RTC_MEMLOCK_DEFAULT_BYTES	(64ULL << 20)
#define RTC_CAP_IPC_LOCK	14	/* linux/capability.h */
/* how long pv_cleanup() waits for EAL's interrupt thread to come to a stop */
#define RTC_INTR_PARK_WAIT_US	2000000
#define RTC_INTR_PARK_POLL_US	100

enum rtc_state {
	RTC_STATE_NONE,		/* pv_init() not called yet */
	RTC_STATE_BUSY,		/* pv_init() or pv_cleanup() running */
	RTC_STATE_UP,		/* initialised */
	RTC_STATE_DOWN,		/* cleaned up; EAL cannot be initialised again */
};

enum rtc_memlock_verdict {
	RTC_MEMLOCK_OK,		/* soft limit covers the expected locked memory */
	RTC_MEMLOCK_OK_CAP,	/* limit too low, but CAP_IPC_LOCK ignores it */
	RTC_MEMLOCK_WARN,	/* too low: registrations may fail */
	RTC_MEMLOCK_UNKNOWN,	/* getrlimit() failed */
};

/* pv_init() arguments split into pollverbs' own and EAL's. */
struct rtc_args {
	char **eal_argv;	/* argv[0], EAL options, "--" and app args */
	int eal_argc;
	char **devargs;		/* strdup'ed "DRIVER[:ARGS]" */
	int nb_devargs;
	bool no_huge;		/* --no-huge given */
	bool want_huge;		/* an option that only makes sense with hugepages */
	uint64_t mem_bytes;	/* -m or sum of --socket-mem; 0 if none */
};

static int rtc_state = RTC_STATE_NONE;
static char **rtc_devargs;
static int rtc_nb_devargs;
static pv_rtc_cleanup_fn rtc_hooks[PV_RTC_MAX_CLEANUP_HOOKS];
static unsigned int rtc_nb_hooks;
static char rtc_no_huge_opt[] = "--no-huge";
static int rtc_intr_parked;	/* atomic: EAL's interrupt thread is held */

static int
rtc_rlimit_get_sys(struct rlimit *rl)
{
	return getrlimit(RLIMIT_MEMLOCK, rl) == 0 ? 0 : -errno;
}

/* CAP_IPC_LOCK in the effective set, read from /proc (no libcap needed). */
static int
rtc_cap_ipc_lock_sys(void)
{
	unsigned long long eff = 0;
	char line[256];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = 1;
			break;
		}
	}
	fclose(f);
	return found && (eff & (1ULL << RTC_CAP_IPC_LOCK)) != 0;
}

/* unit tests replace these to pretend limits and capabilities */
static int (*rtc_rlimit_get)(struct rlimit *rl) = rtc_rlimit_get_sys;
static int (*rtc_cap_ipc_lock)(void) = rtc_cap_ipc_lock_sys;

/* Free pages of any hugepage size, and somewhere EAL can map them. */
static bool
rtc_hugepages_available(void)
{
	const char *dir = "/sys/kernel/mm/hugepages";
	unsigned long nr_free = 0;
	bool mounted = false;
	struct dirent *de;
	char path[512];
	char line[512];
	DIR *d;
	FILE *f;

	d = opendir(dir);
	if (d == NULL)
		return false;
	while ((de = readdir(d)) != NULL) {
		unsigned long n;

		if (strncmp(de->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/free_hugepages", dir, de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &n) == 1)
			nr_free += n;
		fclose(f);
	}
	closedir(d);
	if (nr_free == 0)
		return false;

	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return false;
	while (!mounted && fgets(line, sizeof(line), f) != NULL)
		mounted = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	return mounted;
}

static void
rtc_args_free(struct rtc_args *a)
{
	int i;

	for (i = 0; i < a->nb_devargs; i++)
		free(a->devargs[i]);
	free(a->devargs);
	free(a->eal_argv);
	memset(a, 0, sizeof(*a));
}

/* Sum of a "--socket-mem=1024,0,512" list, in MiB. */
static uint64_t
rtc_mem_list_mb(const char *s)
{
	uint64_t sum = 0;
	char *end;

	while (*s != '\0') {
		sum += strtoull(s, &end, 10);
		if (end == s)
			break;
		s = (*end == ',') ? end + 1 : end;
	}
	return sum;
}

/*
 * Note what EAL options say about memory: -m N / -mN / --socket-mem[=]L.
 * @p val is the option's value when it is the next argument, else NULL.
 * @return 1 when @p val was consumed, else 0.
 */
static int
rtc_args_note_eal(struct rtc_args *a, const char *opt, const char *val)
{
	if (strcmp(opt, "--no-huge") == 0) {
		a->no_huge = true;
	} else if (strncmp(opt, "--socket-mem", 12) == 0 ||
		   strncmp(opt, "--socket-limit", 14) == 0 ||
		   strncmp(opt, "--huge-dir", 10) == 0 ||
		   strncmp(opt, "--proc-type", 11) == 0) {
		const char *v = strchr(opt, '=');

		a->want_huge = true;
		if (strncmp(opt, "--socket-mem", 12) != 0)
			return v == NULL && val != NULL;
		if (v != NULL)
			a->mem_bytes = rtc_mem_list_mb(v + 1) << 20;
		else if (val != NULL)
			a->mem_bytes = rtc_mem_list_mb(val) << 20;
		return v == NULL && val != NULL;
	} else if (opt[0] == '-' && opt[1] == 'm') {
		if (opt[2] != '\0') {
			a->mem_bytes = strtoull(opt + 2, NULL, 10) << 20;
		} else if (val != NULL) {
			a->mem_bytes = strtoull(val, NULL, 10) << 20;
			return 1;
		}
	}
	return 0;
}

/*
 * Split argv: "--pv-*" options up to "--" are pollverbs'; everything else,
 * in order, goes to EAL. The strings are not copied except the device
 * arguments. @return 0, -EINVAL bad option, -ENOMEM.
 */
static int
rtc_args_parse(int argc, char **argv, struct rtc_args *a)
{
	bool app = false;
	int i;

	memset(a, 0, sizeof(*a));
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		RTC_LOG(ERR, "argv must hold at least the program name");
		return -EINVAL;
	}
	/* +1: room for an injected --no-huge, +1: NULL terminator */
	a->eal_argv = calloc(argc + 2, sizeof(*a->eal_argv));
	a->devargs = calloc(argc, sizeof(*a->devargs));
	if (a->eal_argv == NULL || a->devargs == NULL)
		goto err_nomem;
	a->eal_argv[a->eal_argc++] = argv[0];

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val;
		size_t n;

		if (app || strncmp(arg, RTC_OPT_PREFIX, strlen(RTC_OPT_PREFIX)) != 0) {
			if (strcmp(arg, "--") == 0)
				app = true;
			if (!app && rtc_args_note_eal(a, arg, i + 1 < argc ? argv[i + 1] : NULL))
				a->eal_argv[a->eal_argc++] = argv[i++];
			a->eal_argv[a->eal_argc++] = argv[i];
			continue;
		}
		n = strlen(RTC_OPT_DEV);
		if (strncmp(arg, RTC_OPT_DEV, n) != 0 || (arg[n] != '\0' && arg[n] != '=')) {
			RTC_LOG(ERR, "unknown pollverbs option %s", arg);
			goto err_inval;
		}
		if (arg[n] == '=') {
			val = arg + n + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			RTC_LOG(ERR, "%s needs DRIVER[:ARGS]", RTC_OPT_DEV);
			goto err_inval;
		}
		if (val[0] == '\0' || val[0] == ':' || val[0] == '-') {
			RTC_LOG(ERR, "%s: missing driver name in \"%s\"", RTC_OPT_DEV, val);
			goto err_inval;
		}
		a->devargs[a->nb_devargs] = strdup(val);
		if (a->devargs[a->nb_devargs] == NULL)
			goto err_nomem;
		a->nb_devargs++;
	}
	a->eal_argv[a->eal_argc] = NULL;
	return 0;

err_nomem:
	RTC_LOG(ERR, "out of memory");
	rtc_args_free(a);
	return -ENOMEM;
err_inval:
	rtc_args_free(a);
	return -EINVAL;
}

/* Put "--no-huge" right after the program name. */
static void
rtc_args_add_no_huge(struct rtc_args *a)
{
	memmove(&a->eal_argv[2], &a->eal_argv[1], (a->eal_argc - 1) * sizeof(*a->eal_argv));
	a->eal_argv[1] = rtc_no_huge_opt;
	a->eal_argc++;
	a->eal_argv[a->eal_argc] = NULL;
	a->no_huge = true;
}

/*
 * Give the caller's argv the layout rte_eal_init() gives its own: after EAL
 * permuted and consumed @p eal_ret entries of a->eal_argv, a->eal_argv[eal_ret]
 * is the program name and the application arguments follow. Rewrite the
 * caller's argv so that argv[ret] is the program name and
 * argv[ret + 1 .. argc - 1] are the same application arguments, in EAL's
 * order; the pollverbs and EAL options end up in argv[1 .. ret - 1].
 * @return ret.
 */
static int
rtc_args_permute(int argc, char **argv, const struct rtc_args *a, int eal_ret)
{
	int nb_app = a->eal_argc - eal_ret - 1;
	int ret = argc - 1 - nb_app;
	char **orig;
	bool *used;
	int i, j, k;

	orig = malloc(argc * sizeof(*orig));
	used = calloc(argc, sizeof(*used));
	if (orig == NULL || used == NULL) {
		/* EAL is up; leave argv alone rather than fail init */
		RTC_LOG(ERR, "out of memory; argv not permuted");
		free(orig);
		free(used);
		return ret;
	}
	memcpy(orig, argv, argc * sizeof(*orig));
	/* match app args to original slots by pointer; equal pointers are
	 * interchangeable, so the first unused one will do
	 */
	for (k = 0; k < nb_app; k++) {
		char *s = a->eal_argv[eal_ret + 1 + k];

		for (j = 1; j < argc; j++) {
			if (!used[j] && orig[j] == s) {
				used[j] = true;
				break;
			}
		}
		argv[ret + 1 + k] = s;
	}
	/* consumed originals, in their original order; the one that does not
	 * fit is dropped, as EAL drops the entry it overwrites with the name
	 */
	i = 1;
	for (j = 1; j < argc && i < ret; j++)
		if (!used[j])
			argv[i++] = orig[j];
	argv[ret] = orig[0];
	free(orig);
	free(used);
	return ret;
}

/* Pure decision, separate from getrlimit() so tests can feed it values. */
static enum rtc_memlock_verdict
rtc_memlock_verdict(const struct rlimit *rl, int has_cap_ipc_lock, uint64_t need_bytes)
{
	if (rl->rlim_cur == RLIM_INFINITY || (uint64_t)rl->rlim_cur >= need_bytes)
		return RTC_MEMLOCK_OK;
	if (has_cap_ipc_lock)
		return RTC_MEMLOCK_OK_CAP;
	return RTC_MEMLOCK_WARN;
}

/*
 * Pages pollverbs registers (MRs on EAL memory, queue buffers) are pinned and,
 * for a process without CAP_IPC_LOCK, count against RLIMIT_MEMLOCK; a low
 * limit makes pv_reg_mr() fail later with ENOMEM. Warn now, with the fix.
 */
static enum rtc_memlock_verdict
rtc_memlock_check(uint64_t need_bytes)
{
	enum rtc_memlock_verdict v;
	struct rlimit rl;
	int ret;

	ret = rtc_rlimit_get(&rl);
	if (ret < 0) {
		RTC_LOG(DEBUG, "getrlimit(RLIMIT_MEMLOCK): %s", strerror(-ret));
		return RTC_MEMLOCK_UNKNOWN;
	}
	v = rtc_memlock_verdict(&rl, rtc_cap_ipc_lock(), need_bytes);
	switch (v) {
	case RTC_MEMLOCK_OK:
		RTC_LOG(DEBUG, "RLIMIT_MEMLOCK covers the %" PRIu64 " MiB expected", need_bytes >> 20);
		break;
	case RTC_MEMLOCK_OK_CAP:
		RTC_LOG(DEBUG, "RLIMIT_MEMLOCK is %llu KiB, below the %" PRIu64 " MiB expected, "
			"but the process has CAP_IPC_LOCK: no limit applies",
			(unsigned long long)rl.rlim_cur >> 10, need_bytes >> 20);
		break;
	case RTC_MEMLOCK_WARN:
		RTC_LOG(WARNING, "WARNING: RLIMIT_MEMLOCK is %llu KiB but pollverbs expects to "
			"register up to %" PRIu64 " MiB (-m/--socket-mem, default %llu MiB); "
			"memory registration may fail with ENOMEM. Fix: run `ulimit -l unlimited` "
			"before starting, or add `* - memlock unlimited` to "
			"/etc/security/limits.conf, or set LimitMEMLOCK=infinity in the systemd unit",
			(unsigned long long)rl.rlim_cur >> 10, need_bytes >> 20,
			RTC_MEMLOCK_DEFAULT_BYTES >> 20);
		break;
	default:
		break;
	}
	return v;
}

int
pv_rtc_cleanup_hook_add(pv_rtc_cleanup_fn fn)
{
	if (fn == NULL)
		return -EINVAL;
	if (rtc_nb_hooks == PV_RTC_MAX_CLEANUP_HOOKS) {
		RTC_LOG(ERR, "%u cleanup hooks already registered", rtc_nb_hooks);
		return -ENOSPC;
	}
	rtc_hooks[rtc_nb_hooks++] = fn;
	return 0;
}

static int
rtc_state_move(int from, int to)
{
	return __atomic_compare_exchange_n(&rtc_state, &from, to, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Interrupt callback: hold EAL's interrupt thread here until the process exits. */
static void
rtc_intr_park_cb(void *arg __rte_unused)
{
	__atomic_store_n(&rtc_intr_parked, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
}

/*
 * Stop EAL's interrupt thread for good before devices and EAL go away.
 *
 * DPDK 22.11 runs PMD interrupt callbacks on that thread and never stops it:
 * rte_eal_cleanup() unmaps EAL memory under it. Two PMD callbacks made
 * pollverbs processes crash or corrupt memory at exit:
 * - memif handles its peer's disconnect there (memif_disconnect() unmaps and
 *   rte_free()s the shared regions) with no lock against rte_eth_dev_stop()
 *   and rte_eth_dev_close() on the main thread; both ends of a memif pair
 *   stop at about the same time, so the regions were freed twice ("EAL:
 *   Error: Invalid memory") and the thread could still be in memif on a
 *   closed port;
 * - a memif server's close leaves its listening socket registered, with its
 *   interrupt handle in EAL memory: the thread reads it whenever it rebuilds
 *   its epoll set, which every unregistration requests (rte_eal_cleanup()'s
 *   own too), and then it may already be unmapped (SIGSEGV in
 *   rte_intr_fd_get()).
 * The thread runs callbacks one at a time, holding no lock of EAL's while
 * one runs: parked in a callback of a source of our own (an eventfd), it
 * runs no other again, so device removal and rte_eal_cleanup() run alone.
 * What they unregister is only unlinked (a callback not running is removed
 * at once); alarms set from now on never fire. Not an alarm callback:
 * rte_eal_cleanup() waits for the alarm source to be idle (22.11.11).
 * The source stays registered and its eventfd open until the process exits.
 */
static void
rtc_intr_park(void)
{
	struct rte_intr_handle *ih;
	uint64_t one = 1, waited_us;
	int fd, ret;

	if (rte_thread_is_intr())
		return;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0) {
		RTC_LOG(WARNING, "cannot park EAL's interrupt thread: eventfd: %s",
			strerror(errno));
		return;
	}
	ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	ret = ih == NULL ? -ENOMEM : rte_intr_fd_set(ih, fd);
	if (ret == 0)
		ret = rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT);
	if (ret == 0)
		ret = rte_intr_callback_register(ih, rtc_intr_park_cb, NULL);
	/* the registered source holds a copy of the handle */
	rte_intr_instance_free(ih);
	if (ret != 0) {
		RTC_LOG(WARNING, "cannot park EAL's interrupt thread: %s", rte_strerror(-ret));
		close(fd);
		return;
	}
	if (write(fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		RTC_LOG(WARNING, "cannot park EAL's interrupt thread: eventfd write: %s",
			strerror(errno));
		return;
	}
	for (waited_us = 0; !__atomic_load_n(&rtc_intr_parked, __ATOMIC_ACQUIRE);
	     waited_us += RTC_INTR_PARK_POLL_US) {
		if (waited_us >= RTC_INTR_PARK_WAIT_US) {
			/* a callback that does not return: the thread parks
			 * whenever it does */
			RTC_LOG(WARNING, "EAL's interrupt thread busy for %u ms: cleaning up "
				"while it runs", RTC_INTR_PARK_WAIT_US / 1000);
			return;
		}
		rte_delay_us_sleep(RTC_INTR_PARK_POLL_US);
	}
}

int
pv_init(int argc, char **argv)
{
	struct rtc_args a;
	uint64_t need;
	int eal_ret;
	int ret;

	if (!rtc_state_move(RTC_STATE_NONE, RTC_STATE_BUSY)) {
		RTC_LOG(ERR, "pv_init() already called");
		return -EALREADY;
	}
	ret = rtc_args_parse(argc, argv, &a);
	if (ret < 0)
		goto err_state;
	if (!a.no_huge && !a.want_huge && !rtc_hugepages_available()) {
		RTC_LOG(NOTICE, "no free hugepages on a hugetlbfs mount: adding --no-huge");
		rtc_args_add_no_huge(&a);
	}
	need = a.mem_bytes != 0 ? a.mem_bytes : RTC_MEMLOCK_DEFAULT_BYTES;

	eal_ret = rte_eal_init(a.eal_argc, a.eal_argv);
	if (eal_ret < 0) {
		ret = -rte_errno;
		RTC_LOG(ERR, "rte_eal_init: %s", rte_strerror(rte_errno));
		if (ret == 0)
			ret = -EINVAL;
		goto err_args;
	}
	ret = pv_rtc_msg_init();
	if (ret < 0)
		goto err_eal;
	ret = pv_rtc_ctrl_start();
	if (ret < 0)
		goto err_msg;
	rtc_memlock_check(need);

	ret = rtc_args_permute(argc, argv, &a, eal_ret);
	rtc_devargs = a.devargs;
	rtc_nb_devargs = a.nb_devargs;
	a.devargs = NULL;
	a.nb_devargs = 0;
	rtc_args_free(&a);
	RTC_LOG(INFO, "initialised: %u lcores, %d pollverbs devices, %s", rte_lcore_count(),
		rtc_nb_devargs, rte_eal_has_hugepages() ? "hugepages" : "no hugepages");
	__atomic_store_n(&rtc_state, RTC_STATE_UP, __ATOMIC_RELEASE);
	return ret;

err_msg:
	pv_rtc_msg_fini();
err_eal:
	rtc_intr_park();
	rte_eal_cleanup();
err_args:
	rtc_args_free(&a);
err_state:
	__atomic_store_n(&rtc_state, RTC_STATE_NONE, __ATOMIC_RELEASE);
	return ret;
}

int
pv_cleanup(void)
{
	unsigned int i;
	int ret;

	if (!rtc_state_move(RTC_STATE_UP, RTC_STATE_BUSY)) {
		RTC_LOG(ERR, "pollverbs is not initialised");
		return -EINVAL;
	}
	/* loops that are still running return; their lcores go back to WAIT */
	pv_rtc_loop_stop_all();
	rte_eal_mp_wait_lcore();
	pv_rtc_ctrl_stop();
	pv_rtc_bg_stop();
	/* no PMD callback may run while devices and EAL are torn down */
	rtc_intr_park();
	for (i = rtc_nb_hooks; i > 0; i--)
		rtc_hooks[i - 1]();
	pv_rtc_msg_fini();

	for (i = 0; i < (unsigned int)rtc_nb_devargs; i++)
		free(rtc_devargs[i]);
	free(rtc_devargs);
	rtc_devargs = NULL;
	rtc_nb_devargs = 0;

	ret = rte_eal_cleanup();
	if (ret < 0) {
		ret = -rte_errno;
		RTC_LOG(ERR, "rte_eal_cleanup: %s", rte_strerror(rte_errno));
	}
	__atomic_store_n(&rtc_state, RTC_STATE_DOWN, __ATOMIC_RELEASE);
	return ret;
}

const char *const *
pv_rtc_devargs(int *nb_p)
{
	if (nb_p != NULL)
		*nb_p = rtc_nb_devargs;
	return (const char *const *)rtc_devargs;
}
