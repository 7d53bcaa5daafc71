/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * mlx5 driver private declarations: objects, logging, and the interface
 * between the data path (mlx5_qp.c, mlx5_cq.c), which only reads and writes
 * queue buffers and doorbells, and the two control paths that produce those
 * queues: rdma-core (mlx5_hw.c, for a ConnectX; built when PV_HAVE_MLX5DV,
 * never run on one yet) and the device model (mlx5_model.c, its own static
 * library, not in libpollverbs.so). Both hand the data path a struct mlx5dv_qp / mlx5dv_cq,
 * the structures mlx5dv_init_obj() fills.
 */

#ifndef PV_DRIVERS_MLX5_MLX5_PRIV_H
#define PV_DRIVERS_MLX5_MLX5_PRIV_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_spinlock.h>

#include <infiniband/mlx5dv.h>

#include "pv_autoconf.h"

#include "pv_rtc.h"
#include "pv_rtc_internal.h"
#include "pv_verbs_driver.h"

extern int pv_mlx5_logtype;
#define RTE_LOGTYPE_PV_MLX5 pv_mlx5_logtype
#define MLX5_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_MLX5, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define MLX5_DP_LOG(lvl, fmt, ...) \
	RTE_LOG_DP(lvl, PV_MLX5, fmt "\n", ##__VA_ARGS__)

/* Hardware layouts the data path relies on (infiniband/mlx5dv.h). */
static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == 16, "ctrl seg");
static_assert(sizeof(struct mlx5_wqe_raddr_seg) == 16, "raddr seg");
static_assert(sizeof(struct mlx5_wqe_data_seg) == 16, "data seg");
static_assert(sizeof(struct mlx5_wqe_atomic_seg) == 16, "atomic seg");
static_assert(sizeof(struct mlx5_wqe_inl_data_seg) == 4, "inline seg");
static_assert(sizeof(struct mlx5_cqe64) == 64, "cqe64");
static_assert(sizeof(struct mlx5_err_cqe) == 64, "err cqe");
static_assert(sizeof(struct mlx5_wqe_srq_next_seg) == 16, "srq next seg");
static_assert(sizeof(struct mlx5_wqe_umr_ctrl_seg) == 48, "umr ctrl seg");
static_assert(sizeof(struct mlx5_wqe_mkey_context_seg) == 64, "mkey context seg");
static_assert(sizeof(struct mlx5_wqe_umr_klm_seg) == 16, "klm seg");

/* XRC transport segment of an INI QP's WQEs (rdma-core's providers/mlx5/wqe.h;
 * not in mlx5dv.h). */
struct pv_mlx5_wqe_xrc_seg {
	pv_be32 xrc_srqn;
	uint8_t rsvd[12];
};
static_assert(sizeof(struct pv_mlx5_wqe_xrc_seg) == 16, "xrc seg");

/*
 * A UMR WQE (BIND_MW, LOCAL_INV), as rdma-core's mlx5 builds it: ctrl, UMR
 * ctrl, mkey context and, for a bind, one KLM padded to 64 bytes.
 */
#define PV_MLX5_UMR_KLM_BYTES	64
#define PV_MLX5_UMR_WQE_BYTES	(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_umr_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_mkey_context_seg) + \
				 PV_MLX5_UMR_KLM_BYTES)

/* Doorbell record words of a CQ (PRM: set_ci, arm). */
#define PV_MLX5_CQ_SET_CI	0
#define PV_MLX5_CQ_ARM_DB	1
/* Largest WQE the data path builds: DS is 6 bits, in 16-byte units. */
#define PV_MLX5_MAX_WQE_DS	63
#define PV_MLX5_MAX_WQE_BB	16
/* sq_room while a UMR's follower is to be fenced: any budget from it is
 * below -2^29 (rings hold at most 2^16 WQEBBs) */
#define PV_MLX5_SQ_ROOM_FENCE	0xc0000000u
/* CQ arm command sequence number: 2 bits at bit 28 of the arm doorbell. */
#define PV_MLX5_CQ_ARM_SN_MASK	3

/** Which control path produced a context's queues. */
enum pv_mlx5_dev_kind {
	PV_MLX5_DEV_HW,		/**< rdma-core on a ConnectX */
	PV_MLX5_DEV_MODEL,	/**< the software device model */
};

struct pv_mlx5_qp;
struct pv_mlx5_mdl_dev;
struct pv_mlx5_mdl_qp;
struct pv_mlx5_mdl_cq;
struct pv_mlx5_mdl_srq;

