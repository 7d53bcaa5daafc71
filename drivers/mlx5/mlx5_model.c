/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Control path of the mlx5 device model (driver "mlx5_model"): where the
 * hardware driver asks rdma-core for queues, this one allocates them itself
 * in DPDK memory, with the geometry a ConnectX would give, and fills the
 * same struct mlx5dv_qp / mlx5dv_cq the data path takes over. Everything
 * after that (WQEs, doorbells, CQEs) is the shared data path on one side and
 * the model's engine (mlx5_model_exec.c) on the other.
 *
 * Devices: one per "--pv-dev=mlx5_model[:lcore=N|none]", named mlx5_modelK.
 * The engine runs as a pv_rtc poller on lcore N (default: the first worker
 * lcore), started by the first open context and stopped by the last close;
 * with lcore=none, or no worker lcore, it runs from pv_progress() and
 * pv_mlx5_model_step().
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "pv_rtc.h"

#include "mlx5_model.h"

#define MDL_LCORE_AUTO	-2
#define MDL_LCORE_NONE	-1

static struct pv_mlx5_mdl_dev *mdl_devs[PV_MLX5_MDL_MAX_DEV];
static int mdl_nb_devs;
static uint8_t mdl_qp_used[PV_MLX5_MDL_MAX_QP];
static uint8_t mdl_cq_used[PV_MLX5_MDL_MAX_CQ];
static uint8_t mdl_srq_used[PV_MLX5_MDL_MAX_SRQ];

/* The engine's lcore: requested (devargs), and running. */
static int mdl_lcore_req = MDL_LCORE_AUTO;
static int mdl_lcore_run = -1;
static uint32_t mdl_open_ctx;

/* ------------------------------------------------------------------ */
/* Engine lcore                                                         */
/* ------------------------------------------------------------------ */

static int
mdl_poller(void *arg __rte_unused)
{
	return pv_mlx5_model_step();
}

static int
mdl_lcore_main(void *arg __rte_unused)
{
	struct pv_rtc_poller *p = pv_rtc_poller_register(mdl_poller, NULL, 0);
	int ret;

	if (p == NULL) {
		ret = -errno;
		MLX5_LOG(ERR, "model: no poller on lcore %u: %s", rte_lcore_id(),
			 rte_strerror(-ret));
		return ret;
	}
	MLX5_LOG(INFO, "model: engine polling on lcore %u", rte_lcore_id());
	ret = pv_rtc_loop_run();
	pv_rtc_poller_unregister(p);
	return ret;
}

static void
mdl_engine_start(void)
{
	int lcore = mdl_lcore_req;
	int ret;

	if (lcore == MDL_LCORE_NONE)
		return;
	if (rte_lcore_id() != rte_get_main_lcore()) {
		MLX5_LOG(WARNING, "model: opened off the main lcore, engine runs from "
			 "pv_progress()");
		return;
	}
	if (lcore == MDL_LCORE_AUTO) {
		unsigned int id = rte_get_next_lcore(-1, 1, 0);

		if (id >= RTE_MAX_LCORE) {
			MLX5_LOG(NOTICE, "model: no worker lcore, engine runs from pv_progress()");
			return;
		}
		lcore = id;
	}
	ret = pv_rtc_lcore_launch(lcore, mdl_lcore_main, NULL);
	if (ret != 0) {
		MLX5_LOG(WARNING, "model: cannot launch the engine on lcore %d (%s), it runs "
			 "from pv_progress()", lcore, rte_strerror(-ret));
		return;
	}
	mdl_lcore_run = lcore;
}

static void
mdl_engine_stop(void)
{
	if (mdl_lcore_run < 0)
		return;
	pv_rtc_loop_stop(mdl_lcore_run);
	pv_rtc_lcore_wait(mdl_lcore_run);
	mdl_lcore_run = -1;
}

int
pv_mlx5_model_lcore(void)
{
	return mdl_lcore_run;
}

/* ------------------------------------------------------------------ */
/* Devices                                                              */
/* ------------------------------------------------------------------ */

static int
mdl_devarg(const char *key, const char *value, void *opaque __rte_unused)
{
	char *end;
	long v;

	if (strcmp(key, "lcore") != 0) {
		MLX5_LOG(ERR, "model: unknown devarg %s=%s (known: lcore=N|none)", key, value);
		return -EINVAL;
	}
	if (strcmp(value, "none") == 0) {
		mdl_lcore_req = MDL_LCORE_NONE;
		return 0;
	}
	v = strtol(value, &end, 0);
	if (*end != '\0' || v < 0 || v >= RTE_MAX_LCORE) {
		MLX5_LOG(ERR, "model: lcore=%s is not an lcore id or \"none\"", value);
		return -EINVAL;
	}
	mdl_lcore_req = v;
	return 0;
}

static int
mdl_probe(const struct pv_driver *driver, const char *const *devargs, int nb_devargs)
{
	int i, ret;

	for (i = 0; i < nb_devargs; i++) {
		struct pv_mlx5_mdl_dev *dev;

		if (mdl_nb_devs == PV_MLX5_MDL_MAX_DEV) {
			MLX5_LOG(ERR, "model: at most %d devices", PV_MLX5_MDL_MAX_DEV);
			return -ENOSPC;
		}
		ret = pv_devargs_parse(devargs[i], mdl_devarg, NULL);
		if (ret != 0)
			return ret;
		dev = calloc(1, sizeof(*dev));
		if (dev == NULL)
			return -ENOMEM;
		dev->index = mdl_nb_devs;
		dev->ibdev.node_type = PV_NODE_CA;
		dev->ibdev.transport_type = PV_TRANSPORT_IB;
		snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "mlx5_model%d", dev->index);
		snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "mlx5 device model");
		snprintf(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path), "model");
		snprintf(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path), "model");
		dev->ibdev.node_guid = rte_cpu_to_be_64(0x02c9ff00d0de0000ull | dev->index);
		ret = pv_device_add(driver, &dev->ibdev);
		if (ret != 0) {
			MLX5_LOG(ERR, "model: cannot add %s: %s", dev->ibdev.name,
				 rte_strerror(-ret));
			free(dev);
			return ret;
		}
		mdl_devs[mdl_nb_devs++] = dev;
		MLX5_LOG(INFO, "model: %s added (mlx5 device model)", dev->ibdev.name);
	}
	return nb_devargs;
}

