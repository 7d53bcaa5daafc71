/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/compat: libibverbs.so.1 over pollverbs. The objects a program gets
 * (struct ibv_context, ibv_pd, ibv_cq_ex, ibv_qp_ex ...) have rdma-core's
 * layouts, because the inline verbs of <infiniband/verbs.h> that the
 * program was compiled with call through them: ibv_post_send() through
 * qp->context->ops.post_send, ibv_query_device_ex() through the
 * verbs_context in front of the ibv_context, ibv_wr_*() through the
 * ibv_qp_ex's function pointers. Each compat object embeds rdma-core's
 * object first and points to the pollverbs object behind it; the pollverbs
 * object's user context (cq_context, qp_context, srq_context) points back
 * to the compat object, so completion and async events map back in O(1).
 *
 * Work requests, SGEs and work completions are the same bytes in both APIs
 * (checked in compat_dp.c), so the data path passes the program's lists to
 * pollverbs' drivers unchanged. Private: lib/compat only.
 */

#ifndef PV_LIB_COMPAT_COMPAT_PRIV_H
#define PV_LIB_COMPAT_COMPAT_PRIV_H

#include <stddef.h>

#include <rte_log.h>

#include <infiniband/verbs.h>

#include "pv_verbs.h"

extern int pv_compat_logtype;
#define RTE_LOGTYPE_PV_COMPAT pv_compat_logtype
#define PVC_LOG(lvl, fmt, ...) \
	RTE_LOG(lvl, PV_COMPAT, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* symbols of libibverbs.so.1 (its version script gives them their node) */
#define PVC_EXPORT __attribute__((visibility("default")))

#define PVC_CONTAINER(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/** An RDMA device of the list (ibv_get_device_list()); lives until exit. */
struct pvc_device {
	struct ibv_device ibv;
	struct pv_device *pv;
	int index;
};

struct pvc_context {
	struct verbs_context vctx;	/* ends with the program's ibv_context */
	struct pv_context *pv;
};

struct pvc_pd {
	struct ibv_pd ibv;
	struct pv_pd *pv;
};

struct pvc_mr {
	struct ibv_mr ibv;
	struct pv_mr *pv;
};

struct pvc_ah {
	struct ibv_ah ibv;
	struct pv_ah *pv;
};

struct pvc_channel {
	struct ibv_comp_channel ibv;
	struct pv_comp_channel *pv;
};

/** A CQ: ibv_cq_ex starts with ibv_cq's fields, so both views work. */
struct pvc_cq {
	struct ibv_cq_ex ibv;
	struct pv_cq *pv;
	struct pv_cq_ex *pvx;		/* NULL: made by ibv_create_cq() */
};

struct pvc_srq {
	struct ibv_srq ibv;
	struct pv_srq *pv;
};

struct pvc_xrcd {
	struct ibv_xrcd ibv;
	struct pv_xrcd *pv;
};

struct pvc_qp {
	struct ibv_qp_ex ibv;		/* ibv_qp first */
	struct pv_qp *pv;
	struct pv_qp_ex *pvx;		/* the WR API of the pollverbs QP, or NULL */
	/* RC/UC/XRC: 0, the program's WR list goes to the driver as is;
	 * UD: 1, its AH pointers are translated first (compat_dp.c) */
	int translate_ah;
};

static inline struct pvc_context *
pvc_ctx(struct ibv_context *c)
{
	return PVC_CONTAINER(c, struct pvc_context, vctx.context);
}

static inline struct pvc_pd *
pvc_pd(struct ibv_pd *pd)
{
	return PVC_CONTAINER(pd, struct pvc_pd, ibv);
}

static inline struct pvc_cq *
pvc_cq(struct ibv_cq *cq)
{
	return PVC_CONTAINER((void *)cq, struct pvc_cq, ibv);
}

static inline struct pvc_qp *
pvc_qp(struct ibv_qp *qp)
{
	return PVC_CONTAINER(qp, struct pvc_qp, ibv.qp_base);
}

static inline struct pvc_srq *
pvc_srq(struct ibv_srq *srq)
{
	return PVC_CONTAINER(srq, struct pvc_srq, ibv);
}

/* NULL-safe: the pollverbs object behind an optional compat object */
static inline struct pv_cq *
pvc_cq_pv(struct ibv_cq *cq)
{
	return cq == NULL ? NULL : pvc_cq(cq)->pv;
}

static inline struct pv_srq *
pvc_srq_pv(struct ibv_srq *srq)
{
	return srq == NULL ? NULL : pvc_srq(srq)->pv;
}

/* compat_init.c: start pollverbs at the first verbs call (PV_RUN_ARGS) */
int pv_compat_start(void);
/*
 * Around the calls that may block a program thread for ever (get_cq_event,
 * get_async_event, rdma_get_cm_event): while one is blocked, exit does not
 * stop pollverbs under it (the kernel leaves such a thread blocked until
 * the process is gone; pv_cleanup() would free what it waits on), and a
 * thread that enters one once exit has begun stopping pollverbs waits
 * there until the process is gone.
 */
PVC_EXPORT void pv_compat_block_enter(void);
PVC_EXPORT void pv_compat_block_leave(void);

/* compat_dp.c: the data-path entry points of struct ibv_context_ops */
int pv_compat_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int pv_compat_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int pv_compat_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);
int pv_compat_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
int pv_compat_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* compat_ex.c: the ibv_cq_ex and ibv_qp_ex function pointers */
void pv_compat_cq_ex_init(struct pvc_cq *cq);
void pv_compat_qp_ex_init(struct pvc_qp *qp);

