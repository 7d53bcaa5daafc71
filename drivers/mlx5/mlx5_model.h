/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The mlx5 device model: a software ConnectX that owns queue buffers,
 * doorbell records and a BlueFlame page in DPDK memory, hands them to the
 * data path in the mlx5dv_qp / mlx5dv_cq layouts, and executes the queues
 * as the hardware does: it watches the BlueFlame register and the doorbell
 * records, runs WQEs in order between its QPs, checks keys, bounds and
 * rights on registered memory, and writes CQEs with the right owner phase.
 *
 * Built into its own static library (pv_drv_mlx5_model), never into
 * libpollverbs.so; private to the driver, its tests, tools/mlx5-bench and
 * pv-perf-model. One engine serves every model device of the process (they
 * form one fabric); it runs as a poller on its own lcore, or is stepped
 * synchronously with pv_mlx5_model_step().
 */

#ifndef PV_DRIVERS_MLX5_MLX5_MODEL_H
#define PV_DRIVERS_MLX5_MLX5_MODEL_H

#include <stdint.h>

#include <rte_spinlock.h>

#include "mlx5_priv.h"

#define PV_MLX5_MDL_MAX_DEV	4
#define PV_MLX5_MDL_MAX_QP	256
#define PV_MLX5_MDL_MAX_CQ	256
#define PV_MLX5_MDL_MAX_MR	4096	/* 1 << PV_MLX5_MDL_KEY_IDX_BITS */
#define PV_MLX5_MDL_MAX_PD	256
#define PV_MLX5_MDL_MAX_SRQ	64
#define PV_MLX5_MDL_SRQN_BASE	0x20
#define PV_MLX5_MDL_MAX_SRQ_WR	32767	/* WQE indices are 16 bits */
#define PV_MLX5_MDL_QPN_BASE	0x100
#define PV_MLX5_MDL_CQN_BASE	0x40
#define PV_MLX5_MDL_UAR_SIZE	4096
#define PV_MLX5_MDL_BF_OFFSET	0x800	/* as a ConnectX UAR page */
#define PV_MLX5_MDL_BF_SIZE	256	/* bytes per BlueFlame half */
#define PV_MLX5_MDL_MAX_INLINE	256
#define PV_MLX5_MDL_MAX_SGE	16
#define PV_MLX5_MDL_MAX_QP_WR	8192
#define PV_MLX5_MDL_MAX_CQE	65535
#define PV_MLX5_MDL_MAX_MSG	(1u << 31)
#define PV_MLX5_MDL_STEP_BUDGET	256	/* WQEs per QP per step */

/** Device-wide counters (all model devices of the process). */
struct pv_mlx5_mdl_stats {
	uint64_t doorbells;	/**< BlueFlame writes consumed */
	uint64_t bf_full;	/**< ... that carried the whole WQE */
	uint64_t db_errors;	/**< BlueFlame write ahead of its doorbell record */
	uint64_t wqes;		/**< send WQEs executed (errors and flushes too) */
	uint64_t recv_wqes;	/**< receive WQEs consumed */
	uint64_t cqes;		/**< CQEs written */
	uint64_t err_cqes;	/**< error CQEs written (flushes included) */
	uint64_t cq_arms;	/**< CQ arm doorbells consumed */
	uint64_t cq_events;	/**< completion events raised */
	uint64_t cq_overruns;	/**< CQEs dropped on a full CQ */
	uint64_t rnr_naks;	/**< SENDs that found no receive WQE */
	uint64_t srq_wqes;	/**< receive WQEs consumed from SRQs (in recv_wqes too) */
	uint64_t srq_limit_events;	/**< SRQ limit events raised */
};

/** Per-QP doorbell counters. */
struct pv_mlx5_mdl_qp_stats {
	uint64_t doorbells;	/**< BlueFlame writes consumed */
	uint64_t bf_full;	/**< ... that carried the whole WQE */
	uint64_t sq_dbrec_seen;	/**< distinct send doorbell record values seen */
	uint64_t db_errors;
	uint32_t last_bf_half;	/**< 0 or 1: half of the latest BlueFlame write */
	uint32_t sq_hw_ci;	/**< next WQEBB the model executes */
};