static void
mdl_remove(struct pv_device *device)
{
	struct pv_mlx5_mdl_dev *dev = container_of(device, struct pv_mlx5_mdl_dev, ibdev);

	mdl_devs[dev->index] = NULL;
	if (dev->index == mdl_nb_devs - 1)
		mdl_nb_devs--;
	free(dev);
}

static void
mdl_attr_fill(struct pv_mlx5_mdl_dev *dev, struct pv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "mlx5 device model");
	a->node_guid = dev->ibdev.node_guid;
	a->sys_image_guid = dev->ibdev.node_guid;
	a->max_mr_size = PV_MLX5_MDL_MAX_MSG;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = 0x02c9;
	a->vendor_part_id = 0;		/* no ConnectX part: a model */
	a->hw_ver = 0;
	a->max_qp = PV_MLX5_MDL_MAX_QP;
	a->max_qp_wr = PV_MLX5_MDL_MAX_QP_WR;
	a->device_cap_flags = PV_DEVICE_RC_RNR_NAK_GEN | PV_DEVICE_N_NOTIFY_CQ |
			      PV_DEVICE_MEM_WINDOW | PV_DEVICE_MEM_WINDOW_TYPE_2B | PV_DEVICE_XRC;
	a->max_sge = PV_MLX5_MDL_MAX_SGE;
	a->max_sge_rd = PV_MLX5_MDL_MAX_SGE;
	a->max_cq = PV_MLX5_MDL_MAX_CQ;
	a->max_cqe = PV_MLX5_MDL_MAX_CQE;
	a->max_mr = PV_MLX5_MDL_MAX_MR - 1;
	a->max_mw = PV_MLX5_MDL_MAX_MR - 1;	/* windows and MRs share the keys */
	a->max_pd = PV_MLX5_MDL_MAX_PD;
	a->max_qp_rd_atom = 16;
	a->max_res_rd_atom = 16 * PV_MLX5_MDL_MAX_QP;
	a->max_qp_init_rd_atom = 16;
	a->atomic_cap = PV_ATOMIC_HCA;
	a->max_srq = PV_MLX5_MDL_MAX_SRQ;
	a->max_srq_wr = PV_MLX5_MDL_MAX_SRQ_WR;
	a->max_srq_sge = PV_MLX5_MDL_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
	a->max_inline_data = PV_MLX5_MDL_MAX_INLINE;
}

static struct pv_context *
mdl_open(struct pv_device *device)
{
	struct pv_mlx5_mdl_dev *dev = container_of(device, struct pv_mlx5_mdl_dev, ibdev);
	struct pv_mlx5_context *ctx;

	ctx = rte_zmalloc("pv_mlx5_ctx", sizeof(*ctx), RTE_CACHE_LINE_SIZE);
	if (ctx != NULL)
		ctx->single_threaded = pv_progress_mode_default() == PV_PROGRESS_APP;
	if (ctx == NULL) {
		MLX5_LOG(ERR, "%s: no memory for a context", device->name);
		errno = ENOMEM;
		return NULL;
	}
	ctx->kind = PV_MLX5_DEV_MODEL;
	ctx->mdl = dev;
	ctx->cqe_size = sizeof(struct mlx5_cqe64);
	mdl_attr_fill(dev, &ctx->attr);
	ctx->ibctx.device = device;
	ctx->ibctx.cmd_fd = -1;
	ctx->ibctx.async_fd = -1;
	ctx->ibctx.num_comp_vectors = 1;
	dev->ctx_open++;
	if (mdl_open_ctx++ == 0)
		mdl_engine_start();
	return &ctx->ibctx;
}

static int
mdl_close(struct pv_context *ibctx)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);

	if (--mdl_open_ctx == 0)
		mdl_engine_stop();
	ctx->mdl->ctx_open--;
	pv_mlx5_qpt_free(ctx);
	rte_free(ctx);
	return 0;
}

static int
mdl_query_device(struct pv_context *ibctx, struct pv_device_attr *attr)
{
	*attr = pv_mlx5_ctx(ibctx)->attr;
	return 0;
}

/* Nothing beyond pv_query_device(): no timestamps, offloads, TSO, RSS. */
static int
mdl_query_device_ex(struct pv_context *ibctx __rte_unused, struct pv_device_attr_ex *attr)
{
	attr->device_cap_flags_ex = attr->orig_attr.device_cap_flags;
	attr->phys_port_cnt_ex = attr->orig_attr.phys_port_cnt;
	return 0;
}

static int
mdl_query_port(struct pv_context *ibctx __rte_unused, uint8_t port_num,
	       struct pv_port_attr *a)
{
	if (port_num != 1)
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->state = PV_PORT_ACTIVE;
	a->max_mtu = PV_MTU_4096;
	a->active_mtu = PV_MTU_4096;
	a->gid_tbl_len = 1;
	a->port_cap_flags = PV_PORT_CM_SUP;
	a->max_msg_sz = PV_MLX5_MDL_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	a->active_width = 1;
	a->active_speed = 1;
	a->phys_state = 5;		/* LinkUp */
	a->link_layer = PV_LINK_LAYER_ETHERNET;
	return 0;
}

static int
mdl_query_gid(struct pv_context *ibctx, uint8_t port_num, int index, union pv_gid *gid)
{
	if (port_num != 1 || index != 0)
		return EINVAL;
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	gid->global.interface_id = ibctx->device->node_guid;
	return 0;
}

static int
mdl_query_pkey(struct pv_context *ibctx __rte_unused, uint8_t port_num, int index,
	       pv_be16 *pkey)
{
	if (port_num != 1 || index != 0)
		return EINVAL;
	*pkey = rte_cpu_to_be_16(0xffff);
	return 0;
}

/* ------------------------------------------------------------------ */
/* PDs and MRs                                                          */
/* ------------------------------------------------------------------ */

static struct pv_pd *
mdl_pd_alloc(struct pv_context *ibctx)
{
	struct pv_mlx5_pd *pd = rte_zmalloc("pv_mlx5_pd", sizeof(*pd), 0);

	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pd->pdn = ++pv_mlx5_mdl.pd_next;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	pd->ibpd.context = ibctx;
	return &pd->ibpd;
}

