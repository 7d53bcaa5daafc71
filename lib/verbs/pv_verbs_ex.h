/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * Extended verbs (libibverbs' ibv_*_ex API, rdma-core v44): an indirect
 * header of pv_verbs.h, which applications include instead of this one.
 *
 * These verbs are implemented once in lib/verbs over the drivers' classic
 * ops (doc/guides/prog_guide/verbs.rst, "Extended verbs"): the pv_wr_* batch
 * builders fill pv_send_wr entries and post them with one pv_post_send() at
 * pv_wr_complete(); pv_start_poll() polls through pv_poll_cq(). A driver may
 * take over a part through the optional ops of pv_verbs_driver.h.
 */

#ifndef PV_LIB_VERBS_PV_VERBS_EX_H
#define PV_LIB_VERBS_PV_VERBS_EX_H

#include <time.h>

#include "pv_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* defined by the WQ verbs (not implemented) */
struct pv_rwq_ind_table;

/* ---------------------------------------------------------------------- */
/* Device attributes (ibv_query_device_ex(3))                              */
/* ---------------------------------------------------------------------- */

#define PV_DEVICE_RAW_SCATTER_FCS (1ULL << 34)
#define PV_DEVICE_PCI_WRITE_END_PADDING (1ULL << 36)

/** Input of pv_query_device_ex(); comp_mask must be 0. */
struct pv_query_device_ex_input {
	uint32_t comp_mask;
};

enum pv_odp_transport_cap_bits {
	PV_ODP_SUPPORT_SEND = 1 << 0,
	PV_ODP_SUPPORT_RECV = 1 << 1,
	PV_ODP_SUPPORT_WRITE = 1 << 2,
	PV_ODP_SUPPORT_READ = 1 << 3,
	PV_ODP_SUPPORT_ATOMIC = 1 << 4,
	PV_ODP_SUPPORT_SRQ_RECV = 1 << 5,
};

struct pv_odp_caps {
	uint64_t general_caps;		/**< enum pv_odp_general_caps */
	struct {
		uint32_t rc_odp_caps;	/**< enum pv_odp_transport_cap_bits */
		uint32_t uc_odp_caps;
		uint32_t ud_odp_caps;
	} per_transport_caps;
};

struct pv_tso_caps {
	uint32_t max_tso;		/**< bytes */
	uint32_t supported_qpts;	/**< bit (1 << enum pv_qp_type) */
};

enum pv_rx_hash_function_flags {
	PV_RX_HASH_FUNC_TOEPLITZ = 1 << 0,
};

enum pv_rx_hash_fields {
	PV_RX_HASH_SRC_IPV4 = 1 << 0,
	PV_RX_HASH_DST_IPV4 = 1 << 1,
	PV_RX_HASH_SRC_IPV6 = 1 << 2,
	PV_RX_HASH_DST_IPV6 = 1 << 3,
	PV_RX_HASH_SRC_PORT_TCP = 1 << 4,
	PV_RX_HASH_DST_PORT_TCP = 1 << 5,
	PV_RX_HASH_SRC_PORT_UDP = 1 << 6,
	PV_RX_HASH_DST_PORT_UDP = 1 << 7,
	PV_RX_HASH_IPSEC_SPI = 1 << 8,
	PV_RX_HASH_INNER = (1UL << 31),
};

struct pv_rss_caps {
	uint32_t supported_qpts;
	uint32_t max_rwq_indirection_tables;
	uint32_t max_rwq_indirection_table_size;
	uint64_t rx_hash_fields_mask;	/**< enum pv_rx_hash_fields */
	uint8_t rx_hash_function;	/**< enum pv_rx_hash_function_flags */
};

struct pv_packet_pacing_caps {
	uint32_t qp_rate_limit_min;	/**< kbps */
	uint32_t qp_rate_limit_max;	/**< kbps */
	uint32_t supported_qpts;
};

enum pv_raw_packet_caps {
	PV_RAW_PACKET_CAP_CVLAN_STRIPPING = 1 << 0,
	PV_RAW_PACKET_CAP_SCATTER_FCS = 1 << 1,
	PV_RAW_PACKET_CAP_IP_CSUM = 1 << 2,
	PV_RAW_PACKET_CAP_DELAY_DROP = 1 << 3,
};

enum pv_tm_cap_flags {
	PV_TM_CAP_RC = 1 << 0,
};

struct pv_tm_caps {
	uint32_t max_rndv_hdr_size;	/**< bytes */
	uint32_t max_num_tags;
	uint32_t flags;			/**< enum pv_tm_cap_flags */
	uint32_t max_ops;
	uint32_t max_sge;
};

struct pv_cq_moderation_caps {
	uint16_t max_cq_count;
	uint16_t max_cq_period;		/**< microseconds */
};

enum pv_pci_atomic_op_size {
	PV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP = 1 << 0,
	PV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP = 1 << 1,
	PV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP = 1 << 2,
};

struct pv_pci_atomic_caps {
	uint16_t fetch_add;		/**< enum pv_pci_atomic_op_size */
	uint16_t swap;
	uint16_t compare_swap;
};

struct pv_device_attr_ex {
	struct pv_device_attr orig_attr;
	uint32_t comp_mask;
	struct pv_odp_caps odp_caps;
	uint64_t completion_timestamp_mask;	/**< 0: no completion timestamps */
	uint64_t hca_core_clock;		/**< kHz; 0 when unknown */
	uint64_t device_cap_flags_ex;		/**< device_cap_flags, then bits 32.. */
	struct pv_tso_caps tso_caps;
	struct pv_rss_caps rss_caps;
	uint32_t max_wq_type_rq;
	struct pv_packet_pacing_caps packet_pacing_caps;
	uint32_t raw_packet_caps;		/**< enum pv_raw_packet_caps */
	struct pv_tm_caps tm_caps;
	struct pv_cq_moderation_caps cq_mod_caps;
	uint64_t max_dm_size;			/**< bytes of device memory */
	struct pv_pci_atomic_caps pci_atomic_caps;
	uint32_t xrc_odp_caps;
	uint32_t phys_port_cnt_ex;
};

/**
 * Query the device's attributes and extended capabilities
 * (ibv_query_device_ex(3)). orig_attr is pv_query_device()'s answer; the
 * rest comes from the driver (zero: not supported). On-demand paging is
 * reported as none (odp_caps all 0), device memory as max_dm_size 0.
 * @param input  comp_mask must be 0; may be NULL.
 * @param attr   Filled on success.
 * @return 0, or a positive errno: EINVAL NULL context/attr or unknown
 *         input->comp_mask bits; the driver's errno.
 * Thread: any (control path).
 */
PV_EXPORT int pv_query_device_ex(struct pv_context *context,
				 const struct pv_query_device_ex_input *input,
				 struct pv_device_attr_ex *attr);

/* ---------------------------------------------------------------------- */
/* GID entries (ibv_query_gid_ex(3), ibv_query_gid_table(3))               */
/* ---------------------------------------------------------------------- */

enum pv_gid_type {
	PV_GID_TYPE_IB,
	PV_GID_TYPE_ROCE_V1,
	PV_GID_TYPE_ROCE_V2,
};

struct pv_gid_entry {
	union pv_gid gid;
	uint32_t gid_index;
	uint32_t port_num;
	uint32_t gid_type;		/**< enum pv_gid_type */
	uint32_t ndev_ifindex;		/**< 0: no kernel net device */
};

/**
 * Read one GID table entry with its type (ibv_query_gid_ex(3)). On a RoCE
 * port of softroce and of the mlx5 model every GID is RoCE v2; mlx5 on
 * hardware reports rdma-core's answer.
 * @param flags  Must be 0.
 * @return 0, or a positive errno: EINVAL NULL argument, port or index out
 *         of range; EOPNOTSUPP flags not 0; ENODATA the entry is empty
 *         (all-zero GID).
 * Thread: any (control path).
 */
PV_EXPORT int pv_query_gid_ex(struct pv_context *context, uint32_t port_num,
			      uint32_t gid_index, struct pv_gid_entry *entry, uint32_t flags);

/**
 * Read the valid GID entries of every port (ibv_query_gid_table(3)).
 * @param entries      Array of @p max_entries entries.
 * @param flags        Must be 0.
 * @return The number of entries written (empty GIDs are skipped), or a
 *         negative errno: -EINVAL NULL argument or too small an array for
 *         the valid entries; -EOPNOTSUPP flags not 0.
 * Thread: any (control path).
 */
PV_EXPORT ssize_t pv_query_gid_table(struct pv_context *context, struct pv_gid_entry *entries,
				     size_t max_entries, uint32_t flags);

/* ---------------------------------------------------------------------- */
/* Queue pairs (ibv_create_qp_ex(3)) and the work request API              */
/* ---------------------------------------------------------------------- */

enum pv_qp_init_attr_mask {
	PV_QP_INIT_ATTR_PD = 1 << 0,
	PV_QP_INIT_ATTR_XRCD = 1 << 1,
	PV_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2,
	PV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3,
	PV_QP_INIT_ATTR_IND_TABLE = 1 << 4,
	PV_QP_INIT_ATTR_RX_HASH = 1 << 5,
	PV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6,
};

enum pv_qp_create_flags {
	PV_QP_CREATE_BLOCK_SELF_MCAST_LB = 1 << 1,
	PV_QP_CREATE_SCATTER_FCS = 1 << 8,
	PV_QP_CREATE_CVLAN_STRIPPING = 1 << 9,
	PV_QP_CREATE_SOURCE_QPN = 1 << 10,
	PV_QP_CREATE_PCI_WRITE_END_PADDING = 1 << 11,
};

enum pv_qp_create_send_ops_flags {
	PV_QP_EX_WITH_RDMA_WRITE = 1 << 0,
	PV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1,
	PV_QP_EX_WITH_SEND = 1 << 2,
	PV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3,
	PV_QP_EX_WITH_RDMA_READ = 1 << 4,
	PV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5,
	PV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6,
	PV_QP_EX_WITH_LOCAL_INV = 1 << 7,
	PV_QP_EX_WITH_BIND_MW = 1 << 8,
	PV_QP_EX_WITH_SEND_WITH_INV = 1 << 9,
	PV_QP_EX_WITH_TSO = 1 << 10,
	PV_QP_EX_WITH_ATOMIC_WRITE = 1 << 12,
};

struct pv_rx_hash_conf {
	uint8_t rx_hash_function;	/**< enum pv_rx_hash_function_flags */
	uint8_t rx_hash_key_len;
	uint8_t *rx_hash_key;
	uint64_t rx_hash_fields_mask;	/**< enum pv_rx_hash_fields */
};

struct pv_qp_init_attr_ex {
	void *qp_context;
	struct pv_cq *send_cq;
	struct pv_cq *recv_cq;
	struct pv_srq *srq;
	struct pv_qp_cap cap;
	enum pv_qp_type qp_type;
	int sq_sig_all;

	uint32_t comp_mask;		/**< enum pv_qp_init_attr_mask */
	struct pv_pd *pd;
	struct pv_xrcd *xrcd;
	uint32_t create_flags;		/**< enum pv_qp_create_flags */
	uint16_t max_tso_header;
	struct pv_rwq_ind_table *rwq_ind_tbl;
	struct pv_rx_hash_conf rx_hash_conf;
	uint32_t source_qpn;
	uint64_t send_ops_flags;	/**< enum pv_qp_create_send_ops_flags */
};

/** A buffer of pv_wr_set_inline_data_list() (ibv_data_buf). */
struct pv_data_buf {
	void *addr;
	size_t length;			/**< bytes */
};

/** lib/verbs' state of a QP's work request batch (opaque). */
struct pv_verbs_wr_batch;

/**
 * A QP seen through the work request API (ibv_qp_ex). Every driver QP has
 * room for it (pv_verbs_driver.h); the function pointers are lib/verbs'
 * (or the driver's) and are called through the pv_wr_* wrappers below.
 */
struct pv_qp_ex {
	struct pv_qp qp_base;
	uint64_t comp_mask;
	uint64_t wr_id;			/**< given to the next WR builder */
	unsigned int wr_flags;		/**< enum pv_send_flags, for the next builder */

	void (*wr_atomic_cmp_swp)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
				  uint64_t compare, uint64_t swap);
	void (*wr_atomic_fetch_add)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
				    uint64_t add);
	void (*wr_bind_mw)(struct pv_qp_ex *qp, struct pv_mw *mw, uint32_t rkey,
			   const struct pv_mw_bind_info *bind_info);
	void (*wr_local_inv)(struct pv_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_rdma_read)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr);
	void (*wr_rdma_write_imm)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
				  pv_be32 imm_data);

	void (*wr_send)(struct pv_qp_ex *qp);
	void (*wr_send_imm)(struct pv_qp_ex *qp, pv_be32 imm_data);
	void (*wr_send_inv)(struct pv_qp_ex *qp, uint32_t invalidate_rkey);
	void (*wr_send_tso)(struct pv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss);

	void (*wr_set_ud_addr)(struct pv_qp_ex *qp, struct pv_ah *ah, uint32_t remote_qpn,
			       uint32_t remote_qkey);
	void (*wr_set_xrc_srqn)(struct pv_qp_ex *qp, uint32_t remote_srqn);

	void (*wr_set_inline_data)(struct pv_qp_ex *qp, void *addr, size_t length);
	void (*wr_set_inline_data_list)(struct pv_qp_ex *qp, size_t num_buf,
					const struct pv_data_buf *buf_list);
	void (*wr_set_sge)(struct pv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length);
	void (*wr_set_sge_list)(struct pv_qp_ex *qp, size_t num_sge,
				const struct pv_sge *sg_list);

	void (*wr_start)(struct pv_qp_ex *qp);
	int (*wr_complete)(struct pv_qp_ex *qp);
	void (*wr_abort)(struct pv_qp_ex *qp);

	void (*wr_atomic_write)(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
				const void *atomic_wr);

	/** pollverbs addition: lib/verbs' batch state; NULL when the QP was not
	 *  created with PV_QP_INIT_ATTR_SEND_OPS_FLAGS. Opaque. */
	struct pv_verbs_wr_batch *wr_batch;
};

