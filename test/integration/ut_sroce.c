/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Set-up shared by the softroce integration tests (declared in ut_sroce.h):
 * the CUnit run, EAL arguments, net_ring port pairs, devices and their
 * ports, QP transitions that need the peer's progress, QP pairs in one
 * process.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_ring.h>

#include "pv_app.h"
#include "pv_rtc.h"
#include "pv_sroce.h"
#include "ut_sroce.h"

struct pv_context *ut_progress_ctx[UT_MAX_CTX];

int
ut_ring_pair_init(const char *prog, unsigned int mem_mb, const char *name,
		  unsigned int slots, const char *args_a, const char *args_b)
{
	char prefix[64], dev_a[256], dev_b[256];
	int ret;

	snprintf(prefix, sizeof(prefix), "ut_%s_%d", name, (int)getpid());
	snprintf(dev_a, sizeof(dev_a), "--pv-dev=softroce:port=net_ring_%s_a,%s", name, args_a);
	snprintf(dev_b, sizeof(dev_b), "--pv-dev=softroce:port=net_ring_%s_b,%s", name, args_b);
	ret = ut_pv_init(prog, mem_mb, prefix, "0", dev_a, dev_b, NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 77;
	}
	if (ut_ring_ports_crossed(name, slots) != 0) {
		fprintf(stderr, "net_ring PMD not available\n");
		return 77;
	}
	return 0;
}

ut_from_rings_fn
ut_from_rings(void)
{
	void *h;

	/* the ring PMD was loaded by EAL as a plugin: find it by soname; the
	 * ports it creates are named "net_ring_<name>" */
	h = dlopen("librte_net_ring.so.23", RTLD_NOW | RTLD_NOLOAD);
	if (h == NULL)
		h = dlopen("librte_net_ring.so.23", RTLD_NOW);
	if (h == NULL)
		return NULL;
	return (ut_from_rings_fn)(uintptr_t)dlsym(h, "rte_eth_from_rings");
}

