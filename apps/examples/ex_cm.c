/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* What pv-cmatose and pv-udaddy share: see ex_cm.h. */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <pv_rtc.h>

#include "ex_cm.h"
#include "pv_app.h"

static uint64_t
ex_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
ex_gai_error(const char *what, int ret)
{
	printf("pv_rdma_getaddrinfo %s: %s\n", what,
	       ret == -1 ? strerror(errno) : gai_strerror(ret));
}

int
ex_cm_addr_get(const char *src, const char *dst, const char *port,
	       const struct pv_rdma_addrinfo *hints, struct pv_rdma_addrinfo **rai_p)
{
	struct pv_rdma_addrinfo h = *hints, *bound;
	int ret;

	if ((h.ai_flags & PV_RAI_PASSIVE) || src == NULL) {
		const char *node = (h.ai_flags & PV_RAI_PASSIVE) ? src : dst;

		ret = pv_rdma_getaddrinfo(node, port, &h, rai_p);
		if (ret != 0)
			ex_gai_error(node != NULL ? node : "(any)", ret);
		return ret != 0 ? -1 : 0;
	}
	/* -b: the source resolved as a passive address, then the destination */
	h.ai_flags |= PV_RAI_PASSIVE;
	ret = pv_rdma_getaddrinfo(src, NULL, &h, &bound);
	if (ret != 0) {
		ex_gai_error(src, ret);
		return -1;
	}
	h.ai_flags &= ~PV_RAI_PASSIVE;
	h.ai_src_addr = bound->ai_src_addr;
	h.ai_src_len = bound->ai_src_len;
	ret = pv_rdma_getaddrinfo(dst, port, &h, rai_p);
	if (ret != 0)
		ex_gai_error(dst, ret);
	pv_rdma_freeaddrinfo(bound);
	return ret != 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ nodes */

struct ex_cm_node *
ex_cm_node(const struct ex_cm *t, int i)
{
	return (struct ex_cm_node *)((char *)t->nodes + (size_t)i * t->ops->node_size);
}

uint8_t *
ex_cm_send_slot(const struct ex_cm *t, const struct ex_cm_node *n, int i)
{
	return n->buf + (size_t)i * t->size;
}

uint8_t *
ex_cm_recv_slot(const struct ex_cm *t, const struct ex_cm_node *n, int i)
{
	return n->buf + (size_t)t->count * t->size + (size_t)i * t->recv_len;
}

/* byte i of message n is n + i */
static void
ex_pattern_fill(uint8_t *buf, size_t len, uint32_t seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seq + i);
}

long
ex_pattern_check(const uint8_t *buf, size_t len, long seq)
{
	uint8_t first;
	size_t i;

	if (len == 0)
		return -1;
	first = seq < 0 ? buf[0] : (uint8_t)seq;
	for (i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(first + i))
			return (long)i;
	return -1;
}

