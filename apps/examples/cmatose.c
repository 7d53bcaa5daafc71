/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-cmatose: rdmacm-utils' ucmatose on pollverbs' connection manager.
 *
 * The server (no -s) listens on port 7471 and accepts -c RC connections;
 * the client resolves, routes and connects -c ids at once over one event
 * channel, so their REQs go out before the first REP comes back. Once every
 * connection is ESTABLISHED each side sends -C SENDs of -S bytes per
 * connection, the server first: the server posts its sends, waits for their
 * completions, then for the client's; the client waits for the server's
 * messages, then replies. The server disconnects every connection and each
 * side waits for one DISCONNECTED per connection. Receives are posted
 * before connecting (client) or accepting (server), -C per connection.
 *
 * ucmatose sends a malloc()ed buffer it never writes: its data is not
 * deterministic. pv-cmatose checks what it can: every completion
 * successful, -C receives and -C sends per connection, each receive of
 * exactly -S bytes. Its own messages carry a pattern (message n of a
 * connection starts with byte n, ex_cm.h), which -V (a pollverbs option)
 * checks on receipt: use it only between two pv-cmatose.
 *
 * Exit status 0 only when every connection was established, carried its
 * messages and was disconnected.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ex_cm.h"
#include "pv_app.h"

#define CMT_OPTS	"s:b:f:P:c:C:S:t:p:ma:VT:"

enum cmt_cq {
	CMT_SEND_CQ,
	CMT_RECV_CQ,
};

struct cmt_node {
	struct ex_cm_node n;
	int recv_seq;		/* -V: the next receive's message number */
};

struct cmt {
	struct ex_cm t;
	int migrate;		/* -m */
	int disconnects_left;
};

static struct cmt *
cmt_of(struct ex_cm *t)
{
	return (struct cmt *)t;
}

/* one RDMA READ each way, 5 retries: ucmatose's connection parameters */
static int
cmt_route_resolved(struct ex_cm *t, struct ex_cm_node *n)
{
	struct pv_rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 5,
	};
	int ret;

	ret = ex_cm_node_init(t, n, PV_QPT_RC, 2, t->count > 0 ? t->count : 1, 1);
	ret = ret ?: ex_cm_post_recvs(t, n);
	return ex_cm_connect(t, n, ret, &cp);
}

static int
cmt_connect_request(struct ex_cm *t, struct pv_rdma_cm_id *id)
{
	struct ex_cm_node *n = ex_cm_request_node(t, id);
	int ret;

	if (n == NULL)
		return -ENOMEM;
	ret = ex_cm_node_init(t, n, PV_QPT_RC, 2, t->count > 0 ? t->count : 1, 1);
	ret = ret ?: ex_cm_post_recvs(t, n);
	return ex_cm_accept(t, n, ret, NULL);
}

static int
cmt_established(struct ex_cm *t, struct ex_cm_node *n, struct pv_rdma_cm_event *ev)
{
	(void)ev;
	n->connected = 1;
	t->connects_left--;
	cmt_of(t)->disconnects_left++;
	return 0;
}

/* as ucmatose: answer the peer's DREQ (a no-op after ours) */
static int
cmt_disconnected(struct ex_cm *t, struct ex_cm_node *n)
{
	pv_rdma_disconnect(n->id);
	cmt_of(t)->disconnects_left--;
	return 0;
}

struct cmt_check {
	struct ex_cm *t;
	struct cmt_node *c;
	enum cmt_cq kind;
};

static int
cmt_wc_check(void *arg, const struct pv_wc *wc)
{
	const struct cmt_check *k = arg;
	struct ex_cm *t = k->t;
	struct cmt_node *c = k->c;
	long bad;

	if (wc->status != PV_WC_SUCCESS) {
		printf("cmatose: connection %d: %s completion: %s (%d)\n", c->n.index,
		       k->kind == CMT_RECV_CQ ? "receive" : "send",
		       pv_wc_status_str(wc->status), wc->status);
		return -EIO;
	}
	if (k->kind == CMT_SEND_CQ)
		return 0;
	if (wc->opcode != PV_WC_RECV || wc->byte_len != (uint32_t)t->size) {
		printf("cmatose: connection %d: receive of %u bytes (opcode %d), not %d\n",
		       c->n.index, wc->byte_len, wc->opcode, t->size);
		return -EIO;
	}
	if (t->verify) {
		bad = ex_pattern_check(ex_cm_recv_slot(t, &c->n, (int)wc->wr_id), t->size,
				       c->recv_seq);
		if (bad >= 0) {
			printf("cmatose: connection %d: message %d: wrong byte at offset %ld\n",
			       c->n.index, c->recv_seq, bad);
			return -EIO;
		}
	}
	c->recv_seq++;
	return 0;
}

