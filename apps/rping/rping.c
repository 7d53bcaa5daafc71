/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-rping: librdmacm's rping on pv_rdma_cma.h. Same options (-s -c -a -I
 * -p -C -S -v -V -d -P), same messages on the wire in the same order, so
 * that either side may be the real rping:
 *
 *   client  SEND   its source buffer (struct rping_info: addr be64,
 *                  rkey be32, size be32)
 *   server  RDMA READ of the source buffer, then SEND "go ahead"
 *   client  SEND   its sink buffer
 *   server  RDMA WRITE of what it read into the sink, then SEND "go ahead"
 *   client  (-V) compares sink and source; (-v) prints "ping data: ..."
 *
 * once per ping (-C; 0: until interrupted). The ping data is rping's:
 * "rdma-ping-<n>: " then a rotating run of the characters 'A'..'z' that
 * starts one character later each ping, NUL-terminated at -S bytes.
 *
 * Threads, as rping: the main thread runs the test, a CM thread takes CM
 * events, a CQ thread per connection sleeps on the completion channel; they
 * meet on a semaphore and a state variable. -P serves each connection on a
 * thread of its own, forever. Not supported: -q (QP created and moved by
 * the application).
 */

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pv_rdma_compat.h"

#define RPING_PORT		7174
#define RPING_BUFSIZE		(64 * 1024)	/* -S is below this */
#define RPING_SQ_DEPTH		16
#define RPING_RQ_DEPTH		2
#define RPING_RESOLVE_MS	2000
#define RPING_CQ_WAKE_MS	100	/* how often a CQ thread looks at its stop flag */
#define RPING_MSG_FMT		"rdma-ping-%d: "
#define RPING_STR(x)		#x
#define RPING_XSTR(x)		RPING_STR(x)
/* the smallest -S: room for the header of the largest ping number */
#define RPING_MIN_BUFSIZE	(sizeof(RPING_XSTR(INT_MAX)) + sizeof(RPING_MSG_FMT))
#define RPING_OPTS		"a:I:Pp:C:S:scvVd"

static int rping_debug;
#define RPING_DEBUG(...) do { if (rping_debug) printf(__VA_ARGS__); } while (0)

/*
 * Where a connection is, set by the CM and CQ threads and read by the test
 * after each semaphore post. From CONNECTED it cycles through READ_ADV,
 * READ_COMPLETE, WRITE_ADV, WRITE_COMPLETE once per ping. Values as rping's.
 */
enum rping_state {
	RPING_IDLE = 1,
	RPING_CONNECT_REQUEST,
	RPING_ADDR_RESOLVED,
	RPING_ROUTE_RESOLVED,
	RPING_CONNECTED,
	RPING_RDMA_READ_ADV,
	RPING_RDMA_READ_COMPLETE,
	RPING_RDMA_WRITE_ADV,
	RPING_RDMA_WRITE_COMPLETE,
	RPING_DISCONNECTED,
	RPING_ERROR,
};

/* rping's buffer advertisement, big-endian on the wire: 16 bytes */
struct rping_info {
	uint64_t buf;
	uint32_t rkey;
	uint32_t size;
};

_Static_assert(sizeof(struct rping_info) == 16, "rping_info is 16 bytes on the wire");

/* one connection (client, or server child); the listener's too */
struct rping_cb {
	int server;
	int persistent;
	struct pv_comp_channel *channel;
	struct pv_cq *cq;
	struct pv_pd *pd;
	struct pv_qp *qp;
	pthread_t cq_thread;
	int cq_stop;			/* atomic */

	struct pv_recv_wr rq_wr;
	struct pv_sge recv_sgl;
	struct rping_info recv_buf;
	struct pv_mr *recv_mr;

	struct pv_send_wr sq_wr;
	struct pv_sge send_sgl;
	struct rping_info send_buf;
	struct pv_mr *send_mr;

	struct pv_send_wr rdma_sq_wr;
	struct pv_sge rdma_sgl;
	char *rdma_buf;			/* server: read into, written from; client: sink */
	struct pv_mr *rdma_mr;

	char *start_buf;		/* client: the source the server reads */
	struct pv_mr *start_mr;

	uint64_t remote_addr;
	uint32_t remote_rkey;
	uint32_t remote_len;

	int state;			/* enum rping_state; atomic */
	sem_t sem;
	sem_t accept_ready;		/* listener: ready for the next request */

	struct sockaddr_storage sin;
	struct sockaddr_storage ssource;
	uint16_t port;			/* network order */
	int verbose;
	int count;
	int size;
	int validate;

	int stop_fd;			/* eventfd: the CM thread ends */
	pthread_t cm_thread;
	struct pv_rdma_event_channel *cm_channel;
	struct pv_rdma_cm_id *cm_id;	/* client: the connection; server: the listener */
	struct pv_rdma_cm_id *child_cm_id;	/* server: the connection */
};

