/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Per-lcore poll loop: pollers, one iteration, run/stop, lcore launch/wait.
 * All state is per lcore and touched only by its owner, except the stop flag.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "pv_rtc.h"
#include "rtc_priv.h"

struct pv_rtc_lcore pv_rtc_lcores[RTE_MAX_LCORE];

static struct pv_rtc_lcore *
rtc_lcore_self(void)
{
	unsigned int id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? &pv_rtc_lcores[id] : NULL;
}

static uint64_t
rtc_us_to_tsc(uint64_t us)
{
	uint64_t hz = rte_get_tsc_hz();

	/* split to avoid overflowing us * hz for long periods */
	return (us / US_PER_S) * hz + ((us % US_PER_S) * hz) / US_PER_S;
}

struct pv_rtc_poller *
pv_rtc_poller_register(pv_rtc_poller_fn fn, void *arg, uint64_t period_us)
{
	struct pv_rtc_lcore *lc = rtc_lcore_self();
	struct pv_rtc_poller *p;
	unsigned int i;

	if (fn == NULL || lc == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (lc->nb_pollers == PV_RTC_MAX_POLLERS) {
		RTC_LOG(ERR, "lcore %u: %u pollers already registered", rte_lcore_id(),
			lc->nb_pollers);
		errno = ENOSPC;
		return NULL;
	}
	for (i = 0; i < PV_RTC_MAX_POLLERS; i++)
		if (lc->pollers[i].fn == NULL)
			break;
	p = &lc->pollers[i];
	*p = (struct pv_rtc_poller){
		.fn = fn,
		.arg = arg,
		.lcore_id = rte_lcore_id(),
	};
	if (period_us != 0) {
		p->period_tsc = rtc_us_to_tsc(period_us);
		if (p->period_tsc == 0)
			p->period_tsc = 1;
		p->next_tsc = pv_rtc_tsc() + p->period_tsc;
	}
	lc->nb_pollers++;
	if (i >= lc->pollers_end)
		lc->pollers_end = i + 1;
	RTC_LOG(DEBUG, "lcore %u: poller %u registered, period %" PRIu64 " us", p->lcore_id, i,
		period_us);
	return p;
}

int
pv_rtc_poller_unregister(struct pv_rtc_poller *poller)
{
	struct pv_rtc_lcore *lc = rtc_lcore_self();

	/* only this lcore's table: another lcore's poller is not ours to touch */
	if (poller == NULL || lc == NULL ||
	    poller < &lc->pollers[0] || poller >= &lc->pollers[PV_RTC_MAX_POLLERS] ||
	    poller->fn == NULL)
		return -EINVAL;
	/* the loop reads fn and pollers_end afresh for every slot, so clearing
	 * them here is safe even while the loop is inside this very poller
	 */
	poller->fn = NULL;
	lc->nb_pollers--;
	while (lc->pollers_end > 0 && lc->pollers[lc->pollers_end - 1].fn == NULL)
		lc->pollers_end--;
	return 0;
}

static __rte_noinline void
rtc_poller_failed(struct pv_rtc_poller *p, int rc)
{
	if (p->nb_errors++ == 0)
		RTC_LOG(WARNING, "lcore %u: poller %p returned %d (%s); kept, further errors "
			"not logged", p->lcore_id, (void *)p, rc, strerror(-rc));
}

static int
rtc_loop_iterate(struct pv_rtc_lcore *lc)
{
	unsigned int i;
	uint64_t now;
	int work;

	work = pv_rtc_msg_drain(lc);
	now = pv_rtc_tsc();
	for (i = 0; i < lc->pollers_end; i++) {
		struct pv_rtc_poller *p = &lc->pollers[i];
		pv_rtc_poller_fn fn = p->fn;
		int rc;

		if (fn == NULL)
			continue;
		if (p->period_tsc != 0) {
			if (now < p->next_tsc)
				continue;
			/* keep the phase; after a stall longer than a period,
			 * run once and restart from now instead of bursting
			 */
			p->next_tsc += p->period_tsc;
			if (unlikely(p->next_tsc <= now))
				p->next_tsc = now + p->period_tsc;
		}
		rc = fn(p->arg);
		if (likely(rc >= 0))
			work += rc;
		else
			rtc_poller_failed(p, rc);
	}
	return work;
}

int
pv_rtc_loop_once(void)
{
	struct pv_rtc_lcore *lc = rtc_lcore_self();

	if (lc == NULL)
		return -EINVAL;
	return rtc_loop_iterate(lc);
}

int
pv_rtc_loop_run(void)
{
	struct pv_rtc_lcore *lc = rtc_lcore_self();

	if (lc == NULL)
		return -EINVAL;
	/* relaxed: the flag carries no data, it only ends the loop */
	while (__atomic_load_n(&lc->stop, __ATOMIC_RELAXED) == 0)
		rtc_loop_iterate(lc);
	__atomic_store_n(&lc->stop, 0, __ATOMIC_RELAXED);
	return 0;
}

int
pv_rtc_loop_stop(unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	__atomic_store_n(&pv_rtc_lcores[lcore_id].stop, 1, __ATOMIC_RELAXED);
	return 0;
}

void
pv_rtc_loop_stop_all(void)
{
	unsigned int id;

	/* whatever their state: a loop launched a moment ago may not show as
	 * RUNNING yet, and a stop that arrives before pv_rtc_loop_run() still
	 * ends it
	 */
	RTE_LCORE_FOREACH_WORKER(id)
		pv_rtc_loop_stop(id);
}

int
pv_rtc_lcore_launch(unsigned int lcore_id, pv_rtc_lcore_fn fn, void *arg)
{
	int ret;

	if (rte_lcore_id() != rte_get_main_lcore())
		return -EPERM;
	if (fn == NULL || lcore_id >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore_id) ||
	    lcore_id == rte_get_main_lcore())
		return -EINVAL;
	ret = rte_eal_remote_launch(fn, arg, lcore_id);
	if (ret != 0)
		return ret < 0 ? ret : -ret;
	return 0;
}

int
pv_rtc_lcore_wait(unsigned int lcore_id)
{
	if (rte_lcore_id() != rte_get_main_lcore())
		return -EPERM;
	if (lcore_id >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lcore_id) ||
	    lcore_id == rte_get_main_lcore())
		return -EINVAL;
	return rte_eal_wait_lcore(lcore_id);
}
