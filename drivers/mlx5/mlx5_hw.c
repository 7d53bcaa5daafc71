/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Control path on a ConnectX (driver "mlx5"): rdma-core discovers, opens
 * and queries the device and creates PDs, MRs, CQs and RC QPs; then
 * mlx5dv_init_obj() hands their queues (buffers, counts, strides, doorbell
 * records, BlueFlame register, CQE size) to the shared data path, which
 * never calls rdma-core again. rdma-core errors become pv_* errors here,
 * each logged once with its cause. rdma-core's asynchronous events are
 * forwarded to the context's pv event queue by a control-thread timer.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "mlx5_priv.h"
#include "pv_verbs_ibv.h"

/* Memory-lock limit below which registering buffers is likely to fail. */
#define HW_MEMLOCK_MIN (64ull << 20)

/* How often the control thread drains rdma-core's async event fd, and how
 * many events one drain forwards at most (the rest wait for the next). */
#define HW_ASYNC_PERIOD_US	10000
#define HW_ASYNC_BURST		64

struct hw_dev {
	struct pv_device ibdev;
	struct ibv_device *ibv_dev;
};

static struct ibv_device **hw_list;
static int hw_nb_devs;

static void
hw_memlock_check(const char *what)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < HW_MEMLOCK_MIN)
		MLX5_LOG(WARNING, "%s: RLIMIT_MEMLOCK is %llu KiB; memory registration pins "
			 "pages and may fail with ENOMEM: raise it (ulimit -l unlimited, or "
			 "memlock in /etc/security/limits.conf)", what,
			 (unsigned long long)rl.rlim_cur >> 10);
}

static int
hw_probe(const struct pv_driver *driver, const char *const *devargs __rte_unused,
	 int nb_devargs __rte_unused)
{
	int i, n = 0, ret;

	hw_list = ibv_get_device_list(&n);
	if (hw_list == NULL) {
		/* ENOSYS: no RDMA subsystem (no ib_uverbs); not an error here */
		MLX5_LOG(INFO, "no device: ibv_get_device_list: %s", strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct hw_dev *dev;

		if (!mlx5dv_is_supported(hw_list[i]))
			continue;
		dev = calloc(1, sizeof(*dev));
		if (dev == NULL)
			return -ENOMEM;
		dev->ibv_dev = hw_list[i];
		dev->ibdev.node_type = PV_NODE_CA;
		dev->ibdev.transport_type = PV_TRANSPORT_IB;
		snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "%s",
			 ibv_get_device_name(hw_list[i]));
		snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "%s",
			 hw_list[i]->dev_name);
		snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path), "%s",
			 hw_list[i]->dev_path);
		snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path), "%s",
			 hw_list[i]->ibdev_path);
		dev->ibdev.node_guid = ibv_get_device_guid(hw_list[i]);
		ret = pv_device_add(driver, &dev->ibdev);
		if (ret != 0) {
			MLX5_LOG(ERR, "%s: cannot add: %s", dev->ibdev.name, rte_strerror(-ret));
			free(dev);
			continue;
		}
		hw_nb_devs++;
		MLX5_LOG(INFO, "%s: mlx5 device found", dev->ibdev.name);
	}
	if (hw_nb_devs == 0) {
		MLX5_LOG(INFO, "no device: none of %d RDMA devices is an mlx5", n);
		ibv_free_device_list(hw_list);
		hw_list = NULL;
	}
	return hw_nb_devs;
}

static void
hw_remove(struct pv_device *device)
{
	free(container_of(device, struct hw_dev, ibdev));
	if (--hw_nb_devs == 0 && hw_list != NULL) {
		ibv_free_device_list(hw_list);
		hw_list = NULL;
	}
}

static void
hw_attr_from_ibv(const struct ibv_device_attr *a, struct pv_device_attr *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->fw_ver, sizeof(p->fw_ver), "%s", a->fw_ver);
	p->node_guid = a->node_guid;
	p->sys_image_guid = a->sys_image_guid;
	p->max_mr_size = a->max_mr_size;
	p->page_size_cap = a->page_size_cap;
	p->vendor_id = a->vendor_id;
	p->vendor_part_id = a->vendor_part_id;
	p->hw_ver = a->hw_ver;
	p->max_qp = a->max_qp;
	p->max_qp_wr = a->max_qp_wr;
	p->device_cap_flags = a->device_cap_flags;
	p->max_sge = a->max_sge;
	p->max_sge_rd = a->max_sge_rd;
	p->max_cq = a->max_cq;
	p->max_cqe = a->max_cqe;
	p->max_mr = a->max_mr;
	p->max_pd = a->max_pd;
	p->max_qp_rd_atom = a->max_qp_rd_atom;
	p->max_ee_rd_atom = a->max_ee_rd_atom;
	p->max_res_rd_atom = a->max_res_rd_atom;
	p->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	p->max_ee_init_rd_atom = a->max_ee_init_rd_atom;
	p->atomic_cap = (enum pv_atomic_cap)a->atomic_cap;
	p->max_ee = a->max_ee;
	p->max_rdd = a->max_rdd;
	p->max_mw = a->max_mw;
	p->max_raw_ipv6_qp = a->max_raw_ipv6_qp;
	p->max_raw_ethy_qp = a->max_raw_ethy_qp;
	p->max_mcast_grp = a->max_mcast_grp;
	p->max_mcast_qp_attach = a->max_mcast_qp_attach;
	p->max_total_mcast_qp_attach = a->max_total_mcast_qp_attach;
	p->max_ah = a->max_ah;
	p->max_fmr = a->max_fmr;
	p->max_map_per_fmr = a->max_map_per_fmr;
	p->max_srq = a->max_srq;
	/* the data path's SRQ indices are 16 bits, its WQEs hold <= 31 SGEs */
	p->max_srq_wr = RTE_MIN(a->max_srq_wr, 32767);
	p->max_srq_sge = RTE_MIN(a->max_srq_sge, 31);
	p->max_pkeys = a->max_pkeys;
	p->local_ca_ack_delay = a->local_ca_ack_delay;
	p->phys_port_cnt = a->phys_port_cnt;
}

