/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * -R (--rdma_cm): perftest's rdma_cm mode through pv_rdma_*. Two RC
 * connections to the same port (18515 or -p), as perftest 4.5 makes them:
 *  1. the control connection, made first: a QP of the CM's own (its PD and
 *     CQs), one receive of PERF_CM_MSG_MAX bytes posted before connecting
 *     and reposted as soon as a message is read; perf_proto.c's
 *     conversation goes over it as SENDs (perf_cm_msg_send/recv);
 *  2. the test connection, made between the two zero handshakes that follow
 *     the MTU exchange: pv-perf's own QP (its PD, CQs and buffer), created
 *     on the CM id with pv_rdma_create_qp() and moved to RTS by the CM.
 * perftest's server listens anew for the test connection; pv-perf's keeps
 * its one listener until then: pollverbs' CM counts an accepted connection
 * whose listener is gone as the port's owner (Linux's does not), so a
 * second listener on the port would fail with EADDRINUSE. The wire does not
 * tell the difference.
 * The data path does not change. The client disconnects at the end, the
 * test connection first; the server waits for that (PERF_CM_DISC_MS) and
 * disconnects itself only when it does not come.
 *
 * The device is the one the CM resolves (the server's address, or the
 * request's); pv-perf borrows the CM's context, which stays in the
 * library's thread-safe progress mode: the CM's thread needs the device's
 * background progress to receive its MADs.
 */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_cycles.h>

#include <pv_rdma_cma.h>

#include "perf.h"

#define PERF_CM_MSG_MAX		64	/* perftest posts 56 (struct pingpong_dest) */
#define PERF_CM_RESOLVE_MS	2000	/* as perftest */
#define PERF_CM_EVENT_MS	10000
#define PERF_CM_DISC_MS		3000
#define PERF_CM_RETRIES		10	/* perftest's client: 10 tries, 100 ms apart */
#define PERF_CM_RETRY_US	100000
#define PERF_CM_RETRY_COUNT	7	/* perftest's default retry_count */
#define PERF_CM_RNR_RETRY	7

struct perf_cm {
	struct pv_rdma_event_channel *ch;
	struct pv_rdma_cm_id *listen;	/* server: the listener of the moment */
	struct pv_rdma_cm_id *ctrl;	/* connection 1: the conversation */
	struct pv_rdma_cm_id *test;	/* connection 2: pv-perf's QP */
	struct pv_mr *mr;		/* msg[] on ctrl->pd */
	struct sockaddr_storage dst;	/* client: the server's address */
	int ctrl_gone, test_gone;	/* DISCONNECTED seen */
	uint64_t next_event_check;	/* TSC: when msg_recv looks at the channel */
	uint8_t msg[2][PERF_CM_MSG_MAX];	/* [0] receive, [1] send */
};

static struct perf_cm perf_cm_state;

static const char *
perf_cm_role(const struct perf_run *r)
{
	return r->is_server ? "server" : "client";
}

/* Note a DISCONNECTED; a connection's other late events need nothing. */
static void
perf_cm_note(struct perf_cm *cm, const struct pv_rdma_cm_event *ev)
{
	if (ev->event != PV_RDMA_CM_EVENT_DISCONNECTED)
		return;
	if (ev->id == cm->ctrl)
		cm->ctrl_gone = 1;
	else if (ev->id == cm->test)
		cm->test_gone = 1;
}

/*
 * Wait up to @p timeout_ms for event @p want (of any id for CONNECT_REQUEST,
 * else of @p id). Other events are noted and acknowledged.
 * @return 0 with *@p id_p set to the event's id (may be NULL); -ETIMEDOUT;
 *         -ECONNREFUSED rejected; -EHOSTUNREACH an error event of @p id.
 */
static int
perf_cm_wait(struct perf_cm *cm, struct pv_rdma_cm_id *id, enum pv_rdma_cm_event_type want,
	     int timeout_ms, struct pv_rdma_cm_id **id_p)
{
	struct pollfd pfd = { .fd = cm->ch->fd, .events = POLLIN };
	uint64_t end = rte_rdtsc() + (uint64_t)timeout_ms * rte_get_tsc_hz() / 1000;
	struct pv_rdma_cm_event *ev;
	enum pv_rdma_cm_event_type got;
	int mine, status;

	for (;;) {
		if (pv_rdma_get_cm_event(cm->ch, &ev) != 0) {
			if (errno != EAGAIN)
				return -errno;
			if (rte_rdtsc() > end)
				return -ETIMEDOUT;
			poll(&pfd, 1, 10);
			continue;
		}
		got = ev->event;
		status = ev->status;
		mine = want == PV_RDMA_CM_EVENT_CONNECT_REQUEST ? ev->listen_id == id : ev->id == id;
		if (mine && got == want) {
			if (id_p != NULL)
				*id_p = ev->id;
			perf_cm_note(cm, ev);
			pv_rdma_ack_cm_event(ev);
			return 0;
		}
		perf_cm_note(cm, ev);
		pv_rdma_ack_cm_event(ev);
		if (!mine || got == PV_RDMA_CM_EVENT_TIMEWAIT_EXIT)
			continue;
		if (got == PV_RDMA_CM_EVENT_DISCONNECTED)
			return -ECONNRESET;
		if (got == PV_RDMA_CM_EVENT_REJECTED)
			return -ECONNREFUSED;
		fprintf(stderr, "pv-perf: rdma_cm: %s (status %d) while waiting for %s\n",
			pv_rdma_event_str(got), status, pv_rdma_event_str(want));
		return status < 0 ? status : -EHOSTUNREACH;
	}
}

static int
perf_cm_post_recv(struct perf_cm *cm)
{
	struct pv_sge sge = {
		.addr = (uintptr_t)cm->msg[0],
		.length = PERF_CM_MSG_MAX,
		.lkey = cm->mr->lkey,
	};
	struct pv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return -pv_post_recv(cm->ctrl->qp, &wr, &bad);
}

/* The control QP: the CM's PD and CQs, depth 1 each way, as perftest's. */
static int
perf_cm_ctrl_qp(struct perf_cm *cm)
{
	struct pv_qp_init_attr qia;

	memset(&qia, 0, sizeof(qia));
	qia.qp_type = PV_QPT_RC;
	qia.cap.max_send_wr = 1;
	qia.cap.max_recv_wr = 1;
	qia.cap.max_send_sge = 1;
	qia.cap.max_recv_sge = 1;
	if (pv_rdma_create_qp(cm->ctrl, NULL, &qia) != 0)
		return -errno;
	cm->mr = pv_reg_mr(cm->ctrl->pd, cm->msg, sizeof(cm->msg), PV_ACCESS_LOCAL_WRITE);
	if (cm->mr == NULL)
		return -errno;
	return perf_cm_post_recv(cm);
}

static void
perf_cm_conn_param(const struct perf_run *r, int test, struct pv_rdma_conn_param *cp)
{
	memset(cp, 0, sizeof(*cp));
	/* perftest asks for read resources on the test QP of READ tests only */
	if (test && r->p.verb == PERF_READ) {
		cp->responder_resources = r->local.out_reads;
		cp->initiator_depth = r->local.out_reads;
	}
	cp->retry_count = PERF_CM_RETRY_COUNT;
	cp->rnr_retry_count = PERF_CM_RNR_RETRY;
}

static int
perf_cm_resolve(const struct perf_run *r, struct perf_cm *cm)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	int ret;

	ret = getaddrinfo(r->p.server, NULL, &hints, &res);
	if (ret != 0) {
		fprintf(stderr, "pv-perf: %s: %s\n", r->p.server, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	memcpy(&cm->dst, res->ai_addr, res->ai_addrlen);
	if (res->ai_family == AF_INET)
		((struct sockaddr_in *)&cm->dst)->sin_port = htons(r->p.tcp_port);
	else
		((struct sockaddr_in6 *)&cm->dst)->sin6_port = htons(r->p.tcp_port);
	freeaddrinfo(res);
	return 0;
}

/*
 * Client: one connection attempt to the server's port; the QP comes from
 * @p make_qp once the route is known (the test QP: pv-perf's).
 */
static int
perf_cm_connect_once(struct perf_run *r, struct perf_cm *cm, int test,
		     struct pv_rdma_cm_id **id_p)
{
	struct pv_rdma_conn_param cp;
	struct pv_rdma_cm_id *id;
	int ret;

	if (pv_rdma_create_id(cm->ch, &id, r, PV_RDMA_PS_TCP) != 0)
		return -errno;
	*id_p = id;
	if (pv_rdma_resolve_addr(id, NULL, (struct sockaddr *)&cm->dst, PERF_CM_RESOLVE_MS) != 0)
		return -errno;
	ret = perf_cm_wait(cm, id, PV_RDMA_CM_EVENT_ADDR_RESOLVED, PERF_CM_EVENT_MS, NULL);
	if (ret == 0 && pv_rdma_resolve_route(id, PERF_CM_RESOLVE_MS) != 0)
		ret = -errno;
	if (ret == 0)
		ret = perf_cm_wait(cm, id, PV_RDMA_CM_EVENT_ROUTE_RESOLVED, PERF_CM_EVENT_MS, NULL);
	if (ret < 0)
		return ret;
	ret = test ? perf_res_qp_create(r, id) : perf_cm_ctrl_qp(cm);
	if (ret < 0)
		return ret;
	perf_cm_conn_param(r, test, &cp);
	if (pv_rdma_connect(id, &cp) != 0)
		return -errno;
	return perf_cm_wait(cm, id, PV_RDMA_CM_EVENT_ESTABLISHED, PERF_CM_EVENT_MS, NULL);
}

static void
perf_cm_id_destroy(struct perf_run *r, struct perf_cm *cm, struct pv_rdma_cm_id **id_p)
{
	struct pv_rdma_cm_id *id = *id_p;

	if (id == NULL)
		return;
	if (id == cm->ctrl && cm->mr != NULL) {
		pv_dereg_mr(cm->mr);
		cm->mr = NULL;
	}
	if (id->qp != NULL) {
		if (id->qp == r->qp)
			r->qp = NULL;
		pv_rdma_destroy_qp(id);
	}
	pv_rdma_destroy_id(id);
	*id_p = NULL;
}

/* Client: connect, retrying a refused connection (the server may not listen yet). */
static int
perf_cm_connect(struct perf_run *r, struct perf_cm *cm, int test, struct pv_rdma_cm_id **id_p)
{
	int i, ret = -ECONNREFUSED;

	for (i = 0; i < PERF_CM_RETRIES; i++) {
		ret = perf_cm_connect_once(r, cm, test, id_p);
		if (ret != -ECONNREFUSED && ret != -ETIMEDOUT)
			break;
		perf_cm_id_destroy(r, cm, id_p);
		usleep(PERF_CM_RETRY_US);
	}
	return ret;
}

static int
perf_cm_listen(struct perf_run *r, struct perf_cm *cm)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(r->p.tcp_port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};

	if (pv_rdma_create_id(cm->ch, &cm->listen, r, PV_RDMA_PS_TCP) != 0 ||
	    pv_rdma_bind_addr(cm->listen, (struct sockaddr *)&sin) != 0 ||
	    pv_rdma_listen(cm->listen, 2) != 0)
		return -errno;
	return 0;
}

/* Server: take the next request on the listener, give it a QP, accept it. */
static int
perf_cm_accept(struct perf_run *r, struct perf_cm *cm, int test, struct pv_rdma_cm_id **id_p)
{
	struct pv_rdma_conn_param cp;
	int ret;

	ret = perf_cm_wait(cm, cm->listen, PV_RDMA_CM_EVENT_CONNECT_REQUEST, test ?
			   PERF_CM_EVENT_MS : PERF_OOB_TIMEOUT_MS * 1000, id_p);
	if (ret < 0)
		return ret;
	ret = test ? perf_res_qp_create(r, *id_p) : perf_cm_ctrl_qp(cm);
	if (ret < 0) {
		pv_rdma_reject(*id_p, NULL, 0);
		return ret;
	}
	perf_cm_conn_param(r, test, &cp);
	if (pv_rdma_accept(*id_p, &cp) != 0)
		return -errno;
	ret = perf_cm_wait(cm, *id_p, PV_RDMA_CM_EVENT_ESTABLISHED, PERF_CM_EVENT_MS, NULL);
	if (ret == 0 && test)
		perf_cm_id_destroy(r, cm, &cm->listen);
	return ret;
}

int
perf_cm_ctrl_connect(struct perf_run *r)
{
	struct perf_cm *cm = &perf_cm_state;
	int ret, fl;

	memset(cm, 0, sizeof(*cm));
	r->cm = cm;
	cm->ch = pv_rdma_create_event_channel();
	if (cm->ch == NULL) {
		fprintf(stderr, "pv-perf: rdma_cm event channel: %s\n", strerror(errno));
		return -errno;
	}
	fl = fcntl(cm->ch->fd, F_GETFL);
	fcntl(cm->ch->fd, F_SETFL, fl | O_NONBLOCK);
	if (r->is_server) {
		ret = perf_cm_listen(r, cm);
		if (ret == 0)
			ret = perf_cm_accept(r, cm, 0, &cm->ctrl);
	} else {
		ret = perf_cm_resolve(r, cm);
		if (ret == 0)
			ret = perf_cm_connect(r, cm, 0, &cm->ctrl);
	}
	if (ret < 0) {
		fprintf(stderr, "pv-perf: rdma_cm %s, control connection on port %u: %s\n",
			perf_cm_role(r), r->p.tcp_port, strerror(-ret));
		return ret;
	}
	r->ctx = cm->ctrl->verbs;
	r->ctx_borrowed = 1;
	r->p.ib_port = cm->ctrl->port_num;
	return 0;
}

int
perf_cm_test_connect(struct perf_run *r)
{
	struct perf_cm *cm = r->cm;
	int ret;

	if (r->is_server)
		ret = perf_cm_accept(r, cm, 1, &cm->test);
	else
		ret = perf_cm_connect(r, cm, 1, &cm->test);
	if (ret < 0)
		fprintf(stderr, "pv-perf: rdma_cm %s, test connection: %s\n", perf_cm_role(r),
			strerror(-ret));
	return ret;
}

int
perf_cm_msg_send(void *arg, void *buf, size_t len)
{
	struct perf_run *r = arg;
	struct perf_cm *cm = r->cm;
	struct pv_sge sge = {
		.addr = (uintptr_t)cm->msg[1],
		.length = (uint32_t)len,
		.lkey = cm->mr->lkey,
	};
	struct pv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = PV_WR_SEND,
		.send_flags = PV_SEND_SIGNALED,
	}, *bad;
	struct pv_wc wc;
	int n;

	if (len > PERF_CM_MSG_MAX)
		return -EMSGSIZE;
	memcpy(cm->msg[1], buf, len);
	n = pv_post_send(cm->ctrl->qp, &wr, &bad);
	if (n != 0)
		return -n;
	while ((n = pv_poll_cq(cm->ctrl->send_cq, 1, &wc)) == 0)
		if (perf_progress(r) < 0)
			return -EIO;
	if (n < 0 || wc.status != PV_WC_SUCCESS) {
		fprintf(stderr, "pv-perf: rdma_cm control SEND: %s\n",
			n < 0 ? "poll failed" : pv_wc_status_str(wc.status));
		return -ECONNRESET;
	}
	return 0;
}

