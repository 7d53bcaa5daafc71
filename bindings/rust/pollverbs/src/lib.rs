// SPDX-License-Identifier: BSD-3-Clause
//! The safe Rust API of pollverbs, a poll-mode RDMA framework, with the
//! shapes of the [`ibverbs`](https://docs.rs/ibverbs/0.4) crate 0.4: a
//! program written for it switches with one line,
//!
//! ```ignore
//! use pollverbs as ibverbs;
//! ```
//!
//! and runs on pollverbs' drivers (softroce: RoCEv2 in user space over any
//! DPDK port; mlx5) without a kernel RDMA stack.
//!
//! # Starting the runtime
//!
//! pollverbs runs on DPDK's EAL, started once per process. Either call
//! [`init`] with EAL and pollverbs arguments first thing in `main`:
//!
//! ```no_run
//! pollverbs::init(&["prog", "--no-huge", "-m", "256", "--vdev=net_ring0",
//!                   "--pv-dev=softroce:port=net_ring0,ip=10.0.0.1"]).unwrap();
//! ```
//!
//! or set the environment variable `PV_EAL_ARGS` to the same arguments
//! (without the program name) and the first [`devices`] call starts it: an
//! unchanged `ibverbs` program then needs no new line at all.
//! [`cleanup`] stops it at the end (after every object is dropped).
//!
//! # The `ibverbs` 0.4 API
//!
//! [`devices`] → [`DeviceList`] ([`iter`](DeviceList::iter),
//! [`len`](DeviceList::len), [`get`](DeviceList::get)) → [`Device`]
//! ([`open`](Device::open), [`name`](Device::name), [`guid`](Device::guid))
//! → [`Context`] ([`create_cq`](Context::create_cq),
//! [`alloc_pd`](Context::alloc_pd)) → [`ProtectionDomain`]
//! ([`create_qp`](ProtectionDomain::create_qp) → [`QueuePairBuilder`] →
//! [`PreparedQueuePair`] ([`endpoint`](PreparedQueuePair::endpoint),
//! [`handshake`](PreparedQueuePair::handshake)) → [`QueuePair`]
//! ([`post_send`](QueuePair::post_send),
//! [`post_receive`](QueuePair::post_receive)),
//! [`allocate`](ProtectionDomain::allocate) → [`MemoryRegion`]),
//! [`CompletionQueue::poll`] into [`ibv_wc`]s, [`QueuePairEndpoint`]
//! (serde), [`RemoteKey`], and the [`ibv_qp_type`], [`ibv_wc_status`],
//! [`ibv_wc_opcode`], [`ibv_access_flags`] items, with [`ffi`].
//!
//! Differences from 0.4, all in what 0.4 did not define well: every error
//! is this crate's [`Error`] (0.4 mixed `io::Error` and `()`; `unwrap`,
//! `expect`, `?` and [`Error::kind`] / [`Error::raw_os_error`] work as
//! before); [`ibv_wc::imm_data`] and [`Device::guid`] are in host byte
//! order; drops never panic; the GID is not index 0 but the first
//! IPv4-mapped one (index 1 on softroce, RoCEv2 over IPv4), or
//! `PV_GID_INDEX`.
//!
//! # Beyond 0.4
//!
//! Batched posts of any operation ([`QueuePair::post`] with
//! [`WorkRequest`]: SEND, RDMA WRITE/READ with immediate data, atomics,
//! fence and solicited flags, inline data, several SGEs; [`RecvRequest`]
//! lists), [`SharedReceiveQueue`], UD ([`PreparedQueuePair::activate_ud`],
//! [`AddressHandle`]), [`CompletionChannel`] with a pollable fd,
//! asynchronous events ([`Context::get_async_event`]), device, port and GID
//! queries, port and GID choice ([`Device::open_port`],
//! [`QueuePairBuilder::set_gid_index`]), queue and SGE sizes, service
//! level, traffic class, `as_raw()` on every object, RC connections
//! through the connection manager ([`cm`]), the runtime ([`init`],
//! [`cleanup`], [`Context::progress`]) and its lcores and pollers
//! ([`rtc`]).
//!
//! # Lifetimes and threads
//!
//! Every object holds a reference count on what it was made from (an MR
//! on its PD, a QP on its PD, CQs and SRQ, all on their context), so none
//! outlives what it needs and drop order never matters. Memory given to a
//! posted work request must live until it completes: the compiler cannot
//! check it, hence `unsafe` posting, as in 0.4.
//!
//! The objects are `Send` and `Sync`: pollverbs' default progress mode
//! lets any thread call any verb on any object (pv_verbs.h, "Thread
//! rules"). [`Context::set_progress_mode_app`] (run to completion, no
//! locks) is `unsafe` because that promise then rests on the caller. The
//! lcore pollers of [`rtc`] are neither `Send` nor `Sync`: they belong to
//! the lcore that registered them.
//!
//! Guide: `doc/guides/prog_guide/rust.rst` in the pollverbs tree.

#![warn(missing_docs)]

/// The raw API: every item of `pollverbs-sys` (`pv_*` functions and types,
/// Rust versions of the headers' `static inline` data path), plus the
/// libibverbs-named items of this crate (`ibv_qp_type`, `ibv_wc`, ...).
pub mod ffi {
    pub use crate::names::*;
    pub use crate::ibv_wc;
    pub use pollverbs_sys::*;
}

