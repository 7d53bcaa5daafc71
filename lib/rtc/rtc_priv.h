/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/rtc private definitions: log type, per-lcore state shared by the loop
 * and the message ring, and the TSC read that unit tests redirect.
 */

#ifndef PV_LIB_RTC_RTC_PRIV_H
#define PV_LIB_RTC_RTC_PRIV_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "pv_rtc.h"

extern int pv_rtc_logtype;
#define RTE_LOGTYPE_PV_RTC pv_rtc_logtype
#define RTC_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_RTC, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define RTC_DP_LOG(lvl, fmt, ...) \
	RTE_LOG_DP(lvl, PV_RTC, fmt "\n", ##__VA_ARGS__)

/* Messages one loop iteration handles at most, so a handler that sends to its
 * own lcore cannot keep the loop from reaching its pollers.
 */
#define PV_RTC_MSG_DRAIN_MAX 256

/*
 * Time source of the poll loop. Unit tests build the loop with
 * PV_RTC_UT_TSC defined and move pv_rtc_ut_tsc by hand, so periodic pollers
 * are deterministic (STYLE.md section 10).
 */
#ifdef PV_RTC_UT_TSC
extern uint64_t pv_rtc_ut_tsc;
static inline uint64_t
pv_rtc_tsc(void)
{
	return pv_rtc_ut_tsc;
}
#else
static inline uint64_t
pv_rtc_tsc(void)
{
	return rte_get_tsc_cycles();
}
#endif

/* One inter-lcore message, stored by value in the ring (16 bytes). */
struct pv_rtc_msg {
	pv_rtc_msg_fn fn;
	void *arg;
};

struct pv_rtc_poller {
	pv_rtc_poller_fn fn;		/* NULL: slot free */
	void *arg;
	uint64_t period_tsc;		/* 0: every iteration */
	uint64_t next_tsc;		/* first TSC at which it is due */
	uint64_t nb_errors;		/* negative returns, first one logged */
	unsigned int lcore_id;
};

/*
 * State of one lcore's loop. Everything but the stop flag is read and written
 * only by the owning lcore (no locks, no atomics); the stop flag is written by
 * any thread and lives on its own cache line so those writes do not bounce the
 * owner's poller table.
 */
struct pv_rtc_lcore {
	struct rte_ring *msg_ring;	/* MP/SC; set at pv_init, NULL otherwise */
	unsigned int nb_pollers;
	unsigned int pollers_end;	/* one past the highest used slot */
	struct pv_rtc_poller pollers[PV_RTC_MAX_POLLERS];

	/* written by other threads (pv_rtc_loop_stop) */
	uint32_t stop __rte_cache_aligned;
} __rte_cache_aligned;

extern struct pv_rtc_lcore pv_rtc_lcores[RTE_MAX_LCORE];

/* rtc_msg.c */
int pv_rtc_msg_init(void);
void pv_rtc_msg_fini(void);
int pv_rtc_msg_drain(struct pv_rtc_lcore *lc);

/* rtc_ctrl.c */
int pv_rtc_ctrl_start(void);
void pv_rtc_ctrl_stop(void);

/* rtc_loop.c */
void pv_rtc_loop_stop_all(void);

#endif /* PV_LIB_RTC_RTC_PRIV_H */
