// SPDX-License-Identifier: BSD-3-Clause
//! A minimal runner for the `harness = false` tests (each test binary is
//! its own process with its own EAL): named cases, a panic fails the case
//! and the run goes on, a summary line, exit status 1 on any failure.
#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// One test case.
pub type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Run `cases` (filtered by the first command line argument that is not an
/// option, as libtest does); returns the number of failures.
pub fn run(suite: &str, cases: &[Case<'_>]) -> usize {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, f) in cases {
        if let Some(ref flt) = filter {
            if !name.contains(flt.as_str()) {
                continue;
            }
        }
        ran += 1;
        match catch_unwind(AssertUnwindSafe(|| f())) {
            Ok(()) => println!("test {}::{} ... ok", suite, name),
            Err(_) => {
                println!("test {}::{} ... FAILED", suite, name);
                failed.push(*name);
            }
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed ({})",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len(),
        suite
    );
    for f in &failed {
        println!("failed: {}::{}", suite, f);
    }
    failed.len()
}

/// The EAL file prefix of test `name` in this process.
pub fn prefix(name: &str) -> String {
    format!("pvrs_{}_{}", name, std::process::id())
}

/// Remove the runtime directory EAL made for `prefix` (its config and
/// sockets; EAL leaves it behind), as eal_get_runtime_dir() names it.
pub fn remove_runtime_dir(prefix: &str) {
    let base = if unsafe { libc::getuid() } == 0 {
        PathBuf::from("/var/run")
    } else {
        std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).unwrap_or_else(|| "/tmp".into())
    };
    let _ = std::fs::remove_dir_all(base.join("dpdk").join(prefix));
}

/// EAL arguments for a single-process test: no hugepages, a file prefix of
/// its own ([`prefix`]), one softroce device on a loopback ring port.
pub fn ring_args(name: &str) -> Vec<String> {
    let s = format!(
        "{} --no-huge -m 256 --no-pci -l 0 --log-level=*:warning --file-prefix={} \
         --vdev=net_ring0 --pv-dev=softroce:port=net_ring0,ip=10.0.7.1",
        name,
        prefix(name)
    );
    s.split_whitespace().map(String::from).collect()
}

/// The directory cargo put the examples in (next to this test's `deps`).
pub fn examples_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("examples")
}
