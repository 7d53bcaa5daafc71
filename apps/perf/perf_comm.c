/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Everything pv-perf says over the out-of-band TCP channel, in pollverbs'
 * native format (lib/cm): parameter agreement, the QP/rkey/address
 * exchange, barriers and results. Interoperating with perftest's
 * ib_*_bw/lat means replacing the functions of this file (perftest 4.5
 * sends KEY_PRINT_FMT text for perf_comm_exchange() and has no parameter
 * or result message); the test loops never touch the socket.
 *
 * Every wait that can happen after the QPs exist goes through
 * pv_cm_oob_recv_poll() with perf_progress(): with a poll-mode driver the
 * side that waits must keep making progress, or its peer's writes, reads
 * and sends are never acknowledged.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <pv_cm.h>

#include "perf.h"
#include "perf_proto.h"

/*
 * --perftest: the conversation of perftest 4.5's ib_* tools instead
 * (pv_perftest_* of perf_proto.c; the sequence is in perf_proto.h). No parameters
 * cross: each side runs its own command line, as perftest does. The calls
 * map onto this file's functions as follows:
 *   perf_comm_params()          nothing
 *   perf_comm_exchange()        versions, sys data, MTU, handshakes before RTR
 *   first perf_comm_sync()      handshakes after RTS (+ start barrier of SEND)
 *   perf_comm_result_send()     pv_perftest_finish() with our bw report
 *   perf_comm_result_recv*()    pv_perftest_finish(), the peer's bw report
 *   later perf_comm_sync()      nothing: finish() closed the conversation
 */
static struct pv_perftest perf_pt;
static int perf_pt_ready;
static int perf_pt_finished;

#define PERF_PARAMS_MSG_LEN 72
#define PERF_RESULT_MSG_LEN 80
#define PERF_PARAMS_MAGIC "PVPF"

int
perf_progress(void *arg)
{
	struct perf_run *r = arg;

	return pv_progress(r->ctx);
}

int
perf_comm_connect(struct perf_run *r)
{
	int fd;

	if (r->p.rdma_cm)
		return perf_cm_ctrl_connect(r);
	if (r->is_server)
		fd = pv_cm_oob_accept(r->p.tcp_port, -1);
	else
		fd = pv_cm_oob_connect(r->p.server, r->p.tcp_port, PERF_OOB_TIMEOUT_MS);
	if (fd < 0) {
		fprintf(stderr, "pv-perf: %s %s:%u failed: %s\n",
			r->is_server ? "listen on" : "connect to",
			r->is_server ? "*" : r->p.server, r->p.tcp_port, strerror(-fd));
		return fd;
	}
	r->fd = fd;
	return 0;
}

void
perf_comm_close(struct perf_run *r)
{
	perf_cm_close(r);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

static void
perf_put_u64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = v & 0xff;
}

static uint64_t
perf_get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The size list follows the parameter block: a count, then the sizes. */
static int
perf_comm_sizes(struct perf_run *r, int send)
{
	uint8_t msg[8 + 8 * PERF_MAX_SIZES];
	struct perf_params *p = &r->p;
	uint64_t n;
	int i, ret;

	if (send) {
		perf_put_u64(msg, p->nb_sizes);
		for (i = 0; i < p->nb_sizes; i++)
			perf_put_u64(msg + 8 + 8 * i, p->sizes[i]);
		return pv_cm_oob_send(r->fd, msg, 8 + 8 * p->nb_sizes);
	}
	ret = pv_cm_oob_recv(r->fd, msg, 8);
	if (ret < 0)
		return ret;
	n = perf_get_u64(msg);
	if (n < 1 || n > PERF_MAX_SIZES)
		return -EPROTO;
	ret = pv_cm_oob_recv(r->fd, msg + 8, 8 * n);
	if (ret < 0)
		return ret;
	p->nb_sizes = n;
	p->size = 0;
	for (i = 0; i < p->nb_sizes; i++) {
		p->sizes[i] = perf_get_u64(msg + 8 + 8 * i);
		if (p->sizes[i] < 1 || p->sizes[i] > PERF_MAX_SIZE)
			return -EPROTO;
		if (p->sizes[i] > p->size)
			p->size = p->sizes[i];
	}
	return 0;
}

/*
 * The client's run parameters win: a server started with only the test
 * name runs whatever the client asks, as long as it is the same test.
 * Device, port, GID index, receive depth and report units stay local.
 */
