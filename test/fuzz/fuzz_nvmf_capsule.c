/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * libFuzzer target: lib/nvmf's controller core (pv_nvmf_req_submit(), as
 * nvmf_rdma.c calls it for every received capsule) behind a fake transport.
 * One target, made once: an NVM subsystem that admits FZ_HOSTNQN only, with
 * two RAM namespaces (nsid 1: 4 MiB of 512-byte blocks, nsid 2: 1 MiB of
 * 4 KiB blocks), the discovery subsystem and one listener. Each input gets
 * four fresh queue pairs (slots 0-2: QID 0, 1, 2; slot 3: QID chosen by the
 * input) whose ops capture the completions and move data between the
 * command and a 256 KiB fake host memory at FZ_HOST_VA behind key FZ_KEY;
 * nothing touches a network. The core's sources are built into the target
 * (test/fuzz/meson.build): libFuzzer sees their edges, ASan their accesses.
 *
 * The input: two header bytes, then actions.
 *   h0  bits 1:0 the state the harness brings up first through the core:
 *       0 nothing connected, 1 admin queue (slot 0) connected, 2 and enabled
 *       (CC.EN), 3 and the I/O queue of slot 1 connected; bit 2 to the
 *       discovery subsystem instead (no I/O queue then); bit 3 KATO 1 s.
 *   h1  the QID of slot 3 (modulo the queues per controller, as the RDMA
 *       transport refuses others at connection time).
 * Each action is one byte (modulo 6) and its operands:
 *   0  a capsule: a byte "how", the in-capsule data length (u16 LE, at most
 *      4096), the 64-byte SQE, the in-capsule data. how bits 1:0 the slot;
 *      bits 3:2 data_prep: 1 completes later (an action 1), 2 fails with
 *      -ENOMEM, else at once; bit 4 the keys of keyed SGL descriptors :=
 *      FZ_KEY; bit 5 a Connect's queue ID := the slot's and its data (in
 *      the capsule or at the host) := FZ_HOSTNQN, the NVM subsystem (bit 6:
 *      the discovery one), controller ID 0xffff or the last one Connect
 *      returned; bit 7 the SQE's flags := SGL, not fused.
 *   1  the oldest command waiting for data_prep: operand even, the data is
 *      there (pv_nvmf_req_exec()); odd, pv_nvmf_req_fail() (Data Transfer
 *      Error) as a failed RDMA READ.
 *   2  the transport acts on the disconnects the core asked for: those
 *      queue pairs are torn down (pv_nvmf_qpair_fini()) and start afresh.
 *   3  the connection of slot (operand % 4) is lost: torn down, afresh.
 *   4  keep-alive check of slot (operand % 4) at now + (operand >> 2) * 200 ms.
 *   5  host memory write: offset (u16 LE: in the first 64 KiB), length
 *      (u8), the bytes.
 * A command waiting for data when its queue pair is torn down fails after
 * pv_nvmf_qpair_fini(), as the RDMA transport's flushed READ does. At the
 * end the harness gives the waiting commands their data, tears every
 * queue pair down and checks that nothing is left.
 *
 * Checked (abort() on failure): every command completes exactly once
 * (done() of a request in flight) or is held as an AER, or waits for the
 * data the harness owes; per queue pair, the core's outstanding count
 * equals the harness's; every status is one this target may return (an SC
 * of pv_nvmf_spec.h with DNR set on failure), with the command's CID and
 * queue ID; the core never moves more data than data_prep gave it (each
 * buffer is malloc()ed at the exact length, so ASan sees more); at the end
 * no controller is left in a subsystem and the 8 KiB of guard bytes before
 * and after each namespace's memory (EAL memory, which ASan does not see)
 * are intact.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "pv_nvmf.h"
#include "pv_rtc.h"
#include "nvmf_priv.h"
#include "ut_common.h"