/* compat_map.c: pollverbs object -> compat object (control path) */
int pv_compat_map_put(const void *pv, void *obj);
void *pv_compat_map_get(const void *pv);
void pv_compat_map_del(const void *pv);

/*
 * For librdmacm.so.1 (exported from libibverbs.so.1 under
 * PV_COMPAT_PRIVATE): the compat objects of pollverbs objects lib/cm made
 * or reports; made at the first call, then the same each time.
 */
PVC_EXPORT struct ibv_context *pv_compat_context_of(struct pv_context *pv);
PVC_EXPORT struct ibv_pd *pv_compat_pd_of(struct pv_pd *pv);
PVC_EXPORT struct ibv_comp_channel *pv_compat_channel_of(struct pv_comp_channel *pv);
PVC_EXPORT struct ibv_cq *pv_compat_cq_of(struct pv_cq *pv, void *cq_context);
PVC_EXPORT struct ibv_srq *pv_compat_srq_of(struct pv_srq *pv);
/* forget (and free) the compat object of a pollverbs object lib/cm freed */
PVC_EXPORT void pv_compat_cq_release(struct ibv_cq *cq);
PVC_EXPORT void pv_compat_channel_release(struct ibv_comp_channel *channel);
PVC_EXPORT void pv_compat_context_release(struct ibv_context *context);
/* a QP made by lib/cm: new (its qp_context for pv_qp_init_attr), fill
 * once lib/cm made @p pv, free on failure or after destroying it */
PVC_EXPORT struct pvc_qp *pv_compat_qp_new(struct ibv_context *context, void *qp_context);
PVC_EXPORT void pv_compat_qp_fill(struct pvc_qp *qp, struct pv_qp *pv, struct ibv_pd *pd,
				  struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
				  struct ibv_srq *srq);
PVC_EXPORT void pv_compat_qp_free(struct pvc_qp *qp);

/* compat_device.c: a context around an open pollverbs context */
struct pvc_context *pv_compat_ctx_new(struct pv_context *pv);

/* compat_verbs.c: the verbs_context ops */
void pv_compat_ctx_ops_init(struct pvc_context *ctx);
struct pvc_cq *pv_compat_cq_new(struct ibv_context *context, void *cq_context,
				struct ibv_comp_channel *channel);
void pv_compat_cq_fill(struct pvc_cq *cq, struct pv_cq *pv);
int pv_compat_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *port_attr, size_t port_attr_len);

#endif /* PV_LIB_COMPAT_COMPAT_PRIV_H */
