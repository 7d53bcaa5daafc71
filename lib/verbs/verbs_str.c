/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Enum-to-string and rate helpers. The strings and tables are those of
 * libibverbs (rdma-core v44: enum_strs.c, verbs.c) so that output and logs
 * match ibv_* tools byte for byte.
 */

#include <stddef.h>

#include <rte_common.h>

#include "verbs_priv.h"

static const char *const verbs_node_type_names[] = {
	[PV_NODE_CA] = "InfiniBand channel adapter",
	[PV_NODE_SWITCH] = "InfiniBand switch",
	[PV_NODE_ROUTER] = "InfiniBand router",
	[PV_NODE_RNIC] = "iWARP NIC",
	[PV_NODE_USNIC] = "usNIC",
	[PV_NODE_USNIC_UDP] = "usNIC UDP",
	[PV_NODE_UNSPECIFIED] = "unspecified",
};

static const char *const verbs_port_state_names[] = {
	[PV_PORT_NOP] = "no state change (NOP)",
	[PV_PORT_DOWN] = "down",
	[PV_PORT_INIT] = "init",
	[PV_PORT_ARMED] = "armed",
	[PV_PORT_ACTIVE] = "active",
	[PV_PORT_ACTIVE_DEFER] = "active defer",
};

static const char *const verbs_event_names[] = {
	[PV_EVENT_CQ_ERR] = "CQ error",
	[PV_EVENT_QP_FATAL] = "local work queue catastrophic error",
	[PV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
	[PV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
	[PV_EVENT_COMM_EST] = "communication established",
	[PV_EVENT_SQ_DRAINED] = "send queue drained",
	[PV_EVENT_PATH_MIG] = "path migrated",
	[PV_EVENT_PATH_MIG_ERR] = "path migration request error",
	[PV_EVENT_DEVICE_FATAL] = "local catastrophic error",
	[PV_EVENT_PORT_ACTIVE] = "port active",
	[PV_EVENT_PORT_ERR] = "port error",
	[PV_EVENT_LID_CHANGE] = "LID change",
	[PV_EVENT_PKEY_CHANGE] = "P_Key change",
	[PV_EVENT_SM_CHANGE] = "SM change",
	[PV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
	[PV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
	[PV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	[PV_EVENT_CLIENT_REREGISTER] = "client reregistration",
	[PV_EVENT_GID_CHANGE] = "GID table change",
	[PV_EVENT_WQ_FATAL] = "WQ fatal",
};

static const char *const verbs_wc_status_names[] = {
	[PV_WC_SUCCESS] = "success",
	[PV_WC_LOC_LEN_ERR] = "local length error",
	[PV_WC_LOC_QP_OP_ERR] = "local QP operation error",
	[PV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
	[PV_WC_LOC_PROT_ERR] = "local protection error",
	[PV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
	[PV_WC_MW_BIND_ERR] = "memory management operation error",
	[PV_WC_BAD_RESP_ERR] = "bad response error",
	[PV_WC_LOC_ACCESS_ERR] = "local access error",
	[PV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
	[PV_WC_REM_ACCESS_ERR] = "remote access error",
	[PV_WC_REM_OP_ERR] = "remote operation error",
	[PV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
	[PV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	[PV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	[PV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	[PV_WC_REM_ABORT_ERR] = "aborted error",
	[PV_WC_INV_EECN_ERR] = "invalid EE context number",
	[PV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
	[PV_WC_FATAL_ERR] = "fatal error",
	[PV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
	[PV_WC_GENERAL_ERR] = "general error",
	[PV_WC_TM_ERR] = "TM error",
	[PV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
};

/* names[v] if v indexes a non-NULL entry, else "unknown" (as libibverbs) */
static const char *
verbs_name(const char *const *names, size_t nb, long v)
{
	if (v < 0 || (size_t)v >= nb || names[v] == NULL)
		return "unknown";
	return names[v];
}

const char *
pv_node_type_str(enum pv_node_type node_type)
{
	return verbs_name(verbs_node_type_names, RTE_DIM(verbs_node_type_names), node_type);
}

const char *
pv_port_state_str(enum pv_port_state port_state)
{
	return verbs_name(verbs_port_state_names, RTE_DIM(verbs_port_state_names), port_state);
}

const char *
pv_event_type_str(enum pv_event_type event)
{
	return verbs_name(verbs_event_names, RTE_DIM(verbs_event_names), event);
}

const char *
pv_wc_status_str(enum pv_wc_status status)
{
	return verbs_name(verbs_wc_status_names, RTE_DIM(verbs_wc_status_names), status);
}

/*
 * One row per rate: the multiplier of 2.5 Gb/s (0 when the rate is no
 * integer multiple, as libibverbs' tables have it) and the data rate in
 * Mb/s after encoding overhead.
 */
static const struct {
	enum pv_rate rate;
	int mult;
	int mbps;
} verbs_rates[] = {
	{ PV_RATE_2_5_GBPS, 1, 2500 },
	{ PV_RATE_5_GBPS, 2, 5000 },
	{ PV_RATE_10_GBPS, 4, 10000 },
	{ PV_RATE_20_GBPS, 8, 20000 },
	{ PV_RATE_30_GBPS, 12, 30000 },
	{ PV_RATE_40_GBPS, 16, 40000 },
	{ PV_RATE_60_GBPS, 24, 60000 },
	{ PV_RATE_80_GBPS, 32, 80000 },
	{ PV_RATE_120_GBPS, 48, 120000 },
	{ PV_RATE_14_GBPS, 0, 14062 },
	{ PV_RATE_56_GBPS, 0, 56250 },
	{ PV_RATE_112_GBPS, 0, 112500 },
	{ PV_RATE_168_GBPS, 0, 168750 },
	{ PV_RATE_25_GBPS, 0, 25781 },
	{ PV_RATE_100_GBPS, 0, 103125 },
	{ PV_RATE_200_GBPS, 0, 206250 },
	{ PV_RATE_300_GBPS, 0, 309375 },
	{ PV_RATE_28_GBPS, 11, 28125 },
	{ PV_RATE_50_GBPS, 20, 53125 },
	{ PV_RATE_400_GBPS, 160, 425000 },
	{ PV_RATE_600_GBPS, 240, 637500 },
	{ PV_RATE_800_GBPS, 320, 850000 },
	{ PV_RATE_1200_GBPS, 480, 1275000 },
};

int
pv_rate_to_mult(enum pv_rate rate)
{
	size_t i;

	for (i = 0; i < RTE_DIM(verbs_rates); i++)
		if (verbs_rates[i].rate == rate)
			return verbs_rates[i].mult != 0 ? verbs_rates[i].mult : -1;
	return -1;
}

enum pv_rate
pv_mult_to_rate(int mult)
{
	size_t i;

	if (mult <= 0)
		return PV_RATE_MAX;
	for (i = 0; i < RTE_DIM(verbs_rates); i++)
		if (verbs_rates[i].mult == mult)
			return verbs_rates[i].rate;
	return PV_RATE_MAX;
}

int
pv_rate_to_mbps(enum pv_rate rate)
{
	size_t i;

	for (i = 0; i < RTE_DIM(verbs_rates); i++)
		if (verbs_rates[i].rate == rate)
			return verbs_rates[i].mbps;
	return -1;
}

enum pv_rate
pv_mbps_to_rate(int mbps)
{
	size_t i;

	for (i = 0; i < RTE_DIM(verbs_rates); i++)
		if (verbs_rates[i].mbps == mbps)
			return verbs_rates[i].rate;
	return PV_RATE_MAX;
}