#define FZ_SUBNQN	"nqn.2026-11.org.pollverbs:fuzz"
#define FZ_HOSTNQN	"nqn.2014-08.org.nvmexpress:uuid:fuzz-host"
#define FZ_KEY		0x1234abcdu
#define FZ_HOST_VA	0x100000000ull	/* the host's memory as its SGLs name it */
#define FZ_HOST_LEN	(256u * 1024)
#define FZ_NQP		4
#define FZ_MAX_QPAIRS	4		/* per controller, admin included */
#define FZ_ICD_MAX	4096u		/* in-capsule data: the target's option */
#define FZ_NREQ		32
#define FZ_NNS		2
#define FZ_GUARD	8192u		/* bytes before and after each namespace */
#define FZ_GUARD_BYTE	0xa5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a queue pair of the fake transport */
struct fz_qp {
	struct pv_nvmf_qpair qp;
	bool disconnect;		/* the core asked for a disconnect */
};

/* a request of the fake transport: free, or between submit and done() */
struct fz_req {
	struct pv_nvmf_req req;
	bool busy;
	bool data_wait;			/* data_prep returned 1: the harness owes it */
	uint8_t prep_mode;		/* how bits 3:2 */
	uint64_t seq;			/* submit order, for the data owed */
	uint8_t *icd;			/* icd_len bytes, malloc()ed */
	uint8_t *buf;			/* data_prep's, buf_len bytes, malloc()ed */
	uint32_t buf_len;
};

static const struct {
	uint64_t blocks;
	uint32_t block_size;
} fz_ns_geo[FZ_NNS] = { { 8192, 512 }, { 256, 4096 } };

static struct pv_nvmf_tgt *fz_tgt;
static struct pv_nvmf_subsys *fz_subsys;
static struct pv_nvmf_ns *fz_ns[FZ_NNS];
static uint8_t *fz_ns_mem[FZ_NNS];		/* the RAM backend's base, guards included */
static uint8_t fz_guard[FZ_GUARD];
static uint8_t fz_host[FZ_HOST_LEN];
static struct fz_qp fz_qps[FZ_NQP];
static struct fz_req fz_reqs[FZ_NREQ];
static uint64_t fz_seq;
static uint16_t fz_cntlid;			/* the last one an admin Connect returned */

static void __attribute__((noreturn))
fz_fail(const char *why, const struct pv_nvmf_req *req)
{
	if (req != NULL)
		fprintf(stderr, "fuzz_nvmf_capsule: %s (opc 0x%02x fctype 0x%02x qid %u "
			"status 0x%04x)\n", why, req->cmd.opc, ((const uint8_t *)&req->cmd)[4],
			req->qp->qid, rte_le_to_cpu_16(req->cpl.status));
	else
		fprintf(stderr, "fuzz_nvmf_capsule: %s\n", why);
	abort();
}

/* ------------------------------------------------------------------ */
/* fake transport                                                       */
/* ------------------------------------------------------------------ */

/* the host memory [addr, addr + len) of a keyed segment, or NULL */
static uint8_t *
fz_host_seg(const struct pv_nvmf_sgl_seg *s)
{
	if (s->key != FZ_KEY || s->addr < FZ_HOST_VA || s->len > FZ_HOST_LEN ||
	    s->addr - FZ_HOST_VA > FZ_HOST_LEN - s->len)
		return NULL;
	return fz_host + (s->addr - FZ_HOST_VA);
}

/* RDMA READ of the host's segments into the buffer */
static void
fz_data_read(struct fz_req *r)
{
	struct pv_nvmf_req *req = &r->req;
	uint32_t done = 0, i, n;

	for (i = 0; i < req->nseg && done < req->length; i++) {
		n = RTE_MIN(req->sgl[i].len, req->length - done);
		memcpy(r->buf + done, fz_host_seg(&req->sgl[i]), n);
		done += n;
	}
}

static int
fz_data_prep(struct pv_nvmf_req *req)
{
	struct fz_req *r = container_of(req, struct fz_req, req);
	uint32_t i;

	if (!r->busy || r->buf != NULL || req->length == 0 || req->data_in_capsule ||
	    req->nseg == 0 || req->nseg > PV_NVMF_MAX_SGL_DESC)
		fz_fail("data_prep of a request that moves no keyed data", req);
	for (i = 0; i < req->nseg; i++)
		if (fz_host_seg(&req->sgl[i]) == NULL)
			return -EFAULT;	/* the host's NIC would refuse the access */
	if (r->prep_mode == 2)
		return -ENOMEM;
	r->buf = malloc(req->length);
	if (r->buf == NULL)
		return -ENOMEM;
	r->buf_len = req->length;
	req->data = r->buf;
	if (r->prep_mode == 1) {
		r->data_wait = true;
		return 1;
	}
	if (req->xfer == PV_NVMF_XFER_H2C)
		fz_data_read(r);
	return 0;
}

