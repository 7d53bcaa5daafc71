/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * Run-to-completion runtime on DPDK's EAL: init, lcores, per-lcore poll
 * loops with pollers, inter-lcore messages over rte_ring, and one
 * control-plane thread (rte_ctrl_thread_create) for blocking setup work and
 * asynchronous events.
 *
 * Thread rules, summarised (each call repeats its own):
 * | call                                   | who may call it                  |
 * |----------------------------------------|----------------------------------|
 * | pv_init, pv_cleanup                    | main thread, once each           |
 * | pv_rtc_lcore_launch, pv_rtc_lcore_wait | main lcore                       |
 * | pv_rtc_poller_register/unregister      | the lcore whose loop it joins    |
 * | pv_rtc_loop_run                        | an EAL lcore (its own loop)      |
 * | pv_rtc_loop_stop, pv_rtc_msg_send      | any thread                       |
 * | pv_rtc_ctrl_call                       | any thread                       |
 */

#ifndef PV_LIB_RTC_PV_RTC_H
#define PV_LIB_RTC_PV_RTC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

/**
 * Initialise pollverbs: strip pollverbs' own options, then rte_eal_init().
 *
 * pollverbs options (removed from argv before EAL sees it):
 *   --pv-dev=DRIVER[:ARGS]  add a device of DRIVER with "key=value,..." ARGS
 *                           (repeatable; see doc/guides/drivers/).
 * All other arguments up to "--" are EAL arguments (-l, --no-huge, --vdev,
 * --file-prefix, ...). Uses hugepages when the machine has them; add
 * --no-huge to run without. Checks RLIMIT_MEMLOCK against the memory EAL
 * will lock and logs a warning with the fix when it is too low.
 *
 * @return Number of arguments consumed (argv[ret] is the first application
 *         argument, like rte_eal_init(), with argv permuted accordingly), or
 *         -errno: -EALREADY called twice, -EINVAL bad pollverbs option, or
 *         EAL's rte_errno negated.
 * Thread: the process's main thread, once.
 */
PV_EXPORT int pv_init(int argc, char **argv);

/**
 * Stop the control thread, remove devices, rte_eal_cleanup().
 * @return 0 or -errno. Thread: main thread, after all lcores returned.
 */
PV_EXPORT int pv_cleanup(void);

/**
 * The "--pv-dev" arguments given to pv_init(), in order.
 * @param nb_p  Set to the number of entries.
 * @return Array of "DRIVER[:ARGS]" strings owned by lib/rtc, valid until
 *         pv_cleanup(). Thread: any, after pv_init().
 */
PV_EXPORT const char *const *pv_rtc_devargs(int *nb_p);

/** Entry function of a launched lcore; its return value is its exit code. */
typedef int (*pv_rtc_lcore_fn)(void *arg);

/**
 * Run @p fn(@p arg) on worker lcore @p lcore_id (rte_eal_remote_launch()).
 * @return 0, -EINVAL not a worker lcore, -EBUSY it is already running.
 * Thread: main lcore.
 */
PV_EXPORT int pv_rtc_lcore_launch(unsigned int lcore_id, pv_rtc_lcore_fn fn, void *arg);

/**
 * Wait for a launched lcore to return (rte_eal_wait_lcore()).
 * @return its function's return value. Thread: main lcore.
 */
PV_EXPORT int pv_rtc_lcore_wait(unsigned int lcore_id);

/** A poller: returns work done (> 0 busy, 0 idle) or -errno (logged, kept). */
typedef int (*pv_rtc_poller_fn)(void *arg);

struct pv_rtc_poller;

/**
 * Register a poller on the calling lcore's loop.
 * @param period_us  0: run on every loop iteration; otherwise run at most
 *                   once per @p period_us microseconds (TSC based).
 * @return The poller; NULL with errno: EINVAL NULL fn or not an EAL lcore,
 *         ENOSPC the lcore has PV_RTC_MAX_POLLERS pollers.
 * Thread: the lcore that will run it (register from inside its loop or
 *         before pv_rtc_loop_run()); use pv_rtc_msg_send() to ask another.
 */
PV_EXPORT struct pv_rtc_poller *pv_rtc_poller_register(pv_rtc_poller_fn fn, void *arg,
						       uint64_t period_us);

/**
 * Remove a poller from its loop; it is not called again after this returns.
 * May be called from inside a poller (including itself).
 * @return 0, -EINVAL NULL or foreign poller. Thread: the poller's lcore.
 */
PV_EXPORT int pv_rtc_poller_unregister(struct pv_rtc_poller *poller);

#define PV_RTC_MAX_POLLERS 64

/**
 * Run the calling lcore's poll loop until pv_rtc_loop_stop(): each
 * iteration drains the lcore's message ring, then runs every due poller.
 * @return 0 when stopped, -EINVAL not an EAL lcore.
 */
PV_EXPORT int pv_rtc_loop_run(void);

/**
 * Run one iteration of the calling lcore's loop (messages, then due pollers).
 * @return work done by the iteration (sum of poller results >= 0, plus
 *         messages handled), or -EINVAL not an EAL lcore.
 */
PV_EXPORT int pv_rtc_loop_once(void);

/** Ask lcore @p lcore_id's loop to return; 0 or -EINVAL. Thread: any. */
PV_EXPORT int pv_rtc_loop_stop(unsigned int lcore_id);

/** A message handler, run on the target lcore's loop. */
typedef void (*pv_rtc_msg_fn)(void *arg);

/**
 * Send @p fn(@p arg) to lcore @p lcore_id; it runs there on its loop's next
 * iteration, in FIFO order per sender. Multi-producer safe (rte_ring).
 * @return 0, -EINVAL bad lcore or NULL fn, -ENOBUFS the ring is full.
 * Thread: any.
 */
PV_EXPORT int pv_rtc_msg_send(unsigned int lcore_id, pv_rtc_msg_fn fn, void *arg);

/**
 * Run @p fn(@p arg) on the control-plane thread (which may block).
 * @param wait  Nonzero: return only after @p fn returned (must not be
 *              called from the control thread itself with wait set).
 * @return 0, -EINVAL NULL fn, -EDEADLK wait from the control thread,
 *         -ENOBUFS queue full, -ESHUTDOWN not initialised.
 * Thread: any.
 */
PV_EXPORT int pv_rtc_ctrl_call(pv_rtc_msg_fn fn, void *arg, int wait);

/** Nonzero when the calling thread is the control-plane thread. */
PV_EXPORT int pv_rtc_is_ctrl_thread(void);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_RTC_PV_RTC_H */