/*
 * Translate one rdma-core event into ours. The objects were created with
 * their pv_mlx5 object as qp_context / cq_context / srq_context.
 * @return 0, or -ENOENT for an event about an object pollverbs never creates
 *         (WQ) or that names none of ours.
 */
static int
hw_async_event_from_ibv(const struct ibv_async_event *in, struct pv_async_event *out)
{
	memset(out, 0, sizeof(*out));
	switch (in->event_type) {
	case IBV_EVENT_CQ_ERR:
		out->event_type = PV_EVENT_CQ_ERR;
		if (in->element.cq->cq_context == NULL)
			return -ENOENT;
		out->element.cq = &((struct pv_mlx5_cq *)in->element.cq->cq_context)->ibcq;
		return 0;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		out->event_type = in->event_type == IBV_EVENT_QP_FATAL ? PV_EVENT_QP_FATAL :
			in->event_type == IBV_EVENT_QP_REQ_ERR ? PV_EVENT_QP_REQ_ERR :
			in->event_type == IBV_EVENT_QP_ACCESS_ERR ? PV_EVENT_QP_ACCESS_ERR :
			in->event_type == IBV_EVENT_COMM_EST ? PV_EVENT_COMM_EST :
			in->event_type == IBV_EVENT_SQ_DRAINED ? PV_EVENT_SQ_DRAINED :
			in->event_type == IBV_EVENT_PATH_MIG ? PV_EVENT_PATH_MIG :
			in->event_type == IBV_EVENT_PATH_MIG_ERR ? PV_EVENT_PATH_MIG_ERR :
			PV_EVENT_QP_LAST_WQE_REACHED;
		if (in->element.qp->qp_context == NULL)
			return -ENOENT;
		out->element.qp = &((struct pv_mlx5_qp *)in->element.qp->qp_context)->ibqp;
		return 0;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		out->event_type = in->event_type == IBV_EVENT_SRQ_ERR ? PV_EVENT_SRQ_ERR :
			PV_EVENT_SRQ_LIMIT_REACHED;
		if (in->element.srq->srq_context == NULL)
			return -ENOENT;
		out->element.srq = &((struct pv_mlx5_srq *)in->element.srq->srq_context)->ibsrq;
		return 0;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		out->event_type = in->event_type == IBV_EVENT_PORT_ACTIVE ? PV_EVENT_PORT_ACTIVE :
			in->event_type == IBV_EVENT_PORT_ERR ? PV_EVENT_PORT_ERR :
			in->event_type == IBV_EVENT_LID_CHANGE ? PV_EVENT_LID_CHANGE :
			in->event_type == IBV_EVENT_PKEY_CHANGE ? PV_EVENT_PKEY_CHANGE :
			in->event_type == IBV_EVENT_SM_CHANGE ? PV_EVENT_SM_CHANGE :
			in->event_type == IBV_EVENT_CLIENT_REREGISTER ?
			PV_EVENT_CLIENT_REREGISTER : PV_EVENT_GID_CHANGE;
		out->element.port_num = in->element.port_num;
		return 0;
	case IBV_EVENT_DEVICE_FATAL:
		out->event_type = PV_EVENT_DEVICE_FATAL;
		return 0;
	default:
		/* IBV_EVENT_WQ_FATAL: pollverbs creates no WQs */
		return -ENOENT;
	}
}

/*
 * Control-thread timer: forward what rdma-core queued on the context's async
 * fd (non-blocking since open). Each event is acknowledged to rdma-core right
 * after it was queued to us: ibv_destroy_qp/cq/srq wait for that.
 */
static void
hw_async_drain(void *arg)
{
	struct pv_mlx5_context *ctx = arg;
	struct ibv_async_event in;
	struct pv_async_event out;
	int i, ret;

	for (i = 0; i < HW_ASYNC_BURST; i++) {
		if (ibv_get_async_event(ctx->ibv, &in) != 0) {
			if (errno != EAGAIN)
				MLX5_LOG(ERR, "%s: ibv_get_async_event: %s",
					 ctx->ibctx.device->name, strerror(errno));
			return;
		}
		ret = hw_async_event_from_ibv(&in, &out);
		if (ret == 0)
			/* -ENODEV: open not finished or close started; dropped */
			ret = pv_context_async_event_post(&ctx->ibctx, &out);
		MLX5_LOG(DEBUG, "%s: %s: %s", ctx->ibctx.device->name,
			 ibv_event_type_str(in.event_type),
			 ret == 0 ? "forwarded" : rte_strerror(-ret));
		ibv_ack_async_event(&in);
	}
}