/* The peer's disconnect ends a wait for its next message. */
static int
perf_cm_check_events(struct perf_cm *cm)
{
	struct pv_rdma_cm_event *ev;
	uint64_t now = rte_rdtsc();

	if (now < cm->next_event_check)
		return 0;
	cm->next_event_check = now + rte_get_tsc_hz() / 100;
	while (pv_rdma_get_cm_event(cm->ch, &ev) == 0) {
		perf_cm_note(cm, ev);
		pv_rdma_ack_cm_event(ev);
	}
	return cm->ctrl_gone ? -ECONNRESET : 0;
}

int
perf_cm_msg_recv(void *arg, void *buf, size_t len)
{
	struct perf_run *r = arg;
	struct perf_cm *cm = r->cm;
	struct pv_wc wc;
	int n, ret;

	while ((n = pv_poll_cq(cm->ctrl->recv_cq, 1, &wc)) == 0) {
		ret = perf_progress(r);
		if (ret == 0)
			ret = perf_cm_check_events(cm);
		if (ret < 0)
			return ret;
	}
	if (n < 0 || wc.status != PV_WC_SUCCESS) {
		fprintf(stderr, "pv-perf: rdma_cm control receive: %s\n",
			n < 0 ? "poll failed" : pv_wc_status_str(wc.status));
		return -ECONNRESET;
	}
	if (wc.byte_len != len) {
		fprintf(stderr, "pv-perf: rdma_cm control message of %u bytes, expected %zu\n",
			wc.byte_len, len);
		return -EPROTO;
	}
	memcpy(buf, cm->msg[0], len);
	return perf_cm_post_recv(cm);
}