/* -C completions of each connection's send or receive CQ */
static int
cmt_poll_cqs(struct ex_cm *t, enum cmt_cq kind)
{
	struct cmt_check k = { .t = t, .kind = kind };
	char what[64];
	int i, ret;

	for (i = 0; i < t->conns; i++) {
		k.c = (struct cmt_node *)ex_cm_node(t, i);
		if (!k.c->n.connected)
			continue;
		snprintf(what, sizeof(what), "cmatose: connection %d %s", i,
			 kind == CMT_RECV_CQ ? "receives" : "sends");
		ret = ex_cq_drain(k.c->n.cq[kind], t->count, t->timeout_s, what, cmt_wc_check, &k);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
cmt_post_sends(struct ex_cm *t)
{
	const struct pv_send_wr tmpl = { .opcode = PV_WR_SEND };
	int i, ret = 0;

	for (i = 0; i < t->conns && ret == 0; i++)
		ret = ex_cm_post_sends(t, ex_cm_node(t, i), &tmpl);
	return ret;
}

static int
cmt_migrate(struct ex_cm *t, struct pv_rdma_cm_id *listen)
{
	struct pv_rdma_event_channel *ch;
	int i, ret = 0;

	printf("migrating to new event channel\n");
	ch = pv_rdma_create_event_channel();
	if (ch == NULL) {
		printf("cmatose: failed to create event channel: %s\n", strerror(errno));
		return -1;
	}
	if (listen != NULL)
		ret = pv_rdma_migrate_id(listen, ch);
	for (i = 0; i < t->conns && ret == 0; i++)
		if (ex_cm_node(t, i)->id != NULL)
			ret = pv_rdma_migrate_id(ex_cm_node(t, i)->id, ch);
	if (ret != 0) {
		printf("cmatose: failure migrating to channel: %s\n", strerror(errno));
		return ret;
	}
	pv_rdma_destroy_event_channel(t->channel);
	t->channel = ch;
	return 0;
}

static int
cmt_server(struct ex_cm *t, struct pv_rdma_cm_id *listen)
{
	struct cmt *c = cmt_of(t);
	struct ex_cm_node *n;
	int i, ret;

	ret = ex_cm_events(t, &t->connects_left, "connect");
	if (ret == 0 && t->count > 0) {
		printf("initiating data transfers\n");
		ret = cmt_post_sends(t);
		if (ret == 0) {
			printf("completing sends\n");
			ret = cmt_poll_cqs(t, CMT_SEND_CQ);
		}
		if (ret == 0) {
			printf("receiving data transfers\n");
			ret = cmt_poll_cqs(t, CMT_RECV_CQ);
		}
		if (ret == 0)
			printf("data transfers complete\n");
	}
	if (ret == 0 && c->migrate)
		ret = cmt_migrate(t, listen);
	if (ret != 0)
		return ret;
	printf("cmatose: disconnecting\n");
	for (i = 0; i < t->conns; i++) {
		n = ex_cm_node(t, i);
		if (!n->connected)
			continue;
		n->connected = 0;
		pv_rdma_disconnect(n->id);
	}
	ret = ex_cm_events(t, &c->disconnects_left, "disconnect");
	if (ret == 0)
		printf("disconnected\n");
	return ret;
}

static int
cmt_client(struct ex_cm *t)
{
	struct cmt *c = cmt_of(t);
	int ret;

	ret = ex_cm_events(t, &t->connects_left, "connect");
	if (ret == 0 && t->count > 0) {
		printf("receiving data transfers\n");
		ret = cmt_poll_cqs(t, CMT_RECV_CQ);
		if (ret == 0) {
			printf("sending replies\n");
			ret = cmt_post_sends(t);
		}
		/* ucmatose does not wait for its replies to complete; a reply
		 * that failed would go unnoticed, so pv-cmatose does */
		ret = ret ?: cmt_poll_cqs(t, CMT_SEND_CQ);
		if (ret == 0)
			printf("data transfers complete\n");
	}
	if (ret == 0 && c->migrate)
		ret = cmt_migrate(t, NULL);
	return ret ?: ex_cm_events(t, &c->disconnects_left, "disconnect");
}

static int
cmt_opt(struct ex_cm *t, int op, const char *arg)
{
	switch (op) {
	case 'P':
		if (strncasecmp("ib", arg, 2) == 0)
			t->hints.ai_port_space = PV_RDMA_PS_IB;
		else if (strncasecmp("tcp", arg, 3) != 0)
			fprintf(stderr, "Warning: unknown port space format\n");
		return 0;
	case 'p':
		t->port = arg;
		return 0;
	case 'm':
		cmt_of(t)->migrate = 1;
		return 0;
	case 'a':
		t->ack_timeout_set = 1;
		t->ack_timeout = (uint8_t)strtoul(arg, NULL, 0);
		return 0;
	default:
		return -1;
	}
}

static void
cmt_usage(void)
{
	printf("\t[-P port_space]\n");
	printf("\t    tcp or ib\n");
	printf("\t[-p port_number]\n");
	printf("\t[-m(igrate)]\n");
	printf("\t[-a ack_timeout]\n");
}

static const struct ex_cm_ops cmt_ops = {
	.optstring = CMT_OPTS,
	.node_size = sizeof(struct cmt_node),
	.opt = cmt_opt,
	.usage = cmt_usage,
	.route_resolved = cmt_route_resolved,
	.request = cmt_connect_request,
	.established = cmt_established,
	.disconnected = cmt_disconnected,
	.server = cmt_server,
	.client = cmt_client,
};

int
main(int argc, char **argv)
{
	struct cmt c = {
		.t = {
			.name = "cmatose",
			.port = "7471",
			.conns = 1,
			.count = 10,
			.size = 100,
			.hints = { .ai_port_space = PV_RDMA_PS_TCP },
		},
	};

	return ex_cm_main(&c.t, &cmt_ops, argc, argv,
			  pv_app_opt_peek(argc, argv, CMT_OPTS, 'p', c.t.port));
}
