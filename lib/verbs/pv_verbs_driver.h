/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * Driver SDK: what a pollverbs driver implements and what lib/verbs gives it.
 * DRIVER-ONLY: applications must not include this header. It is not
 * installed and its functions are not exported by libpollverbs.so (drivers
 * are built in-tree, linked into the library); an out-of-tree driver SDK
 * would export them under their own version node (lib/libpollverbs.map).
 *
 * Conventions (STYLE.md section 5 and 7):
 * - A driver fills a const struct pv_driver_ops with designated initializers,
 *   fields in the order below, and registers it with PV_DRIVER_REGISTER().
 *   Ops it leaves NULL are replaced by lib/verbs with stubs returning
 *   EOPNOTSUPP (pointer ops: NULL with errno EOPNOTSUPP), so no path ever
 *   tests an op for NULL.
 * - lib/verbs validates arguments before calling an op (NULL pointers, caps
 *   against pv_query_device limits, access flags, the QP state machine), so
 *   ops only check what is driver-specific.
 * - Pointer-returning ops return the driver object (which embeds the public
 *   struct as its first member) or NULL with errno set. int-returning ops
 *   return 0 or a POSITIVE errno (lib/verbs turns it into -1/errno for the
 *   verbs whose man page says so: query_gid, query_pkey).
 * - After a create op returns, lib/verbs fills the common public fields
 *   (context, pd, handle, *_context, usecnt, lcore_id, mutex, cond); the op
 *   must set the data-path pointers (fp_*) and the driver-specific public
 *   fields (lkey/rkey, qp_num, cqe, cap).
 * - Data-path ops live on the objects (pv_cq.fp_poll_cq ...), chosen at create.
 * - Room for the extended verbs: a driver's QP struct starts with
 *   union { struct pv_qp ibqp; struct pv_qp_ex ibqpx; } and its CQ struct
 *   with union { struct pv_cq ibcq; struct pv_cq_ex ibcqx; }, zeroed at
 *   allocation: lib/verbs keeps the work request and poll API state there
 *   for every QP and CQ (pv_qp_to_qp_ex(), pv_create_cq_ex()).
 * - Some optional ops have a generic default instead of an EOPNOTSUPP stub
 *   (said at each): lib/verbs builds the verb from the classic ops.
 */

#ifndef PV_LIB_VERBS_PV_VERBS_DRIVER_H
#define PV_LIB_VERBS_PV_VERBS_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>

#include "pv_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Control-path operations of a driver (sorted as they must be initialized). */
struct pv_driver_ops {
	/**
	 * Find the driver's devices and add each with pv_device_add().
	 * @param driver   The registered driver being probed: the one to pass
	 *                 to pv_device_add().
	 * @param devargs  The "--pv-dev=<driver>:<args>" strings given to
	 *                 pv_init() for this driver, with "<driver>:" removed
	 *                 (may be empty args ""); @p nb_devargs entries.
	 * @return number of devices added (>= 0), or -errno.
	 * Called once, on the first pv_get_device_list() after pv_init().
	 */
	int (*probe)(const struct pv_driver *driver, const char *const *devargs,
		     int nb_devargs);
	/** Release everything probe() allocated; called from pv_cleanup(). */
	void (*remove)(struct pv_device *device);

	struct pv_context *(*open_device)(struct pv_device *device);
	int (*close_device)(struct pv_context *context);
	int (*query_device)(struct pv_context *context, struct pv_device_attr *attr);
	/**
	 * The extended capabilities of pv_query_device_ex(): called with
	 * attr->orig_attr filled and every other field zero; sets what the
	 * device has. 0 or a positive errno. Default: nothing (returns 0).
	 */
	int (*query_device_ex)(struct pv_context *context, struct pv_device_attr_ex *attr);
	int (*query_port)(struct pv_context *context, uint8_t port_num,
			  struct pv_port_attr *attr);
	int (*query_gid)(struct pv_context *context, uint8_t port_num, int index,
			 union pv_gid *gid);
	/**
	 * One GID entry with its type, for pv_query_gid_ex(); port and index
	 * checked. 0, ENODATA empty entry, or a positive errno. Default:
	 * query_gid, with type RoCE v2 on an Ethernet port, IB otherwise.
	 */
	int (*query_gid_ex)(struct pv_context *context, uint8_t port_num, uint32_t index,
			    struct pv_gid_entry *entry);
	int (*query_pkey)(struct pv_context *context, uint8_t port_num, int index,
			  pv_be16 *pkey);

