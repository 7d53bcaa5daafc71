/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The QP state machine of ibv_modify_qp(3): which transitions are legal
 * and, for each transport, which attr_mask bits a transition requires and
 * which it allows (IBTA vol. 1, 10.3.1 and table 91 "QP state transition
 * properties"; the same rules as the Linux kernel's ib_modify_qp_is_ok()).
 *
 * States:
 *   RESET  created, no resources usable; only INIT (or ERR) follow.
 *   INIT   receives may be posted; nothing is processed yet.
 *   RTR    ready to receive: the remote path is known, inbound processed.
 *   RTS    ready to send: requests are processed in both directions.
 *   SQD    send queue drained: in-flight sends finish, new ones wait.
 *   SQE    send queue error (UC/UD only, entered by the device on a send
 *          error): sends flushed, receives go on.
 *   ERR    every queued WR is flushed with an error completion.
 * Any state may go to RESET or ERR with no other attribute.
 */

#include <errno.h>

#include "verbs_priv.h"

/* QP types with a column in the table */
enum {
	QPT_IDX_RC,
	QPT_IDX_UC,
	QPT_IDX_UD,
	QPT_IDX_RAW,
	QPT_IDX_XRC_INI,	/* PV_QPT_XRC_SEND */
	QPT_IDX_XRC_TGT,	/* PV_QPT_XRC_RECV */
	QPT_IDX_NUM,
};

struct qp_transition {
	uint8_t valid;
	uint32_t req[QPT_IDX_NUM];	/* bits that must be in attr_mask */
	uint32_t opt[QPT_IDX_NUM];	/* bits that may be in attr_mask */
};

/* RC/UC/XRC connection attributes shared by several transitions */
#define M_PATH_MOD (PV_QP_ALT_PATH | PV_QP_ACCESS_FLAGS | PV_QP_PATH_MIG_STATE)
#define M_INIT_CONN (PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS)
#define M_INIT_UD (PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY)
#define M_RTR_UC (PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN)
#define M_RTR_RC (M_RTR_UC | PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER)
#define M_RTS_RC (PV_QP_TIMEOUT | PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_SQ_PSN | \
		  PV_QP_MAX_QP_RD_ATOMIC)