static struct pv_context *
hw_open(struct pv_device *device)
{
	struct hw_dev *dev = container_of(device, struct hw_dev, ibdev);
	struct ibv_device_attr_ex ax;
	struct mlx5dv_context dvc;
	struct pv_mlx5_context *ctx;
	int ret;

	ctx = rte_zmalloc("pv_mlx5_ctx", sizeof(*ctx), RTE_CACHE_LINE_SIZE);
	if (ctx != NULL)
		ctx->single_threaded = pv_progress_mode_default() == PV_PROGRESS_APP;
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->ibv = ibv_open_device(dev->ibv_dev);
	if (ctx->ibv == NULL) {
		ret = errno ? errno : ENODEV;
		MLX5_LOG(ERR, "%s: ibv_open_device: %s", device->name, strerror(ret));
		goto err_free;
	}
	memset(&ax, 0, sizeof(ax));
	ret = ibv_query_device_ex(ctx->ibv, NULL, &ax);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: ibv_query_device_ex: %s", device->name, strerror(ret));
		goto err_close;
	}
	memset(&dvc, 0, sizeof(dvc));
	ret = mlx5dv_query_device(ctx->ibv, &dvc);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: mlx5dv_query_device: %s", device->name, strerror(ret));
		goto err_close;
	}
	hw_attr_from_ibv(&ax.orig_attr, &ctx->attr);
	/* the data path builds WQEs of at most 16 WQEBBs */
	ctx->attr.max_inline_data = 256;
	ctx->attr.max_sge = RTE_MIN(ctx->attr.max_sge, 30);
	if (ax.odp_caps.general_caps & IBV_ODP_SUPPORT)
		ctx->attr.odp_general_caps = PV_ODP_SUPPORT;
	ctx->kind = PV_MLX5_DEV_HW;
	ctx->cqe_size = sizeof(struct mlx5_cqe64);
	ctx->ibctx.device = device;
	ctx->ibctx.cmd_fd = ctx->ibv->cmd_fd;
	ctx->ibctx.async_fd = -1;
	ctx->ibctx.num_comp_vectors = ctx->ibv->num_comp_vectors;
	MLX5_LOG(INFO, "%s: fw %s, cqe v%d, %u ports", device->name, ax.orig_attr.fw_ver,
		 (dvc.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1) ? 1 : 0,
		 ax.orig_attr.phys_port_cnt);
	hw_memlock_check(device->name);
	/* events are drained by a timer, which must never block in read() */
	ret = fcntl(ctx->ibv->async_fd, F_GETFL);
	if (ret < 0 || fcntl(ctx->ibv->async_fd, F_SETFL, ret | O_NONBLOCK) != 0) {
		ret = errno;
		MLX5_LOG(ERR, "%s: async fd: %s", device->name, strerror(ret));
		goto err_close;
	}
	ctx->async_timer = pv_rtc_ctrl_timer_start(hw_async_drain, ctx, HW_ASYNC_PERIOD_US);
	if (ctx->async_timer == NULL) {
		ret = errno;
		MLX5_LOG(ERR, "%s: async event timer: %s", device->name, strerror(ret));
		goto err_close;
	}
	return &ctx->ibctx;
err_close:
	ibv_close_device(ctx->ibv);
err_free:
	rte_free(ctx);
	errno = ret;
	return NULL;
}

static int
hw_close(struct pv_context *ibctx)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);
	int ret;

	/* no drain runs from here on: rdma-core's context can go */
	(void)pv_rtc_ctrl_timer_stop(ctx->async_timer);
	ctx->async_timer = NULL;
	ret = ibv_close_device(ctx->ibv);
	if (ret != 0) {
		ret = errno ? errno : EIO;
		MLX5_LOG(ERR, "%s: ibv_close_device: %s", ibctx->device->name, strerror(ret));
		/* still open: keep forwarding its events */
		ctx->async_timer = pv_rtc_ctrl_timer_start(hw_async_drain, ctx,
							   HW_ASYNC_PERIOD_US);
		return ret;
	}
	pv_mlx5_qpt_free(ctx);
	rte_free(ctx);
	return 0;
}

static int
hw_query_device(struct pv_context *ibctx, struct pv_device_attr *attr)
{
	*attr = pv_mlx5_ctx(ibctx)->attr;
	return 0;
}

static int
hw_query_port(struct pv_context *ibctx, uint8_t port_num, struct pv_port_attr *p)
{
	struct ibv_port_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_port(pv_mlx5_ctx(ibctx)->ibv, port_num, &a);
	if (ret != 0)
		return ret;
	memset(p, 0, sizeof(*p));
	p->state = (enum pv_port_state)a.state;
	p->max_mtu = (enum pv_mtu)a.max_mtu;
	p->active_mtu = (enum pv_mtu)a.active_mtu;
	p->gid_tbl_len = a.gid_tbl_len;
	p->port_cap_flags = a.port_cap_flags;
	p->max_msg_sz = a.max_msg_sz;
	p->bad_pkey_cntr = a.bad_pkey_cntr;
	p->qkey_viol_cntr = a.qkey_viol_cntr;
	p->pkey_tbl_len = a.pkey_tbl_len;
	p->lid = a.lid;
	p->sm_lid = a.sm_lid;
	p->lmc = a.lmc;
	p->max_vl_num = a.max_vl_num;
	p->sm_sl = a.sm_sl;
	p->subnet_timeout = a.subnet_timeout;
	p->init_type_reply = a.init_type_reply;
	p->active_width = a.active_width;
	p->active_speed = a.active_speed;
	p->phys_state = a.phys_state;
	p->link_layer = a.link_layer;
	p->flags = a.flags;
	p->port_cap_flags2 = a.port_cap_flags2;
	return 0;
}

static int
hw_query_gid(struct pv_context *ibctx, uint8_t port_num, int index, union pv_gid *gid)
{
	union ibv_gid g;

	if (ibv_query_gid(pv_mlx5_ctx(ibctx)->ibv, port_num, index, &g) != 0)
		return errno ? errno : EINVAL;
	memcpy(gid->raw, g.raw, sizeof(gid->raw));
	return 0;
}

