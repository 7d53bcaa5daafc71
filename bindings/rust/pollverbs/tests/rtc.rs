// SPDX-License-Identifier: BSD-3-Clause
//! The lcore API of pollverbs::rtc on two lcores: a closure launched on a
//! worker lcore runs pollers in its loop until they stop it, and returns
//! its value to lcore_wait(); pollers on the main lcore with loop_once();
//! a task on the control thread; errors for bad lcores.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use pollverbs::rtc;

mod common;

fn worker() {
    let seen = Arc::new(AtomicU32::new(0));
    let s = seen.clone();
    rtc::lcore_launch(1, move || {
        let n = Rc::new(Cell::new(0u32));
        let n2 = n.clone();
        let p = rtc::Poller::register(
            move || {
                n2.set(n2.get() + 1);
                if n2.get() == 1000 {
                    rtc::loop_stop(1).unwrap();
                }
                1
            },
            0,
        )
        .unwrap();
        rtc::loop_run().unwrap();
        drop(p);
        s.store(n.get(), Ordering::SeqCst);
        42
    })
    .unwrap();
    assert_eq!(rtc::lcore_wait(1).unwrap(), 42);
    assert_eq!(seen.load(Ordering::SeqCst), 1000, "the poller ran until it stopped the loop");
    // a panic on the lcore is reported, not propagated through C
    rtc::lcore_launch(1, || panic!("on purpose")).unwrap();
    assert_eq!(rtc::lcore_wait(1).unwrap(), -libc::EIO);
}

fn main_lcore_pollers() {
    let n = Rc::new(Cell::new(0));
    let n2 = n.clone();
    let p = rtc::Poller::register(move || {
        n2.set(n2.get() + 1);
        3
    }, 0)
    .unwrap();
    let mut work = 0;
    for _ in 0..10 {
        work += rtc::loop_once().unwrap();
    }
    assert_eq!(n.get(), 10);
    assert!(work >= 30);
    drop(p);
    rtc::loop_once().unwrap();
    assert_eq!(n.get(), 10, "not called after drop");
}

fn ctrl() {
    let hit = Arc::new(AtomicU32::new(0));
    let h = hit.clone();
    rtc::ctrl_call(move || h.store(7, Ordering::SeqCst), true).unwrap();
    assert_eq!(hit.load(Ordering::SeqCst), 7);
}

fn bad_lcores() {
    assert!(rtc::lcore_launch(0, || 0).is_err(), "the main lcore is no worker");
    assert!(rtc::lcore_launch(77, || 0).is_err());
    assert!(rtc::lcore_wait(77).is_err());
    assert!(rtc::loop_stop(1 << 20).is_err());
}

fn main() {
    let mut args = common::ring_args("rtc");
    let l = args.iter().position(|a| a == "-l").unwrap();
    args[l + 1] = "0-1".into();
    pollverbs::init(&args).expect("init");
    let failed = {
        let cases: Vec<common::Case<'_>> = vec![
            ("worker", Box::new(worker)),
            ("main_lcore_pollers", Box::new(main_lcore_pollers)),
            ("ctrl", Box::new(ctrl)),
            ("bad_lcores", Box::new(bad_lcores)),
        ];
        common::run("rtc", &cases)
    };
    pollverbs::cleanup().unwrap();
    common::remove_runtime_dir(&common::prefix("rtc"));
    std::process::exit((failed != 0) as i32);
}
