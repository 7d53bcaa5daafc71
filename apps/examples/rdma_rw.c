/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-rdma-rw-server and pv-rdma-rw-client: the classic rdma_cm RDMA read /
 * write sample (rdma-server / rdma-client, "RDMA read and write with IB
 * verbs") on pv_rdma_cma.h. The server listens; the client resolves the
 * server's address and route and connects. Each side registers a 1 KiB
 * buffer and advertises it in a MSG_MR message (address, rkey, length,
 * big-endian); once it has sent its MSG_MR and received the peer's, it
 * RDMA WRITEs its message into the peer's buffer (write mode) or RDMA
 * READs the peer's message (read mode), then sends MSG_DONE. With both
 * MSG_DONEs through, each prints "remote buffer: <peer's message>" and
 * disconnects.
 *
 * Two threads per side, as the sample: the main thread takes CM events
 * (pv_rdma_get_cm_event()), a second one sleeps on the completion channel
 * of the connection's CQ and runs the exchange from its completions.
 *
 * The messages are fixed ("message from active/client side", "... passive/
 * server side"); the exit status is 0 only when the peer's message arrived
 * intact. The server serves one connection and exits.
 *
 * The role comes from -DRDMA_RW_SERVER / -DRDMA_RW_CLIENT, else from the
 * program's name ("server" in it: server). With -DUSE_LIBRDMACM the same
 * source builds against librdmacm (pv_rdma_compat.h).
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pv_rdma_compat.h"

#define RW_BUFFER_SIZE		1024
#define RW_RESOLVE_MS		2000
#define RW_CQ_WAKE_MS		100	/* how often the CQ thread looks at its stop flag */
#define RW_QUEUE_DEPTH		10
#define RW_ACTIVE_MSG		"message from active/client side"
#define RW_PASSIVE_MSG		"message from passive/server side"

enum rw_mode {
	RW_MODE_READ,
	RW_MODE_WRITE,
};

enum rw_msg_type {
	RW_MSG_MR = 1,
	RW_MSG_DONE = 2,
};

/* on the wire, big-endian; 24 bytes */
struct rw_msg {
	uint32_t type;		/* enum rw_msg_type */
	uint32_t rkey;
	uint64_t addr;
	uint32_t length;
	uint32_t reserved;
};

_Static_assert(sizeof(struct rw_msg) == 24, "rw_msg is 24 bytes on the wire");

enum rw_send_state {
	RW_SS_INIT,
	RW_SS_MR_SENT,
	RW_SS_RDMA_SENT,
	RW_SS_DONE_SENT,
};

enum rw_recv_state {
	RW_RS_INIT,
	RW_RS_MR_RECV,
	RW_RS_DONE_RECV,
};

struct rw_conn {
	struct pv_rdma_cm_id *id;
	struct pv_pd *pd;
	struct pv_comp_channel *channel;
	struct pv_cq *cq;
	pthread_t cq_thread;
	int cq_thread_started;
	int stop;			/* atomic: the CQ thread ends */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int connected;			/* under lock */

	struct pv_mr *recv_mr;
	struct pv_mr *send_mr;
	struct pv_mr *local_mr;		/* our side of our RDMA operation */
	struct pv_mr *remote_mr;	/* what we advertise to the peer */
	struct rw_msg recv_msg;
	struct rw_msg send_msg;
	char local_region[RW_BUFFER_SIZE];
	char remote_region[RW_BUFFER_SIZE];

	uint64_t peer_addr;
	uint32_t peer_rkey;
	uint32_t peer_len;

	enum rw_send_state send_state;	/* CQ thread only */
	enum rw_recv_state recv_state;	/* CQ thread only */
};

static enum rw_mode rw_mode;
static int rw_server;
static int rw_failed;			/* atomic */
static int rw_matched;			/* atomic: the peer's message arrived intact */

static void
rw_fail(const char *what)
{
	fprintf(stderr, "%s\n", what);
	__atomic_store_n(&rw_failed, 1, __ATOMIC_RELAXED);
}

/* our message: what the peer writes from (read mode) or we write (write mode) */
static char *
rw_local_message(struct rw_conn *c)
{
	return rw_mode == RW_MODE_WRITE ? c->local_region : c->remote_region;
}

/* where the peer's message ends up */
static char *
rw_peer_message(struct rw_conn *c)
{
	return rw_mode == RW_MODE_WRITE ? c->remote_region : c->local_region;
}

static int
rw_post_receive(struct rw_conn *c)
{
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)c;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	sge.addr = (uintptr_t)&c->recv_msg;
	sge.length = sizeof(c->recv_msg);
	sge.lkey = c->recv_mr->lkey;
	if (pv_post_recv(c->id->qp, &wr, &bad) != 0) {
		rw_fail("pv_post_recv failed");
		return -1;
	}
	return 0;
}

/* a signaled SEND, or RDMA READ / WRITE of the peer's advertised buffer */
static int
rw_post_send(struct rw_conn *c, enum pv_wr_opcode opcode, void *addr, uint32_t length,
	     uint32_t lkey)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)c;
	wr.opcode = opcode;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = c->peer_addr;	/* RDMA only */
	wr.wr.rdma.rkey = c->peer_rkey;
	sge.addr = (uintptr_t)addr;
	sge.length = length;
	sge.lkey = lkey;
	if (pv_post_send(c->id->qp, &wr, &bad) != 0) {
		rw_fail("pv_post_send failed");
		return -1;
	}
	return 0;
}

