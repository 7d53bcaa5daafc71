/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Driver registration and the EOPNOTSUPP stubs that stand in for the ops a
 * driver leaves unset, so no path ever tests an op pointer for NULL.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "verbs_priv.h"

static int
stub_probe(const struct pv_driver *driver __rte_unused, const char *const *devargs __rte_unused,
	   int nb_devargs __rte_unused)
{
	return -EOPNOTSUPP;
}

static void
stub_remove(struct pv_device *device __rte_unused)
{
}

static struct pv_context *
stub_open_device(struct pv_device *device __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_close_device(struct pv_context *context __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_device(struct pv_context *context __rte_unused,
		  struct pv_device_attr *attr __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_port(struct pv_context *context __rte_unused, uint8_t port_num __rte_unused,
		struct pv_port_attr *attr __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_gid(struct pv_context *context __rte_unused, uint8_t port_num __rte_unused,
	       int index __rte_unused, union pv_gid *gid __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_pkey(struct pv_context *context __rte_unused, uint8_t port_num __rte_unused,
		int index __rte_unused, pv_be16 *pkey __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_pd *
stub_alloc_pd(struct pv_context *context __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_dealloc_pd(struct pv_pd *pd __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_mr *
stub_reg_mr(struct pv_pd *pd __rte_unused, void *addr __rte_unused,
	    size_t length __rte_unused, int access __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_rereg_mr(struct pv_mr *mr __rte_unused, int flags __rte_unused,
	      struct pv_pd *pd __rte_unused, void *addr __rte_unused,
	      size_t length __rte_unused, int access __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_dm *
stub_alloc_dm(struct pv_context *context __rte_unused, struct pv_alloc_dm_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_free_dm(struct pv_dm *dm __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_mr *
stub_reg_dm_mr(struct pv_pd *pd __rte_unused, struct pv_dm *dm __rte_unused,
	       uint64_t dm_offset __rte_unused, size_t length __rte_unused,
	       unsigned int access __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_dereg_mr(struct pv_mr *mr __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_ah *
stub_create_ah(struct pv_pd *pd __rte_unused, struct pv_ah_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_destroy_ah(struct pv_ah *ah __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_cq *
stub_create_cq(struct pv_context *context __rte_unused, int cqe __rte_unused,
	       struct pv_comp_channel *channel __rte_unused, int comp_vector __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_resize_cq(struct pv_cq *cq __rte_unused, int cqe __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_destroy_cq(struct pv_cq *cq __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_srq *
stub_create_srq(struct pv_pd *pd __rte_unused, struct pv_srq_init_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_modify_srq(struct pv_srq *srq __rte_unused, struct pv_srq_attr *attr __rte_unused,
		int attr_mask __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_srq(struct pv_srq *srq __rte_unused, struct pv_srq_attr *attr __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_destroy_srq(struct pv_srq *srq __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_qp *
stub_create_qp(struct pv_pd *pd __rte_unused, struct pv_qp_init_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static struct pv_qp *
stub_create_gsi_qp(struct pv_pd *pd __rte_unused, struct pv_qp_init_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_modify_qp(struct pv_qp *qp __rte_unused, struct pv_qp_attr *attr __rte_unused,
	       int attr_mask __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_query_qp(struct pv_qp *qp __rte_unused, struct pv_qp_attr *attr __rte_unused,
	      int attr_mask __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_destroy_qp(struct pv_qp *qp __rte_unused)
{
	return EOPNOTSUPP;
}

static int
stub_mcast(struct pv_qp *qp __rte_unused, const union pv_gid *gid __rte_unused,
	   uint16_t lid __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_mw *
stub_alloc_mw(struct pv_pd *pd __rte_unused, enum pv_mw_type type __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_dealloc_mw(struct pv_mw *mw __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_xrcd *
stub_open_xrcd(struct pv_context *context __rte_unused,
	       struct pv_xrcd_init_attr *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_close_xrcd(struct pv_xrcd *xrcd __rte_unused)
{
	return EOPNOTSUPP;
}

static struct pv_srq *
stub_create_srq_ex(struct pv_context *context __rte_unused,
		   struct pv_srq_init_attr_ex *attr __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

static int
stub_get_srq_num(struct pv_srq *srq __rte_unused, uint32_t *srq_num __rte_unused)
{
	return EINVAL;	/* no XRC SRQ without the driver's create_srq_ex */
}

static int
stub_progress(struct pv_context *context __rte_unused)
{
	return -EOPNOTSUPP;
}

static int
stub_set_progress_mode(struct pv_context *context __rte_unused,
		       enum pv_progress_mode mode __rte_unused)
{
	return EOPNOTSUPP;
}

/* a driver with one mode has its hardware make progress: thread safe */
static int
stub_get_progress_mode(struct pv_context *context __rte_unused)
{
	return PV_PROGRESS_THREAD_SAFE;
}

/* Same field order as struct pv_driver_ops. */
static const struct pv_driver_ops verbs_stub_ops = {
	.probe = stub_probe,
	.remove = stub_remove,
	.open_device = stub_open_device,
	.close_device = stub_close_device,
	.query_device = stub_query_device,
	.query_device_ex = pv_verbs_default_query_device_ex,
	.query_port = stub_query_port,
	.query_gid = stub_query_gid,
	.query_gid_ex = pv_verbs_default_query_gid_ex,
	.query_pkey = stub_query_pkey,
	.alloc_pd = stub_alloc_pd,
	.dealloc_pd = stub_dealloc_pd,
	.reg_mr = stub_reg_mr,
	.reg_mr_iova = pv_verbs_default_reg_mr_iova,
	.rereg_mr = stub_rereg_mr,
	.dereg_mr = stub_dereg_mr,
	.alloc_dm = stub_alloc_dm,
	.free_dm = stub_free_dm,
	.reg_dm_mr = stub_reg_dm_mr,
	.create_ah = stub_create_ah,
	.destroy_ah = stub_destroy_ah,
	.create_cq = stub_create_cq,
	.resize_cq = stub_resize_cq,
	.destroy_cq = stub_destroy_cq,
	.create_srq = stub_create_srq,
	.modify_srq = stub_modify_srq,
	.query_srq = stub_query_srq,
	.destroy_srq = stub_destroy_srq,
	.create_qp = stub_create_qp,
	.create_qp_ex = pv_verbs_default_create_qp_ex,
	.create_gsi_qp = stub_create_gsi_qp,
	.modify_qp = stub_modify_qp,
	.query_qp = stub_query_qp,
	.destroy_qp = stub_destroy_qp,
	.attach_mcast = stub_mcast,
	.detach_mcast = stub_mcast,
	.alloc_mw = stub_alloc_mw,
	.dealloc_mw = stub_dealloc_mw,
	.open_xrcd = stub_open_xrcd,
	.close_xrcd = stub_close_xrcd,
	.create_srq_ex = stub_create_srq_ex,
	.get_srq_num = stub_get_srq_num,
	.progress = stub_progress,
	.set_progress_mode = stub_set_progress_mode,
	.get_progress_mode = stub_get_progress_mode,
};

/* Take the driver's op, or the stub when the driver left it NULL. */
#define VERBS_OP_FILL(full, drv, op) \
	((full)->op = (drv)->op != NULL ? (drv)->op : verbs_stub_ops.op)

static void
verbs_ops_fill(struct pv_driver_ops *full, const struct pv_driver_ops *drv)
{
	VERBS_OP_FILL(full, drv, probe);
	VERBS_OP_FILL(full, drv, remove);
	VERBS_OP_FILL(full, drv, open_device);
	VERBS_OP_FILL(full, drv, close_device);
	VERBS_OP_FILL(full, drv, query_device);
	VERBS_OP_FILL(full, drv, query_device_ex);
	VERBS_OP_FILL(full, drv, query_port);
	VERBS_OP_FILL(full, drv, query_gid);
	VERBS_OP_FILL(full, drv, query_gid_ex);
	VERBS_OP_FILL(full, drv, query_pkey);
	VERBS_OP_FILL(full, drv, alloc_pd);
	VERBS_OP_FILL(full, drv, dealloc_pd);
	VERBS_OP_FILL(full, drv, reg_mr);
	VERBS_OP_FILL(full, drv, reg_mr_iova);
	VERBS_OP_FILL(full, drv, rereg_mr);
	VERBS_OP_FILL(full, drv, dereg_mr);
	VERBS_OP_FILL(full, drv, alloc_dm);
	VERBS_OP_FILL(full, drv, free_dm);
	VERBS_OP_FILL(full, drv, reg_dm_mr);
	VERBS_OP_FILL(full, drv, create_ah);
	VERBS_OP_FILL(full, drv, destroy_ah);
	VERBS_OP_FILL(full, drv, create_cq);
	VERBS_OP_FILL(full, drv, resize_cq);
	VERBS_OP_FILL(full, drv, destroy_cq);
	VERBS_OP_FILL(full, drv, create_srq);
	VERBS_OP_FILL(full, drv, modify_srq);
	VERBS_OP_FILL(full, drv, query_srq);
	VERBS_OP_FILL(full, drv, destroy_srq);
	VERBS_OP_FILL(full, drv, create_qp);
	VERBS_OP_FILL(full, drv, create_qp_ex);
	VERBS_OP_FILL(full, drv, create_gsi_qp);
	VERBS_OP_FILL(full, drv, modify_qp);
	VERBS_OP_FILL(full, drv, query_qp);
	VERBS_OP_FILL(full, drv, destroy_qp);
	VERBS_OP_FILL(full, drv, attach_mcast);
	VERBS_OP_FILL(full, drv, detach_mcast);
	VERBS_OP_FILL(full, drv, alloc_mw);
	VERBS_OP_FILL(full, drv, dealloc_mw);
	VERBS_OP_FILL(full, drv, open_xrcd);
	VERBS_OP_FILL(full, drv, close_xrcd);
	VERBS_OP_FILL(full, drv, create_srq_ex);
	VERBS_OP_FILL(full, drv, get_srq_num);
	VERBS_OP_FILL(full, drv, progress);
	VERBS_OP_FILL(full, drv, set_progress_mode);
	VERBS_OP_FILL(full, drv, get_progress_mode);
}

/* Registered drivers; constructors run before main(), single threaded. */
struct pv_verbs_driver_list pv_verbs_drivers = TAILQ_HEAD_INITIALIZER(pv_verbs_drivers);

void
pv_driver_register(struct pv_driver *driver)
{
	static const struct pv_driver_ops none;
	struct pv_driver *d;

	if (driver == NULL || driver->name == NULL)
		return;
	TAILQ_FOREACH(d, &pv_verbs_drivers, next) {
		if (strcmp(d->name, driver->name) == 0 || d == driver) {
			/* the log type may not be registered yet: no logging here */
			return;
		}
	}
	verbs_ops_fill(&driver->ops_full, driver->ops != NULL ? driver->ops : &none);
	TAILQ_INSERT_TAIL(&pv_verbs_drivers, driver, next);
}
