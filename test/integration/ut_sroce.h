/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Helpers of the softroce integration tests: QP set-up and connection,
 * completion waits with progress on every context the test drives. The
 * inline ones are here; the others are in ut_sroce.c, which meson compiles
 * into each test.
 */

#ifndef PV_TEST_INTEGRATION_UT_SROCE_H
#define PV_TEST_INTEGRATION_UT_SROCE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pv_verbs.h"
#include "ut_common.h"

#define UT_MAX_CTX 2
/* guard bytes around the buffers of the tests (ut_buf_alloc()) */
#define UT_CANARY 4096

struct rte_ring;

/* contexts progressed while a test waits (defined in ut_sroce.c) */
extern struct pv_context *ut_progress_ctx[UT_MAX_CTX];

/* rte_eth_from_rings() of the net_ring PMD */
typedef int (*ut_from_rings_fn)(const char *name, struct rte_ring *const rx[],
				const unsigned int nb_rx, struct rte_ring *const tx[],
				const unsigned int nb_tx, const unsigned int numa_node);

/* rte_eth_from_rings(), looked up in the net_ring PMD EAL loaded; NULL without it */
ut_from_rings_fn ut_from_rings(void);

/*
 * Two net_ring ports "net_ring_<name>_a" and "net_ring_<name>_b" whose rings
 * (<name>_ab, <name>_ba, @p slots each) are crossed: A's TX ring is B's RX ring.
 * @return 0, -ENOENT without the ring PMD, -ENOMEM, -EIO
 */
int ut_ring_ports_crossed(const char *name, unsigned int slots);

/*
 * The start of every one-process test: ut_pv_init() on lcore 0 with two
 * softroce devices, "--pv-dev=softroce:port=net_ring_<name>_a,<args_a>" and
 * the same for _b, then their crossed ring ports (ut_ring_ports_crossed()).
 * --file-prefix is ut_<name>_<pid>. Says why on stderr when it fails.
 * @return 0, or 77 (meson: skipped) when EAL or the ring PMD is not there
 */
int ut_ring_pair_init(const char *prog, unsigned int mem_mb, const char *name,
		      unsigned int slots, const char *args_a, const char *args_b);

/*
 * Open the first device into *@p ctx.
 * @return 0, 77 (meson: skipped) when there is none, -1 when it does not open
 */
int ut_dev_open_first(struct pv_context **ctx);

/* progress @p ctx until its port 1 is ACTIVE, for @p ms at most; 0 or -1 */
int ut_port_wait_active(struct pv_context *ctx, uint32_t ms);

/* the body of one child of ut_fork_pair(): its exit status */
typedef int (*ut_child_fn)(int server, const char *sockpath, int fd);

/*
 * The two-process tests over net_memif: fork a server (0.3 s ahead) and a
 * client before anything DPDK is initialised, each running @p child with
 * its end of a socketpair and the memif socket /tmp/<name>-<pid>.sock.
 * @return 0 when both exit 0, 77 when one skipped and none failed, else 1
 */
int ut_fork_pair(const char *name, ut_child_fn child);

/* async_fd of @p c non-blocking, so pv_get_async_event() fails with EAGAIN; 0 or -1 */
int ut_async_nonblock(struct pv_context *c);

/*
 * Open the first two devices, with a PD and a CQ of @p cqe entries on each,
 * and progress both in ut_wait_wc() and ut_spin(); their async_fd made
 * non-blocking when @p nonblock. @return 0 or -1
 */
int ut_devs_open(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2], int cqe,
		 int nonblock);

/*
 * Two buffers of @p len bytes with UT_CANARY guards (ut_buf_alloc()): *@p l_p
 * on pd[0], local write only (sources, READ and atomic targets), *@p r_p on
 * pd[1], open to every remote access. @return 0 or -1 (nothing kept)
 */
int ut_buf_pair_alloc(struct pv_pd *const pd[2], size_t len, struct ut_buf **l_p,
		      struct ut_buf **r_p);

/* ut_devs_open(), with both contexts in PV_PROGRESS_APP mode when @p app (pv-perf's) */
int ut_devs_open_app(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2],
		     int cqe, int nonblock, int app);

/*
 * The threading tests' start: open the first two devices, which must be in
 * PV_PROGRESS_THREAD_SAFE mode, with a PD each (no progress registered:
 * the test's threads or the progress thread drive them). @return 0 or -1
 */
int ut_devs_open_mt(struct pv_context *ctx[2], struct pv_pd *pd[2]);

/* undo ut_devs_open_mt(), then pv_cleanup() */
void ut_devs_close_mt(struct pv_context *ctx[2], struct pv_pd *pd[2]);

/* undo ut_devs_open() */
void ut_devs_close(struct pv_context *ctx[2], struct pv_pd *pd[2], struct pv_cq *cq[2]);

static inline uint64_t
ut_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void
ut_progress(void)
{
	int i;

	for (i = 0; i < UT_MAX_CTX; i++)
		if (ut_progress_ctx[i] != NULL)
			pv_progress(ut_progress_ctx[i]);
}

/* wait for one completion on @p cq; @return 1, or 0 on timeout */
static inline int
ut_wait_wc(struct pv_cq *cq, struct pv_wc *wc, uint32_t timeout_ms)
{
	uint64_t end = ut_now_ms() + timeout_ms;

	for (;;) {
		if (pv_poll_cq(cq, 1, wc) == 1)
			return 1;
		ut_progress();
		if (ut_now_ms() > end)
			return 0;
	}
}

