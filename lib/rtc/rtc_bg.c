/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The progress thread ("pv-progress"): one EAL control thread per process,
 * registered as an EAL thread (rte_thread_register) so that it has an lcore
 * id, mempool caches, and may run DPDK services. It runs the services of its
 * sources (pv_rtc_bg_add) with rte_service_run_iter_on_app_lcore(), then
 * sleeps as long as the sources allow: rte_delay_us_sleep() below a
 * millisecond, rte_epoll_wait() on its epoll set (a kick eventfd and the RX
 * queue interrupts of the sources' ports) above.
 *
 * The thread runs on the cores of the process's EAL lcores (not on the
 * control cpuset of other control threads): the work it does is the work the
 * application's own poll loop would have done, and it only does it when that
 * loop is not polling, so it takes the application's core when the
 * application blocks instead of another process's.
 *
 * The sources list is guarded by a mutex that the thread holds while it runs
 * the services, so that pv_rtc_bg_del() returns only between two passes.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>

#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_service.h>

#include "pv_rtc.h"
#include "pv_rtc_internal.h"
#include "rtc_priv.h"

#define RTC_BG_MAX_EVENTS 16
#define RTC_BG_YIELD_US	20	/* busy passes between two sched_yield() */

static struct {
	pthread_mutex_t lock;		/* sources, started, stop */
	TAILQ_HEAD(, pv_rtc_bg_source) sources;
	bool started;
	bool stop;
	bool shutdown;			/* pv_cleanup() stopped the thread: no restart */
	pthread_t thread;
	int epfd;
	int kick_fd;
	struct rte_epoll_event kick_ev;	/* must outlive its registration */
	uint32_t asleep;		/* in rte_epoll_wait (atomic) */
	uint64_t yield_cycles;		/* RTC_BG_YIELD_US in TSC cycles (thread only) */
	uint64_t last_yield_tsc;	/* the thread's last yield or sleep (thread only) */
} rtc_bg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.sources = TAILQ_HEAD_INITIALIZER(rtc_bg.sources),
	.epfd = -1,
	.kick_fd = -1,
};

static __thread int rtc_on_bg_thread;

int
pv_rtc_is_bg_thread(void)
{
	return rtc_on_bg_thread;
}

void
pv_rtc_bg_kick(void)
{
	uint64_t one = 1;

	if (__atomic_load_n(&rtc_bg.asleep, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&rtc_bg.asleep, 0, __ATOMIC_ACQ_REL))
		if (write(rtc_bg.kick_fd, &one, sizeof(one)) != sizeof(one))
			RTC_LOG(ERR, "progress thread kick: %s", strerror(errno));
}

/* Add or remove @p src's RX interrupt on the epoll set. Caller holds the lock. */
static void
rtc_bg_intr(struct pv_rtc_bg_source *src, int op)
{
	int ret;

	if (op == RTE_INTR_EVENT_ADD && (!src->intr || src->intr_added))
		return;
	if (op == RTE_INTR_EVENT_DEL && !src->intr_added)
		return;
	ret = rte_eth_dev_rx_intr_ctl_q(src->port_id, src->queue_id, rtc_bg.epfd, op, src);
	if (op == RTE_INTR_EVENT_ADD) {
		if (ret == 0) {
			src->intr_added = 1;
		} else {
			RTC_LOG(INFO, "port %u queue %u: no RX interrupt (%s): the progress "
				"thread backs off instead", src->port_id, src->queue_id,
				strerror(-ret));
			src->intr = 0;
		}
	} else {
		src->intr_added = 0;
	}
}

/*
 * One pass over the sources: @return the sleep they allow, in microseconds;
 * @p stop set when pv_rtc_bg_stop() asked the thread to end (the same lock
 * guards both: one lock round per pass).
 */