/* The client disconnects; the server waits for that, then disconnects itself. */
static void
perf_cm_disconnect(struct perf_run *r, struct perf_cm *cm, struct pv_rdma_cm_id *id,
		   int *gone)
{
	int ret;

	if (id == NULL || *gone)
		return;
	if (r->is_server) {
		ret = perf_cm_wait(cm, id, PV_RDMA_CM_EVENT_DISCONNECTED, PERF_CM_DISC_MS, NULL);
		if (ret == 0 || *gone)
			return;
	}
	if (pv_rdma_disconnect(id) != 0 || *gone)
		return;	/* the peer's DREQ crossed ours */
	perf_cm_wait(cm, id, PV_RDMA_CM_EVENT_DISCONNECTED, PERF_CM_DISC_MS, NULL);
}

void
perf_cm_test_close(struct perf_run *r)
{
	struct perf_cm *cm = r->cm;

	if (cm == NULL)
		return;
	perf_cm_disconnect(r, cm, cm->test, &cm->test_gone);
	perf_cm_id_destroy(r, cm, &cm->test);
}

void
perf_cm_close(struct perf_run *r)
{
	struct perf_cm *cm = r->cm;

	if (cm == NULL)
		return;
	perf_cm_test_close(r);
	perf_cm_disconnect(r, cm, cm->ctrl, &cm->ctrl_gone);
	perf_cm_id_destroy(r, cm, &cm->ctrl);
	perf_cm_id_destroy(r, cm, &cm->listen);
	if (cm->ch != NULL)
		pv_rdma_destroy_event_channel(cm->ch);
	cm->ch = NULL;
	r->cm = NULL;
}
