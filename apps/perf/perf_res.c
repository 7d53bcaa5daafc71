/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Verbs resources of one pv-perf side: device, PD, buffer, MR, CQs, RC QP. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <pv_rdma_cma.h>

#include "perf.h"
#include "pv_app.h"

static uint64_t
perf_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static unsigned int
perf_slots_for(const struct perf_params *p, uint64_t size)
{
	uint64_t n;

	if (p->kind == PERF_LAT)
		return 1;
	n = PERF_SLOT_BYTES / perf_align(size, PERF_SLOT_ALIGN);
	if (n > PERF_MAX_SLOTS)
		n = PERF_MAX_SLOTS;
	if (p->max_slots > 0 && n > p->max_slots)
		n = p->max_slots;
	return n == 0 ? 1 : (unsigned int)n;
}

void
perf_size_set(struct perf_run *r, uint64_t size)
{
	r->size = size;
	r->stride = perf_align(size, PERF_SLOT_ALIGN);
	r->nslots = perf_slots_for(&r->p, size);
	/* a perftest peer exposes max(size, its page) bytes at its address */
	if (r->p.perftest) {
		uint64_t window = size > 4096 ? size : 4096;

		if ((uint64_t)r->nslots * r->stride > window)
			r->nslots = window / r->stride > 0 ? (unsigned int)(window / r->stride) : 1;
	}
}

uint8_t *
perf_src_slot(struct perf_run *r, unsigned int slot)
{
	return r->buf + (uint64_t)slot * r->stride;
}

uint8_t *
perf_dst_slot(struct perf_run *r, unsigned int slot)
{
	return r->buf + r->half + (uint64_t)slot * r->stride;
}

/* Remote address of slot @p slot: the peer's target half for writes and
 * sends, its source half for reads. */
uint64_t
perf_remote_slot(struct perf_run *r, unsigned int slot)
{
	uint64_t off = (uint64_t)slot * r->stride;

	if (r->p.verb == PERF_READ)
		return r->remote.addr + off;
	return r->remote.addr + r->remote.len / 2 + off;
}

uint64_t
perf_seed(uint64_t size, uint64_t n)
{
	return size * 1000003u + n + 1;
}

static inline uint64_t
perf_pattern_word(uint64_t seed, uint64_t k)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ (k + 1) * 0xd1b54a32d192ed03ull;

	return x ^ (x >> 29);
}

void
perf_pattern_fill(uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t k, w;

	for (k = 0; k < len / 8; k++) {
		w = perf_pattern_word(seed, k);
		memcpy(p + 8 * k, &w, 8);
	}
	if (len % 8) {
		w = perf_pattern_word(seed, k);
		memcpy(p + 8 * k, &w, len % 8);
	}
}

/* @return -1 when @p p holds the pattern, else the offset of the first bad byte. */
int64_t
perf_pattern_check(const uint8_t *p, uint64_t len, uint64_t seed)
{
	uint64_t k, w, n;
	uint64_t j;

	for (k = 0; k * 8 < len; k++) {
		w = perf_pattern_word(seed, k);
		n = len - k * 8 < 8 ? len - k * 8 : 8;
		if (memcmp(p + 8 * k, &w, n) != 0) {
			for (j = 0; j < n; j++)
				if (p[8 * k + j] != ((const uint8_t *)&w)[j])
					return (int64_t)(8 * k + j);
		}
	}
	return -1;
}