/* SEND c->send_msg once the connection is established (the CQ thread may
 * see the peer's MSG_MR before the CM thread sees ESTABLISHED) */
static int
rw_send_message(struct rw_conn *c)
{
	pthread_mutex_lock(&c->lock);
	while (!c->connected)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	return rw_post_send(c, PV_WR_SEND, &c->send_msg, sizeof(c->send_msg),
			    c->send_mr->lkey);
}

static int
rw_send_mr(struct rw_conn *c)
{
	memset(&c->send_msg, 0, sizeof(c->send_msg));
	c->send_msg.type = htobe32(RW_MSG_MR);
	c->send_msg.addr = htobe64((uintptr_t)c->remote_region);
	c->send_msg.rkey = htobe32(c->remote_mr->rkey);
	c->send_msg.length = htobe32(RW_BUFFER_SIZE);
	return rw_send_message(c);
}

static int
rw_post_rdma(struct rw_conn *c)
{
	uint32_t len = c->peer_len < RW_BUFFER_SIZE ? c->peer_len : RW_BUFFER_SIZE;

	if (rw_mode == RW_MODE_WRITE)
		printf("received MSG_MR. writing message to remote memory...\n");
	else
		printf("received MSG_MR. reading message from remote memory...\n");
	if (rw_post_send(c, rw_mode == RW_MODE_WRITE ? PV_WR_RDMA_WRITE : PV_WR_RDMA_READ,
			 c->local_region, len, c->local_mr->lkey) != 0)
		return -1;
	/* requests start in order: the peer sees MSG_DONE after our RDMA */
	memset(&c->send_msg, 0, sizeof(c->send_msg));
	c->send_msg.type = htobe32(RW_MSG_DONE);
	return rw_send_message(c);
}

static void
rw_check_peer_message(struct rw_conn *c)
{
	const char *want = rw_server ? RW_ACTIVE_MSG : RW_PASSIVE_MSG;
	char *got = rw_peer_message(c);

	got[RW_BUFFER_SIZE - 1] = '\0';
	printf("remote buffer: %s\n", got);
	if (strcmp(got, want) == 0)
		__atomic_store_n(&rw_matched, 1, __ATOMIC_RELAXED);
	else
		fprintf(stderr, "remote buffer differs: expected \"%s\"\n", want);
}

