/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * The NVMe over Fabrics controller core: a target's subsystems, their
 * namespaces and the controllers hosts create with Connect, and the
 * handling of every command a queue pair receives (Fabrics, admin, NVM
 * I/O), independent of the transport. A transport (nvmf_rdma.c, or a unit
 * test) owns the queue pairs and the requests and moves the data; this
 * core parses, checks and executes commands and builds the completions.
 *
 * Request life (one struct pv_nvmf_req per received command capsule):
 *  1. the transport copies the SQE into req->cmd, points req->icd at the
 *     in-capsule data (req->icd_len bytes) and calls pv_nvmf_req_submit();
 *  2. the core checks the queue state and the SGL; when the command moves
 *     data it sets req->xfer and req->length and, for in-capsule data, points
 *     req->data into the capsule; for keyed SGLs it calls the transport's
 *     data_prep() op, which sets req->data (a buffer of req->length bytes)
 *     and, for host-to-controller data, reads it from the host (RDMA READ
 *     of the segments in req->sgl) before calling pv_nvmf_req_exec();
 *  3. the core executes the command (a namespace may complete later);
 *  4. the core calls the transport's done() op with req->cpl filled; for a
 *     successful controller-to-host command the transport writes req->data
 *     to the host's segments first, then sends the CQE.
 * Every failure ends in done() with the status the specification names.
 *
 * Threads: a queue pair and its requests belong to one lcore (its poll
 * group); a controller's queue pairs may sit on different lcores: the
 * controller's shared state (queue table, registers, keep-alive) is under
 * a lock, taken on Connect, Disconnect, Property Set and Keep Alive only.
 * Subsystems and namespaces are set up before the target serves and are
 * not changed while it does. Guide: doc/guides/apps/nvmf-tgt.rst.
 */

#ifndef PV_LIB_NVMF_PV_NVMF_H
#define PV_LIB_NVMF_PV_NVMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "pv_nvmf_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

struct pv_nvmf_tgt;
struct pv_nvmf_subsys;
struct pv_nvmf_ctrlr;
struct pv_nvmf_ns;
struct pv_nvmf_qpair;
struct pv_nvmf_req;

#define PV_NVMF_MAX_SGL_DESC	16	/* keyed descriptors per command (MSDBD) */
#define PV_NVMF_MAX_NS		32	/* namespaces per subsystem */
#define PV_NVMF_MAX_QPAIRS	128	/* queues per controller, admin included */
#define PV_NVMF_AERL		3	/* 0-based: 4 outstanding AERs */

/** Target-wide limits, given to pv_nvmf_tgt_create(). */
struct pv_nvmf_tgt_opts {
	uint32_t max_io_size;		/* bytes; power of two >= 4096 (MDTS) */
	uint32_t in_capsule_data_size;	/* bytes of in-capsule data, multiple of 16 */
	uint16_t max_queue_depth;	/* entries per queue (CAP.MQES + 1) */
	uint16_t max_qpairs_per_ctrlr;	/* admin queue included, <= PV_NVMF_MAX_QPAIRS */
	uint32_t kas_ms;		/* keep-alive granularity, multiple of 100 */
};

/** Direction of a command's data. */
enum pv_nvmf_xfer {
	PV_NVMF_XFER_NONE = 0,
	PV_NVMF_XFER_H2C,		/* host to controller: write, connect data */
	PV_NVMF_XFER_C2H,		/* controller to host: read, identify, logs */
};

/** One keyed segment of a command's data at the host. */
struct pv_nvmf_sgl_seg {
	uint64_t addr;
	uint32_t len;			/* bytes */
	uint32_t key;			/* the host's rkey */
};

/** Transport operations on a queue pair (all called on its lcore). */
struct pv_nvmf_qpair_ops {
	/**
	 * Give @p req a buffer of req->length bytes in req->data and, for
	 * PV_NVMF_XFER_H2C, fetch the host's data (req->sgl) into it.
	 * @return 0: data ready, the core goes on; 1: under way, the transport
	 *         calls pv_nvmf_req_exec() once the data is there (or
	 *         pv_nvmf_req_fail() with PV_NVME_SC_DATA_XFER_ERROR); -EFAULT:
	 *         a segment lies outside what the host registered, the core
	 *         completes with Data Transfer Error; any other negative errno
	 *         (-ENOMEM: no buffer): Internal Error.
	 */
	int (*data_prep)(struct pv_nvmf_req *req);
	/** @p req is complete (req->cpl filled): send data when due, then the CQE. */
	void (*done)(struct pv_nvmf_req *req);
	/**
	 * The controller is torn down (keep-alive expiry, controller reset or
	 * shutdown on another queue): disconnect @p qp. May be called from
	 * another lcore than the queue pair's: must be thread-safe.
	 */
	void (*disconnect)(struct pv_nvmf_qpair *qp);
};

