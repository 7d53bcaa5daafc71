/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite rtc_loop: poller scheduling against a fake TSC, unregistering from
 * inside a poller, limits and errnos, loop run/stop and lcore launch/wait.
 * EAL runs with two lcores (main 0, worker 1) and no hugepages.
 */

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "rtc_loop.c"

#include "ut_rtc.h"

#define UT_WORKER 1

uint64_t pv_rtc_ut_tsc;

static int
ut_eal_init(void)
{
	char *argv[] = {
		"test_rtc_loop", "-l", "0,1", "--no-huge", "--no-pci", "-m", "64",
		"--file-prefix=ut_rtc_loop", "--log-level=*:warning",
	};

	return pv_init(RTE_DIM(argv), argv);
}

struct ut_counter {
	unsigned int calls;
	int rc;
};

static int
ut_count(void *arg)
{
	struct ut_counter *c = arg;

	c->calls++;
	return c->rc;
}

static void
test_every_iteration(void)
{
	struct ut_counter a = { .rc = 1 }, b = { .rc = 2 };
	struct pv_rtc_poller *pa, *pb;
	int i;

	pa = pv_rtc_poller_register(ut_count, &a, 0);
	pb = pv_rtc_poller_register(ut_count, &b, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pb);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(pv_rtc_loop_once(), 3);	/* work = sum of results */
	CU_ASSERT_EQUAL(a.calls, 5);
	CU_ASSERT_EQUAL(b.calls, 5);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(pa), 0);
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 2);
	CU_ASSERT_EQUAL(a.calls, 5);
	CU_ASSERT_EQUAL(b.calls, 6);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(pb), 0);
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcores[0].nb_pollers, 0);
	CU_ASSERT_EQUAL(pv_rtc_lcores[0].pollers_end, 0);
}

static void
test_us_to_tsc(void)
{
	uint64_t hz = rte_get_tsc_hz();

	CU_ASSERT_EQUAL(rtc_us_to_tsc(US_PER_S), hz);
	CU_ASSERT_EQUAL(rtc_us_to_tsc(3 * US_PER_S + US_PER_S / 2), 3 * hz + hz / 2);
	/* 11.5 days in us times a GHz TSC overflows a naive us * hz */
	CU_ASSERT_EQUAL(rtc_us_to_tsc(1000000ULL * US_PER_S), 1000000ULL * hz);
	CU_ASSERT_EQUAL(rtc_us_to_tsc(0), 0);
}

static void
test_periodic(void)
{
	struct ut_counter c = { .rc = 1 };
	struct pv_rtc_poller *p;
	const uint64_t t0 = 1000;
	uint64_t period;

	pv_rtc_ut_tsc = t0;
	p = pv_rtc_poller_register(ut_count, &c, 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	period = rtc_us_to_tsc(10);
	CU_ASSERT_EQUAL_FATAL(p->period_tsc, period);
	CU_ASSERT_FATAL(period > 1);

	/* not at registration, not before one period */
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 0);
	pv_rtc_ut_tsc = t0 + period - 1;
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 0);
	CU_ASSERT_EQUAL(c.calls, 0);
	/* exactly when due, once */
	pv_rtc_ut_tsc = t0 + period;
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 1);
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 0);
	CU_ASSERT_EQUAL(c.calls, 1);
	/* late by less than a period: the phase is kept */
	pv_rtc_ut_tsc = t0 + 2 * period + period / 2;
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 2);
	pv_rtc_ut_tsc = t0 + 3 * period - 1;
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 2);
	pv_rtc_ut_tsc = t0 + 3 * period;
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 3);
	/* a stall of many periods runs it once, not once per missed period */
	pv_rtc_ut_tsc = t0 + 10 * period;
	pv_rtc_loop_once();
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 4);
	pv_rtc_ut_tsc = t0 + 11 * period - 1;
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 4);
	pv_rtc_ut_tsc = t0 + 11 * period;
	pv_rtc_loop_once();
	CU_ASSERT_EQUAL(c.calls, 5);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(p), 0);
}