static int
hw_query_pkey(struct pv_context *ibctx, uint8_t port_num, int index, pv_be16 *pkey)
{
	__be16 k;

	if (ibv_query_pkey(pv_mlx5_ctx(ibctx)->ibv, port_num, index, &k) != 0)
		return errno ? errno : EINVAL;
	*pkey = k;
	return 0;
}

static struct pv_pd *
hw_pd_alloc(struct pv_context *ibctx)
{
	struct pv_mlx5_pd *pd = rte_zmalloc("pv_mlx5_pd", sizeof(*pd), 0);
	int ret;

	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibv = ibv_alloc_pd(pv_mlx5_ctx(ibctx)->ibv);
	if (pd->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_alloc_pd: %s", ibctx->device->name, strerror(ret));
		rte_free(pd);
		errno = ret;
		return NULL;
	}
	pd->ibpd.context = ibctx;
	return &pd->ibpd;
}

static int
hw_pd_dealloc(struct pv_pd *ibpd)
{
	struct pv_mlx5_pd *pd = pv_mlx5_pd(ibpd);
	int ret = ibv_dealloc_pd(pd->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_dealloc_pd: %s", strerror(ret));
		return ret;
	}
	rte_free(pd);
	return 0;
}

/*
 * Extended capabilities from rdma-core. Features whose verbs pollverbs'
 * mlx5 driver answers with EOPNOTSUPP (TSO, RSS and WQs, packet pacing,
 * raw packet offloads, tag matching, CQ moderation, completion
 * timestamps) are reported as absent, as max_srq_wr is clamped to what
 * the data path handles; lib/verbs clears the ODP caps. Device memory is
 * rdma-core's (max_dm_size).
 */
static int
hw_query_device_ex(struct pv_context *ibctx, struct pv_device_attr_ex *attr)
{
	struct ibv_device_attr_ex a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_device_ex(pv_mlx5_ctx(ibctx)->ibv, NULL, &a);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: ibv_query_device_ex: %s", ibctx->device->name, strerror(ret));
		return ret;
	}
	attr->hca_core_clock = a.hca_core_clock;
	attr->device_cap_flags_ex = (a.device_cap_flags_ex & ~0xffffffffull) |
				    attr->orig_attr.device_cap_flags;
	attr->max_dm_size = a.max_dm_size;	/* pv_alloc_dm() through rdma-core */
	attr->pci_atomic_caps.fetch_add = a.pci_atomic_caps.fetch_add;
	attr->pci_atomic_caps.swap = a.pci_atomic_caps.swap;
	attr->pci_atomic_caps.compare_swap = a.pci_atomic_caps.compare_swap;
	attr->phys_port_cnt_ex = a.phys_port_cnt_ex != 0 ? a.phys_port_cnt_ex :
							   attr->orig_attr.phys_port_cnt;
	return 0;
}

/*
 * reg_mr_iova op (and reg_mr, iova == addr): rdma-core registers, the
 * device translates the IOVA the WQEs carry (ibv_reg_mr_iova2(3)).
 */
static struct pv_mr *
hw_mr_reg_iova(struct pv_pd *ibpd, void *addr, size_t length, uint64_t iova, int access)
{
	struct pv_mlx5_mr *mr = rte_zmalloc("pv_mlx5_mr", sizeof(*mr), 0);
	int ret;

	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* pv_access_flags have the values of ibv_access_flags */
	mr->ibv = ibv_reg_mr_iova2(pv_mlx5_pd(ibpd)->ibv, addr, length, iova,
				   (unsigned int)access);
	if (mr->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_reg_mr(%p, %zu bytes): %s", addr, length, strerror(ret));
		if (ret == ENOMEM || ret == EPERM || ret == EFAULT)
			hw_memlock_check("ibv_reg_mr");
		rte_free(mr);
		errno = ret;
		return NULL;
	}
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = mr->ibv->lkey;
	mr->ibmr.rkey = mr->ibv->rkey;
	mr->ibmr.access = access;
	return &mr->ibmr;
}

static struct pv_mr *
hw_mr_reg(struct pv_pd *ibpd, void *addr, size_t length, int access)
{
	return hw_mr_reg_iova(ibpd, addr, length, (uintptr_t)addr, access);
}

/* rereg_mr op: rdma-core re-registers in place; the keys may change */
static int
hw_mr_rereg(struct pv_mr *ibmr, int flags, struct pv_pd *ibpd, void *addr, size_t length,
	    int access)
{
	struct pv_mlx5_mr *mr = pv_mlx5_mr(ibmr);
	int ret;

	/* pv_rereg_mr_flags have the values of ibv_rereg_mr_flags */
	ret = ibv_rereg_mr(mr->ibv, flags,
			   (flags & PV_REREG_MR_CHANGE_PD) ? pv_mlx5_pd(ibpd)->ibv : NULL,
			   addr, length, access);
	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_rereg_mr: %d (errno %s)", ret, strerror(errno));
		return errno != 0 ? errno : EIO;
	}
	mr->ibmr.lkey = mr->ibv->lkey;
	mr->ibmr.rkey = mr->ibv->rkey;
	return 0;
}

/* device memory through rdma-core (ibv_alloc_dm(3)): MEMIC on the NIC */
static int
hw_dm_to(struct pv_dm *ibdm, uint64_t dm_offset, const void *host_addr, size_t length)
{
	return ibv_memcpy_to_dm(container_of(ibdm, struct pv_mlx5_dm, ibdm)->ibv, dm_offset,
				host_addr, length);
}

static int
hw_dm_from(void *host_addr, struct pv_dm *ibdm, uint64_t dm_offset, size_t length)
{
	return ibv_memcpy_from_dm(host_addr, container_of(ibdm, struct pv_mlx5_dm, ibdm)->ibv,
				  dm_offset, length);
}

