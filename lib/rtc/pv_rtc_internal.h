/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * lib/rtc calls for other pollverbs components (lib/verbs, drivers). Not
 * installed; applications never include it.
 */

#ifndef PV_LIB_RTC_PV_RTC_INTERNAL_H
#define PV_LIB_RTC_PV_RTC_INTERNAL_H

#include <stdint.h>
#include <sys/queue.h>

#include <rte_spinlock.h>

#ifdef __SANITIZE_THREAD__
#include <sanitizer/tsan_interface.h>
#endif

/*
 * rte_spinlock for the verbs' locks (drivers' per-device and per-queue
 * locks), told to ThreadSanitizer: DPDK's x86 spinlock is inline assembly,
 * which TSan does not see, so under -fsanitize=thread every access the lock
 * orders would look like a race. Without TSan these are rte_spinlock_*.
 */
static inline void
pv_rtc_spin_lock(rte_spinlock_t *l)
{
	rte_spinlock_lock(l);
#ifdef __SANITIZE_THREAD__
	__tsan_acquire(l);
#endif
}

static inline int
pv_rtc_spin_trylock(rte_spinlock_t *l)
{
	int got = rte_spinlock_trylock(l);

#ifdef __SANITIZE_THREAD__
	if (got)
		__tsan_acquire(l);
#endif
	return got;
}

static inline void
pv_rtc_spin_unlock(rte_spinlock_t *l)
{
#ifdef __SANITIZE_THREAD__
	__tsan_release(l);
#endif
	rte_spinlock_unlock(l);
}

/** A function pv_cleanup() calls; see pv_rtc_cleanup_hook_add(). */
typedef void (*pv_rtc_cleanup_fn)(void);

/** Hooks one process may register. */
#define PV_RTC_MAX_CLEANUP_HOOKS 16

/**
 * Have pv_cleanup() call @p fn. Hooks run in reverse order of registration,
 * after every lcore loop has stopped and the control thread has exited, and
 * before rte_eal_cleanup() (so DPDK memory, rings and ethdevs still work).
 * May be called before pv_init() (e.g. from a constructor).
 *
 * @return 0, -EINVAL NULL @p fn, -ENOSPC PV_RTC_MAX_CLEANUP_HOOKS reached.
 * Thread: main thread, or a constructor.
 */
int pv_rtc_cleanup_hook_add(pv_rtc_cleanup_fn fn);

/**
 * A source of background work for the progress thread ("pv-progress"): a
 * DPDK service (rte_service) that the thread runs with
 * rte_service_run_iter_on_app_lcore(), and how the thread may sleep when the
 * service has nothing to do. The owner (a driver) registers the service
 * (component runstate and runstate on, mapped check off), fills the fields
 * below and calls pv_rtc_bg_add().
 *
 * After each run the service stores in @c sleep_us how long the thread may
 * sleep before running it again: 0 run again at once (busy), N microseconds
 * (the nearest timer, or a back-off when the port has no RX interrupt), or
 * UINT64_MAX: only when an interrupt or pv_rtc_bg_kick() wakes the thread
 * (allowed only with @c intr set, the interrupt having been enabled by the
 * service with rte_eth_dev_rx_intr_enable() before it said so).
 * The thread sleeps for the smallest value over its sources: sleeps shorter
 * than a millisecond with rte_delay_us_sleep(), longer ones in
 * rte_epoll_wait() on its epoll set (the kick eventfd and the RX interrupts).
 */
struct pv_rtc_bg_source {
	uint32_t service_id;		/**< rte_service id, runnable */
	uint16_t port_id;		/**< ethdev whose RX queue interrupt wakes the thread */
	uint16_t queue_id;
	uint8_t intr;			/**< 1: add the RX queue's interrupt to the epoll set */
	uint64_t sleep_us;		/**< written by the service on the progress thread */
	/* lib/rtc's own */
	TAILQ_ENTRY(pv_rtc_bg_source) next;
	uint8_t intr_added;
};

/**
 * Have the progress thread run @p src; starts the thread on first use.
 * When @p src->intr is set and the RX queue interrupt cannot be added to the
 * thread's epoll set, @p src->intr is cleared (the service must then back off
 * instead of sleeping on the interrupt).
 * @return 0, -EINVAL NULL, -EEXIST already added, -ESHUTDOWN pv_cleanup()
 *         started, or the errno of the thread's creation negated.
 * Thread: any; not from the progress thread (from inside a service).
 */
int pv_rtc_bg_add(struct pv_rtc_bg_source *src);

/**
 * Stop running @p src. Synchronous: when this returns the progress thread is
 * not inside the service and will not call it again; the owner may then
 * unregister the service and free what it uses.
 * @return 0, -ENOENT not added. Thread: any but the progress thread.
 */
int pv_rtc_bg_del(struct pv_rtc_bg_source *src);

/**
 * Wake the progress thread if it sleeps in rte_epoll_wait() (a source's
 * timers changed while it slept until an interrupt). Cheap when it does not:
 * one relaxed load. Thread: any.
 */
void pv_rtc_bg_kick(void);

/** Whether the calling thread is the progress thread. Thread: any. */
int pv_rtc_is_bg_thread(void);

/** Stop the progress thread (pv_cleanup(), before the cleanup hooks). */
void pv_rtc_bg_stop(void);

#endif /* PV_LIB_RTC_PV_RTC_INTERNAL_H */
