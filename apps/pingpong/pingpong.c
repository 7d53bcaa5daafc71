/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-pingpong: rdma-core's ibv_rc_pingpong on the pollverbs API. Same
 * options, same TCP exchange (one "LID:QPN:PSN:GID" message each way, then
 * "done" from the client), same message sequence and output lines, so
 * either side can be the real ibv_rc_pingpong.
 *
 * --connection=UD is ibv_ud_pingpong (v44) instead: the same exchange, a UD
 * QP with Q_Key 0x11111111 and one address handle to the peer's GID; each
 * receive buffer holds the 40-byte GRH area before the -s payload bytes,
 * and -s defaults to 1024 and may not exceed the port's active MTU.
 *
 * Differences forced by a poll-mode driver (doc/guides/apps/pingpong.rst):
 * -e makes the channel's fd non-blocking and calls pv_progress() while
 * pv_get_cq_event() has nothing; after the last completion the process
 * keeps making progress for PP_LINGER_MS so that the peer's last send is
 * acknowledged before the QP goes away.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include <pv_cm.h>
#include <pv_rtc.h>
#include <pv_verbs.h>

#include "pv_app.h"

enum {
	PP_RECV_WRID = 1,
	PP_SEND_WRID = 2,
};

#define PP_LINGER_MS	100
#define PP_PORT_UP_S	10
#define PP_CONNECT_MS	10000
#define PP_GRH_LEN	40	/* before a UD payload in the receive buffer */
#define PP_UD_QKEY	0x11111111	/* ibv_ud_pingpong's */
#define PP_UD_SIZE	1024		/* ibv_ud_pingpong's default -s */

/* getopt values of the long options rc_pingpong does not have */
enum {
	PP_OPT_CONNECTION = 256,
};

struct pp_ctx {
	struct pv_context *context;
	struct pv_comp_channel *channel;
	struct pv_pd *pd;
	struct pv_mr *mr;
	struct pv_cq *cq;
	struct pv_qp *qp;
	struct pv_ah *ah;	/* UD: the peer */
	uint32_t rem_qpn;	/* UD: the peer's QPN, in each send WR */
	char *buf;		/* grh_len bytes, then size bytes of payload */
	int buf_from_rte;
	int grh_len;		/* UD: PP_GRH_LEN; RC: 0 */
	int size;
	int send_flags;
	int rx_depth;
	int pending;
	struct pv_port_attr portinfo;
};

static int pp_page_size;
static int pp_validate_buf;

/* as rc_pingpong's attributes, the local side of pp_connect_ctx() and INIT */
static void
pp_qp_opts(struct pv_app_qp_opts *o, int port, int my_psn, enum pv_mtu mtu, int sl,
	   int sgid_idx)
{
	pv_app_qp_opts_init(o);
	o->name = "pv-pingpong";
	o->port_num = port;
	o->mtu = mtu;
	o->sl = sl;
	o->sgid_index = sgid_idx;
	o->hop_limit = 1;
	o->sq_psn = my_psn;
	o->qkey = PP_UD_QKEY;
}

/* as the pingpong examples: a GRH when the peer sent a GID (interface id set) */
static int
pp_dest_has_gid(const struct pv_cm_pp_dest *dest)
{
	uint64_t iid;

	memcpy(&iid, dest->gid + 8, sizeof(iid));
	return iid != 0;
}

static void
pp_no_gid_hint(void)
{
	fprintf(stderr, "(RoCE needs a GID on both sides: "
		"-g <index of an IPv4-mapped GID>, 1 on softroce)\n");
}

/* as ud_pingpong: RTR and RTS without a peer, then an AH to the peer */
static int
pp_connect_ud(struct pp_ctx *ctx, const struct pv_app_qp_opts *o,
	      const struct pv_cm_pp_dest *dest, int sgid_idx)
{
	struct pv_ah_attr ah_attr = {
		.dlid = dest->lid,
		.sl = o->sl,
		.port_num = o->port_num,
	};

	if (pv_app_qp_modify(ctx->qp, PV_QPS_RTR, o, NULL) != 0 ||
	    pv_app_qp_modify(ctx->qp, PV_QPS_RTS, o, NULL) != 0)
		return 1;
	if (pp_dest_has_gid(dest)) {
		ah_attr.is_global = 1;
		ah_attr.grh.hop_limit = 1;
		memcpy(ah_attr.grh.dgid.raw, dest->gid, 16);
		ah_attr.grh.sgid_index = sgid_idx;
	}
	ctx->ah = pv_create_ah(ctx->pd, &ah_attr);
	if (ctx->ah == NULL) {
		fprintf(stderr, "Failed to create AH: %s\n", strerror(errno));
		if (!ah_attr.is_global || sgid_idx < 0)
			pp_no_gid_hint();
		return 1;
	}
	ctx->rem_qpn = dest->qpn;
	return 0;
}

