/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager between two processes over net_memif: the client
 * connects and disconnects PV_CM_CYCLES times (default 1000) to a server
 * that accepts each connection, one SEND per connection checked byte for
 * byte; both sides count what stays held (objects on the CM's PD and
 * context, mbufs out of the device's pool) and print connections/s.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_mempool.h>

#include "pv_rdma_cma.h"
#include "pv_rtc.h"
#include "ut_sroce.h"

#define SRV_IP "10.98.1.1"
#define CLI_IP "10.98.1.2"
#define PORT 7471
#define EV_MS 10000
#define MSG 64

static int sock_fd;
static struct pv_rdma_event_channel *ch;

static int
ev_get(enum pv_rdma_cm_event_type want, struct pv_rdma_cm_event **ev_p)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, EV_MS) != 1) {
			fprintf(stderr, "no %s within %d ms\n", pv_rdma_event_str(want), EV_MS);
			return -1;
		}
		if (pv_rdma_get_cm_event(ch, ev_p) != 0)
			return -1;
		if ((*ev_p)->event == want)
			return 0;
		if ((*ev_p)->event != PV_RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			fprintf(stderr, "expected %s, got %s (%d)\n", pv_rdma_event_str(want),
				pv_rdma_event_str((*ev_p)->event), (*ev_p)->status);
			pv_rdma_ack_cm_event(*ev_p);
			return -1;
		}
		pv_rdma_ack_cm_event(*ev_p);
	}
}

static int
ev_ack(enum pv_rdma_cm_event_type want)
{
	struct pv_rdma_cm_event *ev;

	if (ev_get(want, &ev) != 0)
		return -1;
	pv_rdma_ack_cm_event(ev);
	return 0;
}

static void
qp_attr(struct pv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = PV_QPT_RC;
	a->cap.max_send_wr = 4;
	a->cap.max_recv_wr = 4;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
}

static int
wait_wc(struct pv_cq *cq)
{
	uint64_t end = ut_now_ms() + EV_MS;
	struct pv_wc wc;

	while (ut_now_ms() < end) {
		int n = pv_poll_cq(cq, 1, &wc);

		if (n == 1)
			return wc.status == PV_WC_SUCCESS ? 0 : -1;
		if (n < 0)
			return -1;
	}
	return -1;
}

struct held {
	uint32_t pd_use, ctx_use;
	unsigned int mbufs;
};

static void
held(struct pv_rdma_cm_id *id, struct held *h)
{
	struct rte_mempool *mp = rte_mempool_lookup("sroce0_mp");

	h->pd_use = id->pd->usecnt;
	h->ctx_use = id->verbs->usecnt;
	h->mbufs = mp != NULL ? rte_mempool_in_use_count(mp) : 0;
}

static int
held_check(const char *who, const struct held *a, const struct held *b)
{
	printf("%s: held with one connection up, first vs last: PD objects %u / %u, "
	       "context objects %u / %u, mbufs %u / %u\n", who, a->pd_use, b->pd_use,
	       a->ctx_use, b->ctx_use, a->mbufs, b->mbufs);
	return a->pd_use == b->pd_use && a->ctx_use == b->ctx_use &&
	       b->mbufs <= a->mbufs + 64 ? 0 : -1;
}

static int
server_main(int n)
{
	struct pv_rdma_cm_id *listen, *id;
	struct pv_rdma_cm_event *ev;
	struct pv_qp_init_attr qa;
	struct held first = { 0 }, last = { 0 };
	struct sockaddr_in sin;
	uint8_t buf[MSG], exp[MSG];
	struct pv_mr *mr;
	int i;
	char c = 'L';

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(PORT);
	if (pv_rdma_create_id(ch, &listen, NULL, PV_RDMA_PS_TCP) != 0 ||
	    pv_rdma_bind_addr(listen, (struct sockaddr *)&sin) != 0 ||
	    pv_rdma_listen(listen, 8) != 0) {
		perror("listen");
		return 1;
	}
	if (write(sock_fd, &c, 1) != 1)
		return 1;
	for (i = 0; i < n; i++) {
		struct pv_sge sge;
		struct pv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ev_get(PV_RDMA_CM_EVENT_CONNECT_REQUEST, &ev) != 0)
			return 1;
		id = ev->id;
		pv_rdma_ack_cm_event(ev);
		qp_attr(&qa);
		if (pv_rdma_create_qp(id, NULL, &qa) != 0)
			return 1;
		mr = pv_reg_mr(id->pd, buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE);
		if (mr == NULL)
			return 1;
		memset(buf, 0, sizeof(buf));
		sge = (struct pv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
		if (pv_post_recv(id->qp, &wr, &bad) != 0 || pv_rdma_accept(id, NULL) != 0 ||
		    ev_ack(PV_RDMA_CM_EVENT_ESTABLISHED) != 0 || wait_wc(id->recv_cq) != 0)
			return 1;
		memset(exp, (int)(i & 0xff), sizeof(exp));
		if (memcmp(buf, exp, sizeof(buf)) != 0) {
			fprintf(stderr, "server: connection %d: data differs\n", i);
			return 1;
		}
		if (i == 0)
			held(id, &first);
		if (i == n - 1)
			held(id, &last);
		if (ev_ack(PV_RDMA_CM_EVENT_DISCONNECTED) != 0 || pv_rdma_disconnect(id) != 0)
			return 1;
		pv_rdma_destroy_qp(id);
		pv_dereg_mr(mr);
		if (pv_rdma_destroy_id(id) != 0)
			return 1;
	}
	pv_rdma_destroy_id(listen);
	return held_check("server", &first, &last) == 0 ? 0 : 1;
}

