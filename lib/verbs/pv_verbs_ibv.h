/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * rdma-core's verbs attributes to ours and back, for the code that calls
 * rdma-core: the mlx5 hardware control path (drivers/mlx5/mlx5_hw.c) and
 * the connection manager over librdmacm (lib/cm/cma_sys.c). Not installed;
 * include it only where infiniband/verbs.h is available.
 *
 * pollverbs' enums and mask bits have libibverbs' values (pv_verbs.h mirrors
 * verbs.h), checked below, so every conversion is a copy field by field.
 */

#ifndef PV_LIB_VERBS_PV_VERBS_IBV_H
#define PV_LIB_VERBS_PV_VERBS_IBV_H

#include <assert.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pv_verbs.h"

/* same value in both enums (cast: comparing two enum types warns) */
#define PV_IBV_SAME(pv, ibv) ((long)(pv) == (long)(ibv))

static_assert(PV_IBV_SAME(PV_QP_STATE, IBV_QP_STATE) && PV_IBV_SAME(PV_QP_AV, IBV_QP_AV) &&
	      PV_IBV_SAME(PV_QP_DEST_QPN, IBV_QP_DEST_QPN) &&
	      PV_IBV_SAME(PV_QP_RATE_LIMIT, IBV_QP_RATE_LIMIT), "pv_qp_attr_mask is ibv's");
static_assert(PV_IBV_SAME(PV_QPS_RESET, IBV_QPS_RESET) && PV_IBV_SAME(PV_QPS_ERR, IBV_QPS_ERR),
	      "pv_qp_state is ibv_qp_state");
static_assert(PV_IBV_SAME(PV_MTU_256, IBV_MTU_256) && PV_IBV_SAME(PV_MTU_4096, IBV_MTU_4096),
	      "pv_mtu is ibv_mtu");
static_assert(PV_IBV_SAME(PV_MIG_ARMED, IBV_MIG_ARMED), "pv_mig_state is ibv_mig_state");
static_assert(PV_IBV_SAME(PV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE) &&
	      PV_IBV_SAME(PV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ) &&
	      PV_IBV_SAME(PV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC),
	      "pv_access_flags is ibv_access_flags");
static_assert(PV_IBV_SAME(PV_EVENT_COMM_EST, IBV_EVENT_COMM_EST) &&
	      PV_IBV_SAME(PV_EVENT_GID_CHANGE, IBV_EVENT_GID_CHANGE),
	      "pv_event_type is ibv_event_type");
static_assert(PV_IBV_SAME(PV_QPT_RC, IBV_QPT_RC) && PV_IBV_SAME(PV_QPT_UD, IBV_QPT_UD),
	      "pv_qp_type is ibv_qp_type");

static inline void
pv_ah_attr_to_ibv(const struct pv_ah_attr *p, struct ibv_ah_attr *a)
{
	memcpy(a->grh.dgid.raw, p->grh.dgid.raw, sizeof(a->grh.dgid.raw));
	a->grh.flow_label = p->grh.flow_label;
	a->grh.sgid_index = p->grh.sgid_index;
	a->grh.hop_limit = p->grh.hop_limit;
	a->grh.traffic_class = p->grh.traffic_class;
	a->dlid = p->dlid;
	a->sl = p->sl;
	a->src_path_bits = p->src_path_bits;
	a->static_rate = p->static_rate;
	a->is_global = p->is_global;
	a->port_num = p->port_num;
}

static inline void
pv_ah_attr_from_ibv(const struct ibv_ah_attr *a, struct pv_ah_attr *p)
{
	memcpy(p->grh.dgid.raw, a->grh.dgid.raw, sizeof(p->grh.dgid.raw));
	p->grh.flow_label = a->grh.flow_label;
	p->grh.sgid_index = a->grh.sgid_index;
	p->grh.hop_limit = a->grh.hop_limit;
	p->grh.traffic_class = a->grh.traffic_class;
	p->dlid = a->dlid;
	p->sl = a->sl;
	p->src_path_bits = a->src_path_bits;
	p->static_rate = a->static_rate;
	p->is_global = a->is_global;
	p->port_num = a->port_num;
}

