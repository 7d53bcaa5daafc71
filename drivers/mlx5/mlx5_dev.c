/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Helpers shared by the hardware and model control paths: the log type and
 * the QPN -> QP table the CQ poller uses for CQEs of a QP it has not seen
 * last, and the SRQN -> receive view table of XRC SRQs.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "mlx5_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_mlx5_logtype, NOTICE);

uint32_t
pv_mlx5_pow2(uint32_t v)
{
	return v <= 1 ? 1 : rte_align32pow2(v);
}

/* A two-level table of 24-bit numbers (QPNs, SRQNs) -> QP. */
static int
mlx5_tbl_insert(struct pv_mlx5_qp **tbl[], uint32_t num, struct pv_mlx5_qp *qp)
{
	uint32_t top = (num >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (tbl[top] == NULL) {
		tbl[top] = rte_zmalloc("pv_mlx5_qpt", PV_MLX5_QPT_SIZE * sizeof(struct pv_mlx5_qp *),
				       0);
		if (tbl[top] == NULL)
			return -ENOMEM;
	}
	tbl[top][num & (PV_MLX5_QPT_SIZE - 1)] = qp;
	return 0;
}

static void
mlx5_tbl_remove(struct pv_mlx5_qp **tbl[], uint32_t num)
{
	uint32_t top = (num >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (tbl[top] != NULL)
		tbl[top][num & (PV_MLX5_QPT_SIZE - 1)] = NULL;
}

static struct pv_mlx5_qp *
mlx5_tbl_lookup(struct pv_mlx5_qp **tbl[], uint32_t num)
{
	uint32_t top = (num >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (tbl[top] == NULL)
		return NULL;
	return tbl[top][num & (PV_MLX5_QPT_SIZE - 1)];
}

int
pv_mlx5_qpt_insert(struct pv_mlx5_context *ctx, struct pv_mlx5_qp *qp)
{
	return mlx5_tbl_insert(ctx->qpt, qp->qpn, qp);
}

void
pv_mlx5_qpt_remove(struct pv_mlx5_context *ctx, uint32_t qpn)
{
	mlx5_tbl_remove(ctx->qpt, qpn);
}

struct pv_mlx5_qp *
pv_mlx5_qpt_lookup(struct pv_mlx5_context *ctx, uint32_t qpn)
{
	return mlx5_tbl_lookup(ctx->qpt, qpn);
}

int
pv_mlx5_xsrqt_insert(struct pv_mlx5_context *ctx, uint32_t srqn, struct pv_mlx5_qp *recv)
{
	int ret = mlx5_tbl_insert(ctx->xsrqt, srqn, recv);

	if (ret == 0)
		ctx->nb_xrc_srq++;
	return ret;
}

void
pv_mlx5_xsrqt_remove(struct pv_mlx5_context *ctx, uint32_t srqn)
{
	mlx5_tbl_remove(ctx->xsrqt, srqn);
	ctx->nb_xrc_srq--;
}

struct pv_mlx5_qp *
pv_mlx5_xsrqt_lookup(struct pv_mlx5_context *ctx, uint32_t srqn)
{
	return mlx5_tbl_lookup(ctx->xsrqt, srqn);
}

void
pv_mlx5_qpt_free(struct pv_mlx5_context *ctx)
{
	uint32_t i;

	for (i = 0; i < PV_MLX5_QPT_SIZE; i++) {
		rte_free(ctx->qpt[i]);
		ctx->qpt[i] = NULL;
		rte_free(ctx->xsrqt[i]);
		ctx->xsrqt[i] = NULL;
	}
}

#define MLX5_QP_INIT_ATTR_UNSUPPORTED (PV_QP_INIT_ATTR_CREATE_FLAGS | \
				       PV_QP_INIT_ATTR_MAX_TSO_HEADER | \
				       PV_QP_INIT_ATTR_IND_TABLE | PV_QP_INIT_ATTR_RX_HASH)

struct pv_qp *
pv_mlx5_qp_create_ex(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x,
		     pv_mlx5_qp_create_fn create, pv_mlx5_qp_create_tgt_fn create_tgt)
{
	struct pv_qp_init_attr a;
	struct pv_qp *qp;

	if (x->comp_mask & MLX5_QP_INIT_ATTR_UNSUPPORTED) {
		MLX5_LOG(ERR, "%s: qp comp_mask 0x%x: create flags, TSO, RSS not driven",
			 ibctx->device->name, x->comp_mask);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (x->qp_type == PV_QPT_XRC_RECV)
		return create_tgt(ibctx, x);
	pv_qp_init_attr_from_ex(&a, x);
	qp = create(x->pd, &a);
	if (qp != NULL)
		x->cap = a.cap;
	return qp;
}