/* a status this target may return: an SC it defines, DNR on failure only */
static bool
fz_status_ok(uint16_t st)
{
	uint8_t sc = PV_NVME_STATUS_SC(st), sct = PV_NVME_STATUS_SCT(st);

	if ((st & 0x7001) != 0)		/* phase (the transport's), CRD, More */
		return false;
	if (st == 0)
		return true;
	if ((st & PV_NVME_STATUS_DNR) == 0)
		return false;
	if (sct == PV_NVME_SCT_GENERIC) {
		switch (sc) {
		case PV_NVME_SC_INVALID_OPCODE:
		case PV_NVME_SC_INVALID_FIELD:
		case PV_NVME_SC_DATA_XFER_ERROR:
		case PV_NVME_SC_INTERNAL:
		case PV_NVME_SC_ABORTED_SQ_DELETION:
		case PV_NVME_SC_INVALID_NS:
		case PV_NVME_SC_CMD_SEQ_ERROR:
		case PV_NVME_SC_INVALID_SGL_SEG:
		case PV_NVME_SC_INVALID_NUM_SGL:
		case PV_NVME_SC_DATA_SGL_LEN_INVALID:
		case PV_NVME_SC_SGL_TYPE_INVALID:
		case PV_NVME_SC_SGL_OFFSET_INVALID:
		case PV_NVME_SC_LBA_OUT_OF_RANGE:
			return true;
		default:
			return false;
		}
	}
	if (sct == PV_NVME_SCT_CMD_SPECIFIC) {
		switch (sc) {
		case PV_NVME_SC_ASYNC_LIMIT:
		case PV_NVME_SC_INVALID_LOG_PAGE:
		case PV_NVME_SC_FEAT_NOT_SAVEABLE:
		case PV_NVMF_SC_CONNECT_INCOMPAT_FMT:
		case PV_NVMF_SC_CONNECT_CTRL_BUSY:
		case PV_NVMF_SC_CONNECT_INVALID_PARAM:
		case PV_NVMF_SC_CONNECT_INVALID_HOST:
			return true;
		default:
			return false;
		}
	}
	return false;
}

static bool
fz_is_connect(const struct pv_nvme_cmd *c)
{
	return c->opc == PV_NVME_OPC_FABRICS &&
	       ((const struct pv_nvmf_cmd *)c)->fctype == PV_NVMF_FCTYPE_CONNECT;
}

static void
fz_done(struct pv_nvmf_req *req)
{
	struct fz_req *r = container_of(req, struct fz_req, req);
	uint16_t st = rte_le_to_cpu_16(req->cpl.status);
	uint32_t done = 0, i, n;

	if (!r->busy)
		fz_fail("done() of a request not in flight (completed twice?)", req);
	if (r->data_wait)
		fz_fail("done() of a request whose data the transport still owes", req);
	if (!fz_status_ok(st))
		fz_fail("invalid status", req);
	if (req->cpl.cid != req->cmd.cid || rte_le_to_cpu_16(req->cpl.sqid) != req->qp->qid)
		fz_fail("CQE with another command's CID or SQID", req);
	if (req->xfer == PV_NVMF_XFER_C2H && st == 0) {
		/* RDMA WRITEs of req->length bytes from the buffer data_prep gave */
		if (r->buf == NULL || req->data != r->buf || req->length > r->buf_len)
			fz_fail("controller-to-host data beyond data_prep's buffer", req);
		for (i = 0; i < req->nseg && done < req->length; i++) {
			n = RTE_MIN(req->sgl[i].len, req->length - done);
			memcpy(fz_host_seg(&req->sgl[i]), r->buf + done, n);
			done += n;
		}
	}
	if (st == 0 && fz_is_connect(&req->cmd)) {
		if (!req->qp->connected || req->qp->ctrlr == NULL)
			fz_fail("Connect succeeded, the queue pair is not connected", req);
		if (req->qp->qid == 0)
			fz_cntlid = (uint16_t)rte_le_to_cpu_32(req->cpl.cdw0);
	}
	free(r->buf);
	free(r->icd);
	r->buf = NULL;
	r->icd = NULL;
	r->busy = false;
}