/** Every field of @p p into @p a (zeroed first): pv_modify_qp() -> ibv_modify_qp(). */
static inline void
pv_qp_attr_to_ibv(const struct pv_qp_attr *p, struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = (enum ibv_qp_state)p->qp_state;
	a->cur_qp_state = (enum ibv_qp_state)p->cur_qp_state;
	a->path_mtu = (enum ibv_mtu)p->path_mtu;
	a->path_mig_state = (enum ibv_mig_state)p->path_mig_state;
	a->qkey = p->qkey;
	a->rq_psn = p->rq_psn;
	a->sq_psn = p->sq_psn;
	a->dest_qp_num = p->dest_qp_num;
	a->qp_access_flags = p->qp_access_flags;
	a->cap.max_send_wr = p->cap.max_send_wr;
	a->cap.max_recv_wr = p->cap.max_recv_wr;
	a->cap.max_send_sge = p->cap.max_send_sge;
	a->cap.max_recv_sge = p->cap.max_recv_sge;
	a->cap.max_inline_data = p->cap.max_inline_data;
	pv_ah_attr_to_ibv(&p->ah_attr, &a->ah_attr);
	pv_ah_attr_to_ibv(&p->alt_ah_attr, &a->alt_ah_attr);
	a->pkey_index = p->pkey_index;
	a->alt_pkey_index = p->alt_pkey_index;
	a->en_sqd_async_notify = p->en_sqd_async_notify;
	a->sq_draining = p->sq_draining;
	a->max_rd_atomic = p->max_rd_atomic;
	a->max_dest_rd_atomic = p->max_dest_rd_atomic;
	a->min_rnr_timer = p->min_rnr_timer;
	a->port_num = p->port_num;
	a->timeout = p->timeout;
	a->retry_cnt = p->retry_cnt;
	a->rnr_retry = p->rnr_retry;
	a->alt_port_num = p->alt_port_num;
	a->alt_timeout = p->alt_timeout;
	a->rate_limit = p->rate_limit;
}

/** Every field of @p a into @p p (zeroed first): ibv_query_qp(), rdma_init_qp_attr(). */
static inline void
pv_qp_attr_from_ibv(const struct ibv_qp_attr *a, struct pv_qp_attr *p)
{
	memset(p, 0, sizeof(*p));
	p->qp_state = (enum pv_qp_state)a->qp_state;
	p->cur_qp_state = (enum pv_qp_state)a->cur_qp_state;
	p->path_mtu = (enum pv_mtu)a->path_mtu;
	p->path_mig_state = (enum pv_mig_state)a->path_mig_state;
	p->qkey = a->qkey;
	p->rq_psn = a->rq_psn;
	p->sq_psn = a->sq_psn;
	p->dest_qp_num = a->dest_qp_num;
	p->qp_access_flags = a->qp_access_flags;
	p->cap.max_send_wr = a->cap.max_send_wr;
	p->cap.max_recv_wr = a->cap.max_recv_wr;
	p->cap.max_send_sge = a->cap.max_send_sge;
	p->cap.max_recv_sge = a->cap.max_recv_sge;
	p->cap.max_inline_data = a->cap.max_inline_data;
	pv_ah_attr_from_ibv(&a->ah_attr, &p->ah_attr);
	pv_ah_attr_from_ibv(&a->alt_ah_attr, &p->alt_ah_attr);
	p->pkey_index = a->pkey_index;
	p->alt_pkey_index = a->alt_pkey_index;
	p->en_sqd_async_notify = a->en_sqd_async_notify;
	p->sq_draining = a->sq_draining;
	p->max_rd_atomic = a->max_rd_atomic;
	p->max_dest_rd_atomic = a->max_dest_rd_atomic;
	p->min_rnr_timer = a->min_rnr_timer;
	p->port_num = a->port_num;
	p->timeout = a->timeout;
	p->retry_cnt = a->retry_cnt;
	p->rnr_retry = a->rnr_retry;
	p->alt_port_num = a->alt_port_num;
	p->alt_timeout = a->alt_timeout;
	p->rate_limit = a->rate_limit;
}

#endif /* PV_LIB_VERBS_PV_VERBS_IBV_H */