static int
pp_connect_ctx(struct pp_ctx *ctx, int port, int my_psn, enum pv_mtu mtu, int sl,
	       const struct pv_cm_pp_dest *dest, int sgid_idx)
{
	struct pv_app_qp_peer peer = { .qpn = dest->qpn, .psn = dest->psn, .lid = dest->lid };
	struct pv_app_qp_opts o;

	pp_qp_opts(&o, port, my_psn, mtu, sl, sgid_idx);
	if (ctx->qp->qp_type == PV_QPT_UD)
		return pp_connect_ud(ctx, &o, dest, sgid_idx);
	if (pp_dest_has_gid(dest))
		memcpy(peer.gid.raw, dest->gid, 16);
	if (pv_app_qp_modify(ctx->qp, PV_QPS_RTR, &o, &peer) != 0) {
		if (!pp_dest_has_gid(dest))
			pp_no_gid_hint();
		return 1;
	}
	if (pv_app_qp_modify(ctx->qp, PV_QPS_RTS, &o, &peer) != 0)
		return 1;
	return 0;
}

/*
 * Waiting for the peer's TCP message must keep softroce running: the peer
 * (rxe) moves its QP to RTR meanwhile, which ARPs for our address, and only
 * pv_progress() answers ARP.
 */
static int
pp_progress(void *arg)
{
	return pv_progress(arg);
}

static int
pp_client_exch_dest(struct pv_context *context, const char *servername, int port,
		    const struct pv_cm_pp_dest *my_dest, struct pv_cm_pp_dest *rem_dest)
{
	char msg[PV_CM_PP_MSG_LEN];
	int fd, ret;

	/* rc_pingpong tries once; the server here only listens once its port
	 * is up, which may be a moment after ours: retry for a while */
	fd = pv_cm_oob_connect(servername, port, PP_CONNECT_MS);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%d\n", servername, port);
		return 1;
	}
	ret = pv_cm_pp_encode(my_dest, msg);
	if (ret == 0)
		ret = pv_cm_oob_send(fd, msg, sizeof(msg));
	if (ret < 0) {
		fprintf(stderr, "Couldn't send local address\n");
		close(fd);
		return 1;
	}
	ret = pv_cm_oob_recv_poll(fd, msg, sizeof(msg), pp_progress, context, -1);
	if (ret == 0)
		ret = pv_cm_oob_send(fd, "done", PV_CM_PP_DONE_LEN);
	if (ret < 0) {
		fprintf(stderr, "client read/write: %s\n", strerror(-ret));
		fprintf(stderr, "Couldn't read/write remote address\n");
		close(fd);
		return 1;
	}
	close(fd);
	if (pv_cm_pp_decode(msg, sizeof(msg), rem_dest) < 0) {
		fprintf(stderr, "Couldn't parse remote address '%.*s'\n", (int)sizeof(msg), msg);
		return 1;
	}
	return 0;
}

static int
pp_server_exch_dest(struct pp_ctx *ctx, int ib_port, enum pv_mtu mtu, int port, int sl,
		    const struct pv_cm_pp_dest *my_dest, int sgid_idx,
		    struct pv_cm_pp_dest *rem_dest)
{
	char msg[PV_CM_PP_MSG_LEN];
	int fd, ret;

	fd = pv_cm_oob_accept(port, -1);
	if (fd < 0) {
		fprintf(stderr, "Couldn't listen to port %d\n", port);
		return 1;
	}
	ret = pv_cm_oob_recv(fd, msg, sizeof(msg));
	if (ret < 0) {
		fprintf(stderr, "server read: %s\n", strerror(-ret));
		fprintf(stderr, "Couldn't read remote address\n");
		goto err;
	}
	if (pv_cm_pp_decode(msg, sizeof(msg), rem_dest) < 0) {
		fprintf(stderr, "Couldn't parse remote address '%.*s'\n", (int)sizeof(msg), msg);
		goto err;
	}
	/* as rc_pingpong: the server's QP is ready before the client learns of it */
	if (pp_connect_ctx(ctx, ib_port, my_dest->psn, mtu, sl, rem_dest, sgid_idx)) {
		fprintf(stderr, "Couldn't connect to remote QP\n");
		goto err;
	}
	ret = pv_cm_pp_encode(my_dest, msg);
	if (ret == 0)
		ret = pv_cm_oob_send(fd, msg, sizeof(msg));
	if (ret == 0)
		ret = pv_cm_oob_recv_poll(fd, msg, PV_CM_PP_DONE_LEN, pp_progress, ctx->context, -1);
	if (ret < 0) {
		fprintf(stderr, "Couldn't send/recv local address\n");
		goto err;
	}
	close(fd);
	return 0;
err:
	close(fd);
	return 1;
}

