/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The pollverbs runtime of a program that does not know it runs on
 * pollverbs: started at the program's first verbs call (ibv_get_device_list()
 * and, in librdmacm.so.1, rdma_create_event_channel() ...) with the EAL and
 * --pv-dev arguments pv-run put in the environment (PV_RUN_ARGS), stopped
 * by an atexit() handler. libibverbs' own thread rules hold: every verb
 * from any thread (pollverbs' default thread-safe progress mode).
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "pv_rtc.h"
#include "compat_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_compat_logtype, NOTICE);

/* most arguments PV_RUN_ARGS may hold */
#define PVC_MAX_ARGS 64

static pthread_once_t pvc_once = PTHREAD_ONCE_INIT;
static int pvc_start_err;
/* set while pv_init() runs on this thread: DPDK loads its driver plugins
 * there, and one that links libibverbs may call a verb from a constructor */
static __thread int pvc_starting;
static char *pvc_args;			/* PV_RUN_ARGS, split in place */
static char *pvc_argv[PVC_MAX_ARGS + 2];
static int pvc_blocked;			/* threads in a blocking verb */
static int pvc_stopping;		/* exit() is stopping pollverbs */

void
pv_compat_block_enter(void)
{
	/* counted in before stopping is read, as pvc_stop() sets stopping
	 * before it reads the count (both sequentially consistent): either
	 * this thread waits here or pvc_stop() sees it and leaves pollverbs
	 * running */
	__atomic_fetch_add(&pvc_blocked, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pvc_stopping, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&pvc_blocked, 1, __ATOMIC_SEQ_CST);
		/* another thread is in exit() and pv_cleanup() frees what this
		 * call would wait on: wait as a read() on the device's fd
		 * would, until the process is gone (rping's CM thread calls
		 * rdma_get_cm_event() once more while main() exits) */
		for (;;)
			pause();
	}
}

void
pv_compat_block_leave(void)
{
	__atomic_fetch_sub(&pvc_blocked, 1, __ATOMIC_SEQ_CST);
}

static void
pvc_stop(void)
{
	int blocked;

	__atomic_store_n(&pvc_stopping, 1, __ATOMIC_SEQ_CST);
	blocked = __atomic_load_n(&pvc_blocked, __ATOMIC_SEQ_CST);

	if (blocked > 0) {
		/* exit() runs with the program's other threads alive: one
		 * waits in a verb, on objects pv_cleanup() would free */
		PVC_LOG(DEBUG, "%d thread(s) blocked in a verb: pollverbs left to exit",
			blocked);
		return;
	}
	pv_cleanup();
}

static void
pvc_start_once(void)
{
	const char *env = getenv("PV_RUN_ARGS");
	char *save = NULL;
	char *tok;
	int argc = 0;
	int ret;

	if (env == NULL) {
		PVC_LOG(ERR, "PV_RUN_ARGS is not set: run the program through pv-run "
			"(pv-run --pv-dev=softroce:... [EAL args] -- PROGRAM ARGS)");
		pvc_start_err = ENODEV;
		return;
	}
	pvc_args = strdup(env);
	if (pvc_args == NULL) {
		pvc_start_err = ENOMEM;
		return;
	}
	pvc_argv[argc++] = program_invocation_short_name;
	for (tok = strtok_r(pvc_args, " \t\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (argc > PVC_MAX_ARGS) {
			PVC_LOG(ERR, "PV_RUN_ARGS: more than %d arguments", PVC_MAX_ARGS);
			pvc_start_err = E2BIG;
			return;
		}
		pvc_argv[argc++] = tok;
	}
	pvc_argv[argc] = NULL;
	pvc_starting = 1;
	ret = pv_init(argc, pvc_argv);
	pvc_starting = 0;
	if (ret < 0) {
		PVC_LOG(ERR, "pv_init(PV_RUN_ARGS=\"%s\") failed: %s", env, strerror(-ret));
		pvc_start_err = -ret;
		return;
	}
	if (atexit(pvc_stop) != 0)
		PVC_LOG(WARNING, "atexit() failed: pollverbs is not stopped at exit");
}

/*
 * pv-run --eager (PV_RUN_EAGER=1): pollverbs starts when the library is
 * loaded, before main(), instead of at the first verbs call: its ports
 * exist before the program does anything, e.g. the memif server side of a
 * program whose peer (qperf's server) forks a process per test that
 * attaches as a memif client at once. Failure is reported again at the
 * first verbs call.
 */
__attribute__((constructor)) static void
pvc_start_eager(void)
{
	const char *env = getenv("PV_RUN_EAGER");

	if (env != NULL && strcmp(env, "1") == 0)
		(void)pv_compat_start();
}

/*
 * Start pollverbs once per process; 0, or -errno: -ENODEV PV_RUN_ARGS
 * unset, -ENOSYS called from inside the start (a DPDK plugin's
 * constructor), pv_init()'s error. Every caller after the first gets the
 * first one's answer.
 */
int
pv_compat_start(void)
{
	if (pvc_starting)
		return -ENOSYS;
	pthread_once(&pvc_once, pvc_start_once);
	return -pvc_start_err;
}