static void
rping_state_set(struct rping_cb *cb, enum rping_state s)
{
	__atomic_store_n(&cb->state, (int)s, __ATOMIC_RELEASE);
}

static enum rping_state
rping_state_get(struct rping_cb *cb)
{
	return (enum rping_state)__atomic_load_n(&cb->state, __ATOMIC_ACQUIRE);
}

/* wait for the next post of the CM or CQ thread; 0 when it left @p want */
static int
rping_wait(struct rping_cb *cb, enum rping_state want, const char *what)
{
	while (sem_wait(&cb->sem) != 0 && errno == EINTR)
		;
	if (rping_state_get(cb) != want) {
		fprintf(stderr, "wait for %s state %d\n", what, rping_state_get(cb));
		return -1;
	}
	return 0;
}

static int
rping_cm_event(struct pv_rdma_cm_id *id, struct pv_rdma_cm_event *ev)
{
	struct rping_cb *cb = id->context;

	RPING_DEBUG("cma_event type %s cma_id %p (%s)\n", pv_rdma_event_str(ev->event),
		    (void *)id, id == cb->cm_id ? "parent" : "child");

	switch (ev->event) {
	case PV_RDMA_CM_EVENT_ADDR_RESOLVED:
		rping_state_set(cb, RPING_ADDR_RESOLVED);
		if (pv_rdma_resolve_route(id, RPING_RESOLVE_MS) != 0) {
			rping_state_set(cb, RPING_ERROR);
			perror("rdma_resolve_route");
			sem_post(&cb->sem);
		}
		return 0;
	case PV_RDMA_CM_EVENT_ROUTE_RESOLVED:
		rping_state_set(cb, RPING_ROUTE_RESOLVED);
		sem_post(&cb->sem);
		return 0;
	case PV_RDMA_CM_EVENT_CONNECT_REQUEST:
		/* one request at a time: the previous one has been taken */
		while (sem_wait(&cb->accept_ready) != 0 && errno == EINTR)
			;
		cb->child_cm_id = id;
		rping_state_set(cb, RPING_CONNECT_REQUEST);
		RPING_DEBUG("child cma %p\n", (void *)id);
		sem_post(&cb->sem);
		return 0;
	case PV_RDMA_CM_EVENT_CONNECT_RESPONSE:
		RPING_DEBUG("CONNECT_RESPONSE\n");
		rping_state_set(cb, RPING_CONNECTED);
		sem_post(&cb->sem);
		return 0;
	case PV_RDMA_CM_EVENT_ESTABLISHED:
		RPING_DEBUG("ESTABLISHED\n");
		/* the server moves on with its first receive */
		if (!cb->server)
			rping_state_set(cb, RPING_CONNECTED);
		sem_post(&cb->sem);
		return 0;
	case PV_RDMA_CM_EVENT_ADDR_ERROR:
	case PV_RDMA_CM_EVENT_ROUTE_ERROR:
	case PV_RDMA_CM_EVENT_CONNECT_ERROR:
	case PV_RDMA_CM_EVENT_UNREACHABLE:
	case PV_RDMA_CM_EVENT_REJECTED:
		fprintf(stderr, "cma event %s, error %d\n", pv_rdma_event_str(ev->event),
			ev->status);
		sem_post(&cb->sem);
		return -1;
	case PV_RDMA_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", cb->server ? "server" : "client");
		rping_state_set(cb, RPING_DISCONNECTED);
		sem_post(&cb->sem);
		return 0;
	case PV_RDMA_CM_EVENT_DEVICE_REMOVAL:
		fprintf(stderr, "cma detected device removal!!!!\n");
		rping_state_set(cb, RPING_ERROR);
		sem_post(&cb->sem);
		return -1;
	default:
		fprintf(stderr, "unhandled event: %s, ignoring\n", pv_rdma_event_str(ev->event));
		return 0;
	}
}

/* the server got an advertisement: the source first, then the sink */
static int
rping_server_recv(struct rping_cb *cb, const struct pv_wc *wc)
{
	enum rping_state s = rping_state_get(cb);

	if (wc->byte_len != sizeof(cb->recv_buf)) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		return -1;
	}
	cb->remote_rkey = be32toh(cb->recv_buf.rkey);
	cb->remote_addr = be64toh(cb->recv_buf.buf);
	cb->remote_len = be32toh(cb->recv_buf.size);
	RPING_DEBUG("Received rkey %x addr %" PRIx64 " len %u from peer\n", cb->remote_rkey,
		    cb->remote_addr, cb->remote_len);
	if (s <= RPING_CONNECTED || s == RPING_RDMA_WRITE_COMPLETE)
		rping_state_set(cb, RPING_RDMA_READ_ADV);
	else
		rping_state_set(cb, RPING_RDMA_WRITE_ADV);
	return 0;
}

