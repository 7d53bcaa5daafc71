/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Thread-safe mode: the device's background progress. The device is an
 * rte_service whose callback (sroce_bg_run) the progress thread of lib/rtc
 * runs (rte_service_run_iter_on_app_lcore); the callback tells the thread how
 * long it may sleep (struct pv_rtc_bg_source.sleep_us).
 *
 * Hand-over: an application thread that progresses the device (poll_cq,
 * pv_progress, under the engine lock) moves its engine's app_seq. While it moves the
 * service keeps away from the lock and looks again after SROCE_BG_HANDOFF_US;
 * once it stood still for a whole look, the service takes the lock with a
 * trylock and runs the engine: busy while there is work and for
 * SROCE_BG_YIELD idle passes after it (the progress thread yields the core
 * every RTC_BG_YIELD_US of such passes: a stream's next frames are usually
 * a few hundred nanoseconds away, a sleep costs microseconds), up to
 * SROCE_BG_SPIN idle passes with a sleep of SROCE_BG_IDLE_SPIN_US each,
 * then sleeping until the nearest timer
 * (retransmission, RNR, held fault frames) bounded by an exponential back-off
 * of at most SROCE_BG_BACKOFF_MAX_US, or on the port's RX interrupt when the
 * PMD has one (memif, ring and af_packet do not in DPDK 22.11; tap does).
 */

#include <errno.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "sroce_priv.h"

/*
 * The application progressed since the last look: leave it the device and
 * look again this much later. A look costs the application a context switch
 * on its core (measured: 200 us cost 30 % of the 8 B message rate on a 2-core
 * VM, 800 us 13 %); the device is taken over at most two periods after the
 * application stopped, which keeps the 1 ms promise.
 */
#define SROCE_BG_HANDOFF_US	450
#define SROCE_BG_YIELD		256	/* idle passes that only yield (a stream's gaps) */
#define SROCE_BG_SPIN		512	/* short idle passes before backing off */
#define SROCE_BG_IDLE_SPIN_US	1	/* the sleep of a short idle pass */
#define SROCE_BG_BACKOFF_MIN_US	10
#define SROCE_BG_BACKOFF_MAX_US	1000	/* worst added reaction time without RX interrupt */
#define SROCE_BG_BUSY_US	20	/* output the PMD refused, QPs to flush: retry soon */

/* TSC cycles from now to @p due, in microseconds (0 when due) */
static uint64_t
sroce_bg_us_until(uint64_t due, uint64_t now, uint64_t hz)
{
	return due <= now ? 0 : (due - now) * 1000000 / hz;
}

/*
 * How long engine @p eng may be left alone, in microseconds: 0 when work is
 * pending, the nearest timer, UINT64_MAX when only a frame can bring work.
 * Under the engine lock.
 */
static uint64_t
sroce_bg_next_us(const struct sroce_eng *eng)
{
	const struct sroce_dev *dev = eng->dev;
	uint64_t now = rte_rdtsc(), hz = rte_get_tsc_hz(), next = UINT64_MAX;
	uint32_t q, i, d;

	/* frames to send, looped back or steered to receive (no RX interrupt) */
	if (eng->tx_head != eng->tx_tail || eng->lo_head != eng->lo_tail ||
	    sroce_steer_pending((struct sroce_eng *)(uintptr_t)eng))
		next = SROCE_BG_BUSY_US;
	if (eng->queue_id == 0) {
		uint64_t due = __atomic_load_n(&dev->neigh_next_tsc, __ATOMIC_RELAXED);

		if (due != UINT64_MAX)
			next = RTE_MIN(next, sroce_bg_us_until(due, now, hz));
	}
	for (d = 0; d < RTE_DIM(dev->fault_q); d++)
		for (i = 0; i < dev->fault_q[d].n; i++)
			next = RTE_MIN(next, sroce_bg_us_until(dev->fault_q[d].held[i].due_tsc,
							       now, hz));
	for (q = 0; q < eng->nb_qps; q++) {
		const struct sroce_qp *qp = eng->qps[q];

		if (qp->flush_pending || qp->comp.stalled)
			next = RTE_MIN(next, (uint64_t)SROCE_BG_BUSY_US);
		if (qp->comp.deadline != 0)
			next = RTE_MIN(next, sroce_bg_us_until(qp->comp.deadline, now, hz));
		if (qp->req.flags & SROCE_REQ_RNR_WAIT)
			next = RTE_MIN(next, sroce_bg_us_until(qp->req.rnr_until, now, hz));
	}
	return next;
}

/*
 * Idle engine @p eng: how long it may sleep, arming the RX interrupt when
 * the port has one (one engine only: the progress thread sleeps on one
 * queue).
 */