/* as ud_pingpong: a UD message is one packet, its payload at most the port's MTU */
static int
pp_ud_size_check(struct pv_context *context, int port, int size)
{
	struct pv_port_attr pa;
	int mtu;

	if (pv_query_port(context, port, &pa)) {
		fprintf(stderr, "Unable to query port info for port %d\n", port);
		return 1;
	}
	mtu = 1 << (pa.active_mtu + 7);
	if (size > mtu) {
		fprintf(stderr, "Requested size larger than port MTU (%d)\n", mtu);
		return 1;
	}
	return 0;
}

static struct pp_ctx *
pp_init_ctx(struct pv_device *ib_dev, enum pv_qp_type qp_type, int size, int rx_depth,
	    int port, int use_event)
{
	struct pv_qp_init_attr init_attr;
	struct pv_app_qp_opts qo;
	struct pv_qp_attr attr;
	struct pp_ctx *ctx;
	int buf_len;

	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	ctx->size = size;
	ctx->grh_len = qp_type == PV_QPT_UD ? PP_GRH_LEN : 0;
	buf_len = ctx->grh_len + size;
	ctx->send_flags = PV_SEND_SIGNALED;
	ctx->rx_depth = rx_depth;

	ctx->context = pv_open_device(ib_dev);
	if (ctx->context == NULL) {
		fprintf(stderr, "Couldn't get context for %s\n", pv_get_device_name(ib_dev));
		goto clean_ctx;
	}
	if (qp_type == PV_QPT_UD && pp_ud_size_check(ctx->context, port, size))
		goto clean_device;
	if (use_event) {
		ctx->channel = pv_create_comp_channel(ctx->context);
		if (ctx->channel == NULL) {
			fprintf(stderr, "Couldn't create completion channel\n");
			goto clean_device;
		}
		/* poll mode: nothing completes while we sleep in read(), so the
		 * wait loop polls the fd and calls pv_progress() in between */
		if (fcntl(ctx->channel->fd, F_SETFL,
			  fcntl(ctx->channel->fd, F_GETFL) | O_NONBLOCK) < 0) {
			fprintf(stderr, "Couldn't make the completion channel non-blocking\n");
			goto clean_comp_channel;
		}
	}
	ctx->pd = pv_alloc_pd(ctx->context);
	if (ctx->pd == NULL) {
		fprintf(stderr, "Couldn't allocate PD\n");
		goto clean_comp_channel;
	}
	ctx->buf = rte_malloc("pv-pingpong", buf_len, pp_page_size);
	ctx->buf_from_rte = ctx->buf != NULL;
	if (ctx->buf == NULL)
		ctx->buf = aligned_alloc(pp_page_size,
					 (buf_len + pp_page_size - 1) / pp_page_size * pp_page_size);
	if (ctx->buf == NULL) {
		fprintf(stderr, "Couldn't allocate work buf.\n");
		goto clean_pd;
	}
	memset(ctx->buf, 0x7b, buf_len);
	ctx->mr = pv_reg_mr(ctx->pd, ctx->buf, buf_len, PV_ACCESS_LOCAL_WRITE);
	if (ctx->mr == NULL) {
		fprintf(stderr, "Couldn't register MR\n");
		goto clean_buffer;
	}
	ctx->cq = pv_create_cq(ctx->context, rx_depth + 1, NULL, ctx->channel, 0);
	if (ctx->cq == NULL) {
		fprintf(stderr, "Couldn't create CQ\n");
		goto clean_mr;
	}
	memset(&init_attr, 0, sizeof(init_attr));
	init_attr.send_cq = ctx->cq;
	init_attr.recv_cq = ctx->cq;
	init_attr.cap.max_send_wr = 1;
	init_attr.cap.max_recv_wr = rx_depth;
	init_attr.cap.max_send_sge = 1;
	init_attr.cap.max_recv_sge = 1;
	init_attr.qp_type = qp_type;
	ctx->qp = pv_create_qp(ctx->pd, &init_attr);
	if (ctx->qp == NULL) {
		fprintf(stderr, "Couldn't create QP\n");
		goto clean_cq;
	}
	pv_query_qp(ctx->qp, &attr, PV_QP_CAP, &init_attr);
	if (init_attr.cap.max_inline_data >= (uint32_t)size)
		ctx->send_flags |= PV_SEND_INLINE;

	pp_qp_opts(&qo, port, 0, PV_MTU_1024, 0, 0);
	if (pv_app_qp_modify(ctx->qp, PV_QPS_INIT, &qo, NULL) != 0)
		goto clean_qp;
	return ctx;

clean_qp:
	pv_destroy_qp(ctx->qp);
clean_cq:
	pv_destroy_cq(ctx->cq);
clean_mr:
	pv_dereg_mr(ctx->mr);
clean_buffer:
	if (ctx->buf_from_rte)
		rte_free(ctx->buf);
	else
		free(ctx->buf);
clean_pd:
	pv_dealloc_pd(ctx->pd);
clean_comp_channel:
	if (ctx->channel != NULL)
		pv_destroy_comp_channel(ctx->channel);
clean_device:
	pv_close_device(ctx->context);
clean_ctx:
	free(ctx);
	return NULL;
}