/* the client got a "go ahead": after the read, then after the write */
static int
rping_client_recv(struct rping_cb *cb, const struct pv_wc *wc)
{
	if (wc->byte_len != sizeof(cb->recv_buf)) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		return -1;
	}
	if (rping_state_get(cb) == RPING_RDMA_READ_ADV)
		rping_state_set(cb, RPING_RDMA_WRITE_ADV);
	else
		rping_state_set(cb, RPING_RDMA_WRITE_COMPLETE);
	return 0;
}

/* drain the CQ: 0 go on, 1 flushed (the QP is down), < 0 failed */
static int
rping_cq_drain(struct rping_cb *cb)
{
	struct pv_recv_wr *bad_wr;
	struct pv_wc wc;
	int flushed = 0, n;

	while ((n = pv_poll_cq(cb->cq, 1, &wc)) == 1) {
		if (wc.status != PV_WC_SUCCESS) {
			if (wc.status == PV_WC_WR_FLUSH_ERR) {
				flushed = 1;
				continue;
			}
			fprintf(stderr, "cq completion failed status %d (%s)\n", wc.status,
				pv_wc_status_str(wc.status));
			goto err;
		}
		switch (wc.opcode) {
		case PV_WC_SEND:
			RPING_DEBUG("send completion\n");
			break;
		case PV_WC_RDMA_WRITE:
			RPING_DEBUG("rdma write completion\n");
			rping_state_set(cb, RPING_RDMA_WRITE_COMPLETE);
			sem_post(&cb->sem);
			break;
		case PV_WC_RDMA_READ:
			RPING_DEBUG("rdma read completion\n");
			rping_state_set(cb, RPING_RDMA_READ_COMPLETE);
			sem_post(&cb->sem);
			break;
		case PV_WC_RECV:
			RPING_DEBUG("recv completion\n");
			if ((cb->server ? rping_server_recv(cb, &wc) :
					  rping_client_recv(cb, &wc)) != 0) {
				fprintf(stderr, "recv wc error\n");
				goto err;
			}
			if (pv_post_recv(cb->qp, &cb->rq_wr, &bad_wr) != 0) {
				fprintf(stderr, "post recv error\n");
				goto err;
			}
			sem_post(&cb->sem);
			break;
		default:
			RPING_DEBUG("unknown!!!!! completion\n");
			goto err;
		}
	}
	if (n < 0) {
		fprintf(stderr, "poll error %d\n", n);
		goto err;
	}
	return flushed;
err:
	rping_state_set(cb, RPING_ERROR);
	sem_post(&cb->sem);
	return -1;
}

static void *
rping_cq_thread(void *arg)
{
	struct rping_cb *cb = arg;
	struct pollfd pfd = { .fd = cb->channel->fd, .events = POLLIN };
	struct pv_cq *ev_cq;
	void *ev_ctx;
	int ret;

	RPING_DEBUG("cq_thread started.\n");
	while (!__atomic_load_n(&cb->cq_stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, RPING_CQ_WAKE_MS) <= 0)
			continue;
		if (pv_get_cq_event(cb->channel, &ev_cq, &ev_ctx) != 0) {
			fprintf(stderr, "Failed to get cq event!\n");
			break;
		}
		if (ev_cq != cb->cq) {
			fprintf(stderr, "Unknown CQ!\n");
			break;
		}
		if (pv_req_notify_cq(cb->cq, 0) != 0) {
			fprintf(stderr, "Failed to set notify!\n");
			break;
		}
		ret = rping_cq_drain(cb);
		pv_ack_cq_events(cb->cq, 1);
		if (ret < 0)
			break;
	}
	return NULL;
}

static void
rping_cq_thread_stop(struct rping_cb *cb)
{
	__atomic_store_n(&cb->cq_stop, 1, __ATOMIC_RELEASE);
	pthread_join(cb->cq_thread, NULL);
}

