/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager of devices the kernel owns (mlx5: QP1 is the
 * kernel's): the system's librdmacm, the kernel's CM, manages the
 * connection while pollverbs owns the QP (librdmacm's user-created-QP flow:
 * rdma_init_qp_attr, conn_param.qp_num, rdma_establish). cma_sys.c, built
 * with PV_HAVE_LIBRDMACM; without it the hooks below compile away and such
 * devices have no connection manager.
 *
 * cma.c and cma_port.c call these hooks; all run under cma_lock except the
 * cma_sys_* entry points that return the API's 0 / -1 with errno (they take
 * it themselves, as the pv_rdma_* call they stand for).
 */

#ifndef PV_LIB_CM_CMA_SYS_H
#define PV_LIB_CM_CMA_SYS_H

#include <errno.h>
#include <stdint.h>

#include "pv_autoconf.h"
#include "cma_priv.h"

/* PV_CMA_NO_SYS: lib/compat's build, which is librdmacm.so.1 itself */
#if defined(PV_HAVE_LIBRDMACM) && !defined(PV_CMA_NO_SYS)

/* cma_port.c: devices matched to the kernel's, the system event channel */
void cma_sys_start(void);
void cma_sys_stop(void);			/* the pv-cm thread has stopped */
int cma_sys_fd(void);				/* -1: none */
void cma_sys_drain(void);			/* translate what the kernel queued */

/* under cma_lock, returning 0 or -errno */
int cma_sys_bind(struct cma_id *id, struct cma_device *dev, const struct sockaddr *addr);
int cma_sys_resolves(const struct cma_id *id, const struct sockaddr *dst);
int cma_sys_resolve_addr(struct cma_id *id, struct sockaddr *dst, int timeout_ms);
int cma_sys_listen_any(struct cma_id *id, int backlog, int ret);
int cma_sys_init_qp_attr(struct cma_id *id, struct pv_qp_attr *attr, int *mask);
int cma_sys_connect(struct cma_id *id, const struct pv_rdma_conn_param *param);
int cma_sys_establish(struct cma_id *id);
int cma_sys_accept(struct cma_id *id, const struct pv_rdma_conn_param *param);
int cma_sys_reject(struct cma_id *id, const void *private_data, uint8_t private_data_len);
int cma_sys_notify(struct cma_id *id, enum pv_event_type event);
void cma_sys_destroy(struct cma_id *id);

/* the API's 0 or -1 with errno; take cma_lock */
int cma_sys_resolve_route(struct cma_id *id, int timeout_ms);
int cma_sys_listen(struct cma_id *id, int backlog);
int cma_sys_disconnect(struct cma_id *id);
int cma_sys_set_option(struct cma_id *id, int level, int optname, void *optval, size_t optlen);

#else /* !PV_HAVE_LIBRDMACM: no id ever has a kernel id (id->sys stays NULL) */

static inline void cma_sys_start(void) {}
static inline void cma_sys_stop(void) {}
static inline int cma_sys_fd(void) { return -1; }
static inline void cma_sys_drain(void) {}

static inline int
cma_sys_resolves(const struct cma_id *id, const struct sockaddr *dst)
{
	(void)id;
	(void)dst;
	return 0;
}

static inline int
cma_sys_listen_any(struct cma_id *id, int backlog, int ret)
{
	(void)id;
	(void)backlog;
	return ret;
}

static inline void cma_sys_destroy(struct cma_id *id) { (void)id; }

/* Unreachable (id->sys and dev->sys are never set): what the hooks call */
#define PV_CMA_SYS_NONE(...) (-ENOTSUP)
#define cma_sys_bind PV_CMA_SYS_NONE
#define cma_sys_resolve_addr PV_CMA_SYS_NONE
#define cma_sys_init_qp_attr PV_CMA_SYS_NONE
#define cma_sys_connect PV_CMA_SYS_NONE
#define cma_sys_establish PV_CMA_SYS_NONE
#define cma_sys_accept PV_CMA_SYS_NONE
#define cma_sys_reject PV_CMA_SYS_NONE
#define cma_sys_notify PV_CMA_SYS_NONE
#define cma_sys_resolve_route PV_CMA_SYS_NONE
#define cma_sys_listen PV_CMA_SYS_NONE
#define cma_sys_disconnect PV_CMA_SYS_NONE
#define cma_sys_set_option PV_CMA_SYS_NONE

#endif /* PV_HAVE_LIBRDMACM && !PV_CMA_NO_SYS */

#endif /* PV_LIB_CM_CMA_SYS_H */