/** A queue pair as the core sees it; embedded in the transport's. */
struct pv_nvmf_qpair {
	struct pv_nvmf_tgt *tgt;
	struct pv_nvmf_ctrlr *ctrlr;	/* NULL until Connect succeeds */
	const struct pv_nvmf_qpair_ops *ops;
	uint16_t qid;			/* from the transport's connection request */
	uint16_t sq_size;		/* entries (1-based), from Connect */
	uint16_t sqhd;
	bool connected;
	bool is_discovery;
	/* per-queue I/O counters (the owner lcore writes; others read) */
	uint64_t num_read_cmds;
	uint64_t num_write_cmds;
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint32_t outstanding;		/* requests between submit and done */
};

/** One command in flight; embedded in the transport's request. */
struct pv_nvmf_req {
	struct pv_nvme_cmd cmd;		/* the SQE */
	struct pv_nvme_cpl cpl;		/* the CQE being built */
	struct pv_nvmf_qpair *qp;
	uint8_t *icd;			/* in-capsule data, or NULL */
	uint32_t icd_len;		/* bytes at icd */
	enum pv_nvmf_xfer xfer;
	uint32_t length;		/* data bytes to move */
	uint8_t *data;			/* req->length bytes: capsule or transport buffer */
	bool data_in_capsule;
	uint8_t nseg;			/* keyed segments in sgl */
	bool invalidate;		/* the host asked for its key to be invalidated */
	uint32_t invalidate_rkey;
	struct pv_nvmf_sgl_seg sgl[PV_NVMF_MAX_SGL_DESC];
	struct pv_nvmf_ns *ns;		/* I/O: the command's namespace */
	TAILQ_ENTRY(pv_nvmf_req) link;	/* core's: held AERs */
	void *ns_ctx[2];		/* namespace backend's (io_uring) */
};

/** I/O operations a namespace backend implements. */
enum pv_nvmf_ns_op {
	PV_NVMF_NS_READ,
	PV_NVMF_NS_WRITE,
	PV_NVMF_NS_FLUSH,
	PV_NVMF_NS_WRITE_ZEROES,
	PV_NVMF_NS_DEALLOCATE,
};

/** A namespace backend. */
struct pv_nvmf_ns_ops {
	/**
	 * Do @p op on blocks [@p slba, @p slba + @p nlb) of @p ns (checked to
	 * be inside it by the core) with req->data (READ, WRITE: nlb blocks).
	 * @return 0 when done (with status @p *status_p: an SC of SCT 0), or 1
	 *         when it completes later through pv_nvmf_req_ns_done(). An
	 *         asynchronous backend may only queue the I/O here and start it
	 *         in poll(), so that one system call covers a poll pass.
	 */
	int (*submit)(struct pv_nvmf_ns *ns, struct pv_nvmf_req *req, enum pv_nvmf_ns_op op,
		      uint64_t slba, uint32_t nlb, uint16_t *status_p);
	/**
	 * Start the I/O the calling lcore queued, then reap its completions
	 * (NULL for a synchronous backend); called by pv_nvmf_tgt_ns_poll().
	 * @return completions reaped.
	 */
	unsigned int (*poll)(struct pv_nvmf_ns *ns);
	/** Release the backend's resources (control path). */
	void (*destroy)(struct pv_nvmf_ns *ns);
};

/** A namespace: a backend and its geometry. */
struct pv_nvmf_ns {
	uint32_t nsid;
	uint32_t block_size;		/* bytes, power of two >= 512 */
	uint8_t lbads;			/* log2(block_size) */
	uint64_t num_blocks;
	uint8_t nguid[16];
	uint8_t uuid[16];
	const struct pv_nvmf_ns_ops *ops;
	void *ctx;			/* the backend's */
};

/**
 * Create a target (the subsystems it serves and their controllers).
 *
 * @param opts  Limits; NULL for the defaults (128 KiB I/O, 4 KiB in-capsule
 *              data, queue depth 128, 64 queues per controller, KAS 1 s).
 * @return The target, or NULL with errno EINVAL (@p opts out of range) or
 *         ENOMEM. It already holds the discovery subsystem
 *         (PV_NVMF_DISCOVERY_NQN). Ownership: the caller's;
 *         pv_nvmf_tgt_destroy() releases it.
 * Thread: any, control path.
 */
PV_EXPORT struct pv_nvmf_tgt *pv_nvmf_tgt_create(const struct pv_nvmf_tgt_opts *opts);

