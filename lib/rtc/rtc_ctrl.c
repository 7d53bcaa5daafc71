/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The control-plane thread: one EAL control thread ("pv-ctrl") running queued
 * tasks that may block, and periodic timers between them. The queue is a
 * mutex/condvar ring: control work is rare and may sleep, so a lock here
 * costs nothing that matters. The thread sleeps on the condvar until a task
 * is queued or the first timer is due (CLOCK_MONOTONIC).
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include <rte_lcore.h>

#include "pv_rtc.h"
#include "rtc_priv.h"

/* Completion of one pv_rtc_ctrl_call(wait = 1), on the caller's stack. */
struct rtc_ctrl_waiter {
	bool done;
};

struct rtc_ctrl_task {
	pv_rtc_msg_fn fn;
	void *arg;
	struct rtc_ctrl_waiter *waiter;	/* NULL: nobody waits */
};

struct pv_rtc_ctrl_timer {
	TAILQ_ENTRY(pv_rtc_ctrl_timer) next;
	pv_rtc_msg_fn fn;
	void *arg;
	uint64_t period_ns;
	uint64_t due_ns;		/* CLOCK_MONOTONIC; 0: kicked, due now */
	bool kicked;			/* kicked since its run started */
	bool stopped;			/* never runs again */
	bool orphan;			/* stopped from its own run: the thread frees it */
};

TAILQ_HEAD(rtc_ctrl_timer_list, pv_rtc_ctrl_timer);

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work_cond;	/* task queued, or stop requested */
	pthread_cond_t done_cond;	/* a waited-for task finished */
	struct rtc_ctrl_task tasks[PV_RTC_CTRL_QUEUE_ENTRIES];
	unsigned int head;		/* next task to run */
	unsigned int count;
	bool running;			/* accepting tasks */
	bool stop;
	pthread_t thread;
	struct rtc_ctrl_timer_list timers;
	struct pv_rtc_ctrl_timer *timer_running;	/* whose function runs now */
} rtc_ctrl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work_cond = PTHREAD_COND_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
	.timers = TAILQ_HEAD_INITIALIZER(rtc_ctrl.timers),
};

static __thread int rtc_on_ctrl_thread;

static uint64_t
rtc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The live timer due first, or NULL. Caller holds the lock. */
static struct pv_rtc_ctrl_timer *
rtc_timer_first(void)
{
	struct pv_rtc_ctrl_timer *t, *first = NULL;

	TAILQ_FOREACH(t, &rtc_ctrl.timers, next)
		if (!t->stopped && (first == NULL || t->due_ns < first->due_ns))
			first = t;
	return first;
}

/*
 * Run @p t's function with the lock dropped, then schedule its next run.
 * Caller holds the lock.
 */
static void
rtc_timer_run(struct pv_rtc_ctrl_timer *t)
{
	rtc_ctrl.timer_running = t;
	t->kicked = false;
	pthread_mutex_unlock(&rtc_ctrl.lock);

	t->fn(t->arg);

	pthread_mutex_lock(&rtc_ctrl.lock);
	rtc_ctrl.timer_running = NULL;
	if (t->orphan)
		free(t);	/* stopped from inside fn: unlinked already */
	else if (!t->stopped)
		t->due_ns = t->kicked ? 0 : rtc_now_ns() + t->period_ns;
	/* a stopper from another thread waits for the run to end */
	pthread_cond_broadcast(&rtc_ctrl.done_cond);
}

/* Sleep until work is queued or @p t (may be NULL) is due. Caller holds the lock. */
static void
rtc_ctrl_sleep(const struct pv_rtc_ctrl_timer *t)
{
	struct timespec ts;

	if (t == NULL) {
		pthread_cond_wait(&rtc_ctrl.work_cond, &rtc_ctrl.lock);
		return;
	}
	ts.tv_sec = (time_t)(t->due_ns / 1000000000u);
	ts.tv_nsec = (long)(t->due_ns % 1000000000u);
	(void)pthread_cond_clockwait(&rtc_ctrl.work_cond, &rtc_ctrl.lock, CLOCK_MONOTONIC, &ts);
}

static void *
rtc_ctrl_main(void *unused)
{
	struct pv_rtc_ctrl_timer *timer;
	struct rtc_ctrl_task t;

	RTE_SET_USED(unused);
	rtc_on_ctrl_thread = 1;
	pthread_mutex_lock(&rtc_ctrl.lock);
	for (;;) {
		/* tasks first; on stop, finish what is queued so no waiter is
		 * left hanging, and run no more timers */
		if (rtc_ctrl.count == 0) {
			if (rtc_ctrl.stop)
				break;
			timer = rtc_timer_first();
			if (timer != NULL && timer->due_ns <= rtc_now_ns())
				rtc_timer_run(timer);
			else
				rtc_ctrl_sleep(timer);
			continue;
		}
		t = rtc_ctrl.tasks[rtc_ctrl.head];
		rtc_ctrl.head = (rtc_ctrl.head + 1) % PV_RTC_CTRL_QUEUE_ENTRIES;
		rtc_ctrl.count--;
		pthread_mutex_unlock(&rtc_ctrl.lock);

		t.fn(t.arg);

		pthread_mutex_lock(&rtc_ctrl.lock);
		if (t.waiter != NULL) {
			t.waiter->done = true;
			pthread_cond_broadcast(&rtc_ctrl.done_cond);
		}
	}
	pthread_mutex_unlock(&rtc_ctrl.lock);
	return NULL;
}