/**
 * Create a queue pair with extended attributes (ibv_create_qp_ex(3)).
 *
 * comp_mask must hold PV_QP_INIT_ATTR_PD (or _XRCD for XRC_RECV). With
 * PV_QP_INIT_ATTR_SEND_OPS_FLAGS the QP can post through pv_qp_to_qp_ex()
 * and the pv_wr_* calls; send_ops_flags lists the operations it will post
 * (each allowed for the QP type, as ibv_wr_post(3)'s table says, and by the
 * device: atomics need atomic_cap, LOCAL_INV/SEND_WITH_INV need
 * PV_DEVICE_MEM_MGT_EXTENSIONS or PV_DEVICE_MEM_WINDOW, BIND_MW
 * PV_DEVICE_MEM_WINDOW with type 2A or 2B windows). A send queue
 * of max_send_wr entries, max_send_sge SGEs and max_inline_data bytes per
 * WR is then kept by lib/verbs for the batch (freed with the QP).
 * The calling thread becomes the QP's owner. attr->cap gets the granted sizes.
 * @return The QP; NULL with errno: EINVAL NULL argument, no PD (or XRCD)
 *         in comp_mask, unknown comp_mask or send_ops_flags bits, and every
 *         EINVAL of pv_create_qp(); EOPNOTSUPP create_flags, max_tso_header,
 *         an indirection table or RX hash (no driver supports them), a
 *         send operation the QP type or device cannot do, an XRC QP type
 *         the driver cannot create; ENOMEM.
 */
