// SPDX-License-Identifier: BSD-3-Clause
//! pollverbs' run-to-completion runtime (`pv_rtc.h`, pollverbs addition):
//! launching closures on worker lcores, pollers on an lcore's poll loop,
//! the loop itself, and tasks for the control thread.
//!
//! Thread rules (pv_rtc.h): [`lcore_launch`] and [`lcore_wait`] on the main
//! lcore; a [`Poller`] belongs to the lcore that registered it, so it is
//! neither `Send` nor `Sync` and unregisters itself on drop there;
//! [`loop_run`] and [`loop_once`] on an EAL lcore; [`loop_stop`] and
//! [`ctrl_call`] from any thread. A panic inside a closure run by the C side
//! is caught (it must not unwind through C) and reported as `-EIO` (or, for
//! a control-thread task, printed).

use std::marker::PhantomData;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{destroyed, Error, Result};
use crate::ffi;

type LcoreFn = Box<dyn FnOnce() -> i32 + Send + 'static>;

unsafe extern "C" fn lcore_trampoline(arg: *mut c_void) -> c_int {
    let f: Box<LcoreFn> = Box::from_raw(arg as *mut LcoreFn);
    match catch_unwind(AssertUnwindSafe(move || f())) {
        Ok(r) => r,
        Err(_) => -libc::EIO,
    }
}

/// Run `f` on worker lcore `lcore_id` (`pv_rtc_lcore_launch()`,
/// `rte_eal_remote_launch()`); [`lcore_wait`] returns its result.
///
/// # Errors
/// [`Error::Verbs`] `pv_rtc_lcore_launch`: EINVAL `lcore_id` is not an
/// enabled worker lcore (`-l` of [`init`](crate::init)), EBUSY it still
/// runs a function, EPERM the caller is not the main lcore.
pub fn lcore_launch<F>(lcore_id: u32, f: F) -> Result<()>
where
    F: FnOnce() -> i32 + Send + 'static,
{
    let boxed: Box<LcoreFn> = Box::new(Box::new(f));
    let arg = Box::into_raw(boxed) as *mut c_void;
    let ret = unsafe { ffi::pv_rtc_lcore_launch(lcore_id, Some(lcore_trampoline), arg) };
    if ret < 0 {
        // not launched: the closure is ours to free
        drop(unsafe { Box::from_raw(arg as *mut LcoreFn) });
        return Err(Error::errno("pv_rtc_lcore_launch", -ret));
    }
    Ok(())
}

/// Wait for worker lcore `lcore_id` to return (`pv_rtc_lcore_wait()`): the
/// launched closure's value (0 when nothing was launched; `-EIO` when it
/// panicked).
/// # Errors
/// [`Error::Verbs`] `pv_rtc_lcore_wait`: EINVAL not an enabled worker
/// lcore, EPERM not called from the main lcore.
pub fn lcore_wait(lcore_id: u32) -> Result<i32> {
    let ret = unsafe { ffi::pv_rtc_lcore_wait(lcore_id) };
    if ret == -libc::EINVAL || ret == -libc::EPERM {
        return Err(Error::errno("pv_rtc_lcore_wait", -ret));
    }
    Ok(ret)
}

type PollFn = Box<dyn FnMut() -> i32 + 'static>;

unsafe extern "C" fn poller_trampoline(arg: *mut c_void) -> c_int {
    let f = &mut *(arg as *mut PollFn);
    match catch_unwind(AssertUnwindSafe(|| f())) {
        Ok(r) => r,
        Err(_) => -libc::EIO,
    }
}

/// A poller on the calling lcore's poll loop (`pv_rtc_poller_register()`):
/// its closure returns the work it did (> 0 busy, 0 idle) or `-errno`
/// (counted and logged once, the poller stays). Unregistered on drop.
/// Not `Send`: it belongs to the lcore that registered it.
pub struct Poller {
    raw: *mut ffi::pv_rtc_poller,
    f: *mut PollFn,
    _not_send: PhantomData<*const ()>,
}

impl std::fmt::Debug for Poller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poller").field("raw", &self.raw).finish()
    }
}