struct ut_self_remover {
	struct pv_rtc_poller *self;
	struct pv_rtc_poller *victim;	/* unregistered on the same call */
	unsigned int calls;
	unsigned int remove_at;
	int unreg_rc;
	int victim_rc;
};

static int
ut_self_remove(void *arg)
{
	struct ut_self_remover *r = arg;

	if (++r->calls == r->remove_at) {
		r->unreg_rc = pv_rtc_poller_unregister(r->self);
		if (r->victim != NULL)
			r->victim_rc = pv_rtc_poller_unregister(r->victim);
	}
	return 1;
}

static void
test_unregister_inside(void)
{
	struct ut_self_remover r = { .remove_at = 3, .unreg_rc = 1, .victim_rc = 1 };
	struct ut_counter after = { .rc = 0 }, victim = { .rc = 0 };
	struct pv_rtc_poller *pa;
	int i;

	r.self = pv_rtc_poller_register(ut_self_remove, &r, 0);
	r.victim = pv_rtc_poller_register(ut_count, &victim, 0);
	pa = pv_rtc_poller_register(ut_count, &after, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.self);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.victim);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
	for (i = 0; i < 6; i++)
		pv_rtc_loop_once();
	CU_ASSERT_EQUAL(r.calls, 3);
	CU_ASSERT_EQUAL(r.unreg_rc, 0);
	CU_ASSERT_EQUAL(r.victim_rc, 0);
	/* the victim, behind the remover, missed the iteration of its removal */
	CU_ASSERT_EQUAL(victim.calls, 2);
	CU_ASSERT_EQUAL(after.calls, 6);
	/* a removed poller is no longer valid */
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(r.self), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(pa), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcores[0].nb_pollers, 0);
}

static void
test_limits(void)
{
	struct pv_rtc_poller *p[PV_RTC_MAX_POLLERS];
	struct ut_counter c = { .rc = 1 };
	unsigned int i;

	for (i = 0; i < PV_RTC_MAX_POLLERS; i++) {
		p[i] = pv_rtc_poller_register(ut_count, &c, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
	}
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_poller_register(ut_count, &c, 0));
	CU_ASSERT_EQUAL(errno, ENOSPC);
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), PV_RTC_MAX_POLLERS);
	/* a freed slot is reused */
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(p[7]), 0);
	p[7] = pv_rtc_poller_register(ut_count, &c, 0);
	CU_ASSERT_PTR_NOT_NULL(p[7]);
	for (i = 0; i < PV_RTC_MAX_POLLERS; i++)
		CU_ASSERT_EQUAL(pv_rtc_poller_unregister(p[i]), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcores[0].pollers_end, 0);

	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rtc_poller_register(NULL, &c, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_loop_stop(RTE_MAX_LCORE), -EINVAL);
}

static int
ut_fail(void *arg)
{
	unsigned int *calls = arg;

	(*calls)++;
	return -EIO;
}

static void
test_poller_error_kept(void)
{
	struct ut_counter ok = { .rc = 4 };
	struct pv_rtc_poller *pf, *po;
	unsigned int calls = 0;

	pf = pv_rtc_poller_register(ut_fail, &calls, 0);
	po = pv_rtc_poller_register(ut_count, &ok, 0);
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 4);		/* errors add no work */
	CU_ASSERT_EQUAL(pv_rtc_loop_once(), 4);
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(pf->nb_errors, 2);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(pf), 0);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(po), 0);
}

/* Plain pthread: not an EAL lcore, so every per-lcore call refuses. */
static void *
ut_non_eal(void *arg)
{
	int *rc = arg;

	errno = 0;
	rc[0] = pv_rtc_poller_register(ut_fail, NULL, 0) == NULL ? errno : 0;
	rc[1] = pv_rtc_loop_once();
	rc[2] = pv_rtc_loop_run();
	rc[3] = pv_rtc_lcore_launch(UT_WORKER, ut_count, NULL);
	rc[4] = pv_rtc_lcore_wait(UT_WORKER);
	return NULL;
}

static void
test_non_eal_thread(void)
{
	int rc[5] = { 0 };
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, ut_non_eal, rc), 0);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(rc[0], EINVAL);
	CU_ASSERT_EQUAL(rc[1], -EINVAL);
	CU_ASSERT_EQUAL(rc[2], -EINVAL);
	/* only the main lcore launches and waits */
	CU_ASSERT_EQUAL(rc[3], -EPERM);
	CU_ASSERT_EQUAL(rc[4], -EPERM);
}

