/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite rtc_msg: messages main -> worker -> main in FIFO order, two
 * producers at once, ring full (-ENOBUFS), the per-iteration drain bound and
 * argument errors. EAL runs with two lcores and no hugepages.
 */

#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "rtc_msg.c"

#include "ut_rtc.h"

#define UT_WORKER	1
#define UT_NB_MSGS	500

static int
ut_eal_init(void)
{
	char *argv[] = {
		"test_rtc_msg", "-l", "0,1", "--no-huge", "--no-pci", "-m", "64",
		"--file-prefix=ut_rtc_msg", "--log-level=*:warning",
	};

	return pv_init(RTE_DIM(argv), argv);
}

static void
test_init(void)
{
	CU_ASSERT_FATAL(ut_eal_init() > 0);
}

static void
ut_nop(void *arg)
{
	RTE_SET_USED(arg);
}

/* before pv_init(): no rings yet */
static void
test_send_before_init(void)
{
	CU_ASSERT_EQUAL(pv_rtc_msg_send(0, ut_nop, NULL), -EINVAL);
}

static void
test_send_bad_args(void)
{
	CU_ASSERT_EQUAL(pv_rtc_msg_send(0, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_msg_send(RTE_MAX_LCORE, ut_nop, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_rtc_msg_send(5, ut_nop, NULL), -EINVAL);	/* not in -l */
}

/* Both directions: the worker echoes every message back to main. */
static uint32_t ut_on_worker[UT_NB_MSGS];
static unsigned int ut_nb_on_worker;
static unsigned int ut_worker_lcore_ok;
static uint32_t ut_on_main[UT_NB_MSGS];
static unsigned int ut_nb_on_main;
static int ut_echo_rc;

static void
ut_main_rx(void *arg)
{
	if (ut_nb_on_main < UT_NB_MSGS)
		ut_on_main[ut_nb_on_main] = (uint32_t)(uintptr_t)arg;
	ut_nb_on_main++;
}

static void
ut_worker_rx(void *arg)
{
	int rc;

	if (ut_nb_on_worker < UT_NB_MSGS)
		ut_on_worker[ut_nb_on_worker] = (uint32_t)(uintptr_t)arg;
	ut_nb_on_worker++;
	ut_worker_lcore_ok += rte_lcore_id() == UT_WORKER;
	do {
		rc = pv_rtc_msg_send(rte_get_main_lcore(), ut_main_rx, arg);
	} while (rc == -ENOBUFS);
	if (rc != 0)
		ut_echo_rc = rc;
}

static int
ut_worker_loop(void *arg)
{
	RTE_SET_USED(arg);
	return pv_rtc_loop_run();
}

static bool
ut_spin_main_until(const unsigned int *count, unsigned int want)
{
	uint64_t deadline = rte_get_timer_cycles() + 10 * rte_get_timer_hz();

	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < want) {
		if (rte_get_timer_cycles() > deadline)
			return false;
		pv_rtc_loop_once();
	}
	return true;
}

static void
test_ping_pong_fifo(void)
{
	uint32_t want[UT_NB_MSGS];
	unsigned int i;
	int rc;

	for (i = 0; i < UT_NB_MSGS; i++)
		want[i] = 0xc0de0000u + i;
	CU_ASSERT_EQUAL_FATAL(pv_rtc_lcore_launch(UT_WORKER, ut_worker_loop, NULL), 0);
	for (i = 0; i < UT_NB_MSGS; i++) {
		do {
			rc = pv_rtc_msg_send(UT_WORKER, ut_worker_rx, (void *)(uintptr_t)want[i]);
			if (rc == -ENOBUFS)
				pv_rtc_loop_once();	/* let replies drain */
		} while (rc == -ENOBUFS);
		CU_ASSERT_EQUAL(rc, 0);
	}
	CU_ASSERT_TRUE(ut_spin_main_until(&ut_nb_on_main, UT_NB_MSGS));
	CU_ASSERT_EQUAL(pv_rtc_loop_stop(UT_WORKER), 0);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(UT_WORKER), 0);

	CU_ASSERT_EQUAL(ut_echo_rc, 0);
	CU_ASSERT_EQUAL(ut_nb_on_worker, UT_NB_MSGS);
	CU_ASSERT_EQUAL(ut_worker_lcore_ok, UT_NB_MSGS);
	CU_ASSERT_EQUAL(ut_nb_on_main, UT_NB_MSGS);
	CU_ASSERT_EQUAL(memcmp(ut_on_worker, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(memcmp(ut_on_main, want, sizeof(want)), 0);
}

/* Two producers at once (main lcore and the control thread): each one's
 * messages arrive in its own order.
 */
#define UT_TAG_CTRL 0x80000000u
static uint32_t ut_last[2];
static unsigned int ut_nb_mp;
static unsigned int ut_mp_order_errors;

static void
ut_mp_rx(void *arg)
{
	uint32_t v = (uint32_t)(uintptr_t)arg;
	unsigned int who = (v & UT_TAG_CTRL) != 0;
	uint32_t seq = v & ~UT_TAG_CTRL;

	if (seq != ut_last[who] + 1)
		ut_mp_order_errors++;
	ut_last[who] = seq;
	__atomic_store_n(&ut_nb_mp, ut_nb_mp + 1, __ATOMIC_RELEASE);
}

static void
ut_ctrl_producer(void *arg)
{
	uint32_t i;

	RTE_SET_USED(arg);
	for (i = 1; i <= UT_NB_MSGS; i++)
		while (pv_rtc_msg_send(UT_WORKER, ut_mp_rx,
				       (void *)(uintptr_t)(i | UT_TAG_CTRL)) == -ENOBUFS)
			rte_pause();
}

static void
test_two_producers(void)
{
	uint64_t deadline;
	uint32_t i;

	CU_ASSERT_EQUAL_FATAL(pv_rtc_lcore_launch(UT_WORKER, ut_worker_loop, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pv_rtc_ctrl_call(ut_ctrl_producer, NULL, 0), 0);
	for (i = 1; i <= UT_NB_MSGS; i++)
		while (pv_rtc_msg_send(UT_WORKER, ut_mp_rx, (void *)(uintptr_t)i) == -ENOBUFS)
			rte_pause();
	deadline = rte_get_timer_cycles() + 10 * rte_get_timer_hz();
	while (__atomic_load_n(&ut_nb_mp, __ATOMIC_ACQUIRE) < 2 * UT_NB_MSGS &&
	       rte_get_timer_cycles() < deadline)
		rte_pause();
	pv_rtc_loop_stop(UT_WORKER);
	CU_ASSERT_EQUAL(pv_rtc_lcore_wait(UT_WORKER), 0);
	CU_ASSERT_EQUAL(ut_nb_mp, 2 * UT_NB_MSGS);
	CU_ASSERT_EQUAL(ut_mp_order_errors, 0);
	CU_ASSERT_EQUAL(ut_last[0], UT_NB_MSGS);
	CU_ASSERT_EQUAL(ut_last[1], UT_NB_MSGS);
}

static uint32_t ut_self[PV_RTC_MSG_RING_ENTRIES];
static unsigned int ut_nb_self;

static void
ut_self_rx(void *arg)
{
	ut_self[ut_nb_self++ % PV_RTC_MSG_RING_ENTRIES] = (uint32_t)(uintptr_t)arg;
}

/* Main sends to itself without looping: the ring fills at its exact size,
 * then each iteration handles at most PV_RTC_MSG_DRAIN_MAX, in order.
 */
static void
test_ring_full(void)
{
	unsigned int self = rte_lcore_id();
	unsigned int i, sent = 0;
	int rc;

	while ((rc = pv_rtc_msg_send(self, ut_self_rx, (void *)(uintptr_t)sent)) == 0)
		sent++;
	CU_ASSERT_EQUAL(rc, -ENOBUFS);
	CU_ASSERT_EQUAL(sent, PV_RTC_MSG_RING_ENTRIES);

	CU_ASSERT_EQUAL(pv_rtc_loop_once(), PV_RTC_MSG_DRAIN_MAX);
	CU_ASSERT_EQUAL(ut_nb_self, PV_RTC_MSG_DRAIN_MAX);
	/* room again */
	CU_ASSERT_EQUAL(pv_rtc_msg_send(self, ut_self_rx, (void *)(uintptr_t)sent), 0);
	sent++;
	while (pv_rtc_loop_once() > 0)
		;
	CU_ASSERT_EQUAL(ut_nb_self, sent);
	for (i = 0; i < PV_RTC_MSG_RING_ENTRIES; i++)
		if (ut_self[i] != (i < sent - PV_RTC_MSG_RING_ENTRIES ?
				   i + PV_RTC_MSG_RING_ENTRIES : i))
			break;
	CU_ASSERT_EQUAL(i, PV_RTC_MSG_RING_ENTRIES);
}

int
main(void)
{
	static const struct ut_case cases[] = {
		{ "before_init", test_send_before_init },
		{ "init", test_init },
		{ "send_bad_args", test_send_bad_args },
		{ "ping_pong_fifo", test_ping_pong_fifo },
		{ "two_producers", test_two_producers },
		{ "ring_full", test_ring_full },
		{ NULL, NULL },
	};
	int ret;

	ret = ut_run("rtc_msg", cases);
	if (pv_cleanup() != 0)
		ret = 1;
	return ret;
}