static uint64_t
sroce_bg_idle(struct sroce_eng *eng)
{
	struct sroce_dev *dev = eng->dev;
	uint64_t next = sroce_bg_next_us(eng), backoff;
	uint32_t shift;

	if (next == 0)
		return 0;
	/* idle passes: a short sleep each, not a spin on the lock, which an
	 * application thread polling on this core would find taken */
	if (++eng->bg_idle < SROCE_BG_YIELD)
		return 0;
	if (eng->bg_idle < SROCE_BG_SPIN)
		return SROCE_BG_IDLE_SPIN_US;
	if (dev->bg.intr) {
		if (!dev->bg_intr_armed &&
		    rte_eth_dev_rx_intr_enable(dev->port_id, dev->bg.queue_id) == 0)
			dev->bg_intr_armed = 1;
		/* a frame that came before the arming raises no interrupt */
		if (dev->bg_intr_armed && pv_sroce_eng_progress(eng) == 0)
			return next;
	}
	shift = RTE_MIN(eng->bg_idle - SROCE_BG_SPIN, 7u);
	backoff = RTE_MIN((uint64_t)SROCE_BG_BACKOFF_MIN_US << shift,
			  (uint64_t)SROCE_BG_BACKOFF_MAX_US);
	return RTE_MIN(next, backoff);
}

/* One background pass over engine @p eng; @return the sleep it allows (us). */
static uint64_t
sroce_bg_eng(struct sroce_eng *eng)
{
	struct sroce_dev *dev = eng->dev;
	uint32_t seq = __atomic_load_n(&eng->app_seq, __ATOMIC_RELAXED);
	uint64_t sleep_us;

	if (seq != eng->bg_seq) {
		/* an application thread drives the engine: leave it */
		eng->bg_seq = seq;
		eng->bg_idle = 0;
		return SROCE_BG_HANDOFF_US;
	}
	if (!pv_rtc_spin_trylock(&eng->lock))
		return SROCE_BG_BUSY_US;
	if (dev->bg_intr_armed) {
		(void)rte_eth_dev_rx_intr_disable(dev->port_id, dev->bg.queue_id);
		dev->bg_intr_armed = 0;
	}
	if (pv_sroce_eng_progress(eng) > 0) {
		eng->bg_idle = 0;
		sleep_us = 0;
	} else {
		sleep_us = sroce_bg_idle(eng);
	}
	pv_rtc_spin_unlock(&eng->lock);
	return sleep_us;
}

/* The service: one background pass over the device's engines (progress thread). */
static int32_t
sroce_bg_run(void *arg)
{
	struct sroce_dev *dev = arg;
	uint64_t sleep_us = UINT64_MAX;
	uint16_t e;

	for (e = 0; e < dev->nb_eng; e++)
		sleep_us = RTE_MIN(sleep_us, sroce_bg_eng(&dev->eng[e]));
	dev->bg.sleep_us = sleep_us;
	return sleep_us == 0 ? 0 : -EAGAIN;
}

int
pv_sroce_bg_start(struct sroce_dev *dev)
{
	struct rte_service_spec spec;
	uint32_t id;
	uint16_t e;
	int ret;

	if (dev->bg_on)
		return 0;
	memset(&spec, 0, sizeof(spec));
	snprintf(spec.name, sizeof(spec.name), "pv_sroce%d", dev->index);
	spec.callback = sroce_bg_run;
	spec.callback_userdata = dev;
	spec.capabilities = RTE_SERVICE_CAP_MT_SAFE;	/* it serialises on the engine locks */
	ret = rte_service_component_register(&spec, &id);
	if (ret != 0) {
		SROCE_LOG(ERR, "%s: service register: %s", dev->ibdev.name, rte_strerror(-ret));
		return ret;
	}
	(void)rte_service_component_runstate_set(id, 1);
	(void)rte_service_set_runstate_mapped_check(id, 0);
	(void)rte_service_runstate_set(id, 1);
	for (e = 0; e < dev->nb_eng; e++) {
		dev->eng[e].bg_seq = __atomic_load_n(&dev->eng[e].app_seq, __ATOMIC_RELAXED);
		dev->eng[e].bg_idle = 0;
	}
	dev->bg_intr_armed = 0;
	dev->bg.service_id = id;
	dev->bg.port_id = dev->port_id;
	dev->bg.queue_id = 0;
	ret = pv_rtc_bg_add(&dev->bg);
	if (ret != 0) {
		SROCE_LOG(ERR, "%s: progress thread: %s", dev->ibdev.name, rte_strerror(-ret));
		(void)rte_service_runstate_set(id, 0);
		(void)rte_service_component_runstate_set(id, 0);
		(void)rte_service_component_unregister(id);
		return ret;
	}
	dev->bg_on = 1;
	SROCE_LOG(INFO, "%s: background progress on (%s)", dev->ibdev.name,
		  dev->bg.intr ? "RX interrupt" : "no RX interrupt: back-off polling");
	return 0;
}

void
pv_sroce_bg_stop(struct sroce_dev *dev)
{
	if (!dev->bg_on)
		return;
	(void)pv_rtc_bg_del(&dev->bg);
	(void)rte_service_runstate_set(dev->bg.service_id, 0);
	(void)rte_service_component_runstate_set(dev->bg.service_id, 0);
	(void)rte_service_component_unregister(dev->bg.service_id);
	if (dev->bg_intr_armed) {
		(void)rte_eth_dev_rx_intr_disable(dev->port_id, dev->bg.queue_id);
		dev->bg_intr_armed = 0;
	}
	dev->bg_on = 0;
}
