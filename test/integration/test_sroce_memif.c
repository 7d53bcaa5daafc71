/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce integration test in two processes over a net_memif pair. The
 * parent forks before anything DPDK is initialised; each child runs pv_init
 * with its own --file-prefix. The server progresses its device and obeys
 * commands sent over a socketpair; the client runs the CUnit suite:
 * every opcode at 1, 63, MTU-1, MTU, MTU+1, 64 KiB and 1 MiB compared byte
 * for byte on the other side, atomics, each remote access violation with the
 * target unchanged, RNR retry exhaustion, a vanished peer, go-back-N under
 * injected loss.
 */

#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define BIG (1u << 20)
#define DEPTH 128

enum cmd {
	CMD_NEWQP = 1,	/* a: qp_access_flags; then peers are exchanged */
	CMD_RECV,	/* a: length, b: wr_id */
	CMD_RECV_WAIT,	/* a: expected length, b: seed; reply wc + data compare */
	CMD_FILL,	/* a: length, b: seed */
	CMD_CHECK,	/* a: length, b: seed; reply 1 if equal */
	CMD_SET64,	/* a: value */
	CMD_GET64,
	CMD_MR,		/* a: access, b: nonzero = on another PD; reply rkey */
	CMD_QPSTATE,
	CMD_VANISH,	/* destroy the QP */
	CMD_FAULT,	/* a: drop_tx_one_in */
	CMD_EXIT,
};

struct msg {
	uint32_t cmd;
	uint32_t a, b, c;
	uint64_t v;
};

struct reply {
	int32_t status;
	uint32_t byte_len;
	uint32_t opcode;
	uint32_t flags;
	uint32_t imm;
	uint32_t ok;
	uint64_t v;
	struct ut_peer peer;
};

static int sock_fd;
static struct pv_context *ctx;
static struct pv_pd *pd, *pd2;
static struct pv_cq *cq;
static struct pv_qp *qp;
static uint8_t *buf, *chk;
static struct pv_mr *mr, *xmr;
static union pv_gid my_gid;
static struct ut_peer remote;	/* the other side's buffer and QP */

