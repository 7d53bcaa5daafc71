// SPDX-License-Identifier: BSD-3-Clause
//! The connection manager (`pv_rdma_cma.h`, librdmacm's API; pollverbs
//! addition): RC connections set up by address and port, with the IBTA CM
//! on QP1 instead of an out-of-band endpoint exchange.
//!
//! The ids are synchronous (librdmacm's sync mode: each call waits for its
//! event). The client side resolves the server's address to a device
//! ([`Connector::resolve`]), whose [`Context`] makes the PD, CQs and memory;
//! [`Connector::connect`] creates the QP from a [`QueuePairBuilder`] and
//! connects it. The server side binds a [`Listener`], takes a [`Request`]
//! and accepts it the same way. The CM drives the QP to RTS; the
//! [`QueuePair`] returned is the usual one, and dropping it destroys the QP
//! and its id (a DREQ to the peer first).

use std::net::SocketAddr;

use crate::device::Context;
use crate::error::{Error, Result};
use crate::ffi;
use crate::qp::{QueuePair, QueuePairBuilder};

/// A CM id; destroyed on drop (`rdma_destroy_id(3)`).
#[derive(Debug)]
pub(crate) struct CmId(pub(crate) *mut ffi::pv_rdma_cm_id);

// The CM's calls take its own locks (lib/cm); an id may move between threads.
unsafe impl Send for CmId {}
unsafe impl Sync for CmId {}

impl Drop for CmId {
    fn drop(&mut self) {
        if unsafe { ffi::pv_rdma_destroy_id(self.0) } != 0 {
            eprintln!("pollverbs: pv_rdma_destroy_id: {}", std::io::Error::last_os_error());
        }
    }
}

/// A synchronous RC (TCP port space) id.
fn create_id() -> Result<CmId> {
    let mut id = std::ptr::null_mut();
    let ret = unsafe {
        ffi::pv_rdma_create_id(
            std::ptr::null_mut(),
            &mut id,
            std::ptr::null_mut(),
            ffi::pv_rdma_port_space::PV_RDMA_PS_TCP,
        )
    };
    if ret != 0 {
        return Err(Error::last("pv_rdma_create_id"));
    }
    Ok(CmId(id))
}

/// `addr` as a C socket address (storage, length).
fn sockaddr(addr: &SocketAddr) -> libc::sockaddr_storage {
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    match addr {
        SocketAddr::V4(a) => {
            let sin = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in) };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = a.port().to_be();
            sin.sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
        }
        SocketAddr::V6(a) => {
            let sin6 = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in6) };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = a.port().to_be();
            sin6.sin6_addr.s6_addr = a.ip().octets();
            sin6.sin6_scope_id = a.scope_id();
        }
    }
    ss
}

fn as_sa(ss: &mut libc::sockaddr_storage) -> *mut ffi::sockaddr {
    ss as *mut libc::sockaddr_storage as *mut ffi::sockaddr
}

/// The context and port the CM resolved `id` to.
fn id_context(id: &CmId) -> Result<Context> {
    let (verbs, port) = unsafe { ((*id.0).verbs, (*id.0).port_num) };
    if verbs.is_null() {
        return Err(Error::errno("pv_rdma_cm_id.verbs", libc::ENODEV));
    }
    Context::borrowed(verbs, if port == 0 { 1 } else { port })
}

/// Create the id's QP from `b` (`rdma_create_qp(3)`): it must be built on a
/// PD of the id's context.
fn create_qp(id: &CmId, b: &QueuePairBuilder<'_>) -> Result<()> {
    let mut ia = b.init_attr();
    if unsafe { ffi::pv_rdma_create_qp(id.0, b.pd_raw(), &mut ia) } != 0 {
        return Err(Error::last("pv_rdma_create_qp"));
    }
    Ok(())
}

type ConnFn = unsafe extern "C" fn(*mut ffi::pv_rdma_cm_id, *mut ffi::pv_rdma_conn_param) -> i32;

/// Create `id`'s QP from `b`, wrap it (the QP is destroyed before the id,
/// also on error), then `rdma_connect`/`rdma_accept` with the builder's
/// connection parameters.
fn establish<'r>(id: CmId, b: &QueuePairBuilder<'r>, call: &'static str, f: ConnFn) -> Result<QueuePair<'r>> {
    create_qp(&id, b)?;
    let raw = unsafe { (*id.0).qp };
    let qp = QueuePair::from_qp(b.wrap(raw, Some(id)));
    let mut p = b.conn_param();
    if unsafe { f(qp.cm_id(), &mut p) } != 0 {
        return Err(Error::last(call));
    }
    Ok(qp)
}

/// The active side: an id whose address and route are resolved.
#[derive(Debug)]
pub struct Connector {
    id: CmId,
    ctx: Context,
}

