/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite rtc_ctrl: tasks on the control thread with and without waiting,
 * FIFO order, -EDEADLK from the thread itself, -ENOBUFS, -EINVAL,
 * -ESHUTDOWN before init and after cleanup, and queued tasks run at cleanup;
 * timers: period, kick, stop waiting for a run, stop from inside the run,
 * every errno.
 */

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "rtc_ctrl.c"

#include "ut_rtc.h"

#define UT_WORKER 1

static int
ut_eal_init(void)
{
	char *argv[] = {
		"test_rtc_ctrl", "-l", "0,1", "--no-huge", "--no-pci", "-m", "64",
		"--file-prefix=ut_rtc_ctrl", "--log-level=*:warning",
	};

	return pv_init(RTE_DIM(argv), argv);
}

static void
test_init(void)
{
	CU_ASSERT_FATAL(ut_eal_init() > 0);
}

struct ut_probe {
	int on_ctrl;
	char name[16];
	unsigned int calls;
};

static void
ut_probe(void *arg)
{
	struct ut_probe *p = arg;

	p->on_ctrl = pv_rtc_is_ctrl_thread();
	pthread_getname_np(pthread_self(), p->name, sizeof(p->name));
	p->calls++;
}

static void
test_before_init(void)
{
	struct ut_probe p = { 0 };

	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_probe, &p, 1), -ESHUTDOWN);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_probe, &p, 0), -ESHUTDOWN);
	CU_ASSERT_EQUAL(p.calls, 0);
	CU_ASSERT_FALSE(pv_rtc_is_ctrl_thread());
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_ctrl_timer_start(ut_probe, &p, 1000));
	CU_ASSERT_EQUAL(errno, ESHUTDOWN);
}

static void
test_call_wait(void)
{
	struct ut_probe p = { 0 };

	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_probe, &p, 1), 0);
	/* done on return: no other synchronisation needed */
	CU_ASSERT_EQUAL(p.calls, 1);
	CU_ASSERT_EQUAL(p.on_ctrl, 1);
	CU_ASSERT_STRING_EQUAL(p.name, "pv-ctrl");
	CU_ASSERT_FALSE(pv_rtc_is_ctrl_thread());
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(NULL, &p, 1), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(NULL, &p, 0), -EINVAL);
}

#define UT_NB_TASKS 100
static uint32_t ut_order[UT_NB_TASKS + 1];
static unsigned int ut_nb_order;

static void
ut_record(void *arg)
{
	ut_order[ut_nb_order++] = (uint32_t)(uintptr_t)arg;
}

static void
test_call_nowait_fifo(void)
{
	uint32_t want[UT_NB_TASKS];
	unsigned int i;

	for (i = 0; i < UT_NB_TASKS; i++) {
		want[i] = 0xab000000u + i;
		CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_record, (void *)(uintptr_t)want[i], 0), 0);
	}
	/* a waited task behind them returns after all of them ran */
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_record, (void *)(uintptr_t)0xffu, 1), 0);
	CU_ASSERT_EQUAL(ut_nb_order, UT_NB_TASKS + 1);
	CU_ASSERT_EQUAL(memcmp(ut_order, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(ut_order[UT_NB_TASKS], 0xffu);
}

struct ut_nested {
	int wait_rc;
	int nowait_rc;
	struct ut_probe later;
};

static void
ut_nested(void *arg)
{
	struct ut_nested *n = arg;

	n->wait_rc = pv_rtc_ctrl_call(ut_probe, &n->later, 1);
	n->nowait_rc = pv_rtc_ctrl_call(ut_probe, &n->later, 0);
}

static void
ut_nop(void *arg)
{
	RTE_SET_USED(arg);
}

static void
test_deadlock_refused(void)
{
	struct ut_nested n = { .wait_rc = 1, .nowait_rc = 1 };

	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_nested, &n, 1), 0);
	CU_ASSERT_EQUAL(n.wait_rc, -EDEADLK);
	CU_ASSERT_EQUAL(n.nowait_rc, 0);
	/* the queued one runs after the task that queued it */
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_nop, NULL, 1), 0);
	CU_ASSERT_EQUAL(n.later.calls, 1);
	CU_ASSERT_EQUAL(n.later.on_ctrl, 1);
}

static sem_t ut_gate;

static void
ut_block(void *arg)
{
	RTE_SET_USED(arg);
	sem_wait(&ut_gate);
}

