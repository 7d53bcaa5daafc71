/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-udaddy: rdmacm-utils' udaddy on pollverbs' connection manager: UD
 * "connections" through service ID resolution (SIDR).
 *
 * Both sides use RDMA_PS_UDP ids (-p 0x0111; the port number is udaddy's
 * fixed 7174, or --port). The client resolves, routes and connects -c ids
 * over one event channel: rdma_connect() on a UD id sends a SIDR_REQ. The
 * server answers each CONNECT_REQUEST with rdma_accept() carrying its UD
 * QP's number (SIDR_REP), which makes that id ready at once. The client's
 * ESTABLISHED event carries the server's QPN, Q_Key and address handle
 * attributes: it creates the AH and sends -C datagrams of -S bytes per id,
 * SEND with immediate = its own QPN, unsignaled. The server receives them;
 * from the first it builds its reply AH (GRH of the receive buffer) and the
 * client's QPN (the immediate), takes the Q_Key of its own QP, and sends -C
 * datagrams back, signaled; the client receives them. No disconnect: UD
 * has no connection.
 *
 * udaddy sends a malloc()ed buffer it never writes: its data is not
 * deterministic. pv-udaddy checks every completion's status, -C receives
 * per id, each of -S bytes behind a 40-byte GRH, with the immediate data set
 * to the peer's QPN; -V (a pollverbs option, peer pv-udaddy only) also
 * checks the payload pattern (ex_cm.h). Exit status 0 only when all of it
 * held.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ex_cm.h"
#include "pv_app.h"

#define UDA_OPTS	"s:b:c:C:S:t:p:P:f:VT:"

enum {
	UDA_OPT_PORT = 256,
};

struct uda_node {
	struct ex_cm_node n;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
};

/* as udaddy: a datagram must fit the port's active MTU */
static int
uda_params_check(struct ex_cm *t, struct ex_cm_node *n)
{
	struct pv_port_attr pa;
	int mtu;

	if (pv_query_port(n->id->verbs, n->id->port_num, &pa) != 0)
		return -EIO;
	mtu = 1 << (pa.active_mtu + 7);
	if (t->count > 0 && t->size > mtu) {
		printf("udaddy: message_size %d is larger than active mtu %d\n", t->size, mtu);
		return -EINVAL;
	}
	return 0;
}

/* one CQ for sends and receives, unsignaled sends: udaddy's resources */
static int
uda_node_init(struct ex_cm *t, struct ex_cm_node *n)
{
	int ret = uda_params_check(t, n);

	ret = ret ?: ex_cm_node_init(t, n, PV_QPT_UD, 1, t->count > 0 ? 2 * t->count : 2, 0);
	return ret ?: ex_cm_post_recvs(t, n);
}

/* server: the reply goes where the first datagram came from (udaddy's way) */
static int
uda_reply_ah(struct uda_node *u, struct pv_wc *wc, uint8_t *grh)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr qa;
	int ret;

	u->n.ah = pv_create_ah_from_wc(u->n.pd, wc, (void *)grh, u->n.id->port_num);
	if (u->n.ah == NULL) {
		printf("udaddy: connection %d: no address handle from the first datagram: %s\n",
		       u->n.index, strerror(errno));
		return -EIO;
	}
	u->remote_qpn = ntohl(wc->imm_data);
	ret = pv_query_qp(u->n.id->qp, &qa, PV_QP_QKEY, &ia);
	if (ret != 0) {
		printf("udaddy: pv_query_qp: %s\n", strerror(ret));
		return -ret;
	}
	u->remote_qkey = qa.qkey;
	return 0;
}

struct uda_check {
	struct ex_cm *t;
	struct uda_node *u;
	int recvs;		/* receives counted */
};

