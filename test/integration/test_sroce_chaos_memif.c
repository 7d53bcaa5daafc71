/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The two-process variant of test_sroce_chaos, over net_memif, both devices
 * probed with the chaos faults as devargs (10 % loss, 10 % reorder, 5 %
 * duplication, 1 % corruption on TX and RX, seeded). The parent forks
 * before anything DPDK is initialised; the children talk over a socketpair.
 *
 * - UD: messages from the client to the server: every message the server
 *   receives is byte-exact (its sequence number and pattern checked) and
 *   more than a tenth arrive (both sides' faults hit each frame; on a
 *   loaded machine bursts of released frames can find the receive queue
 *   empty). Socket: server QPN, the client's count, the server's.
 * - RC: the client posts RC_OPS WRITE / READ / SEND (with and without
 *   immediate) / FETCH_ADD / CMP_SWP of 1 B .. 64 KiB, multi-SGE and inline,
 *   from a schedule both processes derive from one seed (rc_gen()), so that
 *   each can check what it cannot see: every client completion SUCCESS and
 *   in posting order, READ data against the server's region pattern,
 *   atomic results against the model of the server's words; the server
 *   gets each SEND once, in order, byte-exact, and its WRITE region (every
 *   WRITE to bytes of its own) and atomic words equal the replayed schedule
 *   once the client is done. Socket: both sides' QP and memory (struct
 *   rc_info), the client's completion count, the server's struct rc_result.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"

#include "pv_app.h"
#include "ut_sroce.h"

#define MSGS	2000
#define DEPTH	64		/* send queue */
#define RQ_DEPTH 1024		/* receive queue: room for bursts of released frames */
#define SLOT	2048u
#define QKEY	0x5eedu
#define RC_OPS	1000
#define RC_WINDOW 16		/* RC WRs outstanding */
#define RC_SLOTS 64		/* > 2 * RC_WINDOW: a slot is idle when reused */
#define RC_SLOT	65536u
#define RC_RQ	RC_SLOTS	/* server receive WQEs */
#define RC_WR_SZ (2u << 20)	/* server: WRITE region */
#define RC_RD_SZ (1u << 20)	/* server: READ region */
#define RC_INLINE 64
#define RC_SEED	11
#define RC_STALL_MS 3000	/* no completion for this long fails */
#define FAULTS	"seed=7,tx_drop_ppm=100000,tx_reorder_ppm=100000,tx_reorder_us=100," \
		"tx_dup_ppm=50000,tx_corrupt_ppm=10000,rx_drop_ppm=100000," \
		"rx_reorder_ppm=100000,rx_reorder_us=100,rx_dup_ppm=50000,rx_corrupt_ppm=10000"

struct counts {
	uint32_t got, dup, bad;
	uint64_t icrc_drops;
	uint64_t ud_drops;	/* no receive WQE: held frames come in bursts */
};

static struct pv_context *ctx;
static struct pv_pd *pd;
static struct pv_cq *cq;
static struct pv_qp *qp;
static struct pv_mr *mr;
static uint8_t *buf;
static int sock_fd;

static int
xfer(int wr, void *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = wr ? write(sock_fd, (uint8_t *)p + done, n - done) :
				 read(sock_fd, (uint8_t *)p + done, n - done);

		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static uint8_t
pat(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 2654435761u + i * 40503u);
}

