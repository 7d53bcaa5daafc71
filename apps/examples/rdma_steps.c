/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-rdma-steps: RDMA programming step by step, one printed line per step,
 * on the connection manager (pv_rdma_cma.h) and the verbs (pv_verbs.h):
 *
 *   event channel -> id -> (client) resolve address -> resolve route
 *                       -> (server) bind -> listen -> connection request
 *   -> protection domain -> memory region -> completion queue -> queue pair
 *   -> post a receive -> (client) connect / (server) accept -> established
 *   -> client: send, wait for its completion, wait for the reply
 *      server: wait for the message, send the reply, wait for its completion
 *   -> disconnect -> clean up in reverse order
 *
 * The QP's INIT -> RTR -> RTS transitions, which a program without a CM
 * makes with three pv_modify_qp() calls, are the CM's work here: it makes
 * them as the connection is set up.
 *
 * -H does the memory registration, posts and completion waits with the
 * librdmacm helpers of pv_rdma_verbs.h (pv_rdma_reg_msgs(),
 * pv_rdma_post_recv(), pv_rdma_post_send(), pv_rdma_get_send_comp(),
 * pv_rdma_get_recv_comp()) on the CQs the CM makes for the id, instead of
 * pv_reg_mr(), pv_post_recv(), pv_post_send() and pv_poll_cq() on a CQ of
 * its own.
 *
 * The messages are fixed; the exit status is 0 only when each side got the
 * other's intact.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pv_rdma_compat.h"

#define STEPS_PORT		"7471"
#define STEPS_MSG_SIZE		64
#define STEPS_QUEUE_DEPTH	16
#define STEPS_RESOLVE_MS	2000
#define STEPS_POLL_S		10
#define STEPS_CLIENT_MSG	"hello from the active side"
#define STEPS_SERVER_MSG	"hello from the passive side"
#define STEPS_OPTS		"sca:p:H"
/* how completions are awaited: pv_poll_cq(), or with -H rdma_get_*_comp() */
#define STEPS_WAIT		"(poll the CQ; -H: rdma_get_send/recv_comp)"

enum {
	STEPS_WRID_RECV = 1,
	STEPS_WRID_SEND = 2,
};

struct steps {
	int server;
	int helpers;			/* -H: pv_rdma_verbs.h */
	const char *addr;
	const char *port;
	struct pv_rdma_event_channel *channel;
	struct pv_rdma_cm_id *listen_id;
	struct pv_rdma_cm_id *id;
	struct pv_pd *pd;
	struct pv_mr *mr;
	struct pv_cq *cq;		/* NULL with -H: the id's CQs */
	char buf[2 * STEPS_MSG_SIZE];	/* receive half, send half */
	int step;
};

static void
steps_print(struct steps *s, const char *what)
{
	printf("step %2d: %s\n", ++s->step, what);
}

static int
steps_fail(const char *what)
{
	fprintf(stderr, "failed: %s: %s\n", what, strerror(errno));
	return -1;
}

static char *
steps_recv_buf(struct steps *s)
{
	return s->buf;
}

static char *
steps_send_buf(struct steps *s)
{
	return s->buf + STEPS_MSG_SIZE;
}

/* the next CM event, which must be @p want; its id in *id_p when asked */
static int
steps_event(struct steps *s, enum pv_rdma_cm_event_type want, struct pv_rdma_cm_id **id_p)
{
	struct pv_rdma_cm_event *ev;
	int ok;

	if (pv_rdma_get_cm_event(s->channel, &ev) != 0)
		return steps_fail("rdma_get_cm_event");
	ok = ev->event == want;
	if (!ok)
		fprintf(stderr, "failed: expected %s, got %s (status %d)\n",
			pv_rdma_event_str(want), pv_rdma_event_str(ev->event), ev->status);
	else if (id_p != NULL)
		*id_p = ev->id;
	pv_rdma_ack_cm_event(ev);
	if (ok)
		printf("         event %s\n", pv_rdma_event_str(want));
	return ok ? 0 : -1;
}