/** The options @p tgt runs with (defaults filled in). */
PV_EXPORT const struct pv_nvmf_tgt_opts *pv_nvmf_tgt_opts(const struct pv_nvmf_tgt *tgt);

/**
 * Destroy @p tgt, its subsystems and namespaces (ns->ops->destroy). No
 * queue pair may be connected any more. NULL: nothing.
 */
PV_EXPORT void pv_nvmf_tgt_destroy(struct pv_nvmf_tgt *tgt);

/**
 * Add a listener address to the discovery log page of @p tgt: the page has
 * one entry per subsystem the host may use and listener, in the order added
 * (PORTID 1, 2, ...).
 * @param traddr   IPv4 address, dotted quad; copied.
 * @param trsvcid  Port, decimal ("4420"); copied.
 * @return 0, -EINVAL (a string too long or empty), -EEXIST (that address
 *         and port are already there, compared as strings), -ENOSPC (16
 *         listeners). Thread: the control path, before hosts connect.
 */
PV_EXPORT int pv_nvmf_tgt_add_listener(struct pv_nvmf_tgt *tgt, const char *traddr,
				       const char *trsvcid);

/**
 * Add an NVM subsystem to @p tgt.
 * @param nqn     Its NQN (at most 223 bytes; unique in @p tgt).
 * @param serial  Serial number (at most 20 ASCII bytes), @p model (40).
 * @param allow_any_host  Accept every host NQN; else only pv_nvmf_subsys_add_host()'s.
 * @return The subsystem (owned by @p tgt), or NULL with errno EINVAL (bad
 *         string), EEXIST (NQN taken), ENOMEM.
 */
PV_EXPORT struct pv_nvmf_subsys *pv_nvmf_subsys_create(struct pv_nvmf_tgt *tgt, const char *nqn,
						       const char *serial, const char *model,
						       bool allow_any_host);

/** Allow host @p hostnqn on @p s. @return 0, -EINVAL, -ENOMEM. */
PV_EXPORT int pv_nvmf_subsys_add_host(struct pv_nvmf_subsys *s, const char *hostnqn);

/** The subsystem of @p tgt named @p nqn, or NULL. */
PV_EXPORT struct pv_nvmf_subsys *pv_nvmf_subsys_find(struct pv_nvmf_tgt *tgt, const char *nqn);

/**
 * Attach namespace @p ns to @p s under ns->nsid (1 .. PV_NVMF_MAX_NS; 0:
 * the lowest free one, written back). Ownership of @p ns passes to @p s
 * on success.
 * @return 0, -EINVAL (bad geometry or nsid), -EEXIST (nsid taken).
 */
PV_EXPORT int pv_nvmf_subsys_add_ns(struct pv_nvmf_subsys *s, struct pv_nvmf_ns *ns);

/**
 * A namespace of @p num_blocks blocks of @p block_size bytes in memory
 * from rte_zmalloc (hugepages, or anonymous memory with --no-huge).
 * @return The namespace (nsid 0), or NULL with errno EINVAL (block size not
 *         a power of two in [512, 4096], zero blocks) or ENOMEM.
 * Thread: an EAL thread or any after rte_eal_init().
 */
PV_EXPORT struct pv_nvmf_ns *pv_nvmf_ns_ram_create(uint64_t num_blocks, uint32_t block_size);

/** How a file or block device namespace does its I/O (pv_nvmf_ns_file_create_opts()). */
struct pv_nvmf_ns_file_opts {
	uint32_t queue_depth;		/* SQ entries of each lcore's io_uring, 1..4096 */
	bool direct;			/* open with O_DIRECT (bypass the page cache) */
	bool sqpoll;			/* IORING_SETUP_SQPOLL: a kernel SQ thread per ring */
	uint32_t sqpoll_idle_ms;	/* SQ thread spins this long idle before it sleeps;
					 * 0: 100 ms. Ignored without @c sqpoll */
};

/** Counters of a file namespace (pv_nvmf_ns_file_stats_get()), summed over lcores. */
struct pv_nvmf_ns_file_stats {
	uint64_t sqes;			/* SQEs queued */
	uint64_t submit_calls;		/* io_uring_submit() calls */
	uint64_t direct_ios;		/* Reads and Writes through the O_DIRECT descriptor */
	uint64_t buffered_ios;		/* Reads and Writes through the buffered descriptor */
	uint64_t unaligned_ios;		/* of buffered_ios: O_DIRECT namespace, but the
					 * buffer, offset or length was not aligned */
};

