/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * pollverbs verbs API: libibverbs' API mirrored one to one with the pv_ prefix.
 *
 * Every pv_X below has the contract of ibv_X in rdma-core's man page ibv_X(3):
 * same arguments, fields, enum values, errors and semantics. Where pollverbs
 * adds (pv_progress, lcore ownership), it adds beside the verbs form.
 *
 * Thread rules (ARCHITECTURE.md decision 4; ibv_alloc_td(3)): by default
 * (PV_PROGRESS_THREAD_SAFE) every verb may be called from any thread on any
 * object, as libibverbs promises, and the device makes protocol progress
 * (ARP, ACK/NAK, incoming RDMA, retransmission, completion events) in the
 * background while application threads sleep or block. An application that
 * drives a device from one thread (a pinned lcore, run to completion)
 * declares it with pv_set_progress_mode(PV_PROGRESS_APP), the devarg
 * progress=app or the environment variable PV_SINGLE_THREADED=1: the data
 * path then takes no lock and progress happens only inside that thread's
 * pv_poll_cq() / pv_progress() / post calls. Threads that are not EAL lcores
 * may call verbs in both modes (lib/rtc/pv_rtc.h, "Threads").
 */

#ifndef PV_LIB_VERBS_PV_VERBS_H
#define PV_LIB_VERBS_PV_VERBS_H

/* the system headers of rdma-core's infiniband/verbs.h (v44), so that a
 * libibverbs program that relies on them compiles once renamed */
#include <stdint.h>
#include <pthread.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>
#include <linux/types.h>
#include <sys/types.h>
#include <stdio.h>
#include <netinet/in.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PV_EXPORT
#define PV_EXPORT __attribute__((visibility("default")))
#endif

/** Big-endian integers: <linux/types.h>' __be16/32/64, as verbs.h uses them. */
typedef __be16 pv_be16;
typedef __be32 pv_be32;
typedef __be64 pv_be64;

/* ---------------------------------------------------------------------- */
/* Enumerations (values identical to infiniband/verbs.h)                   */
/* ---------------------------------------------------------------------- */

enum pv_node_type {
	PV_NODE_UNKNOWN = -1,
	PV_NODE_CA = 1,
	PV_NODE_SWITCH,
	PV_NODE_ROUTER,
	PV_NODE_RNIC,
	PV_NODE_USNIC,
	PV_NODE_USNIC_UDP,
	PV_NODE_UNSPECIFIED,
};

enum pv_transport_type {
	PV_TRANSPORT_UNKNOWN = -1,
	PV_TRANSPORT_IB = 0,
	PV_TRANSPORT_IWARP,
	PV_TRANSPORT_USNIC,
	PV_TRANSPORT_USNIC_UDP,
	PV_TRANSPORT_UNSPECIFIED,
};

enum pv_device_cap_flags {
	PV_DEVICE_RESIZE_MAX_WR = 1,
	PV_DEVICE_BAD_PKEY_CNTR = 1 << 1,
	PV_DEVICE_BAD_QKEY_CNTR = 1 << 2,
	PV_DEVICE_RAW_MULTI = 1 << 3,
	PV_DEVICE_AUTO_PATH_MIG = 1 << 4,
	PV_DEVICE_CHANGE_PHY_PORT = 1 << 5,
	PV_DEVICE_UD_AV_PORT_ENFORCE = 1 << 6,
	PV_DEVICE_CURR_QP_STATE_MOD = 1 << 7,
	PV_DEVICE_SHUTDOWN_PORT = 1 << 8,
	PV_DEVICE_INIT_TYPE = 1 << 9,
	PV_DEVICE_PORT_ACTIVE_EVENT = 1 << 10,
	PV_DEVICE_SYS_IMAGE_GUID = 1 << 11,
	PV_DEVICE_RC_RNR_NAK_GEN = 1 << 12,
	PV_DEVICE_SRQ_RESIZE = 1 << 13,
	PV_DEVICE_N_NOTIFY_CQ = 1 << 14,
	PV_DEVICE_MEM_WINDOW = 1 << 17,
	PV_DEVICE_UD_IP_CSUM = 1 << 18,
	PV_DEVICE_XRC = 1 << 20,
	PV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21,
	PV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23,
	PV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24,
	PV_DEVICE_RC_IP_CSUM = 1 << 25,
	PV_DEVICE_RAW_IP_CSUM = 1 << 26,
	PV_DEVICE_MANAGED_FLOW_STEERING = 1 << 29,
};

enum pv_atomic_cap {
	PV_ATOMIC_NONE,
	PV_ATOMIC_HCA,
	PV_ATOMIC_GLOB,
};

/** On-demand paging capabilities (values as ibv_odp_general_caps). */
enum pv_odp_general_caps {
	PV_ODP_SUPPORT = 1 << 0,
	PV_ODP_SUPPORT_IMPLICIT = 1 << 1,
};

enum pv_port_state {
	PV_PORT_NOP = 0,
	PV_PORT_DOWN = 1,
	PV_PORT_INIT = 2,
	PV_PORT_ARMED = 3,
	PV_PORT_ACTIVE = 4,
	PV_PORT_ACTIVE_DEFER = 5,
};

enum pv_mtu {
	PV_MTU_256 = 1,
	PV_MTU_512 = 2,
	PV_MTU_1024 = 3,
	PV_MTU_2048 = 4,
	PV_MTU_4096 = 5,
};

/** Bytes in a path MTU enum value; 0 for an invalid value. */
static inline int
pv_mtu_to_bytes(enum pv_mtu mtu)
{
	return (mtu >= PV_MTU_256 && mtu <= PV_MTU_4096) ? 128 << mtu : 0;
}

enum {
	PV_LINK_LAYER_UNSPECIFIED,
	PV_LINK_LAYER_INFINIBAND,
	PV_LINK_LAYER_ETHERNET,
};

enum pv_port_cap_flags {
	PV_PORT_SM = 1 << 1,
	PV_PORT_NOTICE_SUP = 1 << 2,
	PV_PORT_TRAP_SUP = 1 << 3,
	PV_PORT_OPT_IPD_SUP = 1 << 4,
	PV_PORT_AUTO_MIGR_SUP = 1 << 5,
	PV_PORT_SL_MAP_SUP = 1 << 6,
	PV_PORT_MKEY_NVRAM = 1 << 7,
	PV_PORT_PKEY_NVRAM = 1 << 8,
	PV_PORT_LED_INFO_SUP = 1 << 9,
	PV_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
	PV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
	PV_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
	PV_PORT_CAP_MASK2_SUP = 1 << 15,
	PV_PORT_CM_SUP = 1 << 16,
	PV_PORT_SNMP_TUNNEL_SUP = 1 << 17,
	PV_PORT_REINIT_SUP = 1 << 18,
	PV_PORT_DEVICE_MGMT_SUP = 1 << 19,
	PV_PORT_VENDOR_CLASS_SUP = 1 << 20,
	PV_PORT_DR_NOTICE_SUP = 1 << 21,
	PV_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
	PV_PORT_BOOT_MGMT_SUP = 1 << 23,
	PV_PORT_LINK_LATENCY_SUP = 1 << 24,
	PV_PORT_CLIENT_REG_SUP = 1 << 25,
	PV_PORT_IP_BASED_GIDS = 1 << 26,
};

