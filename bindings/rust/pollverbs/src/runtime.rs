// SPDX-License-Identifier: BSD-3-Clause
//! Starting and stopping pollverbs' runtime (DPDK's EAL, `pv_rtc.h`).

use std::ffi::CString;
use std::os::raw::c_char;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::ffi;

/// Runtime state: not started (by us), running, cleaned up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Idle,
    Running,
    Done,
}

static STATE: Mutex<State> = Mutex::new(State::Idle);

/// The argument vector given to pv_init(), kept for the life of the
/// process (EAL keeps pointers into it): the strings and the pointer array,
/// the pointers as addresses (raw pointers are not Send).
static ARGV: Mutex<(Vec<CString>, Vec<usize>)> = Mutex::new((Vec::new(), Vec::new()));

/// Device lists and contexts alive: `cleanup()` refuses while any is.
pub(crate) static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Holds one count of [`LIVE`] for as long as it lives.
#[derive(Debug)]
pub(crate) struct LiveGuard(());

impl LiveGuard {
    pub(crate) fn new() -> LiveGuard {
        LIVE.fetch_add(1, Ordering::SeqCst);
        LiveGuard(())
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The environment variable [`devices`](crate::devices) starts the runtime
/// from when [`init`] was not called: EAL and pollverbs arguments separated
/// by white space (no quoting), e.g.
/// `--no-huge -m 256 --vdev=net_ring0 --pv-dev=softroce:port=net_ring0,ip=10.0.0.1`.
pub const EAL_ARGS_ENV: &str = "PV_EAL_ARGS";

/// Start pollverbs: `pv_init()` (pv_rtc.h), which takes out its own
/// `--pv-dev=DRIVER:ARGS` options, starts DPDK's EAL with the others
/// (`-l`, `--no-huge`, `-m`, `--vdev`, `--file-prefix`, ...; it adds
/// `--no-huge` itself when no hugepages are free) and starts the control
/// thread.
///
/// `args` is a full argument vector: `args[0]` is the program name (as
/// `std::env::args()` gives it). Returns the application's arguments: those
/// after a `--`, without the program name.
///
/// The strings are copied and kept for the life of the process (EAL keeps
/// pointers to them).
///
/// # Errors
/// - [`Error::AlreadyStarted`]: called before in this process (also after
///   [`cleanup`]: EAL cannot start twice in one process).
/// - [`Error::InvalidArgument`]: an argument holds a NUL byte.
/// - [`Error::Verbs`] with `call` `"pv_init"`: pv_init's errno (EINVAL a bad
///   `--pv-` option, ENOMEM, or EAL's rte_errno).
///
/// # Thread
/// The process's main thread, once (DPDK pins the calling thread to the
/// main lcore's cores). Tests that start EAL run in their own process:
/// `harness = false` test targets.
pub fn init<I, S>(args: I) -> Result<Vec<String>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if *state != State::Idle {
        return Err(Error::AlreadyStarted);
    }
    let mut owned = Vec::new();
    for a in args {
        match CString::new(a.as_ref()) {
            Ok(c) => owned.push(c),
            Err(_) => {
                return Err(Error::InvalidArgument(format!("NUL byte in argument {:?}", a.as_ref())))
            }
        }
    }
    if owned.is_empty() {
        owned.push(CString::new("pollverbs").unwrap());
    }
    // EAL keeps pointers into argv: keep both in ARGV (reachable, never freed)
    let mut keep = ARGV.lock().unwrap_or_else(|e| e.into_inner());
    let mut ptrs: Vec<usize> = owned.iter().map(|c| c.as_ptr() as usize).collect();
    let argc = ptrs.len();
    ptrs.push(0);
    *keep = (owned, ptrs);
    let argv = keep.1.as_mut_ptr() as *mut *mut c_char;
    let ret = unsafe { ffi::pv_init(argc as i32, argv) };
    if ret == -libc::EALREADY {
        *state = State::Running;
        return Err(Error::AlreadyStarted);
    }
    if ret < 0 {
        return Err(Error::errno("pv_init", -ret));
    }
    *state = State::Running;
    // pv_init permuted the pointer array: read the application's part
    let first_app = ret as usize + 1;
    let rest = keep.1[first_app.min(argc)..argc]
        .iter()
        .map(|&p| unsafe { std::ffi::CStr::from_ptr(p as *const c_char) }.to_string_lossy().into_owned())
        .collect();
    Ok(rest)
}

/// Start the runtime from [`EAL_ARGS_ENV`] if it is set and nothing started
/// it yet; called by [`devices`](crate::devices), so that a program written
/// for the `ibverbs` crate needs no new line. Returns whether the runtime
/// runs (as far as this crate knows: a program may also have called
/// `pv_init()` through `ffi`).
pub(crate) fn start_from_env() -> Result<bool> {
    {
        let state = STATE.lock().unwrap_or_else(|e| e.into_inner());
        match *state {
            State::Running => return Ok(true),
            State::Done => return Err(Error::NotStarted),
            State::Idle => {}
        }
    }
    let args = match std::env::var(EAL_ARGS_ENV) {
        Ok(a) => a,
        Err(_) => return Ok(false),
    };
    let prog = std::env::args().next().unwrap_or_else(|| "pollverbs".to_string());
    let argv = std::iter::once(prog).chain(args.split_whitespace().map(String::from));
    match init(argv) {
        Ok(_) => Ok(true),
        // started by someone else meanwhile (or by pv_init() through ffi)
        Err(Error::AlreadyStarted) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Whether [`init`] (or the `PV_EAL_ARGS` start) succeeded and [`cleanup`]
/// has not run.
pub fn is_started() -> bool {
    *STATE.lock().unwrap_or_else(|e| e.into_inner()) == State::Running
}

/// Stop pollverbs: `pv_cleanup()` (workers, control thread, devices, EAL).
///
/// # Errors
/// - [`Error::Busy`]: device lists or contexts (and so objects made from
///   them) are still alive: drop them first.
/// - [`Error::NotStarted`]: the runtime is not running.
/// - [`Error::Verbs`] with `call` `"pv_cleanup"`: its errno.
///
/// # Thread
/// The main thread, once; the runtime cannot be started again afterwards.
pub fn cleanup() -> Result<()> {
    let mut state = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if *state != State::Running {
        return Err(Error::NotStarted);
    }
    let live = LIVE.load(Ordering::SeqCst);
    if live != 0 {
        return Err(Error::Busy(live));
    }
    *state = State::Done;
    let ret = unsafe { ffi::pv_cleanup() };
    if ret < 0 {
        return Err(Error::errno("pv_cleanup", -ret));
    }
    Ok(())
}