/* QPN -> QP for the CQ poller: two levels of 4096 entries (24-bit QPNs). */
#define PV_MLX5_QPT_SHIFT	12
#define PV_MLX5_QPT_SIZE	(1u << PV_MLX5_QPT_SHIFT)

/** An open mlx5 device (hardware or model). */
struct pv_mlx5_context {
	struct pv_context ibctx;		/**< public part, first */
	enum pv_mlx5_dev_kind kind;
	struct ibv_context *ibv;		/**< HW: rdma-core context */
	struct pv_mlx5_mdl_dev *mdl;		/**< model: the device */
	struct pv_device_attr attr;		/**< cached at open */
	uint32_t cqe_size;			/**< CQE bytes the data path expects */
	struct pv_rtc_ctrl_timer *async_timer;	/**< HW: drains rdma-core's async fd */
	struct pv_mlx5_qp **qpt[PV_MLX5_QPT_SIZE];
	/** SRQN -> receive view of an XRC SRQ (struct pv_mlx5_srq.xrc_recv):
	 *  an XRC TGT QP's receive CQE is found by the SRQ it names */
	struct pv_mlx5_qp **xsrqt[PV_MLX5_QPT_SIZE];
	uint32_t nb_xrc_srq;
	/** PV_PROGRESS_APP (env PV_SINGLE_THREADED=1 or pv_set_progress_mode()):
	 *  no lock on any queue of this context */
	uint8_t single_threaded;
	uint32_t nb_queues;			/**< QPs, CQs, SRQs (mode change: EBUSY) */
};

struct pv_mlx5_xrcd {
	struct pv_xrcd ibxrcd;
	struct ibv_xrcd *ibv;			/**< HW */
	uint32_t xrcdn;				/**< model */
};

struct pv_mlx5_pd {
	struct pv_pd ibpd;
	struct ibv_pd *ibv;			/**< HW */
	uint32_t pdn;				/**< model */
};

struct pv_mlx5_mr {
	struct pv_mr ibmr;
	struct ibv_mr *ibv;			/**< HW */
	uint32_t mdl_index;			/**< model key table slot */
};

/** Device memory (MEMIC), hw only: rdma-core's object behind the public one. */
struct pv_mlx5_dm {
	struct pv_dm ibdm;
	struct ibv_dm *ibv;
};

/** A memory window: a key bound to part of an MR by a UMR WQE. */
struct pv_mlx5_mw {
	struct pv_mw ibmw;
	struct ibv_mw *ibv;			/**< HW */
	uint32_t mdl_index;			/**< model key table slot */
};

/** Data-path view of a CQ: what mlx5dv_init_obj() reports, pre-digested. */
struct pv_mlx5_cq {
	union {					/**< public part, first */
		struct pv_cq ibcq;
		struct pv_cq_ex ibcqx;		/**< room for pv_create_cq_ex() */
	};
	/* hot: poll_cq */
	uint8_t *buf;				/**< 64-byte part of CQE 0 */
	uint32_t ci;				/**< consumer index, free running */
	uint32_t cqe_cnt;			/**< entries, power of two */
	uint32_t cqe_shift;			/**< log2 of the CQE stride */
	uint32_t log_cnt;			/**< log2 of cqe_cnt */
	volatile pv_be32 *dbrec;		/**< [0] set_ci, [1] arm */
	struct pv_mlx5_qp *last_qp;		/**< QP of the previous CQE */
	struct pv_mlx5_context *ctx;
	rte_spinlock_t lock;			/**< thread-safe mode: poll, arm */
	/* cold */
	uint8_t *cq_uar;			/**< UAR page: CQ doorbell at 0x20 */
	uint32_t cqn;
	uint32_t arm_sn;			/**< bumped per delivered event */
	struct ibv_cq *ibv;			/**< HW */
	struct pv_mlx5_mdl_cq *mdl;		/**< model */
};

/**
 * Data-path view of an SRQ: WQEs of a next segment (struct
 * mlx5_wqe_srq_next_seg) and data segments, linked through next_wqe_index
 * into a list of free WQEs. Posting takes WQEs from its head, a completion
 * puts the WQE the CQE names back at its tail; the tail WQE is never posted,
 * so the list is never empty and the hardware, which follows next_wqe_index
 * from the WQE it consumed last, never reads a link being rewritten.
 */