PV_EXPORT struct pv_qp *pv_create_qp_ex(struct pv_context *context,
					struct pv_qp_init_attr_ex *qp_init_attr_ex);

/**
 * The work request API view of @p qp (ibv_qp_to_qp_ex(3)).
 * @return The pv_qp_ex of @p qp, or NULL (errno EOPNOTSUPP) when @p qp was
 *         not created by pv_create_qp_ex() with PV_QP_INIT_ATTR_SEND_OPS_FLAGS,
 *         as libibverbs answers. Such a QP still carries safe function
 *         pointers: a batch on it completes with EOPNOTSUPP.
 * Thread: any.
 */
PV_EXPORT struct pv_qp_ex *pv_qp_to_qp_ex(struct pv_qp *qp);

/*
 * The pv_wr_* calls (ibv_wr_post(3)). A batch is built between
 * pv_wr_start() and pv_wr_complete()/pv_wr_abort(): each builder
 * (pv_wr_send(), pv_wr_rdma_write() ...) starts a WR with qp->wr_id and
 * qp->wr_flags, and the setters (pv_wr_set_sge() ...) complete the last one.
 * Builders and setters return nothing: an error (an operation not in
 * send_ops_flags, more WRs than max_send_wr, more SGEs than max_send_sge,
 * inline data beyond max_inline_data, a setter with no WR) marks the batch
 * failed and pv_wr_complete() returns it, posting nothing. Data buffers of
 * SGEs must stay registered until completion; inline data is copied by the
 * setter. Thread: one thread at a time per QP inside start..complete (the
 * batch holds a lock unless the QP was created in a parent domain with a
 * thread domain).
 */

/** Compare @p compare with the 8 bytes at rkey/remote_addr, swap if equal. */
static inline void
pv_wr_atomic_cmp_swp(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		     uint64_t compare, uint64_t swap)
{
	qp->wr_atomic_cmp_swp(qp, rkey, remote_addr, compare, swap);
}

/** Add @p add to the 8 bytes at rkey/remote_addr, returning the old value. */
static inline void
pv_wr_atomic_fetch_add(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)
{
	qp->wr_atomic_fetch_add(qp, rkey, remote_addr, add);
}

/**
 * Bind type 2 memory window @p mw with its new @p rkey (pv_inc_rkey() of
 * mw->rkey) to @p bind_info's range; the bind's rules are checked when it
 * executes (PV_WC_MW_BIND_ERR), as for PV_WR_BIND_MW. No setter follows.
 */
static inline void
pv_wr_bind_mw(struct pv_qp_ex *qp, struct pv_mw *mw, uint32_t rkey,
	      const struct pv_mw_bind_info *bind_info)
{
	qp->wr_bind_mw(qp, mw, rkey, bind_info);
}

/** Invalidate the key @p invalidate_rkey. */
static inline void
pv_wr_local_inv(struct pv_qp_ex *qp, uint32_t invalidate_rkey)
{
	qp->wr_local_inv(qp, invalidate_rkey);
}

/** RDMA READ from rkey/remote_addr into the SGEs set next. */
static inline void
pv_wr_rdma_read(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	qp->wr_rdma_read(qp, rkey, remote_addr);
}

