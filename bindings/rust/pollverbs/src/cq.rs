// SPDX-License-Identifier: BSD-3-Clause
//! Completion queues, work completions and completion channels.

use std::marker::PhantomData;
use std::os::unix::io::{AsRawFd, RawFd};
use std::sync::Arc;
use std::time::Duration;

use crate::device::{Context, Ctx};
use crate::error::{check, destroyed, Error, Result};
use crate::ffi;
use crate::names::{ibv_wc_flags, ibv_wc_opcode, ibv_wc_status};

/// The C CQ; destroyed when the last handle (CQ, QPs using it) goes.
#[derive(Debug)]
pub(crate) struct Cq {
    pub(crate) cq: *mut ffi::pv_cq,
    _channel: Option<Arc<Channel>>,
    _ctx: Arc<Ctx>,
}

// pv_verbs.h: in the default thread-safe mode any thread may call any verb
// on any object; the CQ's data path takes the device's lock.
unsafe impl Send for Cq {}
unsafe impl Sync for Cq {}

impl Drop for Cq {
    fn drop(&mut self) {
        destroyed("pv_destroy_cq", unsafe { ffi::pv_destroy_cq(self.cq) });
    }
}

pub(crate) fn create<'c>(
    ctx: &'c Context,
    min: i32,
    id: isize,
    channel: Option<&CompletionChannel>,
    comp_vector: i32,
) -> Result<CompletionQueue<'c>> {
    let ch = channel.map(|c| c.inner.ch).unwrap_or(std::ptr::null_mut());
    let cq = unsafe {
        ffi::pv_create_cq(ctx.inner.ctx, min, id as *mut std::os::raw::c_void, ch, comp_vector)
    };
    if cq.is_null() {
        return Err(Error::last("pv_create_cq"));
    }
    Ok(CompletionQueue {
        inner: Arc::new(Cq {
            cq,
            _channel: channel.map(|c| c.inner.clone()),
            _ctx: ctx.inner.clone(),
        }),
        _ctx: PhantomData,
    })
}

/// A completion queue (`ibv_cq`).
///
/// The QPs created on it keep it alive: it is destroyed when the last of
/// it and them is dropped.
#[derive(Debug)]
pub struct CompletionQueue<'ctx> {
    pub(crate) inner: Arc<Cq>,
    _ctx: PhantomData<&'ctx ()>,
}

impl<'ctx> CompletionQueue<'ctx> {
    /// Poll for up to `completions.len()` work completions
    /// (`ibv_poll_cq(3)`), through the CQ's `fp_poll_cq` as `pv_poll_cq()`
    /// does; on a poll-mode driver this also makes progress. Returns the
    /// filled prefix of `completions` (empty when none is ready).
    ///
    /// # Errors
    /// [`Error::Verbs`] `pv_poll_cq`: the driver's negative return.
    #[inline]
    pub fn poll<'c>(&self, completions: &'c mut [ibv_wc]) -> Result<&'c mut [ibv_wc]> {
        let n = completions.len().min(i32::MAX as usize) as i32;
        let got = unsafe {
            ffi::pv_poll_cq(self.inner.cq, n, completions.as_mut_ptr() as *mut ffi::pv_wc)
        };
        if got < 0 {
            return Err(Error::errno("pv_poll_cq", -got));
        }
        Ok(&mut completions[..got as usize])
    }

    /// Arm the CQ for one completion event on its channel
    /// (`ibv_req_notify_cq(3)`); `solicited_only`: only solicited or error
    /// completions fire it.
    /// # Errors
    /// [`Error::Verbs`] `pv_req_notify_cq`: EINVAL the CQ has no channel.
    pub fn req_notify(&self, solicited_only: bool) -> Result<()> {
        check("pv_req_notify_cq", unsafe {
            ffi::pv_req_notify_cq(self.inner.cq, solicited_only as i32)
        })
    }

    /// Acknowledge `n` events of this CQ read from its channel
    /// (`ibv_ack_cq_events(3)`).
    pub fn ack_events(&self, n: u32) {
        unsafe { ffi::pv_ack_cq_events(self.inner.cq, n) }
    }

    /// The raw CQ (pollverbs addition), valid while this handle lives.
    pub fn as_raw(&self) -> *mut ffi::pv_cq {
        self.inner.cq
    }
}