int
perf_comm_params(struct perf_run *r)
{
	uint8_t msg[PERF_PARAMS_MSG_LEN];
	struct perf_params *p = &r->p;
	uint8_t status = 0;
	uint64_t v;
	int ret;

	if (p->perftest)
		return 0;
	if (!r->is_server) {
		memset(msg, 0, sizeof(msg));
		memcpy(msg, PERF_PARAMS_MAGIC, 4);
		msg[4] = p->verb;
		msg[5] = p->kind;
		msg[6] = p->all_sizes;
		msg[7] = p->verify;
		perf_put_u64(msg + 8, p->cq_mod_set);	/* sizes follow separately */
		perf_put_u64(msg + 16, p->iters);
		perf_put_u64(msg + 24, p->duration_s);
		perf_put_u64(msg + 32, p->tx_depth);
		perf_put_u64(msg + 40, p->post_list);
		perf_put_u64(msg + 48, p->cq_mod);
		perf_put_u64(msg + 56, (uint64_t)(int64_t)p->inline_size);
		perf_put_u64(msg + 64, p->max_slots);
		ret = pv_cm_oob_send(r->fd, msg, sizeof(msg));
		if (ret == 0)
			ret = perf_comm_sizes(r, 1);
		if (ret == 0)
			ret = pv_cm_oob_recv(r->fd, &status, 1);
		if (ret < 0) {
			fprintf(stderr, "pv-perf: parameter exchange: %s\n", strerror(-ret));
			return ret;
		}
		if (status != 0) {
			fprintf(stderr, "pv-perf: the server runs a different test\n");
			return -EPROTO;
		}
		return 0;
	}
	ret = pv_cm_oob_recv(r->fd, msg, sizeof(msg));
	if (ret < 0) {
		fprintf(stderr, "pv-perf: parameter exchange: %s\n", strerror(-ret));
		return ret;
	}
	if (memcmp(msg, PERF_PARAMS_MAGIC, 4) != 0) {
		fprintf(stderr, "pv-perf: the peer is not a pv-perf client\n");
		return -EPROTO;
	}
	ret = perf_comm_sizes(r, 0);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: parameter exchange: %s\n", strerror(-ret));
		return ret;
	}
	if (msg[4] != p->verb || msg[5] != p->kind) {
		fprintf(stderr, "pv-perf: the client runs a different test than %s\n",
			p->test_name);
		status = 1;
	}
	ret = pv_cm_oob_send(r->fd, &status, 1);
	if (ret < 0 || status != 0)
		return ret < 0 ? ret : -EPROTO;
	p->all_sizes = msg[6];
	p->verify = msg[7];
	p->cq_mod_set = perf_get_u64(msg + 8) != 0;
	p->iters = perf_get_u64(msg + 16);
	p->duration_s = (int)perf_get_u64(msg + 24);
	p->tx_depth = (int)perf_get_u64(msg + 32);
	p->post_list = (int)perf_get_u64(msg + 40);
	p->cq_mod = (int)perf_get_u64(msg + 48);
	p->inline_size = (int)(int64_t)perf_get_u64(msg + 56);
	v = perf_get_u64(msg + 64);
	p->max_slots = v > PERF_MAX_SLOTS ? PERF_MAX_SLOTS : (unsigned int)v;
	if (p->verb == PERF_SEND && p->iters > 0 && (uint64_t)p->rx_depth > p->iters)
		p->rx_depth = p->iters;
	return 0;
}

static enum pv_perftest_test
perf_pt_test(const struct perf_params *p)
{
	if (p->kind == PERF_BW)
		return p->verb == PERF_WRITE ? PV_PERFTEST_WRITE_BW :
		       p->verb == PERF_READ ? PV_PERFTEST_READ_BW : PV_PERFTEST_SEND_BW;
	return p->verb == PERF_WRITE ? PV_PERFTEST_WRITE_LAT :
	       p->verb == PERF_READ ? PV_PERFTEST_READ_LAT : PV_PERFTEST_SEND_LAT;
}

/*
 * -R: the two zero handshakes around the test connection, which creates
 * the QP. The server still listens (perf_cm.c), so the client's REQ finds
 * the listener (perftest's own client retries a refused one).
 */
static int
perf_comm_cm_test_connect(struct perf_run *r, struct pv_perftest *pt)
{
	int ret;

	ret = pv_perftest_cm_sync(pt);
	if (ret == 0)
		ret = perf_cm_test_connect(r);
	if (ret == 0)
		ret = pv_perftest_cm_sync(pt);
	pt->local.qpn = r->local.qpn;
	return ret;
}

/*
 * perftest's peer gives one address, where its RDMA goes and where ours may
 * go (max(size, page size) bytes: perf_size_set() keeps our slots inside);
 * ours is our target half for WRITE and SEND, our source half for READ.
 */