/** RDMA WRITE of the data set next to rkey/remote_addr. */
static inline void
pv_wr_rdma_write(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	qp->wr_rdma_write(qp, rkey, remote_addr);
}

/** RDMA WRITE with immediate data (network byte order). */
static inline void
pv_wr_rdma_write_imm(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		     pv_be32 imm_data)
{
	qp->wr_rdma_write_imm(qp, rkey, remote_addr, imm_data);
}

/** SEND of the data set next. */
static inline void
pv_wr_send(struct pv_qp_ex *qp)
{
	qp->wr_send(qp);
}

/** SEND with immediate data (network byte order). */
static inline void
pv_wr_send_imm(struct pv_qp_ex *qp, pv_be32 imm_data)
{
	qp->wr_send_imm(qp, imm_data);
}

/** SEND that invalidates @p invalidate_rkey at the responder. */
static inline void
pv_wr_send_inv(struct pv_qp_ex *qp, uint32_t invalidate_rkey)
{
	qp->wr_send_inv(qp, invalidate_rkey);
}

/** TCP segmentation offload SEND (no pollverbs driver: EOPNOTSUPP). */
static inline void
pv_wr_send_tso(struct pv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	qp->wr_send_tso(qp, hdr, hdr_sz, mss);
}

/** Destination of the last WR of a UD QP. */
static inline void
pv_wr_set_ud_addr(struct pv_qp_ex *qp, struct pv_ah *ah, uint32_t remote_qpn,
		  uint32_t remote_qkey)
{
	qp->wr_set_ud_addr(qp, ah, remote_qpn, remote_qkey);
}

/** Destination SRQ number of the last WR of an XRC_SEND QP. */
static inline void
pv_wr_set_xrc_srqn(struct pv_qp_ex *qp, uint32_t remote_srqn)
{
	qp->wr_set_xrc_srqn(qp, remote_srqn);
}

/** Copy @p length bytes at @p addr as the inline payload of the last WR. */
static inline void
pv_wr_set_inline_data(struct pv_qp_ex *qp, void *addr, size_t length)
{
	qp->wr_set_inline_data(qp, addr, length);
}

/** Copy @p num_buf buffers, concatenated, as the inline payload of the last WR. */
static inline void
pv_wr_set_inline_data_list(struct pv_qp_ex *qp, size_t num_buf,
			   const struct pv_data_buf *buf_list)
{
	qp->wr_set_inline_data_list(qp, num_buf, buf_list);
}

/** One registered buffer (lkey, address, bytes) as the data of the last WR. */
static inline void
pv_wr_set_sge(struct pv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	qp->wr_set_sge(qp, lkey, addr, length);
}

/** @p num_sge buffers (copied) as the data of the last WR. */
static inline void
pv_wr_set_sge_list(struct pv_qp_ex *qp, size_t num_sge, const struct pv_sge *sg_list)
{
	qp->wr_set_sge_list(qp, num_sge, sg_list);
}

/** Open a batch (takes the QP's batch lock). */
static inline void
pv_wr_start(struct pv_qp_ex *qp)
{
	qp->wr_start(qp);
}

/**
 * Post the batch with one pv_post_send() (one doorbell) and close it.
 * @return 0, or a positive errno: the batch's first error (EINVAL bad
 *         builder or setter use, ENOMEM more WRs than max_send_wr,
 *         EOPNOTSUPP a QP not created with send_ops_flags or an operation
 *         no driver has), then nothing is posted; or pv_post_send()'s errno,
 *         then the WRs before the failing one may have been posted, as with
 *         a pv_post_send() list.
 */
static inline int
pv_wr_complete(struct pv_qp_ex *qp)
{
	return qp->wr_complete(qp);
}

/** Discard the batch and close it. */
static inline void
pv_wr_abort(struct pv_qp_ex *qp)
{
	qp->wr_abort(qp);
}

/** 8-byte atomic write (no pollverbs driver: EOPNOTSUPP at complete). */
static inline void
pv_wr_atomic_write(struct pv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		   const void *atomic_wr)
{
	qp->wr_atomic_write(qp, rkey, remote_addr, atomic_wr);
}

/**
 * Whether data a QP receives is written in order within each WQE
 * (ibv_query_qp_data_in_order(3)).
 * @param flags  Must be 0.
 * @return 0 (not guaranteed) today for every QP: no driver reports its
 *         placement order yet, and 0 is the answer a reader can never be
 *         misled by (libibverbs gives 0 as well off x86).
 */
PV_EXPORT int pv_query_qp_data_in_order(struct pv_qp *qp, enum pv_wr_opcode op, uint32_t flags);

/* ---------------------------------------------------------------------- */
/* Extended completion queues (ibv_create_cq_ex(3))                        */
/* ---------------------------------------------------------------------- */

enum pv_create_cq_wc_flags {
	PV_WC_EX_WITH_BYTE_LEN = 1 << 0,
	PV_WC_EX_WITH_IMM = 1 << 1,
	PV_WC_EX_WITH_QP_NUM = 1 << 2,
	PV_WC_EX_WITH_SRC_QP = 1 << 3,
	PV_WC_EX_WITH_SLID = 1 << 4,
	PV_WC_EX_WITH_SL = 1 << 5,
	PV_WC_EX_WITH_DLID_PATH_BITS = 1 << 6,
	PV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1 << 7,
	PV_WC_EX_WITH_CVLAN = 1 << 8,
	PV_WC_EX_WITH_FLOW_TAG = 1 << 9,
	PV_WC_EX_WITH_TM_INFO = 1 << 10,
	PV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 1 << 11,
};

enum {
	PV_WC_STANDARD_FLAGS = PV_WC_EX_WITH_BYTE_LEN | PV_WC_EX_WITH_IMM |
			       PV_WC_EX_WITH_QP_NUM | PV_WC_EX_WITH_SRC_QP |
			       PV_WC_EX_WITH_SLID | PV_WC_EX_WITH_SL |
			       PV_WC_EX_WITH_DLID_PATH_BITS,
};

enum {
	PV_CREATE_CQ_SUP_WC_FLAGS = PV_WC_STANDARD_FLAGS | PV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				    PV_WC_EX_WITH_CVLAN | PV_WC_EX_WITH_FLOW_TAG |
				    PV_WC_EX_WITH_TM_INFO |
				    PV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
};