static struct pv_dm *
hw_dm_alloc(struct pv_context *ibctx, struct pv_alloc_dm_attr *attr)
{
	struct ibv_alloc_dm_attr a = {
		.length = attr->length,
		.log_align_req = attr->log_align_req,
		.comp_mask = attr->comp_mask,
	};
	struct pv_mlx5_dm *dm = rte_zmalloc("pv_mlx5_dm", sizeof(*dm), 0);
	int ret;

	if (dm == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dm->ibv = ibv_alloc_dm(pv_mlx5_ctx(ibctx)->ibv, &a);
	if (dm->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_alloc_dm(%zu bytes): %s", attr->length, strerror(ret));
		rte_free(dm);
		errno = ret;
		return NULL;
	}
	dm->ibdm.memcpy_to_dm = hw_dm_to;
	dm->ibdm.memcpy_from_dm = hw_dm_from;
	return &dm->ibdm;
}

static int
hw_dm_free(struct pv_dm *ibdm)
{
	struct pv_mlx5_dm *dm = container_of(ibdm, struct pv_mlx5_dm, ibdm);
	int ret = ibv_free_dm(dm->ibv);

	if (ret != 0)
		return ret;
	rte_free(dm);
	return 0;
}

static struct pv_mr *
hw_dm_mr_reg(struct pv_pd *ibpd, struct pv_dm *ibdm, uint64_t dm_offset, size_t length,
	     unsigned int access)
{
	struct pv_mlx5_mr *mr = rte_zmalloc("pv_mlx5_mr", sizeof(*mr), 0);
	int ret;

	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->ibv = ibv_reg_dm_mr(pv_mlx5_pd(ibpd)->ibv,
				container_of(ibdm, struct pv_mlx5_dm, ibdm)->ibv, dm_offset,
				length, access);
	if (mr->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_reg_dm_mr(%zu bytes): %s", length, strerror(ret));
		rte_free(mr);
		errno = ret;
		return NULL;
	}
	mr->ibmr.lkey = mr->ibv->lkey;
	mr->ibmr.rkey = mr->ibv->rkey;
	return &mr->ibmr;
}

static int
hw_mr_dereg(struct pv_mr *ibmr)
{
	struct pv_mlx5_mr *mr = pv_mlx5_mr(ibmr);
	int ret = ibv_dereg_mr(mr->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_dereg_mr: %s", strerror(ret));
		return ret;
	}
	rte_free(mr);
	return 0;
}

static struct pv_mw *
hw_mw_alloc(struct pv_pd *ibpd, enum pv_mw_type type)
{
	struct pv_mlx5_mw *mw = rte_zmalloc("pv_mlx5_mw", sizeof(*mw), 0);
	int ret;

	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mw->ibv = ibv_alloc_mw(pv_mlx5_pd(ibpd)->ibv,
			       type == PV_MW_TYPE_1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	if (mw->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "ibv_alloc_mw type %d: %s", (int)type, strerror(ret));
		rte_free(mw);
		errno = ret;
		return NULL;
	}
	/* binds are UMR WQEs of our data path: rdma-core's rkey is the mkey */
	mw->ibmw.rkey = mw->ibv->rkey;
	return &mw->ibmw;
}

static int
hw_mw_dealloc(struct pv_mw *ibmw)
{
	struct pv_mlx5_mw *mw = pv_mlx5_mw(ibmw);
	int ret = ibv_dealloc_mw(mw->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_dealloc_mw: %s", strerror(ret));
		return ret;
	}
	rte_free(mw);
	return 0;
}

static struct pv_cq *
hw_cq_create(struct pv_context *ibctx, int cqe, struct pv_comp_channel *channel,
	     int comp_vector)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);
	struct pv_mlx5_cq *cq;
	struct mlx5dv_cq dv;
	struct mlx5dv_obj obj;
	int ret;

	if (channel != NULL) {
		/* the kernel's completion events are not forwarded yet */
		MLX5_LOG(ERR, "%s: completion channels are not supported on hardware",
			 ibctx->device->name);
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = rte_zmalloc("pv_mlx5_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE);
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* cq_context: the async event drain finds our CQ from rdma-core's */
	cq->ibv = ibv_create_cq(ctx->ibv, cqe, cq, NULL, comp_vector);
	if (cq->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_create_cq(%d): %s", ibctx->device->name, cqe,
			 strerror(ret));
		goto err_free;
	}
	memset(&obj, 0, sizeof(obj));
	memset(&dv, 0, sizeof(dv));
	obj.cq.in = cq->ibv;
	obj.cq.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_CQ);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: mlx5dv_init_obj(cq): %s", ibctx->device->name,
			 strerror(ret));
		goto err_destroy;
	}
	cq->ctx = ctx;
	ret = -pv_mlx5_cq_dp_init(cq, &dv);
	if (ret != 0)
		goto err_destroy;
	cq->ctx = ctx;
	cq->ibcq.context = ibctx;
	return &cq->ibcq;
err_destroy:
	ibv_destroy_cq(cq->ibv);
err_free:
	rte_free(cq);
	errno = ret;
	return NULL;
}

static int
hw_cq_destroy(struct pv_cq *ibcq)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	int ret = ibv_destroy_cq(cq->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "cq 0x%x: ibv_destroy_cq: %s", cq->cqn, strerror(ret));
		return ret;
	}
	pv_mlx5_cq_dp_fini(cq);
	rte_free(cq);
	return 0;
}