static int
perf_comm_exchange_perftest(struct perf_run *r)
{
	struct pv_perftest *pt = &perf_pt;
	int ret;

	memset(pt, 0, sizeof(*pt));
	pt->fd = r->fd;
	if (r->p.rdma_cm) {
		pt->rdma_cm = 1;
		pt->msg_send = perf_cm_msg_send;
		pt->msg_recv = perf_cm_msg_recv;
		pt->msg_arg = r;
	}
	pt->role = r->is_server ? PV_PERFTEST_SERVER : PV_PERFTEST_CLIENT;
	pt->test = perf_pt_test(&r->p);
	pt->use_gid = 1;
	pt->timeout_ms = -1;
	pt->progress = perf_progress;
	pt->progress_arg = r;
	pt->local.lid = r->local.lid;
	pt->local.out_reads = r->local.out_reads;
	pt->local.qpn = r->local.qpn;
	pt->local.psn = r->local.psn;
	pt->local.rkey = r->local.rkey;
	pt->local.vaddr = r->local.addr + (r->p.verb == PERF_READ ? 0 : r->half);
	memcpy(pt->local.gid, r->local.gid.raw, sizeof(pt->local.gid));
	ret = pv_perftest_begin(pt, r->mtu);
	if (ret == 0 && pt->rdma_cm)
		ret = perf_comm_cm_test_connect(r, pt);
	if (ret == 0)
		ret = pv_perftest_exchange_dest(pt);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: perftest exchange: %s\n", strerror(-ret));
		return ret;
	}
	r->remote.qpn = pt->remote.qpn;
	r->remote.psn = pt->remote.psn;
	r->remote.rkey = pt->remote.rkey;
	r->remote.lid = pt->remote.lid;
	r->remote.out_reads = pt->remote.out_reads > 255 ? 255 : pt->remote.out_reads;
	r->remote.mtu = (uint8_t)pt->mtu;
	r->remote.addr = pt->remote.vaddr;
	r->remote.len = 0;	/* perf_remote_slot(): slots start at vaddr */
	memcpy(r->remote.gid.raw, pt->remote.gid, sizeof(pt->remote.gid));
	return 0;
}

/* perftest reports bandwidth in MiB/s unless told --report_gbits */
static double
perf_pt_bw_out(const struct perf_run *r, double v)
{
	return r->p.report_gbits ? v * 125000000.0 / 1048576.0 : v;
}

static double
perf_pt_bw_in(const struct perf_run *r, double v)
{
	return r->p.report_gbits ? v * 1048576.0 / 125000000.0 : v;
}

static int
perf_comm_finish_perftest(struct perf_run *r, const struct perf_result *mine,
			  struct perf_result *theirs, pv_cm_progress_fn fn, void *arg)
{
	struct pv_perftest_bw_report out = { 0 }, in = { 0 };
	int ret;

	if (perf_pt_finished)
		return 0;
	if (mine != NULL && mine->kind == PERF_BW) {
		out.size = mine->size;
		out.iters = mine->iters;
		out.bw_peak = perf_pt_bw_out(r, mine->v[0]);
		out.bw_avg = perf_pt_bw_out(r, mine->v[1]);
		out.msg_rate = mine->v[2];
	}
	perf_pt.progress = fn;
	perf_pt.progress_arg = arg;
	ret = pv_perftest_finish(&perf_pt, &out, &in);
	perf_pt_finished = 1;
	if (ret < 0) {
		fprintf(stderr, "pv-perf: perftest end of test: %s\n", strerror(-ret));
		return ret;
	}
	if (theirs != NULL) {
		memset(theirs, 0, sizeof(*theirs));
		theirs->kind = r->p.kind;
		theirs->size = r->size;
		/* a SEND server gets no report: the peer ran our -n */
		theirs->iters = in.iters != 0 ? in.iters : r->p.iters;
		theirs->v[0] = perf_pt_bw_in(r, in.bw_peak);
		theirs->v[1] = perf_pt_bw_in(r, in.bw_avg);
		theirs->v[2] = in.msg_rate;
	}
	return 0;
}

/* The one function to replace for perftest 4.5's exchange (KEY_PRINT_FMT). */
int
perf_comm_exchange(struct perf_run *r)
{
	struct pv_cm_conn_info in, out = {
		.qpn = r->local.qpn,
		.psn = r->local.psn,
		.rkey = r->local.rkey,
		.lid = r->local.lid,
		.out_reads = r->local.out_reads,
		.mtu = r->local.mtu,
		.addr = r->local.addr,
		.len = r->local.len,
	};
	uint8_t msg[PV_CM_CONN_MSG_LEN];
	int ret;

	if (r->p.perftest)
		return perf_comm_exchange_perftest(r);
	memcpy(out.gid, r->local.gid.raw, sizeof(out.gid));
	ret = pv_cm_conn_encode(&out, msg);
	if (ret == 0)
		ret = pv_cm_oob_send(r->fd, msg, sizeof(msg));
	if (ret == 0)
		ret = pv_cm_oob_recv(r->fd, msg, sizeof(msg));
	if (ret == 0)
		ret = pv_cm_conn_decode(msg, &in);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: address exchange: %s\n", strerror(-ret));
		return ret;
	}
	r->remote.qpn = in.qpn;
	r->remote.psn = in.psn;
	r->remote.rkey = in.rkey;
	r->remote.lid = in.lid;
	r->remote.out_reads = in.out_reads;
	r->remote.mtu = in.mtu;
	r->remote.addr = in.addr;
	r->remote.len = in.len;
	memcpy(r->remote.gid.raw, in.gid, sizeof(in.gid));
	return 0;
}

