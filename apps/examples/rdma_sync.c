/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-rdma-server and pv-rdma-client: librdmacm's rdma_server and
 * rdma_client examples on pollverbs, with the synchronous API (ids without
 * an event channel, pv_rdma_verbs.h's helpers). One source, two programs:
 * the role comes from -DRDMA_SYNC_SERVER / -DRDMA_SYNC_CLIENT, else from the
 * program's name ("server" in it: server).
 *
 * Server: an endpoint listening on port -p (7471), one request taken with
 * rdma_get_request() (its QP made from the listener's attributes), one
 * 16-byte receive posted, accept, wait for the client's 16-byte SEND,
 * answer with one, disconnect once it completed.
 * Client: an endpoint for -s (127.0.0.1) port -p made by rdma_create_ep()
 * (address, route and QP), one 16-byte receive posted, connect, one 16-byte
 * SEND, wait for its completion and for the server's message, disconnect.
 *
 * Either side may be librdmacm's program. Both send 16 zero bytes, as the
 * originals. A refused connection ends with "rdma_connect: Connection
 * refused" (the REJ of a port nobody listens on). Exit status 0 on
 * success, as "rdma_server: end 0" / "rdma_client: end 0" say.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pv_rdma_cma.h>
#include <pv_rdma_verbs.h>
#include <pv_rtc.h>

#include "ex_cm.h"
#include "pv_app.h"

#define RS_OPTS		"s:p:"
#define RS_MSG_LEN	16

struct rs {
	int server;
	const char *name;	/* "rdma_server", "rdma_client" */
	const char *host;	/* client: -s */
	const char *port;
	struct pv_rdma_cm_id *listen_id;
	struct pv_rdma_cm_id *id;
	struct pv_mr *recv_mr;
	struct pv_mr *send_mr;	/* NULL when sends go inline */
	int send_flags;
	int connected;
	uint8_t send_msg[RS_MSG_LEN];
	uint8_t recv_msg[RS_MSG_LEN];
};

/* inline sends when the QP can, registered messages, the receive posted */
static int
rs_msgs_setup(struct rs *s, uint32_t max_inline_data)
{
	if (max_inline_data >= RS_MSG_LEN)
		s->send_flags = PV_SEND_INLINE;
	else
		printf("%s: device doesn't support IBV_SEND_INLINE, using sge sends\n", s->name);
	s->recv_mr = pv_rdma_reg_msgs(s->id, s->recv_msg, RS_MSG_LEN);
	if (s->recv_mr == NULL) {
		perror("rdma_reg_msgs for recv_msg");
		return -1;
	}
	if ((s->send_flags & PV_SEND_INLINE) == 0) {
		s->send_mr = pv_rdma_reg_msgs(s->id, s->send_msg, RS_MSG_LEN);
		if (s->send_mr == NULL) {
			perror("rdma_reg_msgs for send_msg");
			return -1;
		}
	}
	if (pv_rdma_post_recv(s->id, NULL, s->recv_msg, RS_MSG_LEN, s->recv_mr) != 0) {
		perror("rdma_post_recv");
		return -1;
	}
	return 0;
}

static int
rs_comp_check(struct rs *s, const char *what, int ret, const struct pv_wc *wc)
{
	if (ret < 0) {
		perror(what);
		return -1;
	}
	if (wc->status != PV_WC_SUCCESS) {
		printf("%s: %s: %s\n", s->name, what, pv_wc_status_str(wc->status));
		return -1;
	}
	return 0;
}

static int
rs_send(struct rs *s)
{
	struct pv_wc wc;
	int ret;

	if (pv_rdma_post_send(s->id, NULL, s->send_msg, RS_MSG_LEN, s->send_mr,
			      s->send_flags) != 0) {
		perror("rdma_post_send");
		return -1;
	}
	while ((ret = pv_rdma_get_send_comp(s->id, &wc)) == 0)
		;
	return rs_comp_check(s, "rdma_get_send_comp", ret, &wc);
}

static int
rs_recv(struct rs *s)
{
	struct pv_wc wc;
	int ret;

	while ((ret = pv_rdma_get_recv_comp(s->id, &wc)) == 0)
		;
	if (rs_comp_check(s, "rdma_get_recv_comp", ret, &wc) != 0)
		return -1;
	if (wc.byte_len != RS_MSG_LEN) {
		printf("%s: received %u bytes, not %d\n", s->name, wc.byte_len, RS_MSG_LEN);
		return -1;
	}
	return 0;
}

/* a request, the QP's inline size, accept; then the client's message in, ours out */
static int
rs_serve(struct rs *s)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr qa;

	if (pv_rdma_listen(s->listen_id, 0) != 0) {
		perror("rdma_listen");
		return -1;
	}
	if (pv_rdma_get_request(s->listen_id, &s->id) != 0) {
		perror("rdma_get_request");
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	memset(&ia, 0, sizeof(ia));
	if (pv_query_qp(s->id->qp, &qa, PV_QP_CAP, &ia) != 0) {
		perror("ibv_query_qp");
		return -1;
	}
	if (rs_msgs_setup(s, ia.cap.max_inline_data) != 0)
		return -1;
	if (pv_rdma_accept(s->id, NULL) != 0) {
		perror("rdma_accept");
		return -1;
	}
	s->connected = 1;
	return rs_recv(s) ?: rs_send(s);
}

/* the endpoint's QP tells what inline size it got; connect, ours out, theirs in */
static int
rs_connect(struct rs *s, const struct pv_qp_init_attr *ia)
{
	if (rs_msgs_setup(s, ia->cap.max_inline_data) != 0)
		return -1;
	if (pv_rdma_connect(s->id, NULL) != 0) {
		perror("rdma_connect");
		return -1;
	}
	s->connected = 1;
	return rs_send(s) ?: rs_recv(s);
}

static int
rs_run(struct rs *s)
{
	struct pv_rdma_addrinfo hints = { .ai_port_space = PV_RDMA_PS_TCP };
	struct pv_rdma_addrinfo *res;
	struct pv_qp_init_attr ia;
	int ret;

	if (s->server)
		hints.ai_flags = PV_RAI_PASSIVE;
	if (ex_cm_addr_get(NULL, s->host, s->port, &hints, &res) != 0)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = RS_MSG_LEN;
	ia.sq_sig_all = 1;
	if (pv_rdma_create_ep(s->server ? &s->listen_id : &s->id, res, NULL, &ia) != 0) {
		perror("rdma_create_ep");
		pv_rdma_freeaddrinfo(res);
		return -1;
	}
	ret = s->server ? rs_serve(s) : rs_connect(s, &ia);
	if (s->id != NULL) {
		if (s->connected)
			pv_rdma_disconnect(s->id);
		if (s->send_mr != NULL)
			pv_rdma_dereg_mr(s->send_mr);
		if (s->recv_mr != NULL)
			pv_rdma_dereg_mr(s->recv_mr);
		pv_rdma_destroy_ep(s->id);
	}
	if (s->listen_id != NULL)
		pv_rdma_destroy_ep(s->listen_id);
	pv_rdma_freeaddrinfo(res);
	return ret;
}

int
main(int argc, char **argv)
{
	struct rs s = { .host = "127.0.0.1", .port = "7471" };
	const char *port = pv_app_opt_peek(argc, argv, RS_OPTS, 'p', s.port);
	int op, ret;

#if defined(RDMA_SYNC_SERVER)
	s.server = 1;
#elif !defined(RDMA_SYNC_CLIENT)
	s.server = strstr(argv[0], "server") != NULL;
#endif
	s.name = s.server ? "rdma_server" : "rdma_client";
	setvbuf(stdout, NULL, _IOLBF, 0);	/* lines reach a log even when killed */
	/* built-in EAL args: both roles meet on /tmp/pv-rdma-sync-PORT.sock */
	if (pv_app_init(&argc, &argv, "rdma-sync", s.server, (uint16_t)atoi(port)) != 0)
		return 1;
	while ((op = getopt(argc, argv, RS_OPTS)) != -1) {
		if (op == 'p') {
			s.port = optarg;
		} else if (op == 's' && !s.server) {
			s.host = optarg;
		} else {
			printf("usage: %s [EAL and --pv-dev args --]\n", argv[0]);
			if (!s.server)
				printf("\t[-s server_address]\n");
			printf("\t[-p port_number]\n");
			pv_cleanup();
			return 1;
		}
	}
	printf("%s: start\n", s.name);
	ret = rs_run(&s);
	printf("%s: end %d\n", s.name, ret);
	pv_cleanup();
	return ret == 0 ? 0 : 1;
}