static void
rping_conn_param(struct pv_rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int
rping_accept(struct rping_cb *cb)
{
	RPING_DEBUG("accepting client connection request\n");
	if (pv_rdma_accept(cb->child_cm_id, NULL) != 0) {
		perror("rdma_accept");
		return -1;
	}
	while (sem_wait(&cb->sem) != 0 && errno == EINTR)
		;
	if (rping_state_get(cb) == RPING_ERROR) {
		fprintf(stderr, "wait for CONNECTED state %d\n", rping_state_get(cb));
		return -1;
	}
	return 0;
}

/* the work requests that never change; only lengths, keys, opcodes do */
static void
rping_setup_wr(struct rping_cb *cb)
{
	cb->recv_sgl.addr = (uintptr_t)&cb->recv_buf;
	cb->recv_sgl.length = sizeof(cb->recv_buf);
	cb->recv_sgl.lkey = cb->recv_mr->lkey;
	cb->rq_wr.sg_list = &cb->recv_sgl;
	cb->rq_wr.num_sge = 1;

	cb->send_sgl.addr = (uintptr_t)&cb->send_buf;
	cb->send_sgl.length = sizeof(cb->send_buf);
	cb->send_sgl.lkey = cb->send_mr->lkey;
	cb->sq_wr.opcode = PV_WR_SEND;
	cb->sq_wr.send_flags = PV_SEND_SIGNALED;
	cb->sq_wr.sg_list = &cb->send_sgl;
	cb->sq_wr.num_sge = 1;

	cb->rdma_sgl.addr = (uintptr_t)cb->rdma_buf;
	cb->rdma_sgl.lkey = cb->rdma_mr->lkey;
	cb->rdma_sq_wr.send_flags = PV_SEND_SIGNALED;
	cb->rdma_sq_wr.sg_list = &cb->rdma_sgl;
	cb->rdma_sq_wr.num_sge = 1;
}

static void
rping_free_buffers(struct rping_cb *cb)
{
	RPING_DEBUG("rping_free_buffers called on cb %p\n", (void *)cb);
	if (cb->start_mr != NULL)
		pv_dereg_mr(cb->start_mr);
	free(cb->start_buf);
	if (cb->rdma_mr != NULL)
		pv_dereg_mr(cb->rdma_mr);
	free(cb->rdma_buf);
	if (cb->send_mr != NULL)
		pv_dereg_mr(cb->send_mr);
	if (cb->recv_mr != NULL)
		pv_dereg_mr(cb->recv_mr);
	cb->start_mr = cb->rdma_mr = cb->send_mr = cb->recv_mr = NULL;
	cb->start_buf = cb->rdma_buf = NULL;
}

static int
rping_setup_buffers(struct rping_cb *cb)
{
	int rdma = PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_WRITE;

	RPING_DEBUG("rping_setup_buffers called on cb %p\n", (void *)cb);
	cb->recv_mr = pv_reg_mr(cb->pd, &cb->recv_buf, sizeof(cb->recv_buf),
				PV_ACCESS_LOCAL_WRITE);
	cb->send_mr = pv_reg_mr(cb->pd, &cb->send_buf, sizeof(cb->send_buf), 0);
	cb->rdma_buf = calloc(1, (size_t)cb->size);
	cb->rdma_mr = cb->rdma_buf != NULL ?
		pv_reg_mr(cb->pd, cb->rdma_buf, (size_t)cb->size, rdma) : NULL;
	if (cb->recv_mr == NULL || cb->send_mr == NULL || cb->rdma_mr == NULL)
		goto err;
	if (!cb->server) {
		cb->start_buf = calloc(1, (size_t)cb->size);
		cb->start_mr = cb->start_buf != NULL ?
			pv_reg_mr(cb->pd, cb->start_buf, (size_t)cb->size, rdma) : NULL;
		if (cb->start_mr == NULL)
			goto err;
	}
	rping_setup_wr(cb);
	RPING_DEBUG("allocated & registered buffers...\n");
	return 0;
err:
	fprintf(stderr, "buffer allocation or registration failed: %s\n", strerror(errno));
	rping_free_buffers(cb);
	return -1;
}

static void
rping_free_qp(struct rping_cb *cb)
{
	struct pv_rdma_cm_id *id = cb->server ? cb->child_cm_id : cb->cm_id;

	if (cb->qp != NULL)
		pv_rdma_destroy_qp(id);
	cb->qp = NULL;
	pv_destroy_cq(cb->cq);
	pv_destroy_comp_channel(cb->channel);
	pv_dealloc_pd(cb->pd);
}

/* PD, completion channel, one CQ (armed) for both queues, the id's QP */
static int
rping_setup_qp(struct rping_cb *cb, struct pv_rdma_cm_id *id)
{
	struct pv_qp_init_attr attr;

	cb->pd = pv_alloc_pd(id->verbs);
	if (cb->pd == NULL) {
		fprintf(stderr, "ibv_alloc_pd failed\n");
		return -1;
	}
	RPING_DEBUG("created pd %p\n", (void *)cb->pd);
	cb->channel = pv_create_comp_channel(id->verbs);
	if (cb->channel == NULL) {
		fprintf(stderr, "ibv_create_comp_channel failed\n");
		goto err_dealloc_pd;
	}
	cb->cq = pv_create_cq(id->verbs, RPING_SQ_DEPTH * 2, cb, cb->channel, 0);
	if (cb->cq == NULL) {
		fprintf(stderr, "ibv_create_cq failed\n");
		goto err_destroy_channel;
	}
	if (pv_req_notify_cq(cb->cq, 0) != 0) {
		fprintf(stderr, "ibv_req_notify_cq failed\n");
		goto err_destroy_cq;
	}

	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = RPING_SQ_DEPTH;
	attr.cap.max_recv_wr = RPING_RQ_DEPTH;
	attr.cap.max_recv_sge = 1;
	attr.cap.max_send_sge = 1;
	attr.qp_type = PV_QPT_RC;
	attr.send_cq = cb->cq;
	attr.recv_cq = cb->cq;
	if (pv_rdma_create_qp(id, cb->pd, &attr) != 0) {
		perror("rdma_create_qp");
		goto err_destroy_cq;
	}
	cb->qp = id->qp;
	RPING_DEBUG("created qp %p\n", (void *)cb->qp);
	return 0;

err_destroy_cq:
	pv_destroy_cq(cb->cq);
err_destroy_channel:
	pv_destroy_comp_channel(cb->channel);
err_dealloc_pd:
	pv_dealloc_pd(cb->pd);
	return -1;
}

static void *
rping_cm_thread(void *arg)
{
	struct rping_cb *cb = arg;
	struct pollfd pfd[2] = {
		{ .fd = cb->stop_fd, .events = POLLIN },
		{ .fd = cb->cm_channel->fd, .events = POLLIN },
	};
	struct pv_rdma_cm_event *ev;
	int ret;

	for (;;) {
		if (poll(pfd, 2, -1) < 1)
			continue;
		if (pfd[0].revents & POLLIN)
			return NULL;
		if (!(pfd[1].revents & POLLIN))
			continue;
		if (pv_rdma_get_cm_event(cb->cm_channel, &ev) != 0) {
			perror("rdma_get_cm_event");
			exit(1);
		}
		ret = rping_cm_event(ev->id, ev);
		pv_rdma_ack_cm_event(ev);
		if (ret != 0)
			exit(1);
	}
}

/* advertise @p buf (registered as @p mr) of cb->size bytes */
static void
rping_format_send(struct rping_cb *cb, char *buf, struct pv_mr *mr)
{
	struct rping_info *info = &cb->send_buf;

	info->buf = htobe64((uintptr_t)buf);
	info->rkey = htobe32(mr->rkey);
	info->size = htobe32((uint32_t)cb->size);
	RPING_DEBUG("RDMA addr %" PRIx64 " rkey %x len %d\n", be64toh(info->buf),
		    be32toh(info->rkey), be32toh(info->size));
}

static int
rping_post(struct rping_cb *cb, struct pv_send_wr *wr)
{
	struct pv_send_wr *bad_wr;
	int ret = pv_post_send(cb->qp, wr, &bad_wr);

	if (ret != 0)
		fprintf(stderr, "post send error %d\n", ret);
	return ret;
}

/* one iteration per ping until the client disconnects */
static int
rping_test_server(struct rping_cb *cb)
{
	for (;;) {
		/* the client's source buffer */
		if (rping_wait(cb, RPING_RDMA_READ_ADV, "RDMA_READ_ADV") != 0)
			break;
		RPING_DEBUG("server received source adv\n");
		cb->rdma_sq_wr.opcode = PV_WR_RDMA_READ;
		cb->rdma_sq_wr.wr.rdma.rkey = cb->remote_rkey;
		cb->rdma_sq_wr.wr.rdma.remote_addr = cb->remote_addr;
		cb->rdma_sq_wr.sg_list->length = cb->remote_len;
		if (rping_post(cb, &cb->rdma_sq_wr) != 0)
			break;
		RPING_DEBUG("server posted rdma read req\n");
		if (rping_wait(cb, RPING_RDMA_READ_COMPLETE, "RDMA_READ_COMPLETE") != 0)
			break;
		RPING_DEBUG("server received read complete\n");
		if (cb->verbose)
			printf("server ping data: %s\n", cb->rdma_buf);
		/* go ahead: send the sink */
		if (rping_post(cb, &cb->sq_wr) != 0)
			break;
		RPING_DEBUG("server posted go ahead\n");

		if (rping_wait(cb, RPING_RDMA_WRITE_ADV, "RDMA_WRITE_ADV") != 0)
			break;
		RPING_DEBUG("server received sink adv\n");
		cb->rdma_sq_wr.opcode = PV_WR_RDMA_WRITE;
		cb->rdma_sq_wr.wr.rdma.rkey = cb->remote_rkey;
		cb->rdma_sq_wr.wr.rdma.remote_addr = cb->remote_addr;
		cb->rdma_sq_wr.sg_list->length = (uint32_t)strlen(cb->rdma_buf) + 1;
		RPING_DEBUG("rdma write from lkey %x laddr %" PRIx64 " len %u\n",
			    cb->rdma_sq_wr.sg_list->lkey, cb->rdma_sq_wr.sg_list->addr,
			    cb->rdma_sq_wr.sg_list->length);
		if (rping_post(cb, &cb->rdma_sq_wr) != 0)
			break;
		if (rping_wait(cb, RPING_RDMA_WRITE_COMPLETE, "RDMA_WRITE_COMPLETE") != 0)
			break;
		RPING_DEBUG("server rdma write complete\n");
		/* go ahead: the next ping */
		if (rping_post(cb, &cb->sq_wr) != 0)
			break;
		RPING_DEBUG("server posted go ahead\n");
	}
	return rping_state_get(cb) == RPING_DISCONNECTED ? 0 : -1;
}

/* the port of -p into the address of -a */
static void
rping_set_port(struct rping_cb *cb)
{
	if (cb->sin.ss_family == AF_INET)
		((struct sockaddr_in *)&cb->sin)->sin_port = cb->port;
	else
		((struct sockaddr_in6 *)&cb->sin)->sin6_port = cb->port;
}

static int
rping_bind_server(struct rping_cb *cb)
{
	rping_set_port(cb);
	if (pv_rdma_bind_addr(cb->cm_id, (struct sockaddr *)&cb->sin) != 0) {
		perror("rdma_bind_addr");
		return -1;
	}
	RPING_DEBUG("rdma_bind_addr successful\n");
	RPING_DEBUG("rdma_listen\n");
	if (pv_rdma_listen(cb->cm_id, 3) != 0) {
		perror("rdma_listen");
		return -1;
	}
	return 0;
}

static int rping_connect_client(struct rping_cb *cb);

/* QP, buffers, first receive, CQ thread, then accept (server) or connect */
static int
rping_conn_open(struct rping_cb *cb, struct pv_rdma_cm_id *id)
{
	struct pv_recv_wr *bad_wr;

	if (rping_setup_qp(cb, id) != 0) {
		fprintf(stderr, "setup_qp failed\n");
		return -1;
	}
	if (rping_setup_buffers(cb) != 0)
		goto err_free_qp;
	if (pv_post_recv(cb->qp, &cb->rq_wr, &bad_wr) != 0) {
		fprintf(stderr, "ibv_post_recv failed\n");
		goto err_free_buffers;
	}
	if (pthread_create(&cb->cq_thread, NULL, rping_cq_thread, cb) != 0) {
		perror("pthread_create");
		goto err_free_buffers;
	}
	if ((cb->server ? rping_accept(cb) : rping_connect_client(cb)) != 0) {
		fprintf(stderr, "connect error\n");
		goto err_stop_cq;
	}
	return 0;

err_stop_cq:
	rping_cq_thread_stop(cb);
err_free_buffers:
	rping_free_buffers(cb);
err_free_qp:
	rping_free_qp(cb);
	return -1;
}

static void
rping_conn_close(struct rping_cb *cb, struct pv_rdma_cm_id *id)
{
	pv_rdma_disconnect(id);
	rping_cq_thread_stop(cb);
	rping_free_buffers(cb);
	rping_free_qp(cb);
}

static void *
rping_persistent_conn_thread(void *arg)
{
	struct rping_cb *cb = arg;

	if (rping_conn_open(cb, cb->child_cm_id) == 0) {
		rping_test_server(cb);
		rping_conn_close(cb, cb->child_cm_id);
	}
	pv_rdma_destroy_id(cb->child_cm_id);
	sem_destroy(&cb->sem);
	free(cb);
	return NULL;
}

/* -P: each request gets a copy of the listener's settings and a thread */
static int
rping_run_persistent_server(struct rping_cb *listener)
{
	pthread_attr_t attr;
	pthread_t thread;
	struct rping_cb *cb;

	if (rping_bind_server(listener) != 0)
		return -1;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		if (rping_wait(listener, RPING_CONNECT_REQUEST, "CONNECT_REQUEST") != 0)
			return -1;
		cb = malloc(sizeof(*cb));
		if (cb == NULL)
			return -1;
		*cb = *listener;
		cb->cq_stop = 0;
		sem_init(&cb->sem, 0, 0);
		cb->child_cm_id->context = cb;
		sem_post(&listener->accept_ready);
		if (pthread_create(&thread, &attr, rping_persistent_conn_thread, cb) != 0) {
			perror("pthread_create");
			return -1;
		}
	}
}