	struct pv_pd *(*alloc_pd)(struct pv_context *context);
	int (*dealloc_pd)(struct pv_pd *pd);
	struct pv_mr *(*reg_mr)(struct pv_pd *pd, void *addr, size_t length, int access);
	/**
	 * pv_reg_mr_iova2() with @p iova other than @p addr (reg_mr serves
	 * the other case): WRs address byte addr[i] as iova + i, through
	 * lkey and rkey alike. Default: NULL with errno EOPNOTSUPP.
	 */
	struct pv_mr *(*reg_mr_iova)(struct pv_pd *pd, void *addr, size_t length, uint64_t iova,
				     int access);
	/**
	 * pv_rereg_mr(): lib/verbs checked @p flags (PV_REREG_MR_CHANGE_*),
	 * the access bits and the new PD; the op changes what @p flags say
	 * in place and sets mr->lkey/rkey if they change (softroce keeps them,
	 * rdma-core's mlx5 may not), lib/verbs then updates the other fields.
	 * 0 or a positive errno (EBUSY windows are bound). Default: EOPNOTSUPP.
	 */
	int (*rereg_mr)(struct pv_mr *mr, int flags, struct pv_pd *pd, void *addr,
			size_t length, int access);
	int (*dereg_mr)(struct pv_mr *mr);
	/**
	 * Device memory (ibv_alloc_dm(3)): lib/verbs checked the arguments;
	 * the op sets dm->memcpy_to_dm / memcpy_from_dm. Default: NULL with
	 * errno EOPNOTSUPP (max_dm_size 0).
	 */
	struct pv_dm *(*alloc_dm)(struct pv_context *context, struct pv_alloc_dm_attr *attr);
	int (*free_dm)(struct pv_dm *dm);
	/** ibv_reg_dm_mr(3): an MR over [dm_offset, + length) of @p dm, zero based. */
	struct pv_mr *(*reg_dm_mr)(struct pv_pd *pd, struct pv_dm *dm, uint64_t dm_offset,
				   size_t length, unsigned int access);
	struct pv_ah *(*create_ah)(struct pv_pd *pd, struct pv_ah_attr *attr);
	int (*destroy_ah)(struct pv_ah *ah);

	struct pv_cq *(*create_cq)(struct pv_context *context, int cqe,
				   struct pv_comp_channel *channel, int comp_vector);
	int (*resize_cq)(struct pv_cq *cq, int cqe);
	int (*destroy_cq)(struct pv_cq *cq);

	struct pv_srq *(*create_srq)(struct pv_pd *pd, struct pv_srq_init_attr *attr);
	int (*modify_srq)(struct pv_srq *srq, struct pv_srq_attr *attr, int attr_mask);
	int (*query_srq)(struct pv_srq *srq, struct pv_srq_attr *attr);
	int (*destroy_srq)(struct pv_srq *srq);

	struct pv_qp *(*create_qp)(struct pv_pd *pd, struct pv_qp_init_attr *attr);
	/**
	 * pv_create_qp_ex(): lib/verbs checked comp_mask, the PD and
	 * send_ops_flags, and for RC/UC/UD/RAW_PACKET the pv_create_qp() rules;
	 * the op checks the rest (XRC, create_flags ...). Default: create_qp
	 * for a QP with no XRCD, create_flags, TSO header, indirection table or
	 * RX hash and a non-XRC type; NULL with errno EOPNOTSUPP otherwise.
	 */
	struct pv_qp *(*create_qp_ex)(struct pv_context *context, struct pv_qp_init_attr_ex *attr);
	/**
	 * pv_verbs_create_gsi_qp(): the GSI QP (QP1, IBA vol. 1 13.4) of the
	 * port of @p pd's device. lib/verbs checked @p attr as pv_create_qp()
	 * checks a UD QP. The op returns a UD QP (qp_type PV_QPT_UD) numbered
	 * 1 in RESET that receives the packets addressed to destination QP 1
	 * (Q_Key 0x80010000, default P_Key) and sends with source QP 1;
	 * destroy_qp frees the device's GSI slot. NULL with errno EBUSY when
	 * the device has its GSI QP already. Default: NULL with errno
	 * EOPNOTSUPP (mlx5: the kernel owns QP1).
	 */
	struct pv_qp *(*create_gsi_qp)(struct pv_pd *pd, struct pv_qp_init_attr *attr);
	/** Called after lib/verbs validated the transition; qp->state is the old state. */
	int (*modify_qp)(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask);
	/** Fills @p attr; lib/verbs fills the init_attr of pv_query_qp() itself. */
	int (*query_qp)(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask);
	int (*destroy_qp)(struct pv_qp *qp);
	int (*attach_mcast)(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid);
	int (*detach_mcast)(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid);