static int
pp_close_ctx(struct pp_ctx *ctx)
{
	if (pv_destroy_qp(ctx->qp)) {
		fprintf(stderr, "Couldn't destroy QP\n");
		return 1;
	}
	if (pv_destroy_cq(ctx->cq)) {
		fprintf(stderr, "Couldn't destroy CQ\n");
		return 1;
	}
	if (pv_dereg_mr(ctx->mr)) {
		fprintf(stderr, "Couldn't deregister MR\n");
		return 1;
	}
	if (ctx->ah != NULL && pv_destroy_ah(ctx->ah)) {
		fprintf(stderr, "Couldn't destroy AH\n");
		return 1;
	}
	if (ctx->buf_from_rte)
		rte_free(ctx->buf);
	else
		free(ctx->buf);
	if (pv_dealloc_pd(ctx->pd)) {
		fprintf(stderr, "Couldn't deallocate PD\n");
		return 1;
	}
	if (ctx->channel != NULL && pv_destroy_comp_channel(ctx->channel)) {
		fprintf(stderr, "Couldn't destroy completion channel\n");
		return 1;
	}
	if (pv_close_device(ctx->context)) {
		fprintf(stderr, "Couldn't release context\n");
		return 1;
	}
	free(ctx);
	return 0;
}

static int
pp_post_recv(struct pp_ctx *ctx, int n)
{
	struct pv_sge list = {
		.addr = (uintptr_t)ctx->buf,
		.length = ctx->grh_len + ctx->size,
		.lkey = ctx->mr->lkey,
	};
	struct pv_recv_wr wr = {
		.wr_id = PP_RECV_WRID,
		.sg_list = &list,
		.num_sge = 1,
	};
	struct pv_recv_wr *bad_wr;
	int i;

	for (i = 0; i < n; ++i)
		if (pv_post_recv(ctx->qp, &wr, &bad_wr))
			break;
	return i;
}

static int
pp_post_send(struct pp_ctx *ctx)
{
	struct pv_sge list = {
		.addr = (uintptr_t)ctx->buf + ctx->grh_len,
		.length = ctx->size,
		.lkey = ctx->mr->lkey,
	};
	struct pv_send_wr wr = {
		.wr_id = PP_SEND_WRID,
		.sg_list = &list,
		.num_sge = 1,
		.opcode = PV_WR_SEND,
		.send_flags = ctx->send_flags,
	};
	struct pv_send_wr *bad_wr;

	if (ctx->ah != NULL) {
		wr.wr.ud.ah = ctx->ah;
		wr.wr.ud.remote_qpn = ctx->rem_qpn;
		wr.wr.ud.remote_qkey = PP_UD_QKEY;
	}
	return pv_post_send(ctx->qp, &wr, &bad_wr);
}

