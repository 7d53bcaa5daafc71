// SPDX-License-Identifier: BSD-3-Clause
//! Gives this crate's tests and examples an rpath to the directory of
//! libpollverbs.so that pollverbs-sys linked (its `libdir` metadata), so
//! they run without LD_LIBRARY_PATH. Programs depending on this crate add
//! their own (`cargo:rustc-link-arg` applies to this package only).
fn main() {
    if let Ok(dir) = std::env::var("DEP_POLLVERBS_LIBDIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
    }
}