struct ut_worker {
	struct pv_rtc_poller *poller;
	struct ut_counter c;
	unsigned int lcore;
	int run_rc;
};

static int
ut_worker_main(void *arg)
{
	struct ut_worker *w = arg;

	w->lcore = rte_lcore_id();
	w->c.rc = 1;
	w->poller = pv_rtc_poller_register(ut_count, &w->c, 0);
	if (w->poller == NULL)
		return -1;
	w->run_rc = pv_rtc_loop_run();
	pv_rtc_poller_unregister(w->poller);
	return 42;
}

static int
ut_nop_lcore(void *arg)
{
	RTE_SET_USED(arg);
	return 7;
}

static void
test_launch_run_stop(void)
{
	struct ut_worker w = { .run_rc = 1 };
	uint64_t deadline;

	CU_ASSERT_EQUAL_FATAL(rte_lcore_is_enabled(UT_WORKER), 1);
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(UT_WORKER, ut_worker_main, &w), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(UT_WORKER, ut_nop_lcore, NULL), -EBUSY);
	deadline = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	while (__atomic_load_n(&w.c.calls, __ATOMIC_RELAXED) < 100 &&
	       rte_get_timer_cycles() < deadline)
		rte_pause();
	CU_ASSERT(w.c.calls >= 100);
	/* a poller of another lcore is not ours to remove */
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(w.poller), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_loop_stop(UT_WORKER), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(UT_WORKER), 42);
	CU_ASSERT_EQUAL(w.run_rc, 0);
	CU_ASSERT_EQUAL(w.lcore, UT_WORKER);
	CU_ASSERT_EQUAL(pv_rtc_lcores[UT_WORKER].stop, 0);	/* consumed */

	/* the lcore is free again */
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(UT_WORKER, ut_nop_lcore, NULL), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(UT_WORKER), 7);

	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(rte_get_main_lcore(), ut_nop_lcore, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(5, ut_nop_lcore, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(RTE_MAX_LCORE, ut_nop_lcore, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(UT_WORKER, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(rte_get_main_lcore()), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(RTE_MAX_LCORE), -EINVAL);
}

static void
test_stop_before_run(void)
{
	struct ut_counter c = { .rc = 1 };
	struct pv_rtc_poller *p;

	p = pv_rtc_poller_register(ut_count, &c, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* a stop that comes first ends the next run after one iteration */
	CU_ASSERT_EQUAL(pv_rtc_loop_stop(rte_lcore_id()), 0);
	CU_ASSERT_EQUAL(pv_rtc_loop_run(), 0);
	CU_ASSERT_EQUAL(c.calls, 0);
	CU_ASSERT_EQUAL(pv_rtc_poller_unregister(p), 0);
}

static int
ut_loop_forever(void *arg)
{
	RTE_SET_USED(arg);
	return pv_rtc_loop_run();
}

/* pv_cleanup() stops loops still running and waits for their lcores. */
static void
test_cleanup_stops_loops(void)
{
	CU_ASSERT_EQUAL(pv_rtc_lcore_launch(UT_WORKER, ut_loop_forever, NULL), 0);
	CU_ASSERT_EQUAL(pv_cleanup(), 0);
}

int
main(void)
{
	static const struct ut_case cases[] = {
		{ "every_iteration", test_every_iteration },
		{ "us_to_tsc", test_us_to_tsc },
		{ "periodic", test_periodic },
		{ "unregister_inside", test_unregister_inside },
		{ "limits", test_limits },
		{ "poller_error_kept", test_poller_error_kept },
		{ "non_eal_thread", test_non_eal_thread },
		{ "launch_run_stop", test_launch_run_stop },
		{ "stop_before_run", test_stop_before_run },
		{ "cleanup_stops_loops", test_cleanup_stops_loops },
		{ NULL, NULL },
	};
	int ret;

	ret = ut_eal_init();
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 77;
	}
	return ut_run("rtc_loop", cases);
}
