/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The control-plane thread: one EAL control thread ("pv-ctrl") running queued
 * tasks that may block. The queue is a mutex/condvar ring: control work is
 * rare and may sleep, so a lock here costs nothing that matters.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

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
} rtc_ctrl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work_cond = PTHREAD_COND_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
};

static __thread int rtc_on_ctrl_thread;

static void *
rtc_ctrl_main(void *unused)
{
	struct rtc_ctrl_task t;

	RTE_SET_USED(unused);
	rtc_on_ctrl_thread = 1;
	pthread_mutex_lock(&rtc_ctrl.lock);
	for (;;) {
		/* on stop, finish what is queued so no waiter is left hanging */
		while (rtc_ctrl.count == 0 && !rtc_ctrl.stop)
			pthread_cond_wait(&rtc_ctrl.work_cond, &rtc_ctrl.lock);
		if (rtc_ctrl.count == 0)
			break;
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

int
pv_rtc_is_ctrl_thread(void)
{
	return rtc_on_ctrl_thread;
}
