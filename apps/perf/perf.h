/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-perf: perftest's ib_{write,read,send}_{bw,lat} on the pollverbs API.
 * One process is the server (no host argument), the other the client; they
 * agree on parameters and exchange QP addresses over TCP (perf_comm.c), then
 * the client drives the test and both print perftest's tables.
 *
 * --loopback: one process, two QPs of one device connected to each other
 * (perf_main.c); the same loops run with one endpoint as the client and the
 * other as the server, both driven from the main lcore.
 */

#ifndef PV_APPS_PERF_PERF_H
#define PV_APPS_PERF_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pv_cm.h>
#include <pv_verbs.h>

#define PERF_DEF_TCP_PORT	18515
#define PERF_DEF_ITERS_BW	5000
#define PERF_DEF_ITERS_LAT	1000
#define PERF_DEF_SIZE_BW	65536
#define PERF_DEF_SIZE_LAT	2
#define PERF_DEF_TX_DEPTH_BW	128
#define PERF_DEF_TX_DEPTH_LAT	1
#define PERF_DEF_RX_DEPTH	512
#define PERF_DEF_CQ_MOD		100
#define PERF_DEF_INLINE_WRITE	220
#define PERF_DEF_INLINE_SEND	236
#define PERF_MAX_SIZE		(8u << 20)	/* -a goes 2 B .. 8 MiB */
#define PERF_CQ_MOD_SIZE_LIMIT	8192		/* larger messages: signal every WR */
#define PERF_LAT_TAIL		2		/* largest samples dropped, as perftest */
#define PERF_SLOT_ALIGN		64
#define PERF_SLOT_BYTES		(4u << 20)	/* slots of one size fill at most this */
#define PERF_MAX_SLOTS		64
#define PERF_OOB_TIMEOUT_MS	60000
#define PERF_MAX_SIZES		32

enum perf_verb {
	PERF_SEND,
	PERF_WRITE,
	PERF_READ,
};

enum perf_kind {
	PERF_BW,
	PERF_LAT,
};

/** Command line and agreed run parameters. */
struct perf_params {
	/* test */
	enum perf_verb verb;
	enum perf_kind kind;
	const char *test_name;		/* "write_bw" ... */
	const char *server;		/* host to connect to; NULL: be the server */
	/* device */
	const char *ib_dev;		/* NULL: first device */
	uint8_t ib_port;
	int gid_index;
	int mtu_bytes;			/* 0: port's active MTU */
	/* run (the client's values win: perf_comm_params()) */
	uint64_t size;			/* the largest of sizes[] */
	uint64_t sizes[PERF_MAX_SIZES];	/* run in this order; -a: 2 B .. 8 MiB */
	int nb_sizes;
	int all_sizes;
	uint64_t iters;
	int duration_s;			/* > 0: run for this long instead of iters */
	int tx_depth;
	int rx_depth;
	int post_list;
	int cq_mod;
	int cq_mod_set;			/* -Q given */
	int inline_size;		/* -1: default for the verb, capped by the device */
	unsigned int max_slots;		/* --slots: 0 = PERF_SLOT_BYTES / PERF_MAX_SLOTS */
	int out_reads;			/* 0: device maximum */
	int verify;
	int report_gbits;		/* 1: Gb/s, 0: MiB/s */
	uint16_t tcp_port;
	int loopback;			/* --loopback: both endpoints in this process */
	int model;			/* --model: built-in EAL args for mlx5_model */
	int perftest;			/* --perftest: perftest 4.5's TCP exchange (perf_proto.c) */
	int rdma_cm;			/* -R: perftest's rdma_cm mode (perf_cm.c); sets perftest */
	int thread_safe;		/* --thread-safe: keep PV_PROGRESS_THREAD_SAFE */
	int size_set, iters_set, tx_depth_set;
};

/** One side's connection information (what perf_comm_exchange() moves). */
struct perf_dest {
	uint16_t lid;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
	uint8_t out_reads;
	uint8_t mtu;			/* enum pv_mtu */
	union pv_gid gid;
};

/** A measured result, printed by perf_report_*() and sent to the peer. */
struct perf_result {
	uint64_t size;
	uint64_t iters;
	double v[7];	/* bw: peak, avg, msg rate; lat: min max typical avg stdev p99 p99.9 */
	int kind;	/* enum perf_kind */
};

struct perf_run {
	struct perf_params p;
	int is_server;
	int fd;				/* OOB TCP socket */
	struct perf_cm *cm;		/* -R: the two rdma_cm connections (perf_cm.c) */

