// SPDX-License-Identifier: BSD-3-Clause
//! The libibverbs names (`ibv_qp_type::IBV_QPT_RC`, `ibv_access_flags`,
//! ...) that the `ibverbs` crate exports from its `ffi`, as aliases of
//! pollverbs' own values (`pv_qp_type::PV_QPT_RC`): the values are
//! identical to `infiniband/verbs.h`'s, and the types are the same integer
//! types as pollverbs-sys', so values pass between the two freely.
#![allow(non_camel_case_types)]

/// A module of constants for a C enum, named as libibverbs names them.
macro_rules! enum_module {
    ($(#[$m:meta])* $name:ident = $pv:ident { $($ibv:ident = $pvc:ident,)* }) => {
        $(#[$m])*
        pub mod $name {
            /// The C enum's integer type (`
            #[doc = stringify!($pv)]
            /// ::Type` of pollverbs-sys).
            pub type Type = crate::ffi::$pv::Type;
            $(
                #[doc = concat!("`", stringify!($pvc), "`")]
                pub const $ibv: Type = crate::ffi::$pv::$pvc;
            )*
        }
    };
}

/// A flag set newtype with bit operators, named as libibverbs names it.
macro_rules! flag_type {
    ($(#[$m:meta])* $name:ident = $pv:ident { $($ibv:ident = $pvc:ident,)* }) => {
        $(#[$m])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            $(
                #[doc = concat!("`", stringify!($pvc), "`")]
                pub const $ibv: $name = $name(crate::ffi::$pv::$pvc.0 as u32);
            )*

            /// The raw bits.
            pub fn bits(self) -> u32 {
                self.0
            }

            /// Whether every bit of `other` is set in `self`.
            pub fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }
        }

        impl std::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, o: $name) -> $name {
                $name(self.0 | o.0)
            }
        }

        impl std::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, o: $name) {
                self.0 |= o.0;
            }
        }

        impl std::ops::BitAnd for $name {
            type Output = $name;
            fn bitand(self, o: $name) -> $name {
                $name(self.0 & o.0)
            }
        }

        impl std::ops::BitAndAssign for $name {
            fn bitand_assign(&mut self, o: $name) {
                self.0 &= o.0;
            }
        }

        impl From<crate::ffi::$pv> for $name {
            fn from(f: crate::ffi::$pv) -> $name {
                $name(f.0 as u32)
            }
        }

        impl From<$name> for crate::ffi::$pv {
            fn from(f: $name) -> crate::ffi::$pv {
                crate::ffi::$pv(f.0 as _)
            }
        }
    };
}

enum_module! {
    /// `ibv_qp_type`: values of `pv_qp_type` under their libibverbs names.
    ibv_qp_type = pv_qp_type {
        IBV_QPT_RC = PV_QPT_RC,
        IBV_QPT_UC = PV_QPT_UC,
        IBV_QPT_UD = PV_QPT_UD,
        IBV_QPT_RAW_PACKET = PV_QPT_RAW_PACKET,
        IBV_QPT_XRC_SEND = PV_QPT_XRC_SEND,
        IBV_QPT_XRC_RECV = PV_QPT_XRC_RECV,
        IBV_QPT_DRIVER = PV_QPT_DRIVER,
    }
}

enum_module! {
    /// `ibv_wc_status`: values of `pv_wc_status` under their libibverbs names.
    ibv_wc_status = pv_wc_status {
        IBV_WC_SUCCESS = PV_WC_SUCCESS,
        IBV_WC_LOC_LEN_ERR = PV_WC_LOC_LEN_ERR,
        IBV_WC_LOC_QP_OP_ERR = PV_WC_LOC_QP_OP_ERR,
        IBV_WC_LOC_EEC_OP_ERR = PV_WC_LOC_EEC_OP_ERR,
        IBV_WC_LOC_PROT_ERR = PV_WC_LOC_PROT_ERR,
        IBV_WC_WR_FLUSH_ERR = PV_WC_WR_FLUSH_ERR,
        IBV_WC_MW_BIND_ERR = PV_WC_MW_BIND_ERR,
        IBV_WC_BAD_RESP_ERR = PV_WC_BAD_RESP_ERR,
        IBV_WC_LOC_ACCESS_ERR = PV_WC_LOC_ACCESS_ERR,
        IBV_WC_REM_INV_REQ_ERR = PV_WC_REM_INV_REQ_ERR,
        IBV_WC_REM_ACCESS_ERR = PV_WC_REM_ACCESS_ERR,
        IBV_WC_REM_OP_ERR = PV_WC_REM_OP_ERR,
        IBV_WC_RETRY_EXC_ERR = PV_WC_RETRY_EXC_ERR,
        IBV_WC_RNR_RETRY_EXC_ERR = PV_WC_RNR_RETRY_EXC_ERR,
        IBV_WC_LOC_RDD_VIOL_ERR = PV_WC_LOC_RDD_VIOL_ERR,
        IBV_WC_REM_INV_RD_REQ_ERR = PV_WC_REM_INV_RD_REQ_ERR,
        IBV_WC_REM_ABORT_ERR = PV_WC_REM_ABORT_ERR,
        IBV_WC_INV_EECN_ERR = PV_WC_INV_EECN_ERR,
        IBV_WC_INV_EEC_STATE_ERR = PV_WC_INV_EEC_STATE_ERR,
        IBV_WC_FATAL_ERR = PV_WC_FATAL_ERR,
        IBV_WC_RESP_TIMEOUT_ERR = PV_WC_RESP_TIMEOUT_ERR,
        IBV_WC_GENERAL_ERR = PV_WC_GENERAL_ERR,
        IBV_WC_TM_ERR = PV_WC_TM_ERR,
        IBV_WC_TM_RNDV_INCOMPLETE = PV_WC_TM_RNDV_INCOMPLETE,
    }
}