static int
mdl_pd_dealloc(struct pv_pd *ibpd)
{
	rte_free(pv_mlx5_pd(ibpd));
	return 0;
}

/*
 * Publish a key for PD @p ibpd: an MR (@p mw_type 0) of [addr, addr +
 * length) with @p access, or an unbound window of @p mw_type, in a free
 * slot moved to its next generation (its stale keys fail). @return the
 * key, 0 when all are in use (logged); its slot in @p idx_p.
 */
static uint32_t
mdl_key_publish(struct pv_pd *ibpd, uint8_t mw_type, uint64_t addr, uint64_t length,
		uint32_t access, uint32_t *idx_p)
{
	struct pv_mlx5_mdl_mr *e = NULL;
	uint32_t i, key = 0;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	for (i = 1; i < PV_MLX5_MDL_MAX_MR; i++) {
		if (pv_mlx5_mdl.mrs[i].key == 0) {
			e = &pv_mlx5_mdl.mrs[i];
			break;
		}
	}
	if (e != NULL) {
		e->gen = e->gen % PV_MLX5_MDL_KEY_GEN_MAX + 1;
		key = e->gen << PV_MLX5_MDL_KEY_GEN_SHIFT | i << PV_MLX5_MDL_KEY_IDX_SHIFT;
		e->pdn = pv_mlx5_pd(ibpd)->pdn;
		e->access = access;
		e->addr = addr;
		e->length = length;
		e->dev = pv_mlx5_ctx(ibpd->context)->mdl;
		e->mw_type = mw_type;
		e->bound = 0;
		e->qpn = 0;
		e->mr_key = 0;
		e->base = addr;
		/* the entry is complete before its key makes it usable */
		__atomic_store_n(&e->key, key, __ATOMIC_RELEASE);
		*idx_p = i;
	}
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	if (e == NULL)
		MLX5_LOG(ERR, "model: all %d memory keys in use", PV_MLX5_MDL_MAX_MR - 1);
	return key;
}