static void
fz_disconnect(struct pv_nvmf_qpair *qp)
{
	container_of(qp, struct fz_qp, qp)->disconnect = true;
}

static const struct pv_nvmf_qpair_ops fz_ops = {
	.data_prep = fz_data_prep,
	.done = fz_done,
	.disconnect = fz_disconnect,
};

/* ------------------------------------------------------------------ */
/* requests and queue pairs                                             */
/* ------------------------------------------------------------------ */

/* after submit or exec: @p r completed, waits for its data or is a held AER */
static void
fz_req_settled(const struct fz_req *r)
{
	const struct pv_nvmf_req *req = &r->req;

	if (!r->busy || r->data_wait)
		return;
	if (req->cmd.opc == PV_NVME_OPC_ASYNC_EVENT_REQ && req->qp->qid == 0 &&
	    req->qp->connected)
		return;
	fz_fail("command neither completed nor held", req);
}

/* each queue pair's outstanding count is the number of its requests in flight */
static void
fz_outstanding_check(void)
{
	unsigned int i, k, n;

	for (i = 0; i < FZ_NQP; i++) {
		for (k = 0, n = 0; k < FZ_NREQ; k++)
			if (fz_reqs[k].busy && fz_reqs[k].req.qp == &fz_qps[i].qp)
				n++;
		if (fz_qps[i].qp.outstanding != n)
			fz_fail("outstanding count differs from the requests in flight", NULL);
		if (fz_qps[i].qp.connected && fz_qps[i].qp.ctrlr == NULL)
			fz_fail("queue pair connected without a controller", NULL);
	}
}

/* submit @p cmd with @p icd_len bytes of in-capsule data on slot @p slot */
static struct fz_req *
fz_submit(unsigned int slot, const struct pv_nvme_cmd *cmd, const uint8_t *icd,
	  uint32_t icd_len, uint8_t prep_mode)
{
	struct fz_req *r = NULL;
	unsigned int k;

	for (k = 0; k < FZ_NREQ && r == NULL; k++)
		if (!fz_reqs[k].busy)
			r = &fz_reqs[k];
	if (r == NULL)
		return NULL;	/* the host overran the queues: the capsule is dropped */
	memset(r, 0, sizeof(*r));
	/* a buffer of the capsule's size: ASan sees a read past it */
	r->icd = malloc(icd_len != 0 ? icd_len : 1);
	if (r->icd == NULL)
		return NULL;
	if (icd_len != 0)
		memcpy(r->icd, icd, icd_len);
	r->busy = true;
	r->prep_mode = prep_mode;
	r->seq = fz_seq++;
	r->req.cmd = *cmd;
	r->req.qp = &fz_qps[slot].qp;
	/* never NULL: the RDMA transport's points into its receive buffer */
	r->req.icd = r->icd;
	r->req.icd_len = icd_len;
	pv_nvmf_req_submit(&r->req);
	fz_req_settled(r);
	return r;
}

/* the oldest request waiting for its data, of @p qp only if not NULL */
static struct fz_req *
fz_data_owed(const struct pv_nvmf_qpair *qp)
{
	struct fz_req *r = NULL;
	unsigned int k;

	for (k = 0; k < FZ_NREQ; k++)
		if (fz_reqs[k].busy && fz_reqs[k].data_wait &&
		    (qp == NULL || fz_reqs[k].req.qp == qp) &&
		    (r == NULL || fz_reqs[k].seq < r->seq))
			r = &fz_reqs[k];
	return r;
}

