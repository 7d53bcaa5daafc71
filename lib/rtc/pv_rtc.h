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
 * | pv_rtc_loop_run, pv_rtc_loop_once      | an EAL lcore (its own loop)      |
 * | pv_rtc_loop_stop, pv_rtc_msg_send      | any thread                       |
 * | pv_rtc_ctrl_call (wait = 0)            | any thread                       |
 * | pv_rtc_ctrl_call (wait != 0)           | any thread but the control thread|
 * | pv_rtc_ctrl_timer_start, _kick, _stop  | any thread                       |
 * | pv_rtc_devargs, pv_rtc_is_ctrl_thread  | any thread                       |
 *
 * "EAL lcore" means a thread with an lcore id: the main lcore, a worker
 * lcore started by pv_rtc_lcore_launch(), or a thread registered with
 * rte_thread_register(). Guide: doc/guides/prog_guide/rtc.rst.
 *
 * Threads (what pv_verbs.h's thread rules refer to):
 * - Verbs may be called from any thread, EAL lcore or not, in both progress
 *   modes (pv_set_progress_mode()); in PV_PROGRESS_APP mode, one thread at
 *   a time per device, as the application promised.
 * - A thread that is not an EAL lcore (rte_lcore_id() == LCORE_ID_ANY) works
 *   as is: mbufs then come from the mempools without a per-lcore cache (a
 *   little slower). rte_thread_register() gives it an lcore id and caches;
 *   call rte_thread_unregister() before it exits. It must not call
 *   pv_rtc_poller_register(), pv_rtc_loop_run() or pv_rtc_loop_once(),
 *   which need an lcore id.
 * - pollverbs runs threads of its own besides the EAL's: "pv-ctrl", the
 *   control-plane thread (link monitor, blocking tasks), and "pv-progress",
 *   which runs the background progress of devices in the default thread-safe
 *   mode on the cores of the process's lcores, sleeping when they are idle
 *   (doc/guides/prog_guide/rtc.rst, "Progress thread").
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
 * Initialise pollverbs: strip pollverbs' own options, then rte_eal_init(),
 * then create the per-lcore message rings and start the control thread.
 *
 * pollverbs options (taken out before EAL sees the rest; anywhere before a
 * "--", never after it):
 *   --pv-dev=DRIVER[:ARGS]  add a device of DRIVER with "key=value,..." ARGS
 *   --pv-dev DRIVER[:ARGS]  (same; repeatable; see doc/guides/drivers/).
 * Any other "--pv-" option is an error. All other arguments before "--" are
 * EAL arguments (-l, --no-huge, -m, --vdev, --file-prefix, ...). Uses
 * hugepages when free ones exist on a hugetlbfs mount; otherwise adds
 * --no-huge itself (NOTICE in the log) unless an option asks for hugepages
 * (--socket-mem, --socket-limit, --huge-dir, --proc-type). Checks
 * RLIMIT_MEMLOCK against the memory pollverbs may register (-m, the sum of
 * --socket-mem, or 64 MiB) and logs a WARNING with the fix when it is lower
 * and the process lacks CAP_IPC_LOCK.
 *
 * @param argc  Number of entries of @p argv.
 * @param argv  argv[0] is the program name. Permuted in place on success
 *              (the strings are not modified or copied, except --pv-dev's).
 * @return Number of arguments consumed, with rte_eal_init()'s convention:
 *         argv[ret] is the program name and argv[ret + 1 .. argc - 1] are
 *         the application arguments (those after "--" and any non-option
 *         EAL moved there), so that after `argc -= ret; argv += ret;` the
 *         application parses a fresh argv with getopt(). pollverbs and EAL
 *         options are left in argv[1 .. ret - 1]. On failure argv is left as
 *         it was and -errno is returned: -EALREADY pv_init() already called
 *         (also after pv_cleanup(): EAL cannot start twice in one process),
 *         -EINVAL bad pollverbs option, -ENOMEM, or EAL's rte_errno negated.
 * Thread: the process's main thread, once.
 */
PV_EXPORT int pv_init(int argc, char **argv);

/**
 * Tear pollverbs down, in this order: ask every worker lcore's loop to stop
 * and wait for all worker lcores to return (so a worker left in
 * pv_rtc_loop_run() is fine, one in a loop of its own is not), run the tasks
 * still queued for the control thread and join it, park EAL's interrupt
 * thread (it finishes the callback it runs, then runs no interrupt or alarm
 * callback again, until the process exits: DPDK 22.11 never stops it, and
 * PMD callbacks on it raced device teardown and touched memory
 * rte_eal_cleanup() unmaps; an eventfd stays open for it), call the
 * cleanup hooks of other components (lib/verbs removes its devices there) in
 * reverse order of registration, free the message rings and the device
 * arguments, then rte_eal_cleanup().
 * @return 0, -EINVAL pv_init() did not succeed or pv_cleanup() already ran,
 *         or rte_eal_cleanup()'s rte_errno negated.
 * Thread: main thread.
 */
PV_EXPORT int pv_cleanup(void);

/**
 * The "--pv-dev" arguments given to pv_init(), in order.
 * @param nb_p  Set to the number of entries (0 before pv_init() and after
 *              pv_cleanup()); may be NULL.
 * @return Array of @p *nb_p "DRIVER[:ARGS]" strings (option prefix removed)
 *         owned by lib/rtc, valid until pv_cleanup(); NULL when there are
 *         none. Thread: any, after pv_init().
 */
PV_EXPORT const char *const *pv_rtc_devargs(int *nb_p);

/** Entry function of a launched lcore; its return value is its exit code. */
typedef int (*pv_rtc_lcore_fn)(void *arg);

/**
 * Run @p fn(@p arg) on worker lcore @p lcore_id (rte_eal_remote_launch()).
 * @return 0, -EINVAL NULL @p fn or @p lcore_id is not an enabled worker
 *         lcore, -EBUSY it is still running a function, -EPERM the caller
 *         is not the main lcore.
 * Thread: main lcore.
 */
PV_EXPORT int pv_rtc_lcore_launch(unsigned int lcore_id, pv_rtc_lcore_fn fn, void *arg);

/**
 * Wait for a launched lcore to return (rte_eal_wait_lcore()).
 * @return its function's return value (0 when nothing was launched), or
 *         -EINVAL @p lcore_id is not an enabled worker lcore, -EPERM the
 *         caller is not the main lcore (a function may itself return these).
 * Thread: main lcore.
 */
PV_EXPORT int pv_rtc_lcore_wait(unsigned int lcore_id);

/** A poller: returns work done (> 0 busy, 0 idle) or -errno (logged, kept). */
typedef int (*pv_rtc_poller_fn)(void *arg);

struct pv_rtc_poller;

/**
 * Register a poller on the calling lcore's loop.
 * @param fn         Called with @p arg; its result is added to the
 *                   iteration's work count when >= 0; a negative result
 *                   (-errno) is counted and logged once per poller, and the
 *                   poller stays registered.
 * @param period_us  0: run on every loop iteration; otherwise first run one
 *                   period after registration, then once per @p period_us
 *                   microseconds (TSC cycles via rte_get_tsc_hz(), never
 *                   early, at most once per iteration; after a stall longer
 *                   than a period it runs once, not once per missed period).
 * @return The poller, valid until pv_rtc_poller_unregister(); NULL with
 *         errno: EINVAL NULL fn or not an EAL lcore, ENOSPC the lcore has
 *         PV_RTC_MAX_POLLERS pollers. Pollers of one lcore run in slot order
 *         (a new poller takes the lowest free slot), not registration order.
 * Thread: the lcore that will run it (register from inside its loop or
 *         before pv_rtc_loop_run()); use pv_rtc_msg_send() to ask another.
 */
PV_EXPORT struct pv_rtc_poller *pv_rtc_poller_register(pv_rtc_poller_fn fn, void *arg,
						       uint64_t period_us);

/**
 * Remove a poller from its loop; it is not called again after this returns,
 * and @p poller must not be used again. May be called from inside a poller
 * (itself or another one of the same lcore).
 * @return 0, -EINVAL NULL, already removed, or another lcore's poller.
 * Thread: the poller's lcore.
 */
PV_EXPORT int pv_rtc_poller_unregister(struct pv_rtc_poller *poller);

#define PV_RTC_MAX_POLLERS 64

/**
 * Run the calling lcore's poll loop until pv_rtc_loop_stop(): each
 * iteration handles the lcore's pending messages (at most 256), then runs
 * every due poller. Busy-polls; never sleeps.
 * @return 0 when stopped, -EINVAL not an EAL lcore.
 * Thread: an EAL lcore; runs that lcore's loop.
 */
PV_EXPORT int pv_rtc_loop_run(void);

/**
 * Run one iteration of the calling lcore's loop (messages, then due pollers).
 * For a thread that has its own loop (an application's main loop, a test).
 * @return work done by the iteration (sum of poller results >= 0, plus
 *         messages handled), or -EINVAL not an EAL lcore.
 * Thread: an EAL lcore.
 */
PV_EXPORT int pv_rtc_loop_once(void);

/**
 * Ask lcore @p lcore_id's pv_rtc_loop_run() to return after its current
 * iteration. The request is kept until a loop consumes it: a stop made
 * before the loop starts makes it return after one iteration.
 * @return 0, -EINVAL @p lcore_id >= RTE_MAX_LCORE. Thread: any.
 */
PV_EXPORT int pv_rtc_loop_stop(unsigned int lcore_id);

/** A message handler, run on the target lcore's loop. */
typedef void (*pv_rtc_msg_fn)(void *arg);

/** Messages an lcore's ring holds before pv_rtc_msg_send() fails. */
#define PV_RTC_MSG_RING_ENTRIES 1024

/**
 * Send @p fn(@p arg) to lcore @p lcore_id; it runs there at the start of its
 * loop's next iteration, in FIFO order per sender. Multi-producer safe
 * (rte_ring, lock-free); allocates nothing.
 * @return 0, -EINVAL NULL @p fn, @p lcore_id not an EAL lcore given to
 *         pv_init() (-l) or pv_init() not done, -ENOBUFS the lcore's ring
 *         holds PV_RTC_MSG_RING_ENTRIES messages (nothing was sent; retry
 *         after the target drained some).
 * Ownership: @p arg is passed as is; the sender keeps it valid until @p fn
 *            ran. Thread: any (EAL lcore, control thread or other pthread).
 */
PV_EXPORT int pv_rtc_msg_send(unsigned int lcore_id, pv_rtc_msg_fn fn, void *arg);

/** Tasks the control thread's queue holds before pv_rtc_ctrl_call() fails. */
#define PV_RTC_CTRL_QUEUE_ENTRIES 256

/**
 * Run @p fn(@p arg) on the control-plane thread ("pv-ctrl", an EAL control
 * thread off the data-plane cores), which may block. Tasks run one at a
 * time in FIFO order. Takes a mutex: control path only, never from a poller
 * that must not block.
 * @param wait  Nonzero: return only after @p fn returned (must not be
 *              called from the control thread itself with wait set).
 * @return 0, -EINVAL NULL fn, -EDEADLK wait from the control thread,
 *         -ENOBUFS PV_RTC_CTRL_QUEUE_ENTRIES tasks queued, -ESHUTDOWN
 *         pv_init() not done or pv_cleanup() started (tasks queued before
 *         pv_cleanup() still run).
 * Thread: any.
 */
PV_EXPORT int pv_rtc_ctrl_call(pv_rtc_msg_fn fn, void *arg, int wait);

struct pv_rtc_ctrl_timer;

/**
 * Run @p fn(@p arg) on the control-plane thread every @p period_us
 * microseconds (CLOCK_MONOTONIC): first one period after this call, then one
 * period after each run returned (no catch-up after a stall). Timers share
 * the thread with pv_rtc_ctrl_call() tasks, which go first; a timer is for
 * short periodic checks (link polling, draining an fd), so @p fn should not
 * block for long. Allocates the timer (malloc).
 * @return The timer, valid until pv_rtc_ctrl_timer_stop(); NULL with errno:
 *         EINVAL NULL @p fn or @p period_us 0, ENOMEM, ESHUTDOWN pv_init()
 *         not done or pv_cleanup() started (timers stop running then).
 * Ownership: @p arg is passed as is and must stay valid until the timer is
 *            stopped. Thread: any.
 */
PV_EXPORT struct pv_rtc_ctrl_timer *pv_rtc_ctrl_timer_start(pv_rtc_msg_fn fn, void *arg,
							     uint64_t period_us);

/**
 * Make @p timer due now: its function runs as soon as the control thread is
 * free (after the queued tasks), then the period starts again. For an event
 * source that only signals "look now" (an interrupt callback).
 * @return 0, -EINVAL NULL @p timer. Thread: any, until the timer is stopped.
 */
PV_EXPORT int pv_rtc_ctrl_timer_kick(struct pv_rtc_ctrl_timer *timer);

/**
 * Stop @p timer and free it. When this returns its function is not running
 * and will not run again: from another thread it waits for a run in
 * progress; from the control thread (inside the timer's own function too) it
 * returns at once. Works after pv_cleanup() as well.
 * @return 0, -EINVAL NULL @p timer. Thread: any.
 */
PV_EXPORT int pv_rtc_ctrl_timer_stop(struct pv_rtc_ctrl_timer *timer);

/** Nonzero when the calling thread is the control-plane thread. Thread: any. */
PV_EXPORT int pv_rtc_is_ctrl_thread(void);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_RTC_PV_RTC_H */