static int
client_main(int n)
{
	struct sockaddr_in src, dst;
	struct pv_rdma_cm_id *id;
	struct pv_qp_init_attr qa;
	struct held first = { 0 }, last = { 0 };
	uint8_t buf[MSG];
	uint64_t t0, dt;
	struct pv_mr *mr;
	int i;
	char c;

	if (read(sock_fd, &c, 1) != 1)
		return 1;
	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	inet_pton(AF_INET, CLI_IP, &src.sin_addr);
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons(PORT);
	inet_pton(AF_INET, SRV_IP, &dst.sin_addr);
	t0 = ut_now_ms();
	for (i = 0; i < n; i++) {
		struct pv_sge sge;
		struct pv_send_wr wr, *bad;

		if (pv_rdma_create_id(ch, &id, NULL, PV_RDMA_PS_TCP) != 0 ||
		    pv_rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
					 2000) != 0 ||
		    ev_ack(PV_RDMA_CM_EVENT_ADDR_RESOLVED) != 0 ||
		    pv_rdma_resolve_route(id, 2000) != 0 ||
		    ev_ack(PV_RDMA_CM_EVENT_ROUTE_RESOLVED) != 0)
			return 1;
		qp_attr(&qa);
		if (pv_rdma_create_qp(id, NULL, &qa) != 0)
			return 1;
		mr = pv_reg_mr(id->pd, buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE);
		if (mr == NULL || pv_rdma_connect(id, NULL) != 0 ||
		    ev_ack(PV_RDMA_CM_EVENT_ESTABLISHED) != 0) {
			fprintf(stderr, "client: connection %d failed\n", i);
			return 1;
		}
		memset(buf, (int)(i & 0xff), sizeof(buf));
		sge = (struct pv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = PV_WR_SEND;
		wr.send_flags = PV_SEND_SIGNALED;
		if (pv_post_send(id->qp, &wr, &bad) != 0 || wait_wc(id->send_cq) != 0)
			return 1;
		if (i == 0)
			held(id, &first);
		if (i == n - 1)
			held(id, &last);
		if (pv_rdma_disconnect(id) != 0 || ev_ack(PV_RDMA_CM_EVENT_DISCONNECTED) != 0)
			return 1;
		pv_rdma_destroy_qp(id);
		pv_dereg_mr(mr);
		if (pv_rdma_destroy_id(id) != 0)
			return 1;
	}
	dt = ut_now_ms() - t0;
	printf("client: %d connect/SEND/disconnect cycles between two processes in %lu ms: "
	       "%.0f connections/s\n", n, (unsigned long)dt, dt ? n * 1000.0 / (double)dt : 0.0);
	return held_check("client", &first, &last) == 0 ? 0 : 1;
}

static int
child(int server, const char *sockpath, int fd)
{
	char prefix[64], vdev[256], pvdev[128];
	int n = getenv("PV_CM_CYCLES") != NULL ? atoi(getenv("PV_CM_CYCLES")) : 1000, ret;
	struct pv_context *ctx;

	sock_fd = fd;
	alarm(170);	/* never outlive a hung peer */
	snprintf(prefix, sizeof(prefix), "ut_cm_memif_%c%d", server ? 's' : 'c', (int)getppid());
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 server ? "server" : "client", sockpath);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=%s",
		 server ? SRV_IP : CLI_IP);
	ret = ut_pv_init("test_cm_memif", 256, prefix, server ? "0" : "1", vdev, pvdev, NULL);
	if (ret < 0)
		return 77;
	ret = ut_dev_open_first(&ctx);
	if (ret != 0)
		return ret == 77 ? 77 : 1;
	if (ut_port_wait_active(ctx, 15000) != 0) {
		fprintf(stderr, "%s: memif link did not come up\n", server ? "server" : "client");
		return 1;
	}
	ch = pv_rdma_create_event_channel();
	if (ch == NULL) {
		perror("pv_rdma_create_event_channel");
		return 1;
	}
	ret = server ? server_main(n) : client_main(n);
	pv_rdma_destroy_event_channel(ch);
	pv_close_device(ctx);
	pv_cleanup();
	fflush(stdout);	/* the child ends in _exit() */
	return ret;
}

int
main(void)
{
	return ut_fork_pair("pv-cm-ut", child);
}