struct pv_mlx5_srq {
	struct pv_srq ibsrq;			/**< public part, first */
	/* hot: post_srq_recv and the receive completion */
	uint8_t *buf;				/**< WQE 0 */
	uint64_t *wrid;				/**< wr_id of the WQE at each index */
	volatile pv_be32 *dbrec;		/**< WQEs posted, low 16 bits */
	uint32_t head;				/**< next free WQE to post into */
	uint32_t tail;				/**< last free WQE: never posted */
	uint32_t stride_shift;			/**< log2 of the WQE size */
	uint32_t max_sge;			/**< data segments per WQE */
	uint16_t counter;			/**< WQEs posted, free running */
	/* cold */
	uint32_t srqn;
	uint32_t wqe_cnt;			/**< WQEs in the free list: tail + 1 */
	uint32_t max_wr;			/**< granted: wqe_cnt - 1 */
	struct pv_mlx5_context *ctx;
	rte_spinlock_t lock;			/**< thread-safe mode: post_srq_recv */
	struct ibv_srq *ibv;			/**< HW */
	struct pv_mlx5_mdl_srq *mdl;		/**< model */
	/** XRC SRQ: the QP-shaped view the CQ poller retires its receives
	 *  through (srq, recv_retire; a QPN no CQE carries), else NULL */
	struct pv_mlx5_qp *xrc_recv;
};

/** wr_id of the receive WQE a responder CQE names, retired (RQ or SRQ). */
typedef uint64_t (*pv_mlx5_recv_retire_fn)(struct pv_mlx5_qp *qp, uint16_t wqe_counter);

/** Data-path view of an RC QP. */
struct pv_mlx5_qp {
	union {					/**< public part, first */
		struct pv_qp ibqp;
		struct pv_qp_ex ibqpx;		/**< room for the pv_wr_* API */
	};
	/* hot: post_send */
	uint8_t *sq_buf;			/**< WQEBB 0 */
	uint32_t sq_pi;				/**< next WQEBB, free running */
	uint32_t sq_ci;				/**< first WQEBB not completed */
	uint32_t sq_mask;			/**< sq_cnt - 1 */
	uint32_t sq_room;			/**< sq_room_max, or PV_MLX5_SQ_ROOM_FENCE
						 *   while the next WQE must be fenced
						 *   (sq_fence): the post loop's
						 *   budget goes negative, every WR takes
						 *   the slow path */
	pv_be32 qpn_be;				/**< htobe32(qpn << 8), ORed with ds */
	pv_be32 qpn_cqe;			/**< htobe32(qpn): as in a CQE */
	uint32_t max_inline;
	uint32_t max_send_sge;
	uint64_t *sq_wrid;			/**< wr_id of the WQE at each WQEBB */
	uint32_t *sq_next;			/**< producer index after that WQE */
	volatile pv_be32 *sq_dbrec;
	uint8_t *bf_reg;			/**< BlueFlame register base */
	uint32_t bf_off;			/**< half to write next: 0 or bf_size */
	uint32_t bf_size;			/**< bytes per half; 0: doorbell only */
	/** send_flags & 7 -> ctrl segment bytes 8..15 (signature 0,
	 *  dci_stream_channel_id 0, fm_ce_se; imm 0), as stored */
	uint64_t ctrl_w1[8];
	/* receive queue */
	uint8_t *rq_buf;
	uint32_t rq_head;			/**< next RQ WQE to post */
	uint32_t rq_tail;			/**< next RQ WQE to complete */
	uint32_t rq_mask;
	uint32_t rq_stride_shift;
	uint32_t rq_slots;			/**< data segments per RQ WQE */
	uint32_t max_recv_sge;
	uint64_t *rq_wrid;
	volatile pv_be32 *rq_dbrec;
	/** RQ (oldest WQE) or SRQ (the CQE's index), chosen at creation */
	pv_mlx5_recv_retire_fn recv_retire;
	struct pv_mlx5_srq *srq;		/**< NULL: receives from the RQ */
	/* cold */
	uint32_t qpn;
	uint32_t sq_cnt;			/**< WQEBBs */
	uint32_t rq_cnt;			/**< RQ WQEs */
	uint32_t max_wqe_bb;
	uint32_t sq_room_max;			/**< sq_cnt - max_wqe_bb: the fullest
						 *   ring that takes one more WQE, and
						 *   the last index where the largest
						 *   WQE does not wrap */
	uint8_t *scratch;			/**< a WQE that wraps is built here */
	/** enum pv_wc_opcode of the UMR WQE at each WQEBB (BIND_MW or
	 *  LOCAL_INV: a CQE reports both as MLX5_OPCODE_UMR) */
	uint8_t *sq_umr_op;
	/** a UMR WQE was posted: poll_cq looks its CQEs up in sq_umr_op */
	uint8_t sq_umr_used;
	/** bytes of the transport segment after ctrl: 16 for XRC INI, else 0 */
	uint8_t tseg;
	/** the WQE after a UMR is to be fenced */
	uint8_t sq_fence;
	/** OPF_COMMON of mlx5_qp.c, or 0 (sq_fence, XRC INI): which opcodes
	 *  the send slow path builds without its rare path */
	uint8_t sq_common;
	struct pv_mlx5_cq *scq;
	struct pv_mlx5_cq *rcq;
	struct pv_mlx5_context *ctx;
	/* thread-safe mode, as rdma-core's mlx5: a lock per send and receive
	 * queue, left out in a thread domain (td_lockless) or PV_PROGRESS_APP */
	rte_spinlock_t sq_lock;
	rte_spinlock_t rq_lock;
	uint8_t td_lockless;
	struct ibv_qp *ibv;			/**< HW */
	struct pv_mlx5_mdl_qp *mdl;		/**< model */
};