/// A work completion (`struct ibv_wc`), with the `ibverbs` crate's
/// accessors. Same layout as `pv_wc`: an array of them is what
/// `pv_poll_cq()` fills.
#[repr(transparent)]
#[derive(Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct ibv_wc(pub ffi::pv_wc);

impl std::fmt::Debug for ibv_wc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ibv_wc")
            .field("wr_id", &self.0.wr_id)
            .field("status", &self.0.status)
            .field("opcode", &self.0.opcode)
            .field("vendor_err", &self.0.vendor_err)
            .field("byte_len", &self.0.byte_len)
            .field("imm_data", &unsafe { self.0.__bindgen_anon_1.imm_data })
            .field("qp_num", &self.0.qp_num)
            .field("src_qp", &self.0.src_qp)
            .field("wc_flags", &self.0.wc_flags)
            .finish()
    }
}

impl Default for ibv_wc {
    /// A completion that is not valid (status `IBV_WC_GENERAL_ERR`), as the
    /// `ibverbs` crate's default.
    fn default() -> ibv_wc {
        let mut wc = ffi::pv_wc::default();
        wc.status = ibv_wc_status::IBV_WC_GENERAL_ERR;
        ibv_wc(wc)
    }
}

impl ibv_wc {
    /// The `wr_id` of the work request that completed.
    pub fn wr_id(&self) -> u64 {
        self.0.wr_id
    }

    /// Bytes received (receive completions; for UD including the 40-byte GRH).
    pub fn len(&self) -> usize {
        self.0.byte_len as usize
    }

    /// Whether the length is 0.
    pub fn is_empty(&self) -> bool {
        self.0.byte_len == 0
    }

    /// Whether the work request succeeded (`IBV_WC_SUCCESS`).
    pub fn is_valid(&self) -> bool {
        self.0.status == ibv_wc_status::IBV_WC_SUCCESS
    }

    /// `None` on success, else the status and the vendor error.
    pub fn error(&self) -> Option<(ibv_wc_status::Type, u32)> {
        if self.is_valid() {
            None
        } else {
            Some((self.0.status, self.0.vendor_err))
        }
    }

    /// The status (`ibv_wc_status`).
    pub fn status(&self) -> ibv_wc_status::Type {
        self.0.status
    }

    /// The status as text (`ibv_wc_status_str(3)`).
    pub fn status_str(&self) -> String {
        let p = unsafe { ffi::pv_wc_status_str(self.0.status) };
        if p.is_null() {
            return format!("status {}", self.0.status);
        }
        unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    /// The operation that completed (`ibv_wc_opcode`); receive completions
    /// have `IBV_WC_RECV` set. Meaningful on success only.
    pub fn opcode(&self) -> ibv_wc_opcode::Type {
        self.0.opcode
    }

    /// The immediate data, host byte order, of a successful completion
    /// carrying one (`IBV_WC_WITH_IMM`). (The `ibverbs` crate 0.4 returned
    /// it in network order.)
    pub fn imm_data(&self) -> Option<u32> {
        if self.is_valid() && self.wc_flags().contains(ibv_wc_flags::IBV_WC_WITH_IMM) {
            Some(u32::from_be(unsafe { self.0.__bindgen_anon_1.imm_data }))
        } else {
            None
        }
    }

    /// Local QP number.
    pub fn qp_num(&self) -> u32 {
        self.0.qp_num
    }

    /// Source QP number (UD receive completions).
    pub fn src_qp(&self) -> u32 {
        self.0.src_qp
    }

    /// Completion flags (`ibv_wc_flags`).
    pub fn wc_flags(&self) -> ibv_wc_flags {
        ibv_wc_flags(self.0.wc_flags)
    }

    /// Whether a GRH fills the first 40 bytes of the receive buffer (UD).
    pub fn has_grh(&self) -> bool {
        self.wc_flags().contains(ibv_wc_flags::IBV_WC_GRH)
    }

    /// Service level.
    pub fn sl(&self) -> u8 {
        self.0.sl
    }

    /// The raw completion.
    pub fn as_raw(&self) -> &ffi::pv_wc {
        &self.0
    }
}

/// The C channel; destroyed when the channel and every CQ on it are gone.
#[derive(Debug)]
pub(crate) struct Channel {
    pub(crate) ch: *mut ffi::pv_comp_channel,
    _ctx: Arc<Ctx>,
}

unsafe impl Send for Channel {}
unsafe impl Sync for Channel {}

impl Drop for Channel {
    fn drop(&mut self) {
        destroyed("pv_destroy_comp_channel", unsafe { ffi::pv_destroy_comp_channel(self.ch) });
    }
}

pub(crate) fn create_channel(ctx: &Context) -> Result<CompletionChannel> {
    let ch = unsafe { ffi::pv_create_comp_channel(ctx.inner.ctx) };
    if ch.is_null() {
        return Err(Error::last("pv_create_comp_channel"));
    }
    Ok(CompletionChannel { inner: Arc::new(Channel { ch, _ctx: ctx.inner.clone() }) })
}

/// A completion event channel (`ibv_comp_channel`, pollverbs addition to
/// the 0.4 API): its fd ([`AsRawFd`]) is readable when an armed CQ on it
/// got a completion, for epoll, `poll(2)` or an async runtime's reactor.
#[derive(Debug, Clone)]
pub struct CompletionChannel {
    pub(crate) inner: Arc<Channel>,
}

impl CompletionChannel {
    /// The channel's fd.
    pub fn fd(&self) -> RawFd {
        unsafe { (*self.inner.ch).fd }
    }