static uint64_t
rtc_bg_pass(bool *stop)
{
	struct pv_rtc_bg_source *src;
	uint64_t sleep_us = UINT64_MAX;

	pthread_mutex_lock(&rtc_bg.lock);
	*stop = rtc_bg.stop;
	TAILQ_FOREACH(src, &rtc_bg.sources, next) {
		if (*stop)
			break;
		src->sleep_us = 0;
		if (rte_service_run_iter_on_app_lcore(src->service_id, 0) != 0)
			src->sleep_us = 1000;	/* not runnable (stopping): look again later */
		if (src->sleep_us == UINT64_MAX && !src->intr)
			src->sleep_us = 1000;	/* no interrupt would wake us */
		sleep_us = RTE_MIN(sleep_us, src->sleep_us);
	}
	if (TAILQ_EMPTY(&rtc_bg.sources))
		sleep_us = UINT64_MAX;
	pthread_mutex_unlock(&rtc_bg.lock);
	return sleep_us;
}

static void
rtc_bg_sleep(uint64_t sleep_us)
{
	struct rte_epoll_event ev[RTC_BG_MAX_EVENTS];
	uint64_t token;
	int timeout_ms;

	if (sleep_us == 0) {
		/*
		 * Work left: the next pass now, letting a thread that waits
		 * for this core run (the application's, when the lcores it was
		 * given are the progress thread's too) once per
		 * RTC_BG_YIELD_US of passes, not after each: a yield costs
		 * ~160 ns on the VMs here, an 8 B frame's whole engine work
		 * ~100 ns. nanosleep(0) would sleep up to the timer slack.
		 */
		uint64_t now = rte_rdtsc();

		if (now - rtc_bg.last_yield_tsc >= rtc_bg.yield_cycles) {
			sched_yield();
			rtc_bg.last_yield_tsc = rte_rdtsc();
		}
		return;
	}
	rtc_bg.last_yield_tsc = 0;	/* a sleep yields: the next busy pass may too */
	if (sleep_us < 1000) {
		rte_delay_us_sleep((unsigned int)sleep_us);
		return;
	}
	timeout_ms = sleep_us == UINT64_MAX ? -1 : (int)RTE_MIN(sleep_us / 1000, 1000u * 1000);
	__atomic_store_n(&rtc_bg.asleep, 1, __ATOMIC_SEQ_CST);
	(void)rte_epoll_wait(rtc_bg.epfd, ev, RTC_BG_MAX_EVENTS, timeout_ms);
	__atomic_store_n(&rtc_bg.asleep, 0, __ATOMIC_RELAXED);
	/* the kick eventfd is level-triggered: empty it */
	(void)!read(rtc_bg.kick_fd, &token, sizeof(token));
}

/* Run on the cores of the process's lcores (their union). */
static void
rtc_bg_affinity(void)
{
	rte_cpuset_t set, one;
	unsigned int lcore;

	CPU_ZERO(&set);
	RTE_LCORE_FOREACH(lcore) {
		one = rte_lcore_cpuset(lcore);
		CPU_OR(&set, &set, &one);
	}
	if (CPU_COUNT(&set) == 0)
		return;
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		RTC_LOG(WARNING, "progress thread: cannot run on the lcores' cores");
}

static void *
rtc_bg_main(void *unused)
{
	bool stop;

	RTE_SET_USED(unused);
	rtc_on_bg_thread = 1;
	rtc_bg_affinity();
	/* sleeps of tens of microseconds must not last the default 50 us slack */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (rte_thread_register() != 0)
		RTC_LOG(ERR, "progress thread: rte_thread_register: %s (services cannot run)",
			rte_strerror(rte_errno));
	rtc_bg.yield_cycles = rte_get_tsc_hz() / 1000000 * RTC_BG_YIELD_US;
	rtc_bg.last_yield_tsc = 0;
	for (;;) {
		uint64_t sleep_us = rtc_bg_pass(&stop);

		if (stop)
			break;
		rtc_bg_sleep(sleep_us);
	}
	rte_thread_unregister();
	return NULL;
}