/**
 * A namespace on a file or block device at @p path, served through io_uring
 * (liburing) polled from the lcore that submits: one ring per lcore, made on
 * its first I/O. A command's submit only queues its SQEs;
 * pv_nvmf_tgt_ns_poll() hands everything its lcore queued to the kernel
 * with one io_uring_submit(), then reaps completions without a system call.
 *
 * @param path        Regular file or block device; opened O_RDWR, kept open
 *                    until the namespace is destroyed. Not kept.
 * @param block_size  512 or 4096 bytes; the size is rounded down to it.
 * @param opts        @c queue_depth: SQ entries per ring (CQ: twice that).
 *                    @c direct: Reads and Writes whose buffer address, file
 *                    offset and length are aligned as O_DIRECT requires go
 *                    through an O_DIRECT descriptor, the others through a
 *                    second, buffered one on the same file (counted in
 *                    pv_nvmf_ns_file_stats.unaligned_ios), so correctness
 *                    never depends on alignment. The alignment is the
 *                    file's statx(2) STATX_DIOALIGN where the kernel has it
 *                    (6.1), else the device's logical block size (BLKSSZGET)
 *                    for a block device, the larger of @p block_size and
 *                    st_blksize (at most 4096) for a file. Data buffers of a
 *                    transport's pool are aligned; in-capsule data is not.
 *                    @c sqpoll: each ring gets a kernel SQ thread
 *                    (io_uring_setup(2), IORING_SETUP_SQPOLL) that polls the
 *                    SQ and sleeps after @c sqpoll_idle_ms without work;
 *                    io_uring_submit() then enters the kernel only to wake
 *                    it. The thread is not pinned: it competes with the
 *                    lcores for CPU. Never falls back to no SQPOLL.
 *                    Not kept.
 * @return The namespace (nsid 0), or NULL with errno:
 *         EINVAL  @p path or @p opts NULL, @p block_size not 512 or 4096,
 *                 queue depth out of range, not a regular file or block
 *                 device, smaller than one block, or @c direct on a file
 *                 system without O_DIRECT (open(2) EINVAL, e.g. tmpfs
 *                 before Linux 6.6; logged as such);
 *         EOPNOTSUPP  built without liburing, or @c sqpoll on a kernel
 *                 whose SQ thread needs registered files (before 5.11);
 *         EPERM   @c sqpoll refused (before 5.11 it needs CAP_SYS_ADMIN),
 *                 or io_uring disabled (sysctl kernel.io_uring_disabled);
 *         ENOSYS  no io_uring in the kernel; ENOMEM;
 *         open(2), fstat(2), ioctl(2) BLKGETSIZE64 / BLKSSZGET errnos
 *         (ENOENT, EACCES, EISDIR, ...).
 *         A test ring with @p opts is made and torn down here, so that
 *         these are reported now and not on the first I/O.
 *         Ownership: the caller's until pv_nvmf_subsys_add_ns() takes it;
 *         pv_nvmf_ns_destroy() otherwise.
 * Thread: control path. The rings are made by the lcores that submit: an
 *         EAL lcore (rte_lcore_id() < RTE_MAX_LCORE), which must call
 *         pv_nvmf_tgt_ns_poll() until its commands complete.
 */
PV_EXPORT struct pv_nvmf_ns *pv_nvmf_ns_file_create_opts(const char *path, uint32_t block_size,
							 const struct pv_nvmf_ns_file_opts *opts);

/**
 * pv_nvmf_ns_file_create_opts() with @p queue_depth (1..4096) and buffered
 * I/O without SQPOLL.
 * @return The namespace, or NULL with its errnos.
 */
PV_EXPORT struct pv_nvmf_ns *pv_nvmf_ns_file_create(const char *path, uint32_t block_size,
						    long long queue_depth);

/**
 * Read the counters of file namespace @p ns into @p stats_p. Each lcore
 * writes its own without synchronisation: a snapshot taken while I/O runs
 * is approximate.
 * @return 0, -EINVAL (@p ns NULL or not a file namespace, @p stats_p NULL),
 *         -EOPNOTSUPP (built without liburing).
 * Thread: any.
 */
PV_EXPORT int pv_nvmf_ns_file_stats_get(const struct pv_nvmf_ns *ns,
					struct pv_nvmf_ns_file_stats *stats_p);