static int
xwrite(const void *p, size_t n)
{
	return write(sock_fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int
xread(void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(sock_fd, (uint8_t *)p + got, n - got);

		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

/* both sides: create a QP, swap peers, connect */
static int
connect_qp(const struct ut_qp_opts *o)
{
	struct ut_peer me;
	struct pv_wc wc;
	int ret;

	while (pv_poll_cq(cq, 1, &wc) > 0)
		;
	if (qp != NULL)
		pv_destroy_qp(qp);
	qp = ut_qp_create(pd, cq, DEPTH);
	if (qp == NULL)
		return -1;
	memset(&me, 0, sizeof(me));
	me.qpn = qp->qp_num;
	me.psn = (qp->qp_num * 7919u) & 0xffffff;
	me.gid = my_gid;
	me.addr = (uintptr_t)buf;
	me.rkey = mr->rkey;
	if (xwrite(&me, sizeof(me)) != 0 || xread(&remote, sizeof(remote)) != 0)
		return -1;
	ret = ut_qp_init(qp, o);
	ret = ret ? ret : ut_qp_rtr(qp, o, &remote, PV_MTU_1024);
	ret = ret ? ret : ut_qp_rts(qp, o, me.psn);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Server                                                                 */
/* ---------------------------------------------------------------------- */

static void
server_cmd(const struct msg *m)
{
	struct reply r;
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_wc wc;
	struct pv_sroce_fault f;

	memset(&r, 0, sizeof(r));
	switch (m->cmd) {
	case CMD_NEWQP:
		o.access = m->a;
		r.ok = connect_qp(&o) == 0;
		break;
	case CMD_RECV:
		r.ok = ut_post_recv1(qp, m->b, buf, m->a, mr->lkey) == 0;
		break;
	case CMD_RECV_WAIT:
		if (!ut_wait_wc(cq, &wc, 10000)) {
			r.status = -1;
			break;
		}
		r.status = wc.status;
		r.byte_len = wc.byte_len;
		r.opcode = wc.opcode;
		r.flags = wc.wc_flags;
		r.imm = wc.imm_data;
		if (wc.opcode == PV_WC_RECV_RDMA_WITH_IMM || wc.opcode == PV_WC_RECV) {
			ut_fill(chk, m->a, m->b);
			r.ok = memcmp(buf, chk, m->a) == 0;
		}
		break;
	case CMD_FILL:
		ut_fill(buf, m->a, m->b);
		r.ok = 1;
		break;
	case CMD_CHECK:
		ut_fill(chk, m->a, m->b);
		r.ok = memcmp(buf, chk, m->a) == 0;
		break;
	case CMD_SET64:
		*(uint64_t *)buf = m->v;
		r.ok = 1;
		break;
	case CMD_GET64:
		r.v = *(uint64_t *)buf;
		r.ok = 1;
		break;
	case CMD_MR:
		if (xmr != NULL)
			pv_dereg_mr(xmr);
		xmr = pv_reg_mr(m->b ? pd2 : pd, buf, BIG, m->a);
		r.ok = xmr != NULL;
		r.v = xmr != NULL ? xmr->rkey : 0;
		break;
	case CMD_QPSTATE: {
		struct pv_qp_attr a;
		struct pv_qp_init_attr ia;

		ut_spin(2);
		pv_query_qp(qp, &a, PV_QP_STATE, &ia);
		r.v = a.qp_state;
		r.ok = 1;
		break;
	}
	case CMD_VANISH:
		pv_destroy_qp(qp);
		qp = NULL;
		r.ok = 1;
		break;
	case CMD_FAULT:
		memset(&f, 0, sizeof(f));
		f.drop_tx_one_in = m->a;
		r.ok = pv_sroce_fault_set(ctx, &f) == 0;
		break;
	default:
		break;
	}
	(void)xwrite(&r, sizeof(r));
}

static int
server_main(void)
{
	struct pollfd pfd = { .fd = sock_fd, .events = POLLIN };
	struct msg m;
	uint32_t i = 0;

	for (;;) {
		pv_progress(ctx);
		if ((++i & 63) != 0 || poll(&pfd, 1, 0) <= 0)
			continue;
		if (xread(&m, sizeof(m)) != 0)
			return 1;
		if (m.cmd == CMD_EXIT)
			return 0;
		server_cmd(&m);
	}
}

/* ---------------------------------------------------------------------- */
/* Client (the CUnit suite)                                               */
/* ---------------------------------------------------------------------- */

static struct reply
rpc(uint32_t cmd, uint32_t a, uint32_t b, uint64_t v)
{
	struct msg m = { .cmd = cmd, .a = a, .b = b, .v = v };
	struct reply r;

	memset(&r, 0, sizeof(r));
	if (xwrite(&m, sizeof(m)) != 0)
		r.status = -2;
	if (xread(&r, sizeof(r)) != 0)
		r.status = -2;
	return r;
}

static int
new_pair(const struct ut_qp_opts *mine, unsigned int server_access)
{
	struct msg m = { .cmd = CMD_NEWQP, .a = server_access };
	struct reply r;

	if (xwrite(&m, sizeof(m)) != 0 || connect_qp(mine) != 0 || xread(&r, sizeof(r)) != 0)
		return -1;
	return r.ok ? 0 : -1;
}

static void
one_op(enum pv_wr_opcode op, uint32_t len, uint32_t seed)
{
	int imm = op == PV_WR_SEND_WITH_IMM || op == PV_WR_RDMA_WRITE_WITH_IMM;
	int recv = op == PV_WR_SEND || imm;
	struct pv_wc wc;
	struct reply r;

	if (recv) {
		r = rpc(CMD_RECV, op == PV_WR_RDMA_WRITE_WITH_IMM ? 0 : BIG, seed, 0);
		CU_ASSERT_FATAL(r.ok);
	}
	if (op == PV_WR_RDMA_READ) {
		r = rpc(CMD_FILL, len, seed, 0);
		memset(buf, 0xee, len + 1);
	} else {
		ut_fill(buf, len, seed);
	}
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(qp, op, seed, buf, len, mr->lkey, remote.addr,
					    remote.rkey, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 10000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, seed);
	if (recv) {
		r = rpc(CMD_RECV_WAIT, len, seed, 0);
		CU_ASSERT_EQUAL(r.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(r.byte_len, len);
		CU_ASSERT_EQUAL(r.opcode, op == PV_WR_RDMA_WRITE_WITH_IMM ?
				PV_WC_RECV_RDMA_WITH_IMM : PV_WC_RECV);
		CU_ASSERT_EQUAL(!!(r.flags & PV_WC_WITH_IMM), imm);
		if (imm)
			CU_ASSERT_EQUAL(r.imm, htonl(0x12345678));
		CU_ASSERT(r.ok);
	}
	if (op == PV_WR_RDMA_WRITE) {
		r = rpc(CMD_CHECK, len, seed, 0);
		CU_ASSERT(r.ok);
	}
	if (op == PV_WR_RDMA_READ) {
		ut_fill(chk, len, seed);
		CU_ASSERT_EQUAL(memcmp(buf, chk, len), 0);
		CU_ASSERT_EQUAL(buf[len], 0xee);
	}
}

static void
test_opcodes_sizes(void)
{
	static const uint32_t sizes[] = { 1, 63, 1023, 1024, 1025, 65536, BIG };
	static const enum pv_wr_opcode ops[] = {
		PV_WR_SEND, PV_WR_SEND_WITH_IMM, PV_WR_RDMA_WRITE, PV_WR_RDMA_WRITE_WITH_IMM,
		PV_WR_RDMA_READ,
	};
	unsigned int i, j;

	CU_ASSERT_EQUAL_FATAL(new_pair(&ut_qp_defaults, ut_qp_defaults.access), 0);
	for (i = 0; i < RTE_DIM(ops); i++)
		for (j = 0; j < RTE_DIM(sizes); j++)
			one_op(ops[i], sizes[j], 1000 + i * 10 + j);
}

static void
test_atomics(void)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge = { (uintptr_t)buf, 8, 0 };
	struct pv_wc wc;
	struct reply r;

	sge.lkey = mr->lkey;
	r = rpc(CMD_SET64, 0, 0, 40);
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = remote.addr;
	wr.wr.atomic.rkey = remote.rkey;
	wr.wr.atomic.compare_add = 2;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(qp, &wr, &bad), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(*(uint64_t *)buf, 40);
	wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 1;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(qp, &wr, &bad), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(*(uint64_t *)buf, 42);
	r = rpc(CMD_GET64, 0, 0, 0);
	CU_ASSERT_EQUAL(r.v, 1);
}

static void
one_violation(int kind)
{
	enum pv_wr_opcode op = PV_WR_RDMA_WRITE;
	uint64_t raddr = remote.addr;
	uint32_t rkey = remote.rkey, len = 3000;
	struct pv_wc wc;
	struct reply r;

	CU_ASSERT_EQUAL_FATAL(new_pair(&ut_qp_defaults, ut_qp_defaults.access), 0);
	switch (kind) {
	case 0:		/* bad rkey */
		rkey ^= 0x40;
		break;
	case 1:		/* out of bounds */
		raddr += BIG + 4096 - 1000;	/* the MR is BIG + 4096 long */
		break;
	case 2:		/* MR without REMOTE_WRITE */
		r = rpc(CMD_MR, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ, 0, 0);
		rkey = (uint32_t)r.v;
		break;
	case 3:		/* MR without REMOTE_READ */
		r = rpc(CMD_MR, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE, 0, 0);
		rkey = (uint32_t)r.v;
		op = PV_WR_RDMA_READ;
		break;
	default:	/* MR of another PD */
		r = rpc(CMD_MR, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE, 1, 0);
		rkey = (uint32_t)r.v;
		break;
	}
	/* the whole registered buffer of the target must stay as it was */
	r = rpc(CMD_FILL, BIG + 4096, 77, 0);
	ut_fill(buf, len, 5);
	memcpy(chk, buf, len);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(qp, op, 1, buf, len, mr->lkey, raddr, rkey, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(qp, PV_WR_RDMA_WRITE, 2, buf, 4, mr->lkey,
					    remote.addr, remote.rkey, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_ACCESS_ERR);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	/* target memory untouched, on both sides */
	r = rpc(CMD_CHECK, BIG + 4096, 77, 0);
	CU_ASSERT(r.ok);
	CU_ASSERT_EQUAL(memcmp(buf, chk, len), 0);
	r = rpc(CMD_QPSTATE, 0, 0, 0);
	CU_ASSERT_EQUAL(r.v, PV_QPS_ERR);
}

static void
test_access_violations(void)
{
	int k;

	for (k = 0; k < 5; k++)
		one_violation(k);
}

static void
test_rnr(void)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_wc wc;

	o.rnr_retry = 0;
	CU_ASSERT_EQUAL_FATAL(new_pair(&o, ut_qp_defaults.access), 0);
	CU_ASSERT_EQUAL_FATAL(ut_post_send1(qp, PV_WR_SEND, 3, buf, 100, mr->lkey, 0, 0, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_RNR_RETRY_EXC_ERR);
}

static void
test_loss(void)
{
	struct pv_sroce_fault f = { .drop_tx_one_in = 10 }, none = { 0 };
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_sroce_stats s0, s1;
	struct reply r;

	o.timeout = 10;
	CU_ASSERT_EQUAL_FATAL(new_pair(&o, ut_qp_defaults.access), 0);
	pv_sroce_stats_get(ctx, &s0);
	pv_sroce_fault_set(ctx, &f);
	r = rpc(CMD_FAULT, 10, 0, 0);
	CU_ASSERT(r.ok);
	one_op(PV_WR_RDMA_WRITE, 300000, 1);
	one_op(PV_WR_RDMA_READ, 300000, 2);
	one_op(PV_WR_SEND, 100000, 3);
	r = rpc(CMD_FAULT, 0, 0, 0);
	pv_sroce_fault_set(ctx, &none);
	pv_sroce_stats_get(ctx, &s1);
	CU_ASSERT(s1.retransmits > s0.retransmits);
}

static void
test_vanished_peer(void)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_wc wc;
	struct reply r;
	int i;

	o.timeout = 8;
	o.retry_cnt = 1;
	CU_ASSERT_EQUAL_FATAL(new_pair(&o, ut_qp_defaults.access), 0);
	r = rpc(CMD_VANISH, 0, 0, 0);
	CU_ASSERT(r.ok);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(ut_post_send1(qp, PV_WR_RDMA_WRITE, 50 + i, buf, 2000,
						    mr->lkey, remote.addr, remote.rkey, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
	CU_ASSERT_EQUAL(wc.status, PV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(wc.wr_id, 50);
	for (i = 1; i < 3; i++) {
		CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 5000));
		CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
	}
}

static const struct ut_case sroce_memif_cases[] = {
	{ "opcodes_sizes", test_opcodes_sizes },
	{ "atomics", test_atomics },
	{ "access_violations", test_access_violations },
	{ "rnr", test_rnr },
	{ "loss", test_loss },
	{ "vanished_peer", test_vanished_peer },
	{ NULL, NULL },
};

static const struct ut_suite sroce_memif_suite = {
	.name = "sroce_memif",
	.cases = sroce_memif_cases,
};

static int
client_main(void)
{
	struct msg m = { .cmd = CMD_EXIT };
	int fails;

	fails = ut_cunit_run_one(&sroce_memif_suite);
	(void)xwrite(&m, sizeof(m));
	return fails != 0;
}

/* ---------------------------------------------------------------------- */

static int
child(int server, const char *sockpath, int fd)
{
	char prefix[64], vdev[256], pvdev[128];
	int ret;

	sock_fd = fd;
	alarm(100);	/* never outlive a hung peer */
	snprintf(prefix, sizeof(prefix), "ut_sroce_memif_%c%d", server ? 's' : 'c', (int)getppid());
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 server ? "server" : "client", sockpath);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=10.98.0.%d",
		 server ? 1 : 2);
	ret = ut_pv_init("test_sroce_memif", 256, prefix, server ? "0" : "1", vdev, pvdev, NULL);
	if (ret < 0)
		return 77;
	ret = ut_dev_open_first(&ctx);
	if (ret != 0)
		return ret == 77 ? 77 : 1;
	ut_progress_ctx[0] = ctx;
	pd = pv_alloc_pd(ctx);
	pd2 = pv_alloc_pd(ctx);
	cq = pv_create_cq(ctx, 4 * DEPTH, NULL, NULL, 0);
	buf = aligned_alloc(64, BIG + 4096);
	chk = aligned_alloc(64, BIG + 4096);
	if (pd == NULL || pd2 == NULL || cq == NULL || buf == NULL || chk == NULL)
		return 1;
	mr = pv_reg_mr(pd, buf, BIG + 4096, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
		       PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC);
	if (mr == NULL)
		return 1;
	pv_query_gid(ctx, 1, 1, &my_gid);
	if (ut_port_wait_active(ctx, 15000) != 0) {
		fprintf(stderr, "%s: memif link did not come up\n", server ? "server" : "client");
		return 1;
	}
	ret = server ? server_main() : client_main();
	if (qp != NULL)
		pv_destroy_qp(qp);
	if (xmr != NULL)
		pv_dereg_mr(xmr);
	pv_dereg_mr(mr);
	pv_destroy_cq(cq);
	pv_dealloc_pd(pd2);
	pv_dealloc_pd(pd);
	pv_close_device(ctx);
	pv_cleanup();
	return ret;
}

int
main(void)
{
	return ut_fork_pair("pv-sroce-ut", child);
}
