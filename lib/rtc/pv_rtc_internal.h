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

#endif /* PV_LIB_RTC_PV_RTC_INTERNAL_H */