static struct pv_device *
perf_find_device(struct pv_device **list, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (name == NULL || strcmp(pv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

/*
 * As perftest without -x: on Ethernet, the first IPv4-mapped GID
 * (::ffff:a.b.c.d, RoCEv2 over IPv4); otherwise, or if there is none, 0.
 */
static int
perf_gid_auto(struct perf_run *r)
{
	static const uint8_t v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	union pv_gid g;
	int i;

	if (r->port_attr.link_layer != PV_LINK_LAYER_ETHERNET)
		return 0;
	for (i = 0; i < r->port_attr.gid_tbl_len; i++)
		if (pv_query_gid(r->ctx, r->p.ib_port, i, &g) == 0 &&
		    memcmp(g.raw, v4map, sizeof(v4map)) == 0)
			return i;
	return 0;
}

static int
perf_res_buf_alloc(struct perf_run *r)
{
	uint64_t half = 0, s;
	unsigned int n;
	int i;

	/* the size needing the most slot bytes decides the buffer */
	for (i = 0; i < r->p.nb_sizes; i++) {
		s = r->p.sizes[i];
		n = perf_slots_for(&r->p, s);
		if (n * perf_align(s, PERF_SLOT_ALIGN) > half)
			half = n * perf_align(s, PERF_SLOT_ALIGN);
	}
	r->half = half;
	r->buf = rte_zmalloc("pv-perf", 2 * half, 4096);
	r->buf_from_rte = r->buf != NULL;
	if (r->buf == NULL) {
		/* EAL's heap may be small (--no-huge without -m): any memory will do */
		r->buf = aligned_alloc(4096, perf_align(2 * half, 4096));
		if (r->buf == NULL)
			return -ENOMEM;
		memset(r->buf, 0, 2 * half);
	}
	return 0;
}

/* Open the device and choose what depends on it: GID, MTU, inline size. */
static int
perf_res_open(struct perf_run *r)
{
	struct perf_params *p = &r->p;
	struct pv_device **list;
	struct pv_device *dev;
	int n, ret;

	r->tsc_hz = rte_get_tsc_hz();
	if (r->ctx != NULL) {
		/* -R: the CM's context, in its progress mode (perf_cm.c) */
		p->ib_dev = pv_get_device_name(r->ctx->device);
		goto opened;
	}
	list = pv_get_device_list(&n);
	if (list == NULL) {
		fprintf(stderr, "pv-perf: no device list: %s\n", strerror(errno));
		return -errno;
	}
	dev = perf_find_device(list, n, p->ib_dev);
	if (dev == NULL) {
		if (p->ib_dev != NULL)
			fprintf(stderr, "pv-perf: device %s not found\n", p->ib_dev);
		else
			fprintf(stderr, "pv-perf: no device: give one with --pv-dev=softroce:...\n");
		pv_free_device_list(list);
		return -ENODEV;
	}
	r->ctx = pv_open_device(dev);
	pv_free_device_list(list);
	if (r->ctx == NULL) {
		fprintf(stderr, "pv-perf: open device: %s\n", strerror(errno));
		return -errno;
	}
	/* one thread drives each device from its poll loop: say so, unless
	 * --thread-safe asks for the library's default (locks, background) */
	if (!p->thread_safe) {
		ret = pv_set_progress_mode(r->ctx, PV_PROGRESS_APP);
		if (ret != 0 && ret != EOPNOTSUPP) {
			fprintf(stderr, "pv-perf: progress mode: %s\n", strerror(ret));
			return -ret;
		}
	}
	if (p->ib_dev == NULL)
		p->ib_dev = pv_get_device_name(r->ctx->device);
opened:
	ret = pv_query_device(r->ctx, &r->dev_attr);
	if (ret == 0)
		ret = pv_query_port(r->ctx, p->ib_port, &r->port_attr);
	if (ret != 0) {
		fprintf(stderr, "pv-perf: query device/port %u: %s\n", p->ib_port, strerror(ret));
		return -ret;
	}
	if (p->gid_index < 0)
		p->gid_index = perf_gid_auto(r);
	/* the model says so in fw_ver (doc/guides/drivers/mlx5.rst) */
	r->is_model = strstr(r->dev_attr.fw_ver, "device model") != NULL;
	if (pv_query_gid(r->ctx, p->ib_port, p->gid_index, &r->local.gid) != 0) {
		fprintf(stderr, "pv-perf: GID index %d: %s\n", p->gid_index, strerror(errno));
		return -errno;
	}

	/* MTU: asked for (at most the port's), else the port's active MTU */
	r->mtu = r->port_attr.active_mtu;
	if (p->mtu_bytes != 0) {
		enum pv_mtu m = PV_MTU_256;

		while (pv_mtu_to_bytes(m) < p->mtu_bytes)
			m++;
		if (m > r->port_attr.active_mtu)
			fprintf(stderr, "pv-perf: MTU %d above the port's active %d; using %d\n",
				p->mtu_bytes, pv_mtu_to_bytes(r->port_attr.active_mtu),
				pv_mtu_to_bytes(r->port_attr.active_mtu));
		else
			r->mtu = m;
	}
	if (pv_mtu_to_bytes(r->mtu) == 0)
		r->mtu = PV_MTU_1024;

	r->inline_size = p->inline_size;
	if (r->inline_size < 0)
		r->inline_size = p->verb == PERF_SEND ? PERF_DEF_INLINE_SEND :
			PERF_DEF_INLINE_WRITE;
	if ((uint32_t)r->inline_size > r->dev_attr.max_inline_data)
		r->inline_size = r->dev_attr.max_inline_data;
	return 0;
}

/* The send queue depth of one endpoint. */
static int
perf_res_sq(const struct perf_run *r)
{
	int sq = r->p.kind == PERF_BW ? r->p.tx_depth : r->p.cq_mod + 1;

	return sq > r->dev_attr.max_qp_wr ? r->dev_attr.max_qp_wr : sq;
}

/*
 * The RC QP on the endpoint's PD and CQs: a plain one, or with -R the CM
 * id @p id's (pv_rdma_create_qp(), which the CM moves to INIT).
 */
int
perf_res_qp_create(struct perf_run *r, struct pv_rdma_cm_id *id)
{
	struct perf_params *p = &r->p;
	struct pv_qp_init_attr qia;
	int sq = perf_res_sq(r);

	memset(&qia, 0, sizeof(qia));
	qia.send_cq = r->send_cq;
	qia.recv_cq = r->recv_cq;
	qia.qp_type = PV_QPT_RC;
	qia.cap.max_send_wr = sq;
	qia.cap.max_recv_wr = p->verb == PERF_SEND ? (uint32_t)p->rx_depth : 1;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	qia.cap.max_inline_data = r->inline_size;
	if (id != NULL)
		r->qp = pv_rdma_create_qp(id, r->pd, &qia) == 0 ? id->qp : NULL;
	else
		r->qp = pv_create_qp(r->pd, &qia);
	if (r->qp == NULL) {
		fprintf(stderr, "pv-perf: create RC QP (sq %d rq %u inline %d): %s\n", sq,
			qia.cap.max_recv_wr, r->inline_size, strerror(errno));
		return -errno;
	}
	if ((int)qia.cap.max_inline_data < r->inline_size)
		r->inline_size = qia.cap.max_inline_data;
	r->local.qpn = r->qp->qp_num;
	return 0;
}

/* PD, buffer, MR, CQs (and the RC QP, without -R) of one endpoint on the open device. */
static int
perf_res_create(struct perf_run *r)
{
	struct perf_params *p = &r->p;
	int n, ret, sq, cqe;

	r->pd = pv_alloc_pd(r->ctx);
	if (r->pd == NULL) {
		fprintf(stderr, "pv-perf: alloc PD: %s\n", strerror(errno));
		return -errno;
	}
	ret = perf_res_buf_alloc(r);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: no memory for 2 x %lu B\n", (unsigned long)r->half);
		return ret;
	}
	r->mr = pv_reg_mr(r->pd, r->buf, 2 * r->half,
			  PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ);
	if (r->mr == NULL) {
		fprintf(stderr, "pv-perf: register %lu B: %s\n", (unsigned long)(2 * r->half),
			strerror(errno));
		return -errno;
	}

	sq = perf_res_sq(r);
	cqe = sq > p->rx_depth ? sq : p->rx_depth;
	if (cqe > r->dev_attr.max_cqe)
		cqe = r->dev_attr.max_cqe;
	r->send_cq = pv_create_cq(r->ctx, cqe, NULL, NULL, 0);
	r->recv_cq = r->send_cq == NULL ? NULL : pv_create_cq(r->ctx, cqe, NULL, NULL, 0);
	if (r->recv_cq == NULL) {
		fprintf(stderr, "pv-perf: create CQ of %d: %s\n", cqe, strerror(errno));
		return -errno;
	}
	/* -R: the QP comes with the test connection (perf_cm_test_connect()) */
	if (!p->rdma_cm) {
		ret = perf_res_qp_create(r, NULL);
		if (ret < 0)
			return ret;
	}

	r->local.lid = r->port_attr.lid;
	r->local.psn = lrand48() & 0xffffff;
	r->local.rkey = r->mr->rkey;
	r->local.addr = (uintptr_t)r->buf;
	r->local.len = 2 * r->half;
	r->local.mtu = r->mtu;
	n = r->dev_attr.max_qp_rd_atom > 0 ? r->dev_attr.max_qp_rd_atom : 1;
	if (p->out_reads > 0 && p->out_reads < n)
		n = p->out_reads;
	r->local.out_reads = n > 255 ? 255 : n;

	/* duration runs only use entry 0 (start and end of the run) */
	r->max_iters = p->iters > 0 ? p->iters : 1;
	r->tposted = calloc(r->max_iters, sizeof(uint64_t));
	r->tcompleted = calloc(r->max_iters, sizeof(uint64_t));
	if (r->tposted == NULL || r->tcompleted == NULL)
		return -ENOMEM;
	return 0;
}

int
perf_res_init(struct perf_run *r)
{
	int ret = perf_res_open(r);

	return ret < 0 ? ret : perf_res_create(r);
}

/*
 * Loopback: the server endpoint @p s gets its own PD, buffer, MR, CQs and
 * QP on the device the client endpoint @p c has open (same context, so
 * the same lcore owns both QPs).
 */
int
perf_res_peer_init(struct perf_run *s, struct perf_run *c)
{
	s->p = c->p;
	s->is_server = 1;
	s->fd = -1;
	s->ctx = c->ctx;
	s->ctx_borrowed = 1;
	s->is_model = c->is_model;
	s->dev_attr = c->dev_attr;
	s->port_attr = c->port_attr;
	s->mtu = c->mtu;
	s->inline_size = c->inline_size;
	s->tsc_hz = c->tsc_hz;
	s->local.gid = c->local.gid;
	return perf_res_create(s);
}

int
perf_res_connect(struct perf_run *r)
{
	struct pv_app_qp_peer peer = {
		.qpn = r->remote.qpn,
		.psn = r->remote.psn,
		.gid = r->remote.gid,
		.lid = r->remote.lid,
	};
	struct pv_app_qp_opts o;
	uint8_t reads;
	int ret;

	if (r->remote.mtu < r->mtu && pv_mtu_to_bytes(r->remote.mtu) > 0)
		r->mtu = r->remote.mtu;
	reads = r->local.out_reads < r->remote.out_reads ? r->local.out_reads :
		r->remote.out_reads;
	if (reads == 0)
		reads = 1;

	pv_app_qp_opts_init(&o);
	o.name = "pv-perf";
	o.port_num = r->p.ib_port;
	o.sgid_index = r->p.gid_index;
	o.mtu = r->mtu;
	o.access = PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	o.sq_psn = r->local.psn;
	o.max_rd_atomic = reads;
	o.max_dest_rd_atomic = reads;
	ret = pv_app_qp_modify(r->qp, PV_QPS_INIT, &o, &peer);
	if (ret != 0)
		return ret;
	ret = pv_app_qp_modify(r->qp, PV_QPS_RTR, &o, &peer);
	if (ret != 0) {
		if (r->p.loopback)
			fprintf(stderr, "pv-perf: --loopback: %s does not connect two of its own "
				"QPs to each other (softroce, for one, refuses a path to its own "
				"IP address); use the mlx5 device model (--model), a ConnectX, "
				"or a server and a client process\n", r->p.ib_dev);
		return ret;
	}
	return pv_app_qp_modify(r->qp, PV_QPS_RTS, &o, &peer);
}

void
perf_res_fini(struct perf_run *r)
{
	int ret;

	if (r->qp != NULL && (ret = pv_destroy_qp(r->qp)) != 0)
		fprintf(stderr, "pv-perf: destroy QP: %s\n", strerror(ret));
	if (r->recv_cq != NULL)
		pv_destroy_cq(r->recv_cq);
	if (r->send_cq != NULL)
		pv_destroy_cq(r->send_cq);
	if (r->mr != NULL)
		pv_dereg_mr(r->mr);
	if (r->buf != NULL) {
		if (r->buf_from_rte)
			rte_free(r->buf);
		else
			free(r->buf);
	}
	if (r->pd != NULL)
		pv_dealloc_pd(r->pd);
	if (r->ctx != NULL && !r->ctx_borrowed)
		pv_close_device(r->ctx);
	free(r->tposted);
	free(r->tcompleted);
	memset(&r->ctx, 0, sizeof(*r) - offsetof(struct perf_run, ctx));
}
