/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Fake drivers for the lib/verbs unit tests (never part of the library).
 *
 * ut_fake: devices from --pv-dev=ut_fake:name=NAME[,ports=N]; implements
 * most control ops with plain calloc'ed objects and leaves resize_cq,
 * query_qp, attach_mcast and detach_mcast unset, so lib/verbs' EOPNOTSUPP
 * stubs answer for them.
 * ut_nodev: only a probe op, recording that it was probed with no devargs.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "ut_verbs.h"

struct ut_fake_state ut_fake;

struct ut_dev {
	struct pv_device dev;
	int ports;
};

struct ut_ctx {
	struct pv_context ctx;
};

struct ut_probe_arg {
	char name[PV_SYSFS_NAME_MAX];
	int ports;
};

static int
ut_devarg(const char *key, const char *value, void *opaque)
{
	struct ut_probe_arg *a = opaque;

	if (strcmp(key, "name") == 0)
		snprintf(a->name, sizeof(a->name), "%s", value);
	else if (strcmp(key, "ports") == 0)
		a->ports = atoi(value);
	else
		return -EINVAL;
	return 0;
}

static int
ut_probe(const struct pv_driver *driver, const char *const *devargs, int nb_devargs)
{
	int i, added = 0;

	ut_fake.probe_calls++;
	ut_fake.probe_nb_devargs = nb_devargs;
	for (i = 0; i < nb_devargs; i++) {
		struct ut_probe_arg a = { .ports = 1 };
		struct ut_dev *d;

		if (pv_devargs_parse(devargs[i], ut_devarg, &a) != 0 || a.name[0] == '\0')
			continue;
		d = calloc(1, sizeof(*d));
		if (d == NULL)
			return -ENOMEM;
		snprintf(d->dev.name, sizeof(d->dev.name), "%s", a.name);
		d->dev.node_type = PV_NODE_CA;
		d->dev.transport_type = PV_TRANSPORT_IB;
		d->dev.node_guid = rte_cpu_to_be_64(0x0002c90300001000ull + i);
		d->ports = a.ports;
		if (pv_device_add(driver, &d->dev) != 0) {
			free(d);
			continue;
		}
		added++;
	}
	return added;
}

static void
ut_remove(struct pv_device *device)
{
	free(container_of(device, struct ut_dev, dev));
}

static struct pv_context *
ut_open_device(struct pv_device *device __rte_unused)
{
	struct ut_ctx *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->ctx.num_comp_vectors = UT_COMP_VECTORS;
	return &c->ctx;
}

static int
ut_close_device(struct pv_context *context)
{
	free(container_of(context, struct ut_ctx, ctx));
	return 0;
}

static int
ut_query_device(struct pv_context *context, struct pv_device_attr *attr)
{
	struct ut_dev *d = container_of(context->device, struct ut_dev, dev);

	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "1.2.3");
	attr->node_guid = context->device->node_guid;
	attr->sys_image_guid = context->device->node_guid;
	attr->max_mr_size = UT_MAX_MR_SIZE;
	attr->page_size_cap = 0xfffff000;
	attr->vendor_id = 0x1234;
	attr->vendor_part_id = 42;
	attr->max_qp = 64;
	attr->max_qp_wr = UT_MAX_QP_WR;
	attr->device_cap_flags = PV_DEVICE_RC_RNR_NAK_GEN;
	attr->atomic_cap = PV_ATOMIC_HCA;
	attr->max_sge = UT_MAX_SGE;
	attr->max_cq = 64;
	attr->max_cqe = UT_MAX_CQE;
	attr->max_mr = 64;
	attr->max_pd = 64;
	attr->max_qp_rd_atom = UT_MAX_RD_ATOM;
	attr->max_qp_init_rd_atom = UT_MAX_RD_ATOM;
	attr->max_srq = 16;
	attr->max_srq_wr = UT_MAX_SRQ_WR;
	attr->max_srq_sge = UT_MAX_SRQ_SGE;
	attr->max_pkeys = 1;
	attr->phys_port_cnt = d->ports;
	attr->max_inline_data = UT_MAX_INLINE;
	attr->odp_general_caps = ut_fake.odp_caps;
	return 0;
}

static int
ut_query_port(struct pv_context *context __rte_unused, uint8_t port_num,
	      struct pv_port_attr *attr)
{
	attr->state = PV_PORT_ACTIVE;
	attr->max_mtu = PV_MTU_4096;
	attr->active_mtu = port_num == 1 ? PV_MTU_1024 : PV_MTU_4096;
	attr->gid_tbl_len = UT_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1u << 31;
	attr->link_layer = port_num == 1 ? PV_LINK_LAYER_ETHERNET : PV_LINK_LAYER_INFINIBAND;
	attr->lid = port_num == 1 ? 0 : 7;
	return 0;
}