static unsigned int ut_count;

static void
ut_inc(void *arg)
{
	RTE_SET_USED(arg);
	ut_count++;
}

static void
test_queue_full(void)
{
	unsigned int n = 0;
	int rc;

	CU_ASSERT_EQUAL_FATAL(sem_init(&ut_gate, 0, 0), 0);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_block, NULL, 0), 0);
	/* the blocker may or may not have been dequeued yet: the queue holds
	 * PV_RTC_CTRL_QUEUE_ENTRIES, minus one if it is still queued
	 */
	while ((rc = pv_rtc_ctrl_call(ut_inc, NULL, 0)) == 0)
		n++;
	CU_ASSERT_EQUAL(rc, -ENOBUFS);
	CU_ASSERT(n == PV_RTC_CTRL_QUEUE_ENTRIES || n == PV_RTC_CTRL_QUEUE_ENTRIES - 1);
	sem_post(&ut_gate);
	/* full until the thread takes the next task */
	while ((rc = pv_rtc_ctrl_call(ut_nop, NULL, 1)) == -ENOBUFS)
		sched_yield();
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(ut_count, n);
	sem_destroy(&ut_gate);
}

/* An EAL worker lcore waits for a task while main does too. */
static int
ut_worker_call(void *arg)
{
	return pv_rtc_ctrl_call(ut_probe, arg, 1);
}

static void
test_call_from_worker(void)
{
	struct ut_probe pw = { 0 }, pm = { 0 };

	CU_ASSERT_EQUAL_FATAL(pv_rtc_lcore_launch(UT_WORKER, ut_worker_call, &pw), 0);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_probe, &pm, 1), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(UT_WORKER), 0);
	CU_ASSERT_EQUAL(pw.calls, 1);
	CU_ASSERT_EQUAL(pw.on_ctrl, 1);
	CU_ASSERT_EQUAL(pm.calls, 1);
}

/* ---- timers ---- */

struct ut_tick {
	uint32_t runs;		/* atomic */
	uint32_t in_run;	/* atomic: 1 while the function runs */
	uint32_t sleep_us;
	int on_ctrl;
	int stop_self;
	struct pv_rtc_ctrl_timer *self;
};

static void
ut_tick(void *arg)
{
	struct ut_tick *k = arg;

	__atomic_store_n(&k->in_run, 1, __ATOMIC_RELEASE);
	k->on_ctrl = pv_rtc_is_ctrl_thread();
	if (k->sleep_us != 0)
		usleep(k->sleep_us);
	if (k->stop_self)
		CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(k->self), 0);
	__atomic_fetch_add(&k->runs, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&k->in_run, 0, __ATOMIC_RELEASE);
}

static uint32_t
ut_runs(struct ut_tick *k)
{
	return __atomic_load_n(&k->runs, __ATOMIC_ACQUIRE);
}

/* wait up to @p ms for @p k to have run @p n times */
static int
ut_runs_wait(struct ut_tick *k, uint32_t n, unsigned int ms)
{
	while (ut_runs(k) < n && ms-- > 0)
		usleep(1000);
	return ut_runs(k) >= n;
}

static void
test_timer_errors(void)
{
	struct ut_tick k = { 0 };

	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_ctrl_timer_start(NULL, &k, 1000));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_ctrl_timer_start(ut_tick, &k, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_ctrl_timer_start(ut_tick, &k, UINT64_MAX));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_kick(NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(NULL), -EINVAL);
	CU_ASSERT_EQUAL(ut_runs(&k), 0);
}

static void
test_timer_periodic(void)
{
	struct ut_tick k = { 0 };
	struct pv_rtc_ctrl_timer *t;
	struct ut_probe p = { 0 };
	uint32_t n;

	t = pv_rtc_ctrl_timer_start(ut_tick, &k, 10000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	/* not before one period */
	CU_ASSERT_EQUAL(ut_runs(&k), 0);
	CU_ASSERT_TRUE(ut_runs_wait(&k, 3, 2000));
	CU_ASSERT_EQUAL(k.on_ctrl, 1);
	/* tasks still run between timer runs */
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_probe, &p, 1), 0);
	CU_ASSERT_EQUAL(p.calls, 1);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(t), 0);
	n = ut_runs(&k);
	usleep(40000);
	CU_ASSERT_EQUAL(ut_runs(&k), n);
}

