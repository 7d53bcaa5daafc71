// SPDX-License-Identifier: BSD-3-Clause
//! Devices, contexts, ports and GIDs.

use std::ffi::CStr;
use std::os::unix::io::{AsRawFd, RawFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{check, destroyed, Error, Result};
use crate::ffi;
use crate::runtime::{self, LiveGuard};

/// Get the list of RDMA devices (`ibv_get_device_list(3)`).
///
/// Starts the runtime from the `PV_EAL_ARGS` environment variable first
/// when [`init`](crate::init) was not called (see
/// [`EAL_ARGS_ENV`](crate::EAL_ARGS_ENV)).
///
/// # Errors
/// - [`Error::NotStarted`]: no runtime (no `init()`, no `PV_EAL_ARGS`).
/// - the errors of [`init`](crate::init) when started from `PV_EAL_ARGS`.
/// - [`Error::Verbs`] `pv_get_device_list`: ENOMEM.
pub fn devices() -> Result<DeviceList> {
    runtime::start_from_env()?;
    let mut n = 0i32;
    let list = unsafe { ffi::pv_get_device_list(&mut n) };
    if list.is_null() {
        let e = Error::last("pv_get_device_list");
        if e.raw_os_error() == Some(libc::ENOSYS) {
            return Err(Error::NotStarted);
        }
        return Err(e);
    }
    Ok(DeviceList { list, n: n.max(0) as usize, _live: LiveGuard::new() })
}

/// The list of RDMA devices (`ibv_get_device_list(3)`), freed on drop.
#[derive(Debug)]
pub struct DeviceList {
    list: *mut *mut ffi::pv_device,
    n: usize,
    _live: LiveGuard,
}

// The list is read only; pv_free_device_list() runs once, in drop.
unsafe impl Send for DeviceList {}
unsafe impl Sync for DeviceList {}

impl Drop for DeviceList {
    fn drop(&mut self) {
        unsafe { ffi::pv_free_device_list(self.list) };
    }
}

impl DeviceList {
    fn slice(&self) -> &[*mut ffi::pv_device] {
        unsafe { std::slice::from_raw_parts(self.list, self.n) }
    }

    /// An iterator over the devices.
    pub fn iter(&self) -> DeviceListIter<'_> {
        DeviceListIter { list: self, i: 0 }
    }

    /// The number of devices.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there is no device.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The device at `index`, or `None` if out of bounds.
    pub fn get(&self, index: usize) -> Option<Device<'_>> {
        self.slice().get(index).map(|&d| Device { dev: d, _list: std::marker::PhantomData })
    }
}

impl<'a> IntoIterator for &'a DeviceList {
    type Item = Device<'a>;
    type IntoIter = DeviceListIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over a [`DeviceList`].
#[derive(Debug)]
pub struct DeviceListIter<'iter> {
    list: &'iter DeviceList,
    i: usize,
}

impl<'iter> Iterator for DeviceListIter<'iter> {
    type Item = Device<'iter>;
    fn next(&mut self) -> Option<Device<'iter>> {
        let d = self.list.get(self.i);
        if d.is_some() {
            self.i += 1;
        }
        d
    }
}

/// An RDMA device of a [`DeviceList`].
#[derive(Debug, Clone, Copy)]
pub struct Device<'devlist> {
    dev: *mut ffi::pv_device,
    _list: std::marker::PhantomData<&'devlist DeviceList>,
}

unsafe impl<'a> Send for Device<'a> {}
unsafe impl<'a> Sync for Device<'a> {}