static int
ut_query_gid(struct pv_context *context __rte_unused, uint8_t port_num __rte_unused,
	     int index, union pv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (index == 0) {
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		gid->raw[15] = 1;
	} else if (index == 1) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		gid->raw[12] = 10;
		gid->raw[15] = 1;
	}
	return 0;
}

static int
ut_query_pkey(struct pv_context *context __rte_unused, uint8_t port_num __rte_unused,
	      int index __rte_unused, pv_be16 *pkey)
{
	*pkey = rte_cpu_to_be_16(0xffff);
	return 0;
}

static struct pv_pd *
ut_alloc_pd(struct pv_context *context __rte_unused)
{
	return calloc(1, sizeof(struct pv_pd));
}

static int
ut_dealloc_pd(struct pv_pd *pd)
{
	free(pd);
	return 0;
}

static struct pv_mr *
ut_reg_mr(struct pv_pd *pd __rte_unused, void *addr __rte_unused, size_t length __rte_unused,
	  int access __rte_unused)
{
	static uint32_t key = 0x100;
	struct pv_mr *mr = calloc(1, sizeof(*mr));

	if (mr != NULL) {
		mr->lkey = key++;
		mr->rkey = mr->lkey;
	}
	return mr;
}

static int
ut_dereg_mr(struct pv_mr *mr)
{
	free(mr);
	return 0;
}

static struct pv_ah *
ut_create_ah(struct pv_pd *pd __rte_unused, struct pv_ah_attr *attr __rte_unused)
{
	return calloc(1, sizeof(struct pv_ah));
}

static int
ut_destroy_ah(struct pv_ah *ah)
{
	free(ah);
	return 0;
}

/* Hands out the completions queued in ut_fake.wc, oldest first. */
static int
ut_poll_cq(struct pv_cq *cq __rte_unused, int num_entries, struct pv_wc *wc)
{
	int n = 0;

	ut_fake.poll_cq_calls++;
	while (n < num_entries && ut_fake.wc_next < ut_fake.nb_wc)
		wc[n++] = ut_fake.wc[ut_fake.wc_next++];
	return n;
}

static int
ut_req_notify_cq(struct pv_cq *cq, int solicited_only __rte_unused)
{
	if (cq->channel == NULL)
		return EINVAL;
	__atomic_store_n(&cq->armed, 1, __ATOMIC_RELEASE);
	return 0;
}

static struct pv_cq *
ut_create_cq(struct pv_context *context __rte_unused, int cqe,
	     struct pv_comp_channel *channel __rte_unused, int comp_vector __rte_unused)
{
	/* room for pv_create_cq_ex(), as a driver's CQ has (pv_verbs_driver.h) */
	struct pv_cq_ex *cqx = calloc(1, sizeof(*cqx));
	struct pv_cq *cq;

	if (cqx == NULL)
		return NULL;
	cq = &cqx->cq_base;
	cq->fp_poll_cq = ut_poll_cq;
	cq->fp_req_notify_cq = ut_req_notify_cq;
	cq->cqe = cqe;
	return cq;
}

static int
ut_destroy_cq(struct pv_cq *cq)
{
	free(cq);
	return 0;
}

struct ut_srq {
	struct pv_srq srq;
	struct pv_srq_attr attr;
};

static struct pv_srq *
ut_create_srq(struct pv_pd *pd __rte_unused, struct pv_srq_init_attr *attr)
{
	struct ut_srq *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->attr = attr->attr;
	return &s->srq;
}

static int
ut_modify_srq(struct pv_srq *srq, struct pv_srq_attr *attr, int attr_mask)
{
	struct ut_srq *s = container_of(srq, struct ut_srq, srq);

	if (attr_mask & PV_SRQ_MAX_WR)
		s->attr.max_wr = attr->max_wr;
	if (attr_mask & PV_SRQ_LIMIT)
		s->attr.srq_limit = attr->srq_limit;
	return 0;
}

static int
ut_query_srq(struct pv_srq *srq, struct pv_srq_attr *attr)
{
	*attr = container_of(srq, struct ut_srq, srq)->attr;
	return 0;
}

static int
ut_destroy_srq(struct pv_srq *srq)
{
	free(container_of(srq, struct ut_srq, srq));
	return 0;
}