int
pv_rtc_ctrl_start(void)
{
	int ret;

	pthread_mutex_lock(&rtc_ctrl.lock);
	rtc_ctrl.head = 0;
	rtc_ctrl.count = 0;
	rtc_ctrl.stop = false;
	pthread_mutex_unlock(&rtc_ctrl.lock);

	ret = rte_ctrl_thread_create(&rtc_ctrl.thread, "pv-ctrl", NULL, rtc_ctrl_main, NULL);
	if (ret != 0) {
		ret = ret < 0 ? ret : -ret;
		RTC_LOG(ERR, "cannot start the control thread: %s", strerror(-ret));
		return ret;
	}
	pthread_mutex_lock(&rtc_ctrl.lock);
	rtc_ctrl.running = true;
	pthread_mutex_unlock(&rtc_ctrl.lock);
	return 0;
}

void
pv_rtc_ctrl_stop(void)
{
	pthread_mutex_lock(&rtc_ctrl.lock);
	if (!rtc_ctrl.running) {
		pthread_mutex_unlock(&rtc_ctrl.lock);
		return;
	}
	rtc_ctrl.running = false;	/* new calls get -ESHUTDOWN */
	rtc_ctrl.stop = true;
	pthread_cond_signal(&rtc_ctrl.work_cond);
	pthread_mutex_unlock(&rtc_ctrl.lock);
	pthread_join(rtc_ctrl.thread, NULL);
}

int
pv_rtc_ctrl_call(pv_rtc_msg_fn fn, void *arg, int wait)
{
	struct rtc_ctrl_waiter w = { .done = false };
	unsigned int tail;

	if (fn == NULL)
		return -EINVAL;
	if (wait && rtc_on_ctrl_thread) {
		RTC_LOG(ERR, "waiting for the control thread from itself would deadlock");
		return -EDEADLK;
	}
	pthread_mutex_lock(&rtc_ctrl.lock);
	if (!rtc_ctrl.running) {
		pthread_mutex_unlock(&rtc_ctrl.lock);
		return -ESHUTDOWN;
	}
	if (rtc_ctrl.count == PV_RTC_CTRL_QUEUE_ENTRIES) {
		pthread_mutex_unlock(&rtc_ctrl.lock);
		return -ENOBUFS;
	}
	tail = (rtc_ctrl.head + rtc_ctrl.count) % PV_RTC_CTRL_QUEUE_ENTRIES;
	rtc_ctrl.tasks[tail] = (struct rtc_ctrl_task){
		.fn = fn,
		.arg = arg,
		.waiter = wait ? &w : NULL,
	};
	rtc_ctrl.count++;
	pthread_cond_signal(&rtc_ctrl.work_cond);
	while (wait && !w.done)
		pthread_cond_wait(&rtc_ctrl.done_cond, &rtc_ctrl.lock);
	pthread_mutex_unlock(&rtc_ctrl.lock);
	return 0;
}

struct pv_rtc_ctrl_timer *
pv_rtc_ctrl_timer_start(pv_rtc_msg_fn fn, void *arg, uint64_t period_us)
{
	struct pv_rtc_ctrl_timer *t;

	if (fn == NULL || period_us == 0 || period_us > UINT64_MAX / 1000) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	t->fn = fn;
	t->arg = arg;
	t->period_ns = period_us * 1000;
	t->due_ns = rtc_now_ns() + t->period_ns;
	pthread_mutex_lock(&rtc_ctrl.lock);
	if (!rtc_ctrl.running) {
		pthread_mutex_unlock(&rtc_ctrl.lock);
		free(t);
		errno = ESHUTDOWN;
		return NULL;
	}
	TAILQ_INSERT_TAIL(&rtc_ctrl.timers, t, next);
	/* the thread may sleep until a later deadline: make it look again */
	pthread_cond_signal(&rtc_ctrl.work_cond);
	pthread_mutex_unlock(&rtc_ctrl.lock);
	return t;
}

int
pv_rtc_ctrl_timer_kick(struct pv_rtc_ctrl_timer *timer)
{
	if (timer == NULL)
		return -EINVAL;
	pthread_mutex_lock(&rtc_ctrl.lock);
	timer->kicked = true;
	timer->due_ns = 0;
	pthread_cond_signal(&rtc_ctrl.work_cond);
	pthread_mutex_unlock(&rtc_ctrl.lock);
	return 0;
}

int
pv_rtc_ctrl_timer_stop(struct pv_rtc_ctrl_timer *timer)
{
	if (timer == NULL)
		return -EINVAL;
	pthread_mutex_lock(&rtc_ctrl.lock);
	timer->stopped = true;
	if (rtc_ctrl.timer_running == timer && rtc_on_ctrl_thread) {
		/* from inside its own function: the thread frees it after the run */
		TAILQ_REMOVE(&rtc_ctrl.timers, timer, next);
		timer->orphan = true;
		pthread_mutex_unlock(&rtc_ctrl.lock);
		return 0;
	}
	while (rtc_ctrl.timer_running == timer)
		pthread_cond_wait(&rtc_ctrl.done_cond, &rtc_ctrl.lock);
	TAILQ_REMOVE(&rtc_ctrl.timers, timer, next);
	pthread_mutex_unlock(&rtc_ctrl.lock);
	free(timer);
	return 0;
}

int
pv_rtc_is_ctrl_thread(void)
{
	return rtc_on_ctrl_thread;
}