static int
pp_parse_single_wc(struct pp_ctx *ctx, int *scnt, int *rcnt, int *routs, int iters,
		   const struct pv_wc *wc)
{
	if (wc->status != PV_WC_SUCCESS) {
		fprintf(stderr, "Failed status %s (%d) for wr_id %d\n",
			pv_wc_status_str(wc->status), wc->status, (int)wc->wr_id);
		return 1;
	}
	switch ((int)wc->wr_id) {
	case PP_SEND_WRID:
		++(*scnt);
		break;
	case PP_RECV_WRID:
		/* -c on UD: every message is whole, behind a GRH */
		if (pp_validate_buf && ctx->grh_len != 0 &&
		    (wc->byte_len != (uint32_t)(ctx->grh_len + ctx->size) ||
		     !(wc->wc_flags & PV_WC_GRH))) {
			fprintf(stderr, "Received %u bytes%s, expected %d with a GRH\n",
				wc->byte_len, wc->wc_flags & PV_WC_GRH ? "" : " without a GRH",
				ctx->grh_len + ctx->size);
			return 1;
		}
		if (--(*routs) <= 1) {
			*routs += pp_post_recv(ctx, ctx->rx_depth - *routs);
			if (*routs < ctx->rx_depth) {
				fprintf(stderr, "Couldn't post receive (%d)\n", *routs);
				return 1;
			}
		}
		++(*rcnt);
		break;
	default:
		fprintf(stderr, "Completion for unknown wr_id %d\n", (int)wc->wr_id);
		return 1;
	}
	ctx->pending &= ~(int)wc->wr_id;
	if (*scnt < iters && !ctx->pending) {
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending = PP_RECV_WRID | PP_SEND_WRID;
	}
	return 0;
}

/* pv_get_cq_event() on a non-blocking channel, making progress meanwhile. */
static int
pp_get_cq_event(struct pp_ctx *ctx, struct pv_cq **cq, void **cq_ctx)
{
	for (;;) {
		if (pv_get_cq_event(ctx->channel, cq, cq_ctx) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (pv_progress(ctx->context) < 0)
			return -1;
	}
}

/*
 * -c on UD: the GRH area of the last receive names the peer as its source.
 * On RoCEv2 it holds the IPv6 header (source address at byte 8), or 20
 * unused bytes and the IPv4 header (source address at byte 20 + 12).
 */
static void
pp_grh_check(const struct pp_ctx *ctx, const struct pv_cm_pp_dest *rem)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };
	char got[INET6_ADDRSTRLEN], want[INET6_ADDRSTRLEN];
	const uint8_t *grh = (const uint8_t *)ctx->buf;

	if (ctx->grh_len == 0 || !pp_dest_has_gid(rem))
		return;
	if (memcmp(rem->gid, v4_mapped, sizeof(v4_mapped)) == 0) {
		if (memcmp(grh + 32, rem->gid + 12, 4) == 0)
			return;
		inet_ntop(AF_INET, grh + 32, got, sizeof(got));
		inet_ntop(AF_INET, rem->gid + 12, want, sizeof(want));
	} else {
		if (memcmp(grh + 8, rem->gid, 16) == 0)
			return;
		inet_ntop(AF_INET6, grh + 8, got, sizeof(got));
		inet_ntop(AF_INET6, rem->gid, want, sizeof(want));
	}
	printf("invalid GRH: source %s, expected %s\n", got, want);
}

/* Keep acknowledging the peer's packets a little before tearing down. */
static void
pp_linger(struct pp_ctx *ctx)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * PP_LINGER_MS;

	while (rte_rdtsc() < end)
		pv_progress(ctx->context);
}

static void
usage(const char *argv0)
{
	printf("Usage:\n");
	printf("  %s            start a server and wait for connection\n", argv0);
	printf("  %s <host>     connect to server at <host>\n", argv0);
	printf("  %s [EAL and --pv-dev args] -- [options] [<host>]\n", argv0);
	printf("  (without \"--\", built-in EAL args: softroce over net_memif on this machine)\n");
	printf("\n");
	printf("Options:\n");
	printf("  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n");
	printf("  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n");
	printf("  -i, --ib-port=<port>   use port <port> of IB device (default 1)\n");
	printf("  -s, --size=<size>      size of message to exchange (default 4096)\n");
	printf("  -m, --mtu=<size>       path MTU (default 1024)\n");
	printf("  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n");
	printf("  -n, --iters=<iters>    number of exchanges (default 1000)\n");
	printf("  -l, --sl=<sl>          service level value\n");
	printf("  -e, --events           sleep on CQ events (default poll)\n");
	printf("  -g, --gid-idx=<gid index> local port gid index\n");
	printf("  -o, --odp\t\t    use on demand paging (not supported)\n");
	printf("  -O, --iodp\t\t    use implicit on demand paging (not supported)\n");
	printf("  -P, --prefetch\t    prefetch an ODP MR (not supported)\n");
	printf("  -t, --ts\t            get CQE with timestamp (not supported)\n");
	printf("  -c, --chk\t            validate received buffer\n");
	printf("  -j, --dm\t            use device memory (not supported)\n");
	printf("  -N, --new_send            use new post send WR API (not supported)\n");
	printf("      --connection=<RC|UD>  RC: ibv_rc_pingpong (default); UD: ibv_ud_pingpong\n");
	printf("                            (UD: -s 1024 by default, at most the MTU; no -m)\n");
}

