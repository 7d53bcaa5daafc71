/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite verbs_qp_state: lib/verbs/verbs_qp_state.c. Every (from, to) pair of
 * the seven states for RC, UC, UD and RAW_PACKET against an expectation
 * written out here row by row from IBTA vol. 1 table 91 / ibv_modify_qp(3).
 */

#include <stdio.h>

#include <rte_common.h>

#include "ut_verbs.h"

struct ut_row {
	enum pv_qp_type type;
	enum pv_qp_state from;
	enum pv_qp_state to;
	uint32_t req;
	uint32_t opt;
};

#define RST PV_QPS_RESET
#define INI PV_QPS_INIT
#define RTR PV_QPS_RTR
#define RTS PV_QPS_RTS
#define SQD PV_QPS_SQD
#define SQE PV_QPS_SQE
#define ERR PV_QPS_ERR

#define B_PKEY PV_QP_PKEY_INDEX
#define B_PORT PV_QP_PORT
#define B_QKEY PV_QP_QKEY
#define B_ACC PV_QP_ACCESS_FLAGS
#define B_CUR PV_QP_CUR_STATE
#define B_ALT PV_QP_ALT_PATH
#define B_MIG PV_QP_PATH_MIG_STATE
#define B_RNRT PV_QP_MIN_RNR_TIMER

/* The legal transitions; every pair not listed is illegal. */
static const struct ut_row ut_rows[] = {
	/* RC */
	{ PV_QPT_RC, RST, INI, B_PKEY | B_PORT | B_ACC, 0 },
	{ PV_QPT_RC, INI, INI, 0, B_PKEY | B_PORT | B_ACC },
	{ PV_QPT_RC, INI, RTR, PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN |
	  PV_QP_MAX_DEST_RD_ATOMIC | B_RNRT, B_ALT | B_ACC | B_PKEY },
	{ PV_QPT_RC, RTR, RTS, PV_QP_TIMEOUT | PV_QP_RETRY_CNT | PV_QP_RNR_RETRY |
	  PV_QP_SQ_PSN | PV_QP_MAX_QP_RD_ATOMIC, B_CUR | B_ALT | B_ACC | B_RNRT | B_MIG },
	{ PV_QPT_RC, RTS, RTS, 0, B_CUR | B_ACC | B_ALT | B_MIG | B_RNRT },
	{ PV_QPT_RC, RTS, SQD, 0, PV_QP_EN_SQD_ASYNC_NOTIFY },
	{ PV_QPT_RC, SQD, RTS, 0, B_CUR | B_ALT | B_ACC | B_RNRT | B_MIG },
	{ PV_QPT_RC, SQD, SQD, 0, B_PORT | PV_QP_AV | PV_QP_TIMEOUT | PV_QP_RETRY_CNT |
	  PV_QP_RNR_RETRY | PV_QP_MAX_QP_RD_ATOMIC | PV_QP_MAX_DEST_RD_ATOMIC | B_ALT |
	  B_ACC | B_PKEY | B_RNRT | B_MIG },
	/* UC */
	{ PV_QPT_UC, RST, INI, B_PKEY | B_PORT | B_ACC, 0 },
	{ PV_QPT_UC, INI, INI, 0, B_PKEY | B_PORT | B_ACC },
	{ PV_QPT_UC, INI, RTR, PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN,
	  B_ALT | B_ACC | B_PKEY },
	{ PV_QPT_UC, RTR, RTS, PV_QP_SQ_PSN, B_CUR | B_ALT | B_ACC | B_MIG },
	{ PV_QPT_UC, RTS, RTS, 0, B_CUR | B_ACC | B_ALT | B_MIG },
	{ PV_QPT_UC, RTS, SQD, 0, PV_QP_EN_SQD_ASYNC_NOTIFY },
	{ PV_QPT_UC, SQD, RTS, 0, B_CUR | B_ALT | B_ACC | B_MIG },
	{ PV_QPT_UC, SQD, SQD, 0, PV_QP_AV | B_ALT | B_ACC | B_PKEY | B_MIG },
	{ PV_QPT_UC, SQE, RTS, 0, B_CUR | B_ACC },
	/* UD */
	{ PV_QPT_UD, RST, INI, B_PKEY | B_PORT | B_QKEY, 0 },
	{ PV_QPT_UD, INI, INI, 0, B_PKEY | B_PORT | B_QKEY },
	{ PV_QPT_UD, INI, RTR, 0, B_PKEY | B_QKEY },
	{ PV_QPT_UD, RTR, RTS, PV_QP_SQ_PSN, B_CUR | B_QKEY },
	{ PV_QPT_UD, RTS, RTS, 0, B_CUR | B_QKEY },
	{ PV_QPT_UD, RTS, SQD, 0, PV_QP_EN_SQD_ASYNC_NOTIFY },
	{ PV_QPT_UD, SQD, RTS, 0, B_CUR | B_QKEY },
	{ PV_QPT_UD, SQD, SQD, 0, B_PKEY | B_QKEY },
	{ PV_QPT_UD, SQE, RTS, 0, B_CUR | B_QKEY },
	/* RAW_PACKET: a port, then plain state changes */
	{ PV_QPT_RAW_PACKET, RST, INI, B_PORT, 0 },
	{ PV_QPT_RAW_PACKET, INI, INI, 0, 0 },
	{ PV_QPT_RAW_PACKET, INI, RTR, 0, 0 },
	{ PV_QPT_RAW_PACKET, RTR, RTS, 0, PV_QP_RATE_LIMIT },
	{ PV_QPT_RAW_PACKET, RTS, RTS, 0, PV_QP_RATE_LIMIT },
	{ PV_QPT_RAW_PACKET, RTS, SQD, 0, 0 },
	{ PV_QPT_RAW_PACKET, SQD, RTS, 0, 0 },
	{ PV_QPT_RAW_PACKET, SQD, SQD, 0, 0 },
};