enum pv_cq_init_attr_mask {
	PV_CQ_INIT_ATTR_MASK_FLAGS = 1 << 0,
	PV_CQ_INIT_ATTR_MASK_PD = 1 << 1,
};

enum pv_create_cq_attr_flags {
	PV_CREATE_CQ_ATTR_SINGLE_THREADED = 1 << 0,
	PV_CREATE_CQ_ATTR_IGNORE_OVERRUN = 1 << 1,
};

struct pv_cq_init_attr_ex {
	uint32_t cqe;			/**< minimum entries */
	void *cq_context;
	struct pv_comp_channel *channel;
	uint32_t comp_vector;
	uint64_t wc_flags;		/**< enum pv_create_cq_wc_flags */
	uint32_t comp_mask;		/**< enum pv_cq_init_attr_mask */
	uint32_t flags;			/**< enum pv_create_cq_attr_flags */
	struct pv_pd *parent_domain;
};

struct pv_poll_cq_attr {
	uint32_t comp_mask;		/**< must be 0 */
};

struct pv_wc_tm_info {
	uint64_t tag;
	uint32_t priv;
};

/** lib/verbs' polling state of an extended CQ (opaque). */
struct pv_verbs_cq_poll;

/**
 * An extended CQ (ibv_cq_ex). ibv_cq_ex repeats ibv_cq's fields at its
 * start; here they are cq_base's (cq_ex->cq_base.context ...), reached as
 * well through pv_cq_ex_to_cq(). status and wr_id describe the completion
 * pv_start_poll()/pv_next_poll() made current; the pv_wc_read_* calls read
 * its other fields.
 */
struct pv_cq_ex {
	struct pv_cq cq_base;
	uint32_t comp_mask;
	enum pv_wc_status status;
	uint64_t wr_id;
	int (*start_poll)(struct pv_cq_ex *current, struct pv_poll_cq_attr *attr);
	int (*next_poll)(struct pv_cq_ex *current);
	void (*end_poll)(struct pv_cq_ex *current);
	enum pv_wc_opcode (*read_opcode)(struct pv_cq_ex *current);
	uint32_t (*read_vendor_err)(struct pv_cq_ex *current);
	uint32_t (*read_byte_len)(struct pv_cq_ex *current);
	pv_be32 (*read_imm_data)(struct pv_cq_ex *current);
	uint32_t (*read_qp_num)(struct pv_cq_ex *current);
	uint32_t (*read_src_qp)(struct pv_cq_ex *current);
	unsigned int (*read_wc_flags)(struct pv_cq_ex *current);
	uint32_t (*read_slid)(struct pv_cq_ex *current);
	uint8_t (*read_sl)(struct pv_cq_ex *current);
	uint8_t (*read_dlid_path_bits)(struct pv_cq_ex *current);
	uint64_t (*read_completion_ts)(struct pv_cq_ex *current);
	uint16_t (*read_cvlan)(struct pv_cq_ex *current);
	uint32_t (*read_flow_tag)(struct pv_cq_ex *current);
	void (*read_tm_info)(struct pv_cq_ex *current, struct pv_wc_tm_info *tm_info);
	uint64_t (*read_completion_wallclock_ns)(struct pv_cq_ex *current);
	/** pollverbs addition: lib/verbs' polling state; NULL for a CQ of
	 *  pv_create_cq(). Opaque. */
	struct pv_verbs_cq_poll *poll;
};

/** The classic CQ of @p cq (ibv_cq_ex_to_cq()): for pv_destroy_cq(), pv_poll_cq() ... */
static inline struct pv_cq *
pv_cq_ex_to_cq(struct pv_cq_ex *cq)
{
	return &cq->cq_base;
}

/**
 * Create an extended CQ (ibv_create_cq_ex(3)); destroy it with
 * pv_destroy_cq(pv_cq_ex_to_cq(cq)). Completions are read with
 * pv_start_poll() ... pv_end_poll(); pv_poll_cq() works on it too, but do
 * not mix the two inside one start..end region.
 * wc_flags may hold PV_WC_STANDARD_FLAGS; completion timestamps, CVLAN,
 * flow tag and TM info are not provided by any pollverbs driver (no
 * hardware clock is read per completion), so asking for them fails.
 * flags may hold PV_CREATE_CQ_ATTR_SINGLE_THREADED (accepted; the CQ is
 * polled by its owner anyway). A parent domain is accepted and not used.
 * @return The CQ; NULL with errno: EINVAL NULL argument, cqe 0 or beyond
 *         max_cqe, bad comp_vector, unknown comp_mask bits, a
 *         parent_domain that is not a parent domain of @p context;
 *         EOPNOTSUPP wc_flags outside PV_WC_STANDARD_FLAGS, other flags
 *         (PV_CREATE_CQ_ATTR_IGNORE_OVERRUN); ENOMEM.
 * Thread: the caller becomes the CQ's owner.
 */
PV_EXPORT struct pv_cq_ex *pv_create_cq_ex(struct pv_context *context,
					   struct pv_cq_init_attr_ex *cq_attr);

/**
 * Make the oldest completion current (ibv_start_poll(3)): its status and
 * wr_id are in @p cq; the pv_wc_read_* calls read the rest.
 * @param attr  comp_mask must be 0.
 * @return 0, ENOENT the CQ is empty (then do not call pv_end_poll()), or
 *         EINVAL unknown attr->comp_mask bits.
 * Thread: the CQ's owner; start..end is a critical region of the CQ.
 */
static inline int
pv_start_poll(struct pv_cq_ex *cq, struct pv_poll_cq_attr *attr)
{
	return cq->start_poll(cq, attr);
}

/** Move to the next completion (ibv_next_poll(3)); 0 or ENOENT. */
static inline int
pv_next_poll(struct pv_cq_ex *cq)
{
	return cq->next_poll(cq);
}

/** Close the region opened by a successful pv_start_poll() (ibv_end_poll(3)). */
static inline void
pv_end_poll(struct pv_cq_ex *cq)
{
	cq->end_poll(cq);
}

/** Opcode of the current completion (valid when status is PV_WC_SUCCESS). */
static inline enum pv_wc_opcode
pv_wc_read_opcode(struct pv_cq_ex *cq)
{
	return cq->read_opcode(cq);
}

/** Vendor error syndrome of the current completion. */
static inline uint32_t
pv_wc_read_vendor_err(struct pv_cq_ex *cq)
{
	return cq->read_vendor_err(cq);
}