static struct pv_mr *
mdl_mr_reg(struct pv_pd *ibpd, void *addr, size_t length, int access)
{
	struct pv_mlx5_mr *mr;
	uint32_t i = 0, key;

	if (access & PV_ACCESS_ON_DEMAND) {
		MLX5_LOG(ERR, "model: on-demand paging is not modelled");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (length == 0 || length > PV_MLX5_MDL_MAX_MSG) {
		MLX5_LOG(ERR, "model: mr of %zu bytes not in 1..%u", length,
			 PV_MLX5_MDL_MAX_MSG);
		errno = EINVAL;
		return NULL;
	}
	mr = rte_zmalloc("pv_mlx5_mr", sizeof(*mr), 0);
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	key = mdl_key_publish(ibpd, 0, (uintptr_t)addr, length, access, &i);
	if (key == 0) {
		rte_free(mr);
		errno = ENOMEM;
		return NULL;
	}
	mr->mdl_index = i;
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->ibmr.access = access;
	return &mr->ibmr;
}

/*
 * A memory window: a key of the table that grants nothing until a UMR WQE
 * (BIND_MW) binds it to part of an MR; the engine does the rest.
 */
static struct pv_mw *
mdl_mw_alloc(struct pv_pd *ibpd, enum pv_mw_type type)
{
	struct pv_mlx5_mw *mw;
	uint32_t i = 0, key;

	mw = rte_zmalloc("pv_mlx5_mw", sizeof(*mw), 0);
	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	key = mdl_key_publish(ibpd, (uint8_t)type, 0, 0, 0, &i);
	if (key == 0) {
		rte_free(mw);
		errno = ENOMEM;
		return NULL;
	}
	mw->mdl_index = i;
	mw->ibmw.rkey = key;
	return &mw->ibmw;
}

static int
mdl_mw_dealloc(struct pv_mw *ibmw)
{
	struct pv_mlx5_mw *mw = pv_mlx5_mw(ibmw);

	/* its rkey stops working at once, bound or not */
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.mrs[mw->mdl_index].bound = 0;
	__atomic_store_n(&pv_mlx5_mdl.mrs[mw->mdl_index].key, 0, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	rte_free(mw);
	return 0;
}

static int
mdl_mr_dereg(struct pv_mr *ibmr)
{
	struct pv_mlx5_mr *mr = pv_mlx5_mr(ibmr);

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	__atomic_store_n(&pv_mlx5_mdl.mrs[mr->mdl_index].key, 0, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	rte_free(mr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* CQs                                                                  */
/* ------------------------------------------------------------------ */

static int
mdl_slot_take(uint8_t *used, int n)
{
	int i;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	for (i = 0; i < n; i++)
		if (!used[i])
			break;
	if (i < n)
		used[i] = 1;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return i < n ? i : -1;
}

static void
mdl_cq_free(struct pv_mlx5_mdl_cq *mcq)
{
	if (mcq == NULL)
		return;
	rte_free(mcq->buf);
	rte_free((void *)(uintptr_t)mcq->dbrec);
	rte_free(mcq->uar);
	rte_free(mcq);
}

static struct pv_cq *
mdl_cq_create(struct pv_context *ibctx, int cqe, struct pv_comp_channel *channel,
	      int comp_vector __rte_unused)
{
	struct pv_mlx5_cq *cq = NULL;
	struct pv_mlx5_mdl_cq *mcq = NULL;
	struct mlx5dv_cq dv;
	uint32_t cnt, i;
	int slot = -1, ret = ENOMEM;

	if (cqe < 1 || cqe > PV_MLX5_MDL_MAX_CQE) {
		MLX5_LOG(ERR, "model: cqe %d not in 1..%d", cqe, PV_MLX5_MDL_MAX_CQE);
		errno = EINVAL;
		return NULL;
	}
	cnt = pv_mlx5_pow2(cqe + 1);
	cq = rte_zmalloc("pv_mlx5_cq", sizeof(*cq), RTE_CACHE_LINE_SIZE);
	mcq = rte_zmalloc("pv_mlx5_mdl_cq", sizeof(*mcq), RTE_CACHE_LINE_SIZE);
	if (cq == NULL || mcq == NULL)
		goto err;
	mcq->buf = rte_zmalloc("pv_mlx5_cq_buf", cnt * sizeof(struct mlx5_cqe64), 4096);
	mcq->dbrec = rte_zmalloc("pv_mlx5_cq_dbrec", RTE_CACHE_LINE_SIZE, RTE_CACHE_LINE_SIZE);
	mcq->uar = rte_zmalloc("pv_mlx5_cq_uar", PV_MLX5_MDL_UAR_SIZE, 4096);
	if (mcq->buf == NULL || mcq->dbrec == NULL || mcq->uar == NULL)
		goto err;
	/* as the hardware hands a CQ over: every entry invalid, owner 0 */
	for (i = 0; i < cnt; i++)
		((struct mlx5_cqe64 *)mcq->buf)[i].op_own = MLX5_CQE_INVALID << 4;
	slot = mdl_slot_take(mdl_cq_used, PV_MLX5_MDL_MAX_CQ);
	if (slot < 0) {
		MLX5_LOG(ERR, "model: all %d CQs in use", PV_MLX5_MDL_MAX_CQ);
		goto err;
	}
	mcq->cqn = PV_MLX5_MDL_CQN_BASE + slot;
	mcq->dev = pv_mlx5_ctx(ibctx)->mdl;
	mcq->drv = cq;
	mcq->cqe_cnt = cnt;
	mcq->log_cnt = rte_log2_u32(cnt);
	mcq->cqe_size = sizeof(struct mlx5_cqe64);

	memset(&dv, 0, sizeof(dv));
	dv.buf = mcq->buf;
	dv.dbrec = (pv_be32 *)(uintptr_t)mcq->dbrec;
	dv.cqe_cnt = cnt;
	dv.cqe_size = mcq->cqe_size;
	dv.cq_uar = mcq->uar;
	dv.cqn = mcq->cqn;
	cq->ctx = pv_mlx5_ctx(ibctx);
	ret = -pv_mlx5_cq_dp_init(cq, &dv);
	if (ret != 0)
		goto err;
	cq->ctx = pv_mlx5_ctx(ibctx);
	cq->mdl = mcq;
	cq->ibcq.context = ibctx;
	cq->ibcq.channel = channel;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.cqs[slot] = mcq;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return &cq->ibcq;
err:
	if (slot >= 0)
		mdl_cq_used[slot] = 0;
	mdl_cq_free(mcq);
	rte_free(cq);
	errno = ret;
	return NULL;
}

/*
 * Resize: with the engine stopped (fabric lock), copy the CQEs written and
 * not polled yet, oldest first, to the start of a new buffer with the
 * owner bit of its first pass, and restart both sides there: the engine
 * writes at their count, the data path polls from 0. (A ConnectX marks the
 * switch with a RESIZE_CQ CQE in the old buffer and rdma-core copies; the
 * result is the same.)
 */
static int
mdl_cq_resize(struct pv_cq *ibcq, int cqe)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	struct pv_mlx5_mdl_cq *mcq = cq->mdl;
	uint32_t cnt = pv_mlx5_pow2(cqe + 1), held, i;
	struct mlx5_cqe64 *nbuf, *obuf;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	held = mcq->pi - cq->ci;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	if (held > (uint32_t)cqe) {
		MLX5_LOG(ERR, "model: cq 0x%x: %u cqes held, more than %d", mcq->cqn, held, cqe);
		return EINVAL;
	}
	if (cnt == mcq->cqe_cnt)
		return 0;
	nbuf = rte_zmalloc("pv_mlx5_cq_buf", cnt * sizeof(*nbuf), 4096);
	if (nbuf == NULL) {
		MLX5_LOG(ERR, "model: cq 0x%x: no memory for %u cqes", mcq->cqn, cnt);
		return ENOMEM;
	}
	for (i = 0; i < cnt; i++)
		nbuf[i].op_own = MLX5_CQE_INVALID << 4;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	/* the engine (on its lcore) may have written more meanwhile */
	held = mcq->pi - cq->ci;
	if (held > (uint32_t)cqe) {
		rte_spinlock_unlock(&pv_mlx5_mdl.lock);
		MLX5_LOG(ERR, "model: cq 0x%x: %u cqes held, more than %d", mcq->cqn, held, cqe);
		rte_free(nbuf);
		return EINVAL;
	}
	obuf = (struct mlx5_cqe64 *)mcq->buf;
	for (i = 0; i < held; i++) {
		nbuf[i] = obuf[(cq->ci + i) & (mcq->cqe_cnt - 1)];
		nbuf[i].op_own &= ~MLX5_CQE_OWNER_MASK;
	}
	mcq->buf = (uint8_t *)nbuf;
	mcq->cqe_cnt = cnt;
	mcq->log_cnt = rte_log2_u32(cnt);
	mcq->pi = held;
	mcq->overrun = 0;
	pv_mlx5_cq_dp_rebuf(cq, (uint8_t *)nbuf, cnt);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	rte_free(obuf);
	return 0;
}

static int
mdl_cq_destroy(struct pv_cq *ibcq)
{
	struct pv_mlx5_cq *cq = pv_mlx5_cq(ibcq);
	struct pv_mlx5_mdl_cq *mcq = cq->mdl;
	uint32_t slot = mcq->cqn - PV_MLX5_MDL_CQN_BASE;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.cqs[slot] = NULL;
	mdl_cq_used[slot] = 0;
	pv_mlx5_cq_dp_fini(cq);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	mdl_cq_free(mcq);
	rte_free(cq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SRQs                                                                 */
/* ------------------------------------------------------------------ */

static void
mdl_srq_free(struct pv_mlx5_mdl_srq *msrq)
{
	if (msrq == NULL)
		return;
	rte_free(msrq->buf);
	rte_free((void *)(uintptr_t)msrq->dbrec);
	rte_free(msrq);
}

/*
 * The geometry rdma-core's mlx5 provider gives (without its ODP wait
 * queue): WQEs of the next segment and max_sge data segments, at least 32
 * bytes, a power of two; max_wr + 1 of them rounded up to a power of two
 * (one stays free), linked 0 -> 1 -> ... -> last. The engine starts at WQE 0.
 */
static struct pv_srq *
mdl_srq_create_common(struct pv_pd *ibpd, struct pv_srq_init_attr *attr, struct pv_xrcd *xrcd,
		      struct pv_cq *xrc_cq)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibpd->context);
	struct pv_mlx5_srq *srq = NULL;
	struct pv_mlx5_mdl_srq *msrq = NULL;
	struct mlx5dv_srq dv;
	uint32_t cnt, stride, i;
	int slot = -1, ret = ENOMEM;

	if (attr->attr.max_wr > PV_MLX5_MDL_MAX_SRQ_WR ||
	    attr->attr.max_sge > PV_MLX5_MDL_MAX_SGE) {
		MLX5_LOG(ERR, "model: srq of %u wrs, %u sges beyond %u, %u", attr->attr.max_wr,
			 attr->attr.max_sge, PV_MLX5_MDL_MAX_SRQ_WR, PV_MLX5_MDL_MAX_SGE);
		errno = EINVAL;
		return NULL;
	}
	stride = pv_mlx5_pow2(RTE_MAX(sizeof(struct mlx5_wqe_srq_next_seg) +
				      attr->attr.max_sge * sizeof(struct mlx5_wqe_data_seg),
				      32u));
	cnt = pv_mlx5_pow2(RTE_MAX(attr->attr.max_wr, 1u) + 1);
	srq = rte_zmalloc("pv_mlx5_srq", sizeof(*srq), RTE_CACHE_LINE_SIZE);
	msrq = rte_zmalloc("pv_mlx5_mdl_srq", sizeof(*msrq), RTE_CACHE_LINE_SIZE);
	if (srq == NULL || msrq == NULL)
		goto err;
	msrq->buf = rte_zmalloc("pv_mlx5_srq_buf", (size_t)cnt * stride, 4096);
	msrq->dbrec = rte_zmalloc("pv_mlx5_srq_dbrec", RTE_CACHE_LINE_SIZE, RTE_CACHE_LINE_SIZE);
	if (msrq->buf == NULL || msrq->dbrec == NULL)
		goto err;
	for (i = 0; i + 1 < cnt; i++) {
		struct mlx5_wqe_srq_next_seg *next =
			(struct mlx5_wqe_srq_next_seg *)(msrq->buf + (size_t)i * stride);

		next->next_wqe_index = rte_cpu_to_be_16((uint16_t)(i + 1));
	}
	slot = mdl_slot_take(mdl_srq_used, PV_MLX5_MDL_MAX_SRQ);
	if (slot < 0) {
		MLX5_LOG(ERR, "model: all %d SRQs in use", PV_MLX5_MDL_MAX_SRQ);
		goto err;
	}
	msrq->srqn = PV_MLX5_MDL_SRQN_BASE + slot;
	msrq->dev = ctx->mdl;
	msrq->pdn = pv_mlx5_pd(ibpd)->pdn;
	msrq->drv = srq;
	msrq->wqe_cnt = cnt;
	msrq->stride = stride;
	msrq->xrcdn = xrcd != NULL ? pv_mlx5_xrcd(xrcd)->xrcdn : 0;
	msrq->xrc_cq = xrc_cq != NULL ? pv_mlx5_cq(xrc_cq)->mdl : NULL;

	memset(&dv, 0, sizeof(dv));
	dv.buf = msrq->buf;
	dv.dbrec = (pv_be32 *)(uintptr_t)msrq->dbrec;
	dv.stride = stride;
	dv.head = 0;
	dv.tail = cnt - 1;
	dv.comp_mask = MLX5DV_SRQ_MASK_SRQN;
	dv.srqn = msrq->srqn;
	srq->ctx = ctx;
	ret = -pv_mlx5_srq_dp_init(srq, &dv);
	if (ret != 0)
		goto err;
	srq->ctx = ctx;
	srq->mdl = msrq;
	srq->ibsrq.context = ibpd->context;
	srq->ibsrq.pd = ibpd;
	if (xrcd != NULL) {
		ret = -pv_mlx5_srq_xrc_init(srq);
		if (ret != 0) {
			pv_mlx5_srq_dp_fini(srq);
			goto err;
		}
	}
	attr->attr.max_wr = srq->max_wr;
	attr->attr.max_sge = srq->max_sge;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.srqs[slot] = msrq;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	MLX5_LOG(DEBUG, "model: srq 0x%x: %u wqes of %u bytes", msrq->srqn, cnt, stride);
	return &srq->ibsrq;
err:
	if (slot >= 0)
		mdl_srq_used[slot] = 0;
	mdl_srq_free(msrq);
	rte_free(srq);
	errno = ret;
	return NULL;
}

static struct pv_srq *
mdl_srq_create(struct pv_pd *ibpd, struct pv_srq_init_attr *attr)
{
	return mdl_srq_create_common(ibpd, attr, NULL, NULL);
}

/* An XRC SRQ (lib/verbs checked XRCD, CQ and sizes): an SRQ whose
 * receives the XRC TGT QPs of its domain take, completing on its CQ. */
static struct pv_srq *
mdl_srq_create_ex(struct pv_context *ibctx __rte_unused, struct pv_srq_init_attr_ex *attr)
{
	struct pv_srq_init_attr basic = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
	};
	struct pv_srq *srq;

	srq = mdl_srq_create_common(attr->pd, &basic, attr->xrcd, attr->cq);
	if (srq != NULL)
		attr->attr = basic.attr;
	return srq;
}

static int
mdl_srq_num_get(struct pv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = pv_mlx5_srq(ibsrq)->srqn;
	return 0;
}

static struct pv_xrcd *
mdl_xrcd_open(struct pv_context *ibctx __rte_unused, struct pv_xrcd_init_attr *attr __rte_unused)
{
	struct pv_mlx5_xrcd *xrcd = rte_zmalloc("pv_mlx5_xrcd", sizeof(*xrcd), 0);

	if (xrcd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	xrcd->xrcdn = ++pv_mlx5_mdl.xrcd_next;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return &xrcd->ibxrcd;
}

static int
mdl_xrcd_close(struct pv_xrcd *ibxrcd)
{
	/* lib/verbs refused while SRQs or TGT QPs are in it (EBUSY) */
	rte_free(pv_mlx5_xrcd(ibxrcd));
	return 0;
}

static int
mdl_srq_modify(struct pv_srq *ibsrq, struct pv_srq_attr *attr, int attr_mask)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);

	if (attr_mask & PV_SRQ_MAX_WR) {
		/* a ConnectX cannot resize an SRQ either (no PV_DEVICE_SRQ_RESIZE) */
		MLX5_LOG(ERR, "model: srq 0x%x: resizing is not supported", srq->srqn);
		return EOPNOTSUPP;
	}
	if (attr->srq_limit > srq->max_wr)
		return EINVAL;
	/* arm: the engine raises the event when fewer WQEs than the limit
	 * remain posted, then disarms (limit 0) */
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	srq->mdl->limit = attr->srq_limit;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return 0;
}

static int
mdl_srq_query(struct pv_srq *ibsrq, struct pv_srq_attr *attr)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	attr->srq_limit = srq->mdl->limit;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return 0;
}

static int
mdl_srq_destroy(struct pv_srq *ibsrq)
{
	struct pv_mlx5_srq *srq = pv_mlx5_srq(ibsrq);
	struct pv_mlx5_mdl_srq *msrq = srq->mdl;

	/* lib/verbs refused while a QP uses it (EBUSY): the engine cannot
	 * reach it any more */
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.srqs[msrq->srqn - PV_MLX5_MDL_SRQN_BASE] = NULL;
	mdl_srq_used[msrq->srqn - PV_MLX5_MDL_SRQN_BASE] = 0;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	pv_mlx5_srq_xrc_fini(srq);
	pv_mlx5_srq_dp_fini(srq);
	mdl_srq_free(msrq);
	rte_free(srq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* QPs                                                                  */
/* ------------------------------------------------------------------ */

static void
mdl_qp_free(struct pv_mlx5_mdl_qp *mqp)
{
	if (mqp == NULL)
		return;
	rte_free(mqp->sq_buf);
	rte_free(mqp->rq_buf);
	rte_free((void *)(uintptr_t)mqp->dbrec);
	rte_free(mqp->uar);
	rte_free(mqp);
}

static struct pv_qp *
mdl_qp_create(struct pv_pd *ibpd, struct pv_qp_init_attr *attr)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibpd->context);
	struct pv_mlx5_qp *qp = NULL;
	struct pv_mlx5_mdl_qp *mqp = NULL;
	struct pv_qp_cap *cap = &attr->cap;
	struct mlx5dv_qp dv;
	uint32_t max_bb, sq_cnt, rq_cnt, rq_stride;
	int slot = -1, ret;

	if (attr->qp_type != PV_QPT_RC && attr->qp_type != PV_QPT_XRC_SEND) {
		MLX5_LOG(ERR, "model: only RC and XRC QPs are modelled");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->srq != NULL || attr->qp_type == PV_QPT_XRC_SEND) {
		/* receives come from the SRQ, or an XRC INI QP only sends:
		 * no receive queue of its own */
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (cap->max_send_wr > PV_MLX5_MDL_MAX_QP_WR || cap->max_recv_wr > PV_MLX5_MDL_MAX_QP_WR ||
	    cap->max_send_sge > PV_MLX5_MDL_MAX_SGE || cap->max_recv_sge > PV_MLX5_MDL_MAX_SGE ||
	    cap->max_inline_data > PV_MLX5_MDL_MAX_INLINE) {
		MLX5_LOG(ERR, "model: qp caps beyond the device limits");
		errno = EINVAL;
		return NULL;
	}
	/* the geometry a ConnectX gives: WQEBB-sized send slots for the
	 * largest WQE, power-of-two rings, receive WQEs of data segments */
	cap->max_send_wr = RTE_MAX(cap->max_send_wr, 1u);
	cap->max_send_sge = RTE_MAX(cap->max_send_sge, 1u);
	max_bb = (pv_mlx5_qp_max_wqe_size(cap, attr->qp_type) + MLX5_SEND_WQE_BB - 1) >> MLX5_SEND_WQE_SHIFT;
	sq_cnt = pv_mlx5_pow2(cap->max_send_wr * max_bb);
	cap->max_send_wr = sq_cnt / max_bb;
	if (attr->srq == NULL && attr->qp_type != PV_QPT_XRC_SEND) {
		cap->max_recv_sge = RTE_MAX(cap->max_recv_sge, 1u);
		rq_cnt = pv_mlx5_pow2(RTE_MAX(cap->max_recv_wr, 1u));
		rq_stride = pv_mlx5_pow2(cap->max_recv_sge * sizeof(struct mlx5_wqe_data_seg));
		cap->max_recv_wr = rq_cnt;
		cap->max_recv_sge = rq_stride / sizeof(struct mlx5_wqe_data_seg);
	} else {
		rq_cnt = 0;
		rq_stride = 0;
	}

	ret = ENOMEM;
	qp = rte_zmalloc("pv_mlx5_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	mqp = rte_zmalloc("pv_mlx5_mdl_qp", sizeof(*mqp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL || mqp == NULL)
		goto err;
	mqp->sq_buf = rte_zmalloc("pv_mlx5_sq", sq_cnt * MLX5_SEND_WQE_BB, 4096);
	mqp->rq_buf = rq_cnt == 0 ? NULL : rte_zmalloc("pv_mlx5_rq", rq_cnt * rq_stride, 4096);
	mqp->dbrec = rte_zmalloc("pv_mlx5_qp_dbrec", RTE_CACHE_LINE_SIZE, RTE_CACHE_LINE_SIZE);
	mqp->uar = rte_zmalloc("pv_mlx5_uar", PV_MLX5_MDL_UAR_SIZE, 4096);
	if (mqp->sq_buf == NULL || (rq_cnt != 0 && mqp->rq_buf == NULL) || mqp->dbrec == NULL ||
	    mqp->uar == NULL)
		goto err;
	slot = mdl_slot_take(mdl_qp_used, PV_MLX5_MDL_MAX_QP);
	if (slot < 0) {
		MLX5_LOG(ERR, "model: all %d QPs in use", PV_MLX5_MDL_MAX_QP);
		goto err;
	}
	mqp->qpn = PV_MLX5_MDL_QPN_BASE + slot;
	mqp->dev = ctx->mdl;
	mqp->pdn = pv_mlx5_pd(ibpd)->pdn;
	mqp->state = PV_QPS_RESET;
	mqp->sq_cnt = sq_cnt;
	mqp->rq_cnt = rq_cnt;
	mqp->rq_stride = rq_stride;
	mqp->type = attr->qp_type;
	mqp->scq = pv_mlx5_cq(attr->send_cq)->mdl;
	/* an XRC INI QP has no receive side: its send CQ stands in */
	mqp->rcq = attr->qp_type == PV_QPT_XRC_SEND ? mqp->scq : pv_mlx5_cq(attr->recv_cq)->mdl;
	mqp->srq = attr->srq != NULL ? pv_mlx5_srq(attr->srq)->mdl : NULL;
	mqp->rnr_retry = 7;
	mqp->retry_cnt = 7;

	memset(&dv, 0, sizeof(dv));
	dv.dbrec = (pv_be32 *)(uintptr_t)mqp->dbrec;
	dv.sq.buf = mqp->sq_buf;
	dv.sq.wqe_cnt = sq_cnt;
	dv.sq.stride = MLX5_SEND_WQE_BB;
	dv.rq.buf = mqp->rq_buf;
	dv.rq.wqe_cnt = rq_cnt;
	dv.rq.stride = rq_stride;
	dv.bf.reg = mqp->uar + PV_MLX5_MDL_BF_OFFSET;
	dv.bf.size = PV_MLX5_MDL_BF_SIZE;
	dv.sqn = mqp->qpn;
	dv.rqn = mqp->qpn;
	qp->ctx = ctx;
	qp->td_lockless = pv_pd_td(ibpd) != NULL;
	ret = -pv_mlx5_qp_dp_init(qp, &dv, mqp->qpn, attr);
	if (ret != 0)
		goto err;
	qp->ctx = ctx;
	qp->mdl = mqp;
	qp->scq = pv_mlx5_cq(attr->send_cq);
	qp->rcq = attr->qp_type == PV_QPT_XRC_SEND ? qp->scq : pv_mlx5_cq(attr->recv_cq);
	qp->ibqp.context = ibpd->context;
	qp->ibqp.pd = ibpd;
	qp->ibqp.send_cq = attr->send_cq;
	qp->ibqp.recv_cq = attr->recv_cq;
	qp->ibqp.qp_type = attr->qp_type;
	qp->ibqp.state = PV_QPS_RESET;
	ret = -pv_mlx5_qpt_insert(ctx, qp);
	if (ret != 0) {
		pv_mlx5_qp_dp_fini(qp);
		goto err;
	}

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.qps[slot] = mqp;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	MLX5_LOG(DEBUG, "model: qp 0x%x: %u wqebbs, %u rq wqes of %u bytes", mqp->qpn, sq_cnt,
		 rq_cnt, rq_stride);
	return &qp->ibqp;
err:
	if (slot >= 0)
		mdl_qp_used[slot] = 0;
	mdl_qp_free(mqp);
	rte_free(qp);
	errno = ret;
	return NULL;
}

/*
 * An XRC TGT QP: a responder with no queues of its own. Each request it
 * takes names (XRC segment) an XRC SRQ of its domain, whose WQE, CQ and PD
 * serve it; the engine checks the domain.
 */
static struct pv_qp *
mdl_qp_create_tgt(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x)
{
	struct pv_mlx5_context *ctx = pv_mlx5_ctx(ibctx);
	struct pv_mlx5_mdl_qp *mqp;
	struct pv_mlx5_qp *qp;
	int slot = -1;

	qp = rte_zmalloc("pv_mlx5_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE);
	mqp = rte_zmalloc("pv_mlx5_mdl_qp", sizeof(*mqp), RTE_CACHE_LINE_SIZE);
	if (qp != NULL && mqp != NULL)
		mqp->uar = rte_zmalloc("pv_mlx5_uar", PV_MLX5_MDL_UAR_SIZE, 4096);
	if (qp != NULL && mqp != NULL && mqp->uar != NULL)
		slot = mdl_slot_take(mdl_qp_used, PV_MLX5_MDL_MAX_QP);
	if (slot < 0) {
		MLX5_LOG(ERR, "model: no memory or QP slot for an xrc tgt qp");
		mdl_qp_free(mqp);
		rte_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	mqp->qpn = PV_MLX5_MDL_QPN_BASE + slot;
	mqp->dev = ctx->mdl;
	mqp->type = PV_QPT_XRC_RECV;
	mqp->xrcdn = pv_mlx5_xrcd(x->xrcd)->xrcdn;
	mqp->state = PV_QPS_RESET;
	mqp->rnr_retry = 7;
	mqp->retry_cnt = 7;
	qp->ctx = ctx;
	qp->mdl = mqp;
	pv_mlx5_qp_dp_init_tgt(qp, mqp->qpn);
	qp->ibqp.context = ibctx;
	qp->ibqp.qp_type = PV_QPT_XRC_RECV;
	qp->ibqp.state = PV_QPS_RESET;
	memset(&x->cap, 0, sizeof(x->cap));
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.qps[slot] = mqp;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return &qp->ibqp;
}

/* pv_create_qp_ex(): RC and XRC INI QPs as create_qp, XRC TGT QPs above. */
static struct pv_qp *
mdl_qp_create_ex(struct pv_context *ibctx, struct pv_qp_init_attr_ex *x)
{
	return pv_mlx5_qp_create_ex(ibctx, x, mdl_qp_create, mdl_qp_create_tgt);
}

static int
mdl_qp_modify(struct pv_qp *ibqp, struct pv_qp_attr *attr, int attr_mask)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	struct pv_mlx5_mdl_qp *mqp = qp->mdl;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	if ((attr_mask & PV_QP_STATE) && attr->qp_state == PV_QPS_RESET) {
		pv_mlx5_qp_dp_reset(qp);
		pv_mlx5_mdl_qp_reset(mqp);
	}
	if (attr_mask & PV_QP_ACCESS_FLAGS)
		mqp->access = attr->qp_access_flags;
	if (attr_mask & PV_QP_DEST_QPN)
		mqp->dest_qpn = attr->dest_qp_num;
	if (attr_mask & PV_QP_RNR_RETRY)
		mqp->rnr_retry = attr->rnr_retry;
	if (attr_mask & PV_QP_RETRY_CNT)
		mqp->retry_cnt = attr->retry_cnt;
	if (attr_mask & PV_QP_STATE) {
		mqp->state = attr->qp_state;
		ibqp->state = attr->qp_state;
	}
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return 0;
}

static int
mdl_qp_query(struct pv_qp *ibqp, struct pv_qp_attr *attr, int attr_mask __rte_unused)
{
	struct pv_mlx5_mdl_qp *mqp = pv_mlx5_qp(ibqp)->mdl;

	memset(attr, 0, sizeof(*attr));
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	attr->qp_state = mqp->state;
	attr->cur_qp_state = mqp->state;
	attr->dest_qp_num = mqp->dest_qpn;
	attr->qp_access_flags = mqp->access;
	attr->rnr_retry = mqp->rnr_retry;
	attr->retry_cnt = mqp->retry_cnt;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	attr->path_mtu = PV_MTU_4096;
	attr->port_num = 1;
	attr->cap = ibqp->cap;
	return 0;
}

/*
 * Type 2 windows bound to a destroyed QP grant nothing any more: its QPN
 * comes back with the slot. Under the engine lock.
 */
static void
mdl_mw_qp_gone(const struct pv_mlx5_mdl_qp *mqp)
{
	uint32_t i;

	for (i = 1; i < PV_MLX5_MDL_MAX_MR; i++) {
		struct pv_mlx5_mdl_mr *e = &pv_mlx5_mdl.mrs[i];

		if (e->key != 0 && e->mw_type == PV_MW_TYPE_2 && e->bound &&
		    e->qpn == mqp->qpn && e->dev == mqp->dev)
			e->bound = 0;
	}
}

static int
mdl_qp_destroy(struct pv_qp *ibqp)
{
	struct pv_mlx5_qp *qp = pv_mlx5_qp(ibqp);
	struct pv_mlx5_mdl_qp *mqp = qp->mdl;
	uint32_t slot = mqp->qpn - PV_MLX5_MDL_QPN_BASE;

	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_mdl.qps[slot] = NULL;
	mdl_qp_used[slot] = 0;
	mdl_mw_qp_gone(mqp);
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	if (mqp->type != PV_QPT_XRC_RECV) {
		pv_mlx5_qpt_remove(qp->ctx, qp->qpn);
		if (qp->scq->last_qp == qp)
			qp->scq->last_qp = &pv_mlx5_qp_none;
		if (qp->rcq->last_qp == qp)
			qp->rcq->last_qp = &pv_mlx5_qp_none;
	}
	pv_mlx5_qp_dp_fini(qp);
	mdl_qp_free(mqp);
	rte_free(qp);
	return 0;
}

static int
mdl_progress(struct pv_context *ibctx __rte_unused)
{
	/* with no lcore of its own, the device runs when its user progresses */
	if (mdl_lcore_run < 0)
		return pv_mlx5_model_step();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Test and bench hooks                                                 */
/* ------------------------------------------------------------------ */

int
pv_mlx5_model_is(struct pv_context *ibctx)
{
	return ibctx != NULL && ibctx->device != NULL &&
	       ibctx->device->driver->ops == &pv_mlx5_model_ops;
}

int
pv_mlx5_model_qp_stats_get(struct pv_qp *ibqp, struct pv_mlx5_mdl_qp_stats *st)
{
	struct pv_mlx5_mdl_qp *mqp;

	if (ibqp == NULL || !pv_mlx5_model_is(ibqp->context))
		return -EINVAL;
	mqp = pv_mlx5_qp(ibqp)->mdl;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	*st = mqp->st;
	st->sq_hw_ci = mqp->sq_hw_ci;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return 0;
}

int
pv_mlx5_model_qp_inject(struct pv_qp *ibqp, uint8_t syndrome)
{
	if (ibqp == NULL || !pv_mlx5_model_is(ibqp->context))
		return -EINVAL;
	rte_spinlock_lock(&pv_mlx5_mdl.lock);
	pv_mlx5_qp(ibqp)->mdl->inject_syndrome = syndrome;
	rte_spinlock_unlock(&pv_mlx5_mdl.lock);
	return 0;
}

const struct pv_driver_ops pv_mlx5_model_ops = {
	.probe = mdl_probe,
	.remove = mdl_remove,
	.open_device = mdl_open,
	.close_device = mdl_close,
	.query_device = mdl_query_device,
	.query_device_ex = mdl_query_device_ex,
	.query_port = mdl_query_port,
	.query_gid = mdl_query_gid,
	.query_pkey = mdl_query_pkey,
	.alloc_pd = mdl_pd_alloc,
	.dealloc_pd = mdl_pd_dealloc,
	.reg_mr = mdl_mr_reg,
	.dereg_mr = mdl_mr_dereg,
	.create_cq = mdl_cq_create,
	.resize_cq = mdl_cq_resize,
	.destroy_cq = mdl_cq_destroy,
	.create_srq = mdl_srq_create,
	.modify_srq = mdl_srq_modify,
	.query_srq = mdl_srq_query,
	.destroy_srq = mdl_srq_destroy,
	.create_qp = mdl_qp_create,
	.create_qp_ex = mdl_qp_create_ex,
	/* create_gsi_qp: EOPNOTSUPP stub, as the hardware driver: no QP1 */
	.modify_qp = mdl_qp_modify,
	.query_qp = mdl_qp_query,
	.destroy_qp = mdl_qp_destroy,
	.alloc_mw = mdl_mw_alloc,
	.dealloc_mw = mdl_mw_dealloc,
	.open_xrcd = mdl_xrcd_open,
	.close_xrcd = mdl_xrcd_close,
	.create_srq_ex = mdl_srq_create_ex,
	.get_srq_num = mdl_srq_num_get,
	.progress = mdl_progress,
	.set_progress_mode = pv_mlx5_set_progress_mode,
	.get_progress_mode = pv_mlx5_get_progress_mode,
	/* AH, multicast: EOPNOTSUPP stubs from lib/verbs */
};

PV_DRIVER_REGISTER(mlx5_model, pv_mlx5_model_ops);