impl Connector {
    /// Resolve `dst` (the server's address and port) to a local device and
    /// a route (`rdma_resolve_addr(3)`, `rdma_resolve_route(3)`), within
    /// `timeout_ms` each.
    /// # Errors
    /// [`Error::Verbs`] `pv_rdma_create_id` (ENODEV no runtime or device),
    /// `pv_rdma_resolve_addr` (EADDRNOTAVAIL no device reaches it, ETIMEDOUT),
    /// `pv_rdma_resolve_route`.
    pub fn resolve(dst: SocketAddr, timeout_ms: i32) -> Result<Connector> {
        let id = create_id()?;
        let mut ss = sockaddr(&dst);
        if unsafe { ffi::pv_rdma_resolve_addr(id.0, std::ptr::null_mut(), as_sa(&mut ss), timeout_ms) }
            != 0
        {
            return Err(Error::last("pv_rdma_resolve_addr"));
        }
        if unsafe { ffi::pv_rdma_resolve_route(id.0, timeout_ms) } != 0 {
            return Err(Error::last("pv_rdma_resolve_route"));
        }
        let ctx = id_context(&id)?;
        Ok(Connector { id, ctx })
    }

    /// The context of the device the address resolved to: make the PD,
    /// CQs and memory of the connection with it.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Create the QP `b` describes (an RC builder on a PD of
    /// [`context`](Connector::context)) and connect (`rdma_connect(3)`);
    /// returns once ESTABLISHED. The builder's RD atomic depths and retry
    /// counts are the connection's parameters. On error the QP and the id
    /// are destroyed.
    /// # Errors
    /// [`Error::Verbs`] `pv_rdma_create_qp` (EINVAL a PD of another
    /// context), `pv_rdma_connect` (ECONNREFUSED rejected, ETIMEDOUT or
    /// EHOSTUNREACH unreachable).
    pub fn connect<'r>(self, b: &QueuePairBuilder<'r>) -> Result<QueuePair<'r>> {
        establish(self.id, b, "pv_rdma_connect", ffi::pv_rdma_connect)
    }
}

/// The passive side: an id bound to an address and listening.
#[derive(Debug)]
pub struct Listener {
    id: CmId,
}

impl Listener {
    /// Bind `addr` (a device's address, or the wildcard for every device;
    /// port 0: an ephemeral one) and listen (`rdma_bind_addr(3)`,
    /// `rdma_listen(3)`), queueing up to `backlog` requests (0: default).
    /// # Errors
    /// [`Error::Verbs`] `pv_rdma_create_id`, `pv_rdma_bind_addr`
    /// (EADDRNOTAVAIL no device has it, EADDRINUSE), `pv_rdma_listen`.
    pub fn bind(addr: SocketAddr, backlog: i32) -> Result<Listener> {
        let id = create_id()?;
        let mut ss = sockaddr(&addr);
        if unsafe { ffi::pv_rdma_bind_addr(id.0, as_sa(&mut ss)) } != 0 {
            return Err(Error::last("pv_rdma_bind_addr"));
        }
        if unsafe { ffi::pv_rdma_listen(id.0, backlog) } != 0 {
            return Err(Error::last("pv_rdma_listen"));
        }
        Ok(Listener { id })
    }

    /// The bound port (useful after binding port 0).
    pub fn port(&self) -> u16 {
        u16::from_be(unsafe { ffi::pv_rdma_get_src_port(self.id.0) })
    }

    /// Wait for the next connection request (`rdma_get_request(3)`).
    /// # Errors
    /// [`Error::Verbs`] `pv_rdma_get_request`.
    pub fn get_request(&self) -> Result<Request> {
        let mut id = std::ptr::null_mut();
        if unsafe { ffi::pv_rdma_get_request(self.id.0, &mut id) } != 0 {
            return Err(Error::last("pv_rdma_get_request"));
        }
        let id = CmId(id);
        let ctx = id_context(&id)?;
        Ok(Request { id, ctx })
    }
}

/// A connection request: accept it with a QP, or drop it to reject it.
#[derive(Debug)]
pub struct Request {
    id: CmId,
    ctx: Context,
}

impl Request {
    /// The context of the device the request came in on.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Create the QP `b` describes (an RC builder on a PD of
    /// [`context`](Request::context)) and accept (`rdma_accept(3)`):
    /// returns once ESTABLISHED (the RTU arrived).
    /// # Errors
    /// [`Error::Verbs`] `pv_rdma_create_qp`, `pv_rdma_accept`.
    pub fn accept<'r>(self, b: &QueuePairBuilder<'r>) -> Result<QueuePair<'r>> {
        establish(self.id, b, "pv_rdma_accept", ffi::pv_rdma_accept)
    }

    /// Reject the request with `private_data` (at most 148 bytes; REJ
    /// reason "consumer reject"; `rdma_reject(3)`).
    /// # Errors
    /// [`Error::InvalidArgument`] too much private data; [`Error::Verbs`]
    /// `pv_rdma_reject`.
    pub fn reject(self, private_data: &[u8]) -> Result<()> {
        if private_data.len() > 148 {
            return Err(Error::InvalidArgument("REJ private data above 148 bytes".into()));
        }
        let ret = unsafe {
            ffi::pv_rdma_reject(
                self.id.0,
                private_data.as_ptr() as *const std::os::raw::c_void,
                private_data.len() as u8,
            )
        };
        if ret != 0 {
            return Err(Error::last("pv_rdma_reject"));
        }
        Ok(())
    }
}