/* RC and XRC INI QPs: rdma-core creates, the data path drives. */
static struct pv_qp *
hw_qp_create(struct pv_pd *ibpd, struct pv_qp_init_attr *attr)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibpd->context);
	bool ini = attr->qp_type == PV_QPT_XRC_SEND;
	struct ibv_qp_init_attr_ex ia;
	struct pv_mlx5_qp *qp;
	struct mlx5dv_qp dv;
	struct mlx5dv_obj obj;
	int ret;

	if (attr->qp_type != PV_QPT_RC && !ini) {
		MLX5_LOG(ERR, "%s: only RC and XRC QPs are driven", ibpd->context->device->name);
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = rte_zmalloc("pv_mlx5_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = qp;	/* for the async event drain */
	ia.send_cq = pv_mlx5_cq(attr->send_cq)->ibv;
	/* an XRC INI QP only sends */
	ia.recv_cq = ini ? NULL : pv_mlx5_cq(attr->recv_cq)->ibv;
	ia.cap.max_send_wr = attr->cap.max_send_wr;
	ia.cap.max_recv_wr = attr->cap.max_recv_wr;
	ia.cap.max_send_sge = attr->cap.max_send_sge;
	ia.cap.max_recv_sge = attr->cap.max_recv_sge;
	ia.cap.max_inline_data = attr->cap.max_inline_data;
	if (attr->srq != NULL) {
		/* receives come from the SRQ: the QP gets no receive queue */
		ia.srq = pv_mlx5_srq(attr->srq)->ibv;
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
	}
	if (ini) {
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
	}
	ia.qp_type = ini ? IBV_QPT_XRC_SEND : IBV_QPT_RC;
	ia.sq_sig_all = attr->sq_sig_all;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	ia.pd = pv_mlx5_pd(ibpd)->ibv;
	qp->ibv = ibv_create_qp_ex(ctx->ibv, &ia);
	if (qp->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_create_qp_ex: %s", ibpd->context->device->name,
			 strerror(ret));
		goto err_free;
	}
	memset(&obj, 0, sizeof(obj));
	memset(&dv, 0, sizeof(dv));
	obj.qp.in = qp->ibv;
	obj.qp.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP);
	if (ret != 0) {
		MLX5_LOG(ERR, "qp 0x%x: mlx5dv_init_obj: %s", qp->ibv->qp_num, strerror(ret));
		goto err_destroy;
	}
	/* the granted sizes, as rdma-core rounded them */
	attr->cap.max_send_wr = ia.cap.max_send_wr;
	attr->cap.max_recv_wr = ia.cap.max_recv_wr;
	attr->cap.max_send_sge = ia.cap.max_send_sge;
	attr->cap.max_recv_sge = ia.cap.max_recv_sge;
	attr->cap.max_inline_data = ia.cap.max_inline_data;
	qp->ctx = ctx;
	qp->td_lockless = pv_pd_td(ibpd) != NULL;
	ret = -pv_mlx5_qp_dp_init(qp, &dv, qp->ibv->qp_num, attr);
	if (ret != 0)
		goto err_destroy;
	qp->ctx = ctx;
	qp->scq = pv_mlx5_cq(attr->send_cq);
	qp->rcq = ini ? qp->scq : pv_mlx5_cq(attr->recv_cq);
	qp->ibqp.context = ibpd->context;
	qp->ibqp.pd = ibpd;
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->recv_cq;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.state = PV_QPS_RESET;
	ret = -pv_mlx5_qpt_insert(ctx, qp);
	if (ret != 0) {
		pv_mlx5_qp_dp_fini(qp);
		goto err_destroy;
	}
	return &qp->ibqp;
err_destroy:
	ibv_destroy_qp(qp->ibv);
err_free:
	rte_free(qp);
	errno = ret;
	return NULL;
}

/* An XRC TGT QP: rdma-core's, with no queues for the data path. */
static struct pv_qp *
hw_qp_create_tgt(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);
	struct ibv_qp_init_attr_ex ia;
	struct pv_mlx5_qp *qp;
	int ret;

	qp = rte_zmalloc("pv_mlx5_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = qp;	/* for the async event drain */
	ia.qp_type = IBV_QPT_XRC_RECV;
	ia.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	ia.xrcd = pv_mlx5_xrcd(x->xrcd)->ibv;
	qp->ibv = ibv_create_qp_ex(ctx->ibv, &ia);
	if (qp->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_create_qp_ex(xrc tgt): %s", ibctx->device->name,
			 strerror(ret));
		rte_free(qp);
		errno = ret;
		return NULL;
	}
	qp->ctx = ctx;
	pv_mlx5_qp_dp_init_tgt(qp, qp->ibv->qp_num);
	qp->ibqp.context = ibctx;
	qp->ibqp.qp_type = PV_QPT_XRC_RECV;
	qp->ibqp.state = PV_QPS_RESET;
	memset(&x->cap, 0, sizeof(x->cap));
	return &qp->ibqp;
}

/* pv_create_qp_ex(): RC and XRC INI QPs as create_qp, XRC TGT QPs above. */
static struct pv_qp *
hw_qp_create_ex(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x)
{
	return pv_mlx5_qp_create_ex(ibctx, x, hw_qp_create, hw_qp_create_tgt);
}