static int
qp_up(void)
{
	struct pv_qp_init_attr ia = {
		.send_cq = NULL, .recv_cq = NULL, .qp_type = PV_QPT_UD,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = RQ_DEPTH, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct pv_app_qp_peer none = { 0 };
	struct pv_app_qp_opts o;

	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = pv_create_qp(pd, &ia);
	if (qp == NULL)
		return -1;
	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_chaos_memif";
	o.qkey = QKEY;
	o.sq_psn = 1;
	return pv_app_qp_connect(qp, &o, &none) ? -1 : 0;
}

static void
recv_post(uint32_t slot)
{
	struct pv_sge sge = { (uintptr_t)(buf + (size_t)slot * SLOT), SLOT, mr->lkey };
	struct pv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad;

	(void)pv_post_recv(qp, &wr, &bad);
}

/* receive, check and count until the client's count came and 100 ms passed */
static int
server_main(void)
{
	static uint8_t seen[MSGS];
	struct pv_sroce_stats st;
	struct counts c = { 0 };
	uint32_t qpn = qp->qp_num, i, sent = 0;
	uint64_t end = 0;
	struct pv_wc wc;

	for (i = 0; i < RQ_DEPTH; i++)
		recv_post(i);
	if (xfer(1, &qpn, sizeof(qpn)) != 0)
		return 1;
	while (end == 0 || ut_now_ms() < end) {
		struct pollfd pfd = { .fd = sock_fd, .events = POLLIN };

		pv_progress(ctx);
		while (pv_poll_cq(cq, 1, &wc) == 1) {
			const uint8_t *p = buf + wc.wr_id * SLOT + 40;
			uint32_t seq, len = wc.byte_len - 40, k;

			memcpy(&seq, p, 4);
			if (wc.status != PV_WC_SUCCESS || seq >= MSGS) {
				c.bad++;
			} else {
				for (k = 4; k < len && p[k] == pat(seq, k); k++)
					;
				c.bad += k != len;
				c.dup += seen[seq];
				seen[seq] = 1;
				c.got++;
			}
			recv_post((uint32_t)wc.wr_id);
		}
		if (end == 0 && poll(&pfd, 1, 0) == 1) {
			if (xfer(0, &sent, sizeof(sent)) != 0)
				return 1;
			end = ut_now_ms() + 100;
		}
	}
	pv_sroce_stats_get(ctx, &st);
	c.icrc_drops = st.rx_drop_icrc;
	c.ud_drops = st.ud_drops;
	return xfer(1, &c, sizeof(c)) != 0;
}

static int
client_main(void)
{
	struct pv_ah_attr aa;
	struct pv_ah *ah;
	struct counts c;
	uint32_t qpn, posted = 0, done = 0, rng = 3;
	struct pv_wc wc;
	int ok;

	if (xfer(0, &qpn, sizeof(qpn)) != 0)
		return 1;
	if (ut_ah_attr_ipv4("10.97.0.1", &aa) != 0)
		return 1;
	ah = pv_create_ah(pd, &aa);
	if (ah == NULL)
		return 1;
	while (done < MSGS) {
		if (posted < MSGS && posted - done < DEPTH / 2) {
			uint8_t *p = buf + (size_t)(posted % DEPTH) * SLOT;
			struct pv_sge sge = { (uintptr_t)p, 0, mr->lkey };
			struct pv_send_wr wr, *bad;
			uint32_t k;

			rng = rng * 1103515245u + 12345u;
			sge.length = 64 + (rng >> 8) % 961;
			for (k = 0; k < sge.length; k++)
				p[k] = pat(posted, k);
			memcpy(p, &posted, 4);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = PV_WR_SEND;
			wr.send_flags = PV_SEND_SIGNALED;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = qpn;
			wr.wr.ud.remote_qkey = QKEY;
			if (pv_post_send(qp, &wr, &bad) != 0)
				return 1;
			posted++;
		}
		pv_progress(ctx);
		while (pv_poll_cq(cq, 1, &wc) == 1)
			done += wc.status == PV_WC_SUCCESS;
	}
	ut_spin(20);	/* frames still held by the client's faults go out */
	if (xfer(1, &done, sizeof(done)) != 0 || xfer(0, &c, sizeof(c)) != 0)
		return 1;
	pv_destroy_ah(ah);
	/*
	 * faults on both sides' TX and RX: about 19 % lost before the RQ, more
	 * when the server is descheduled and released bursts find it empty;
	 * what counts is that nothing wrong is delivered
	 */
	ok = c.bad == 0 && c.got > MSGS / 10 && c.got <= MSGS + c.dup;
	printf("chaos over memif: %u UD messages sent, %u received byte-exact (%u duplicates), "
	       "%u wrong; server: %" PRIu64 " ICRC drops, %" PRIu64 " without a receive "
	       "WQE: %s\n", MSGS, c.got, c.dup, c.bad, c.icrc_drops, c.ud_drops,
	       ok ? "ok" : "FAILED");
	fflush(stdout);		/* the child leaves with _exit() */
	return ok ? 0 : 1;
}

/* ---------------------------------------------------------------------- */
/* RC                                                                     */
/* ---------------------------------------------------------------------- */

enum { OP_WRITE, OP_READ, OP_SEND, OP_FADD, OP_CSWP };

/* one RC operation of the schedule both processes derive from RC_SEED */
struct rc_op {
	uint32_t seq, len;
	uint32_t off;		/* into the server's WRITE or READ region */
	uint8_t op, nsge, inl, imm;
	uint64_t expect;	/* atomics: the value returned */
	uint64_t swap;		/* CMP_SWP: the value written */
};

/* the schedule's state: its generator and the model of the server's memory */
struct rc_sched {
	uint32_t rng;
	uint32_t wr_next;	/* where the next WRITE goes */
	uint64_t fadd, cswp;	/* the server's two atomic words */
};

/* what each side tells the other of its RC QP and memory (the client: QP only) */
struct rc_info {
	uint32_t qpn, psn;
	union pv_gid gid;
	uint64_t wr_addr, rd_addr, at_addr;
	uint32_t wr_rkey, rd_rkey, at_rkey, pad;
};

/* the server's findings, sent to the client at the end */
struct rc_result {
	uint32_t sends, sends_got, recv_bad, extra;
	uint32_t wr_bad, wr_first_bad, rd_bad, at_bad;	/* bytes, offset, bytes, words */
	uint64_t dup_reqs, icrc_drops, seq_naks_tx, rnr_naks_tx;
};

static const uint32_t rc_sizes[] = {
	1, 2, 4, 7, 8, 64, 100, 255, 1024, 1025, 3000, 4096, 5000, 8192, 16384, 65536,
};

static struct pv_cq *rcq;
static struct pv_qp *rqp;
static struct pv_mr *rc_mr, *rc_at_mr;
static uint8_t *rc_buf;		/* client: slots; server: WRITE | READ | receive slots */
static uint64_t *rc_at;		/* client: a result per slot; server: FETCH_ADD, CMP_SWP */

static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* byte @p i of the payload of operation @p seq (WRITE, SEND) */
static uint8_t
rc_pat(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 2654435761u + i * 40503u;

	return (uint8_t)(x ^ x >> 13 ^ i >> 8);
}

/* byte @p off of a server region at start: READ (@p salt 1) or WRITE (2) */
static uint8_t
rc_region_pat(uint32_t off, uint32_t salt)
{
	uint32_t x = (off + salt * 0x9e3779b9u) * 2246822519u;

	return (uint8_t)(x >> 24 ^ off >> 10);
}

/* the next operation of the schedule, and its effect on the server's atomic words */
static void
rc_gen(struct rc_sched *s, uint32_t seq, struct rc_op *o)
{
	uint32_t r = rnd(&s->rng), r2 = rnd(&s->rng);

	memset(o, 0, sizeof(*o));
	o->seq = seq;
	o->op = r % 10 < 4 ? OP_WRITE : r % 10 < 6 ? OP_READ : r % 10 < 8 ? OP_SEND :
		r % 10 < 9 ? OP_FADD : OP_CSWP;
	o->len = rc_sizes[(r >> 4) % RTE_DIM(rc_sizes)];
	/* 64 KiB in a quarter of its picks: each is dozens of frames under the faults */
	if (o->len == 65536 && (r >> 12) % 4 != 0)
		o->len = 2048;
	o->nsge = 1;
	switch (o->op) {
	case OP_FADD:
		o->len = 8;
		o->expect = s->fadd++;
		return;
	case OP_CSWP:
		o->len = 8;
		o->expect = s->cswp;
		o->swap = (uint64_t)seq << 32 | (seq ^ 0x5a5a5a5au);
		s->cswp = o->swap;
		return;
	case OP_WRITE:
		/* bytes of its own, and 8 nobody writes after them */
		if (s->wr_next + o->len > RC_WR_SZ)
			s->wr_next = 0;
		o->off = s->wr_next;
		s->wr_next += RTE_ALIGN_CEIL(o->len, 8) + 8;
		break;
	case OP_READ:
		o->off = r2 % (RC_RD_SZ - o->len + 1);
		break;
	default:
		o->imm = (r2 >> 20) % 2;
		break;
	}
	if (o->len >= 3 && (r2 >> 8) % 2 == 0)
		o->nsge = 3;
	o->inl = o->op != OP_READ && o->len <= RC_INLINE && (r2 >> 9) % 2 == 0;
}

/* read @p n bytes from the peer, progressing meanwhile (it may await our ACKs, ARP) */
static int
rc_xfer_in(void *p, size_t n)
{
	struct pollfd pfd = { .fd = sock_fd, .events = POLLIN };

	while (poll(&pfd, 1, 0) == 0)
		pv_progress(ctx);
	return xfer(0, p, n);
}

/* RC QP and CQ, buffers of @p len bytes at rc_buf and @p atoms words at rc_at */
static int
rc_setup(size_t len, uint32_t atoms, uint32_t sq, uint32_t rq)
{
	unsigned int acc = PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ;
	struct pv_qp_init_attr ia;

	rcq = pv_create_cq(ctx, 2 * (sq + rq), NULL, NULL, 0);
	rc_buf = aligned_alloc(64, len);
	rc_at = aligned_alloc(64, RTE_ALIGN_CEIL(atoms * sizeof(*rc_at), 64));
	if (rcq == NULL || rc_buf == NULL || rc_at == NULL)
		return -1;
	memset(rc_at, 0, atoms * sizeof(*rc_at));
	rc_mr = pv_reg_mr(pd, rc_buf, len, acc);
	rc_at_mr = pv_reg_mr(pd, rc_at, atoms * sizeof(*rc_at),
			     PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_ATOMIC);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = rcq;
	ia.recv_cq = rcq;
	ia.qp_type = PV_QPT_RC;
	ia.cap.max_send_wr = sq;
	ia.cap.max_recv_wr = rq;
	ia.cap.max_send_sge = 3;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = RC_INLINE;
	rqp = pv_create_qp(pd, &ia);
	return rc_mr == NULL || rc_at_mr == NULL || rqp == NULL ? -1 : 0;
}

static void
rc_teardown(void)
{
	if (rqp != NULL)
		pv_destroy_qp(rqp);
	if (rc_mr != NULL)
		pv_dereg_mr(rc_mr);
	if (rc_at_mr != NULL)
		pv_dereg_mr(rc_at_mr);
	if (rcq != NULL)
		pv_destroy_cq(rcq);
	free(rc_buf);
	free(rc_at);
}

static int
rc_recv_post(uint32_t slot)
{
	uint8_t *p = rc_buf + RC_WR_SZ + RC_RD_SZ + (size_t)slot * RC_SLOT;
	struct pv_sge sge = { (uintptr_t)p, RC_SLOT, rc_mr->lkey };
	struct pv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad;

	return pv_post_recv(rqp, &wr, &bad);
}

/*
 * Send @p mine, receive the peer's into @p peer, connect to it, give the
 * server's QP its receives and wait until the peer is connected too (its
 * RTR answers our ARP meanwhile).
 */
static int
rc_connect(struct rc_info *mine, struct rc_info *peer, int server)
{
	struct pv_app_qp_peer p = { 0 };
	struct pv_app_qp_opts o;
	struct pv_port_attr pa;
	uint32_t ready = 1, i;

	mine->qpn = rqp->qp_num;
	mine->psn = server ? 0xfff800 : 0xfff000;	/* the 24-bit PSN wraps early */
	if (pv_query_gid(ctx, 1, 1, &mine->gid) != 0 || pv_query_port(ctx, 1, &pa) != 0)
		return -1;
	if (server ? xfer(1, mine, sizeof(*mine)) != 0 || rc_xfer_in(peer, sizeof(*peer)) != 0 :
		     rc_xfer_in(peer, sizeof(*peer)) != 0 || xfer(1, mine, sizeof(*mine)) != 0)
		return -1;
	p.qpn = peer->qpn;
	p.psn = peer->psn;
	p.gid = peer->gid;
	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_chaos_memif";
	o.sgid_index = 1;
	o.mtu = pa.active_mtu;
	o.access = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC;
	o.sq_psn = mine->psn;
	/*
	 * 16.7 ms: eight tries outlast a process descheduled for 130 ms on a
	 * loaded machine (4 ms failed with RETRY_EXC_ERR while another job ran)
	 */
	o.timeout = 12;
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	o.min_rnr_timer = 1;	/* 10 us */
	o.max_rd_atomic = 16;
	o.max_dest_rd_atomic = 16;
	if (pv_app_qp_connect(rqp, &o, &p) != 0)
		return -1;
	for (i = 0; server && i < RC_RQ; i++)
		if (rc_recv_post(i) != 0)
			return -1;
	return xfer(1, &ready, sizeof(ready)) != 0 || rc_xfer_in(&ready, sizeof(ready)) != 0 ?
	       -1 : 0;
}

/* @return 0 when receive @p wc is SEND @p o, whole and byte-exact */
static int
rc_recv_check(const struct pv_wc *wc, const struct rc_op *o)
{
	const uint8_t *p = rc_buf + RC_WR_SZ + RC_RD_SZ + wc->wr_id * RC_SLOT;
	uint32_t i;

	if (wc->status != PV_WC_SUCCESS || wc->opcode != PV_WC_RECV || wc->byte_len != o->len ||
	    !(wc->wc_flags & PV_WC_WITH_IMM) != !o->imm ||
	    (o->imm && ntohl(wc->imm_data) != o->seq))
		return -1;
	for (i = 0; i < o->len; i++)
		if (p[i] != rc_pat(o->seq, i))
			return -1;
	return 0;
}

/*
 * The responder: replay the schedule (the SENDs in order, the WRITE region's
 * final image, the atomic words), check every receive as it comes and the
 * memory once the client is done, then send the findings.
 */
static int
rc_server(void)
{
	static struct rc_op sends[RC_OPS];
	struct rc_sched s = { .rng = RC_SEED };
	struct rc_info mine = { 0 }, peer;
	struct rc_result res = { 0 };
	struct pv_sroce_stats st0, st1;
	uint8_t *wr = NULL, *rd;
	uint32_t i, done = 0;
	uint64_t end = 0;
	struct pv_wc wc;
	int ret = -1;

	if (rc_setup(RC_WR_SZ + RC_RD_SZ + (size_t)RC_RQ * RC_SLOT, 2, 4, RC_RQ) != 0)
		goto out;
	wr = malloc(RC_WR_SZ);		/* the WRITE region as it must end */
	if (wr == NULL)
		goto out;
	rd = rc_buf + RC_WR_SZ;
	for (i = 0; i < RC_WR_SZ; i++)
		wr[i] = rc_buf[i] = rc_region_pat(i, 2);
	for (i = 0; i < RC_RD_SZ; i++)
		rd[i] = rc_region_pat(i, 1);
	for (i = 0; i < RC_OPS; i++) {
		struct rc_op o;
		uint32_t k;

		rc_gen(&s, i, &o);
		if (o.op == OP_SEND)
			sends[res.sends++] = o;
		if (o.op == OP_WRITE)
			for (k = 0; k < o.len; k++)
				wr[o.off + k] = rc_pat(i, k);
	}
	mine.wr_addr = (uintptr_t)rc_buf;
	mine.rd_addr = (uintptr_t)rd;
	mine.at_addr = (uintptr_t)rc_at;
	mine.wr_rkey = rc_mr->rkey;
	mine.rd_rkey = rc_mr->rkey;
	mine.at_rkey = rc_at_mr->rkey;
	if (rc_connect(&mine, &peer, 1) != 0)
		goto out;
	pv_sroce_stats_get(ctx, &st0);
	/* until the client's count came, then 50 ms for what the faults still hold */
	while (end == 0 || ut_now_ms() < end) {
		struct pollfd pfd = { .fd = sock_fd, .events = POLLIN };

		pv_progress(ctx);
		while (pv_poll_cq(rcq, 1, &wc) == 1) {
			if (res.sends_got >= res.sends) {
				res.extra++;
			} else if (rc_recv_check(&wc, &sends[res.sends_got]) != 0) {
				if (res.recv_bad++ < 5)
					printf("rc server: receive %u (op %u, %u B) status %d, "
					       "%u B: wrong\n", res.sends_got,
					       sends[res.sends_got].seq, sends[res.sends_got].len,
					       wc.status, wc.byte_len);
			}
			res.sends_got++;
			if (rc_recv_post((uint32_t)wc.wr_id) != 0)
				goto out;
		}
		if (end == 0 && poll(&pfd, 1, 0) == 1) {
			if (xfer(0, &done, sizeof(done)) != 0)
				goto out;
			end = ut_now_ms() + 50;
		}
	}
	pv_sroce_stats_get(ctx, &st1);
	res.wr_first_bad = UINT32_MAX;
	for (i = 0; i < RC_WR_SZ; i++) {
		if (rc_buf[i] != wr[i]) {
			res.wr_first_bad = RTE_MIN(res.wr_first_bad, i);
			res.wr_bad++;
		}
	}
	for (i = 0; i < RC_RD_SZ; i++)
		res.rd_bad += rd[i] != rc_region_pat(i, 1);
	res.at_bad = (rc_at[0] != s.fadd) + (rc_at[1] != s.cswp);
	res.dup_reqs = st1.dup_reqs - st0.dup_reqs;
	res.icrc_drops = st1.rx_drop_icrc - st0.rx_drop_icrc;
	res.seq_naks_tx = st1.seq_naks_tx - st0.seq_naks_tx;
	res.rnr_naks_tx = st1.rnr_naks_tx - st0.rnr_naks_tx;
	ret = xfer(1, &res, sizeof(res));
out:
	fflush(stdout);		/* the child leaves with _exit() */
	free(wr);
	rc_teardown();
	return ret != 0;
}

static int
rc_post(const struct rc_op *o, const struct rc_info *peer)
{
	uint32_t slot = o->seq % RC_SLOTS, a = o->len / 3, i;
	uint8_t *src = rc_buf + (size_t)slot * RC_SLOT;
	struct pv_send_wr wr, *bad;
	struct pv_sge sge[3];

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = o->seq;
	wr.sg_list = sge;
	wr.num_sge = o->nsge;
	wr.send_flags = PV_SEND_SIGNALED | (o->inl ? PV_SEND_INLINE : 0);
	if (o->op == OP_FADD || o->op == OP_CSWP) {
		sge[0] = (struct pv_sge){ (uintptr_t)&rc_at[slot], 8, rc_at_mr->lkey };
		rc_at[slot] = 0xdeadbeef;
		wr.wr.atomic.rkey = peer->at_rkey;
		wr.wr.atomic.remote_addr = peer->at_addr + (o->op == OP_CSWP ? 8 : 0);
		if (o->op == OP_FADD) {
			wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.compare_add = 1;
		} else {
			wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.compare_add = o->expect;
			wr.wr.atomic.swap = o->swap;
		}
	} else {
		if (o->op == OP_READ)
			/* and 8 guard bytes the READ must leave alone */
			memset(src, 0xee, RTE_MIN(o->len + 8, RC_SLOT));
		else
			for (i = 0; i < o->len; i++)
				src[i] = rc_pat(o->seq, i);
		if (o->nsge == 3) {
			sge[0] = (struct pv_sge){ (uintptr_t)src, a, rc_mr->lkey };
			sge[1] = (struct pv_sge){ (uintptr_t)src + a, a, rc_mr->lkey };
			sge[2] = (struct pv_sge){ (uintptr_t)src + 2 * a, o->len - 2 * a,
						  rc_mr->lkey };
		} else {
			sge[0] = (struct pv_sge){ (uintptr_t)src, o->len, rc_mr->lkey };
		}
		if (o->op == OP_WRITE) {
			wr.opcode = PV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = peer->wr_addr + o->off;
			wr.wr.rdma.rkey = peer->wr_rkey;
		} else if (o->op == OP_READ) {
			wr.opcode = PV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = peer->rd_addr + o->off;
			wr.wr.rdma.rkey = peer->rd_rkey;
		} else {
			wr.opcode = o->imm ? PV_WR_SEND_WITH_IMM : PV_WR_SEND;
			wr.imm_data = htonl(o->seq);
		}
	}
	return pv_post_send(rqp, &wr, &bad);
}

/* @return 0 when the completed op's local data is right (READ, atomics) */
static int
rc_verify(const struct rc_op *o)
{
	uint32_t slot = o->seq % RC_SLOTS, i;
	const uint8_t *p = rc_buf + (size_t)slot * RC_SLOT;

	switch (o->op) {
	case OP_READ:
		for (i = 0; i < o->len; i++)
			if (p[i] != rc_region_pat(o->off + i, 1))
				return -1;
		for (; i < RTE_MIN(o->len + 8, RC_SLOT); i++)
			if (p[i] != 0xee)
				return -1;
		return 0;
	case OP_FADD:
	case OP_CSWP:
		return rc_at[slot] == o->expect ? 0 : -1;
	default:
		return 0;	/* WRITE, SEND: checked by the server */
	}
}

/* the requester: RC_OPS of the schedule, RC_WINDOW outstanding; the verdict */
static int
rc_client(void)
{
	static struct rc_op ops[RC_SLOTS];
	struct rc_sched s = { .rng = RC_SEED };
	struct rc_info mine = { 0 }, peer;
	uint32_t posted = 0, done = 0, order = 0, bad = 0, last_done = 0;
	struct pv_sroce_stats st0, st1;
	struct rc_result res;
	uint64_t t0, last_ms;
	struct pv_wc wc;
	int ok = 0;

	if (rc_setup((size_t)RC_SLOTS * RC_SLOT, RC_SLOTS, 2 * RC_WINDOW, 1) != 0 ||
	    rc_connect(&mine, &peer, 0) != 0)
		goto out;
	pv_sroce_stats_get(ctx, &st0);
	t0 = ut_now_ms();
	last_ms = t0;
	while (done < RC_OPS) {
		if (posted < RC_OPS && posted - done < RC_WINDOW) {
			struct rc_op *o = &ops[posted % RC_SLOTS];

			rc_gen(&s, posted, o);
			if (rc_post(o, &peer) != 0) {
				printf("rc client: post of op %u failed\n", posted);
				break;
			}
			posted++;
		}
		pv_progress(ctx);
		while (pv_poll_cq(rcq, 1, &wc) == 1) {
			const struct rc_op *o = &ops[done % RC_SLOTS];

			if (wc.wr_id != done || wc.status != PV_WC_SUCCESS) {
				if (order++ < 5)
					printf("rc client: completion %" PRIu64 " status %d, "
					       "expected %u\n", wc.wr_id, wc.status, done);
			} else if (rc_verify(o) != 0) {
				if (bad++ < 5)
					printf("rc client: op %u (%d, %u B at %u) data wrong\n",
					       o->seq, o->op, o->len, o->off);
			}
			done++;
		}
		if (done != last_done) {
			last_done = done;
			last_ms = ut_now_ms();
		} else if (ut_now_ms() > last_ms + RC_STALL_MS) {
			struct pv_qp_init_attr ia;
			struct pv_qp_attr qa;

			pv_query_qp(rqp, &qa, PV_QP_STATE, &ia);
			printf("rc client: stuck at %u of %u completions (QP state %d)\n", done,
			       posted, qa.qp_state);
			break;
		}
	}
	pv_sroce_stats_get(ctx, &st1);
	if (xfer(1, &done, sizeof(done)) != 0 || rc_xfer_in(&res, sizeof(res)) != 0)
		goto out;
	ok = done == RC_OPS && order == 0 && bad == 0 && res.sends_got == res.sends &&
	     res.recv_bad == 0 && res.extra == 0 && res.wr_bad == 0 && res.rd_bad == 0 &&
	     res.at_bad == 0 && st1.retransmits > st0.retransmits;	/* the faults hit */
	printf("rc over memif: %u of %u ops completed in %" PRIu64 " ms, %u out of order or "
	       "failed, %u with wrong data; server: %u of %u SENDs received, %u wrong, %u "
	       "extra; WRITE region %u bytes wrong (first at %d), READ region %u, atomics "
	       "%u; client: %" PRIu64 " retransmits, %" PRIu64 " timeouts, %" PRIu64
	       " ICRC drops; server: %" PRIu64 " duplicate requests, %" PRIu64 " ICRC drops, %"
	       PRIu64 " sequence NAKs, %" PRIu64 " RNR NAKs: %s\n", done, RC_OPS,
	       ut_now_ms() - t0, order, bad, res.sends_got, res.sends, res.recv_bad, res.extra,
	       res.wr_bad, (int)res.wr_first_bad, res.rd_bad, res.at_bad,
	       st1.retransmits - st0.retransmits, st1.timeouts - st0.timeouts,
	       st1.rx_drop_icrc - st0.rx_drop_icrc, res.dup_reqs, res.icrc_drops,
	       res.seq_naks_tx, res.rnr_naks_tx, ok ? "ok" : "FAILED");
	fflush(stdout);
out:
	rc_teardown();
	return !ok;
}

static int
child(int server, const char *sockpath, int fd)
{
	char prefix[64], vdev[256], pvdev[512];
	int ret;

	sock_fd = fd;
	alarm(60);	/* never outlive a hung peer */
	snprintf(prefix, sizeof(prefix), "ut_sroce_chaosm_%c%d", server ? 's' : 'c',
		 (int)getppid());
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 server ? "server" : "client", sockpath);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=10.97.0.%d,%s",
		 server ? 1 : 2, FAULTS);
	ret = ut_pv_init("test_sroce_chaos_memif", 256, prefix, server ? "0" : "1", vdev, pvdev,
			 NULL);
	if (ret < 0)
		return 77;
	ret = ut_dev_open_first(&ctx);
	if (ret != 0)
		return ret == 77 ? 77 : 1;
	ut_progress_ctx[0] = ctx;
	pd = pv_alloc_pd(ctx);
	cq = pv_create_cq(ctx, 2 * RQ_DEPTH, NULL, NULL, 0);
	buf = aligned_alloc(64, (size_t)RQ_DEPTH * SLOT);
	if (pd == NULL || cq == NULL || buf == NULL)
		return 1;
	mr = pv_reg_mr(pd, buf, (size_t)RQ_DEPTH * SLOT, PV_ACCESS_LOCAL_WRITE);
	if (mr == NULL || qp_up() != 0)
		return 1;
	if (ut_port_wait_active(ctx, 15000) != 0) {
		fprintf(stderr, "%s: memif link did not come up\n", server ? "server" : "client");
		return 1;
	}
	ret = server ? server_main() : client_main();
	if (ret == 0)
		ret = server ? rc_server() : rc_client();
	pv_destroy_qp(qp);
	pv_dereg_mr(mr);
	pv_destroy_cq(cq);
	pv_dealloc_pd(pd);
	pv_close_device(ctx);
	pv_cleanup();
	free(buf);
	return ret;
}

int
main(void)
{
	return ut_fork_pair("pv-sroce-chaos", child);
}
