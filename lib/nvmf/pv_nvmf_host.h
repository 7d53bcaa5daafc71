/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * A minimal NVMe over Fabrics RDMA host (initiator) on pollverbs, for
 * pv-nvmf-perf and the tests: connect a controller (admin queue, Connect,
 * CC.EN, Identify), connect I/O queues, submit Read / Write / Flush / Write
 * Zeroes and poll their completions. Data sits in memory the caller
 * registers with pv_nvmf_host_reg_mr(); writes of up to the controller's
 * in-capsule size go in the capsule, everything else through one keyed SGL.
 *
 * Threads: connecting is blocking (synchronous pv_rdma_cm ids) and belongs
 * to the control path; each I/O queue pair is used by one thread at a time
 * (its own CQ: submit and poll from the same lcore).
 */

#ifndef PV_LIB_NVMF_PV_NVMF_HOST_H
#define PV_LIB_NVMF_PV_NVMF_HOST_H

#include <stdint.h>

#include "pv_nvmf_spec.h"
#include "pv_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

#define PV_NVMF_HOST_MAX_NS 16

struct pv_nvmf_host_ctrlr;
struct pv_nvmf_host_qpair;

/** Where and whom to connect to. */
struct pv_nvmf_host_opts {
	const char *traddr;		/* IPv4 address of the target */
	uint16_t port;			/* 0: 4420 */
	const char *subnqn;
	const char *hostnqn;		/* NULL: a fixed pollverbs host NQN */
	uint32_t kato_ms;		/* keep-alive timeout asked for; 0: none */
};

/** A namespace as Identify Namespace reports it. */
struct pv_nvmf_host_ns {
	uint32_t nsid;
	uint64_t num_blocks;
	uint32_t block_size;
};

/** Completion callback: @p cpl is valid during the call only. */
typedef void (*pv_nvmf_host_cb_fn)(void *arg, const struct pv_nvme_cpl *cpl);

/**
 * Connect to a controller of @p opts->subnqn: admin queue (32 entries),
 * Connect (dynamic controller), Property Get CAP, CC.EN = 1, wait for
 * CSTS.RDY, Identify Controller, the active namespace list and each
 * namespace's Identify data.
 * @return 0 with @p ctrlr_p set, or -errno: -EINVAL (options),
 *         -ECONNREFUSED (rejected), -ETIMEDOUT, -EPROTO (a command failed:
 *         logged with its status), -ENOMEM.
 * Thread: any but the control thread; blocks for up to a few seconds.
 */
PV_EXPORT int pv_nvmf_host_connect(const struct pv_nvmf_host_opts *opts,
				   struct pv_nvmf_host_ctrlr **ctrlr_p);

/** Shut the controller down (CC.SHN), disconnect and free it; its I/O
 *  queue pairs must be destroyed first. NULL: nothing. */
PV_EXPORT void pv_nvmf_host_disconnect(struct pv_nvmf_host_ctrlr *c);

/** Namespaces found: @p n_p entries of the returned array (owned by @p c). */
PV_EXPORT const struct pv_nvmf_host_ns *pv_nvmf_host_namespaces(const struct pv_nvmf_host_ctrlr *c,
								unsigned int *n_p);

/** Largest transfer in bytes (MDTS), and the Identify Controller data. */
PV_EXPORT uint32_t pv_nvmf_host_max_xfer(const struct pv_nvmf_host_ctrlr *c);
PV_EXPORT const struct pv_nvme_id_ctrl *pv_nvmf_host_id_ctrl(const struct pv_nvmf_host_ctrlr *c);

/**
 * Register @p len bytes at @p addr for the controller to read and write
 * (keyed SGLs). @return the MR (pv_dereg_mr() it), or NULL with errno.
 */
PV_EXPORT struct pv_mr *pv_nvmf_host_reg_mr(struct pv_nvmf_host_ctrlr *c, void *addr, size_t len);

/**
 * Run one admin command synchronously. @p cmd's CID and SGL are filled here;
 * @p data (@p len bytes, registered with pv_nvmf_host_reg_mr() as @p mr, or
 * NULL / 0) is the data buffer. @return 0 with @p cpl_p filled (its status
 * may be an error), -ETIMEDOUT (5 s), -EIO (transport).
 */
PV_EXPORT int pv_nvmf_host_admin(struct pv_nvmf_host_ctrlr *c, struct pv_nvme_cmd *cmd,
				 void *data, uint32_t len, struct pv_mr *mr,
				 struct pv_nvme_cpl *cpl_p);

/**
 * Connect I/O queue @p qid (1 ..) of @p depth entries (2 .. the
 * controller's MQES + 1).
 * @return 0 with @p qp_p set, or -errno as pv_nvmf_host_connect().
 */
PV_EXPORT int pv_nvmf_host_qpair_create(struct pv_nvmf_host_ctrlr *c, uint16_t qid, uint16_t depth,
					struct pv_nvmf_host_qpair **qp_p);

/** Disconnect and free @p qp; commands in flight are dropped. NULL: nothing. */
PV_EXPORT void pv_nvmf_host_qpair_destroy(struct pv_nvmf_host_qpair *qp);

/**
 * Submit an NVM command: @p opc PV_NVME_OPC_READ, _WRITE (data at @p buf in
 * @p mr, @p nlb blocks of @p block_size bytes), _FLUSH or _WRITE_ZEROES (no
 * data; @p buf ignored) on namespace @p nsid at @p slba.
 * @return 0, -EAGAIN (all @p depth entries in flight: poll first), -EINVAL
 *         (@p nlb 0 or over 65536, or a transfer over MDTS), -EIO (post failed).
 * @p cb runs from pv_nvmf_host_poll(). Thread: @p qp's.
 */
PV_EXPORT int pv_nvmf_host_submit(struct pv_nvmf_host_qpair *qp, uint8_t opc, uint32_t nsid,
				  uint64_t slba, uint32_t nlb, uint32_t block_size, void *buf,
				  struct pv_mr *mr, pv_nvmf_host_cb_fn cb, void *arg);

/**
 * Reap up to 32 completions of @p qp, running their callbacks.
 * @return completions of commands handled (>= 0), or -EIO (the connection
 *         failed: every command in flight then completes with status
 *         Aborted - SQ Deletion, once).
 */
PV_EXPORT int pv_nvmf_host_poll(struct pv_nvmf_host_qpair *qp);

/** Commands in flight on @p qp. */
PV_EXPORT unsigned int pv_nvmf_host_outstanding(const struct pv_nvmf_host_qpair *qp);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_NVMF_PV_NVMF_HOST_H */
