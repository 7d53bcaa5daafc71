/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* QP bring-up of the applications and tests: see pv_app.h. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pv_app.h"

void
pv_app_qp_opts_init(struct pv_app_qp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->port_num = 1;
	o->hop_limit = 64;
	o->mtu = PV_MTU_1024;
	o->qkey = 0x11111111;
	o->timeout = 14;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 12;
	o->max_rd_atomic = 1;
	o->max_dest_rd_atomic = 1;
}

static int
pv_app_gid_is_zero(const union pv_gid *gid)
{
	static const union pv_gid zero;

	return memcmp(gid, &zero, sizeof(zero)) == 0;
}

static int
pv_app_qp_init_attr(const struct pv_qp *qp, const struct pv_app_qp_opts *o,
		    struct pv_qp_attr *a)
{
	a->pkey_index = o->pkey_index;
	a->port_num = o->port_num;
	if (qp->qp_type == PV_QPT_UD) {
		a->qkey = o->qkey;
		return PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_QKEY;
	}
	a->qp_access_flags = o->access;
	return PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT | PV_QP_ACCESS_FLAGS;
}

static int
pv_app_qp_rtr_attr(const struct pv_qp *qp, const struct pv_app_qp_opts *o,
		   const struct pv_app_qp_peer *peer, struct pv_qp_attr *a)
{
	int mask = PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN | PV_QP_RQ_PSN;

	if (qp->qp_type == PV_QPT_UD)
		return PV_QP_STATE;	/* a UD QP's peers come with each WR's AH */
	if (peer == NULL)
		return -EINVAL;
	a->path_mtu = o->mtu;
	a->dest_qp_num = peer->qpn;
	a->rq_psn = peer->psn;
	a->ah_attr.dlid = peer->lid;
	a->ah_attr.sl = o->sl;
	a->ah_attr.port_num = o->port_num;
	if (!pv_app_gid_is_zero(&peer->gid)) {
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = peer->gid;
		a->ah_attr.grh.sgid_index = o->sgid_index;
		a->ah_attr.grh.hop_limit = o->hop_limit;
	}
	if (qp->qp_type == PV_QPT_RC) {
		/* UC has no RNR NAK and no READ/atomic responder (IBTA table 91) */
		a->max_dest_rd_atomic = o->max_dest_rd_atomic;
		a->min_rnr_timer = o->min_rnr_timer;
		mask |= PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER;
	}
	return mask;
}

static int
pv_app_qp_rts_attr(const struct pv_qp *qp, const struct pv_app_qp_opts *o,
		   struct pv_qp_attr *a)
{
	a->sq_psn = o->sq_psn;
	if (qp->qp_type != PV_QPT_RC)
		return PV_QP_STATE | PV_QP_SQ_PSN;
	a->timeout = o->timeout;
	a->retry_cnt = o->retry_cnt;
	a->rnr_retry = o->rnr_retry;
	a->max_rd_atomic = o->max_rd_atomic;
	return PV_QP_STATE | PV_QP_SQ_PSN | PV_QP_TIMEOUT | PV_QP_RETRY_CNT | PV_QP_RNR_RETRY |
	       PV_QP_MAX_QP_RD_ATOMIC;
}

int
pv_app_qp_attr(const struct pv_qp *qp, enum pv_qp_state state,
	       const struct pv_app_qp_opts *o, const struct pv_app_qp_peer *peer,
	       struct pv_qp_attr *attr_p)
{
	memset(attr_p, 0, sizeof(*attr_p));
	attr_p->qp_state = state;
	if (qp->qp_type != PV_QPT_RC && qp->qp_type != PV_QPT_UC && qp->qp_type != PV_QPT_UD)
		return -EINVAL;
	switch (state) {
	case PV_QPS_INIT:
		return pv_app_qp_init_attr(qp, o, attr_p);
	case PV_QPS_RTR:
		return pv_app_qp_rtr_attr(qp, o, peer, attr_p);
	case PV_QPS_RTS:
		return pv_app_qp_rts_attr(qp, o, attr_p);
	default:
		return -EINVAL;
	}
}

static const char *
pv_app_qp_state_name(enum pv_qp_state state)
{
	switch (state) {
	case PV_QPS_INIT:
		return "INIT";
	case PV_QPS_RTR:
		return "RTR";
	case PV_QPS_RTS:
		return "RTS";
	default:
		return "?";
	}
}

int
pv_app_qp_modify(struct pv_qp *qp, enum pv_qp_state state, const struct pv_app_qp_opts *o,
		 const struct pv_app_qp_peer *peer)
{
	const char *name = o->name != NULL ? o->name : "qp";
	struct pv_qp_attr a;
	int mask, ret;

	mask = pv_app_qp_attr(qp, state, o, peer, &a);
	if (mask < 0) {
		fprintf(stderr, "%s: QP 0x%x to %s: %s\n", name, qp->qp_num,
			pv_app_qp_state_name(state), strerror(-mask));
		return mask;
	}
	ret = o->modify != NULL ? o->modify(qp, &a, mask, o->modify_arg) :
	      pv_modify_qp(qp, &a, mask);
	if (ret != 0) {
		fprintf(stderr, "%s: QP 0x%x to %s: %s\n", name, qp->qp_num,
			pv_app_qp_state_name(state), strerror(ret));
		return -ret;
	}
	return 0;
}

int
pv_app_qp_connect(struct pv_qp *qp, const struct pv_app_qp_opts *o,
		  const struct pv_app_qp_peer *peer)
{
	int ret;

	ret = pv_app_qp_modify(qp, PV_QPS_INIT, o, peer);
	ret = ret ?: pv_app_qp_modify(qp, PV_QPS_RTR, o, peer);
	return ret ?: pv_app_qp_modify(qp, PV_QPS_RTS, o, peer);
}

enum pv_mtu
pv_app_mtu_from_bytes(int bytes)
{
	switch (bytes) {
	case 256:
		return PV_MTU_256;
	case 512:
		return PV_MTU_512;
	case 1024:
		return PV_MTU_1024;
	case 2048:
		return PV_MTU_2048;
	case 4096:
		return PV_MTU_4096;
	default:
		return 0;
	}
}