static void
fz_data_give(struct fz_req *r, bool ok)
{
	r->data_wait = false;
	if (!ok)
		return pv_nvmf_req_fail(&r->req, 0, PV_NVME_SC_DATA_XFER_ERROR);
	if (r->req.xfer == PV_NVMF_XFER_H2C)
		fz_data_read(r);
	pv_nvmf_req_exec(&r->req);
	fz_req_settled(r);
}

/* the transport drops slot @p slot's connection; a new one takes the slot */
static void
fz_qp_down(unsigned int slot)
{
	struct fz_qp *q = &fz_qps[slot];
	struct fz_req *r;
	unsigned int k;

	pv_nvmf_qpair_fini(&q->qp);
	/* READs in flight flush with an error once the QP is in ERR */
	while ((r = fz_data_owed(&q->qp)) != NULL)
		fz_data_give(r, false);
	for (k = 0; k < FZ_NREQ; k++)
		if (fz_reqs[k].busy && fz_reqs[k].req.qp == &q->qp)
			fz_fail("request left in flight on a queue pair torn down",
				&fz_reqs[k].req);
	if (q->qp.outstanding != 0 || q->qp.ctrlr != NULL || q->qp.connected)
		fz_fail("queue pair torn down with state left", NULL);
	pv_nvmf_qpair_init(&q->qp, fz_tgt, q->qp.qid, &fz_ops);
	q->disconnect = false;
}

static void
fz_qp_down_asked(void)
{
	unsigned int i;

	for (i = 0; i < FZ_NQP; i++)
		if (fz_qps[i].disconnect)
			fz_qp_down(i);
}

/* ------------------------------------------------------------------ */
/* capsules of the harness's own                                        */
/* ------------------------------------------------------------------ */

static void
fz_connect_data_set(struct pv_nvmf_connect_data *d, uint16_t qid, bool disc)
{
	memset(d->subnqn, 0, sizeof(d->subnqn));
	memset(d->hostnqn, 0, sizeof(d->hostnqn));
	strcpy(d->subnqn, disc ? PV_NVMF_DISCOVERY_NQN : FZ_SUBNQN);
	strcpy(d->hostnqn, FZ_HOSTNQN);
	d->cntlid = rte_cpu_to_le_16(qid == 0 ? 0xffff : fz_cntlid);
}

static void
fz_cmd_init(struct pv_nvme_cmd *c, uint8_t opc)
{
	memset(c, 0, sizeof(*c));
	c->opc = opc;
	c->flags = 0x40;		/* PSDT 01b: SGLs */
	c->cid = rte_cpu_to_le_16((uint16_t)fz_seq);
}

/* Connect slot @p slot (in-capsule data); abort() unless it succeeds */
static void
fz_connect(unsigned int slot, bool disc, uint32_t kato_ms)
{
	struct pv_nvmf_connect_data d;
	struct pv_nvmf_connect_cmd cc;
	struct fz_req *r;

	fz_cmd_init((struct pv_nvme_cmd *)&cc, PV_NVME_OPC_FABRICS);
	cc.fctype = PV_NVMF_FCTYPE_CONNECT;
	cc.qid = rte_cpu_to_le_16(fz_qps[slot].qp.qid);
	cc.sqsize = rte_cpu_to_le_16(31);
	cc.kato = rte_cpu_to_le_32(kato_ms);
	cc.sgl1.unkeyed.length = rte_cpu_to_le_32(sizeof(d));
	cc.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
	memset(&d, 0, sizeof(d));
	fz_connect_data_set(&d, fz_qps[slot].qp.qid, disc);
	r = fz_submit(slot, (struct pv_nvme_cmd *)&cc, (const uint8_t *)&d, sizeof(d), 0);
	if (r == NULL || !fz_qps[slot].qp.connected)
		fz_fail("the harness's Connect failed", NULL);
}

