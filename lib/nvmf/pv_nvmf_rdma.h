/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * The NVMe over Fabrics RDMA transport of a target (NVMe-oF 1.1 RDMA
 * transport binding) on pollverbs: listeners on pv_rdma_cm (each an IPv4
 * address and port; several may share a device), the NVMe RDMA private data
 * of their connections, and poll groups, each a poller on one lcore owning
 * its queue pairs, a pool of data buffers and, per device listened on, one
 * CQ, the pool's MR and (optionally) one SRQ. Capsules arrive in receive
 * buffers of 64 bytes +
 * the in-capsule data size; keyed SGLs move data with RDMA READ (host to
 * controller) and RDMA WRITE (controller to host); responses go out as
 * SEND, or SEND_WITH_INV when the host asked for its key to be invalidated.
 *
 * Threads: connection management (accept, reject, teardown) runs on the
 * control thread (pv_rtc_ctrl_*), which hands each new queue pair to the
 * next poll group in turn (round-robin) with pv_rtc_msg_send(); each poll
 * group runs only on its lcore's loop (pv_rtc_loop_run()).
 */

#ifndef PV_LIB_NVMF_PV_NVMF_RDMA_H
#define PV_LIB_NVMF_PV_NVMF_RDMA_H

#include <stdbool.h>
#include <stdint.h>

#include "pv_nvmf.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

#define PV_NVMF_RDMA_MAX_GROUPS 16
#define PV_NVMF_RDMA_MAX_LISTEN 8

struct pv_nvmf_rdma;

/** One listener: where hosts connect (an NVMe-oF port's traddr and trsvcid). */
struct pv_nvmf_rdma_listen {
	const char *traddr;		/* IPv4 address of a pollverbs device (not 0.0.0.0) */
	uint16_t port;			/* 0: 4420 */
};

/**
 * Options of pv_nvmf_rdma_create(). The listeners are listen[0 ..
 * num_listen - 1]; with num_listen 0, the one listener traddr : port (the
 * layout before several listeners). No two may have the same address and
 * port; any number may share a device (an address, or two addresses of
 * one device).
 */
struct pv_nvmf_rdma_opts {
	const char *traddr;		/* num_listen 0: the only listener's address */
	uint16_t port;			/* num_listen 0: its port; 0: 4420 */
	unsigned int num_groups;	/* poll groups, 1 .. PV_NVMF_RDMA_MAX_GROUPS */
	unsigned int lcores[PV_NVMF_RDMA_MAX_GROUPS];	/* the lcore of each group */
	uint32_t buffers_per_group;	/* data buffers of max_io_size; 0: 256 */
	bool use_srq;			/* one SRQ per group and device instead of per-QP
					 * receive queues */
	uint32_t srq_depth;		/* receive buffers of each such SRQ; 0: 1024 */
	unsigned int num_listen;	/* 0 .. PV_NVMF_RDMA_MAX_LISTEN entries of listen[] */
	struct pv_nvmf_rdma_listen listen[PV_NVMF_RDMA_MAX_LISTEN];
};

/** Counters of one poll group (read from any thread; approximate). */
struct pv_nvmf_rdma_group_stats {
	unsigned int lcore;
	uint64_t qpairs;		/* connected now */
	uint64_t completed;		/* commands completed */
	uint64_t read_cmds, write_cmds;
	uint64_t bytes_read, bytes_written;
	uint64_t outstanding;		/* commands in flight now */
	uint64_t no_buffer;		/* times a command waited for a data buffer */
};

/**
 * Listen on each of @p opts' listeners for @p tgt (one pv_rdma_cm id each,
 * on one event channel) and start the poll groups: each registers its
 * poller on its lcore when that lcore's loop handles the start message (so
 * the lcores must run pv_rtc_loop_run()). Each device listened on gets one
 * PD; each poll group gets, on each such device, a CQ of comp_vector
 * (group index % the device's num_comp_vectors), an MR of the group's data
 * buffers and, with use_srq, an SRQ. A connection takes its device's
 * resources of the next poll group in turn.
 *
 * This does not put the listeners in @p tgt's discovery log page: call
 * pv_nvmf_tgt_add_listener() for each.
 *
 * @param opts  Copied; its strings need not outlive the call.
 * @return The transport, or NULL with errno: EINVAL (options: no listener,
 *         more than PV_NVMF_RDMA_MAX_LISTEN, an address that is not IPv4 or
 *         is 0.0.0.0, two listeners with the same address and port),
 *         EADDRNOTAVAIL (no pollverbs device has an address), EADDRINUSE,
 *         ENOMEM, or what pv_rdma_* / verbs setup failed with.
 * Ownership: the caller's; pv_nvmf_rdma_destroy(). @p tgt must outlive it.
 * Thread: any EAL thread but the control thread, after pv_init().
 */
PV_EXPORT struct pv_nvmf_rdma *pv_nvmf_rdma_create(struct pv_nvmf_tgt *tgt,
						   const struct pv_nvmf_rdma_opts *opts);

/**
 * Disconnect every queue pair, wait for them to drain (at most 5 s), stop
 * the groups' pollers and free the transport. The other poll groups'
 * lcores must still run their loops meanwhile; when the caller is itself a
 * group's lcore, this runs its loop (pv_rtc_loop_once()) while it waits.
 * NULL: nothing. Thread: an EAL lcore or the main thread, not the control
 * thread.
 */
PV_EXPORT void pv_nvmf_rdma_destroy(struct pv_nvmf_rdma *rt);

/**
 * Counters of group @p idx into @p st.
 * @return 0, -EINVAL (NULL or @p idx out of range). Thread: any.
 */
PV_EXPORT int pv_nvmf_rdma_group_stats(const struct pv_nvmf_rdma *rt, unsigned int idx,
				       struct pv_nvmf_rdma_group_stats *st);

/** Number of poll groups of @p rt. */
PV_EXPORT unsigned int pv_nvmf_rdma_num_groups(const struct pv_nvmf_rdma *rt);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_NVMF_PV_NVMF_RDMA_H */