    /// Make [`CompletionChannel::get_cq_event`] return `Ok(None)` instead of
    /// blocking when no event is pending (`O_NONBLOCK` on the fd).
    /// # Errors
    /// [`Error::Verbs`] `fcntl`.
    pub fn set_nonblocking(&self, nonblocking: bool) -> Result<()> {
        let fd = self.fd();
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 {
            return Err(Error::last("fcntl"));
        }
        let flags = if nonblocking { flags | libc::O_NONBLOCK } else { flags & !libc::O_NONBLOCK };
        if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
            return Err(Error::last("fcntl"));
        }
        Ok(())
    }

    /// Read the next completion event (`ibv_get_cq_event(3)`): the `id`
    /// (cq_context) the CQ was created with. Blocks unless non-blocking,
    /// then `Ok(None)` when none is pending. Acknowledge it with
    /// [`CompletionQueue::ack_events`] and re-arm with
    /// [`CompletionQueue::req_notify`].
    /// # Errors
    /// [`Error::Verbs`] `pv_get_cq_event`.
    pub fn get_cq_event(&self) -> Result<Option<isize>> {
        let mut cq: *mut ffi::pv_cq = std::ptr::null_mut();
        let mut cq_ctx: *mut std::os::raw::c_void = std::ptr::null_mut();
        if unsafe { ffi::pv_get_cq_event(self.inner.ch, &mut cq, &mut cq_ctx) } != 0 {
            let e = Error::last("pv_get_cq_event");
            if e.raw_os_error() == Some(libc::EAGAIN) {
                return Ok(None);
            }
            return Err(e);
        }
        Ok(Some(cq_ctx as isize))
    }

    /// Wait up to `timeout` (forever with `None`) for the fd to be readable
    /// (`poll(2)`), then [`get_cq_event`](CompletionChannel::get_cq_event)
    /// without blocking (a blocking fd is switched to `O_NONBLOCK` for that
    /// read and back). `Ok(None)` on timeout, or when another thread took
    /// the event first.
    /// # Errors
    /// [`Error::Verbs`] `poll` or `pv_get_cq_event`.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<Option<isize>> {
        let mut pfd = libc::pollfd { fd: self.fd(), events: libc::POLLIN, revents: 0 };
        let ms = timeout.map(|t| t.as_millis().min(i32::MAX as u128) as i32).unwrap_or(-1);
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            return Err(Error::last("poll"));
        }
        if n == 0 {
            return Ok(None);
        }
        let fd = self.fd();
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        let was_blocking = flags >= 0 && flags & libc::O_NONBLOCK == 0;
        if was_blocking {
            self.set_nonblocking(true)?;
        }
        let r = self.get_cq_event();
        if was_blocking {
            self.set_nonblocking(false)?;
        }
        r
    }

    /// The raw channel (pollverbs addition).
    pub fn as_raw(&self) -> *mut ffi::pv_comp_channel {
        self.inner.ch
    }
}

impl AsRawFd for CompletionChannel {
    fn as_raw_fd(&self) -> RawFd {
        self.fd()
    }
}