impl Poller {
    /// Register `f` to run on every iteration (`period_us` 0) or once per
    /// `period_us` microseconds of the calling lcore's loop.
    /// # Errors
    /// [`Error::Verbs`] `pv_rtc_poller_register`: EINVAL the caller is not
    /// an EAL lcore, ENOSPC the lcore has `PV_RTC_MAX_POLLERS` pollers.
    pub fn register<F>(f: F, period_us: u64) -> Result<Poller>
    where
        F: FnMut() -> i32 + 'static,
    {
        let boxed: Box<PollFn> = Box::new(Box::new(f));
        let arg = Box::into_raw(boxed);
        let raw = unsafe {
            ffi::pv_rtc_poller_register(Some(poller_trampoline), arg as *mut c_void, period_us)
        };
        if raw.is_null() {
            let e = Error::last("pv_rtc_poller_register");
            drop(unsafe { Box::from_raw(arg) });
            return Err(e);
        }
        Ok(Poller { raw, f: arg, _not_send: PhantomData })
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        // not called again after unregister returns (pv_rtc.h); if it
        // failed it may still be registered: keep its closure alive
        let ret = unsafe { ffi::pv_rtc_poller_unregister(self.raw) };
        if destroyed("pv_rtc_poller_unregister", ret) {
            drop(unsafe { Box::from_raw(self.f) });
        }
    }
}

/// Run the calling lcore's loop (messages, then due pollers) until
/// [`loop_stop`] for this lcore (`pv_rtc_loop_run()`). Busy-polls.
/// # Errors
/// [`Error::Verbs`] `pv_rtc_loop_run`: EINVAL not an EAL lcore.
pub fn loop_run() -> Result<()> {
    let ret = unsafe { ffi::pv_rtc_loop_run() };
    if ret < 0 {
        return Err(Error::errno("pv_rtc_loop_run", -ret));
    }
    Ok(())
}

/// One iteration of the calling lcore's loop (`pv_rtc_loop_once()`): the
/// work done.
/// # Errors
/// [`Error::Verbs`] `pv_rtc_loop_once`: EINVAL not an EAL lcore.
pub fn loop_once() -> Result<usize> {
    let ret = unsafe { ffi::pv_rtc_loop_once() };
    if ret < 0 {
        return Err(Error::errno("pv_rtc_loop_once", -ret));
    }
    Ok(ret as usize)
}

/// Ask lcore `lcore_id`'s [`loop_run`] to return after its current
/// iteration (`pv_rtc_loop_stop()`); kept until a loop consumes it.
/// # Errors
/// [`Error::Verbs`] `pv_rtc_loop_stop`: EINVAL `lcore_id` too large.
pub fn loop_stop(lcore_id: u32) -> Result<()> {
    let ret = unsafe { ffi::pv_rtc_loop_stop(lcore_id) };
    if ret < 0 {
        return Err(Error::errno("pv_rtc_loop_stop", -ret));
    }
    Ok(())
}

type CtrlFn = Box<dyn FnOnce() + Send + 'static>;

unsafe extern "C" fn ctrl_trampoline(arg: *mut c_void) {
    let f: Box<CtrlFn> = Box::from_raw(arg as *mut CtrlFn);
    if catch_unwind(AssertUnwindSafe(move || f())).is_err() {
        eprintln!("pollverbs: a control-thread task panicked");
    }
}

/// Run `f` on pollverbs' control thread, which may block
/// (`pv_rtc_ctrl_call()`); with `wait`, return after it ran.
/// # Errors
/// [`Error::Verbs`] `pv_rtc_ctrl_call`: EDEADLK `wait` from the control
/// thread, ENOBUFS its queue is full, ESHUTDOWN the runtime is not running.
pub fn ctrl_call<F>(f: F, wait: bool) -> Result<()>
where
    F: FnOnce() + Send + 'static,
{
    let boxed: Box<CtrlFn> = Box::new(Box::new(f));
    let arg = Box::into_raw(boxed) as *mut c_void;
    let ret = unsafe { ffi::pv_rtc_ctrl_call(Some(ctrl_trampoline), arg, wait as i32) };
    if ret < 0 {
        drop(unsafe { Box::from_raw(arg as *mut CtrlFn) });
        return Err(Error::errno("pv_rtc_ctrl_call", -ret));
    }
    Ok(())
}