/// How long [`Device::open`] waits for its port to become ACTIVE (a
/// softroce port follows its ethdev's link, which may come up a moment
/// after the device is probed): `PV_PORT_WAIT_MS` milliseconds, default 5000.
fn port_wait() -> Duration {
    let ms = std::env::var("PV_PORT_WAIT_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(5000);
    Duration::from_millis(ms)
}

impl<'devlist> Device<'devlist> {
    /// Open a context on port 1 with the default GID (`ibv_open_device(3)`).
    ///
    /// Waits up to `PV_PORT_WAIT_MS` (default 5000 ms) for the port to be
    /// ACTIVE, making progress meanwhile. The GID is the one
    /// [`Context::default_gid_index`] chooses: `PV_GID_INDEX` if set, else
    /// the first IPv4-mapped (RoCEv2 IPv4) entry of the table (index 1 on
    /// softroce), else index 0.
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_open_device` (ENOMEM, ENODEV), `pv_query_port`,
    /// `pv_query_gid`; [`Error::PortNotActive`].
    pub fn open(&self) -> Result<Context> {
        Context::open(self.dev, 1, None)
    }

    /// Open a context on `port` (from 1) with GID index `gid_index`, or the
    /// default one when `None` (pollverbs addition: port and GID choice).
    /// Errors as [`Device::open`], plus [`Error::InvalidArgument`] for a
    /// port or GID index the device does not have.
    pub fn open_port(&self, port: u8, gid_index: Option<u8>) -> Result<Context> {
        Context::open(self.dev, port, gid_index)
    }

    /// The device's name, e.g. `sroce0` (`ibv_get_device_name(3)`).
    pub fn name(&self) -> Option<&'devlist CStr> {
        let p = unsafe { ffi::pv_get_device_name(self.dev) };
        if p.is_null() {
            None
        } else {
            Some(unsafe { CStr::from_ptr(p) })
        }
    }

    /// The node GUID, host byte order (`ibv_get_device_guid(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_get_device_guid` when the GUID is 0.
    pub fn guid(&self) -> Result<u64> {
        let g = unsafe { ffi::pv_get_device_guid(self.dev) };
        if g == 0 {
            Err(Error::errno("pv_get_device_guid", libc::ENODEV))
        } else {
            Ok(u64::from_be(g))
        }
    }

    /// The raw device (pollverbs addition), valid while the list lives.
    pub fn as_raw(&self) -> *mut ffi::pv_device {
        self.dev
    }
}

/// A GID (16 bytes, network order), as `union ibv_gid`.
#[derive(Default, Copy, Clone, Debug, Eq, PartialEq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(transparent)]
pub struct Gid {
    /// The 16 bytes.
    pub raw: [u8; 16],
}

impl Gid {
    /// The subnet prefix (first 8 bytes), host order.
    pub fn subnet_prefix(&self) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.raw[..8]);
        u64::from_be_bytes(b)
    }

    /// The interface id (last 8 bytes), host order.
    pub fn interface_id(&self) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.raw[8..]);
        u64::from_be_bytes(b)
    }

    /// Whether this is an IPv4-mapped GID (`::ffff:a.b.c.d`, RoCEv2 IPv4).
    pub fn is_ipv4_mapped(&self) -> bool {
        self.raw[..10].iter().all(|&b| b == 0) && self.raw[10] == 0xff && self.raw[11] == 0xff
    }

    /// Whether all 16 bytes are zero (an unused table entry).
    pub fn is_zero(&self) -> bool {
        self.raw.iter().all(|&b| b == 0)
    }
}

impl From<ffi::pv_gid> for Gid {
    fn from(g: ffi::pv_gid) -> Gid {
        Gid { raw: unsafe { g.raw } }
    }
}

impl From<Gid> for ffi::pv_gid {
    fn from(g: Gid) -> ffi::pv_gid {
        ffi::pv_gid { raw: g.raw }
    }
}

/// The C context and what the crate chose for it; closed when the last
/// handle (context, PD, CQ, QP, MR ...) goes.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) ctx: *mut ffi::pv_context,
    pub(crate) port: u8,
    pub(crate) gid_index: u8,
    pub(crate) gid: Gid,
    pub(crate) lid: u16,
    pub(crate) active_mtu: u32,
    /// false for a context the connection manager owns (closed by it)
    owned: bool,
    _live: LiveGuard,
}

// In the default thread-safe progress mode every verb may be called from
// any thread on any object (pv_verbs.h, "Thread rules").
unsafe impl Send for Ctx {}
unsafe impl Sync for Ctx {}

impl Drop for Ctx {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // EBUSY cannot happen while the Arcs keep the order
        destroyed("pv_close_device", unsafe { ffi::pv_close_device(self.ctx) });
    }
}

/// An RDMA context on one port of a device (`ibv_context`).
///
/// Cloning gives another handle to the same context; it is closed when the
/// last handle and the last object made from it (PD, CQ, QP, MR, ...) are
/// dropped, so no object outlives its context.
#[derive(Debug, Clone)]
pub struct Context {
    pub(crate) inner: Arc<Ctx>,
}

impl Context {
    fn open(dev: *mut ffi::pv_device, port: u8, gid_index: Option<u8>) -> Result<Context> {
        let ctx = unsafe { ffi::pv_open_device(dev) };
        if ctx.is_null() {
            return Err(Error::last("pv_open_device"));
        }
        Context::wrap(ctx, port, gid_index, true)
    }

    /// A handle on a context the connection manager opened (not closed by
    /// this crate).
    pub(crate) fn borrowed(ctx: *mut ffi::pv_context, port: u8) -> Result<Context> {
        Context::wrap(ctx, port, None, false)
    }

    fn wrap(ctx: *mut ffi::pv_context, port: u8, gid_index: Option<u8>, owned: bool) -> Result<Context> {
        // from here on Ctx's drop closes it on every error path
        let mut c = Ctx {
            ctx,
            port,
            gid_index: 0,
            gid: Gid::default(),
            lid: 0,
            active_mtu: ffi::pv_mtu::PV_MTU_1024,
            owned,
            _live: LiveGuard::new(),
        };
        let mut dattr = ffi::pv_device_attr::default();
        check("pv_query_device", unsafe { ffi::pv_query_device(ctx, &mut dattr) })?;
        if port == 0 || port > dattr.phys_port_cnt {
            return Err(Error::InvalidArgument(format!(
                "port {} (the device has ports 1..={})",
                port, dattr.phys_port_cnt
            )));
        }
        let deadline = Instant::now() + port_wait();
        let pattr = loop {
            let mut pattr = ffi::pv_port_attr::default();
            check("pv_query_port", unsafe { ffi::pv_query_port(ctx, port, &mut pattr) })?;
            if pattr.state == ffi::pv_port_state::PV_PORT_ACTIVE {
                break pattr;
            }
            if Instant::now() >= deadline {
                return Err(Error::PortNotActive { port, state: pattr.state as u32 });
            }
            unsafe { ffi::pv_progress(ctx) };
            std::thread::sleep(Duration::from_millis(1));
        };
        c.lid = pattr.lid;
        c.active_mtu = pattr.active_mtu;
        let idx = match gid_index {
            Some(i) => i,
            None => default_gid_index(ctx, port, pattr.gid_tbl_len)?,
        };
        if i32::from(idx) >= pattr.gid_tbl_len {
            return Err(Error::InvalidArgument(format!(
                "GID index {} (port {} has {})",
                idx, port, pattr.gid_tbl_len
            )));
        }
        c.gid = query_gid(ctx, port, idx)?;
        c.gid_index = idx;
        Ok(Context { inner: Arc::new(c) })
    }

    /// Create a completion queue of at least `min_cq_entries` entries
    /// (`ibv_create_cq(3)`); `id` is its `cq_context`, returned by
    /// [`CompletionChannel::get_cq_event`](crate::CompletionChannel::get_cq_event).
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_create_cq`: EINVAL `min_cq_entries` not in
    /// 1..=max_cqe, ENOMEM.
    pub fn create_cq(&self, min_cq_entries: i32, id: isize) -> Result<crate::CompletionQueue<'_>> {
        crate::cq::create(self, min_cq_entries, id, None, 0)
    }

    /// Allocate a protection domain (`ibv_alloc_pd(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_alloc_pd`: ENOMEM.
    pub fn alloc_pd(&self) -> Result<crate::ProtectionDomain<'_>> {
        crate::pd::alloc(self)
    }

    /// The port this context uses (pollverbs addition).
    pub fn port(&self) -> u8 {
        self.inner.port
    }

    /// The GID index this context uses for its QPs and AHs (pollverbs
    /// addition); [`QueuePairBuilder::set_gid_index`](crate::QueuePairBuilder::set_gid_index)
    /// overrides it per QP.
    pub fn gid_index(&self) -> u8 {
        self.inner.gid_index
    }

    /// The GID at [`Context::gid_index`].
    pub fn gid(&self) -> Gid {
        self.inner.gid
    }

    /// The GID index [`Device::open`] chooses: `PV_GID_INDEX` if set, else
    /// the first IPv4-mapped entry, else 0.
    pub fn default_gid_index(&self) -> Result<u8> {
        let pattr = self.query_port(self.inner.port)?;
        default_gid_index(self.inner.ctx, self.inner.port, pattr.gid_tbl_len())
    }

    /// Read GID table entry `index` of `port` (`ibv_query_gid(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_query_gid`: EINVAL bad port or index.
    pub fn query_gid(&self, port: u8, index: u8) -> Result<Gid> {
        query_gid(self.inner.ctx, port, index)
    }

    /// The device's attributes (`ibv_query_device(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_query_device`.
    pub fn query_device(&self) -> Result<DeviceAttr> {
        let mut a = ffi::pv_device_attr::default();
        check("pv_query_device", unsafe { ffi::pv_query_device(self.inner.ctx, &mut a) })?;
        Ok(DeviceAttr(a))
    }

    /// A port's attributes (`ibv_query_port(3)`); ports count from 1.
    /// # Errors
    /// [`Error::Verbs`] `pv_query_port`: EINVAL no such port.
    pub fn query_port(&self, port: u8) -> Result<PortAttr> {
        let mut a = ffi::pv_port_attr::default();
        check("pv_query_port", unsafe { ffi::pv_query_port(self.inner.ctx, port, &mut a) })?;
        Ok(PortAttr(a))
    }

    /// Make progress on the device's queues owned by the calling thread
    /// without polling a CQ (`pv_progress()`, pollverbs addition): the
    /// number of units of work done (0 when idle).
    /// # Errors
    /// [`Error::Verbs`] `pv_progress`.
    pub fn progress(&self) -> Result<usize> {
        let n = unsafe { ffi::pv_progress(self.inner.ctx) };
        if n < 0 {
            Err(Error::errno("pv_progress", -n))
        } else {
            Ok(n as usize)
        }
    }

    /// Switch the device to run-to-completion progress
    /// (`pv_set_progress_mode(PV_PROGRESS_APP)`, pollverbs addition): no
    /// lock on the data path, no background progress.
    ///
    /// # Safety
    /// The caller promises what that mode requires (pv_verbs.h): one thread
    /// at a time drives the device (all its QPs, CQs, SRQs), and polls or
    /// calls [`Context::progress`] often enough. The `Send`/`Sync` of this
    /// crate's types reflect the default mode; in this one, keep every
    /// object of the device on one thread.
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_set_progress_mode`: EBUSY the device already has
    /// QPs, CQs or SRQs; EOPNOTSUPP.
    pub unsafe fn set_progress_mode_app(&self) -> Result<()> {
        check(
            "pv_set_progress_mode",
            ffi::pv_set_progress_mode(self.inner.ctx, ffi::pv_progress_mode::PV_PROGRESS_APP),
        )
    }

    /// Create a completion event channel (`ibv_create_comp_channel(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_create_comp_channel`: ENOMEM, EMFILE.
    pub fn create_comp_channel(&self) -> Result<crate::CompletionChannel> {
        crate::cq::create_channel(self)
    }

    /// Create a CQ that raises events on `channel` when armed
    /// ([`CompletionQueue::req_notify`](crate::CompletionQueue::req_notify)).
    /// Errors as [`Context::create_cq`], plus EINVAL a bad `comp_vector`.
    pub fn create_cq_with_channel(
        &self,
        min_cq_entries: i32,
        id: isize,
        channel: &crate::CompletionChannel,
        comp_vector: i32,
    ) -> Result<crate::CompletionQueue<'_>> {
        crate::cq::create(self, min_cq_entries, id, Some(channel), comp_vector)
    }

    /// The next asynchronous event (`ibv_get_async_event(3)`), acknowledged
    /// before it is returned. Blocks unless [`Context::async_fd`] was made
    /// non-blocking; then `Ok(None)` when there is none.
    /// # Errors
    /// [`Error::Verbs`] `pv_get_async_event`.
    pub fn get_async_event(&self) -> Result<Option<AsyncEvent>> {
        let mut ev = ffi::pv_async_event::default();
        if unsafe { ffi::pv_get_async_event(self.inner.ctx, &mut ev) } != 0 {
            let e = Error::last("pv_get_async_event");
            if e.raw_os_error() == Some(libc::EAGAIN) {
                return Ok(None);
            }
            return Err(e);
        }
        let out = AsyncEvent {
            event_type: ev.event_type,
            port: if is_port_event(ev.event_type) {
                unsafe { ev.element.port_num as u8 }
            } else {
                0
            },
        };
        unsafe { ffi::pv_ack_async_event(&mut ev) };
        Ok(Some(out))
    }

    /// The file descriptor readable when an asynchronous event is queued
    /// (`context->async_fd`), for epoll or an async runtime.
    pub fn async_fd(&self) -> RawFd {
        unsafe { (*self.inner.ctx).async_fd }
    }

    /// The raw context (pollverbs addition), valid while this handle lives.
    pub fn as_raw(&self) -> *mut ffi::pv_context {
        self.inner.ctx
    }
}

fn is_port_event(t: ffi::pv_event_type::Type) -> bool {
    use ffi::pv_event_type::*;
    matches!(
        t,
        PV_EVENT_PORT_ACTIVE
            | PV_EVENT_PORT_ERR
            | PV_EVENT_LID_CHANGE
            | PV_EVENT_PKEY_CHANGE
            | PV_EVENT_SM_CHANGE
            | PV_EVENT_CLIENT_REREGISTER
            | PV_EVENT_GID_CHANGE
    )
}

/// An asynchronous event (`ibv_async_event`), already acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncEvent {
    /// Its `ibv_event_type` value ([`ibv_event_type`](crate::ibv_event_type)).
    pub event_type: ffi::pv_event_type::Type,
    /// The port of a port event, else 0.
    pub port: u8,
}

impl AsyncEvent {
    /// "port active" etc. (`ibv_event_type_str(3)`).
    pub fn describe(&self) -> String {
        let p = unsafe { ffi::pv_event_type_str(self.event_type) };
        if p.is_null() {
            return format!("event {}", self.event_type);
        }
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

impl AsRawFd for Context {
    /// The asynchronous event fd ([`Context::async_fd`]).
    fn as_raw_fd(&self) -> RawFd {
        self.async_fd()
    }
}

fn query_gid(ctx: *mut ffi::pv_context, port: u8, index: u8) -> Result<Gid> {
    let mut g = ffi::pv_gid::default();
    if unsafe { ffi::pv_query_gid(ctx, port, i32::from(index), &mut g) } != 0 {
        return Err(Error::last("pv_query_gid"));
    }
    Ok(g.into())
}

fn default_gid_index(ctx: *mut ffi::pv_context, port: u8, tbl_len: i32) -> Result<u8> {
    if let Ok(v) = std::env::var("PV_GID_INDEX") {
        return v
            .trim()
            .parse::<u8>()
            .map_err(|_| Error::InvalidArgument(format!("PV_GID_INDEX={:?}", v)));
    }
    for i in 0..tbl_len.clamp(0, 256) {
        if let Ok(g) = query_gid(ctx, port, i as u8) {
            if g.is_ipv4_mapped() {
                return Ok(i as u8);
            }
        }
    }
    Ok(0)
}

/// Device attributes (`ibv_device_attr`).
#[derive(Debug, Clone, Copy)]
pub struct DeviceAttr(pub ffi::pv_device_attr);

impl DeviceAttr {
    /// Largest number of outstanding WRs of a queue.
    pub fn max_qp_wr(&self) -> i32 {
        self.0.max_qp_wr
    }
    /// Largest number of SGEs of a WR.
    pub fn max_sge(&self) -> i32 {
        self.0.max_sge
    }
    /// Largest number of CQ entries.
    pub fn max_cqe(&self) -> i32 {
        self.0.max_cqe
    }
    /// Largest inline payload in bytes (pollverbs addition of the C struct).
    pub fn max_inline_data(&self) -> u32 {
        self.0.max_inline_data
    }
    /// Number of ports.
    pub fn phys_port_cnt(&self) -> u8 {
        self.0.phys_port_cnt
    }
    /// Largest number of SRQ WRs.
    pub fn max_srq_wr(&self) -> i32 {
        self.0.max_srq_wr
    }
    /// Node GUID, host order.
    pub fn node_guid(&self) -> u64 {
        u64::from_be(self.0.node_guid)
    }
    /// The raw attributes.
    pub fn as_raw(&self) -> &ffi::pv_device_attr {
        &self.0
    }
}

/// Port attributes (`ibv_port_attr`).
#[derive(Debug, Clone, Copy)]
pub struct PortAttr(pub ffi::pv_port_attr);

impl PortAttr {
    /// Its `ibv_port_state` value.
    pub fn state(&self) -> ffi::pv_port_state::Type {
        self.0.state
    }
    /// The active path MTU (`ibv_mtu` value).
    pub fn active_mtu(&self) -> ffi::pv_mtu::Type {
        self.0.active_mtu
    }
    /// The LID (0 on RoCE).
    pub fn lid(&self) -> u16 {
        self.0.lid
    }
    /// Entries of the GID table.
    pub fn gid_tbl_len(&self) -> i32 {
        self.0.gid_tbl_len
    }
    /// `IBV_LINK_LAYER_*`: 2 for Ethernet (RoCE).
    pub fn link_layer(&self) -> u8 {
        self.0.link_layer
    }
    /// The raw attributes.
    pub fn as_raw(&self) -> &ffi::pv_port_attr {
        &self.0
    }
}