static int
rping_run_server(struct rping_cb *cb)
{
	int ret;

	if (rping_bind_server(cb) != 0)
		return -1;
	if (rping_wait(cb, RPING_CONNECT_REQUEST, "CONNECT_REQUEST") != 0)
		return -1;
	ret = rping_conn_open(cb, cb->child_cm_id);
	if (ret == 0) {
		ret = rping_test_server(cb);
		if (ret != 0)
			fprintf(stderr, "rping server failed: %d\n", ret);
		rping_conn_close(cb, cb->child_cm_id);
	}
	pv_rdma_destroy_id(cb->child_cm_id);
	return ret;
}

/* rping's ping data: the header, then 'A'..'z' from @p start, rotating */
static void
rping_fill(struct rping_cb *cb, int ping, int start)
{
	int i, c = start;

	i = snprintf(cb->start_buf, (size_t)cb->size, RPING_MSG_FMT, ping);
	for (; i < cb->size; i++) {
		cb->start_buf[i] = (char)c;
		if (++c > 'z')
			c = 'A';
	}
	cb->start_buf[cb->size - 1] = '\0';
}

static int
rping_test_client(struct rping_cb *cb)
{
	int ping, start = 'A';

	for (ping = 0; cb->count == 0 || ping < cb->count; ping++) {
		rping_state_set(cb, RPING_RDMA_READ_ADV);
		rping_fill(cb, ping, start);
		if (++start > 'z')
			start = 'A';

		rping_format_send(cb, cb->start_buf, cb->start_mr);
		if (rping_post(cb, &cb->sq_wr) != 0)
			return -1;
		/* the server read it */
		if (rping_wait(cb, RPING_RDMA_WRITE_ADV, "RDMA_WRITE_ADV") != 0)
			return -1;

		rping_format_send(cb, cb->rdma_buf, cb->rdma_mr);
		if (rping_post(cb, &cb->sq_wr) != 0)
			return -1;
		/* the server wrote it back */
		if (rping_wait(cb, RPING_RDMA_WRITE_COMPLETE, "RDMA_WRITE_COMPLETE") != 0)
			return -1;

		if (cb->validate && memcmp(cb->start_buf, cb->rdma_buf, (size_t)cb->size) != 0) {
			fprintf(stderr, "data mismatch!\n");
			return -1;
		}
		if (cb->verbose)
			printf("ping data: %s\n", cb->rdma_buf);
	}
	return 0;
}

