/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Helpers shared by the hardware and model control paths: the log type and
 * the QPN -> QP table the CQ poller uses for CQEs of a QP it has not seen
 * last.
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

int
pv_mlx5_qpt_insert(struct pv_mlx5_context *ctx, struct pv_mlx5_qp *qp)
{
	uint32_t top = (qp->qpn >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (ctx->qpt[top] == NULL) {
		ctx->qpt[top] = rte_zmalloc("pv_mlx5_qpt",
					    PV_MLX5_QPT_SIZE * sizeof(struct pv_mlx5_qp *), 0);
		if (ctx->qpt[top] == NULL)
			return -ENOMEM;
	}
	ctx->qpt[top][qp->qpn & (PV_MLX5_QPT_SIZE - 1)] = qp;
	return 0;
}

void
pv_mlx5_qpt_remove(struct pv_mlx5_context *ctx, uint32_t qpn)
{
	uint32_t top = (qpn >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (ctx->qpt[top] != NULL)
		ctx->qpt[top][qpn & (PV_MLX5_QPT_SIZE - 1)] = NULL;
}

struct pv_mlx5_qp *
pv_mlx5_qpt_lookup(struct pv_mlx5_context *ctx, uint32_t qpn)
{
	uint32_t top = (qpn >> PV_MLX5_QPT_SHIFT) & (PV_MLX5_QPT_SIZE - 1);

	if (ctx->qpt[top] == NULL)
		return NULL;
	return ctx->qpt[top][qpn & (PV_MLX5_QPT_SIZE - 1)];
}

void
pv_mlx5_qpt_free(struct pv_mlx5_context *ctx)
{
	uint32_t i;

	for (i = 0; i < PV_MLX5_QPT_SIZE; i++) {
		rte_free(ctx->qpt[i]);
		ctx->qpt[i] = NULL;
	}
}