static void
rw_on_completion(struct rw_conn *c, const struct pv_wc *wc)
{
	if (wc->status == PV_WC_WR_FLUSH_ERR)
		return;		/* a receive still posted when the QP went down */
	if (wc->status != PV_WC_SUCCESS) {
		fprintf(stderr, "on_completion: status is not success: %s\n",
			pv_wc_status_str(wc->status));
		__atomic_store_n(&rw_failed, 1, __ATOMIC_RELAXED);
		pv_rdma_disconnect(c->id);
		return;
	}

	if (wc->opcode & PV_WC_RECV) {
		c->recv_state++;
		if (be32toh(c->recv_msg.type) == RW_MSG_MR) {
			c->peer_addr = be64toh(c->recv_msg.addr);
			c->peer_rkey = be32toh(c->recv_msg.rkey);
			c->peer_len = be32toh(c->recv_msg.length);
			/* only MSG_MR rearms: MSG_DONE is the last message */
			if (rw_post_receive(c) != 0)
				return;
			/* the peer's MR before ours: the server answers with its own */
			if (c->send_state == RW_SS_INIT && rw_send_mr(c) != 0)
				return;
		}
	} else {
		c->send_state++;
		printf("send completed successfully.\n");
	}

	if (c->send_state == RW_SS_MR_SENT && c->recv_state == RW_RS_MR_RECV) {
		rw_post_rdma(c);
	} else if (c->send_state == RW_SS_DONE_SENT && c->recv_state == RW_RS_DONE_RECV) {
		rw_check_peer_message(c);
		pv_rdma_disconnect(c->id);
	}
}

/* the completion thread: sleep on the channel, re-arm, drain the CQ */
static void *
rw_cq_thread(void *arg)
{
	struct rw_conn *c = arg;
	struct pollfd pfd = { .fd = c->channel->fd, .events = POLLIN };
	struct pv_cq *cq;
	struct pv_wc wc;
	void *ctx;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, RW_CQ_WAKE_MS) <= 0)
			continue;
		if (pv_get_cq_event(c->channel, &cq, &ctx) != 0) {
			rw_fail("pv_get_cq_event failed");
			break;
		}
		pv_ack_cq_events(cq, 1);
		if (pv_req_notify_cq(cq, 0) != 0) {
			rw_fail("pv_req_notify_cq failed");
			break;
		}
		while (pv_poll_cq(c->cq, 1, &wc) == 1)
			rw_on_completion(c, &wc);
	}
	/* the connection is down: what completed before it went is still
	 * ours (the peer's DREQ may be seen before our last completions) */
	while (pv_poll_cq(c->cq, 1, &wc) == 1)
		rw_on_completion(c, &wc);
	return NULL;
}

static void
rw_conn_destroy(struct rw_conn *c)
{
	if (c->cq_thread_started) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->cq_thread, NULL);
	}
	if (c->id->qp != NULL)
		pv_rdma_destroy_qp(c->id);
	if (c->remote_mr != NULL)
		pv_dereg_mr(c->remote_mr);
	if (c->local_mr != NULL)
		pv_dereg_mr(c->local_mr);
	if (c->send_mr != NULL)
		pv_dereg_mr(c->send_mr);
	if (c->recv_mr != NULL)
		pv_dereg_mr(c->recv_mr);
	if (c->cq != NULL)
		pv_destroy_cq(c->cq);
	if (c->channel != NULL)
		pv_destroy_comp_channel(c->channel);
	if (c->pd != NULL)
		pv_dealloc_pd(c->pd);
	pv_rdma_destroy_id(c->id);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int
rw_register_memory(struct rw_conn *c)
{
	int local_access = rw_mode == RW_MODE_WRITE ? 0 : PV_ACCESS_LOCAL_WRITE;
	int remote_access = rw_mode == RW_MODE_WRITE ?
		PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE : PV_ACCESS_REMOTE_READ;

	c->send_mr = pv_reg_mr(c->pd, &c->send_msg, sizeof(c->send_msg), 0);
	c->recv_mr = pv_reg_mr(c->pd, &c->recv_msg, sizeof(c->recv_msg), PV_ACCESS_LOCAL_WRITE);
	c->local_mr = pv_reg_mr(c->pd, c->local_region, RW_BUFFER_SIZE, local_access);
	c->remote_mr = pv_reg_mr(c->pd, c->remote_region, RW_BUFFER_SIZE, remote_access);
	if (c->send_mr == NULL || c->recv_mr == NULL || c->local_mr == NULL ||
	    c->remote_mr == NULL) {
		perror("pv_reg_mr");
		return -1;
	}
	return 0;
}