/* CC.EN := 1 on slot 0; abort() unless it succeeds */
static void
fz_enable(void)
{
	struct pv_nvmf_prop_cmd pc;

	fz_cmd_init((struct pv_nvme_cmd *)&pc, PV_NVME_OPC_FABRICS);
	pc.fctype = PV_NVMF_FCTYPE_PROPERTY_SET;
	pc.ofst = rte_cpu_to_le_32(PV_NVMF_PROP_CC);
	pc.value = rte_cpu_to_le_64(PV_NVME_CC_EN | 6u << 16 | 4u << 20);
	if (fz_submit(0, (struct pv_nvme_cmd *)&pc, NULL, 0, 0) == NULL ||
	    (fz_qps[0].qp.ctrlr->csts & PV_NVME_CSTS_RDY) == 0)
		fz_fail("the harness's Property Set CC.EN failed", NULL);
}

/* ------------------------------------------------------------------ */
/* input patches (how bits 4-7)                                         */
/* ------------------------------------------------------------------ */

static void
fz_sgl_key_set(struct pv_nvme_sgl *s)
{
	if ((s->keyed.type >> 4) != PV_NVME_SGL_TYPE_KEYED_DATA)
		return;
	s->keyed.key[0] = FZ_KEY & 0xff;
	s->keyed.key[1] = (FZ_KEY >> 8) & 0xff;
	s->keyed.key[2] = (FZ_KEY >> 16) & 0xff;
	s->keyed.key[3] = FZ_KEY >> 24;
}

/* the keys of SGL1 and of a Last Segment's descriptors in the capsule */
static void
fz_patch_keys(struct pv_nvme_cmd *c, uint8_t *icd, uint32_t icd_len)
{
	uint64_t off = rte_le_to_cpu_64(c->sgl1.addr), i;
	uint32_t len = rte_le_to_cpu_32(c->sgl1.unkeyed.length);
	struct pv_nvme_sgl d;

	fz_sgl_key_set(&c->sgl1);
	if (c->sgl1.unkeyed.type !=
	    (PV_NVME_SGL_TYPE_LAST_SEGMENT << 4 | PV_NVME_SGL_SUBTYPE_OFFSET) ||
	    off > icd_len || len > icd_len - off)
		return;
	for (i = 0; i + sizeof(d) <= len; i += sizeof(d)) {
		memcpy(&d, icd + off + i, sizeof(d));
		fz_sgl_key_set(&d);
		memcpy(icd + off + i, &d, sizeof(d));
	}
}

/* a Connect's queue ID, NQNs and controller ID, where the core will read them */
static void
fz_patch_connect(struct pv_nvme_cmd *c, uint8_t *icd, uint32_t icd_len, uint16_t qid,
		 bool disc)
{
	struct pv_nvmf_connect_cmd *cc = (struct pv_nvmf_connect_cmd *)c;
	struct pv_nvmf_connect_data d;
	struct pv_nvmf_sgl_seg seg;
	uint64_t off = rte_le_to_cpu_64(c->sgl1.addr);
	uint8_t *at = NULL;

	if (!fz_is_connect(c))
		return;
	cc->qid = rte_cpu_to_le_16(qid);
	if (c->sgl1.unkeyed.type == (PV_NVME_SGL_TYPE_DATA_BLOCK << 4 |
				     PV_NVME_SGL_SUBTYPE_OFFSET)) {
		if (off <= icd_len && icd_len - off >= sizeof(d))
			at = icd + off;
	} else if ((c->sgl1.keyed.type >> 4) == PV_NVME_SGL_TYPE_KEYED_DATA) {
		seg.addr = off;
		seg.len = sizeof(d);
		seg.key = FZ_KEY;
		at = fz_host_seg(&seg);
	}
	if (at == NULL)
		return;
	memcpy(&d, at, sizeof(d));
	fz_connect_data_set(&d, qid, disc);
	memcpy(at, &d, sizeof(d));
}

/* ------------------------------------------------------------------ */
/* set-up, per-input state, checks                                      */
/* ------------------------------------------------------------------ */

static void
fz_cleanup(void)
{
	unsigned int i;

	/* the RAM backend frees the base it allocated */
	for (i = 0; i < FZ_NNS; i++)
		if (fz_ns[i] != NULL)
			fz_ns[i]->ctx = fz_ns_mem[i];
	pv_nvmf_tgt_destroy(fz_tgt);
	pv_cleanup();
}