/* progress for @p ms milliseconds */
static inline void
ut_spin(uint32_t ms)
{
	uint64_t end = ut_now_ms() + ms;

	while (ut_now_ms() < end)
		ut_progress();
}

/* progress for @p ms, then poll out what @p n CQs hold; @return the completions polled */
static inline int
ut_cq_drain(struct pv_cq *const cq[], int n, uint32_t ms)
{
	struct pv_wc wc;
	int i, got = 0;

	ut_spin(ms);
	for (i = 0; i < n; i++)
		while (pv_poll_cq(cq[i], 1, &wc) > 0)
			got++;
	return got;
}

struct ut_qp_opts {
	uint8_t timeout;	/* local ACK timeout exponent */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t rd_atomic;
	unsigned int access;	/* responder qp_access_flags */
	enum pv_mtu mtu;	/* 0: port active_mtu */
	uint8_t ipv6;		/* 1: GID index 0 (IPv6 link-local), else 1 (IPv4) */
};

static const struct ut_qp_opts ut_qp_defaults = {
	.timeout = 14,		/* 67 ms */
	.retry_cnt = 7,
	.rnr_retry = 7,
	.min_rnr_timer = 1,	/* 10 us */
	.rd_atomic = 16,
	.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC,
};

static inline struct pv_qp *
ut_qp_create(struct pv_pd *pd, struct pv_cq *cq, uint32_t depth)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PV_QPT_RC;
	ia.cap.max_send_wr = depth;
	ia.cap.max_recv_wr = depth;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 64;
	return pv_create_qp(pd, &ia);
}

/* the remote side of a connection, as exchanged out of band */
struct ut_peer {
	uint32_t qpn;
	uint32_t psn;
	union pv_gid gid;
	uint64_t addr;
	uint32_t rkey;
	uint32_t pad;
};

/* QP to INIT with @p o's access flags; @return 0 or a positive errno */
int ut_qp_init(struct pv_qp *qp, const struct ut_qp_opts *o);

/* QP to RTR towards @p peer (path MTU o->mtu, or @p mtu); @return 0 or a positive errno */
int ut_qp_rtr(struct pv_qp *qp, const struct ut_qp_opts *o, const struct ut_peer *peer,
	      enum pv_mtu mtu);

/*
 * pv_modify_qp(@p qp, @p a, @p mask); after a move to RTR, progress the QP's
 * device and @p other until the QP's device has no ARP resolution pending
 * (RTR does not wait for it; tests that play a device need the peer's MAC
 * known before they start), at most 3 s.
 * @return pv_modify_qp()'s, or ETIMEDOUT the neighbour did not answer
 */
int ut_modify_qp_progress(struct pv_qp *qp, struct pv_qp_attr *a, int mask,
			  struct pv_context *other);

/* a pv_app_qp_modify_fn: ut_modify_qp_progress() progressing the context @p arg */
int ut_qp_modify_progress_fn(struct pv_qp *qp, struct pv_qp_attr *a, int mask, void *arg);

/* ut_qp_rtr() on a helper thread while this one progresses @p other */
int ut_qp_rtr_progress(struct pv_qp *qp, const struct ut_qp_opts *o, const struct ut_peer *peer,
		       enum pv_mtu mtu, struct pv_context *other);

/* QP to RTS, sending from @p psn; @return 0 or a positive errno */
int ut_qp_rts(struct pv_qp *qp, const struct ut_qp_opts *o, uint32_t psn);

/* two RC QPs in one process, one per context, and what each told the other */
struct ut_pair {
	struct pv_qp *qa, *qb;		/* on pd[0] / cq[0], on pd[1] / cq[1] */
	struct ut_peer pa, pb;		/* qa's and qb's QPN, first PSN, GID */
};

/*
 * Create @p p's QPs (@p depth WRs each) and take both to RTR with @p oa and
 * @p ob, qa's requester starting at @p psn_a and qb's at @p psn_b; each RTR
 * progresses the other context. @return 0, ENOMEM, or pv_modify_qp()'s
 */
int ut_pair_rtr(struct ut_pair *p, struct pv_pd *const pd[2], struct pv_cq *const cq[2],
		uint32_t depth, const struct ut_qp_opts *oa, const struct ut_qp_opts *ob,
		uint32_t psn_a, uint32_t psn_b, enum pv_mtu mtu);

/* both QPs of @p p from RTR to RTS; @return 0 or pv_modify_qp()'s */
int ut_pair_rts(struct ut_pair *p, const struct ut_qp_opts *oa, const struct ut_qp_opts *ob);

static inline void
ut_fill(uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

static inline int
ut_post_send1(struct pv_qp *qp, enum pv_wr_opcode op, uint64_t wr_id, void *laddr,
	      uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct pv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct pv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED | flags;
	wr.imm_data = htonl(0x12345678);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return pv_post_send(qp, &wr, &bad);
}

static inline int
ut_post_recv1(struct pv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct pv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct pv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return pv_post_recv(qp, &wr, &bad);
}

#endif /* PV_TEST_INTEGRATION_UT_SROCE_H */