enum pv_event_type {
	PV_EVENT_CQ_ERR,
	PV_EVENT_QP_FATAL,
	PV_EVENT_QP_REQ_ERR,
	PV_EVENT_QP_ACCESS_ERR,
	PV_EVENT_COMM_EST,
	PV_EVENT_SQ_DRAINED,
	PV_EVENT_PATH_MIG,
	PV_EVENT_PATH_MIG_ERR,
	PV_EVENT_DEVICE_FATAL,
	PV_EVENT_PORT_ACTIVE,
	PV_EVENT_PORT_ERR,
	PV_EVENT_LID_CHANGE,
	PV_EVENT_PKEY_CHANGE,
	PV_EVENT_SM_CHANGE,
	PV_EVENT_SRQ_ERR,
	PV_EVENT_SRQ_LIMIT_REACHED,
	PV_EVENT_QP_LAST_WQE_REACHED,
	PV_EVENT_CLIENT_REREGISTER,
	PV_EVENT_GID_CHANGE,
	PV_EVENT_WQ_FATAL,
};

enum pv_wc_status {
	PV_WC_SUCCESS,
	PV_WC_LOC_LEN_ERR,
	PV_WC_LOC_QP_OP_ERR,
	PV_WC_LOC_EEC_OP_ERR,
	PV_WC_LOC_PROT_ERR,
	PV_WC_WR_FLUSH_ERR,
	PV_WC_MW_BIND_ERR,
	PV_WC_BAD_RESP_ERR,
	PV_WC_LOC_ACCESS_ERR,
	PV_WC_REM_INV_REQ_ERR,
	PV_WC_REM_ACCESS_ERR,
	PV_WC_REM_OP_ERR,
	PV_WC_RETRY_EXC_ERR,
	PV_WC_RNR_RETRY_EXC_ERR,
	PV_WC_LOC_RDD_VIOL_ERR,
	PV_WC_REM_INV_RD_REQ_ERR,
	PV_WC_REM_ABORT_ERR,
	PV_WC_INV_EECN_ERR,
	PV_WC_INV_EEC_STATE_ERR,
	PV_WC_FATAL_ERR,
	PV_WC_RESP_TIMEOUT_ERR,
	PV_WC_GENERAL_ERR,
	PV_WC_TM_ERR,
	PV_WC_TM_RNDV_INCOMPLETE,
};

enum pv_wc_opcode {
	PV_WC_SEND,
	PV_WC_RDMA_WRITE,
	PV_WC_RDMA_READ,
	PV_WC_COMP_SWAP,
	PV_WC_FETCH_ADD,
	PV_WC_BIND_MW,
	PV_WC_LOCAL_INV,
	PV_WC_TSO,
	PV_WC_ATOMIC_WRITE = 9,
	/* receive completions have this bit set: (opcode & PV_WC_RECV) */
	PV_WC_RECV = 1 << 7,
	PV_WC_RECV_RDMA_WITH_IMM,
};

enum {
	PV_WC_IP_CSUM_OK_SHIFT = 2,
};

enum pv_wc_flags {
	PV_WC_GRH = 1 << 0,
	PV_WC_WITH_IMM = 1 << 1,
	PV_WC_IP_CSUM_OK = 1 << PV_WC_IP_CSUM_OK_SHIFT,
	PV_WC_WITH_INV = 1 << 3,
	PV_WC_TM_SYNC_REQ = 1 << 4,
	PV_WC_TM_MATCH = 1 << 5,
	PV_WC_TM_DATA_VALID = 1 << 6,
};

enum pv_access_flags {
	PV_ACCESS_LOCAL_WRITE = 1,
	PV_ACCESS_REMOTE_WRITE = 1 << 1,
	PV_ACCESS_REMOTE_READ = 1 << 2,
	PV_ACCESS_REMOTE_ATOMIC = 1 << 3,
	PV_ACCESS_MW_BIND = 1 << 4,
	PV_ACCESS_ZERO_BASED = 1 << 5,
	PV_ACCESS_ON_DEMAND = 1 << 6,
	PV_ACCESS_HUGETLB = 1 << 7,
	PV_ACCESS_RELAXED_ORDERING = 1 << 20,
};

enum pv_qp_type {
	PV_QPT_RC = 2,
	PV_QPT_UC,
	PV_QPT_UD,
	PV_QPT_RAW_PACKET = 8,
	PV_QPT_XRC_SEND = 9,
	PV_QPT_XRC_RECV,
	PV_QPT_DRIVER = 0xff,
};

enum pv_qp_attr_mask {
	PV_QP_STATE = 1 << 0,
	PV_QP_CUR_STATE = 1 << 1,
	PV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	PV_QP_ACCESS_FLAGS = 1 << 3,
	PV_QP_PKEY_INDEX = 1 << 4,
	PV_QP_PORT = 1 << 5,
	PV_QP_QKEY = 1 << 6,
	PV_QP_AV = 1 << 7,
	PV_QP_PATH_MTU = 1 << 8,
	PV_QP_TIMEOUT = 1 << 9,
	PV_QP_RETRY_CNT = 1 << 10,
	PV_QP_RNR_RETRY = 1 << 11,
	PV_QP_RQ_PSN = 1 << 12,
	PV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	PV_QP_ALT_PATH = 1 << 14,
	PV_QP_MIN_RNR_TIMER = 1 << 15,
	PV_QP_SQ_PSN = 1 << 16,
	PV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	PV_QP_PATH_MIG_STATE = 1 << 18,
	PV_QP_CAP = 1 << 19,
	PV_QP_DEST_QPN = 1 << 20,
	PV_QP_RATE_LIMIT = 1 << 25,
};

enum pv_qp_state {
	PV_QPS_RESET,
	PV_QPS_INIT,
	PV_QPS_RTR,
	PV_QPS_RTS,
	PV_QPS_SQD,
	PV_QPS_SQE,
	PV_QPS_ERR,
	PV_QPS_UNKNOWN,
};

enum pv_mig_state {
	PV_MIG_MIGRATED,
	PV_MIG_REARM,
	PV_MIG_ARMED,
};

enum pv_wr_opcode {
	PV_WR_RDMA_WRITE,
	PV_WR_RDMA_WRITE_WITH_IMM,
	PV_WR_SEND,
	PV_WR_SEND_WITH_IMM,
	PV_WR_RDMA_READ,
	PV_WR_ATOMIC_CMP_AND_SWP,
	PV_WR_ATOMIC_FETCH_AND_ADD,
	PV_WR_LOCAL_INV,
	PV_WR_BIND_MW,
	PV_WR_SEND_WITH_INV,
	PV_WR_TSO,
	PV_WR_DRIVER1,
	PV_WR_ATOMIC_WRITE = 15,
};

enum pv_send_flags {
	PV_SEND_FENCE = 1 << 0,
	PV_SEND_SIGNALED = 1 << 1,
	PV_SEND_SOLICITED = 1 << 2,
	PV_SEND_INLINE = 1 << 3,
	PV_SEND_IP_CSUM = 1 << 4,
};

enum pv_srq_attr_mask {
	PV_SRQ_MAX_WR = 1 << 0,
	PV_SRQ_LIMIT = 1 << 1,
};