static int
pp_port_wait(struct pp_ctx *ctx, int ib_port)
{
	uint64_t end = rte_rdtsc() + PP_PORT_UP_S * rte_get_tsc_hz();

	for (;;) {
		if (pv_query_port(ctx->context, ib_port, &ctx->portinfo)) {
			fprintf(stderr, "Couldn't get port info\n");
			return 1;
		}
		if (ctx->portinfo.state == PV_PORT_ACTIVE)
			return 0;
		if (rte_rdtsc() > end) {
			fprintf(stderr, "Port %d is %s, not active\n", ib_port,
				pv_port_state_str(ctx->portinfo.state));
			return 1;
		}
		pv_progress(ctx->context);
		usleep(1000);
	}
}

/* as rc_pingpong's, with pollverbs' own options appended */
static const struct option pp_long_options[] = {
	{ .name = "port", .has_arg = 1, .val = 'p' },
	{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
	{ .name = "ib-port", .has_arg = 1, .val = 'i' },
	{ .name = "size", .has_arg = 1, .val = 's' },
	{ .name = "mtu", .has_arg = 1, .val = 'm' },
	{ .name = "rx-depth", .has_arg = 1, .val = 'r' },
	{ .name = "iters", .has_arg = 1, .val = 'n' },
	{ .name = "sl", .has_arg = 1, .val = 'l' },
	{ .name = "events", .has_arg = 0, .val = 'e' },
	{ .name = "gid-idx", .has_arg = 1, .val = 'g' },
	{ .name = "odp", .has_arg = 0, .val = 'o' },
	{ .name = "iodp", .has_arg = 0, .val = 'O' },
	{ .name = "prefetch", .has_arg = 0, .val = 'P' },
	{ .name = "ts", .has_arg = 0, .val = 't' },
	{ .name = "chk", .has_arg = 0, .val = 'c' },
	{ .name = "dm", .has_arg = 0, .val = 'j' },
	{ .name = "new_send", .has_arg = 0, .val = 'N' },
	{ .name = "connection", .has_arg = 1, .val = PP_OPT_CONNECTION },
	{},
};

/* Whether option word @p a takes the next word as its value. */
static int
pp_opt_takes_next(const char *a)
{
	const struct option *o;

	if (a[1] == '\0')
		return 0;
	if (a[1] != '-')
		return a[2] == '\0' && strchr("pdismrnlg", a[1]) != NULL;
	if (strchr(a, '=') != NULL)
		return 0;
	for (o = pp_long_options; o->name != NULL; o++)
		if (strcmp(a + 2, o->name) == 0)
			return o->has_arg;
	return 0;
}

/* The server/client role and TCP port decide the built-in EAL args. */
static void
pp_peek_role(int argc, char **argv, int *server, unsigned int *port)
{
	int i;

	*server = 1;
	*port = 18515;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-') {
			*server = 0;
			continue;
		}
		if ((strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--port") == 0) &&
		    i + 1 < argc)
			*port = strtoul(argv[i + 1], NULL, 0);
		else if (strncmp(argv[i], "--port=", 7) == 0)
			*port = strtoul(argv[i] + 7, NULL, 0);
		if (pp_opt_takes_next(argv[i]))
			i++;
	}
}