static inline struct pv_mlx5_context *
pv_mlx5_ctx(struct pv_context *ctx)
{
	return container_of(ctx, struct pv_mlx5_context, ibctx);
}

/** Undo the CQ's part of pv_mlx5_cq_dp_init() (destroy). */
void pv_mlx5_cq_dp_fini(struct pv_mlx5_cq *cq);
/** The set_progress_mode op of both mlx5 drivers (hardware and model). */
int pv_mlx5_set_progress_mode(struct pv_context *ibctx, enum pv_progress_mode mode);
/** The get_progress_mode op of both mlx5 drivers. */
int pv_mlx5_get_progress_mode(struct pv_context *ibctx);

/* parent domains (lib/verbs) resolve to the PD they extend */
static inline struct pv_mlx5_pd *
pv_mlx5_pd(struct pv_pd *pd)
{
	return container_of(pv_pd_base(pd), struct pv_mlx5_pd, ibpd);
}

static inline struct pv_mlx5_mr *
pv_mlx5_mr(struct pv_mr *mr)
{
	return container_of(mr, struct pv_mlx5_mr, ibmr);
}

static inline struct pv_mlx5_xrcd *
pv_mlx5_xrcd(struct pv_xrcd *xrcd)
{
	return container_of(xrcd, struct pv_mlx5_xrcd, ibxrcd);
}

static inline struct pv_mlx5_mw *
pv_mlx5_mw(struct pv_mw *mw)
{
	return container_of(mw, struct pv_mlx5_mw, ibmw);
}

static inline struct pv_mlx5_cq *
pv_mlx5_cq(struct pv_cq *cq)
{
	return container_of(cq, struct pv_mlx5_cq, ibcq);
}

static inline struct pv_mlx5_qp *
pv_mlx5_qp(struct pv_qp *qp)
{
	return container_of(qp, struct pv_mlx5_qp, ibqp);
}

static inline struct pv_mlx5_srq *
pv_mlx5_srq(struct pv_srq *srq)
{
	return container_of(srq, struct pv_mlx5_srq, ibsrq);
}

/* ---- mlx5_qp.c: send/receive data path ---- */

/** WQE bytes a QP with @p cap needs at most (ctrl + raddr + payload). */
uint32_t pv_mlx5_qp_max_wqe_size(const struct pv_qp_cap *cap, enum pv_qp_type qp_type);

/**
 * Take over the queues of a created QP: buffers, counts, strides, doorbell
 * record and BlueFlame register from @p dv; choose the data-path entry
 * points. @return 0 or -errno (-EINVAL bad geometry, -ENOMEM).
 */
int pv_mlx5_qp_dp_init(struct pv_mlx5_qp *qp, const struct mlx5dv_qp *dv, uint32_t qpn,
		       const struct pv_qp_init_attr *attr);
/** Free what pv_mlx5_qp_dp_init() allocated. */
void pv_mlx5_qp_dp_fini(struct pv_mlx5_qp *qp);
/** Forget every posted WQE (transition to RESET). */
void pv_mlx5_qp_dp_reset(struct pv_mlx5_qp *qp);

/* ---- mlx5_srq.c: shared receive queue data path ---- */

/**
 * Take over the queue of a created SRQ from @p dv: a free list of
 * dv->tail + 1 WQEs of dv->stride bytes linked from dv->head (0) to
 * dv->tail, as rdma-core and the model lay it out (a power of two); as many
 * data segments per WQE as its stride holds. Sets fp_post_srq_recv.
 * @return 0 or -errno (-EINVAL bad geometry, -ENOMEM).
 */