static int
fz_setup(void)
{
	static char prefix[64];
	struct pv_nvmf_tgt_opts o = {
		.max_io_size = 128 * 1024,
		.in_capsule_data_size = FZ_ICD_MAX,
		.max_queue_depth = 128,
		.max_qpairs_per_ctrlr = FZ_MAX_QPAIRS,
		.kas_ms = 100,
	};
	unsigned int i;

	snprintf(prefix, sizeof(prefix), "fuzz_nvmf_%d", (int)getpid());
	if (ut_pv_init("fuzz_nvmf", 64, prefix, "0", NULL) < 0)
		return -1;
	atexit(fz_cleanup);
	fz_tgt = pv_nvmf_tgt_create(&o);
	if (fz_tgt == NULL || pv_nvmf_tgt_add_listener(fz_tgt, "10.77.0.1", "4420") != 0)
		return -1;
	fz_subsys = pv_nvmf_subsys_create(fz_tgt, FZ_SUBNQN, "PVFUZZ0001", "pollverbs fuzz",
					  false);
	if (fz_subsys == NULL || pv_nvmf_subsys_add_host(fz_subsys, FZ_HOSTNQN) != 0)
		return -1;
	memset(fz_guard, FZ_GUARD_BYTE, sizeof(fz_guard));
	for (i = 0; i < FZ_NNS; i++) {
		uint32_t bs = fz_ns_geo[i].block_size;
		struct pv_nvmf_ns *ns;

		/*
		 * A RAM namespace FZ_GUARD bytes longer at each end, narrowed
		 * to the middle: its backend's ctx is the base of its memory
		 * (nvmf_io.c), so it writes [ctx, ctx + blocks * bs) only.
		 */
		ns = pv_nvmf_ns_ram_create(fz_ns_geo[i].blocks + 2 * FZ_GUARD / bs, bs);
		if (ns == NULL)
			return -1;
		fz_ns_mem[i] = pv_nvmf_ns_ram_base(ns);
		memset(fz_ns_mem[i], FZ_GUARD_BYTE, FZ_GUARD);
		memset(fz_ns_mem[i] + FZ_GUARD + fz_ns_geo[i].blocks * bs, FZ_GUARD_BYTE, FZ_GUARD);
		ns->ctx = fz_ns_mem[i] + FZ_GUARD;
		ns->num_blocks = fz_ns_geo[i].blocks;
		ns->nsid = i + 1;
		if (pv_nvmf_subsys_add_ns(fz_subsys, ns) != 0) {
			ns->ctx = fz_ns_mem[i];
			pv_nvmf_ns_destroy(ns);
			return -1;
		}
		fz_ns[i] = ns;
	}
	return 0;
}

static void
fz_input_start(uint8_t h0, uint8_t h1)
{
	bool disc = (h0 & 0x4) != 0;
	unsigned int i;

	memset(fz_host, 0, sizeof(fz_host));
	memset(fz_reqs, 0, sizeof(fz_reqs));
	fz_seq = 0;
	fz_cntlid = 0xffff;
	/* controller IDs from 1 again: an input replays alike (none is left) */
	fz_subsys->next_cntlid = 1;
	fz_tgt->discovery->next_cntlid = 1;
	for (i = 0; i < FZ_NQP; i++) {
		pv_nvmf_qpair_init(&fz_qps[i].qp, fz_tgt, i < 3 ? i : h1 % FZ_MAX_QPAIRS, &fz_ops);
		fz_qps[i].disconnect = false;
	}
	if ((h0 & 0x3) >= 1)
		fz_connect(0, disc, (h0 & 0x8) ? 1000 : 0);
	if ((h0 & 0x3) >= 2)
		fz_enable();
	if ((h0 & 0x3) == 3 && !disc)
		fz_connect(1, false, 0);
}