enum_module! {
    /// `ibv_wc_opcode`: values of `pv_wc_opcode` under their libibverbs names.
    ibv_wc_opcode = pv_wc_opcode {
        IBV_WC_SEND = PV_WC_SEND,
        IBV_WC_RDMA_WRITE = PV_WC_RDMA_WRITE,
        IBV_WC_RDMA_READ = PV_WC_RDMA_READ,
        IBV_WC_COMP_SWAP = PV_WC_COMP_SWAP,
        IBV_WC_FETCH_ADD = PV_WC_FETCH_ADD,
        IBV_WC_BIND_MW = PV_WC_BIND_MW,
        IBV_WC_LOCAL_INV = PV_WC_LOCAL_INV,
        IBV_WC_TSO = PV_WC_TSO,
        IBV_WC_ATOMIC_WRITE = PV_WC_ATOMIC_WRITE,
        IBV_WC_RECV = PV_WC_RECV,
        IBV_WC_RECV_RDMA_WITH_IMM = PV_WC_RECV_RDMA_WITH_IMM,
    }
}

enum_module! {
    /// `ibv_wr_opcode`: values of `pv_wr_opcode` under their libibverbs names.
    ibv_wr_opcode = pv_wr_opcode {
        IBV_WR_RDMA_WRITE = PV_WR_RDMA_WRITE,
        IBV_WR_RDMA_WRITE_WITH_IMM = PV_WR_RDMA_WRITE_WITH_IMM,
        IBV_WR_SEND = PV_WR_SEND,
        IBV_WR_SEND_WITH_IMM = PV_WR_SEND_WITH_IMM,
        IBV_WR_RDMA_READ = PV_WR_RDMA_READ,
        IBV_WR_ATOMIC_CMP_AND_SWP = PV_WR_ATOMIC_CMP_AND_SWP,
        IBV_WR_ATOMIC_FETCH_AND_ADD = PV_WR_ATOMIC_FETCH_AND_ADD,
        IBV_WR_LOCAL_INV = PV_WR_LOCAL_INV,
        IBV_WR_BIND_MW = PV_WR_BIND_MW,
        IBV_WR_SEND_WITH_INV = PV_WR_SEND_WITH_INV,
        IBV_WR_TSO = PV_WR_TSO,
        IBV_WR_DRIVER1 = PV_WR_DRIVER1,
        IBV_WR_ATOMIC_WRITE = PV_WR_ATOMIC_WRITE,
    }
}

enum_module! {
    /// `ibv_qp_state`: values of `pv_qp_state` under their libibverbs names.
    ibv_qp_state = pv_qp_state {
        IBV_QPS_RESET = PV_QPS_RESET,
        IBV_QPS_INIT = PV_QPS_INIT,
        IBV_QPS_RTR = PV_QPS_RTR,
        IBV_QPS_RTS = PV_QPS_RTS,
        IBV_QPS_SQD = PV_QPS_SQD,
        IBV_QPS_SQE = PV_QPS_SQE,
        IBV_QPS_ERR = PV_QPS_ERR,
        IBV_QPS_UNKNOWN = PV_QPS_UNKNOWN,
    }
}