static int
rping_connect_client(struct rping_cb *cb)
{
	struct pv_rdma_conn_param param;

	rping_conn_param(&param);
	if (pv_rdma_connect(cb->cm_id, &param) != 0) {
		perror("rdma_connect");
		return -1;
	}
	if (rping_wait(cb, RPING_CONNECTED, "CONNECTED") != 0)
		return -1;
	RPING_DEBUG("rdma_connect successful\n");
	return 0;
}

static int
rping_bind_client(struct rping_cb *cb)
{
	struct sockaddr *src = NULL;

	rping_set_port(cb);
	if (cb->ssource.ss_family != 0)
		src = (struct sockaddr *)&cb->ssource;
	if (pv_rdma_resolve_addr(cb->cm_id, src, (struct sockaddr *)&cb->sin,
				 RPING_RESOLVE_MS) != 0) {
		perror("rdma_resolve_addr");
		return -1;
	}
	if (rping_wait(cb, RPING_ROUTE_RESOLVED, "addr/route resolution") != 0)
		return -1;
	RPING_DEBUG("rdma_resolve_addr - rdma_resolve_route successful\n");
	return 0;
}

static int
rping_run_client(struct rping_cb *cb)
{
	int ret;

	if (rping_bind_client(cb) != 0 || rping_conn_open(cb, cb->cm_id) != 0)
		return -1;
	ret = rping_test_client(cb);
	if (ret != 0)
		fprintf(stderr, "rping client failed: %d\n", ret);
	rping_conn_close(cb, cb->cm_id);
	return ret;
}