	/** pv_alloc_mw(): lib/verbs checked the type; sets mw->rkey. */
	struct pv_mw *(*alloc_mw)(struct pv_pd *pd, enum pv_mw_type type);
	int (*dealloc_mw)(struct pv_mw *mw);
	/** pv_open_xrcd(): fd is -1 (lib/verbs refuses shared domains). */
	struct pv_xrcd *(*open_xrcd)(struct pv_context *context,
				     struct pv_xrcd_init_attr *attr);
	int (*close_xrcd)(struct pv_xrcd *xrcd);
	/** pv_create_srq_ex() of an XRC SRQ (basic SRQs go to create_srq). */
	struct pv_srq *(*create_srq_ex)(struct pv_context *context,
					struct pv_srq_init_attr_ex *attr);
	int (*get_srq_num)(struct pv_srq *srq, uint32_t *srq_num);

	/** pv_progress(): work done (>= 0) or -errno. Fast path of the caller. */
	int (*progress)(struct pv_context *context);
	/**
	 * pv_set_progress_mode(): lib/verbs checked @p mode is a known value.
	 * 0 or a positive errno (EBUSY objects exist).
	 */
	int (*set_progress_mode)(struct pv_context *context, enum pv_progress_mode mode);
	/** pv_get_progress_mode(): the device's mode (>= 0). */
	int (*get_progress_mode)(struct pv_context *context);
};

/** The classic attributes inside @p x (for create_qp_ex ops that reuse create_qp). */
static inline void
pv_qp_init_attr_from_ex(struct pv_qp_init_attr *a, const struct pv_qp_init_attr_ex *x)
{
	*a = (struct pv_qp_init_attr){
		.qp_context = x->qp_context,
		.send_cq = x->send_cq,
		.recv_cq = x->recv_cq,
		.srq = x->srq,
		.cap = x->cap,
		.qp_type = x->qp_type,
		.sq_sig_all = x->sq_sig_all,
	};
}

/** A registered driver. */
struct pv_driver {
	TAILQ_ENTRY(pv_driver) next;
	const char *name;			/**< "softroce", "mlx5" */
	const struct pv_driver_ops *ops;	/**< as given by the driver */
	struct pv_driver_ops ops_full;		/**< ops with EOPNOTSUPP stubs filled in */
};

/** Register a driver; called from PV_DRIVER_REGISTER's constructor. */
void pv_driver_register(struct pv_driver *driver);

/**
 * Register driver @p nm with ops table @p ops_table at load time, like
 * DPDK's RTE_PMD_REGISTER_* and rdma-core's PROVIDER_DRIVER: the one way a
 * driver registers, once, at the end of the file holding its ops table.
 * The struct pv_driver it defines is private to the macro: the driver
 * receives it as probe's first argument (for pv_device_add()) and finds it
 * again as device->driver, so it never names it.
 */
#define PV_DRIVER_REGISTER(nm, ops_table) \
	static struct pv_driver pv_driver_##nm = { \
		.name = RTE_STR(nm), \
		.ops = &(ops_table), \
	}; \
	RTE_INIT(pv_driver_init_##nm) \
	{ \
		pv_driver_register(&pv_driver_##nm); \
	}

/**
 * Add a probed device to the registry. The driver allocates @p device
 * (usually embedded in its own device struct) and keeps it valid until its
 * remove op is called; it must have set name, node_type, transport_type
 * and node_guid; lib/verbs sets device->driver.
 * @return 0, -EINVAL NULL argument or empty name, -EEXIST a device of that
 *         name exists, -ENOSPC registry full (64 devices).
 */
int pv_device_add(const struct pv_driver *driver, struct pv_device *device);

/**
 * The PD a driver's object belongs to: @p pd itself, or the PD that the
 * parent domain @p pd extends. Drivers take their own PD struct from this,
 * never from a parent domain (lib/verbs allocates those).
 */
static inline struct pv_pd *
pv_pd_base(struct pv_pd *pd)
{
	return pd->pd_base != NULL ? pd->pd_base : pd;
}

/** The thread domain of parent domain @p pd, NULL for none or a plain PD. */
static inline struct pv_td *
pv_pd_td(const struct pv_pd *pd)
{
	return pd->td;
}

/**
 * The progress mode a device starts in when its devargs do not say:
 * PV_PROGRESS_APP when the environment variable PV_SINGLE_THREADED is "1"
 * (rdma-core's MLX5_SINGLE_THREADED plays the same role), else
 * PV_PROGRESS_THREAD_SAFE. Thread: any.
 */
static inline enum pv_progress_mode
pv_progress_mode_default(void)
{
	const char *v = getenv("PV_SINGLE_THREADED");

	return v != NULL && strcmp(v, "1") == 0 ? PV_PROGRESS_APP : PV_PROGRESS_THREAD_SAFE;
}

/** The ops (with stubs filled in) of the driver that owns @p device. */
static inline const struct pv_driver_ops *
pv_device_ops(const struct pv_device *device)
{
	return &device->driver->ops_full;
}

/**
 * Total bytes of a scatter/gather list, summed in 64 bits: 32-bit SGE
 * lengths cannot wrap it (16 + 0xfffffff0 is 0x100000000, not 0). Drivers
 * use it for the inline-data check of post_send.
 * @param sg_list  @p num_sge entries; the caller checked @p num_sge against
 *                 the QP's max_send_sge before calling.
 * @return the sum of the lengths, in bytes.
 * Thread: any (reads @p sg_list only).
 */
static inline uint64_t
pv_sge_total_len(const struct pv_sge *sg_list, int num_sge)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < num_sge; i++)
		len += sg_list[i].length;
	return len;
}