enum pv_rate {
	PV_RATE_MAX = 0,
	PV_RATE_2_5_GBPS = 2,
	PV_RATE_5_GBPS = 5,
	PV_RATE_10_GBPS = 3,
	PV_RATE_20_GBPS = 6,
	PV_RATE_30_GBPS = 4,
	PV_RATE_40_GBPS = 7,
	PV_RATE_60_GBPS = 8,
	PV_RATE_80_GBPS = 9,
	PV_RATE_120_GBPS = 10,
	PV_RATE_14_GBPS = 11,
	PV_RATE_56_GBPS = 12,
	PV_RATE_112_GBPS = 13,
	PV_RATE_168_GBPS = 14,
	PV_RATE_25_GBPS = 15,
	PV_RATE_100_GBPS = 16,
	PV_RATE_200_GBPS = 17,
	PV_RATE_300_GBPS = 18,
	PV_RATE_28_GBPS = 19,
	PV_RATE_50_GBPS = 20,
	PV_RATE_400_GBPS = 21,
	PV_RATE_600_GBPS = 22,
	PV_RATE_800_GBPS = 23,
	PV_RATE_1200_GBPS = 24,
};

/* ---------------------------------------------------------------------- */
/* Structures (fields identical to infiniband/verbs.h)                     */
/* ---------------------------------------------------------------------- */

union pv_gid {
	uint8_t raw[16];
	struct {
		pv_be64 subnet_prefix;
		pv_be64 interface_id;
	} global;
};

#define PV_SYSFS_NAME_MAX 64
#define PV_SYSFS_PATH_MAX 256

struct pv_driver;

/** A device found by pv_get_device_list(); owned by lib/verbs. */
struct pv_device {
	enum pv_node_type node_type;
	enum pv_transport_type transport_type;
	char name[PV_SYSFS_NAME_MAX];		/**< e.g. "sroce0", "mlx5_0" */
	char dev_name[PV_SYSFS_NAME_MAX];
	char dev_path[PV_SYSFS_PATH_MAX];
	char ibdev_path[PV_SYSFS_PATH_MAX];
	pv_be64 node_guid;			/**< network byte order */
	const struct pv_driver *driver;		/**< driver that probed it */
	void *driver_data;			/**< driver's per-device state */
};

struct pv_context {
	struct pv_device *device;
	uint32_t usecnt;	/**< pollverbs addition: PDs, CQs, channels open on it */
	int cmd_fd;		/**< -1: no kernel command channel */
	int async_fd;		/**< eventfd readable when an async event is queued */
	int num_comp_vectors;
	pthread_mutex_t mutex;	/**< guards the control path of this context */
	/** pollverbs addition: lib/verbs' own state (async event queue, handle
	 *  counter, cached device attributes); set by pv_open_device(). Opaque:
	 *  drivers and applications leave it alone. */
	struct pv_context_priv *priv;
};

struct pv_device_attr {
	char fw_ver[64];
	pv_be64 node_guid;
	pv_be64 sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	unsigned int device_cap_flags;
	int max_sge;
	int max_sge_rd;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_ee_rd_atom;
	int max_res_rd_atom;
	int max_qp_init_rd_atom;
	int max_ee_init_rd_atom;
	enum pv_atomic_cap atomic_cap;
	int max_ee;
	int max_rdd;
	int max_mw;
	int max_raw_ipv6_qp;
	int max_raw_ethy_qp;
	int max_mcast_grp;
	int max_mcast_qp_attach;
	int max_total_mcast_qp_attach;
	int max_ah;
	int max_fmr;
	int max_map_per_fmr;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
	/** pollverbs addition: largest inline payload a send WR may carry, bytes. */
	uint32_t max_inline_data;
	/** pollverbs addition: pv_odp_general_caps (ibv_device_attr_ex's
	 *  odp_caps.general_caps); PV_ODP_SUPPORT allows PV_ACCESS_ON_DEMAND. */
	uint32_t odp_general_caps;
};

struct pv_port_attr {
	enum pv_port_state state;
	enum pv_mtu max_mtu;
	enum pv_mtu active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;
	uint8_t active_speed;
	uint8_t phys_state;
	uint8_t link_layer;
	uint8_t flags;
	uint16_t port_cap_flags2;
};

struct pv_pd {
	struct pv_context *context;
	uint32_t handle;
	uint32_t usecnt;	/**< pollverbs addition: MRs, AHs, QPs, SRQs using it */
	/**
	 * pollverbs addition: for a parent domain (pv_alloc_parent_domain()),
	 * the PD it extends and its thread domain (may be NULL); both NULL for
	 * a PD of pv_alloc_pd().
	 */
	struct pv_pd *pd_base;
	struct pv_td *td;
};

/** Attributes of pv_alloc_td() (ibv_td_init_attr). */
struct pv_td_init_attr {
	uint32_t comp_mask;	/**< no field defined: must be 0 */
};

/** A thread domain (ibv_td): objects in it are used by one thread at a time. */
struct pv_td {
	struct pv_context *context;
	uint32_t usecnt;	/**< pollverbs addition: parent domains using it */
};

enum pv_parent_domain_init_attr_mask {
	PV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS = 1 << 0,
	PV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT = 1 << 1,
};

/** What a custom allocator returns to ask for the provider's own memory. */
#define PV_ALLOCATOR_USE_DEFAULT ((void *)-1)

/** Attributes of pv_alloc_parent_domain() (ibv_parent_domain_init_attr). */
struct pv_parent_domain_init_attr {
	struct pv_pd *pd;	/**< the PD to extend (not itself a parent domain) */
	struct pv_td *td;	/**< a thread domain of the same context, or NULL */
	uint32_t comp_mask;	/**< enum pv_parent_domain_init_attr_mask */
	void *(*alloc)(struct pv_pd *pd, void *pd_context, size_t size, size_t alignment,
		       uint64_t resource_type);
	void (*free)(struct pv_pd *pd, void *pd_context, void *ptr, uint64_t resource_type);
	void *pd_context;
};

struct pv_mr {
	struct pv_context *context;
	struct pv_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	/** pollverbs addition: the access flags it was registered with. */
	unsigned int access;
};

/** Memory window types (ibv_alloc_mw(3)). */
enum pv_mw_type {
	PV_MW_TYPE_1 = 1,	/**< bound with pv_bind_mw(), to the PD */
	PV_MW_TYPE_2 = 2,	/**< bound with a PV_WR_BIND_MW work request, to a QP (2B) */
};

/** A memory window (ibv_mw). */
struct pv_mw {
	struct pv_context *context;
	struct pv_pd *pd;
	uint32_t rkey;		/**< type 1: updated by pv_bind_mw() */
	uint32_t handle;
	enum pv_mw_type type;
};

/** What a bind associates with a window (ibv_mw_bind_info). */
struct pv_mw_bind_info {
	struct pv_mr *mr;		/**< NULL (with addr 0, length 0): unbind (type 1) */
	uint64_t addr;			/**< window start in the MR's address space */
	uint64_t length;		/**< bytes */
	unsigned int mw_access_flags;	/**< REMOTE_READ/WRITE/ATOMIC, ZERO_BASED */
};

/** Argument of pv_bind_mw() (ibv_mw_bind). */
struct pv_mw_bind {
	uint64_t wr_id;
	unsigned int send_flags;	/**< PV_SEND_SIGNALED, PV_SEND_FENCE */
	struct pv_mw_bind_info bind_info;
};

/** An XRC domain (ibv_xrcd). */
struct pv_xrcd {
	struct pv_context *context;
	uint32_t usecnt;	/**< pollverbs addition: XRC SRQs and TGT QPs in it */
};

enum pv_xrcd_init_attr_mask {
	PV_XRCD_INIT_ATTR_FD = 1 << 0,
	PV_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
	PV_XRCD_INIT_ATTR_RESERVED = 1 << 2,
};

/** Attributes of pv_open_xrcd() (ibv_xrcd_init_attr). */
struct pv_xrcd_init_attr {
	uint32_t comp_mask;	/**< enum pv_xrcd_init_attr_mask; FD and OFLAGS required */
	int fd;			/**< -1: a domain of this process; else a file naming a shared one */
	int oflags;		/**< O_CREAT, O_EXCL (with a file) */
};