int pv_mlx5_srq_dp_init(struct pv_mlx5_srq *srq, const struct mlx5dv_srq *dv);
/** Free what pv_mlx5_srq_dp_init() allocated. */
void pv_mlx5_srq_dp_fini(struct pv_mlx5_srq *srq);
/**
 * Make @p srq an XRC SRQ for the CQ poller: its receive view, registered
 * under its SRQN. @return 0 or -ENOMEM.
 */
int pv_mlx5_srq_xrc_init(struct pv_mlx5_srq *srq);
/** Undo pv_mlx5_srq_xrc_init() (nothing when @p srq is not XRC). */
void pv_mlx5_srq_xrc_fini(struct pv_mlx5_srq *srq);
/**
 * Data path of an XRC TGT QP: none of its own (it receives through the
 * SRQs its requesters name); posting to it fails with EINVAL.
 */
void pv_mlx5_qp_dp_init_tgt(struct pv_mlx5_qp *qp, uint32_t qpn);
/** recv_retire of a QP attached to an SRQ. */
uint64_t pv_mlx5_srq_recv_retire(struct pv_mlx5_qp *qp, uint16_t wqe_counter);

/* ---- mlx5_cq.c: completion data path ---- */

int pv_mlx5_cq_dp_init(struct pv_mlx5_cq *cq, const struct mlx5dv_cq *dv);
/**
 * Move a CQ's data path to a new buffer of @p cqe_cnt entries (resize): the
 * CQEs not polled yet were copied to its entries 0.. in pass 0, so polling
 * restarts at consumer index 0. Caller: the CQ's owner, with the device
 * stopped from writing CQEs.
 */
void pv_mlx5_cq_dp_rebuf(struct pv_mlx5_cq *cq, uint8_t *buf, uint32_t cqe_cnt);
/** enum pv_wc_opcode of a requester CQE, by the MLX5_OPCODE_* it reports. */
extern const uint8_t pv_mlx5_wc_opcode[256];
/** The CQ's last_qp before its first CQE: a QP no CQE names. */
extern struct pv_mlx5_qp pv_mlx5_qp_none;
/** Map the CQE syndrome of an error CQE to a work completion status. */
enum pv_wc_status pv_mlx5_syndrome_to_status(uint8_t syndrome);
/** recv_retire of a QP with its own receive queue. */
uint64_t pv_mlx5_rq_recv_retire(struct pv_mlx5_qp *qp, uint16_t wqe_counter);
/** Advance the arm sequence number after an event was delivered. */
void pv_mlx5_cq_event_ack(struct pv_mlx5_cq *cq);

/* ---- mlx5_dev.c: shared control-path helpers ---- */

int pv_mlx5_qpt_insert(struct pv_mlx5_context *ctx, struct pv_mlx5_qp *qp);
void pv_mlx5_qpt_remove(struct pv_mlx5_context *ctx, uint32_t qpn);
struct pv_mlx5_qp *pv_mlx5_qpt_lookup(struct pv_mlx5_context *ctx, uint32_t qpn);
void pv_mlx5_qpt_free(struct pv_mlx5_context *ctx);
/** Register the receive view of XRC SRQ @p srqn. @return 0 or -ENOMEM. */
int pv_mlx5_xsrqt_insert(struct pv_mlx5_context *ctx, uint32_t srqn, struct pv_mlx5_qp *recv);
void pv_mlx5_xsrqt_remove(struct pv_mlx5_context *ctx, uint32_t srqn);
struct pv_mlx5_qp *pv_mlx5_xsrqt_lookup(struct pv_mlx5_context *ctx, uint32_t srqn);
typedef struct pv_qp *(*pv_mlx5_qp_create_fn)(struct pv_pd *pd, struct pv_qp_init_attr *attr);
typedef struct pv_qp *(*pv_mlx5_qp_create_tgt_fn)(struct pv_context *ctx,
						  struct pv_qp_init_attr_ex *x);
/**
 * The create_qp_ex op of both control paths: creation flags, TSO and RSS
 * refused (EOPNOTSUPP), XRC TGT QPs by @p create_tgt, RC and XRC INI QPs
 * by @p create (the granted caps copied back into @p x).
 */
struct pv_qp *pv_mlx5_qp_create_ex(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x,
				   pv_mlx5_qp_create_fn create,
				   pv_mlx5_qp_create_tgt_fn create_tgt);
/** Smallest power of two >= @p v (v >= 1). */
uint32_t pv_mlx5_pow2(uint32_t v);

/* ---- the two control paths ---- */

extern const struct pv_driver_ops pv_mlx5_model_ops;
#ifdef PV_HAVE_MLX5DV
extern const struct pv_driver_ops pv_mlx5_hw_ops;
#endif

#endif /* PV_DRIVERS_MLX5_MLX5_PRIV_H */