static int
uda_wc_check(void *arg, const struct pv_wc *cwc)
{
	struct uda_check *k = arg;
	struct ex_cm *t = k->t;
	struct uda_node *u = k->u;
	struct pv_wc wc = *cwc;
	uint8_t *slot;
	long bad;

	if (wc.status != PV_WC_SUCCESS) {
		printf("udaddy: connection %d: completion: %s (%d)\n", u->n.index,
		       pv_wc_status_str(wc.status), wc.status);
		return -EIO;
	}
	if (wc.opcode != PV_WC_RECV)
		return 0;
	k->recvs++;
	slot = ex_cm_recv_slot(t, &u->n, (int)wc.wr_id);
	if (wc.byte_len != t->recv_len || !(wc.wc_flags & PV_WC_WITH_IMM)) {
		printf("udaddy: connection %d: receive of %u bytes (GRH included), flags 0x%x: "
		       "expected %zu with immediate data\n", u->n.index, wc.byte_len,
		       wc.wc_flags, t->recv_len);
		return -EIO;
	}
	if (u->n.ah == NULL && uda_reply_ah(u, &wc, slot) != 0)
		return -EIO;
	if (ntohl(wc.imm_data) != u->remote_qpn) {
		printf("udaddy: connection %d: immediate data 0x%x, not the peer's QPN 0x%x\n",
		       u->n.index, ntohl(wc.imm_data), u->remote_qpn);
		return -EIO;
	}
	if (t->verify) {
		bad = ex_pattern_check(slot + EX_CM_GRH_LEN, t->size, -1);
		if (bad >= 0) {
			printf("udaddy: connection %d: wrong byte at offset %ld\n", u->n.index, bad);
			return -EIO;
		}
	}
	return 0;
}

/*
 * As udaddy: count -C completions of each node's CQ. Unsignaled sends make
 * none, so the client counts its receives; the server counts its receives,
 * then (second call) its signaled sends. pv-udaddy also requires the first
 * call to have counted receives only.
 */
static int
uda_poll_cqs(struct ex_cm *t, int want_recvs)
{
	struct uda_check k = { .t = t };
	char what[64];
	int i, ret;

	for (i = 0; i < t->conns; i++) {
		k.u = (struct uda_node *)ex_cm_node(t, i);
		if (!k.u->n.connected)
			continue;
		k.recvs = 0;
		snprintf(what, sizeof(what), "udaddy: connection %d", i);
		ret = ex_cq_drain(k.u->n.cq[0], t->count, t->timeout_s, what, uda_wc_check, &k);
		if (ret != 0)
			return ret;
		if (want_recvs && k.recvs != t->count) {
			printf("udaddy: connection %d: %d receives among %d completions\n", i,
			       k.recvs, t->count);
			return -EIO;
		}
	}
	return 0;
}

/* SEND with immediate = our QPN, to the peer's QPN and Q_Key */
static int
uda_post_sends(struct ex_cm *t, unsigned int flags)
{
	struct pv_send_wr tmpl = { .opcode = PV_WR_SEND_WITH_IMM, .send_flags = flags };
	struct uda_node *u;
	int i, ret = 0;

	for (i = 0; i < t->conns && ret == 0; i++) {
		u = (struct uda_node *)ex_cm_node(t, i);
		if (!u->n.connected)
			continue;
		tmpl.imm_data = htonl(u->n.id->qp->qp_num);
		tmpl.wr.ud.ah = u->n.ah;
		tmpl.wr.ud.remote_qpn = u->remote_qpn;
		tmpl.wr.ud.remote_qkey = u->remote_qkey;
		ret = ex_cm_post_sends(t, &u->n, &tmpl);
	}
	return ret;
}

static int
uda_route_resolved(struct ex_cm *t, struct ex_cm_node *n)
{
	struct pv_rdma_conn_param cp = { 0 };

	return ex_cm_connect(t, n, uda_node_init(t, n), &cp);
}

static int
uda_connect_request(struct ex_cm *t, struct pv_rdma_cm_id *id)
{
	struct ex_cm_node *n = ex_cm_request_node(t, id);
	struct pv_rdma_conn_param cp = { 0 };
	int ret;

	if (n == NULL)
		return -ENOMEM;
	ret = uda_node_init(t, n);
	if (ret == 0)
		cp.qp_num = id->qp->qp_num;
	ret = ex_cm_accept(t, n, ret, &cp);
	if (ret != 0)
		return ret;
	/* SIDR: nothing more comes for this id */
	t->connects_left--;
	n->connected = 1;
	return 0;
}