int
perf_comm_sync(struct perf_run *r)
{
	int ret;

	if (r->p.perftest) {
		if (perf_pt_ready)
			return 0;
		perf_pt_ready = 1;
		ret = pv_perftest_ready(&perf_pt);
		if (ret < 0)
			fprintf(stderr, "pv-perf: perftest start: %s\n", strerror(-ret));
		return ret;
	}
	ret = pv_cm_oob_barrier(r->fd, perf_progress, r, -1);

	if (ret < 0)
		fprintf(stderr, "pv-perf: sync with the peer: %s\n", strerror(-ret));
	return ret;
}

/*
 * The last perf_comm_sync() progresses the device while it waits, so the
 * side that leaves it first would stop its port under the other's last
 * progress calls: a net_memif peer's disconnect unmaps the rings that a
 * poll of this side may be reading (DPDK 22.11 handles it on EAL's
 * interrupt thread, unsynchronised with the data path). This barrier does
 * not progress: when it returns, the peer polls its port no more.
 */
int
perf_comm_quiesce(struct perf_run *r)
{
	int ret;

	if (r->p.perftest)
		return 0;	/* perftest's conversation has no such step */
	ret = pv_cm_oob_barrier(r->fd, NULL, NULL, PERF_OOB_TIMEOUT_MS);
	if (ret < 0)
		fprintf(stderr, "pv-perf: final barrier with the peer: %s\n", strerror(-ret));
	return ret;
}

int
perf_comm_result_send(struct perf_run *r, const struct perf_result *res)
{
	uint8_t msg[PERF_RESULT_MSG_LEN];
	uint64_t bits;
	int i, ret;

	if (r->p.perftest)
		return perf_comm_finish_perftest(r, res, NULL, perf_progress, r);
	memset(msg, 0, sizeof(msg));
	perf_put_u64(msg, res->size);
	perf_put_u64(msg + 8, res->iters);
	for (i = 0; i < 7; i++) {
		memcpy(&bits, &res->v[i], sizeof(bits));	/* IEEE 754 binary64 */
		perf_put_u64(msg + 16 + 8 * i, bits);
	}
	msg[72] = res->kind;
	ret = pv_cm_oob_send(r->fd, msg, sizeof(msg));
	if (ret < 0)
		fprintf(stderr, "pv-perf: sending the result: %s\n", strerror(-ret));
	return ret;
}

int
perf_comm_result_recv(struct perf_run *r, struct perf_result *res)
{
	return perf_comm_result_recv_poll(r, res, perf_progress, r);
}

int
perf_comm_result_recv_poll(struct perf_run *r, struct perf_result *res, pv_cm_progress_fn fn,
			   void *arg)
{
	uint8_t msg[PERF_RESULT_MSG_LEN];
	uint64_t bits;
	int i, ret;

	if (r->p.perftest)
		return perf_comm_finish_perftest(r, NULL, res, fn, arg);
	ret = pv_cm_oob_recv_poll(r->fd, msg, sizeof(msg), fn, arg, -1);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: waiting for the client's result: %s\n", strerror(-ret));
		return ret;
	}
	res->size = perf_get_u64(msg);
	res->iters = perf_get_u64(msg + 8);
	for (i = 0; i < 7; i++) {
		bits = perf_get_u64(msg + 16 + 8 * i);
		memcpy(&res->v[i], &bits, sizeof(bits));
	}
	res->kind = msg[72];
	return 0;
}

/* Both sides say whether their checks passed; 0 only when both did. */
int
perf_comm_verdict(struct perf_run *r, int ok)
{
	uint8_t mine = ok ? 1 : 0, theirs = 0;
	int ret;

	ret = pv_cm_oob_send(r->fd, &mine, 1);
	if (ret == 0)
		ret = pv_cm_oob_recv_poll(r->fd, &theirs, 1, perf_progress, r, -1);
	if (ret < 0) {
		fprintf(stderr, "pv-perf: verify verdict exchange: %s\n", strerror(-ret));
		return ret;
	}
	if (!theirs)
		fprintf(stderr, "pv-perf: the peer's data check failed\n");
	return mine && theirs ? 0 : -EIO;
}
