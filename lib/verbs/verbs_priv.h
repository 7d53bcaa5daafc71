/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/verbs private declarations: logging, the per-context state behind
 * pv_context.priv, and helpers shared by the verbs_*.c files.
 */

#ifndef PV_LIB_VERBS_VERBS_PRIV_H
#define PV_LIB_VERBS_VERBS_PRIV_H

#include <errno.h>
#include <stdint.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "pv_verbs_driver.h"

extern int pv_verbs_logtype;
#define RTE_LOGTYPE_PV_VERBS pv_verbs_logtype
#define VERBS_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_VERBS, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* Async events a context can hold before pv_async_event_post() drops them. */
#define PV_VERBS_ASYNC_RING_SIZE 1024

/** lib/verbs' state of one open context (pv_context.priv). */
struct pv_context_priv {
	struct pv_device_attr dev_attr;	/**< cached at open: limits for validation */
	uint32_t next_handle;		/**< handle of the next object (atomic) */
	struct rte_ring *async_ring;	/**< MP/MC ring of struct pv_async_event */
	uint64_t async_dropped;		/**< events lost to a full ring (atomic) */
	/** on the list of open contexts (verbs_async.c), under its lock */
	TAILQ_ENTRY(pv_context_priv) open_next;
	struct pv_context *ctx;		/**< the context this state belongs to */
};

/** Driver ops of the device behind @p ctx. */
static inline const struct pv_driver_ops *
verbs_ops(const struct pv_context *ctx)
{
	return pv_device_ops(ctx->device);
}

/** Registered drivers, in registration order (verbs_ops.c). */
TAILQ_HEAD(pv_verbs_driver_list, pv_driver);
extern struct pv_verbs_driver_list pv_verbs_drivers;

/** Cached device attributes of @p ctx. */
static inline const struct pv_device_attr *
verbs_dev_attr(const struct pv_context *ctx)
{
	return &ctx->priv->dev_attr;
}

/** Next object handle of @p ctx (unique per context). */
static inline uint32_t
verbs_handle_next(struct pv_context *ctx)
{
	return __atomic_fetch_add(&ctx->priv->next_handle, 1, __ATOMIC_RELAXED);
}

static inline void
verbs_ref_get(uint32_t *cnt)
{
	__atomic_fetch_add(cnt, 1, __ATOMIC_RELAXED);
}

static inline void
verbs_ref_put(uint32_t *cnt)
{
	__atomic_fetch_sub(cnt, 1, __ATOMIC_RELAXED);
}

static inline uint32_t
verbs_ref_read(const uint32_t *cnt)
{
	return __atomic_load_n(cnt, __ATOMIC_RELAXED);
}

/** Set errno and return NULL: the failure form of pointer verbs. */
static inline void *
verbs_err_ptr(int err)
{
	errno = err;
	return NULL;
}

/** 0 if @p port_num is in 1..phys_port_cnt of @p ctx, else EINVAL. */
int pv_verbs_port_check(struct pv_context *ctx, uint8_t port_num);

/** Query a port through the driver; 0 or a positive errno. */
int pv_verbs_port_query(struct pv_context *ctx, uint8_t port_num, struct pv_port_attr *attr);

/**
 * Validate an address vector against the device (port, GRH on RoCE, sgid
 * index); 0 or EINVAL. Used by create_ah and modify_qp(AV/ALT_PATH).
 */
int pv_verbs_ah_attr_check(struct pv_context *ctx, const struct pv_ah_attr *attr);

/**
 * Fill the common fields of an SRQ a driver created (context, handle,
 * owner, events) and take references on @p pd and, for an XRC SRQ, on
 * @p xrcd and @p cq (released by pv_destroy_srq()).
 */
/**
 * Fill the common fields of an MR a driver registered (context, PD,
 * address, length, handle, access) and take a reference on @p pd.
 */
void pv_verbs_mr_fill(struct pv_mr *mr, struct pv_pd *pd, void *addr, size_t length,
		      unsigned int access);

void pv_verbs_srq_fill(struct pv_srq *srq, struct pv_pd *pd, void *srq_context,
		       struct pv_xrcd *xrcd, struct pv_cq *cq);

/**
 * Remove every device (driver remove op) and forget the probe, so the next
 * pv_get_device_list() probes again. A pv_cleanup() hook.
 */
void pv_verbs_cleanup(void);

/** Create the context's async event queue; 0 or -errno. */
int pv_verbs_async_init(struct pv_context *ctx);

/** Free the context's async event queue. */
void pv_verbs_async_fini(struct pv_context *ctx);

/**
 * Put @p ctx on the list of open contexts that pv_device_async_event_post()
 * and pv_context_async_event_post() deliver to: at the end of open, once its
 * async queue works.
 */
void pv_verbs_async_open(struct pv_context *ctx);

/**
 * Take @p ctx off that list: at the start of close, before its queue goes.
 * When this returns no post to @p ctx through those two calls is in progress.
 */
void pv_verbs_async_close(struct pv_context *ctx);

/**
 * Before a blocking read() of an event fd of @p ctx (a completion channel's,
 * async_fd): in PV_PROGRESS_APP mode nobody but the caller progresses the
 * device, so wait here until @p fd is readable while running the device's
 * progress (sleeping a little when it is idle); return at once in
 * thread-safe mode (the background progresses) or when @p fd is
 * non-blocking (the caller's read() then says EAGAIN itself).
 */
void pv_verbs_event_wait(struct pv_context *ctx, int fd);

/*
 * Generic defaults of the optional driver ops (pv_verbs_driver.h), built
 * from the classic ops: verbs_ex.c, verbs_mr.c, verbs_qp_ex.c.
 */
int pv_verbs_default_query_device_ex(struct pv_context *ctx, struct pv_device_attr_ex *attr);
int pv_verbs_default_query_gid_ex(struct pv_context *ctx, uint8_t port_num, uint32_t index,
				  struct pv_gid_entry *entry);
struct pv_mr *pv_verbs_default_reg_mr_iova(struct pv_pd *pd, void *addr, size_t length,
					   uint64_t iova, int access);
struct pv_qp *pv_verbs_default_create_qp_ex(struct pv_context *ctx,
					    struct pv_qp_init_attr_ex *attr);

/**
 * Fill the common fields of a QP the driver created, take its references
 * and install the work request API's functions (verbs_qp.c).
 */
void pv_verbs_qp_init(struct pv_qp *qp, struct pv_context *ctx, struct pv_pd *pd,
		      struct pv_qp_init_attr *attr, struct pv_xrcd *xrcd);

/** pv_create_qp()'s argument rules; 0 or EINVAL (verbs_qp.c). */
int pv_verbs_qp_init_attr_check(struct pv_pd *pd, const struct pv_qp_init_attr *attr);

/** Install the pv_qp_ex functions on @p qp, with no batch (verbs_qp_ex.c). */
void pv_verbs_qp_ex_init(struct pv_qp *qp);

/** Free the work request batch of @p qp, if any, after its destroy (verbs_qp_ex.c). */
void pv_verbs_wr_batch_free(struct pv_verbs_wr_batch *batch);

/** Remove queued completion events of @p cq from its channel (CQ destroy). */
void pv_verbs_cq_events_purge(struct pv_cq *cq);

/** Make room for one more CQ on @p channel's event queue; 0 or ENOMEM. */
int pv_verbs_channel_attach(struct pv_comp_channel *channel);

/** Undo pv_verbs_channel_attach(). */
void pv_verbs_channel_detach(struct pv_comp_channel *channel);

#endif /* PV_LIB_VERBS_VERBS_PRIV_H */