/* PD, completion channel and CQ with its thread, QP, memory, first receive */
static struct rw_conn *
rw_conn_build(struct pv_rdma_cm_id *id)
{
	struct pv_qp_init_attr qp_attr;
	struct rw_conn *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		perror("calloc");
		return NULL;
	}
	c->id = id;
	id->context = c;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	snprintf(rw_local_message(c), RW_BUFFER_SIZE, "%s",
		 rw_server ? RW_PASSIVE_MSG : RW_ACTIVE_MSG);

	c->pd = pv_alloc_pd(id->verbs);
	c->channel = c->pd != NULL ? pv_create_comp_channel(id->verbs) : NULL;
	c->cq = c->channel != NULL ?
		pv_create_cq(id->verbs, RW_QUEUE_DEPTH, NULL, c->channel, 0) : NULL;
	if (c->cq == NULL || pv_req_notify_cq(c->cq, 0) != 0) {
		perror("PD, completion channel or CQ");
		goto err;
	}
	if (pthread_create(&c->cq_thread, NULL, rw_cq_thread, c) != 0) {
		perror("pthread_create");
		goto err;
	}
	c->cq_thread_started = 1;

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.send_cq = c->cq;
	qp_attr.recv_cq = c->cq;
	qp_attr.qp_type = PV_QPT_RC;
	qp_attr.cap.max_send_wr = RW_QUEUE_DEPTH;
	qp_attr.cap.max_recv_wr = RW_QUEUE_DEPTH;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 1;
	if (pv_rdma_create_qp(id, c->pd, &qp_attr) != 0) {
		perror("pv_rdma_create_qp");
		goto err;
	}
	if (rw_register_memory(c) != 0 || rw_post_receive(c) != 0)
		goto err;
	return c;
err:
	rw_conn_destroy(c);
	return NULL;
}

/* one RDMA READ may be outstanding each way; the HCA retries RNR forever */
static void
rw_conn_params(struct pv_rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->initiator_depth = 1;
	p->responder_resources = 1;
	p->rnr_retry_count = 7;
}

static void
rw_on_connect(struct rw_conn *c)
{
	pthread_mutex_lock(&c->lock);
	c->connected = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* one CM event of either side: 1 done with the event loop, 0 go on, -1 failed */
static int
rw_on_event(struct pv_rdma_cm_event *ev)
{
	struct pv_rdma_conn_param params;

	switch (ev->event) {
	case PV_RDMA_CM_EVENT_CONNECT_REQUEST:		/* server */
		printf("received connection request.\n");
		if (rw_conn_build(ev->id) == NULL)
			return -1;
		rw_conn_params(&params);
		if (pv_rdma_accept(ev->id, &params) != 0) {
			perror("pv_rdma_accept");
			return -1;
		}
		return 0;
	case PV_RDMA_CM_EVENT_ADDR_RESOLVED:		/* client */
		printf("address resolved.\n");
		if (rw_conn_build(ev->id) == NULL)
			return -1;
		if (pv_rdma_resolve_route(ev->id, RW_RESOLVE_MS) != 0) {
			perror("pv_rdma_resolve_route");
			return -1;
		}
		return 0;
	case PV_RDMA_CM_EVENT_ROUTE_RESOLVED:		/* client */
		printf("route resolved.\n");
		rw_conn_params(&params);
		if (pv_rdma_connect(ev->id, &params) != 0) {
			perror("pv_rdma_connect");
			return -1;
		}
		return 0;
	case PV_RDMA_CM_EVENT_ESTABLISHED:
		rw_on_connect(ev->id->context);
		/* the client speaks first */
		if (!rw_server && rw_send_mr(ev->id->context) != 0)
			return -1;
		return 0;
	case PV_RDMA_CM_EVENT_DISCONNECTED:
		printf(rw_server ? "peer disconnected.\n" : "disconnected.\n");
		rw_conn_destroy(ev->id->context);
		return 1;
	default:
		fprintf(stderr, "on_event: unexpected %s (status %d)\n",
			pv_rdma_event_str(ev->event), ev->status);
		return -1;
	}
}

/* take events until the handler says done; each is acknowledged first, as
 * the sample does, so that the handler may destroy its id */
static int
rw_event_loop(struct pv_rdma_event_channel *ch)
{
	struct pv_rdma_cm_event *ev, copy;
	int ret;

	while (pv_rdma_get_cm_event(ch, &ev) == 0) {
		memcpy(&copy, ev, sizeof(copy));
		pv_rdma_ack_cm_event(ev);
		ret = rw_on_event(&copy);
		if (ret != 0)
			return ret > 0 ? 0 : -1;
	}
	perror("pv_rdma_get_cm_event");
	return -1;
}

static int
rw_run_server(struct pv_rdma_event_channel *ch, const char *port)
{
	struct pv_rdma_cm_id *listener;
	struct sockaddr_in sin;
	int ret;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(port));
	if (pv_rdma_create_id(ch, &listener, NULL, PV_RDMA_PS_TCP) != 0) {
		perror("pv_rdma_create_id");
		return -1;
	}
	if (pv_rdma_bind_addr(listener, (struct sockaddr *)&sin) != 0 ||
	    pv_rdma_listen(listener, 10) != 0) {
		perror("pv_rdma_bind_addr / pv_rdma_listen");
		pv_rdma_destroy_id(listener);
		return -1;
	}
	printf("listening on port %d.\n", ntohs(pv_rdma_get_src_port(listener)));
	fflush(stdout);
	ret = rw_event_loop(ch);
	pv_rdma_destroy_id(listener);
	return ret;
}