/**
 * Run the engine once: consume doorbells, execute pending WQEs (at most
 * PV_MLX5_MDL_STEP_BUDGET per QP), flush queues in error, handle CQ arming.
 * @return work done (WQEs executed + doorbells consumed), >= 0.
 * Thread: any; serialised with the model lcore by the engine lock.
 */
int pv_mlx5_model_step(void);

/** Run pv_mlx5_model_step() until it reports no work; @return total work. */
int pv_mlx5_model_drain(void);

/** Copy the device-wide counters. */
void pv_mlx5_model_stats_get(struct pv_mlx5_mdl_stats *st);

/** Counters of a model QP. @return 0, -EINVAL not a model QP. */
int pv_mlx5_model_qp_stats_get(struct pv_qp *qp, struct pv_mlx5_mdl_qp_stats *st);

/**
 * Fail the next send WQE the model executes on @p qp with @p syndrome
 * (MLX5_CQE_SYNDROME_*), as if the hardware had detected that error.
 * @return 0, -EINVAL not a model QP.
 */
int pv_mlx5_model_qp_inject(struct pv_qp *qp, uint8_t syndrome);

/**
 * WQEs posted to @p srq and not consumed yet. @return their count, or
 * -EINVAL not a model SRQ.
 */
int pv_mlx5_model_srq_outstanding(struct pv_srq *srq);

/** Nonzero when @p ctx is a model device's context. */
int pv_mlx5_model_is(struct pv_context *ctx);

/** lcore the engine runs on, or -1 when it is stepped synchronously. */
int pv_mlx5_model_lcore(void);

/* ---- between mlx5_model.c (control) and mlx5_model_exec.c (engine) ---- */

struct pv_mlx5_mdl_dev;

/*
 * A memory key, laid out as a ConnectX mkey: the slot (PV_MLX5_MDL_MAX_MR)
 * in bits 8..19, the slot's generation in bits 20..31, counted per slot
 * from 1 (a deregistered key comes back only after 2^12 - 1 registrations
 * of its slot), and in bits 0..7 the tag a window's bind chooses (0 for an
 * MR).
 */
#define PV_MLX5_MDL_KEY_IDX_SHIFT	8
#define PV_MLX5_MDL_KEY_IDX_BITS	12
#define PV_MLX5_MDL_KEY_GEN_SHIFT	(PV_MLX5_MDL_KEY_IDX_SHIFT + PV_MLX5_MDL_KEY_IDX_BITS)
#define PV_MLX5_MDL_KEY_GEN_MAX		((1u << (32 - PV_MLX5_MDL_KEY_GEN_SHIFT)) - 1)

/** Slot of key @p key in the key table. */
static inline uint32_t
pv_mlx5_mdl_key_idx(uint32_t key)
{
	return (key >> PV_MLX5_MDL_KEY_IDX_SHIFT) & ((1u << PV_MLX5_MDL_KEY_IDX_BITS) - 1);
}

/** A memory key: an MR of reg_mr, or a memory window. */
struct pv_mlx5_mdl_mr {
	uint32_t key;		/**< lkey == rkey; 0: free slot */
	uint32_t gen;		/**< generation of the slot's latest key */
	uint32_t pdn;
	uint32_t access;	/**< pv_access_flags */
	uint64_t addr;		/**< process address of the first byte */
	uint64_t length;
	struct pv_mlx5_mdl_dev *dev;
	/* memory windows (set by the engine's UMR under the engine lock) */
	uint8_t mw_type;	/**< 0: an MR; PV_MW_TYPE_1 or PV_MW_TYPE_2 */
	uint8_t bound;		/**< window: bound to part of an MR */
	uint32_t qpn;		/**< type 2: the only QP its rkey serves */
	uint32_t mr_key;	/**< the MR it is bound into: rechecked per access */
	uint64_t base;		/**< address a WR names the first byte with (0: zero based) */
};