static struct pv_xrcd *
hw_xrcd_open(struct pv_context *ibctx, struct pv_xrcd_init_attr *attr)
{
	struct pv_mlx5_xrcd *xrcd = rte_zmalloc("pv_mlx5_xrcd", sizeof(*xrcd), 0);
	struct ibv_xrcd_init_attr ia;
	int ret;

	if (xrcd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	ia.fd = -1;
	ia.oflags = attr->oflags;
	xrcd->ibv = ibv_open_xrcd(pv_mlx5_ctx(ibctx)->ibv, &ia);
	if (xrcd->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_open_xrcd: %s", ibctx->device->name, strerror(ret));
		rte_free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->ibxrcd;
}

static int
hw_xrcd_close(struct pv_xrcd *ibxrcd)
{
	struct pv_mlx5_xrcd *xrcd = pv_mlx5_xrcd(ibxrcd);
	int ret = ibv_close_xrcd(xrcd->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "ibv_close_xrcd: %s", strerror(ret));
		return ret;
	}
	rte_free(xrcd);
	return 0;
}

/*
 * SRQ: rdma-core creates it and links its WQEs (0 -> ... -> tail, plus a
 * wait queue for ODP beyond the tail that the data path leaves alone);
 * mlx5dv_init_obj() hands over buffer, doorbell record, stride, head, tail
 * and SRQ number.
 */
static struct pv_srq *
hw_srq_create_common(struct pv_pd *ibpd, struct pv_srq_init_attr *attr, struct pv_xrcd *xrcd,
		     struct pv_cq *xrc_cq)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibpd->context);
	struct ibv_srq_init_attr_ex ia;
	struct pv_mlx5_srq *srq;
	struct mlx5dv_srq dv;
	struct mlx5dv_obj obj;
	int ret;

	srq = rte_zmalloc("pv_mlx5_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE);
	if (srq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&ia, 0, sizeof(ia));
	ia.srq_context = srq;	/* for the async event drain */
	ia.attr.max_wr = attr->attr.max_wr;
	ia.attr.max_sge = attr->attr.max_sge;
	ia.attr.srq_limit = attr->attr.srq_limit;
	ia.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	ia.srq_type = IBV_SRQT_BASIC;
	ia.pd = pv_mlx5_pd(ibpd)->ibv;
	if (xrcd != NULL) {
		ia.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		ia.srq_type = IBV_SRQT_XRC;
		ia.xrcd = pv_mlx5_xrcd(xrcd)->ibv;
		ia.cq = pv_mlx5_cq(xrc_cq)->ibv;
	}
	srq->ibv = ibv_create_srq_ex(ctx->ibv, &ia);
	if (srq->ibv == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_LOG(ERR, "%s: ibv_create_srq_ex(%u wrs, %u sges): %s",
			 ibpd->context->device->name, attr->attr.max_wr, attr->attr.max_sge,
			 strerror(ret));
		goto err_free;
	}
	memset(&obj, 0, sizeof(obj));
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_SRQ_MASK_SRQN;
	obj.srq.in = srq->ibv;
	obj.srq.out = &dv;
	ret = mlx5dv_init_obj(&obj, MLX5DV_OBJ_SRQ);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: mlx5dv_init_obj(srq): %s", ibpd->context->device->name,
			 strerror(ret));
		goto err_destroy;
	}
	srq->ctx = ctx;
	ret = -pv_mlx5_srq_dp_init(srq, &dv);
	if (ret != 0)
		goto err_destroy;
	srq->ctx = ctx;
	srq->ibsrq.context = ibpd->context;
	srq->ibsrq.pd = ibpd;
	if (xrcd != NULL) {
		ret = -pv_mlx5_srq_xrc_init(srq);
		if (ret != 0) {
			pv_mlx5_srq_dp_fini(srq);
			goto err_destroy;
		}
	}
	/* what the data path can post: the free list less its spare WQE */
	attr->attr.max_wr = RTE_MIN(ia.attr.max_wr, srq->max_wr);
	attr->attr.max_sge = RTE_MIN(ia.attr.max_sge, srq->max_sge);
	return &srq->ibsrq;
err_destroy:
	ibv_destroy_srq(srq->ibv);
err_free:
	rte_free(srq);
	errno = ret;
	return NULL;
}

static struct pv_srq *
hw_srq_create(struct pv_pd *ibpd, struct pv_srq_init_attr *attr)
{
	return hw_srq_create_common(ibpd, attr, NULL, NULL);
}

/*
 * XRC SRQ. Its receive completions are found by the SRQN in the CQE; with
 * CQE version 1 (mlx5dv_context.version) that word holds rdma-core's user
 * index instead, which mlx5dv does not report: refused there.
 */
static struct pv_srq *
hw_srq_create_ex(struct pv_context *ibctx, struct pv_srq_init_attr_ex *attr)
{
	struct pv_srq_init_attr basic = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
	};
	struct mlx5dv_context dvc;
	struct pv_srq *srq;

	memset(&dvc, 0, sizeof(dvc));
	if (mlx5dv_query_device(pv_mlx5_ctx(ibctx)->ibv, &dvc) != 0 || dvc.version != 0) {
		MLX5_LOG(ERR, "%s: xrc srq: cqe version %u reports user indices, not srqns",
			 ibctx->device->name, dvc.version);
		errno = EOPNOTSUPP;
		return NULL;
	}
	srq = hw_srq_create_common(attr->pd, &basic, attr->xrcd, attr->cq);
	if (srq != NULL)
		attr->attr = basic.attr;
	return srq;
}

static int
hw_srq_num_get(struct pv_srq *ibsrq, uint32_t *srq_num)
{
	return ibv_get_srq_num(pv_mlx5_srq(ibsrq)->ibv, srq_num);
}

static int
hw_srq_modify(struct pv_srq *ibsrq, struct pv_srq_attr *attr, int attr_mask)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	struct ibv_srq_attr a;
	int ret;

	if (attr_mask & PV_SRQ_MAX_WR) {
		/* the data path's free list and wr_id table are sized at creation */
		MLX5_LOG(ERR, "srq 0x%x: resizing is not supported", srq->srqn);
		return EOPNOTSUPP;
	}
	memset(&a, 0, sizeof(a));
	a.srq_limit = attr->srq_limit;
	/* pv_srq_attr_mask has the values of ibv_srq_attr_mask */
	ret = ibv_modify_srq(srq->ibv, &a, attr_mask);
	if (ret != 0)
		MLX5_LOG(ERR, "srq 0x%x: ibv_modify_srq(mask 0x%x): %s", srq->srqn, attr_mask,
			 strerror(ret));
	return ret;
}