int
main(int argc, char *argv[])
{
	struct pv_device **dev_list;
	struct pv_device *ib_dev;
	struct pp_ctx *ctx;
	struct pv_cm_pp_dest my_dest, rem_dest;
	struct timeval start, end;
	char *ib_devname = NULL;
	char *servername = NULL;
	unsigned int port = 18515;
	int ib_port = 1;
	unsigned int size = 4096;
	int size_set = 0;
	enum pv_qp_type qp_type = PV_QPT_RC;
	enum pv_mtu mtu = PV_MTU_1024;
	unsigned int rx_depth = 500;
	unsigned int iters = 1000;
	int use_event = 0;
	int routs;
	int rcnt, scnt;
	int num_cq_events = 0;
	int sl = 0;
	int gidx = -1;
	char gid[INET6_ADDRSTRLEN];
	int ret, server;

	srand48(getpid() * time(NULL));
	/* role and port pick the built-in EAL args (none after a "--") */
	pp_peek_role(argc, argv, &server, &port);
	if (pv_app_init(&argc, &argv, "pingpong", server, port) != 0)
		return 1;

	while (1) {
		int c;

		c = getopt_long(argc, argv, "p:d:i:s:m:r:n:l:eg:oOPtcjN", pp_long_options,
				 NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'p':
			port = strtoul(optarg, NULL, 0);
			if (port > 65535) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'd':
			ib_devname = optarg;
			break;
		case 'i':
			ib_port = strtol(optarg, NULL, 0);
			if (ib_port < 1) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			size_set = 1;
			break;
		case 'm':
			mtu = pv_app_mtu_from_bytes(strtol(optarg, NULL, 0));
			if (mtu == 0) {
				usage(argv[0]);
				return 1;
			}
			break;
		case 'r':
			rx_depth = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			iters = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			sl = strtol(optarg, NULL, 0);
			break;
		case 'e':
			++use_event;
			break;
		case 'g':
			gidx = strtol(optarg, NULL, 0);
			break;
		case 'o':
		case 'O':
		case 'P':
			fprintf(stderr, "On demand paging is not supported by pollverbs\n");
			return 1;
		case 't':
			fprintf(stderr, "Completion timestamps are not supported by pollverbs\n");
			return 1;
		case 'j':
			fprintf(stderr, "Device memory is not supported by pollverbs\n");
			return 1;
		case 'N':
			fprintf(stderr, "The new post send API (ibv_wr_*) is not supported by "
				"pollverbs\n");
			return 1;
		case 'c':
			pp_validate_buf = 1;
			break;
		case PP_OPT_CONNECTION:
			if (strcasecmp(optarg, "RC") == 0) {
				qp_type = PV_QPT_RC;
			} else if (strcasecmp(optarg, "UD") == 0) {
				qp_type = PV_QPT_UD;
			} else {
				fprintf(stderr, "--connection: RC or UD, not %s\n", optarg);
				return 1;
			}
			break;
		default:
			usage(argv[0]);
			return 1;
		}
	}
	if (optind == argc - 1)
		servername = argv[optind];
	else if (optind < argc) {
		usage(argv[0]);
		return 1;
	}
	if (qp_type == PV_QPT_UD && !size_set)
		size = PP_UD_SIZE;
	if (size == 0 || rx_depth == 0 || iters == 0) {
		usage(argv[0]);
		return 1;
	}

	pp_page_size = sysconf(_SC_PAGESIZE);

	dev_list = pv_get_device_list(NULL);
	if (dev_list == NULL) {
		perror("Failed to get IB devices list");
		return 1;
	}
	if (ib_devname == NULL) {
		ib_dev = *dev_list;
		if (ib_dev == NULL) {
			fprintf(stderr, "No IB devices found\n");
			return 1;
		}
	} else {
		int i;

		for (i = 0; dev_list[i] != NULL; ++i)
			if (!strcmp(pv_get_device_name(dev_list[i]), ib_devname))
				break;
		ib_dev = dev_list[i];
		if (ib_dev == NULL) {
			fprintf(stderr, "IB device %s not found\n", ib_devname);
			return 1;
		}
	}

	ctx = pp_init_ctx(ib_dev, qp_type, size, rx_depth, ib_port, use_event);
	if (ctx == NULL)
		return 1;

	routs = pp_post_recv(ctx, ctx->rx_depth);
	if (routs < ctx->rx_depth) {
		fprintf(stderr, "Couldn't post receive (%d)\n", routs);
		return 1;
	}
	if (use_event && pv_req_notify_cq(ctx->cq, 0)) {
		fprintf(stderr, "Couldn't request CQ notification\n");
		return 1;
	}
	if (pp_port_wait(ctx, ib_port))
		return 1;

	memset(&my_dest, 0, sizeof(my_dest));
	my_dest.lid = ctx->portinfo.lid;
	if (ctx->portinfo.link_layer != PV_LINK_LAYER_ETHERNET && !my_dest.lid) {
		fprintf(stderr, "Couldn't get local LID\n");
		return 1;
	}
	if (gidx >= 0) {
		union pv_gid g;

		if (pv_query_gid(ctx->context, ib_port, gidx, &g)) {
			fprintf(stderr, "can't read sgid of index %d\n", gidx);
			return 1;
		}
		memcpy(my_dest.gid, g.raw, 16);
	}
	my_dest.qpn = ctx->qp->qp_num;
	my_dest.psn = lrand48() & 0xffffff;
	inet_ntop(AF_INET6, my_dest.gid, gid, sizeof(gid));
	/* ud_pingpong prints a colon before its local GID */
	printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s\n",
	       my_dest.lid, my_dest.qpn, my_dest.psn, qp_type == PV_QPT_UD ? ":" : ",", gid);
	fflush(stdout);

	if (servername != NULL)
		ret = pp_client_exch_dest(ctx->context, servername, port, &my_dest, &rem_dest);
	else
		ret = pp_server_exch_dest(ctx, ib_port, mtu, port, sl, &my_dest, gidx, &rem_dest);
	if (ret)
		return 1;

	inet_ntop(AF_INET6, rem_dest.gid, gid, sizeof(gid));
	printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n",
	       rem_dest.lid, rem_dest.qpn, rem_dest.psn, gid);
	fflush(stdout);

	if (servername != NULL &&
	    pp_connect_ctx(ctx, ib_port, my_dest.psn, mtu, sl, &rem_dest, gidx))
		return 1;

	ctx->pending = PP_RECV_WRID;
	if (servername != NULL) {
		if (pp_validate_buf) {
			unsigned int i;

			/* rc_pingpong's pattern, byte for byte (i / page % sizeof(char)),
			 * behind the GRH area on UD as ud_pingpong's */
			for (i = 0; i < size; i += pp_page_size)
				ctx->buf[ctx->grh_len + i] = i / pp_page_size % sizeof(char);
		}
		if (pp_post_send(ctx)) {
			fprintf(stderr, "Couldn't post send\n");
			return 1;
		}
		ctx->pending |= PP_SEND_WRID;
	}

	if (gettimeofday(&start, NULL)) {
		perror("gettimeofday");
		return 1;
	}

	rcnt = scnt = 0;
	while (rcnt < (int)iters || scnt < (int)iters) {
		struct pv_wc wc[2];
		int ne, i;

		if (use_event) {
			struct pv_cq *ev_cq;
			void *ev_ctx;

			if (pp_get_cq_event(ctx, &ev_cq, &ev_ctx)) {
				fprintf(stderr, "Failed to get cq_event\n");
				return 1;
			}
			++num_cq_events;
			if (ev_cq != ctx->cq) {
				fprintf(stderr, "CQ event for unknown CQ %p\n", (void *)ev_cq);
				return 1;
			}
			if (pv_req_notify_cq(ctx->cq, 0)) {
				fprintf(stderr, "Couldn't request CQ notification\n");
				return 1;
			}
		}
		do {
			ne = pv_poll_cq(ctx->cq, 2, wc);
			if (ne < 0) {
				fprintf(stderr, "poll CQ failed %d\n", ne);
				return 1;
			}
		} while (!use_event && ne < 1);
		for (i = 0; i < ne; ++i) {
			if (pp_parse_single_wc(ctx, &scnt, &rcnt, &routs, iters, &wc[i])) {
				fprintf(stderr, "parse WC failed %d\n", ne);
				return 1;
			}
		}
	}

	if (gettimeofday(&end, NULL)) {
		perror("gettimeofday");
		return 1;
	}

	{
		float usec = (end.tv_sec - start.tv_sec) * 1000000 + (end.tv_usec - start.tv_usec);
		long long bytes = (long long)size * iters * 2;

		printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1000000.,
		       bytes * 8. / usec);
		printf("%d iters in %.2f seconds = %.2f usec/iter\n", iters, usec / 1000000.,
		       usec / iters);
		if (servername == NULL && pp_validate_buf) {
			unsigned int i;

			for (i = 0; i < size; i += pp_page_size)
				if (ctx->buf[ctx->grh_len + i] !=
				    (char)(i / pp_page_size % sizeof(char)))
					printf("invalid data in page %d\n", i / pp_page_size);
		}
		if (pp_validate_buf)
			pp_grh_check(ctx, &rem_dest);
	}
	fflush(stdout);

	pp_linger(ctx);
	pv_ack_cq_events(ctx->cq, num_cq_events);
	if (pp_close_ctx(ctx))
		return 1;
	pv_free_device_list(dev_list);
	pv_cleanup();
	return 0;
}