struct pv_mlx5_mdl_cq {
	uint32_t cqn;
	struct pv_mlx5_mdl_dev *dev;
	struct pv_mlx5_cq *drv;		/**< for raising completion events */
	uint8_t *buf;
	uint32_t cqe_cnt;
	uint32_t log_cnt;
	uint32_t cqe_size;
	volatile pv_be32 *dbrec;
	uint8_t *uar;
	uint32_t pi;			/**< CQEs written, free running */
	uint32_t armed;			/**< an arm command is pending */
	uint32_t arm_sol;		/**< ... for solicited CQEs only */
	uint32_t overrun;
};

/**
 * A model SRQ: the HCA's side of the free list. It consumes posted WQEs
 * (the doorbell record counts them) by following next_wqe_index from the
 * WQE it took last, starting at WQE 0 as the data path does.
 */
struct pv_mlx5_mdl_srq {
	uint32_t srqn;
	struct pv_mlx5_mdl_dev *dev;
	uint32_t pdn;
	struct pv_mlx5_srq *drv;	/**< for the limit event */
	uint32_t xrcdn;			/**< XRC SRQ: its domain; 0: a basic SRQ */
	struct pv_mlx5_mdl_cq *xrc_cq;	/**< XRC SRQ: its receives' CQ */
	uint8_t *buf;
	uint32_t wqe_cnt;		/**< power of two */
	uint32_t stride;
	volatile pv_be32 *dbrec;
	/* set by the control path under the engine lock */
	uint32_t limit;			/**< armed limit; 0: not armed */
	/* engine state */
	uint16_t hw_head;		/**< next WQE to consume */
	uint16_t hw_cnt;		/**< WQEs consumed, free running */
};

struct pv_mlx5_mdl_qp {
	uint32_t qpn;
	struct pv_mlx5_mdl_dev *dev;
	uint32_t pdn;			/**< XRC TGT: of the SRQ serving the request */
	enum pv_qp_type type;		/**< RC, XRC_SEND (INI) or XRC_RECV (TGT) */
	uint32_t xrcdn;			/**< XRC TGT: its domain */
	/* set by the control path under the engine lock */
	enum pv_qp_state state;
	uint32_t dest_qpn;
	uint32_t access;		/**< qp_access_flags */
	uint8_t rnr_retry;
	uint8_t retry_cnt;
	/* what the HCA was given at creation */
	uint8_t *sq_buf;
	uint32_t sq_cnt;
	uint8_t *rq_buf;
	uint32_t rq_cnt;
	uint32_t rq_stride;
	volatile pv_be32 *dbrec;
	uint8_t *uar;
	struct pv_mlx5_mdl_cq *scq;
	struct pv_mlx5_mdl_cq *rcq;
	struct pv_mlx5_mdl_srq *srq;	/**< receives from it; NULL: the RQ */
	/* engine state */
	uint16_t sq_hw_ci;		/**< next WQEBB to execute */
	uint16_t sq_db_pi;		/**< producer index the doorbells announced */
	uint16_t rq_hw_ci;		/**< next receive WQE to consume */
	uint16_t last_sq_dbrec;
	uint32_t rnr_tries;
	uint8_t inject_syndrome;
	struct pv_mlx5_mdl_qp_stats st;
};

struct pv_mlx5_mdl_dev {
	struct pv_device ibdev;
	int index;
	uint32_t ctx_open;		/**< open contexts */
};

/** The fabric: every model object, one lock, one engine. */
struct pv_mlx5_mdl_fabric {
	rte_spinlock_t lock;
	struct pv_mlx5_mdl_qp *qps[PV_MLX5_MDL_MAX_QP];
	struct pv_mlx5_mdl_cq *cqs[PV_MLX5_MDL_MAX_CQ];
	struct pv_mlx5_mdl_mr mrs[PV_MLX5_MDL_MAX_MR];
	struct pv_mlx5_mdl_srq *srqs[PV_MLX5_MDL_MAX_SRQ];
	uint32_t pd_next;
	uint32_t xrcd_next;
	struct pv_mlx5_mdl_stats st;
};

extern struct pv_mlx5_mdl_fabric pv_mlx5_mdl;

/** Flush and error helpers used by the control path on modify_qp(ERR). */
void pv_mlx5_mdl_qp_reset(struct pv_mlx5_mdl_qp *mqp);
int pv_mlx5_mdl_step_locked(void);

#endif /* PV_DRIVERS_MLX5_MLX5_MODEL_H */