/* Records the list (and copies of its first SGEs) in ut_fake.sent. */
static int
ut_post_send(struct pv_qp *qp __rte_unused, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	struct pv_send_wr *w;
	int n = 0;

	ut_fake.post_send_calls++;
	for (w = wr; w != NULL; w = w->next, n++) {
		if (n >= UT_SENT_MAX)
			continue;
		ut_fake.sent[n] = *w;
		ut_fake.sent[n].next = NULL;
		if (w->num_sge > 0) {
			ut_fake.sent_sge[n] = w->sg_list[0];
			if (w->send_flags & PV_SEND_INLINE)
				memcpy(ut_fake.sent_inline[n], (void *)(uintptr_t)w->sg_list[0].addr,
				       RTE_MIN(w->sg_list[0].length, (uint32_t)UT_MAX_INLINE));
		}
	}
	ut_fake.sent_nwr = n;
	if (ut_fake.post_send_ret != 0)
		*bad_wr = wr;
	return ut_fake.post_send_ret;
}

static int
ut_post_recv(struct pv_qp *qp __rte_unused, struct pv_recv_wr *wr __rte_unused,
	     struct pv_recv_wr **bad_wr __rte_unused)
{
	return 0;
}

static struct pv_qp *
ut_create_qp(struct pv_pd *pd __rte_unused, struct pv_qp_init_attr *attr)
{
	static uint32_t qpn = 0x11;
	struct pv_qp_ex *qpx;
	struct pv_qp *qp;

	switch (attr->qp_type) {
	case PV_QPT_RC:
	case PV_QPT_UC:
	case PV_QPT_UD:
	case PV_QPT_RAW_PACKET:
		break;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* room for the pv_wr_* API, as a driver's QP has (pv_verbs_driver.h) */
	qpx = calloc(1, sizeof(*qpx));
	if (qpx == NULL)
		return NULL;
	qp = &qpx->qp_base;
	qp->fp_post_send = ut_post_send;
	qp->fp_post_recv = ut_post_recv;
	qp->qp_num = qpn++;
	qp->cap = attr->cap;
	/* the device rounds send queues up to a power of two */
	qp->cap.max_send_wr = rte_align32pow2(attr->cap.max_send_wr);
	return qp;
}

static int
ut_modify_qp(struct pv_qp *qp __rte_unused, struct pv_qp_attr *attr __rte_unused,
	     int attr_mask __rte_unused)
{
	ut_fake.modify_qp_calls++;
	return ut_fake.modify_qp_ret;
}

static int
ut_destroy_qp(struct pv_qp *qp)
{
	free(qp);
	return 0;
}

static int
ut_progress(struct pv_context *context __rte_unused)
{
	return UT_PROGRESS_RET;
}

static const struct pv_driver_ops ut_fake_ops = {
	.probe = ut_probe,
	.remove = ut_remove,
	.open_device = ut_open_device,
	.close_device = ut_close_device,
	.query_device = ut_query_device,
	.query_port = ut_query_port,
	.query_gid = ut_query_gid,
	.query_pkey = ut_query_pkey,
	.alloc_pd = ut_alloc_pd,
	.dealloc_pd = ut_dealloc_pd,
	.reg_mr = ut_reg_mr,
	.dereg_mr = ut_dereg_mr,
	.create_ah = ut_create_ah,
	.destroy_ah = ut_destroy_ah,
	.create_cq = ut_create_cq,
	.destroy_cq = ut_destroy_cq,
	.create_srq = ut_create_srq,
	.modify_srq = ut_modify_srq,
	.query_srq = ut_query_srq,
	.destroy_srq = ut_destroy_srq,
	.create_qp = ut_create_qp,
	.modify_qp = ut_modify_qp,
	.destroy_qp = ut_destroy_qp,
	.progress = ut_progress,
	/* resize_cq, query_qp, attach/detach_mcast: EOPNOTSUPP stubs */
};
PV_DRIVER_REGISTER(ut_fake, ut_fake_ops);

static int
ut_nodev_probe(const struct pv_driver *driver __rte_unused,
	       const char *const *devargs __rte_unused, int nb_devargs)
{
	ut_fake.nodev_probe_calls++;
	ut_fake.nodev_probe_nb_devargs = nb_devargs;
	return 0;
}

static const struct pv_driver_ops ut_nodev_ops = {
	.probe = ut_nodev_probe,
};
PV_DRIVER_REGISTER(ut_nodev, ut_nodev_ops);

struct pv_context *
ut_fake_open(const char *name)
{
	struct pv_device **list;
	struct pv_context *ctx = NULL;
	int i, n = 0;

	list = pv_get_device_list(&n);
	if (list == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcmp(pv_get_device_name(list[i]), name) == 0)
			ctx = pv_open_device(list[i]);
	pv_free_device_list(list);
	return ctx;
}