enum_module! {
    /// `ibv_port_state`: values of `pv_port_state` under their libibverbs names.
    ibv_port_state = pv_port_state {
        IBV_PORT_NOP = PV_PORT_NOP,
        IBV_PORT_DOWN = PV_PORT_DOWN,
        IBV_PORT_INIT = PV_PORT_INIT,
        IBV_PORT_ARMED = PV_PORT_ARMED,
        IBV_PORT_ACTIVE = PV_PORT_ACTIVE,
        IBV_PORT_ACTIVE_DEFER = PV_PORT_ACTIVE_DEFER,
    }
}

enum_module! {
    /// `ibv_mtu`: values of `pv_mtu` under their libibverbs names.
    ibv_mtu = pv_mtu {
        IBV_MTU_256 = PV_MTU_256,
        IBV_MTU_512 = PV_MTU_512,
        IBV_MTU_1024 = PV_MTU_1024,
        IBV_MTU_2048 = PV_MTU_2048,
        IBV_MTU_4096 = PV_MTU_4096,
    }
}

enum_module! {
    /// `ibv_event_type`: values of `pv_event_type` under their libibverbs names.
    ibv_event_type = pv_event_type {
        IBV_EVENT_CQ_ERR = PV_EVENT_CQ_ERR,
        IBV_EVENT_QP_FATAL = PV_EVENT_QP_FATAL,
        IBV_EVENT_QP_REQ_ERR = PV_EVENT_QP_REQ_ERR,
        IBV_EVENT_QP_ACCESS_ERR = PV_EVENT_QP_ACCESS_ERR,
        IBV_EVENT_COMM_EST = PV_EVENT_COMM_EST,
        IBV_EVENT_SQ_DRAINED = PV_EVENT_SQ_DRAINED,
        IBV_EVENT_PATH_MIG = PV_EVENT_PATH_MIG,
        IBV_EVENT_PATH_MIG_ERR = PV_EVENT_PATH_MIG_ERR,
        IBV_EVENT_DEVICE_FATAL = PV_EVENT_DEVICE_FATAL,
        IBV_EVENT_PORT_ACTIVE = PV_EVENT_PORT_ACTIVE,
        IBV_EVENT_PORT_ERR = PV_EVENT_PORT_ERR,
        IBV_EVENT_LID_CHANGE = PV_EVENT_LID_CHANGE,
        IBV_EVENT_PKEY_CHANGE = PV_EVENT_PKEY_CHANGE,
        IBV_EVENT_SM_CHANGE = PV_EVENT_SM_CHANGE,
        IBV_EVENT_SRQ_ERR = PV_EVENT_SRQ_ERR,
        IBV_EVENT_SRQ_LIMIT_REACHED = PV_EVENT_SRQ_LIMIT_REACHED,
        IBV_EVENT_QP_LAST_WQE_REACHED = PV_EVENT_QP_LAST_WQE_REACHED,
        IBV_EVENT_CLIENT_REREGISTER = PV_EVENT_CLIENT_REREGISTER,
        IBV_EVENT_GID_CHANGE = PV_EVENT_GID_CHANGE,
        IBV_EVENT_WQ_FATAL = PV_EVENT_WQ_FATAL,
    }
}

enum_module! {
    /// `ibv_node_type`: values of `pv_node_type` under their libibverbs names.
    ibv_node_type = pv_node_type {
        IBV_NODE_UNKNOWN = PV_NODE_UNKNOWN,
        IBV_NODE_CA = PV_NODE_CA,
        IBV_NODE_SWITCH = PV_NODE_SWITCH,
        IBV_NODE_ROUTER = PV_NODE_ROUTER,
        IBV_NODE_RNIC = PV_NODE_RNIC,
        IBV_NODE_USNIC = PV_NODE_USNIC,
        IBV_NODE_USNIC_UDP = PV_NODE_USNIC_UDP,
        IBV_NODE_UNSPECIFIED = PV_NODE_UNSPECIFIED,
    }
}

enum_module! {
    /// `ibv_transport_type`: values of `pv_transport_type` under their libibverbs names.
    ibv_transport_type = pv_transport_type {
        IBV_TRANSPORT_UNKNOWN = PV_TRANSPORT_UNKNOWN,
        IBV_TRANSPORT_IB = PV_TRANSPORT_IB,
        IBV_TRANSPORT_IWARP = PV_TRANSPORT_IWARP,
        IBV_TRANSPORT_USNIC = PV_TRANSPORT_USNIC,
        IBV_TRANSPORT_USNIC_UDP = PV_TRANSPORT_USNIC_UDP,
        IBV_TRANSPORT_UNSPECIFIED = PV_TRANSPORT_UNSPECIFIED,
    }
}

enum_module! {
    /// `ibv_mig_state`: values of `pv_mig_state` under their libibverbs names.
    ibv_mig_state = pv_mig_state {
        IBV_MIG_MIGRATED = PV_MIG_MIGRATED,
        IBV_MIG_REARM = PV_MIG_REARM,
        IBV_MIG_ARMED = PV_MIG_ARMED,
    }
}