/** Bytes received (receive and READ/atomic completions). */
static inline uint32_t
pv_wc_read_byte_len(struct pv_cq_ex *cq)
{
	return cq->read_byte_len(cq);
}

/** Immediate data, network byte order (wc_flags PV_WC_WITH_IMM). */
static inline pv_be32
pv_wc_read_imm_data(struct pv_cq_ex *cq)
{
	return cq->read_imm_data(cq);
}

/** Invalidated rkey (wc_flags PV_WC_WITH_INV); shares imm_data's storage. */
static inline uint32_t
pv_wc_read_invalidated_rkey(struct pv_cq_ex *cq)
{
	return (uint32_t)cq->read_imm_data(cq);
}

/** Local QP number of the current completion. */
static inline uint32_t
pv_wc_read_qp_num(struct pv_cq_ex *cq)
{
	return cq->read_qp_num(cq);
}

/** Remote QP number (UD receives). */
static inline uint32_t
pv_wc_read_src_qp(struct pv_cq_ex *cq)
{
	return cq->read_src_qp(cq);
}

/** enum pv_wc_flags of the current completion. */
static inline unsigned int
pv_wc_read_wc_flags(struct pv_cq_ex *cq)
{
	return cq->read_wc_flags(cq);
}

/** Source LID (0 on RoCE). */
static inline uint32_t
pv_wc_read_slid(struct pv_cq_ex *cq)
{
	return cq->read_slid(cq);
}

/** Service level. */
static inline uint8_t
pv_wc_read_sl(struct pv_cq_ex *cq)
{
	return cq->read_sl(cq);
}

/** DLID path bits (0 on RoCE). */
static inline uint8_t
pv_wc_read_dlid_path_bits(struct pv_cq_ex *cq)
{
	return cq->read_dlid_path_bits(cq);
}

/** Completion timestamp: not provided (creation refuses the flag); 0. */
static inline uint64_t
pv_wc_read_completion_ts(struct pv_cq_ex *cq)
{
	return cq->read_completion_ts(cq);
}

/** Wall-clock completion time: not provided (creation refuses the flag); 0. */
static inline uint64_t
pv_wc_read_completion_wallclock_ns(struct pv_cq_ex *cq)
{
	return cq->read_completion_wallclock_ns(cq);
}

/** Customer VLAN: not provided (creation refuses the flag); 0. */
static inline uint16_t
pv_wc_read_cvlan(struct pv_cq_ex *cq)
{
	return cq->read_cvlan(cq);
}

/** Flow tag: not provided (creation refuses the flag); 0. */
static inline uint32_t
pv_wc_read_flow_tag(struct pv_cq_ex *cq)
{
	return cq->read_flow_tag(cq);
}

/** Tag matching info: not provided (creation refuses the flag); zeroed. */
static inline void
pv_wc_read_tm_info(struct pv_cq_ex *cq, struct pv_wc_tm_info *tm_info)
{
	cq->read_tm_info(cq, tm_info);
}

/* ---------------------------------------------------------------------- */
/* Memory: IOVA registration, re-registration, advice, device memory       */
/* ---------------------------------------------------------------------- */

/**
 * Register a memory region whose remote and local addresses start at
 * @p iova instead of @p addr (ibv_reg_mr_iova2(3)): a WR reaches byte
 * addr[i] through address iova + i, with lkey or rkey.
 * @param access  enum pv_access_flags, as pv_reg_mr().
 * @return The MR (mr->addr is @p addr); NULL with errno: every error of
 *         pv_reg_mr(); EOPNOTSUPP @p iova differs from @p addr on a driver
 *         without IOVA translation (the mlx5 device model).
 * Ownership and thread: as pv_reg_mr().
 */
PV_EXPORT struct pv_mr *pv_reg_mr_iova2(struct pv_pd *pd, void *addr, size_t length,
					uint64_t iova, unsigned int access);

/** pv_reg_mr_iova2() with int access flags (ibv_reg_mr_iova(3)). */
PV_EXPORT struct pv_mr *pv_reg_mr_iova(struct pv_pd *pd, void *addr, size_t length,
				       uint64_t iova, int access);

enum pv_rereg_mr_flags {
	PV_REREG_MR_CHANGE_TRANSLATION = (1 << 0),
	PV_REREG_MR_CHANGE_PD = (1 << 1),
	PV_REREG_MR_CHANGE_ACCESS = (1 << 2),
	PV_REREG_MR_FLAGS_SUPPORTED = ((PV_REREG_MR_CHANGE_ACCESS << 1) - 1),
};

enum pv_rereg_mr_err_code {
	PV_REREG_MR_ERR_INPUT = -1,		/**< old MR valid, bad input */
	PV_REREG_MR_ERR_DONT_FORK_NEW = -2,	/**< old MR valid, madvise failed */
	PV_REREG_MR_ERR_DO_FORK_OLD = -3,	/**< new MR valid, madvise failed */
	PV_REREG_MR_ERR_CMD = -4,		/**< the driver failed */
	PV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW = -5,
};

/**
 * Change an MR's translation, PD or access (ibv_rereg_mr(3)).
 * @param flags   enum pv_rereg_mr_flags.
 * @param pd      New PD (with PV_REREG_MR_CHANGE_PD).
 * @param addr, length  New range, bytes (with _CHANGE_TRANSLATION).
 * @param access  New access flags (with _CHANGE_ACCESS; must be 0 without).
 * @return 0, or an enum pv_rereg_mr_err_code with errno set:
 *         PV_REREG_MR_ERR_INPUT (EINVAL) NULL mr, unknown or no flags,
 *         NULL addr or 0 length with _CHANGE_TRANSLATION, access without
 *         _CHANGE_ACCESS, a bad access combination, a NULL pd or one of
 *         another context with _CHANGE_PD; PV_REREG_MR_ERR_CMD the driver
 *         failed (EOPNOTSUPP: no pollverbs driver re-registers yet; the MR
 *         is then unchanged and still usable, though the man page tells
 *         the caller not to rely on it). The DONT_FORK/DO_FORK codes are
 *         never returned (DPDK memory is not shared with a child).
 *         Even on failure, release @p mr with pv_dereg_mr().
 * Thread: any; no WR may use the MR meanwhile.
 */