static int
rw_run_client(struct pv_rdma_event_channel *ch, const char *host, const char *port)
{
	struct addrinfo hints, *ai;
	struct pv_rdma_cm_id *id;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret != 0) {
		fprintf(stderr, "getaddrinfo %s:%s: %s\n", host, port, gai_strerror(ret));
		return -1;
	}
	if (pv_rdma_create_id(ch, &id, NULL, PV_RDMA_PS_TCP) != 0) {
		perror("pv_rdma_create_id");
		freeaddrinfo(ai);
		return -1;
	}
	ret = pv_rdma_resolve_addr(id, NULL, ai->ai_addr, RW_RESOLVE_MS);
	freeaddrinfo(ai);
	if (ret != 0) {
		perror("pv_rdma_resolve_addr");
		pv_rdma_destroy_id(id);
		return -1;
	}
	/* the id is destroyed with its connection, on DISCONNECTED */
	return rw_event_loop(ch);
}

static void
rw_usage(const char *prog)
{
	if (rw_server)
		fprintf(stderr, "usage: %s [EAL and --pv-dev args --] read|write [port]\n", prog);
	else
		fprintf(stderr, "usage: %s [EAL and --pv-dev args --] read|write "
			"<server-address> <server-port>\n", prog);
}

int
main(int argc, char **argv)
{
	struct pv_rdma_event_channel *ch;
	int ret;

#if defined(RDMA_RW_SERVER)
	rw_server = 1;
#elif defined(RDMA_RW_CLIENT)
	rw_server = 0;
#else
	rw_server = strstr(argv[0], "server") != NULL;
#endif
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the memif pair of the default EAL arguments does not depend on the
	 * port: the server may pick an ephemeral one */
	if (pv_app_init(&argc, &argv, "rdma-rw", rw_server, 0) != 0)
		return 1;
	if (argc < 2 || (!rw_server && argc != 4) || (rw_server && argc > 3)) {
		rw_usage(argv[0]);
		return 1;
	}
	if (strcmp(argv[1], "write") == 0) {
		rw_mode = RW_MODE_WRITE;
	} else if (strcmp(argv[1], "read") == 0) {
		rw_mode = RW_MODE_READ;
	} else {
		rw_usage(argv[0]);
		return 1;
	}

	ch = pv_rdma_create_event_channel();
	if (ch == NULL) {
		perror("pv_rdma_create_event_channel");
		return 1;
	}
	if (rw_server)
		ret = rw_run_server(ch, argc == 3 ? argv[2] : "0");
	else
		ret = rw_run_client(ch, argv[2], argv[3]);
	pv_rdma_destroy_event_channel(ch);
	pv_cleanup();

	if (ret != 0 || __atomic_load_n(&rw_failed, __ATOMIC_RELAXED))
		return 1;
	if (!__atomic_load_n(&rw_matched, __ATOMIC_RELAXED)) {
		fprintf(stderr, "the peer's message did not arrive\n");
		return 1;
	}
	return 0;
}