/* Create the epoll set and the thread. Caller holds the lock. */
static int
rtc_bg_start(void)
{
	int ret;

	rtc_bg.kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rtc_bg.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (rtc_bg.kick_fd < 0 || rtc_bg.epfd < 0) {
		ret = -errno;
		goto err;
	}
	memset(&rtc_bg.kick_ev, 0, sizeof(rtc_bg.kick_ev));
	rtc_bg.kick_ev.epdata.event = EPOLLIN;
	ret = rte_epoll_ctl(rtc_bg.epfd, EPOLL_CTL_ADD, rtc_bg.kick_fd, &rtc_bg.kick_ev);
	if (ret != 0)
		goto err;
	rtc_bg.stop = false;
	ret = rte_ctrl_thread_create(&rtc_bg.thread, "pv-progress", NULL, rtc_bg_main, NULL);
	if (ret != 0) {
		ret = ret < 0 ? ret : -ret;
		goto err;
	}
	rtc_bg.started = true;
	return 0;
err:
	RTC_LOG(ERR, "cannot start the progress thread: %s", strerror(-ret));
	if (rtc_bg.epfd >= 0)
		close(rtc_bg.epfd);
	if (rtc_bg.kick_fd >= 0)
		close(rtc_bg.kick_fd);
	rtc_bg.epfd = -1;
	rtc_bg.kick_fd = -1;
	return ret;
}

int
pv_rtc_bg_add(struct pv_rtc_bg_source *src)
{
	struct pv_rtc_bg_source *s;
	int ret = 0;

	if (src == NULL)
		return -EINVAL;
	pthread_mutex_lock(&rtc_bg.lock);
	if (rtc_bg.shutdown) {
		pthread_mutex_unlock(&rtc_bg.lock);
		return -ESHUTDOWN;
	}
	TAILQ_FOREACH(s, &rtc_bg.sources, next) {
		if (s == src) {
			pthread_mutex_unlock(&rtc_bg.lock);
			return -EEXIST;
		}
	}
	if (!rtc_bg.started)
		ret = rtc_bg_start();
	if (ret == 0) {
		src->intr_added = 0;
		src->sleep_us = 0;
		rtc_bg_intr(src, RTE_INTR_EVENT_ADD);
		TAILQ_INSERT_TAIL(&rtc_bg.sources, src, next);
	}
	pthread_mutex_unlock(&rtc_bg.lock);
	pv_rtc_bg_kick();
	return ret;
}

int
pv_rtc_bg_del(struct pv_rtc_bg_source *src)
{
	struct pv_rtc_bg_source *s;

	if (src == NULL)
		return -ENOENT;
	pthread_mutex_lock(&rtc_bg.lock);
	TAILQ_FOREACH(s, &rtc_bg.sources, next)
		if (s == src)
			break;
	if (s == NULL) {
		pthread_mutex_unlock(&rtc_bg.lock);
		return -ENOENT;
	}
	TAILQ_REMOVE(&rtc_bg.sources, src, next);
	rtc_bg_intr(src, RTE_INTR_EVENT_DEL);
	pthread_mutex_unlock(&rtc_bg.lock);
	return 0;
}

void
pv_rtc_bg_stop(void)
{
	uint64_t one = 1;
	bool started;

	pthread_mutex_lock(&rtc_bg.lock);
	started = rtc_bg.started;
	rtc_bg.stop = true;
	rtc_bg.shutdown = true;
	pthread_mutex_unlock(&rtc_bg.lock);
	if (!started)
		return;
	if (write(rtc_bg.kick_fd, &one, sizeof(one)) != sizeof(one))
		RTC_LOG(ERR, "progress thread stop: %s", strerror(errno));
	pthread_join(rtc_bg.thread, NULL);
	pthread_mutex_lock(&rtc_bg.lock);
	rtc_bg.started = false;
	close(rtc_bg.epfd);
	close(rtc_bg.kick_fd);
	rtc_bg.epfd = -1;
	rtc_bg.kick_fd = -1;
	pthread_mutex_unlock(&rtc_bg.lock);
}
