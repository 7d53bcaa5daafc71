/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* mlx5 unit tests: shared fixtures (a model device, connected RC QP pairs). */

#ifndef PV_TEST_UNIT_MLX5_UT_MLX5_H
#define PV_TEST_UNIT_MLX5_UT_MLX5_H

#include <stdint.h>

#include "pv_verbs.h"
#include "mlx5_model.h"
#include "ut_common.h"

/** Two RC QPs of one context connected to each other, each with its CQs. */
struct ut_pair {
	struct pv_cq *cq_a;	/**< send and receive CQ of a */
	struct pv_cq *cq_b;	/**< send and receive CQ of b */
	struct pv_qp *a;
	struct pv_qp *b;
	struct pv_comp_channel *ch;	/**< NULL unless asked for */
};

extern struct pv_context *ut_ctx;
extern int ut_hw;		/* running on a ConnectX, not the model */
extern struct pv_pd *ut_pd;

/* Create a connected pair with @p cap, CQs of @p cqe entries. 0 or -1. */
int ut_pair_create(struct ut_pair *p, const struct pv_qp_cap *cap, int cqe, int sig_all,
		   int with_channel);
void ut_pair_destroy(struct ut_pair *p);
/* Bring both QPs through RESET to RTS again (after an error). */
int ut_pair_reconnect(struct ut_pair *p);
/* Move @p qp to RESET, INIT, RTR, RTS towards @p dest_qpn. */
int ut_qp_connect(struct pv_qp *qp, uint32_t dest_qpn, uint8_t rnr_retry);

/* Step the model and poll @p cq until @p n completions or no progress. */
int ut_poll(struct pv_cq *cq, int n, struct pv_wc *wc);
/* A buffer of @p len bytes registered with all access rights. */
struct pv_mr *ut_mr(size_t len);
void ut_mr_free(struct pv_mr *mr);
void ut_fill(void *buf, size_t len, uint32_t seed);

/* a ut_case.when: the case runs on the device model only, not on a ConnectX */
int ut_on_model(void);

extern const struct ut_suite ut_suite_mlx5_qp;
extern const struct ut_suite ut_suite_mlx5_cq;
extern const struct ut_suite ut_suite_mlx5_model;
extern const struct ut_suite ut_suite_mlx5_srq;
extern const struct ut_suite ut_suite_mlx5_mw;
extern const struct ut_suite ut_suite_mlx5_ex;
extern const struct ut_suite ut_suite_mlx5_xrc;

#endif /* PV_TEST_UNIT_MLX5_UT_MLX5_H */