pub mod cm;
mod cq;
mod device;
mod error;
mod names;
mod pd;
mod qp;
pub mod rtc;
mod runtime;

pub use cq::{ibv_wc, CompletionChannel, CompletionQueue};
pub use device::{
    devices, AsyncEvent, Context, Device, DeviceAttr, DeviceList, DeviceListIter, Gid, PortAttr,
};
pub use error::{Error, Result};
pub use names::{
    ibv_access_flags, ibv_event_type, ibv_mig_state, ibv_mtu, ibv_node_type, ibv_port_state,
    ibv_qp_attr_mask, ibv_qp_state, ibv_qp_type, ibv_send_flags, ibv_transport_type, ibv_wc_flags,
    ibv_wc_opcode, ibv_wc_status, ibv_wr_opcode,
};
pub use pd::{
    AddressHandle, AddressHandleAttr, MemoryRegion, ProtectionDomain, RemoteKey, RemoteMemory, Sge,
    SharedReceiveQueue,
};
pub use qp::{
    inline_sge, PreparedQueuePair, QueuePair, QueuePairBuilder, QueuePairEndpoint, RecvRequest,
    WorkRequest, DEFAULT_QKEY,
};
pub use runtime::{cleanup, init, is_started, EAL_ARGS_ENV};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_c_values() {
        assert_eq!(ibv_qp_type::IBV_QPT_RC, 2);
        assert_eq!(ibv_qp_type::IBV_QPT_UD, 4);
        assert_eq!(ibv_wc_status::IBV_WC_SUCCESS, 0);
        assert_eq!(ibv_wc_status::IBV_WC_RETRY_EXC_ERR, 12);
        assert_eq!(ibv_wc_opcode::IBV_WC_RECV, 128);
        assert_eq!(ibv_wc_opcode::IBV_WC_RECV_RDMA_WITH_IMM, 129);
        assert_eq!(ibv_access_flags::IBV_ACCESS_REMOTE_ATOMIC.0, 8);
        let f = ibv_access_flags::IBV_ACCESS_LOCAL_WRITE | ibv_access_flags::IBV_ACCESS_REMOTE_READ;
        assert_eq!(f.0, 5);
        assert!(f.contains(ibv_access_flags::IBV_ACCESS_REMOTE_READ));
        assert!(!f.contains(ibv_access_flags::IBV_ACCESS_REMOTE_WRITE));
        assert_eq!(ibv_send_flags::IBV_SEND_INLINE.0, 8);
    }

    #[test]
    fn wc_accessors() {
        let mut wc = ibv_wc::default();
        assert!(!wc.is_valid(), "a default completion is not valid");
        assert_eq!(wc.error().map(|e| e.0), Some(ibv_wc_status::IBV_WC_GENERAL_ERR));
        wc.0.status = ibv_wc_status::IBV_WC_SUCCESS;
        wc.0.wr_id = 9;
        wc.0.byte_len = 100;
        wc.0.wc_flags = ibv_wc_flags::IBV_WC_WITH_IMM.0;
        wc.0.__bindgen_anon_1.imm_data = 0x1234_5678u32.to_be();
        assert!(wc.is_valid());
        assert_eq!(wc.error(), None);
        assert_eq!((wc.wr_id(), wc.len()), (9, 100));
        assert_eq!(wc.imm_data(), Some(0x1234_5678));
        assert_eq!(std::mem::size_of::<ibv_wc>(), std::mem::size_of::<ffi::pv_wc>());
    }

    #[test]
    fn endpoint_serde_round_trip() {
        let mut gid = Gid::default();
        gid.raw[10] = 0xff;
        gid.raw[11] = 0xff;
        gid.raw[12..].copy_from_slice(&[10, 0, 0, 1]);
        assert!(gid.is_ipv4_mapped());
        assert_eq!(gid.interface_id(), 0x0000_ffff_0a00_0001);
        let e = QueuePairEndpoint { num: 0x11, lid: 0, gid };
        let text = serde_json::to_string(&e).unwrap();
        let back: QueuePairEndpoint = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e);
        let m = RemoteMemory { addr: 0x1000, len: 64, rkey: 7 };
        let back: RemoteMemory = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        assert_eq!(m.slice(8, 56).unwrap().addr, 0x1008);
        assert!(m.slice(8, 57).is_err());
        assert!(m.slice(u64::MAX, 2).is_err());
    }

    #[test]
    fn errors_convert() {
        let e = Error::NotStarted;
        assert_eq!(e.raw_os_error(), Some(libc::ENOSYS));
        let io: std::io::Error = Error::InvalidArgument("x".into()).into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
        fn q() -> std::io::Result<()> {
            Err(Error::Busy(2))?;
            Ok(())
        }
        assert!(q().unwrap_err().to_string().contains("busy"));
    }

    #[test]
    fn no_runtime_no_crash() {
        // no init() in this (libtest) process and no PV_EAL_ARGS: an error
        if std::env::var_os(EAL_ARGS_ENV).is_none() {
            assert!(matches!(devices(), Err(Error::NotStarted)));
        }
        assert!(matches!(cleanup(), Err(Error::NotStarted)));
    }
}