static double
steps_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* one completion of work request @p wr_id, by polling (seed style) */
static int
steps_poll(struct steps *s, uint64_t wr_id)
{
	double end = steps_now_s() + STEPS_POLL_S;
	struct pv_wc wc;
	int n;

	if (s->helpers) {
		n = wr_id == STEPS_WRID_SEND ? pv_rdma_get_send_comp(s->id, &wc) :
					       pv_rdma_get_recv_comp(s->id, &wc);
		if (n != 1)
			return steps_fail("rdma_get_send_comp / rdma_get_recv_comp");
	} else {
		do {
			n = pv_poll_cq(s->cq, 1, &wc);
		} while (n == 0 && steps_now_s() < end);
		if (n != 1) {
			fprintf(stderr, "failed: poll_cq: %s\n",
				n == 0 ? "no completion in time" : "error");
			return -1;
		}
	}
	if (wc.status != PV_WC_SUCCESS || wc.wr_id != wr_id) {
		fprintf(stderr, "failed: completion of wr_id %llu: %s (wr_id %llu)\n",
			(unsigned long long)wr_id, pv_wc_status_str(wc.status),
			(unsigned long long)wc.wr_id);
		return -1;
	}
	printf("         completion: wr_id %llu, status %s, %u bytes\n",
	       (unsigned long long)wc.wr_id, pv_wc_status_str(wc.status), wc.byte_len);
	return 0;
}

static int
steps_post_recv(struct steps *s)
{
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;

	if (s->helpers)
		return pv_rdma_post_recv(s->id, (void *)(uintptr_t)STEPS_WRID_RECV,
					 steps_recv_buf(s), STEPS_MSG_SIZE, s->mr);
	sge.addr = (uintptr_t)steps_recv_buf(s);
	sge.length = STEPS_MSG_SIZE;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = STEPS_WRID_RECV;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	errno = pv_post_recv(s->id->qp, &wr, &bad);
	return errno == 0 ? 0 : -1;
}

static int
steps_post_send(struct steps *s, const char *msg)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;

	snprintf(steps_send_buf(s), STEPS_MSG_SIZE, "%s", msg);
	if (s->helpers)
		return pv_rdma_post_send(s->id, (void *)(uintptr_t)STEPS_WRID_SEND,
					 steps_send_buf(s), STEPS_MSG_SIZE, s->mr,
					 PV_SEND_SIGNALED);
	sge.addr = (uintptr_t)steps_send_buf(s);
	sge.length = STEPS_MSG_SIZE;
	sge.lkey = s->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = STEPS_WRID_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	errno = pv_post_send(s->id->qp, &wr, &bad);
	return errno == 0 ? 0 : -1;
}

static int
steps_check(struct steps *s, const char *want)
{
	char *got = steps_recv_buf(s);

	got[STEPS_MSG_SIZE - 1] = '\0';
	printf("         received \"%s\"\n", got);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "failed: expected \"%s\"\n", want);
		return -1;
	}
	return 0;
}

static int
steps_client_resolve(struct steps *s)
{
	struct addrinfo hints, *ai;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(s->addr, s->port, &hints, &ai);
	if (ret != 0) {
		fprintf(stderr, "failed: getaddrinfo %s: %s\n", s->addr, gai_strerror(ret));
		return -1;
	}
	steps_print(s, "resolve the server's address to a device and port (rdma_resolve_addr)");
	ret = pv_rdma_resolve_addr(s->id, NULL, ai->ai_addr, STEPS_RESOLVE_MS);
	freeaddrinfo(ai);
	if (ret != 0)
		return steps_fail("rdma_resolve_addr");
	if (steps_event(s, PV_RDMA_CM_EVENT_ADDR_RESOLVED, NULL) != 0)
		return -1;
	steps_print(s, "resolve the route to it (rdma_resolve_route)");
	if (pv_rdma_resolve_route(s->id, STEPS_RESOLVE_MS) != 0)
		return steps_fail("rdma_resolve_route");
	return steps_event(s, PV_RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
}

static int
steps_server_listen(struct steps *s)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(s->port));
	steps_print(s, "bind the id to port and any address (rdma_bind_addr)");
	if (pv_rdma_bind_addr(s->listen_id, (struct sockaddr *)&sin) != 0)
		return steps_fail("rdma_bind_addr");
	steps_print(s, "listen (rdma_listen)");
	if (pv_rdma_listen(s->listen_id, 1) != 0)
		return steps_fail("rdma_listen");
	printf("         listening on port %s\n", s->port);
	steps_print(s, "wait for a connection request: it brings a new id");
	return steps_event(s, PV_RDMA_CM_EVENT_CONNECT_REQUEST, &s->id);
}