flag_type! {
    /// `ibv_access_flags`: the bits of `pv_access_flags` under their libibverbs names.
    ibv_access_flags = pv_access_flags {
        IBV_ACCESS_LOCAL_WRITE = PV_ACCESS_LOCAL_WRITE,
        IBV_ACCESS_REMOTE_WRITE = PV_ACCESS_REMOTE_WRITE,
        IBV_ACCESS_REMOTE_READ = PV_ACCESS_REMOTE_READ,
        IBV_ACCESS_REMOTE_ATOMIC = PV_ACCESS_REMOTE_ATOMIC,
        IBV_ACCESS_MW_BIND = PV_ACCESS_MW_BIND,
        IBV_ACCESS_ZERO_BASED = PV_ACCESS_ZERO_BASED,
        IBV_ACCESS_ON_DEMAND = PV_ACCESS_ON_DEMAND,
        IBV_ACCESS_HUGETLB = PV_ACCESS_HUGETLB,
        IBV_ACCESS_RELAXED_ORDERING = PV_ACCESS_RELAXED_ORDERING,
    }
}

flag_type! {
    /// `ibv_send_flags`: the bits of `pv_send_flags` under their libibverbs names.
    ibv_send_flags = pv_send_flags {
        IBV_SEND_FENCE = PV_SEND_FENCE,
        IBV_SEND_SIGNALED = PV_SEND_SIGNALED,
        IBV_SEND_SOLICITED = PV_SEND_SOLICITED,
        IBV_SEND_INLINE = PV_SEND_INLINE,
        IBV_SEND_IP_CSUM = PV_SEND_IP_CSUM,
    }
}

flag_type! {
    /// `ibv_wc_flags`: the bits of `pv_wc_flags` under their libibverbs names.
    ibv_wc_flags = pv_wc_flags {
        IBV_WC_GRH = PV_WC_GRH,
        IBV_WC_WITH_IMM = PV_WC_WITH_IMM,
        IBV_WC_IP_CSUM_OK = PV_WC_IP_CSUM_OK,
        IBV_WC_WITH_INV = PV_WC_WITH_INV,
        IBV_WC_TM_SYNC_REQ = PV_WC_TM_SYNC_REQ,
        IBV_WC_TM_MATCH = PV_WC_TM_MATCH,
        IBV_WC_TM_DATA_VALID = PV_WC_TM_DATA_VALID,
    }
}

flag_type! {
    /// `ibv_qp_attr_mask`: the bits of `pv_qp_attr_mask` under their libibverbs names.
    ibv_qp_attr_mask = pv_qp_attr_mask {
        IBV_QP_STATE = PV_QP_STATE,
        IBV_QP_CUR_STATE = PV_QP_CUR_STATE,
        IBV_QP_EN_SQD_ASYNC_NOTIFY = PV_QP_EN_SQD_ASYNC_NOTIFY,
        IBV_QP_ACCESS_FLAGS = PV_QP_ACCESS_FLAGS,
        IBV_QP_PKEY_INDEX = PV_QP_PKEY_INDEX,
        IBV_QP_PORT = PV_QP_PORT,
        IBV_QP_QKEY = PV_QP_QKEY,
        IBV_QP_AV = PV_QP_AV,
        IBV_QP_PATH_MTU = PV_QP_PATH_MTU,
        IBV_QP_TIMEOUT = PV_QP_TIMEOUT,
        IBV_QP_RETRY_CNT = PV_QP_RETRY_CNT,
        IBV_QP_RNR_RETRY = PV_QP_RNR_RETRY,
        IBV_QP_RQ_PSN = PV_QP_RQ_PSN,
        IBV_QP_MAX_QP_RD_ATOMIC = PV_QP_MAX_QP_RD_ATOMIC,
        IBV_QP_ALT_PATH = PV_QP_ALT_PATH,
        IBV_QP_MIN_RNR_TIMER = PV_QP_MIN_RNR_TIMER,
        IBV_QP_SQ_PSN = PV_QP_SQ_PSN,
        IBV_QP_MAX_DEST_RD_ATOMIC = PV_QP_MAX_DEST_RD_ATOMIC,
        IBV_QP_PATH_MIG_STATE = PV_QP_PATH_MIG_STATE,
        IBV_QP_CAP = PV_QP_CAP,
        IBV_QP_DEST_QPN = PV_QP_DEST_QPN,
        IBV_QP_RATE_LIMIT = PV_QP_RATE_LIMIT,
    }
}