PV_EXPORT int pv_rereg_mr(struct pv_mr *mr, int flags, struct pv_pd *pd, void *addr,
			  size_t length, int access);

/** Advice of pv_advise_mr() (ib_uverbs_advise_mr_advice). */
enum pv_advise_mr_advice {
	PV_ADVISE_MR_ADVICE_PREFETCH,
	PV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
	PV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
};

enum {
	PV_ADVISE_MR_FLAG_FLUSH = 1 << 0,
};

/**
 * Advise about ranges of on-demand-paging MRs (ibv_advise_mr(3)). No
 * pollverbs driver pages on demand (pv_query_device_ex(): odp_caps 0), so
 * there is no MR to advise about.
 * @param sg_list  @p num_sge ranges (lkey, address, bytes).
 * @return a positive errno: EINVAL NULL pd, unknown advice or flags, NULL
 *         sg_list or num_sge 0; EOPNOTSUPP otherwise (no ODP).
 */
PV_EXPORT int pv_advise_mr(struct pv_pd *pd, enum pv_advise_mr_advice advice, uint32_t flags,
			   struct pv_sge *sg_list, uint32_t num_sge);

/**
 * An MR with no memory behind it (ibv_alloc_null_mr(3)): writes through its
 * lkey are dropped, reads return garbage. Not provided by any pollverbs
 * driver.
 * @return NULL with errno: EINVAL NULL pd; EOPNOTSUPP.
 */
PV_EXPORT struct pv_mr *pv_alloc_null_mr(struct pv_pd *pd);

struct pv_alloc_dm_attr {
	size_t length;			/**< bytes */
	uint32_t log_align_req;
	uint32_t comp_mask;
};

enum pv_dm_mask {
	PV_DM_MASK_HANDLE = 1 << 0,
};

/** Device memory (ibv_dm); no pollverbs driver has any (max_dm_size 0). */
struct pv_dm {
	struct pv_context *context;
	int (*memcpy_to_dm)(struct pv_dm *dm, uint64_t dm_offset, const void *host_addr,
			    size_t length);
	int (*memcpy_from_dm)(void *host_addr, struct pv_dm *dm, uint64_t dm_offset,
			      size_t length);
	uint32_t comp_mask;
	uint32_t handle;
};

/**
 * Allocate device memory (ibv_alloc_dm(3)).
 * On mlx5 (a ConnectX) rdma-core's MEMIC; softroce and the mlx5 device
 * model have none (max_dm_size 0).
 * @return NULL with errno: EINVAL NULL argument, length 0 or unknown
 *         comp_mask; EOPNOTSUPP the device has no device memory; the
 *         driver's (ENOMEM above max_dm_size).
 */
PV_EXPORT struct pv_dm *pv_alloc_dm(struct pv_context *context, struct pv_alloc_dm_attr *attr);

/**
 * Free device memory (ibv_free_dm(3)).
 * @return 0, or a positive errno: EINVAL NULL @p dm; the driver's (EBUSY an
 *         MR uses it).
 */
PV_EXPORT int pv_free_dm(struct pv_dm *dm);

/** Copy host memory into device memory (ibv_memcpy_to_dm(3)); 0 or errno. */
static inline int
pv_memcpy_to_dm(struct pv_dm *dm, uint64_t dm_offset, const void *host_addr, size_t length)
{
	return dm->memcpy_to_dm(dm, dm_offset, host_addr, length);
}

/** Copy device memory to host memory (ibv_memcpy_from_dm(3)); 0 or errno. */
static inline int
pv_memcpy_from_dm(void *host_addr, struct pv_dm *dm, uint64_t dm_offset, size_t length)
{
	return dm->memcpy_from_dm(host_addr, dm, dm_offset, length);
}

/**
 * Register device memory as an MR (ibv_reg_dm_mr(3)); access must include
 * PV_ACCESS_ZERO_BASED.
 * @return NULL with errno: EINVAL NULL argument, length 0, no ZERO_BASED or
 *         objects of two contexts; EOPNOTSUPP no device memory; the driver's.
 */
PV_EXPORT struct pv_mr *pv_reg_dm_mr(struct pv_pd *pd, struct pv_dm *dm, uint64_t dm_offset,
				     size_t length, unsigned int access);

/* ---------------------------------------------------------------------- */
/* Misc                                                                    */
/* ---------------------------------------------------------------------- */

/**
 * The kernel index of a device (ibv_get_device_index(3)). pollverbs
 * devices are not kernel devices.
 * @return -1 (no kernel index), as libibverbs for a device without one.
 */
PV_EXPORT int pv_get_device_index(struct pv_device *device);

/** Enhanced connection establishment options (ibv_ece). */
struct pv_ece {
	uint32_t vendor_id;
	uint32_t options;
	uint32_t comp_mask;
};

/** Query a QP's ECE options (ibv_query_ece(3)); EINVAL NULL, else EOPNOTSUPP. */
PV_EXPORT int pv_query_ece(struct pv_qp *qp, struct pv_ece *ece);

/** Set a QP's ECE options (ibv_set_ece(3)); EINVAL NULL, else EOPNOTSUPP. */
PV_EXPORT int pv_set_ece(struct pv_qp *qp, struct pv_ece *ece);

/**
 * Import a context by its command fd (ibv_import_device(3)): pollverbs
 * contexts have no kernel command fd to share. @return NULL, errno EOPNOTSUPP.
 */
PV_EXPORT struct pv_context *pv_import_device(int cmd_fd);

/** ibv_import_pd(3): NULL, errno EOPNOTSUPP (EINVAL NULL context). */
PV_EXPORT struct pv_pd *pv_import_pd(struct pv_context *context, uint32_t pd_handle);

/** ibv_unimport_pd(3): nothing was imported, does nothing. */
PV_EXPORT void pv_unimport_pd(struct pv_pd *pd);

/** ibv_import_mr(3): NULL, errno EOPNOTSUPP (EINVAL NULL pd). */
PV_EXPORT struct pv_mr *pv_import_mr(struct pv_pd *pd, uint32_t mr_handle);

/** ibv_unimport_mr(3): nothing was imported, does nothing. */
PV_EXPORT void pv_unimport_mr(struct pv_mr *mr);

/** ibv_import_dm(3): NULL, errno EOPNOTSUPP (EINVAL NULL context). */
PV_EXPORT struct pv_dm *pv_import_dm(struct pv_context *context, uint32_t dm_handle);