static int
hw_srq_query(struct pv_srq *ibsrq, struct pv_srq_attr *attr)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	struct ibv_srq_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_srq(srq->ibv, &a);
	if (ret != 0) {
		MLX5_LOG(ERR, "srq 0x%x: ibv_query_srq: %s", srq->srqn, strerror(ret));
		return ret;
	}
	attr->max_wr = RTE_MIN(a.max_wr, srq->max_wr);
	attr->max_sge = RTE_MIN(a.max_sge, srq->max_sge);
	attr->srq_limit = a.srq_limit;
	return 0;
}

static int
hw_srq_destroy(struct pv_srq *ibsrq)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	int ret = ibv_destroy_srq(srq->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "srq 0x%x: ibv_destroy_srq: %s", srq->srqn, strerror(ret));
		return ret;
	}
	pv_mlx5_srq_xrc_fini(srq);
	pv_mlx5_srq_dp_fini(srq);
	rte_free(srq);
	return 0;
}

static int
hw_qp_modify(struct pv_qp *ibqp, struct pv_qp_attr *attr, int attr_mask)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	struct ibv_qp_attr a;
	int ret;

	pv_qp_attr_to_ibv(attr, &a);
	ret = ibv_modify_qp(qp->ibv, &a, attr_mask);
	if (ret != 0) {
		MLX5_LOG(ERR, "qp 0x%x: ibv_modify_qp(mask 0x%x): %s", qp->qpn, attr_mask,
			 strerror(ret));
		return ret;
	}
	if ((attr_mask & PV_QP_STATE) && attr->qp_state == PV_QPS_RESET)
		pv_mlx5_qp_dp_reset(qp);
	if (attr_mask & PV_QP_STATE)
		ibqp->state = attr->qp_state;
	return 0;
}

static int
hw_qp_query(struct pv_qp *ibqp, struct pv_qp_attr *attr, int attr_mask)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_qp(qp->ibv, &a, attr_mask, &ia);
	if (ret != 0) {
		MLX5_LOG(ERR, "qp 0x%x: ibv_query_qp: %s", qp->qpn, strerror(ret));
		return ret;
	}
	pv_qp_attr_from_ibv(&a, attr);
	attr->cap = ibqp->cap;	/* what the data path grants, not rdma-core */
	return 0;
}

static int
hw_qp_destroy(struct pv_qp *ibqp)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	int ret = ibv_destroy_qp(qp->ibv);

	if (ret != 0) {
		MLX5_LOG(ERR, "qp 0x%x: ibv_destroy_qp: %s", qp->qpn, strerror(ret));
		return ret;
	}
	if (ibqp->qp_type != PV_QPT_XRC_RECV) {
		pv_mlx5_qpt_remove(qp->ctx, qp->qpn);
		if (qp->scq->last_qp == qp)
			qp->scq->last_qp = &pv_mlx5_qp_none;
		if (qp->rcq->last_qp == qp)
			qp->rcq->last_qp = &pv_mlx5_qp_none;
	}
	pv_mlx5_qp_dp_fini(qp);
	rte_free(qp);
	return 0;
}

const struct pv_driver_ops pv_mlx5_hw_ops = {
	.probe = hw_probe,
	.remove = hw_remove,
	.open_device = hw_open,
	.close_device = hw_close,
	.query_device = hw_query_device,
	.query_device_ex = hw_query_device_ex,
	.query_port = hw_query_port,
	.query_gid = hw_query_gid,
	.query_pkey = hw_query_pkey,
	.alloc_pd = hw_pd_alloc,
	.dealloc_pd = hw_pd_dealloc,
	.reg_mr = hw_mr_reg,
	.reg_mr_iova = hw_mr_reg_iova,
	.rereg_mr = hw_mr_rereg,
	.dereg_mr = hw_mr_dereg,
	.alloc_dm = hw_dm_alloc,
	.free_dm = hw_dm_free,
	.reg_dm_mr = hw_dm_mr_reg,
	.create_cq = hw_cq_create,
	.destroy_cq = hw_cq_destroy,
	.create_srq = hw_srq_create,
	.modify_srq = hw_srq_modify,
	.query_srq = hw_srq_query,
	.destroy_srq = hw_srq_destroy,
	.create_qp = hw_qp_create,
	.create_qp_ex = hw_qp_create_ex,
	/* create_gsi_qp: EOPNOTSUPP stub: the kernel owns QP1 (its CM, through librdmacm) */
	.modify_qp = hw_qp_modify,
	.query_qp = hw_qp_query,
	.destroy_qp = hw_qp_destroy,
	.alloc_mw = hw_mw_alloc,
	.dealloc_mw = hw_mw_dealloc,
	.open_xrcd = hw_xrcd_open,
	.close_xrcd = hw_xrcd_close,
	.create_srq_ex = hw_srq_create_ex,
	.get_srq_num = hw_srq_num_get,
	.set_progress_mode = pv_mlx5_set_progress_mode,
	.get_progress_mode = pv_mlx5_get_progress_mode,
	/*
	 * AH, multicast: EOPNOTSUPP stubs from lib/verbs. resize_cq
	 * too: rdma-core's ibv_resize_cq copies the unpolled CQEs from its own
	 * consumer index, which the mlx5dv data path never advances.
	 */
};

PV_DRIVER_REGISTER(mlx5, pv_mlx5_hw_ops);