/**
 * A namespace that completes every I/O of @p base @p delay_us microseconds
 * after its submission, as SPDK's delay bdev does: a slow device for tests
 * and for trying a host's timeouts (a host that disconnects while its I/O
 * is still in the device). @p base must be synchronous (RAM): its work is
 * done at submission, its completion held, per lcore, in submission order
 * and reaped by pv_nvmf_tgt_ns_poll() once due.
 *
 * @param base      The namespace to wrap (pv_nvmf_ns_ram_create()); owned by
 *                  the new namespace from then on, destroyed with it (also
 *                  when this fails).
 * @param delay_us  Added latency, 1 .. 60,000,000 microseconds.
 * @return The namespace, or NULL with errno EINVAL (@p base NULL or
 *         asynchronous, @p delay_us out of range) or ENOMEM. An I/O
 *         submitted while 4096 others of its lcore are held completes with
 *         Namespace Not Ready (SCT 0, 82h).
 * Thread: control path; its I/O runs on the poll groups' lcores.
 */
PV_EXPORT struct pv_nvmf_ns *pv_nvmf_ns_delay_create(struct pv_nvmf_ns *base, uint64_t delay_us);

/** The memory of a RAM namespace (tests compare against it), or NULL. */
PV_EXPORT uint8_t *pv_nvmf_ns_ram_base(struct pv_nvmf_ns *ns);

/**
 * Free @p ns (ops->destroy then the struct); for a namespace not attached
 * to a subsystem. NULL: nothing.
 */
PV_EXPORT void pv_nvmf_ns_destroy(struct pv_nvmf_ns *ns);

/**
 * Hand the I/O the calling lcore queued on asynchronous namespaces (file /
 * block device) of @p tgt to the kernel (one io_uring_submit() per
 * namespace), then reap their completions; a transport's poll group calls it
 * on every iteration, after the commands it received: until it does, a
 * queued command is not submitted.
 * @return completions reaped. Thread: an EAL lcore.
 */
PV_EXPORT unsigned int pv_nvmf_tgt_ns_poll(struct pv_nvmf_tgt *tgt);

/**
 * Initialise @p qp for a new connection of @p tgt on queue @p qid (from
 * the transport's connection request) with the transport's @p ops.
 */
PV_EXPORT void pv_nvmf_qpair_init(struct pv_nvmf_qpair *qp, struct pv_nvmf_tgt *tgt, uint16_t qid,
				  const struct pv_nvmf_qpair_ops *ops);

/**
 * The transport lost @p qp's connection (or disconnected it): detach it from
 * its controller; the last queue of a controller frees the controller.
 * Held AERs of an admin queue are completed with Aborted - SQ Deletion
 * through ops->done first. Idempotent.
 * Thread: the queue pair's lcore.
 */
PV_EXPORT void pv_nvmf_qpair_fini(struct pv_nvmf_qpair *qp);

/**
 * Hand a received command to the core (step 1 of the request life above).
 * Thread: the queue pair's lcore.
 */
PV_EXPORT void pv_nvmf_req_submit(struct pv_nvmf_req *req);

/**
 * Execute @p req once its data is ready (after data_prep returned 1).
 * Never after pv_nvmf_qpair_fini() of its queue pair: a transport fails
 * such a request (pv_nvmf_req_fail(), Aborted - SQ Deletion) instead.
 * Thread: the queue pair's lcore.
 */
PV_EXPORT void pv_nvmf_req_exec(struct pv_nvmf_req *req);

/** Complete @p req with status @p sct / @p sc (DNR set) and call done(). */
PV_EXPORT void pv_nvmf_req_fail(struct pv_nvmf_req *req, uint8_t sct, uint8_t sc);

/** A namespace backend's completion of a submit() that returned 1. */
PV_EXPORT void pv_nvmf_req_ns_done(struct pv_nvmf_req *req, uint16_t sc);

/**
 * Keep-alive check of the controller @p qp's admin queue belongs to, and
 * of nothing else: call it on the admin queue's lcore now and then (every
 * few ms is plenty). On expiry the controller fails (CSTS.CFS) and every
 * queue pair's ops->disconnect() is called.
 * @param now_ms  Monotonic milliseconds.
 * @return 0, or -ETIMEDOUT when the controller expired (now or before).
 */
PV_EXPORT int pv_nvmf_qpair_keep_alive_check(struct pv_nvmf_qpair *qp, uint64_t now_ms);

/** Monotonic milliseconds (the clock of the keep-alive timer). */
PV_EXPORT uint64_t pv_nvmf_now_ms(void);

/**
 * Parse the SGL of @p cmd (SGL1, and a Last Segment in @p icd) into @p req
 * (nseg, sgl, invalidate, data_in_capsule, length) for @p max_len bytes at
 * most. Exposed for the transport's tests.
 * @return 0, or the status (SCT 0 codes) to fail the command with.
 */
PV_EXPORT uint16_t pv_nvmf_req_parse_sgl(struct pv_nvmf_req *req, uint32_t max_len);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_NVMF_PV_NVMF_H */