/** ibv_unimport_dm(3): nothing was imported, does nothing. */
PV_EXPORT void pv_unimport_dm(struct pv_dm *dm);

/* ---------------------------------------------------------------------- */
/* Smaller verbs of verbs.h v44                                            */
/* ---------------------------------------------------------------------- */

/** Whether bit @p qpt is set in @p caps (ibv_is_qpt_supported(), verbs.h). */
static inline int
pv_is_qpt_supported(uint32_t caps, enum pv_qp_type qpt)
{
	return (caps >> qpt) & 1;
}

/**
 * The RoCEv2 UDP source port for a 20-bit flow label
 * (ibv_flow_label_to_udp_sport(), verbs.h): the label's top 6 bits folded
 * into its low 14, in 0xc000..0xffff (RFC 6438 style entropy).
 */
static inline uint16_t
pv_flow_label_to_udp_sport(uint32_t fl)
{
	uint32_t low = (fl & 0x03fff) ^ ((fl & 0xfc000) >> 14);

	return (uint16_t)(0xc000 | low);
}

/** Answers of pv_is_fork_initialized() (enum ibv_fork_status). */
enum pv_fork_status {
	PV_FORK_DISABLED,
	PV_FORK_ENABLED,
	PV_FORK_UNNEEDED,
};

/**
 * Whether fork() is safe (ibv_is_fork_initialized(3)): pollverbs memory is
 * DPDK's and pins nothing a child could break, so always PV_FORK_UNNEEDED.
 */
PV_EXPORT enum pv_fork_status pv_is_fork_initialized(void);

/**
 * The index of P_Key @p pkey (network order) in port @p port_num's table
 * (ibv_get_pkey_index(3)).
 * @return the index (>= 0), or -1 with errno: EINVAL NULL context or bad
 *         port, ENOENT not in the table.
 */
PV_EXPORT int pv_get_pkey_index(struct pv_context *context, uint8_t port_num, pv_be16 pkey);

enum pv_cq_attr_mask {
	PV_CQ_ATTR_MODERATE = 1 << 0,
	PV_CQ_ATTR_RESERVED = 1 << 1,
};

struct pv_moderate_cq {
	uint16_t cq_count;
	uint16_t cq_period;	/**< microseconds */
};

/** Argument of pv_modify_cq() (ibv_modify_cq_attr). */
struct pv_modify_cq_attr {
	uint32_t attr_mask;	/**< enum pv_cq_attr_mask */
	struct pv_moderate_cq moderate;
};

/**
 * Change a CQ's moderation (ibv_modify_cq(3)). Not implemented: completion
 * events are raised per armed completion.
 * @return EINVAL NULL argument or unknown attr_mask bits; EOPNOTSUPP.
 */
PV_EXPORT int pv_modify_cq(struct pv_cq *cq, struct pv_modify_cq_attr *attr);

enum pv_qp_open_attr_mask {
	PV_QP_OPEN_ATTR_NUM = 1 << 0,
	PV_QP_OPEN_ATTR_XRCD = 1 << 1,
	PV_QP_OPEN_ATTR_CONTEXT = 1 << 2,
	PV_QP_OPEN_ATTR_TYPE = 1 << 3,
	PV_QP_OPEN_ATTR_RESERVED = 1 << 4,
};

/** Argument of pv_open_qp() (ibv_qp_open_attr). */
struct pv_qp_open_attr {
	uint32_t comp_mask;
	uint32_t qp_num;
	struct pv_xrcd *xrcd;
	void *qp_context;
	enum pv_qp_type qp_type;
};

/**
 * Open a shareable XRC TGT QP of another process (ibv_open_qp(3)). Not
 * implemented: XRC domains are not shared between processes.
 * @return NULL with errno: EINVAL NULL argument or missing NUM/XRCD/TYPE;
 *         EOPNOTSUPP.
 */
PV_EXPORT struct pv_qp *pv_open_qp(struct pv_context *context,
				   struct pv_qp_open_attr *qp_open_attr);

/** Argument of pv_modify_qp_rate_limit() (ibv_qp_rate_limit_attr). */
struct pv_qp_rate_limit_attr {
	uint32_t rate_limit;	/**< kbps */
	uint32_t max_burst_sz;	/**< bytes */
	uint16_t typical_pkt_sz;/**< bytes */
	uint32_t comp_mask;
};

/**
 * Packet pacing of a QP (ibv_modify_qp_rate_limit(3)). Not implemented
 * (packet_pacing_caps are 0). @return EINVAL NULL argument; EOPNOTSUPP.
 */
PV_EXPORT int pv_modify_qp_rate_limit(struct pv_qp *qp, struct pv_qp_rate_limit_attr *attr);

enum pv_values_mask {
	PV_VALUES_MASK_RAW_CLOCK = 1 << 0,
	PV_VALUES_MASK_RESERVED = 1 << 1,
};

/** Argument of pv_query_rt_values_ex() (ibv_values_ex). */
struct pv_values_ex {
	uint32_t comp_mask;
	struct timespec raw_clock;
};

/**
 * Read the device's clock (ibv_query_rt_values_ex(3)). Not implemented (no
 * device clock, hca_core_clock 0). @return EINVAL NULL argument; EOPNOTSUPP.
 */
PV_EXPORT int pv_query_rt_values_ex(struct pv_context *context, struct pv_values_ex *values);

/**
 * The Ethernet L2 address of an AV's GID (ibv_resolve_eth_l2_from_gid(),
 * a kernel command in libibverbs). Not implemented: softroce resolves
 * addresses itself, without blocking (doc/guides/drivers/softroce.rst).
 * @return EINVAL NULL argument; EOPNOTSUPP.
 */
PV_EXPORT int pv_resolve_eth_l2_from_gid(struct pv_context *context, struct pv_ah_attr *attr,
					 uint8_t eth_mac[6], uint16_t *vid);

/**
 * Register a dma-buf (ibv_reg_dmabuf_mr(3)). Not implemented: no device
 * here maps dma-bufs. @return NULL, errno EINVAL NULL pd, else EOPNOTSUPP.
 */
PV_EXPORT struct pv_mr *pv_reg_dmabuf_mr(struct pv_pd *pd, uint64_t offset, size_t length,
					 uint64_t iova, int fd, int access);

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_VERBS_PV_VERBS_EX_H */