int
ex_cm_node_init(struct ex_cm *t, struct ex_cm_node *n, enum pv_qp_type qp_type, int ncq,
		int cqe, int sq_sig_all)
{
	struct pv_qp_init_attr qa;
	int wrs = t->count > 0 ? t->count : 1;
	size_t len;
	int i;

	n->pd = pv_alloc_pd(n->id->verbs);
	if (n->pd == NULL) {
		printf("%s: unable to allocate PD\n", t->name);
		return -ENOMEM;
	}
	for (i = 0; i < ncq; i++) {
		n->cq[i] = pv_create_cq(n->id->verbs, cqe, n, NULL, 0);
		if (n->cq[i] == NULL) {
			printf("%s: unable to create CQ\n", t->name);
			return -ENOMEM;
		}
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = qp_type;
	qa.qp_context = n;
	qa.sq_sig_all = sq_sig_all;
	qa.send_cq = n->cq[0];
	qa.recv_cq = n->cq[ncq - 1];
	qa.cap.max_send_wr = wrs;
	qa.cap.max_recv_wr = wrs;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (pv_rdma_create_qp(n->id, n->pd, &qa) != 0) {
		int err = errno;

		printf("%s: unable to create QP: %s\n", t->name, strerror(err));
		return -err;
	}
	if (t->count == 0)
		return 0;
	len = (size_t)t->count * (t->size + t->recv_len);
	n->buf = calloc(1, len);
	if (n->buf == NULL) {
		printf("failed message allocation\n");
		return -ENOMEM;
	}
	for (i = 0; i < t->count; i++)
		ex_pattern_fill(ex_cm_send_slot(t, n, i), t->size, i);
	n->mr = pv_reg_mr(n->pd, n->buf, len, PV_ACCESS_LOCAL_WRITE);
	if (n->mr == NULL) {
		printf("failed to reg MR\n");
		return -ENOMEM;
	}
	return 0;
}

static void
ex_cm_node_fini(struct ex_cm_node *n)
{
	int i;

	if (n->id == NULL)
		return;
	if (n->ah != NULL)
		pv_destroy_ah(n->ah);
	if (n->id->qp != NULL)
		pv_rdma_destroy_qp(n->id);
	for (i = 0; i < 2; i++)
		if (n->cq[i] != NULL)
			pv_destroy_cq(n->cq[i]);
	if (n->mr != NULL)
		pv_dereg_mr(n->mr);
	free(n->buf);
	if (n->pd != NULL)
		pv_dealloc_pd(n->pd);
	/* the id goes after the device resources made on it */
	pv_rdma_destroy_id(n->id);
}

/* One WR per slot; a send WR is a copy of @p tmpl. */
static int
ex_cm_post(struct ex_cm *t, struct ex_cm_node *n, const struct pv_send_wr *tmpl)
{
	struct pv_recv_wr rwr, *rbad;
	struct pv_send_wr swr, *sbad;
	struct pv_sge sge;
	int i, ret;

	for (i = 0; i < t->count; i++) {
		sge.lkey = n->mr->lkey;
		if (tmpl == NULL) {
			sge.addr = (uintptr_t)ex_cm_recv_slot(t, n, i);
			sge.length = t->recv_len;
			memset(&rwr, 0, sizeof(rwr));
			rwr.wr_id = i;
			rwr.sg_list = &sge;
			rwr.num_sge = 1;
			ret = pv_post_recv(n->id->qp, &rwr, &rbad);
		} else {
			sge.addr = (uintptr_t)ex_cm_send_slot(t, n, i);
			sge.length = t->size;
			swr = *tmpl;
			swr.wr_id = i;
			swr.next = NULL;
			swr.sg_list = &sge;
			swr.num_sge = 1;
			ret = pv_post_send(n->id->qp, &swr, &sbad);
		}
		if (ret != 0) {
			printf("failed to post %s: %d\n", tmpl == NULL ? "receives" : "sends", ret);
			return -ret;
		}
	}
	return 0;
}

int
ex_cm_post_recvs(struct ex_cm *t, struct ex_cm_node *n)
{
	return ex_cm_post(t, n, NULL);
}

int
ex_cm_post_sends(struct ex_cm *t, struct ex_cm_node *n, const struct pv_send_wr *tmpl)
{
	return n->connected ? ex_cm_post(t, n, tmpl) : 0;
}

/* ------------------------------------------------------------------ events */

static int
ex_cm_route(struct ex_cm *t, struct ex_cm_node *n)
{
	int ret;

	if (t->tos_set && pv_rdma_set_option(n->id, PV_RDMA_OPTION_ID, PV_RDMA_OPTION_ID_TOS,
					     &t->tos, sizeof(t->tos)) != 0)
		printf("%s: set TOS option failed: %s\n", t->name, strerror(errno));
	if (t->ack_timeout_set &&
	    pv_rdma_set_option(n->id, PV_RDMA_OPTION_ID, PV_RDMA_OPTION_ID_ACK_TIMEOUT,
			       &t->ack_timeout, sizeof(t->ack_timeout)) != 0)
		printf("%s: set ack timeout option failed: %s\n", t->name, strerror(errno));
	if (pv_rdma_resolve_route(n->id, 2000) != 0) {
		ret = -errno;
		printf("%s: resolve route failed: %s\n", t->name, strerror(-ret));
		t->connects_left--;
		return ret;
	}
	return 0;
}

struct ex_cm_node *
ex_cm_request_node(struct ex_cm *t, struct pv_rdma_cm_id *id)
{
	struct ex_cm_node *n;

	if (t->next_node == t->conns) {
		printf("%s: failing connection request (more than -c %d)\n", t->name, t->conns);
		pv_rdma_reject(id, NULL, 0);
		return NULL;
	}
	n = ex_cm_node(t, t->next_node++);
	n->id = id;
	id->context = n;
	return n;
}

int
ex_cm_connect(struct ex_cm *t, struct ex_cm_node *n, int ret, struct pv_rdma_conn_param *cp)
{
	if (ret == 0) {
		cp->private_data = t->rai->ai_connect;
		cp->private_data_len = t->rai->ai_connect_len;
		if (pv_rdma_connect(n->id, cp) != 0) {
			ret = -errno;
			printf("%s: failure connecting: %s\n", t->name, strerror(-ret));
		}
	}
	if (ret != 0)
		t->connects_left--;
	return ret;
}

int
ex_cm_accept(struct ex_cm *t, struct ex_cm_node *n, int ret, struct pv_rdma_conn_param *cp)
{
	if (ret == 0 && pv_rdma_accept(n->id, cp) != 0) {
		ret = -errno;
		printf("%s: failure accepting: %s\n", t->name, strerror(-ret));
	}
	if (ret != 0) {
		t->connects_left--;
		printf("%s: failing connection request\n", t->name);
		pv_rdma_reject(n->id, NULL, 0);
	}
	return ret;
}

static int
ex_cm_event_failed(struct ex_cm *t, const struct pv_rdma_cm_event *ev)
{
	printf("%s: event: %s, error: %d\n", t->name, pv_rdma_event_str(ev->event), ev->status);
	t->connects_left--;
	return ev->status != 0 ? ev->status : -ECONNABORTED;
}

/* pv_rdma_get_cm_event(), waiting at most -T seconds */
static int
ex_cm_event_get(struct ex_cm *t, struct pv_rdma_cm_event **ev_p)
{
	struct pollfd pfd = { .fd = t->channel->fd, .events = POLLIN };
	int ret;

	if (t->timeout_s > 0) {
		do {
			ret = poll(&pfd, 1, t->timeout_s * 1000);
		} while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return -errno;
		if (ret == 0)
			return -ETIMEDOUT;
	}
	if (pv_rdma_get_cm_event(t->channel, ev_p) != 0)
		return -errno;
	return 0;
}

static int
ex_cm_event(struct ex_cm *t, struct pv_rdma_cm_event *ev)
{
	struct ex_cm_node *n = ev->id->context;

	switch (ev->event) {
	case PV_RDMA_CM_EVENT_ADDR_RESOLVED:
		return ex_cm_route(t, n);
	case PV_RDMA_CM_EVENT_ROUTE_RESOLVED:
		return t->ops->route_resolved(t, n);
	case PV_RDMA_CM_EVENT_CONNECT_REQUEST:
		return t->ops->request(t, ev->id);
	case PV_RDMA_CM_EVENT_ESTABLISHED:
		return t->ops->established(t, n, ev);
	case PV_RDMA_CM_EVENT_ADDR_ERROR:
	case PV_RDMA_CM_EVENT_ROUTE_ERROR:
	case PV_RDMA_CM_EVENT_CONNECT_ERROR:
	case PV_RDMA_CM_EVENT_UNREACHABLE:
	case PV_RDMA_CM_EVENT_REJECTED:
		return ex_cm_event_failed(t, ev);
	case PV_RDMA_CM_EVENT_DISCONNECTED:
		return t->ops->disconnected != NULL ? t->ops->disconnected(t, n) : 0;
	default:
		/* TIMEWAIT_EXIT, DEVICE_REMOVAL...: nothing to do */
		return 0;
	}
}

int
ex_cm_events(struct ex_cm *t, int *left, const char *phase)
{
	struct pv_rdma_cm_event *ev;
	int ret = 0;

	while (*left > 0 && ret == 0) {
		ret = ex_cm_event_get(t, &ev);
		if (ret != 0) {
			printf("%s: no CM event in %s events: %s (%d left)\n", t->name, phase,
			       strerror(-ret), *left);
			return ret;
		}
		ret = ex_cm_event(t, ev);
		pv_rdma_ack_cm_event(ev);
	}
	return ret;
}

int
ex_cq_drain(struct pv_cq *cq, int count, int timeout_s, const char *what,
	    ex_wc_check_fn check, void *arg)
{
	uint64_t end = ex_now_ms() + (uint64_t)timeout_s * 1000;
	struct pv_wc wc[8];
	int done = 0, n, i, ret;

	while (done < count) {
		n = pv_poll_cq(cq, count - done < 8 ? count - done : 8, wc);
		if (n < 0) {
			printf("%s: pv_poll_cq failed: %d\n", what, n);
			return -EIO;
		}
		for (i = 0; i < n; i++) {
			ret = check(arg, &wc[i]);
			if (ret < 0)
				return ret;
		}
		done += n;
		if (n == 0 && timeout_s > 0 && ex_now_ms() > end) {
			printf("%s: %d of %d completions after %d s\n", what, done, count,
			       timeout_s);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ run */

static int
ex_cm_server(struct ex_cm *t)
{
	struct pv_rdma_cm_id *listen;
	int ret;

	printf("%s: starting server\n", t->name);
	if (pv_rdma_create_id(t->channel, &listen, t, t->hints.ai_port_space) != 0) {
		printf("%s: listen request failed: %s\n", t->name, strerror(errno));
		return -1;
	}
	ret = ex_cm_addr_get(t->src, NULL, t->port, &t->hints, &t->rai);
	if (ret == 0 && pv_rdma_bind_addr(listen, t->rai->ai_src_addr) != 0) {
		ret = -errno;
		printf("%s: bind address failed: %s\n", t->name, strerror(-ret));
	}
	if (ret == 0 && pv_rdma_listen(listen, 0) != 0) {
		ret = -errno;
		printf("%s: failure trying to listen: %s\n", t->name, strerror(-ret));
	}
	if (ret == 0) {
		/* not in librdmacm's examples: tells scripts when to start the client */
		printf("%s: listening on port %s\n", t->name, t->port);
		ret = t->ops->server(t, listen);
	}
	pv_rdma_destroy_id(listen);
	return ret;
}

static int
ex_cm_client(struct ex_cm *t)
{
	int i, ret;

	printf("%s: starting client\n", t->name);
	if (ex_cm_addr_get(t->src, t->dst, t->port, &t->hints, &t->rai) != 0)
		return -1;
	printf("%s: connecting\n", t->name);
	for (i = 0; i < t->conns; i++) {
		if (pv_rdma_resolve_addr(ex_cm_node(t, i)->id, t->rai->ai_src_addr,
					 t->rai->ai_dst_addr, 2000) != 0) {
			ret = -errno;
			printf("%s: failure getting addr: %s\n", t->name, strerror(-ret));
			return ret;
		}
	}
	return t->ops->client(t);
}

static int
ex_cm_nodes_alloc(struct ex_cm *t)
{
	struct ex_cm_node *n;
	int i;

	t->nodes = calloc(t->conns, t->ops->node_size);
	if (t->nodes == NULL) {
		printf("%s: unable to allocate memory for test nodes\n", t->name);
		return -ENOMEM;
	}
	for (i = 0; i < t->conns; i++) {
		n = ex_cm_node(t, i);
		n->index = i;
		if (t->dst == NULL)
			continue;	/* the server's ids come with their requests */
		if (pv_rdma_create_id(t->channel, &n->id, n, t->hints.ai_port_space) != 0) {
			printf("%s: rdma_create_id: %s\n", t->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void
ex_cm_usage(const struct ex_cm *t, const char *argv0)
{
	printf("usage: %s [EAL and --pv-dev args --] [options]\n", argv0);
	printf("\t[-s server_address]\n");
	printf("\t[-b bind_address]\n");
	printf("\t[-f address_format]\n");
	printf("\t    name, ip or ipv6 (gid: not supported)\n");
	printf("\t[-c connections]\n");
	printf("\t[-C message_count]\n");
	printf("\t[-S message_size]\n");
	printf("\t[-t type_of_service]\n");
	t->ops->usage();
	printf("pollverbs options:\n");
	printf("\t[-V] check the data of each message (peer: pv-%s only)\n", t->name);
	printf("\t[-T seconds] give up when a CM event or completion takes longer\n");
	printf("without \"--\": built-in EAL args (softroce over net_memif on this machine)\n");
}

/* the options ucmatose and udaddy share; the others go to ops->opt */
static int
ex_cm_parse(struct ex_cm *t, int argc, char **argv)
{
	int op, ret = 0;

	while (ret == 0 &&
	       (op = getopt_long(argc, argv, t->ops->optstring, t->ops->long_opts, NULL)) != -1) {
		switch (op) {
		case 's':
			t->dst = optarg;
			break;
		case 'b':
			t->src = optarg;
			break;
		case 'f':
			if (strncasecmp("ip", optarg, 2) == 0) {
				t->hints.ai_flags = PV_RAI_NUMERICHOST;
			} else if (strncasecmp("gid", optarg, 3) == 0) {
				printf("%s: -f gid (AF_IB) is not supported\n", t->name);
				ret = -1;
			} else if (strncasecmp("name", optarg, 4) != 0) {
				fprintf(stderr, "Warning: unknown address format\n");
			}
			break;
		case 'c':
			t->conns = atoi(optarg);
			break;
		case 'C':
			t->count = atoi(optarg);
			break;
		case 'S':
			t->size = atoi(optarg);
			break;
		case 't':
			t->tos_set = 1;
			t->tos = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'V':
			t->verify = 1;
			break;
		case 'T':
			t->timeout_s = atoi(optarg);
			break;
		case '?':
			ret = -1;
			break;
		default:
			ret = t->ops->opt(t, op, optarg);
			break;
		}
	}
	if (ret != 0 || optind < argc || t->conns < 1 || t->count < 0 || t->size < 0) {
		ex_cm_usage(t, argv[0]);
		return -1;
	}
	if (t->size == 0)
		t->count = 0;	/* as librdmacm's examples: no messages of no bytes */
	return 0;
}

int
ex_cm_main(struct ex_cm *t, const struct ex_cm_ops *ops, int argc, char **argv,
	   const char *port)
{
	int server = pv_app_opt_peek(argc, argv, ops->optstring, 's', NULL) == NULL;
	int i, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* lines reach a log even when killed */
	t->ops = ops;
	if (pv_app_init(&argc, &argv, t->name, server, (uint16_t)atoi(port)) != 0)
		return 1;
	if (ex_cm_parse(t, argc, argv) != 0) {
		pv_cleanup();
		return 1;
	}
	t->recv_len = t->recv_room + t->size;
	t->connects_left = t->conns;
	t->channel = pv_rdma_create_event_channel();
	if (t->channel == NULL) {
		printf("failed to create event channel: %s\n", strerror(errno));
		pv_cleanup();
		return 1;
	}
	ret = ex_cm_nodes_alloc(t);
	if (ret == 0 && t->dst != NULL) {
		ret = ex_cm_client(t);
	} else if (ret == 0) {
		t->hints.ai_flags |= PV_RAI_PASSIVE;
		ret = ex_cm_server(t);
	}
	printf("test complete\n");
	for (i = 0; t->nodes != NULL && i < t->conns; i++)
		ex_cm_node_fini(ex_cm_node(t, i));
	free(t->nodes);
	pv_rdma_destroy_event_channel(t->channel);
	if (t->rai != NULL)
		pv_rdma_freeaddrinfo(t->rai);
	printf("return status %d\n", ret);
	pv_cleanup();
	return ret == 0 ? 0 : 1;
}