static void
test_timer_kick(void)
{
	struct ut_tick k = { 0 };
	struct pv_rtc_ctrl_timer *t;

	/* an hour: only the kicks make it run */
	t = pv_rtc_ctrl_timer_start(ut_tick, &k, 3600ull * 1000000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	usleep(20000);
	CU_ASSERT_EQUAL(ut_runs(&k), 0);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_kick(t), 0);
	CU_ASSERT_TRUE(ut_runs_wait(&k, 1, 2000));
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_kick(t), 0);
	CU_ASSERT_TRUE(ut_runs_wait(&k, 2, 2000));
	usleep(20000);
	CU_ASSERT_EQUAL(ut_runs(&k), 2);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(t), 0);
}

static void
test_timer_stop_waits_for_run(void)
{
	struct ut_tick k = { .sleep_us = 50000 };
	struct pv_rtc_ctrl_timer *t;

	t = pv_rtc_ctrl_timer_start(ut_tick, &k, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	while (__atomic_load_n(&k.in_run, __ATOMIC_ACQUIRE) == 0)
		usleep(100);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(t), 0);
	/* the run in progress finished before stop returned, none followed */
	CU_ASSERT_EQUAL(__atomic_load_n(&k.in_run, __ATOMIC_ACQUIRE), 0);
	CU_ASSERT_EQUAL(ut_runs(&k), 1);
	usleep(20000);
	CU_ASSERT_EQUAL(ut_runs(&k), 1);
}

static void
test_timer_stop_from_run(void)
{
	struct ut_tick k = { .stop_self = 1 };

	k.self = pv_rtc_ctrl_timer_start(ut_tick, &k, 1000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k.self);
	CU_ASSERT_TRUE(ut_runs_wait(&k, 1, 2000));
	usleep(20000);
	/* stopped itself: ran once, freed by the thread (ASan checks) */
	CU_ASSERT_EQUAL(ut_runs(&k), 1);
}

/* Tasks still queued when pv_cleanup() starts run before the thread exits. */
static void
test_cleanup_runs_queued(void)
{
	unsigned int i;

	ut_count = 0;
	CU_ASSERT_EQUAL_FATAL(sem_init(&ut_gate, 0, 1), 0);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_block, NULL, 0), 0);
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_inc, NULL, 0), 0);
	CU_ASSERT_EQUAL(pv_cleanup(), 0);
	CU_ASSERT_EQUAL(ut_count, 10);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_inc, NULL, 0), -ESHUTDOWN);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_call(ut_inc, NULL, 1), -ESHUTDOWN);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_ctrl_timer_start(ut_inc, NULL, 1000));
	CU_ASSERT_EQUAL(errno, ESHUTDOWN);
	sem_destroy(&ut_gate);
}

/* A timer still registered at pv_cleanup() stops running; stop still frees it. */
static struct ut_tick ut_late;
static struct pv_rtc_ctrl_timer *ut_late_timer;

static void
test_timer_before_cleanup(void)
{
	ut_late_timer = pv_rtc_ctrl_timer_start(ut_tick, &ut_late, 1000);
	CU_ASSERT_PTR_NOT_NULL(ut_late_timer);
}

static void
test_timer_after_cleanup(void)
{
	uint32_t n = ut_runs(&ut_late);

	usleep(20000);
	CU_ASSERT_EQUAL(ut_runs(&ut_late), n);
	CU_ASSERT_EQUAL(pv_rtc_ctrl_timer_stop(ut_late_timer), 0);
}

int
main(void)
{
	static const struct ut_case cases[] = {
		{ "before_init", test_before_init },
		{ "init", test_init },
		{ "call_wait", test_call_wait },
		{ "call_nowait_fifo", test_call_nowait_fifo },
		{ "deadlock_refused", test_deadlock_refused },
		{ "queue_full", test_queue_full },
		{ "call_from_worker", test_call_from_worker },
		{ "timer_errors", test_timer_errors },
		{ "timer_periodic", test_timer_periodic },
		{ "timer_kick", test_timer_kick },
		{ "timer_stop_waits_for_run", test_timer_stop_waits_for_run },
		{ "timer_stop_from_run", test_timer_stop_from_run },
		{ "timer_before_cleanup", test_timer_before_cleanup },
		{ "cleanup_runs_queued", test_cleanup_runs_queued },
		{ "timer_after_cleanup", test_timer_after_cleanup },
		{ NULL, NULL },
	};

	return ut_run("rtc_ctrl", cases);
}
