// SPDX-License-Identifier: BSD-3-Clause
//! The crate's error type.

use std::io;

/// Every error of this crate.
///
/// The `ibverbs` crate 0.4 returned `io::Result` from some calls and
/// `Result<_, ()>` from others; pollverbs returns `Result<_, Error>`
/// everywhere. Code written for 0.4 that calls `unwrap()`, `expect()` or
/// `?` (into `io::Error` or `Box<dyn std::error::Error>`) compiles
/// unchanged, and [`Error::kind`] / [`Error::raw_os_error`] answer as the
/// `io::Error` did.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A pollverbs call failed with an errno (`source` holds it); `call`
    /// names the C function (its man page `ibv_*(3)` lists the errnos).
    #[error("{call}: {source}")]
    Verbs {
        /// The failing C function, e.g. `"pv_create_qp"`.
        call: &'static str,
        /// The errno, as an `io::Error` (`raw_os_error()` gives it).
        #[source]
        source: io::Error,
    },
    /// The runtime (DPDK's EAL) is not running: call [`crate::init`] first,
    /// or set `PV_EAL_ARGS` before the first [`crate::devices`] call.
    #[error("pollverbs runtime not started: call pollverbs::init() or set PV_EAL_ARGS")]
    NotStarted,
    /// [`crate::init`] was already called in this process (DPDK's EAL
    /// starts once per process, even after [`crate::cleanup`]).
    #[error("pollverbs runtime already started in this process")]
    AlreadyStarted,
    /// [`crate::cleanup`] while objects of pollverbs are still alive.
    #[error("pollverbs runtime busy: {0} device lists or contexts are still alive")]
    Busy(usize),
    /// An argument the C side would reject (or could not represent).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The port did not become ACTIVE in time (`ibv_query_port(3)` state).
    #[error("port {port} is not active (state {state})")]
    PortNotActive {
        /// The port number (from 1).
        port: u8,
        /// Its `ibv_port_state` value.
        state: u32,
    },
}

impl Error {
    /// An error from an errno value (positive).
    pub(crate) fn errno(call: &'static str, errno: i32) -> Error {
        Error::Verbs { call, source: io::Error::from_raw_os_error(errno) }
    }

    /// An error from the calling thread's `errno` (calls returning NULL or -1).
    pub(crate) fn last(call: &'static str) -> Error {
        let e = io::Error::last_os_error();
        // a NULL return with errno 0 would read as "success": say EIO
        let e = match e.raw_os_error() {
            Some(0) | None => io::Error::from_raw_os_error(libc::EIO),
            _ => e,
        };
        Error::Verbs { call, source: e }
    }

    /// The errno behind this error, as `io::Error::raw_os_error()`.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            Error::Verbs { source, .. } => source.raw_os_error(),
            Error::NotStarted => Some(libc::ENOSYS),
            Error::AlreadyStarted => Some(libc::EALREADY),
            Error::Busy(_) => Some(libc::EBUSY),
            Error::InvalidArgument(_) => Some(libc::EINVAL),
            Error::PortNotActive { .. } => Some(libc::ENETDOWN),
        }
    }

    /// The `io::ErrorKind` of this error, as `io::Error::kind()`.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            Error::Verbs { source, .. } => source.kind(),
            Error::InvalidArgument(_) => io::ErrorKind::InvalidInput,
            _ => io::ErrorKind::Other,
        }
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e.raw_os_error() {
            Some(errno) => io::Error::new(io::Error::from_raw_os_error(errno).kind(), e),
            None => io::Error::new(io::ErrorKind::Other, e),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// 0 or a positive errno (the verbs' convention) to a `Result`.
pub(crate) fn check(call: &'static str, ret: i32) -> Result<()> {
    if ret == 0 {
        Ok(())
    } else {
        Err(Error::errno(call, ret.abs()))
    }
}

/// For drops, which must not panic: report a failed destroy call (0 or an
/// errno, either sign) on stderr; returns whether it succeeded.
pub(crate) fn destroyed(call: &str, ret: i32) -> bool {
    if ret != 0 {
        eprintln!("pollverbs: {}: {}", call, io::Error::from_raw_os_error(ret.abs()));
    }
    ret == 0
}