int
ut_ring_ports_crossed(const char *name, unsigned int slots)
{
	char ab_name[RTE_RING_NAMESIZE], ba_name[RTE_RING_NAMESIZE];
	char a_name[RTE_RING_NAMESIZE], b_name[RTE_RING_NAMESIZE];
	struct rte_ring *ab, *ba;
	ut_from_rings_fn from_rings;

	from_rings = ut_from_rings();
	if (from_rings == NULL)
		return -ENOENT;
	snprintf(ab_name, sizeof(ab_name), "%s_ab", name);
	snprintf(ba_name, sizeof(ba_name), "%s_ba", name);
	snprintf(a_name, sizeof(a_name), "%s_a", name);
	snprintf(b_name, sizeof(b_name), "%s_b", name);
	ab = rte_ring_create(ab_name, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create(ba_name, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -ENOMEM;
	if (from_rings(a_name, &ba, 1, &ab, 1, 0) < 0 ||
	    from_rings(b_name, &ab, 1, &ba, 1, 0) < 0)
		return -EIO;
	return 0;
}

int
ut_dev_open_first(struct pv_context **ctx)
{
	struct pv_device **list;
	int n;

	list = pv_get_device_list(&n);
	if (list == NULL || n < 1)
		return 77;
	*ctx = pv_open_device(list[0]);
	pv_free_device_list(list);
	return *ctx != NULL ? 0 : -1;
}

int
ut_port_wait_active(struct pv_context *ctx, uint32_t ms)
{
	struct pv_port_attr pa;
	uint64_t end = ut_now_ms() + ms;

	while (ut_now_ms() < end) {
		if (pv_query_port(ctx, 1, &pa) == 0 && pa.state == PV_PORT_ACTIVE)
			return 0;
		pv_progress(ctx);
		usleep(1000);
	}
	return -1;
}

int
ut_async_nonblock(struct pv_context *c)
{
	int fl = fcntl(c->async_fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(c->async_fd, F_SETFL, fl | O_NONBLOCK);
}

int
ut_devs_open(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2], int cqe,
	     int nonblock)
{
	return ut_devs_open_app(ctx, pd, cq, cqe, nonblock, 0);
}

int
ut_devs_open_app(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2], int cqe,
		 int nonblock, int app)
{
	struct pv_device **list;
	int n, i;

	list = pv_get_device_list(&n);
	if (list == NULL || n < 2)
		return -1;
	for (i = 0; i < 2; i++) {
		ctx[i] = pv_open_device(list[i]);
		if (ctx[i] == NULL || (nonblock && ut_async_nonblock(ctx[i]) != 0) ||
		    (app && pv_set_progress_mode(ctx[i], PV_PROGRESS_APP) != 0))
			return -1;
		pd[i] = pv_alloc_pd(ctx[i]);
		cq[i] = pv_create_cq(ctx[i], cqe, NULL, NULL, 0);
		if (pd[i] == NULL || cq[i] == NULL)
			return -1;
		ut_progress_ctx[i] = ctx[i];
	}
	pv_free_device_list(list);
	return 0;
}

int
ut_buf_pair_alloc(struct pv_pd *const pd[2], size_t len, struct ut_buf **l_p,
		  struct ut_buf **r_p)
{
	struct ut_buf *l, *r;

	l = ut_buf_alloc(pd[0], len, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	r = ut_buf_alloc(pd[1], len, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			 PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC, UT_CANARY);
	if (l == NULL || r == NULL) {
		ut_buf_free(l);
		ut_buf_free(r);
		return -1;
	}
	*l_p = l;
	*r_p = r;
	return 0;
}

void
ut_devs_close(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		pv_destroy_cq(cq[i]);
		pv_dealloc_pd(pd[i]);
		pv_close_device(ctx[i]);
		ut_progress_ctx[i] = NULL;
	}
}

int
ut_devs_open_mt(struct pv_context *ctx[2], struct pv_pd *pd[2])
{
	struct pv_device **list;
	int n, i, ret = 0;

	list = pv_get_device_list(&n);
	if (list == NULL || n < 2)
		return -1;
	for (i = 0; i < 2 && ret == 0; i++) {
		ctx[i] = pv_open_device(list[i]);
		if (ctx[i] == NULL || pv_get_progress_mode(ctx[i]) != PV_PROGRESS_THREAD_SAFE)
			ret = -1;
		else if ((pd[i] = pv_alloc_pd(ctx[i])) == NULL)
			ret = -1;
	}
	pv_free_device_list(list);
	return ret;
}

void
ut_devs_close_mt(struct pv_context *ctx[2], struct pv_pd *pd[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		pv_dealloc_pd(pd[i]);
		pv_close_device(ctx[i]);
	}
	pv_cleanup();
}

int
ut_modify_qp_progress(struct pv_qp *qp, struct pv_qp_attr *a, int mask, struct pv_context *other)
{
	struct pv_sroce_stats s;
	uint64_t end;
	int ret;

	ret = pv_modify_qp(qp, a, mask);
	if (ret != 0 || !(mask & PV_QP_STATE) || a->qp_state != PV_QPS_RTR)
		return ret;
	/* RTR never waits for ARP (frames wait for the neighbour instead);
	 * tests that play a device want the address known before they start:
	 * drive both devices until the QP's device has no resolution pending */
	end = ut_now_ms() + 3000;
	do {
		pv_progress(qp->context);
		pv_progress(other);
		if (pv_sroce_stats_get(qp->context, &s) != 0)
			return 0;
	} while (s.neigh_pending != 0 && ut_now_ms() < end);
	return s.neigh_pending == 0 ? 0 : ETIMEDOUT;
}

/* the pv_app_qp_opts of @p o (port 1, GID index 1, or 0 with o->ipv6) */
static void
ut_qp_app_opts(const struct ut_qp_opts *o, enum pv_mtu mtu, uint32_t psn,
	       struct pv_app_qp_opts *ao)
{
	pv_app_qp_opts_init(ao);
	ao->name = "ut_sroce";
	ao->sgid_index = o->ipv6 ? 0 : 1;
	ao->mtu = o->mtu != 0 ? o->mtu : mtu;
	ao->access = o->access;
	ao->sq_psn = psn;
	ao->timeout = o->timeout;
	ao->retry_cnt = o->retry_cnt;
	ao->rnr_retry = o->rnr_retry;
	ao->min_rnr_timer = o->min_rnr_timer;
	ao->max_rd_atomic = o->rd_atomic;
	ao->max_dest_rd_atomic = o->rd_atomic;
}

static int
ut_qp_to(struct pv_qp *qp, enum pv_qp_state state, const struct pv_app_qp_opts *ao,
	 const struct ut_peer *peer)
{
	struct pv_app_qp_peer p = { 0 };

	if (peer != NULL) {
		p.qpn = peer->qpn;
		p.psn = peer->psn;
		p.gid = peer->gid;
	}
	return -pv_app_qp_modify(qp, state, ao, &p);
}

int
ut_qp_init(struct pv_qp *qp, const struct ut_qp_opts *o)
{
	struct pv_app_qp_opts ao;

	ut_qp_app_opts(o, 0, 0, &ao);
	return ut_qp_to(qp, PV_QPS_INIT, &ao, NULL);
}

int
ut_qp_rtr(struct pv_qp *qp, const struct ut_qp_opts *o, const struct ut_peer *peer,
	  enum pv_mtu mtu)
{
	struct pv_app_qp_opts ao;

	ut_qp_app_opts(o, mtu, 0, &ao);
	return ut_qp_to(qp, PV_QPS_RTR, &ao, peer);
}

int
ut_qp_rts(struct pv_qp *qp, const struct ut_qp_opts *o, uint32_t psn)
{
	struct pv_app_qp_opts ao;

	ut_qp_app_opts(o, 0, psn, &ao);
	return ut_qp_to(qp, PV_QPS_RTS, &ao, NULL);
}

int
ut_qp_modify_progress_fn(struct pv_qp *qp, struct pv_qp_attr *a, int mask, void *arg)
{
	return ut_modify_qp_progress(qp, a, mask, arg);
}

int
ut_qp_rtr_progress(struct pv_qp *qp, const struct ut_qp_opts *o, const struct ut_peer *peer,
		   enum pv_mtu mtu, struct pv_context *other)
{
	struct pv_app_qp_opts ao;

	ut_qp_app_opts(o, mtu, 0, &ao);
	ao.modify = ut_qp_modify_progress_fn;
	ao.modify_arg = other;
	return ut_qp_to(qp, PV_QPS_RTR, &ao, peer);
}

int
ut_pair_rtr(struct ut_pair *p, struct pv_pd *const pd[2], struct pv_cq *const cq[2],
	    uint32_t depth, const struct ut_qp_opts *oa, const struct ut_qp_opts *ob,
	    uint32_t psn_a, uint32_t psn_b, enum pv_mtu mtu)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->qa = ut_qp_create(pd[0], cq[0], depth);
	p->qb = ut_qp_create(pd[1], cq[1], depth);
	if (p->qa == NULL || p->qb == NULL)
		return ENOMEM;
	p->pa.qpn = p->qa->qp_num;
	p->pa.psn = psn_a;
	p->pb.qpn = p->qb->qp_num;
	p->pb.psn = psn_b;
	pv_query_gid(pd[0]->context, 1, 1, &p->pa.gid);
	pv_query_gid(pd[1]->context, 1, 1, &p->pb.gid);
	ret = ut_qp_init(p->qa, oa);
	ret = ret ? ret : ut_qp_init(p->qb, ob);
	ret = ret ? ret : ut_qp_rtr_progress(p->qa, oa, &p->pb, mtu, pd[1]->context);
	ret = ret ? ret : ut_qp_rtr_progress(p->qb, ob, &p->pa, mtu, pd[0]->context);
	return ret;
}