static void
fz_input_end(void)
{
	struct fz_req *r;
	unsigned int i;

	while ((r = fz_data_owed(NULL)) != NULL)
		fz_data_give(r, true);
	fz_outstanding_check();
	for (i = 0; i < FZ_NQP; i++)
		fz_qp_down(i);
	for (i = 0; i < FZ_NREQ; i++)
		if (fz_reqs[i].busy)
			fz_fail("request in flight after every queue pair went", &fz_reqs[i].req);
	if (!TAILQ_EMPTY(&fz_subsys->ctrlrs) || !TAILQ_EMPTY(&fz_tgt->discovery->ctrlrs))
		fz_fail("controller left after every queue pair went", NULL);
	for (i = 0; i < FZ_NNS; i++)
		if (memcmp(fz_ns_mem[i], fz_guard, FZ_GUARD) != 0 ||
		    memcmp(fz_ns_mem[i] + FZ_GUARD + fz_ns_geo[i].blocks * fz_ns_geo[i].block_size,
			   fz_guard, FZ_GUARD) != 0)
			fz_fail("write outside a namespace (guard bytes changed)", NULL);
}

/* action 0: how, icd length, SQE, icd; @return the bytes consumed, 0 at the end */
static size_t
fz_capsule(const uint8_t *p, size_t left)
{
	static uint8_t icd[FZ_ICD_MAX];
	struct pv_nvme_cmd cmd;
	unsigned int slot;
	uint32_t icd_len;
	uint8_t how;

	if (left < 3 + sizeof(cmd))
		return 0;
	how = p[0];
	slot = how & 0x3;
	icd_len = RTE_MIN((uint32_t)(p[1] | p[2] << 8), FZ_ICD_MAX);
	memcpy(&cmd, p + 3, sizeof(cmd));
	icd_len = RTE_MIN(icd_len, (uint32_t)(left - 3 - sizeof(cmd)));
	memcpy(icd, p + 3 + sizeof(cmd), icd_len);
	if (how & 0x80)
		cmd.flags = 0x40;
	if (how & 0x10)
		fz_patch_keys(&cmd, icd, icd_len);
	if (how & 0x20)
		fz_patch_connect(&cmd, icd, icd_len, fz_qps[slot].qp.qid, (how & 0x40) != 0);
	fz_submit(slot, &cmd, icd, icd_len, (how >> 2) & 0x3);
	return 3 + sizeof(cmd) + icd_len;
}

/* action 5: offset, length, bytes; @return the bytes consumed, 0 at the end */
static size_t
fz_host_write(const uint8_t *p, size_t left)
{
	uint32_t off, len;

	if (left < 3)
		return 0;
	off = (uint32_t)(p[0] | p[1] << 8);
	len = (uint32_t)RTE_MIN((size_t)p[2], left - 3);
	memcpy(fz_host + off, p + 3, len);	/* within the first 64 KiB + 255 */
	return 3 + len;
}

/* the action at @p p; @return the bytes consumed, 0 when the input ends in it */
static size_t
fz_action(const uint8_t *p, size_t left)
{
	struct fz_req *r;
	size_t n;
	uint8_t arg;

	switch (p[0] % 6) {
	case 0:
		n = fz_capsule(p + 1, left - 1);
		return n == 0 ? 0 : 1 + n;
	case 2:
		fz_qp_down_asked();
		return 1;
	case 5:
		n = fz_host_write(p + 1, left - 1);
		return n == 0 ? 0 : 1 + n;
	default:
		break;
	}
	if (left < 2)
		return 0;
	arg = p[1];
	switch (p[0] % 6) {
	case 1:
		r = fz_data_owed(NULL);
		if (r != NULL)
			fz_data_give(r, (arg & 1) == 0);
		break;
	case 3:
		fz_qp_down(arg % FZ_NQP);
		break;
	default:	/* 4 */
		pv_nvmf_qpair_keep_alive_check(&fz_qps[arg % FZ_NQP].qp,
					       pv_nvmf_now_ms() + (arg >> 2) * 200u);
		break;
	}
	return 2;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	size_t i, n;

	if (!ready) {
		if (fz_setup() != 0)
			fz_fail("set-up failed", NULL);
		ready = true;
	}
	if (size < 2)
		return 0;
	fz_input_start(data[0], data[1]);
	for (i = 2; i < size; i += n) {
		n = fz_action(data + i, size - i);
		if (n == 0)
			break;
		fz_outstanding_check();
	}
	fz_input_end();
	return 0;
}