/**
 * Queue an asynchronous event on @p context (pv_get_async_event() returns it).
 * Multi-producer safe: callable from any lcore and the control thread.
 * @return 0, or -ENOSPC the event queue is full (the event is dropped and
 *         counted).
 */
int pv_async_event_post(struct pv_context *context, const struct pv_async_event *event);

/**
 * Queue @p event on every open context of @p device: port and device events
 * (PV_EVENT_PORT_ACTIVE, PV_EVENT_PORT_ERR, PV_EVENT_DEVICE_FATAL ...), which
 * concern every context, as ibv_get_async_event(3) delivers them. Contexts
 * still inside pv_open_device() or already in pv_close_device() are skipped,
 * so an event source that runs beside them (a control-thread timer) needs no
 * synchronisation with open and close. Takes a mutex: not for the data path.
 * @return number of contexts the event was queued on (>= 0; a full queue is
 *         counted as in pv_async_event_post()), -EINVAL NULL argument.
 * Thread: any.
 */
int pv_device_async_event_post(struct pv_device *device, const struct pv_async_event *event);

/**
 * pv_async_event_post() for an event source that runs beside
 * pv_open_device() / pv_close_device() of @p context (a control-thread
 * timer started by open_device and stopped by close_device): queues only if
 * @p context is open, i.e. pv_open_device() returned it and
 * pv_close_device() has not started. @p context is only compared, never
 * dereferenced, unless open. Takes a mutex: not for the data path.
 * @return 0, -ENODEV not open (dropped), -ENOSPC queue full, -EINVAL NULL
 *         argument. Thread: any.
 */
int pv_context_async_event_post(struct pv_context *context, const struct pv_async_event *event);

/**
 * Raise a completion event for an armed CQ: called by the driver, from the
 * CQ owner's thread, when a completion matching the arming arrives. Clears
 * cq->armed and wakes pv_get_cq_event() on the CQ's channel.
 * Does nothing if the CQ has no channel or is not armed.
 */
void pv_cq_event_raise(struct pv_cq *cq);

/**
 * Legal-transition and attribute check of ibv_modify_qp(3) (IBTA vol. 1,
 * 10.3.1, table 91), done by lib/verbs before modify_qp; exported for drivers'
 * tests and for mlx5's model. @return 0 or EINVAL.
 */
int pv_qp_attr_mask_check(enum pv_qp_state cur, enum pv_qp_state next,
			  enum pv_qp_type type, int attr_mask);

/**
 * Create the GSI QP (QP1) of the device of @p pd, for lib/cm's connection
 * manager: the driver's create_gsi_qp op, with the validation and common
 * fields of pv_create_qp(). Not exported: applications never reach QP1.
 *
 * The QP is UD (qp_type PV_QPT_UD), qp_num 1, in RESET; the caller moves it
 * INIT (pkey_index 0, port_num 1, qkey 0x80010000), RTR and RTS as any UD
 * QP, posts receives of a 40-byte GRH area plus a 256-byte MAD and sends
 * to an AH with a GRH, remote_qpn 1, remote_qkey 0x80010000.
 * pv_destroy_qp() destroys it and frees the device's slot.
 *
 * @param pd    PD of the QP; its context's device gets the GSI QP.
 * @param attr  As for pv_create_qp(); qp_type must be PV_QPT_UD. The
 *              granted caps are written back.
 * @return the QP; NULL with errno EINVAL (NULL argument, not UD, caps or
 *         CQs as pv_create_qp() refuses them), EBUSY (the device has its
 *         GSI QP already), EOPNOTSUPP (the driver has no GSI QP: mlx5),
 *         ENOMEM.
 * Thread: any (the device's control path).
 */
struct pv_qp *pv_verbs_create_gsi_qp(struct pv_pd *pd, struct pv_qp_init_attr *attr);

/**
 * Parse "key=value,key=value" device arguments. Calls @p fn for each pair;
 * stops at the first nonzero return, which it returns. -EINVAL on a pair
 * with no '='.
 */
int pv_devargs_parse(const char *args,
		     int (*fn)(const char *key, const char *value, void *opaque),
		     void *opaque);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_VERBS_PV_VERBS_DRIVER_H */