static const struct qp_transition qp_table[PV_QPS_ERR + 1][PV_QPS_ERR + 1] = {
	[PV_QPS_RESET] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_INIT] = {
			.valid = 1,
			.req = {
				[QPT_IDX_RC] = M_INIT_CONN,
				[QPT_IDX_UC] = M_INIT_CONN,
				[QPT_IDX_UD] = M_INIT_UD,
				[QPT_IDX_RAW] = PV_QP_PORT,
				[QPT_IDX_XRC_INI] = M_INIT_CONN,
				[QPT_IDX_XRC_TGT] = M_INIT_CONN,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_INIT] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_INIT] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_RC] = M_INIT_CONN,
				[QPT_IDX_UC] = M_INIT_CONN,
				[QPT_IDX_UD] = M_INIT_UD,
				[QPT_IDX_XRC_INI] = M_INIT_CONN,
				[QPT_IDX_XRC_TGT] = M_INIT_CONN,
			},
		},
		[PV_QPS_RTR] = {
			.valid = 1,
			.req = {
				[QPT_IDX_RC] = M_RTR_RC,
				[QPT_IDX_UC] = M_RTR_UC,
				[QPT_IDX_XRC_INI] = M_RTR_UC,
				[QPT_IDX_XRC_TGT] = M_RTR_RC,
			},
			.opt = {
				[QPT_IDX_RC] = PV_QP_ALT_PATH | PV_QP_ACCESS_FLAGS | PV_QP_PKEY_INDEX,
				[QPT_IDX_UC] = PV_QP_ALT_PATH | PV_QP_ACCESS_FLAGS | PV_QP_PKEY_INDEX,
				[QPT_IDX_UD] = PV_QP_PKEY_INDEX | PV_QP_QKEY,
				[QPT_IDX_XRC_INI] = PV_QP_ALT_PATH | PV_QP_ACCESS_FLAGS |
						    PV_QP_PKEY_INDEX,
				[QPT_IDX_XRC_TGT] = PV_QP_ALT_PATH | PV_QP_ACCESS_FLAGS |
						    PV_QP_PKEY_INDEX,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_RTR] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_RTS] = {
			.valid = 1,
			.req = {
				[QPT_IDX_RC] = M_RTS_RC,
				[QPT_IDX_UC] = PV_QP_SQ_PSN,
				[QPT_IDX_UD] = PV_QP_SQ_PSN,
				[QPT_IDX_XRC_INI] = M_RTS_RC,
				[QPT_IDX_XRC_TGT] = PV_QP_TIMEOUT | PV_QP_SQ_PSN,
			},
			.opt = {
				[QPT_IDX_RC] = PV_QP_CUR_STATE | M_PATH_MOD | PV_QP_MIN_RNR_TIMER,
				[QPT_IDX_UC] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_UD] = PV_QP_CUR_STATE | PV_QP_QKEY,
				[QPT_IDX_RAW] = PV_QP_RATE_LIMIT,
				[QPT_IDX_XRC_INI] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_XRC_TGT] = PV_QP_CUR_STATE | M_PATH_MOD |
						    PV_QP_MIN_RNR_TIMER,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_RTS] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_RTS] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_RC] = PV_QP_CUR_STATE | M_PATH_MOD | PV_QP_MIN_RNR_TIMER,
				[QPT_IDX_UC] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_UD] = PV_QP_CUR_STATE | PV_QP_QKEY,
				[QPT_IDX_RAW] = PV_QP_RATE_LIMIT,
				[QPT_IDX_XRC_INI] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_XRC_TGT] = PV_QP_CUR_STATE | M_PATH_MOD |
						    PV_QP_MIN_RNR_TIMER,
			},
		},
		[PV_QPS_SQD] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_RC] = PV_QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_IDX_UC] = PV_QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_IDX_UD] = PV_QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_IDX_XRC_INI] = PV_QP_EN_SQD_ASYNC_NOTIFY,
				[QPT_IDX_XRC_TGT] = PV_QP_EN_SQD_ASYNC_NOTIFY,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_SQD] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_RTS] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_RC] = PV_QP_CUR_STATE | M_PATH_MOD | PV_QP_MIN_RNR_TIMER,
				[QPT_IDX_UC] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_UD] = PV_QP_CUR_STATE | PV_QP_QKEY,
				[QPT_IDX_XRC_INI] = PV_QP_CUR_STATE | M_PATH_MOD,
				[QPT_IDX_XRC_TGT] = PV_QP_CUR_STATE | M_PATH_MOD |
						    PV_QP_MIN_RNR_TIMER,
			},
		},
		[PV_QPS_SQD] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_RC] = PV_QP_PORT | PV_QP_AV | PV_QP_TIMEOUT |
					       PV_QP_RETRY_CNT | PV_QP_RNR_RETRY |
					       PV_QP_MAX_QP_RD_ATOMIC | PV_QP_MAX_DEST_RD_ATOMIC |
					       M_PATH_MOD | PV_QP_PKEY_INDEX |
					       PV_QP_MIN_RNR_TIMER,
				[QPT_IDX_UC] = PV_QP_AV | M_PATH_MOD | PV_QP_PKEY_INDEX,
				[QPT_IDX_UD] = PV_QP_PKEY_INDEX | PV_QP_QKEY,
				[QPT_IDX_XRC_INI] = PV_QP_PORT | PV_QP_AV | PV_QP_TIMEOUT |
						    PV_QP_RETRY_CNT | PV_QP_RNR_RETRY |
						    PV_QP_MAX_QP_RD_ATOMIC | M_PATH_MOD |
						    PV_QP_PKEY_INDEX,
				[QPT_IDX_XRC_TGT] = PV_QP_PORT | PV_QP_AV | PV_QP_TIMEOUT |
						    PV_QP_MAX_DEST_RD_ATOMIC | M_PATH_MOD |
						    PV_QP_PKEY_INDEX | PV_QP_MIN_RNR_TIMER,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_SQE] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_RTS] = {
			.valid = 1,
			.opt = {
				[QPT_IDX_UC] = PV_QP_CUR_STATE | PV_QP_ACCESS_FLAGS,
				[QPT_IDX_UD] = PV_QP_CUR_STATE | PV_QP_QKEY,
			},
		},
		[PV_QPS_ERR] = { .valid = 1 },
	},
	[PV_QPS_ERR] = {
		[PV_QPS_RESET] = { .valid = 1 },
		[PV_QPS_ERR] = { .valid = 1 },
	},
};

/* Column of @p type in qp_table, or -1 for a type the table does not know. */
static int
qp_type_idx(enum pv_qp_type type)
{
	switch (type) {
	case PV_QPT_RC:
		return QPT_IDX_RC;
	case PV_QPT_UC:
		return QPT_IDX_UC;
	case PV_QPT_UD:
		return QPT_IDX_UD;
	case PV_QPT_RAW_PACKET:
		return QPT_IDX_RAW;
	case PV_QPT_XRC_SEND:
		return QPT_IDX_XRC_INI;
	case PV_QPT_XRC_RECV:
		return QPT_IDX_XRC_TGT;
	default:
		return -1;
	}
}

int
pv_qp_attr_mask_check(enum pv_qp_state cur, enum pv_qp_state next, enum pv_qp_type type,
		      int attr_mask)
{
	const struct qp_transition *t;
	uint32_t mask = (uint32_t)attr_mask;
	uint32_t req, opt;
	int idx;

	idx = qp_type_idx(type);
	if (idx < 0)
		return EINVAL;
	if ((unsigned int)cur > PV_QPS_ERR || (unsigned int)next > PV_QPS_ERR)
		return EINVAL;
	/* Send Queue Error is a state of unreliable transports only (RC goes
	 * to ERR on a send error, IBTA 10.3.1): only UC and UD leave it for RTS */
	if (cur == PV_QPS_SQE && next == PV_QPS_RTS && type != PV_QPT_UC && type != PV_QPT_UD)
		return EINVAL;
	t = &qp_table[cur][next];
	if (!t->valid)
		return EINVAL;
	req = t->req[idx];
	opt = t->opt[idx];
	if ((mask & req) != req)
		return EINVAL;
	if (mask & ~(req | opt | PV_QP_STATE))
		return EINVAL;
	return 0;
}