/* client: the SIDR_REP's QPN, Q_Key and AH attributes */
static int
uda_resolved(struct ex_cm *t, struct ex_cm_node *n, struct pv_rdma_cm_event *ev)
{
	struct uda_node *u = (struct uda_node *)n;

	t->connects_left--;
	u->remote_qpn = ev->param.ud.qp_num;
	u->remote_qkey = ev->param.ud.qkey;
	u->n.ah = pv_create_ah(u->n.pd, &ev->param.ud.ah_attr);
	if (u->n.ah == NULL) {
		printf("udaddy: failure creating address handle: %s\n", strerror(errno));
		return -1;
	}
	printf("udaddy: connection %d: remote QPN 0x%06x, Q_Key 0x%08x\n", u->n.index,
	       u->remote_qpn, u->remote_qkey);
	u->n.connected = 1;
	return 0;
}

static int
uda_server(struct ex_cm *t, struct pv_rdma_cm_id *listen)
{
	int ret;

	(void)listen;
	/* udaddy goes on to its data transfers whatever the requests gave;
	 * pv-udaddy stops at the first that failed */
	ret = ex_cm_events(t, &t->connects_left, "connect");
	if (ret != 0 || t->count == 0)
		return ret;
	printf("receiving data transfers\n");
	ret = uda_poll_cqs(t, 1);
	if (ret == 0)
		printf("sending replies\n");
	ret = ret ?: uda_post_sends(t, PV_SEND_SIGNALED);
	ret = ret ?: uda_poll_cqs(t, 0);
	if (ret == 0)
		printf("data transfers complete\n");
	return ret;
}

static int
uda_client(struct ex_cm *t)
{
	int ret;

	ret = ex_cm_events(t, &t->connects_left, "connect");
	if (ret != 0 || t->count == 0)
		return ret;
	printf("initiating data transfers\n");
	ret = uda_post_sends(t, 0);
	if (ret == 0)
		printf("receiving data transfers\n");
	ret = ret ?: uda_poll_cqs(t, 1);
	if (ret == 0)
		printf("data transfers complete\n");
	return ret;
}

static int
uda_opt(struct ex_cm *t, int op, const char *arg)
{
	long ps;

	switch (op) {
	case 'p':
		/* udaddy's -p is the port space, kept for compatibility */
		ps = strtol(arg, NULL, 0);
		if (ps != PV_RDMA_PS_UDP) {
			printf("udaddy: port space %#lx not supported (only %#x)\n", ps,
			       PV_RDMA_PS_UDP);
			return -1;
		}
		return 0;
	case 'P':
		if (strncasecmp("udp", arg, 3) != 0) {
			printf("udaddy: port space %s not supported (only udp)\n", arg);
			return -1;
		}
		return 0;
	case UDA_OPT_PORT:
		t->port = arg;
		return 0;
	default:
		return -1;
	}
}

static void
uda_usage(void)
{
	printf("\t[-P port_space]\n");
	printf("\t    udp (ipoib: not supported)\n");
	printf("\t[-p port_space - %#x for UDP (default)]\n", PV_RDMA_PS_UDP);
	printf("\t[--port=port_number] (pollverbs; default 7174, udaddy's)\n");
}

static const struct option uda_long_opts[] = {
	{ .name = "port", .has_arg = 1, .val = UDA_OPT_PORT },
	{},
};

static const struct ex_cm_ops uda_ops = {
	.optstring = UDA_OPTS,
	.long_opts = uda_long_opts,
	.node_size = sizeof(struct uda_node),
	.opt = uda_opt,
	.usage = uda_usage,
	.route_resolved = uda_route_resolved,
	.request = uda_connect_request,
	.established = uda_resolved,
	.server = uda_server,
	.client = uda_client,
};

/* --port=N or --port N: the memif socket of the built-in EAL args needs it */
static const char *
uda_port_peek(int argc, char **argv, const char *dflt)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--port=", 7) == 0)
			return argv[i] + 7;
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			return argv[i + 1];
	}
	return dflt;
}

int
main(int argc, char **argv)
{
	struct ex_cm t = {
		.name = "udaddy",
		.port = "7174",
		.conns = 1,
		.count = 10,
		.size = 100,
		.recv_room = EX_CM_GRH_LEN,
		.hints = { .ai_port_space = PV_RDMA_PS_UDP },
	};

	return ex_cm_main(&t, &uda_ops, argc, argv, uda_port_peek(argc, argv, t.port));
}