static const uint32_t ut_all_bits[] = {
	PV_QP_STATE, PV_QP_CUR_STATE, PV_QP_EN_SQD_ASYNC_NOTIFY, PV_QP_ACCESS_FLAGS,
	PV_QP_PKEY_INDEX, PV_QP_PORT, PV_QP_QKEY, PV_QP_AV, PV_QP_PATH_MTU, PV_QP_TIMEOUT,
	PV_QP_RETRY_CNT, PV_QP_RNR_RETRY, PV_QP_RQ_PSN, PV_QP_MAX_QP_RD_ATOMIC,
	PV_QP_ALT_PATH, PV_QP_MIN_RNR_TIMER, PV_QP_SQ_PSN, PV_QP_MAX_DEST_RD_ATOMIC,
	PV_QP_PATH_MIG_STATE, PV_QP_CAP, PV_QP_DEST_QPN, PV_QP_RATE_LIMIT,
	1u << 21, 1u << 30,	/* no such attribute */
};

/* The expected row, or NULL when the transition is illegal. RESET and ERR
 * are reachable from every state with no other bit. */
static const struct ut_row *
ut_row_find(enum pv_qp_type type, enum pv_qp_state from, enum pv_qp_state to,
	    struct ut_row *any)
{
	size_t i;

	for (i = 0; i < RTE_DIM(ut_rows); i++)
		if (ut_rows[i].type == type && ut_rows[i].from == from && ut_rows[i].to == to)
			return &ut_rows[i];
	if (to == RST || to == ERR) {
		*any = (struct ut_row){ type, from, to, 0, 0 };
		return any;
	}
	return NULL;
}

