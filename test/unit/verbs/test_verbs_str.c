/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite verbs_str: lib/verbs/verbs_str.c. The strings and rate tables must be
 * libibverbs' own: spot checks written out here, and, when libibverbs is
 * installed, every value compared with what ibv_* returns.
 */

#include <string.h>

#ifdef UT_HAVE_IBVERBS
#include <infiniband/verbs.h>
#endif

#include "ut_verbs.h"

static void
test_strings_spot(void)
{
	CU_ASSERT_STRING_EQUAL(pv_node_type_str(PV_NODE_CA), "InfiniBand channel adapter");
	CU_ASSERT_STRING_EQUAL(pv_node_type_str(PV_NODE_RNIC), "iWARP NIC");
	CU_ASSERT_STRING_EQUAL(pv_node_type_str(PV_NODE_UNKNOWN), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_node_type_str((enum pv_node_type)0), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_node_type_str((enum pv_node_type)99), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_port_state_str(PV_PORT_NOP), "no state change (NOP)");
	CU_ASSERT_STRING_EQUAL(pv_port_state_str(PV_PORT_ACTIVE), "active");
	CU_ASSERT_STRING_EQUAL(pv_port_state_str(PV_PORT_ACTIVE_DEFER), "active defer");
	CU_ASSERT_STRING_EQUAL(pv_port_state_str((enum pv_port_state)6), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_event_type_str(PV_EVENT_CQ_ERR), "CQ error");
	CU_ASSERT_STRING_EQUAL(pv_event_type_str(PV_EVENT_DEVICE_FATAL),
			       "local catastrophic error");
	CU_ASSERT_STRING_EQUAL(pv_event_type_str(PV_EVENT_WQ_FATAL), "WQ fatal");
	CU_ASSERT_STRING_EQUAL(pv_event_type_str((enum pv_event_type)20), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_event_type_str((enum pv_event_type)-1), "unknown");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str(PV_WC_SUCCESS), "success");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str(PV_WC_WR_FLUSH_ERR),
			       "Work Request Flushed Error");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str(PV_WC_RETRY_EXC_ERR),
			       "transport retry counter exceeded");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str(PV_WC_RNR_RETRY_EXC_ERR),
			       "RNR retry counter exceeded");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str(PV_WC_TM_RNDV_INCOMPLETE),
			       "TM software rendezvous");
	CU_ASSERT_STRING_EQUAL(pv_wc_status_str((enum pv_wc_status)24), "unknown");
}

static void
test_rates_spot(void)
{
	CU_ASSERT_EQUAL(pv_rate_to_mult(PV_RATE_2_5_GBPS), 1);
	CU_ASSERT_EQUAL(pv_rate_to_mult(PV_RATE_10_GBPS), 4);
	CU_ASSERT_EQUAL(pv_rate_to_mult(PV_RATE_MAX), -1);
	CU_ASSERT_EQUAL(pv_rate_to_mult(PV_RATE_25_GBPS), -1);
	CU_ASSERT_EQUAL(pv_rate_to_mult(PV_RATE_400_GBPS), 160);
	CU_ASSERT_EQUAL(pv_mult_to_rate(4), PV_RATE_10_GBPS);
	CU_ASSERT_EQUAL(pv_mult_to_rate(11), PV_RATE_28_GBPS);
	CU_ASSERT_EQUAL(pv_mult_to_rate(0), PV_RATE_MAX);
	CU_ASSERT_EQUAL(pv_mult_to_rate(3), PV_RATE_MAX);
	CU_ASSERT_EQUAL(pv_rate_to_mbps(PV_RATE_25_GBPS), 25781);
	CU_ASSERT_EQUAL(pv_rate_to_mbps(PV_RATE_100_GBPS), 103125);
	CU_ASSERT_EQUAL(pv_rate_to_mbps(PV_RATE_MAX), -1);
	CU_ASSERT_EQUAL(pv_rate_to_mbps((enum pv_rate)1), -1);
	CU_ASSERT_EQUAL(pv_mbps_to_rate(103125), PV_RATE_100_GBPS);
	CU_ASSERT_EQUAL(pv_mbps_to_rate(100000), PV_RATE_MAX);
	CU_ASSERT_EQUAL(pv_mbps_to_rate(0), PV_RATE_MAX);
}

#ifdef UT_HAVE_IBVERBS
/* Byte-for-byte against the installed libibverbs, over and past every enum. */
static void
test_strings_vs_libibverbs(void)
{
	int v;

	for (v = -3; v < 40; v++) {
		CU_ASSERT_STRING_EQUAL(pv_node_type_str((enum pv_node_type)v),
				       ibv_node_type_str((enum ibv_node_type)v));
		CU_ASSERT_STRING_EQUAL(pv_port_state_str((enum pv_port_state)v),
				       ibv_port_state_str((enum ibv_port_state)v));
		CU_ASSERT_STRING_EQUAL(pv_event_type_str((enum pv_event_type)v),
				       ibv_event_type_str((enum ibv_event_type)v));
		CU_ASSERT_STRING_EQUAL(pv_wc_status_str((enum pv_wc_status)v),
				       ibv_wc_status_str((enum ibv_wc_status)v));
	}
}

static void
test_rates_vs_libibverbs(void)
{
	int v;

	for (v = -3; v < 40; v++) {
		CU_ASSERT_EQUAL(pv_rate_to_mult((enum pv_rate)v),
				ibv_rate_to_mult((enum ibv_rate)v));
		CU_ASSERT_EQUAL(pv_rate_to_mbps((enum pv_rate)v),
				ibv_rate_to_mbps((enum ibv_rate)v));
	}
	for (v = -2; v < 1000; v++)
		CU_ASSERT_EQUAL((int)pv_mult_to_rate(v), (int)mult_to_ibv_rate(v));
	for (v = -3; v < 40; v++) {
		int mbps = ibv_rate_to_mbps((enum ibv_rate)v);

		CU_ASSERT_EQUAL((int)pv_mbps_to_rate(mbps), (int)mbps_to_ibv_rate(mbps));
		CU_ASSERT_EQUAL((int)pv_mbps_to_rate(mbps + 1), (int)mbps_to_ibv_rate(mbps + 1));
	}
}
#endif

static const struct ut_case ut_verbs_str_cases[] = {
	{ "strings", test_strings_spot },
	{ "rates", test_rates_spot },
	{ "strings == libibverbs", test_strings_vs_libibverbs },
	{ "rates == libibverbs", test_rates_vs_libibverbs },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_str = {
	.name = "verbs_str",
	.cases = ut_verbs_str_cases,
};