static int
rping_get_addr(const char *dst, struct sockaddr_storage *addr)
{
	struct addrinfo *res;
	int ret;

	ret = getaddrinfo(dst, NULL, NULL, &res);
	if (ret != 0) {
		printf("getaddrinfo failed (%s) - invalid hostname or IP address\n",
		       gai_strerror(ret));
		return -1;
	}
	if (res->ai_family == AF_INET)
		memcpy(addr, res->ai_addr, sizeof(struct sockaddr_in));
	else if (res->ai_family == AF_INET6)
		memcpy(addr, res->ai_addr, sizeof(struct sockaddr_in6));
	else
		ret = -1;
	freeaddrinfo(res);
	return ret;
}

static void
rping_usage(void)
{
	printf("pv-rping [EAL and --pv-dev args --] -s [-vVd] [-S size] [-C count] "
	       "[-a addr] [-p port]\n");
	printf("pv-rping [EAL and --pv-dev args --] -c [-vVd] [-S size] [-C count] "
	       "[-I addr] -a addr [-p port]\n");
	printf("\t-c\t\tclient side\n");
	printf("\t-I\t\tSource address to bind to for client.\n");
	printf("\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n");
	printf("\t-v\t\tdisplay ping data to stdout\n");
	printf("\t-V\t\tvalidate ping data\n");
	printf("\t-d\t\tdebug printfs\n");
	printf("\t-S size \tping data size\n");
	printf("\t-C count\tping count times\n");
	printf("\t-a addr\t\taddress\n");
	printf("\t-p port\t\tport\n");
	printf("\t-P\t\tpersistent server mode allowing multiple connections\n");
}