static void
ut_check_pair(enum pv_qp_type type, enum pv_qp_state from, enum pv_qp_state to)
{
	const struct ut_row *row;
	struct ut_row any;
	uint32_t base, bad;
	size_t b;
	int ret;

	row = ut_row_find(type, from, to, &any);
	if (row == NULL) {
		/* illegal whatever the mask */
		CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type, PV_QP_STATE), EINVAL);
		for (b = 0; b < RTE_DIM(ut_all_bits); b++)
			CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type,
							      PV_QP_STATE | ut_all_bits[b]),
					EINVAL);
		return;
	}
	base = PV_QP_STATE | row->req;
	ret = pv_qp_attr_mask_check(from, to, type, (int)base);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret != 0)
		fprintf(stderr, "type %d %d->%d mask 0x%x: %d\n", type, from, to, base, ret);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type, (int)(base | row->opt)), 0);
	/* every optional bit alone */
	for (b = 0; b < RTE_DIM(ut_all_bits); b++)
		if (row->opt & ut_all_bits[b])
			CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type,
							      (int)(base | ut_all_bits[b])), 0);
	/* each required bit missing */
	for (b = 0; b < RTE_DIM(ut_all_bits); b++)
		if (row->req & ut_all_bits[b])
			CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type,
							      (int)(base & ~ut_all_bits[b])),
					EINVAL);
	/* each bit neither required nor optional added */
	for (b = 0; b < RTE_DIM(ut_all_bits); b++) {
		bad = ut_all_bits[b];
		if (bad & (row->req | row->opt | PV_QP_STATE))
			continue;
		ret = pv_qp_attr_mask_check(from, to, type, (int)(base | row->opt | bad));
		CU_ASSERT_EQUAL(ret, EINVAL);
		if (ret != EINVAL)
			fprintf(stderr, "type %d %d->%d extra 0x%x accepted\n", type, from, to, bad);
	}
	/* staying in a state may leave PV_QP_STATE out */
	if (from == to)
		CU_ASSERT_EQUAL(pv_qp_attr_mask_check(from, to, type, (int)row->req), 0);
}

static void
ut_check_type(enum pv_qp_type type)
{
	int from, to;

	for (from = PV_QPS_RESET; from <= PV_QPS_ERR; from++)
		for (to = PV_QPS_RESET; to <= PV_QPS_ERR; to++)
			ut_check_pair(type, from, to);
}

static void
test_table_rc(void)
{
	ut_check_type(PV_QPT_RC);
}

static void
test_table_uc(void)
{
	ut_check_type(PV_QPT_UC);
}

static void
test_table_ud(void)
{
	ut_check_type(PV_QPT_UD);
}

static void
test_table_raw(void)
{
	ut_check_type(PV_QPT_RAW_PACKET);
}

static void
test_bad_states_types(void)
{
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_UNKNOWN, PV_QPS_RESET, PV_QPT_RC,
					      PV_QP_STATE), EINVAL);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RESET, PV_QPS_UNKNOWN, PV_QPT_RC,
					      PV_QP_STATE), EINVAL);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RESET, (enum pv_qp_state)-1, PV_QPT_RC,
					      PV_QP_STATE), EINVAL);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RESET, PV_QPS_RESET, (enum pv_qp_type)0,
					      PV_QP_STATE), EINVAL);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RESET, PV_QPS_RESET, PV_QPT_DRIVER,
					      PV_QP_STATE), EINVAL);
	/* XRC has its own columns */
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RESET, PV_QPS_INIT, PV_QPT_XRC_SEND,
					      PV_QP_STATE | B_PKEY | B_PORT | B_ACC), 0);
	CU_ASSERT_EQUAL(pv_qp_attr_mask_check(PV_QPS_RTR, PV_QPS_RTS, PV_QPT_XRC_RECV,
					      PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_SQ_PSN), 0);
}

static const struct ut_case ut_verbs_qp_state_cases[] = {
	{ "RC: all 49 transitions", test_table_rc },
	{ "UC: all 49 transitions", test_table_uc },
	{ "UD: all 49 transitions", test_table_ud },
	{ "RAW_PACKET: all 49 transitions", test_table_raw },
	{ "bad states and types", test_bad_states_types },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_qp_state = {
	.name = "verbs_qp_state",
	.cases = ut_verbs_qp_state_cases,
};