static int
steps_register(struct steps *s)
{
	if (s->helpers) {
		steps_print(s, "register the message buffers on the id's PD (rdma_reg_msgs)");
		s->mr = pv_rdma_reg_msgs(s->id, s->buf, sizeof(s->buf));
	} else {
		steps_print(s, "register the buffer: local write, remote read and write "
			       "(ibv_reg_mr)");
		s->mr = pv_reg_mr(s->pd, s->buf, sizeof(s->buf), PV_ACCESS_LOCAL_WRITE |
				  PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_WRITE);
	}
	if (s->mr == NULL)
		return steps_fail("memory registration");
	printf("         lkey 0x%x rkey 0x%x\n", s->mr->lkey, s->mr->rkey);
	return 0;
}

/* PD, MR, CQ, QP on the connection's device (-H: the MR after the QP) */
static int
steps_resources(struct steps *s)
{
	struct pv_qp_init_attr attr;

	steps_print(s, "allocate a protection domain (ibv_alloc_pd)");
	s->pd = pv_alloc_pd(s->id->verbs);
	if (s->pd == NULL)
		return steps_fail("ibv_alloc_pd");
	if (!s->helpers && steps_register(s) != 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	if (s->helpers) {
		steps_print(s, "no CQ: the CM makes one per queue, with a completion channel");
	} else {
		steps_print(s, "create a completion queue for both queues (ibv_create_cq)");
		s->cq = pv_create_cq(s->id->verbs, 2 * STEPS_QUEUE_DEPTH, NULL, NULL, 0);
		if (s->cq == NULL)
			return steps_fail("ibv_create_cq");
		attr.send_cq = s->cq;
		attr.recv_cq = s->cq;
	}
	steps_print(s, "create an RC queue pair; the CM takes it to INIT (rdma_create_qp)");
	attr.qp_type = PV_QPT_RC;
	attr.cap.max_send_wr = STEPS_QUEUE_DEPTH;
	attr.cap.max_recv_wr = STEPS_QUEUE_DEPTH;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (pv_rdma_create_qp(s->id, s->pd, &attr) != 0)
		return steps_fail("rdma_create_qp");
	printf("         QP number 0x%x\n", s->id->qp->qp_num);
	/* rdma_reg_msgs() registers on id->pd, which rdma_create_qp() sets */
	if (s->helpers && steps_register(s) != 0)
		return -1;
	steps_print(s, s->helpers ? "post a receive before connecting (rdma_post_recv)" :
				     "post a receive before connecting (ibv_post_recv)");
	if (steps_post_recv(s) != 0)
		return steps_fail("post receive");
	return 0;
}

static int
steps_connect(struct steps *s)
{
	struct pv_rdma_conn_param param;

	memset(&param, 0, sizeof(param));
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (s->server) {
		steps_print(s, "accept: the QP goes to RTR and RTS (rdma_accept)");
		if (pv_rdma_accept(s->id, &param) != 0)
			return steps_fail("rdma_accept");
	} else {
		steps_print(s, "connect: the QP goes to RTR and RTS (rdma_connect)");
		if (pv_rdma_connect(s->id, &param) != 0)
			return steps_fail("rdma_connect");
	}
	return steps_event(s, PV_RDMA_CM_EVENT_ESTABLISHED, NULL);
}

static int
steps_exchange(struct steps *s)
{
	if (s->server) {
		steps_print(s, "wait for the client's message " STEPS_WAIT);
		if (steps_poll(s, STEPS_WRID_RECV) != 0 || steps_check(s, STEPS_CLIENT_MSG) != 0)
			return -1;
		steps_print(s, s->helpers ? "send the reply (rdma_post_send)" :
					     "send the reply (ibv_post_send)");
		if (steps_post_send(s, STEPS_SERVER_MSG) != 0)
			return steps_fail("post send");
		steps_print(s, "wait for its completion " STEPS_WAIT);
		return steps_poll(s, STEPS_WRID_SEND);
	}
	steps_print(s, s->helpers ? "send a message (rdma_post_send)" :
				     "send a message (ibv_post_send)");
	if (steps_post_send(s, STEPS_CLIENT_MSG) != 0)
		return steps_fail("post send");
	steps_print(s, "wait for its completion " STEPS_WAIT);
	if (steps_poll(s, STEPS_WRID_SEND) != 0)
		return -1;
	steps_print(s, "wait for the server's reply " STEPS_WAIT);
	if (steps_poll(s, STEPS_WRID_RECV) != 0)
		return -1;
	return steps_check(s, STEPS_SERVER_MSG);
}

/* the client disconnects; the server waits for it */
static int
steps_disconnect(struct steps *s)
{
	if (s->server) {
		steps_print(s, "wait for the client to disconnect");
		return steps_event(s, PV_RDMA_CM_EVENT_DISCONNECTED, NULL);
	}
	steps_print(s, "disconnect: the QP goes to ERROR (rdma_disconnect)");
	if (pv_rdma_disconnect(s->id) != 0)
		return steps_fail("rdma_disconnect");
	return steps_event(s, PV_RDMA_CM_EVENT_DISCONNECTED, NULL);
}

static void
steps_cleanup(struct steps *s)
{
	steps_print(s, "clean up in reverse order: QP, CQ, MR, PD, ids, event channel");
	if (s->id != NULL && s->id->qp != NULL)
		pv_rdma_destroy_qp(s->id);
	if (s->cq != NULL)
		pv_destroy_cq(s->cq);
	if (s->mr != NULL)
		pv_dereg_mr(s->mr);
	if (s->pd != NULL)
		pv_dealloc_pd(s->pd);
	if (s->id != NULL)
		pv_rdma_destroy_id(s->id);
	if (s->listen_id != NULL)
		pv_rdma_destroy_id(s->listen_id);
	pv_rdma_destroy_event_channel(s->channel);
}

static int
steps_run(struct steps *s)
{
	struct pv_rdma_cm_id **idp = s->server ? &s->listen_id : &s->id;
	int ret;

	steps_print(s, "create an event channel for CM events (rdma_create_event_channel)");
	s->channel = pv_rdma_create_event_channel();
	if (s->channel == NULL)
		return steps_fail("rdma_create_event_channel");
	steps_print(s, "create a communication id, TCP port space (rdma_create_id)");
	if (pv_rdma_create_id(s->channel, idp, NULL, PV_RDMA_PS_TCP) != 0) {
		steps_fail("rdma_create_id");
		pv_rdma_destroy_event_channel(s->channel);
		return -1;
	}
	ret = s->server ? steps_server_listen(s) : steps_client_resolve(s);
	ret = ret ?: steps_resources(s);
	ret = ret ?: steps_connect(s);
	ret = ret ?: steps_exchange(s);
	ret = ret ?: steps_disconnect(s);
	steps_cleanup(s);
	return ret;
}

static void
steps_usage(void)
{
	fprintf(stderr, "usage: pv-rdma-steps [EAL and --pv-dev args --] -s [-H] [-p port]\n"
			"       pv-rdma-steps [EAL and --pv-dev args --] -c -a <server-address> "
			"[-H] [-p port]\n"
			"  -H  use the librdmacm helpers (rdma_verbs.h) for memory, posts "
			"and completions\n");
}

int
main(int argc, char **argv)
{
	struct steps s;
	int op, role = -1, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pv_app_init(&argc, &argv, "rdma-steps",
			pv_app_opt_peek(argc, argv, STEPS_OPTS, 's', NULL) != NULL,
			(uint16_t)atoi(pv_app_opt_peek(argc, argv, STEPS_OPTS, 'p',
						       STEPS_PORT))) != 0)
		return 1;
	memset(&s, 0, sizeof(s));
	s.port = STEPS_PORT;
	while ((op = getopt(argc, argv, STEPS_OPTS)) != -1) {
		switch (op) {
		case 's':
			role = 1;
			break;
		case 'c':
			role = 0;
			break;
		case 'a':
			s.addr = optarg;
			break;
		case 'p':
			s.port = optarg;
			break;
		case 'H':
			s.helpers = 1;
			break;
		default:
			steps_usage();
			return 1;
		}
	}
	if (role < 0 || (role == 0 && s.addr == NULL) || optind != argc) {
		steps_usage();
		return 1;
	}
	s.server = role;
	printf("pv-rdma-steps: %s%s\n", s.server ? "server" : "client",
	       s.helpers ? ", librdmacm helpers" : "");
	ret = steps_run(&s);
	pv_cleanup();
	printf("%s\n", ret == 0 ? "all steps done" : "a step failed");
	return ret == 0 ? 0 : 1;
}