static int
rping_parse(struct rping_cb *cb, int argc, char **argv)
{
	int op, ret = 0;

	opterr = 0;
	while ((op = getopt(argc, argv, RPING_OPTS)) != -1) {
		switch (op) {
		case 'a':
			ret = rping_get_addr(optarg, &cb->sin);
			break;
		case 'I':
			ret = rping_get_addr(optarg, &cb->ssource);
			break;
		case 'P':
			cb->persistent = 1;
			break;
		case 'p':
			cb->port = htobe16((uint16_t)atoi(optarg));
			RPING_DEBUG("port %d\n", atoi(optarg));
			break;
		case 's':
			cb->server = 1;
			RPING_DEBUG("server\n");
			break;
		case 'c':
			cb->server = 0;
			RPING_DEBUG("client\n");
			break;
		case 'S':
			cb->size = atoi(optarg);
			if (cb->size < (int)RPING_MIN_BUFSIZE || cb->size > RPING_BUFSIZE - 1) {
				fprintf(stderr, "Invalid size %d (valid range is %zu to %d)\n",
					cb->size, RPING_MIN_BUFSIZE, RPING_BUFSIZE);
				ret = -1;
			}
			break;
		case 'C':
			cb->count = atoi(optarg);
			if (cb->count < 0) {
				fprintf(stderr, "Invalid count %d\n", cb->count);
				ret = -1;
			}
			break;
		case 'v':
			cb->verbose++;
			break;
		case 'V':
			cb->validate++;
			break;
		case 'd':
			rping_debug++;
			break;
		default:
			rping_usage();
			return -1;
		}
	}
	if (ret == 0 && cb->server == -1) {
		rping_usage();
		ret = -1;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	const uint64_t one = 1;
	struct rping_cb *cb;
	int ret, server;

	setvbuf(stdout, NULL, _IOLBF, 0);
	server = pv_app_opt_peek(argc, argv, RPING_OPTS, 's', NULL) != NULL;
	if (pv_app_init(&argc, &argv, "rping", server,
			(uint16_t)atoi(pv_app_opt_peek(argc, argv, RPING_OPTS, 'p',
						       RPING_XSTR(RPING_PORT)))) != 0)
		return 1;

	cb = calloc(1, sizeof(*cb));
	if (cb == NULL)
		return 1;
	cb->server = -1;
	cb->state = RPING_IDLE;
	cb->size = 64;
	cb->sin.ss_family = AF_INET;
	cb->port = htobe16(RPING_PORT);
	sem_init(&cb->sem, 0, 0);
	sem_init(&cb->accept_ready, 0, 1);
	ret = rping_parse(cb, argc, argv);
	if (ret != 0)
		goto out_free;

	cb->stop_fd = eventfd(0, EFD_NONBLOCK);
	if (cb->stop_fd < 0) {
		perror("Could not create event FD");
		ret = -1;
		goto out_free;
	}
	cb->cm_channel = pv_rdma_create_event_channel();
	if (cb->cm_channel == NULL) {
		perror("rdma_create_event_channel");
		ret = -1;
		goto out_close;
	}
	if (pv_rdma_create_id(cb->cm_channel, &cb->cm_id, cb, PV_RDMA_PS_TCP) != 0) {
		perror("rdma_create_id");
		ret = -1;
		goto out_destroy_channel;
	}
	RPING_DEBUG("created cm_id %p\n", (void *)cb->cm_id);
	if (pthread_create(&cb->cm_thread, NULL, rping_cm_thread, cb) != 0) {
		perror("pthread_create");
		ret = -1;
		pv_rdma_destroy_id(cb->cm_id);
		goto out_destroy_channel;
	}

	if (cb->server)
		ret = cb->persistent ? rping_run_persistent_server(cb) : rping_run_server(cb);
	else
		ret = rping_run_client(cb);

	RPING_DEBUG("destroy cm_id %p\n", (void *)cb->cm_id);
	pv_rdma_destroy_id(cb->cm_id);
	if (write(cb->stop_fd, &one, sizeof(one)) != sizeof(one))
		fprintf(stderr, "Failed to signal CM thread\n");
	pthread_join(cb->cm_thread, NULL);
out_destroy_channel:
	pv_rdma_destroy_event_channel(cb->cm_channel);
out_close:
	close(cb->stop_fd);
out_free:
	sem_destroy(&cb->accept_ready);
	sem_destroy(&cb->sem);
	free(cb);
	pv_cleanup();
	return ret == 0 ? 0 : 1;
}