int
ut_pair_rts(struct ut_pair *p, const struct ut_qp_opts *oa, const struct ut_qp_opts *ob)
{
	int ret;

	ret = ut_qp_rts(p->qa, oa, p->pa.psn);
	return ret ? ret : ut_qp_rts(p->qb, ob, p->pb.psn);
}

int
ut_fork_pair(const char *name, ut_child_fn child)
{
	char sockpath[108];
	int sv[2], st, rc = 0, i;
	pid_t pid[2];

	snprintf(sockpath, sizeof(sockpath), "/tmp/%s-%d.sock", name, (int)getpid());
	unlink(sockpath);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 1;
		if (pid[i] == 0) {
			if (i == 1) {
				/*
				 * the server listens first: wait for its socket (EAL
				 * start-up takes seconds on a loaded machine), then for
				 * its port, which it starts a moment later
				 */
				pv_app_sock_wait(sockpath, 30000);
				usleep(300000);
			}
			close(sv[1 - i]);
			_exit(child(i == 0, sockpath, sv[i]));
		}
	}
	close(sv[0]);
	close(sv[1]);
	for (i = 0; i < 2; i++) {
		if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st)) {
			rc = 1;
			continue;
		}
		if (WEXITSTATUS(st) == 77 && rc == 0)
			rc = 77;
		else if (WEXITSTATUS(st) != 0)
			rc = 1;
	}
	unlink(sockpath);
	return rc;
}