struct pv_global_route {
	union pv_gid dgid;
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

struct pv_grh {
	pv_be32 version_tclass_flow;
	pv_be16 paylen;
	uint8_t next_hdr;
	uint8_t hop_limit;
	union pv_gid sgid;
	union pv_gid dgid;
};

struct pv_ah_attr {
	struct pv_global_route grh;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

struct pv_ah {
	struct pv_context *context;
	struct pv_pd *pd;
	uint32_t handle;
	/** pollverbs addition: the attributes it was created with. */
	struct pv_ah_attr attr;
};

struct pv_comp_channel {
	struct pv_context *context;
	int fd;			/**< eventfd, readable when a CQ event is pending */
	int refcnt;		/**< CQs using this channel */
};

struct pv_wc;
struct pv_send_wr;
struct pv_recv_wr;
struct pv_cq;
struct pv_qp;
struct pv_srq;

/** Data-path entry points; set by the driver at object creation. */
typedef int (*pv_poll_cq_fn)(struct pv_cq *cq, int num_entries, struct pv_wc *wc);
typedef int (*pv_req_notify_cq_fn)(struct pv_cq *cq, int solicited_only);
typedef int (*pv_post_send_fn)(struct pv_qp *qp, struct pv_send_wr *wr,
			       struct pv_send_wr **bad_wr);
typedef int (*pv_post_recv_fn)(struct pv_qp *qp, struct pv_recv_wr *wr,
			       struct pv_recv_wr **bad_wr);
typedef int (*pv_post_srq_recv_fn)(struct pv_srq *srq, struct pv_recv_wr *wr,
				   struct pv_recv_wr **bad_wr);

struct pv_cq {
	/* hot: the data path reads these first */
	pv_poll_cq_fn fp_poll_cq;
	pv_req_notify_cq_fn fp_req_notify_cq;
	struct pv_context *context;
	struct pv_comp_channel *channel;
	void *cq_context;
	uint32_t handle;
	uint32_t usecnt;	/**< pollverbs addition: QPs using it */
	int cqe;		/**< usable entries, >= the number requested */
	unsigned int lcore_id;	/**< owner thread (rte_lcore_id() at creation) */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t comp_events_completed;
	uint32_t async_events_completed;
	uint32_t armed;		/**< set by req_notify, cleared when the event fires */
	uint32_t events_pending;/**< events raised, not yet read by get_cq_event */
};

struct pv_srq {
	pv_post_srq_recv_fn fp_post_srq_recv;
	struct pv_context *context;
	void *srq_context;
	struct pv_pd *pd;
	uint32_t handle;
	uint32_t usecnt;	/**< pollverbs addition: QPs using it */
	unsigned int lcore_id;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	/** pollverbs addition: the XRC domain and CQ of an XRC SRQ, else NULL. */
	struct pv_xrcd *xrcd;
	struct pv_cq *cq;
};

struct pv_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct pv_qp {
	pv_post_send_fn fp_post_send;
	pv_post_recv_fn fp_post_recv;
	struct pv_context *context;
	void *qp_context;
	struct pv_pd *pd;
	struct pv_cq *send_cq;
	struct pv_cq *recv_cq;
	struct pv_srq *srq;
	uint32_t handle;
	uint32_t qp_num;
	enum pv_qp_state state;
	enum pv_qp_type qp_type;
	unsigned int lcore_id;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
	/** pollverbs addition: capabilities granted at creation. */
	struct pv_qp_cap cap;
	int sq_sig_all;
	/** pollverbs addition: the XRC domain of an XRC TGT QP, else NULL. */
	struct pv_xrcd *xrcd;
};

struct pv_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct pv_send_wr {
	uint64_t wr_id;
	struct pv_send_wr *next;
	struct pv_sge *sg_list;
	int num_sge;
	enum pv_wr_opcode opcode;
	unsigned int send_flags;
	union {
		pv_be32 imm_data;	/**< network byte order */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct pv_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		struct {
			uint32_t remote_srqn;
		} xrc;
	} qp_type;
	union {
		/** PV_WR_BIND_MW (type 2 windows) */
		struct {
			struct pv_mw *mw;
			uint32_t rkey;	/**< the window's new rkey: pv_inc_rkey(mw->rkey) */
			struct pv_mw_bind_info bind_info;
		} bind_mw;
		/** PV_WR_TSO (raw packet QPs; not implemented) */
		struct {
			void *hdr;
			uint16_t hdr_sz;
			uint16_t mss;
		} tso;
	};
};

struct pv_recv_wr {
	uint64_t wr_id;
	struct pv_recv_wr *next;
	struct pv_sge *sg_list;
	int num_sge;
};

struct pv_wc {
	uint64_t wr_id;
	enum pv_wc_status status;
	enum pv_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		pv_be32 imm_data;	/**< network byte order */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

struct pv_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct pv_srq_init_attr {
	void *srq_context;
	struct pv_srq_attr attr;
};

enum pv_srq_type {
	PV_SRQT_BASIC,
	PV_SRQT_XRC,
	PV_SRQT_TM,
};

enum pv_srq_init_attr_mask {
	PV_SRQ_INIT_ATTR_TYPE = 1 << 0,
	PV_SRQ_INIT_ATTR_PD = 1 << 1,
	PV_SRQ_INIT_ATTR_XRCD = 1 << 2,
	PV_SRQ_INIT_ATTR_CQ = 1 << 3,
	PV_SRQ_INIT_ATTR_TM = 1 << 4,
	PV_SRQ_INIT_ATTR_RESERVED = 1 << 5,
};

struct pv_tm_cap {
	uint32_t max_num_tags;
	uint32_t max_ops;
};

/** Attributes of pv_create_srq_ex() (ibv_srq_init_attr_ex). */
struct pv_srq_init_attr_ex {
	void *srq_context;
	struct pv_srq_attr attr;
	uint32_t comp_mask;		/**< enum pv_srq_init_attr_mask */
	enum pv_srq_type srq_type;
	struct pv_pd *pd;
	struct pv_xrcd *xrcd;
	struct pv_cq *cq;		/**< XRC: where the TGT QPs' receive completions go */
	struct pv_tm_cap tm_cap;
};

struct pv_qp_init_attr {
	void *qp_context;
	struct pv_cq *send_cq;
	struct pv_cq *recv_cq;
	struct pv_srq *srq;
	struct pv_qp_cap cap;
	enum pv_qp_type qp_type;
	int sq_sig_all;
};

struct pv_qp_attr {
	enum pv_qp_state qp_state;
	enum pv_qp_state cur_qp_state;
	enum pv_mtu path_mtu;
	enum pv_mig_state path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct pv_qp_cap cap;
	struct pv_ah_attr ah_attr;
	struct pv_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
	uint32_t rate_limit;
};

struct pv_async_event {
	union {
		struct pv_cq *cq;
		struct pv_qp *qp;
		struct pv_srq *srq;
		int port_num;
	} element;
	enum pv_event_type event_type;
};

/* ---------------------------------------------------------------------- */
/* Device and context                                                      */
/* ---------------------------------------------------------------------- */

/**
 * Get the NULL-terminated list of RDMA devices (ibv_get_device_list(3)).
 *
 * Probes every registered driver the first time it is called after pv_init().
 * @param num_devices  If not NULL, set to the number of devices returned.
 * Every registered driver is probed, with the --pv-dev=DRIVER:ARGS strings
 * that name it, or with none (it may then find hardware by itself).
 * @return The list, to be released with pv_free_device_list(); NULL with errno
 *         set on failure: ENOMEM out of memory, ENOSYS pv_init() was not
 *         called. A machine with no device gets an empty list (not NULL).
 * Thread: any; not concurrently with pv_free_device_list() on the same list.
 */
PV_EXPORT struct pv_device **pv_get_device_list(int *num_devices);

/** Release a list from pv_get_device_list(); devices stay valid while open. */
PV_EXPORT void pv_free_device_list(struct pv_device **list);

/** Device name, e.g. "sroce0" (ibv_get_device_name(3)); NULL if @p device is NULL. */
PV_EXPORT const char *pv_get_device_name(struct pv_device *device);

/** Node GUID in network byte order (ibv_get_device_guid(3)); 0 if @p device is NULL. */
PV_EXPORT pv_be64 pv_get_device_guid(struct pv_device *device);

/**
 * Open a device context (ibv_open_device(3)).
 * @return The context; NULL with errno: EINVAL NULL device, ENOMEM, or the
 *         driver's errno (ENODEV when the device has gone).
 * Thread: any (control path).
 */
PV_EXPORT struct pv_context *pv_open_device(struct pv_device *device);

/**
 * Close a context (ibv_close_device(3)).
 * @return 0, or a positive errno: EINVAL NULL context; EBUSY objects remain.
 */
PV_EXPORT int pv_close_device(struct pv_context *context);

/**
 * Query device attributes (ibv_query_device(3)).
 * @return 0, or a positive errno: EINVAL NULL argument, or the driver's errno.
 */
PV_EXPORT int pv_query_device(struct pv_context *context, struct pv_device_attr *device_attr);

/**
 * Query port attributes (ibv_query_port(3)); ports are numbered from 1.
 * @p port_attr is zeroed before the driver fills it.
 * @return 0, or a positive errno, which is also stored in errno (as
 *         libibverbs' command path does): EINVAL NULL argument or port_num
 *         not in 1..phys_port_cnt; the driver's errno.
 * Thread: any (control path).
 */
PV_EXPORT int pv_query_port(struct pv_context *context, uint8_t port_num,
			    struct pv_port_attr *port_attr);

/**
 * Read a GID table entry (ibv_query_gid(3)).
 * @return 0, or -1 with errno: EINVAL bad port or index (index >= gid_tbl_len).
 */
PV_EXPORT int pv_query_gid(struct pv_context *context, uint8_t port_num, int index,
			   union pv_gid *gid);

/**
 * Read a P_Key table entry in network byte order (ibv_query_pkey(3)).
 * @return 0, or -1 with errno: EINVAL bad port or index.
 */
PV_EXPORT int pv_query_pkey(struct pv_context *context, uint8_t port_num, int index,
			    pv_be16 *pkey);

/**
 * Get the next asynchronous event (ibv_get_async_event(3)). Blocks until one
 * is queued unless context->async_fd was made non-blocking with fcntl(),
 * in which case it returns -1 with errno EAGAIN when the queue is empty.
 * Events are queued by the control-plane thread and by drivers. Never waits
 * on work only the caller could do: in PV_PROGRESS_APP mode a blocking call
 * runs the device's progress while it waits (QP errors come from it).
 * @return 0, or -1 with errno set.
 * Thread: any; each event must be acknowledged with pv_ack_async_event().
 */
PV_EXPORT int pv_get_async_event(struct pv_context *context, struct pv_async_event *event);

/** Acknowledge an event from pv_get_async_event() (ibv_ack_async_event(3)). */
PV_EXPORT void pv_ack_async_event(struct pv_async_event *event);

/* ---------------------------------------------------------------------- */
/* Protection domains, memory regions, address handles                     */
/* ---------------------------------------------------------------------- */

/**
 * Allocate a protection domain (ibv_alloc_pd(3)).
 * @return The PD; NULL with errno: EINVAL NULL context, ENOMEM.
 */
PV_EXPORT struct pv_pd *pv_alloc_pd(struct pv_context *context);

/**
 * Free a protection domain or a parent domain (ibv_dealloc_pd(3)).
 * @return 0, or a positive errno: EINVAL NULL pd; EBUSY MRs, QPs, SRQs,
 *         AHs or parent domains still use it.
 */
PV_EXPORT int pv_dealloc_pd(struct pv_pd *pd);

/**
 * Allocate a thread domain (ibv_alloc_td(3)): the application promises that
 * the objects created in it (through a parent domain) are used by one thread
 * at a time, so a driver may leave their locks out. On mlx5 a QP created in a
 * parent domain with a thread domain takes no lock; on softroce the lock is
 * the device engine's, shared with the background progress thread, so a
 * thread domain changes nothing there: PV_PROGRESS_APP
 * (pv_set_progress_mode()) is softroce's lock-free mode.
 * @param init_attr  comp_mask must be 0.
 * @return the TD; NULL with errno: EINVAL NULL argument or unknown comp_mask
 *         bits, ENOMEM. Thread: any.
 */
PV_EXPORT struct pv_td *pv_alloc_td(struct pv_context *context,
				    struct pv_td_init_attr *init_attr);

/**
 * Free a thread domain (ibv_dealloc_td(3)).
 * @return 0, or a positive errno: EINVAL NULL; EBUSY a parent domain uses it.
 */
PV_EXPORT int pv_dealloc_td(struct pv_td *td);

/**
 * Allocate a parent domain (ibv_alloc_parent_domain(3)): a PD usable wherever
 * @p attr->pd is (QPs, SRQs, MRs, AHs, with the same protection), carrying
 * @p attr->td and the application's pd_context. Freed by pv_dealloc_pd().
 * Custom allocators (PV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) are accepted and
 * not called: pollverbs takes queue memory from DPDK, as if they returned
 * PV_ALLOCATOR_USE_DEFAULT (doc/guides/prog_guide/verbs.rst).
 * @return the parent domain; NULL with errno: EINVAL NULL argument, a PD of
 *         another context, a parent domain as @p attr->pd, a TD of another
 *         context, or unknown comp_mask bits; ENOMEM. Thread: any.
 */
PV_EXPORT struct pv_pd *pv_alloc_parent_domain(struct pv_context *context,
					       struct pv_parent_domain_init_attr *attr);

/**
 * Register a memory region (ibv_reg_mr(3)).
 *
 * @param addr    Start of the buffer; any alignment.
 * @param length  Bytes; must be > 0 and <= max_mr_size.
 * @param access  pv_access_flags; REMOTE_WRITE and REMOTE_ATOMIC require
 *                LOCAL_WRITE.
 * @return The MR; NULL with errno: EINVAL NULL pd/addr, zero length, invalid
 *         access combination or unknown flag; ENOMEM no key or memory left;
 *         EOPNOTSUPP a flag the driver does not support (ON_DEMAND).
 * Ownership: the buffer must stay allocated until pv_dereg_mr().
 */
PV_EXPORT struct pv_mr *pv_reg_mr(struct pv_pd *pd, void *addr, size_t length, int access);

/**
 * Deregister a memory region (ibv_dereg_mr(3)).
 * @return 0, or a positive errno: EINVAL NULL mr; EBUSY memory windows are
 *         bound to it (IBTA 10.6.7.2.6: unbind or invalidate them first).
 */
PV_EXPORT int pv_dereg_mr(struct pv_mr *mr);

/**
 * Allocate a memory window (ibv_alloc_mw(3)), unbound. A type 1 window is
 * bound with pv_bind_mw(); a type 2 window with a PV_WR_BIND_MW work
 * request on an RC QP of the same PD, which ties it to that QP (type 2B, as
 * rxe and mlx5), and freed for a new bind by PV_WR_LOCAL_INV or by a peer's
 * PV_WR_SEND_WITH_INV naming its rkey.
 * @return The window; NULL with errno: EINVAL NULL pd or unknown type;
 *         ENOMEM no key left (max_mw); EOPNOTSUPP the driver has no windows.
 * Thread: any.
 */
PV_EXPORT struct pv_mw *pv_alloc_mw(struct pv_pd *pd, enum pv_mw_type type);

/**
 * Free a memory window (ibv_dealloc_mw(3)); a bound window is unbound first
 * (its rkey stops working at once).
 * @return 0, or a positive errno: EINVAL NULL mw.
 */
PV_EXPORT int pv_dealloc_mw(struct pv_mw *mw);

/**
 * The rkey a window gets at its next bind (ibv_inc_rkey(3)): the low 8 bits
 * (the key, IBTA 10.6.7.2.1) incremented, the index bits kept.
 */
static inline uint32_t
pv_inc_rkey(uint32_t rkey)
{
	const uint32_t mask = 0x000000ff;
	uint8_t newtag = (uint8_t)((rkey + 1) & mask);

	return (rkey & ~mask) | newtag;
}

/**
 * Bind a type 1 memory window (ibv_bind_mw(3)): posts a bind work request on
 * @p qp's send queue (an RC QP of the window's PD, in RTS); on success
 * mw->rkey is the window's new rkey (pv_inc_rkey() of the old one), valid
 * for remote access once the bind completes (PV_WC_BIND_MW, when
 * signaled). bind_info.mr NULL with addr and length 0 unbinds. The MR needs
 * PV_ACCESS_MW_BIND; remote write or atomic access needs an MR with local
 * write; the window must lie inside the MR; ZERO_BASED is for type 2 only.
 * Those rules are checked when the bind executes: a violation completes it
 * with PV_WC_MW_BIND_ERR and moves the QP to ERR (IBTA 10.6.7.2).
 * @return 0, or a positive errno: EINVAL NULL argument, not a type 1 window,
 *         no MR with a non-empty range; EPERM the MR's PD is not the
 *         window's; the errors of pv_post_send() (ENOMEM send queue full).
 * Thread: as pv_post_send().
 */
PV_EXPORT int pv_bind_mw(struct pv_qp *qp, struct pv_mw *mw, struct pv_mw_bind *mw_bind);

/**
 * Create an address handle for UD (ibv_create_ah(3)).
 * @return The AH; NULL with errno: EINVAL NULL argument, bad port or sgid
 *         index, RoCE without is_global, unknown static_rate; ENOMEM.
 * Ownership: @p attr is copied (into ah->attr).
 *
 * On softroce the destination's MAC address is resolved in the background
 * (ARP, non-blocking): the call returns at once; sends on the AH wait in
 * the device's neighbour queue until the answer comes, and are dropped if
 * none comes within arp_timeout_ms (as a NIC drops a UD packet it cannot
 * deliver).
 */
PV_EXPORT struct pv_ah *pv_create_ah(struct pv_pd *pd, struct pv_ah_attr *attr);

/** Destroy an address handle (ibv_destroy_ah(3)); 0 or EINVAL. */
PV_EXPORT int pv_destroy_ah(struct pv_ah *ah);

/**
 * Fill an AH attribute from a received UD completion and its GRH
 * (ibv_init_ah_from_wc(3)).
 * On RoCE the GRH buffer holds the IPv6 header, or for IPv4 20 unused bytes
 * then the IPv4 header (recognised by version, IHL 5 and checksum); the
 * reply's sgid_index is the local GID the packet was sent to.
 * @return 0, or -1 with errno: EINVAL NULL argument, bad port, missing GRH on
 *         RoCE, multicast destination; ENOENT the destination GID is not in
 *         the port's GID table.
 */
PV_EXPORT int pv_init_ah_from_wc(struct pv_context *context, uint8_t port_num,
				 struct pv_wc *wc, struct pv_grh *grh,
				 struct pv_ah_attr *ah_attr);

/** pv_init_ah_from_wc() then pv_create_ah() (ibv_create_ah_from_wc(3)). */
PV_EXPORT struct pv_ah *pv_create_ah_from_wc(struct pv_pd *pd, struct pv_wc *wc,
					     struct pv_grh *grh, uint8_t port_num);

/* ---------------------------------------------------------------------- */
/* Completion queues and channels                                          */
/* ---------------------------------------------------------------------- */

/**
 * Create a completion event channel (ibv_create_comp_channel(3)).
 * @return The channel; NULL with errno: EINVAL NULL context, ENOMEM, EMFILE.
 */
PV_EXPORT struct pv_comp_channel *pv_create_comp_channel(struct pv_context *context);

/**
 * Destroy a channel (ibv_destroy_comp_channel(3)).
 * @return 0, or a positive errno: EINVAL NULL channel; EBUSY CQs use it.
 */
PV_EXPORT int pv_destroy_comp_channel(struct pv_comp_channel *channel);

/**
 * Create a completion queue (ibv_create_cq(3)). The calling thread becomes
 * the CQ's owner: only it may poll the CQ.
 * @param cqe          Minimum entries, 1..max_cqe.
 * @param comp_vector  0..num_comp_vectors-1.
 * @return The CQ; NULL with errno: EINVAL cqe out of range, bad comp_vector,
 *         NULL context; ENOMEM.
 */
PV_EXPORT struct pv_cq *pv_create_cq(struct pv_context *context, int cqe, void *cq_context,
				     struct pv_comp_channel *channel, int comp_vector);

/**
 * Resize a completion queue (ibv_resize_cq(3)).
 * @return 0, or a positive errno: EINVAL cqe out of range or below the
 *         number of entries held; EOPNOTSUPP driver cannot resize.
 */
PV_EXPORT int pv_resize_cq(struct pv_cq *cq, int cqe);

/**
 * Destroy a completion queue (ibv_destroy_cq(3)).
 * Completion events of @p cq raised but not yet read from its channel are
 * dropped (as the kernel does); events already read need no ack.
 * @return 0, or a positive errno: EINVAL NULL cq; EBUSY a QP uses it.
 */
PV_EXPORT int pv_destroy_cq(struct pv_cq *cq);

/**
 * Wait for the next completion event on a channel (ibv_get_cq_event(3)).
 * Blocks unless channel->fd is non-blocking (then -1/EAGAIN when none).
 * Never waits on work only the caller could do: in the default thread-safe
 * mode the device's background progress raises the event; in
 * PV_PROGRESS_APP mode a blocking call runs the device's progress itself
 * until the event comes (the application's one thread is in here).
 * @return 0 with *cq_p and *cq_context_p set, or -1 with errno: EINVAL NULL
 *         argument, EAGAIN non-blocking fd and no event, or read()'s errno.
 */
PV_EXPORT int pv_get_cq_event(struct pv_comp_channel *channel, struct pv_cq **cq_p,
			      void **cq_context_p);

/** Acknowledge @p nevents events of @p cq (ibv_ack_cq_events(3)). */
PV_EXPORT void pv_ack_cq_events(struct pv_cq *cq, unsigned int nevents);

/* ---------------------------------------------------------------------- */
/* Shared receive queues                                                   */
/* ---------------------------------------------------------------------- */

/**
 * Create a shared receive queue (ibv_create_srq(3)).
 * @return The SRQ, with srq_init_attr->attr updated to the granted sizes;
 *         NULL with errno: EINVAL max_wr/max_sge beyond the device limits or
 *         zero max_wr; ENOMEM; EOPNOTSUPP driver has no SRQ.
 */
PV_EXPORT struct pv_srq *pv_create_srq(struct pv_pd *pd, struct pv_srq_init_attr *srq_init_attr);

/**
 * Modify an SRQ (ibv_modify_srq(3)): PV_SRQ_MAX_WR resizes, PV_SRQ_LIMIT arms
 * the limit event.
 * @return 0, or a positive errno: EINVAL NULL argument, mask 0 or unknown
 *         bits, max_wr 0 or > max_srq_wr, srq_limit > max_wr (the new one
 *         when both are set); the driver's errno (EOPNOTSUPP no resize).
 */
PV_EXPORT int pv_modify_srq(struct pv_srq *srq, struct pv_srq_attr *srq_attr, int srq_attr_mask);

/** Query an SRQ (ibv_query_srq(3)); 0, EINVAL NULL argument, or the driver's errno. */
PV_EXPORT int pv_query_srq(struct pv_srq *srq, struct pv_srq_attr *srq_attr);

/** Destroy an SRQ (ibv_destroy_srq(3)); 0, EINVAL, or EBUSY a QP uses it. */
PV_EXPORT int pv_destroy_srq(struct pv_srq *srq);

/**
 * Open an XRC domain (ibv_open_xrcd(3)). With fd -1 the domain is this
 * process's own; sharing one between processes through a file (fd >= 0)
 * is not implemented (EOPNOTSUPP).
 * @return The domain; NULL with errno: EINVAL NULL argument, comp_mask
 *         without FD and OFLAGS or with unknown bits; EOPNOTSUPP fd >= 0, or
 *         the driver has no XRC; ENOMEM.
 */
PV_EXPORT struct pv_xrcd *pv_open_xrcd(struct pv_context *context,
				       struct pv_xrcd_init_attr *xrcd_init_attr);

/**
 * Close an XRC domain (ibv_close_xrcd(3)).
 * @return 0, or a positive errno: EINVAL NULL; EBUSY XRC SRQs or TGT QPs use it.
 */
PV_EXPORT int pv_close_xrcd(struct pv_xrcd *xrcd);

/**
 * Create a shared receive queue, basic or XRC (ibv_create_srq_ex(3)).
 * comp_mask must hold PV_SRQ_INIT_ATTR_PD (and TYPE for a non-basic SRQ); an
 * XRC SRQ (PV_SRQT_XRC) also needs PV_SRQ_INIT_ATTR_XRCD and _CQ: the TGT
 * QPs of its domain place the messages that name its SRQ number
 * (pv_get_srq_num()) in its receive WQEs and complete them on its CQ.
 * @return The SRQ, attr updated to the granted sizes; NULL with errno:
 *         EINVAL NULL argument, missing or unknown comp_mask bits, sizes as
 *         pv_create_srq(), objects of another context; EOPNOTSUPP tag
 *         matching (PV_SRQT_TM) or a type the driver lacks; ENOMEM.
 */
PV_EXPORT struct pv_srq *pv_create_srq_ex(struct pv_context *context,
					  struct pv_srq_init_attr_ex *srq_init_attr_ex);

/**
 * The number of an XRC SRQ, for the senders' remote_srqn (ibv_get_srq_num(3)).
 * @return 0, or a positive errno: EINVAL NULL argument or not an XRC SRQ.
 */
PV_EXPORT int pv_get_srq_num(struct pv_srq *srq, uint32_t *srq_num);

/* ---------------------------------------------------------------------- */
/* Queue pairs                                                             */
/* ---------------------------------------------------------------------- */

/**
 * Create a queue pair in RESET (ibv_create_qp(3)). The calling thread becomes
 * the QP's owner. qp_init_attr->cap is updated with the granted sizes.
 * @return The QP; NULL with errno: EINVAL NULL pd/CQs, CQs or SRQ of another
 *         context, SRQ with a type other than RC or UD, caps beyond
 *         query_device limits (max_qp_wr, max_sge, max_inline_data; receive
 *         caps are ignored with an SRQ), unknown qp_type; ENOMEM; EOPNOTSUPP
 *         a QP type the driver does not implement.
 */
PV_EXPORT struct pv_qp *pv_create_qp(struct pv_pd *pd, struct pv_qp_init_attr *qp_init_attr);

/**
 * Modify a queue pair (ibv_modify_qp(3)). lib/verbs checks the transition
 * and the required/optional attr_mask bits for the QP type (IBTA vol. 1,
 * 10.3 and table 91) before the driver sees it.
 * Without PV_QP_STATE the QP stays in its state (e.g. RTS -> RTS). Any state
 * may go to RESET or ERR; SQE -> RTS is for UC and UD only. On success with
 * PV_QP_STATE, qp->state becomes attr->qp_state.
 * @return 0, or a positive errno: EINVAL illegal transition, missing required
 *         or forbidden optional attribute, PV_QP_CUR_STATE not matching
 *         qp->state, value out of range (path_mtu not 1..5, max_rd_atomic >
 *         max_qp_init_rd_atom, max_dest_rd_atomic > max_qp_rd_atom,
 *         timeout/alt_timeout > 31, retry_cnt > 7, rnr_retry > 7,
 *         min_rnr_timer > 31, port_num, pkey_index >= max_pkeys, unknown
 *         qp_access_flags, PSN or dest_qp_num beyond 24 bits, AV failing
 *         pv_create_ah()'s checks); the driver's errno (ENOMEM ...).
 *
 * On softroce the transition to RTR of an RC or UC QP starts resolving the
 * peer's MAC address from ah_attr's GID and returns at once; the first
 * packets wait in the device's neighbour queue for the answer (retried by
 * the retransmission timer if it is late; the QP fails with
 * PV_WC_RETRY_EXC_ERR if no answer comes).
 */
PV_EXPORT int pv_modify_qp(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask);

/**
 * Query a queue pair (ibv_query_qp(3)). With PV_QP_STATE in @p attr_mask,
 * qp->state is refreshed from the driver's answer.
 * @return 0, or a positive errno: EINVAL NULL argument; the driver's errno
 *         (EOPNOTSUPP the driver cannot query).
 */
PV_EXPORT int pv_query_qp(struct pv_qp *qp, struct pv_qp_attr *attr, int attr_mask,
			  struct pv_qp_init_attr *init_attr);

/** Destroy a queue pair (ibv_destroy_qp(3)); 0, EINVAL NULL qp, or the driver's errno. */
PV_EXPORT int pv_destroy_qp(struct pv_qp *qp);

/**
 * Attach a UD QP to a multicast group (ibv_attach_mcast(3)).
 * @return 0, or a positive errno: EINVAL NULL argument, not a UD QP, @p gid
 *         not multicast (ff00::/8); EOPNOTSUPP the driver has no multicast.
 */
PV_EXPORT int pv_attach_mcast(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid);

/** Detach a UD QP from a multicast group (ibv_detach_mcast(3)); errors as attach. */
PV_EXPORT int pv_detach_mcast(struct pv_qp *qp, const union pv_gid *gid, uint16_t lid);

/* ---------------------------------------------------------------------- */
/* Data path: one-line forwards to the object's driver entry points        */
/* ---------------------------------------------------------------------- */

/**
 * Post a list of send work requests (ibv_post_send(3)).
 * @param wr      NULL-terminated list; each entry uses at most max_send_sge
 *                SGEs, or max_inline_data bytes with PV_SEND_INLINE.
 * @param bad_wr  Set to the first entry not posted (only on failure).
 * @return 0, or a positive errno: EINVAL malformed entry (opcode not valid
 *         for the QP type: UC has no READ, atomics or SEND_WITH_INV, UD
 *         only SEND and SEND_WITH_IMM, an XRC TGT QP no send queue; too many
 *         SGEs, inline too long, QP in a state that cannot post, BIND_MW
 *         with no window, a window or MR of another context or access bits
 *         other than REMOTE_READ/WRITE/ATOMIC and ZERO_BASED); ENOMEM send
 *         queue full. BIND_MW and LOCAL_INV are checked when they execute:
 *         a failure completes them with PV_WC_MW_BIND_ERR or
 *         PV_WC_LOC_QP_OP_ERR (softroce, as rxe).
 * Ownership: non-inline buffers must stay registered and unchanged until the
 *            WR completes. Inline data is copied before the call returns.
 * Thread: the QP's owner.
 */
static inline int
pv_post_send(struct pv_qp *qp, struct pv_send_wr *wr, struct pv_send_wr **bad_wr)
{
	return qp->fp_post_send(qp, wr, bad_wr);
}

/**
 * Post a list of receive work requests (ibv_post_recv(3)).
 * @return 0, or a positive errno: EINVAL too many SGEs, QP in RESET or uses
 *         an SRQ; ENOMEM receive queue full. *bad_wr as pv_post_send().
 * Thread: the QP's owner.
 */
static inline int
pv_post_recv(struct pv_qp *qp, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	return qp->fp_post_recv(qp, wr, bad_wr);
}

/** Post receive WRs to an SRQ (ibv_post_srq_recv(3)); errors as pv_post_recv(). */
static inline int
pv_post_srq_recv(struct pv_srq *srq, struct pv_recv_wr *wr, struct pv_recv_wr **bad_wr)
{
	return srq->fp_post_srq_recv(srq, wr, bad_wr);
}

/**
 * Poll a CQ for up to @p num_entries completions (ibv_poll_cq(3)). On
 * poll-mode drivers this also makes progress on every queue the calling
 * thread owns on the CQ's device (receive, protocol, timers, transmit).
 * @param wc  Array of at least @p num_entries entries.
 * @return Number of completions written (0..num_entries), or negative on error.
 * Thread: the CQ's owner.
 */
static inline int
pv_poll_cq(struct pv_cq *cq, int num_entries, struct pv_wc *wc)
{
	return cq->fp_poll_cq(cq, num_entries, wc);
}

/**
 * Arm a CQ for one completion event on its channel (ibv_req_notify_cq(3)).
 * @param solicited_only  Nonzero: only solicited or error completions fire.
 * @return 0, or a positive errno (EINVAL CQ has no channel).
 * Thread: the CQ's owner.
 */
static inline int
pv_req_notify_cq(struct pv_cq *cq, int solicited_only)
{
	return cq->fp_req_notify_cq(cq, solicited_only);
}

/**
 * Make progress on every queue of @p context owned by the calling thread,
 * without polling a CQ (pollverbs addition; no ibv_ equivalent).
 * @return Number of units of work done (packets, WQEs; 0 when idle), or a
 *         negative errno (-EINVAL NULL context).
 * Thread: the owner of the queues to progress.
 */
PV_EXPORT int pv_progress(struct pv_context *context);

/**
 * Who makes a device's protocol progress, and whether its verbs lock
 * (pollverbs addition; rdma-core's nearest equivalents are ibv_alloc_td(3)
 * and the MLX5_SINGLE_THREADED environment variable).
 */
enum pv_progress_mode {
	/**
	 * Default. Every verb may be called from any thread on any object
	 * (libibverbs' thread-safety promise): the data path takes one lock per
	 * call. The device progresses in the background (a DPDK service run by
	 * pollverbs' progress thread, sleeping on the port's RX interrupt when
	 * idle) whenever no application thread is progressing it.
	 */
	PV_PROGRESS_THREAD_SAFE = 0,
	/**
	 * Run to completion: the application promises that one thread at a
	 * time drives the device (all its QPs, CQs and SRQs) and that it calls
	 * pv_poll_cq() or pv_progress() often enough (the retransmission and
	 * ACK timers run inside those calls). No lock, no background progress.
	 */
	PV_PROGRESS_APP = 1,
};

/**
 * Select the progress mode of the device behind @p context (pollverbs
 * addition). The mode belongs to the device, so it applies to every context
 * open on it. The initial mode is the devarg progress=thread_safe|app, else
 * PV_PROGRESS_APP when the environment variable PV_SINGLE_THREADED is "1"
 * at pv_init(), else PV_PROGRESS_THREAD_SAFE.
 * @return 0, or a positive errno: EINVAL NULL context or unknown mode;
 *         EBUSY the device has QPs, CQs or SRQs (choose the mode before
 *         creating them); EOPNOTSUPP the driver has a single mode.
 * Thread: any; not concurrently with other verbs on the device.
 */
PV_EXPORT int pv_set_progress_mode(struct pv_context *context, enum pv_progress_mode mode);

/**
 * The progress mode of the device behind @p context (pollverbs addition).
 * @return an enum pv_progress_mode value (>= 0), or -EINVAL NULL context.
 * Thread: any.
 */
PV_EXPORT int pv_get_progress_mode(struct pv_context *context);

/* ---------------------------------------------------------------------- */
/* Helpers                                                                 */
/* ---------------------------------------------------------------------- */

/** Rate multiplier of 2.5 Gb/s for a rate enum (ibv_rate_to_mult(3)); -1 if invalid. */
PV_EXPORT int pv_rate_to_mult(enum pv_rate rate);

/** Rate enum for a multiplier of 2.5 Gb/s (mult_to_ibv_rate(3)); PV_RATE_MAX if none. */
PV_EXPORT enum pv_rate pv_mult_to_rate(int mult);

/** Rate in Mb/s for a rate enum (ibv_rate_to_mbps(3)); -1 if invalid. */
PV_EXPORT int pv_rate_to_mbps(enum pv_rate rate);

/** Rate enum for Mb/s (mbps_to_ibv_rate(3)); PV_RATE_MAX if none. */
PV_EXPORT enum pv_rate pv_mbps_to_rate(int mbps);

/** "InfiniBand channel adapter" etc., as ibv_node_type_str(3). */
PV_EXPORT const char *pv_node_type_str(enum pv_node_type node_type);

/** "PORT_ACTIVE" etc., as ibv_port_state_str(3). */
PV_EXPORT const char *pv_port_state_str(enum pv_port_state port_state);

/** "local catastrophic error" etc., as ibv_event_type_str(3). */
PV_EXPORT const char *pv_event_type_str(enum pv_event_type event);

/** "success", "transport retry counter exceeded" etc., as ibv_wc_status_str(3). */
PV_EXPORT const char *pv_wc_status_str(enum pv_wc_status status);

/**
 * Prepare for fork() (ibv_fork_init(3)). pollverbs memory comes from DPDK
 * (hugepages or locked anonymous memory shared with no child), so this only
 * records the request.
 * @return 0.
 */
PV_EXPORT int pv_fork_init(void);

#ifdef __cplusplus
}
#endif

/* extended verbs (ibv_*_ex), an indirect header of this one */
#include "pv_verbs_ex.h"

#endif /* PV_LIB_VERBS_PV_VERBS_H */