	struct pv_context *ctx;
	int ctx_borrowed;		/* loopback server: the client's context */
	int buf_from_rte;		/* buf is rte_zmalloc()ed, else aligned_alloc()ed */
	int is_model;			/* the device says it is a device model */
	struct pv_device_attr dev_attr;
	struct pv_port_attr port_attr;
	struct pv_pd *pd;
	struct pv_cq *send_cq;
	struct pv_cq *recv_cq;
	struct pv_qp *qp;
	struct pv_mr *mr;
	uint8_t *buf;			/* local region: [0, half) source, [half, 2 half) target */
	uint64_t half;			/* bytes of each half */
	enum pv_mtu mtu;
	int inline_size;

	struct perf_dest local;
	struct perf_dest remote;

	/* per size */
	uint64_t size;
	uint64_t stride;		/* slot stride, PERF_SLOT_ALIGN multiple */
	unsigned int nslots;

	/* timestamps (TSC), iters entries each */
	uint64_t *tposted;
	uint64_t *tcompleted;
	uint64_t tsc_hz;
	uint64_t max_iters;
};

/* perf_params.c */
int perf_params_parse(struct perf_params *p, int argc, char **argv);
void perf_params_finalize(struct perf_params *p);
void perf_usage(FILE *f, const char *prog);
int perf_test_lookup(const char *name, struct perf_params *p);
int perf_cq_mod(const struct perf_params *p, uint64_t size);

/* perf_comm.c: everything that crosses the out-of-band TCP channel */
int perf_comm_connect(struct perf_run *r);
int perf_comm_params(struct perf_run *r);
int perf_comm_exchange(struct perf_run *r);
int perf_comm_sync(struct perf_run *r);
/* after the last sync: a barrier that does not progress, so that neither
 * side stops its port while the other still polls it */
int perf_comm_quiesce(struct perf_run *r);
int perf_comm_result_send(struct perf_run *r, const struct perf_result *res);
int perf_comm_result_recv(struct perf_run *r, struct perf_result *res);
int perf_comm_result_recv_poll(struct perf_run *r, struct perf_result *res,
			       pv_cm_progress_fn fn, void *arg);
int perf_comm_verdict(struct perf_run *r, int ok);
void perf_comm_close(struct perf_run *r);
int perf_progress(void *arg);

/* perf_cm.c: -R, perftest's rdma_cm mode (the control connection carries
 * perf_proto.c's conversation, the test connection pv-perf's QP) */
struct pv_rdma_cm_id;
int perf_cm_ctrl_connect(struct perf_run *r);
int perf_cm_test_connect(struct perf_run *r);
int perf_cm_msg_send(void *arg, void *buf, size_t len);
int perf_cm_msg_recv(void *arg, void *buf, size_t len);
void perf_cm_test_close(struct perf_run *r);
void perf_cm_close(struct perf_run *r);

/* perf_res.c */
int perf_res_init(struct perf_run *r);
int perf_res_qp_create(struct perf_run *r, struct pv_rdma_cm_id *id);
int perf_res_peer_init(struct perf_run *s, struct perf_run *c);
int perf_res_connect(struct perf_run *r);
void perf_res_fini(struct perf_run *r);
void perf_size_set(struct perf_run *r, uint64_t size);
uint8_t *perf_src_slot(struct perf_run *r, unsigned int slot);
uint8_t *perf_dst_slot(struct perf_run *r, unsigned int slot);
uint64_t perf_remote_slot(struct perf_run *r, unsigned int slot);
void perf_pattern_fill(uint8_t *p, uint64_t len, uint64_t seed);
int64_t perf_pattern_check(const uint8_t *p, uint64_t len, uint64_t seed);
uint64_t perf_seed(uint64_t size, uint64_t n);

/* perf_bw.c, perf_lat.c: one message size each; *_loopback() drive the
 * client endpoint @p c and the server endpoint @p s of one process */
int perf_bw_run(struct perf_run *r, struct perf_result *res);
int perf_bw_loopback(struct perf_run *c, struct perf_run *s, struct perf_result *res);
int perf_lat_run(struct perf_run *r, struct perf_result *res);
int perf_lat_loopback(struct perf_run *c, struct perf_run *s, struct perf_result *res);

/* perf_report.c */
void perf_report_banner(const struct perf_run *r);
void perf_report_dest(const struct perf_run *r, const struct perf_dest *d, int remote);
void perf_report_header(const struct perf_run *r);
void perf_report_line(const struct perf_run *r, const struct perf_result *res);
void perf_report_footer(void);
void perf_report_model(const struct perf_run *r);
void perf_bw_result(struct perf_run *r, uint64_t iters, uint64_t cq_mod, int peak,
		    struct perf_result *res);
int perf_lat_result(struct perf_run *r, uint64_t iters, struct perf_result *res);

#endif /* PV_APPS_PERF_PERF_H */
