// SPDX-License-Identifier: BSD-3-Clause
//! Helpers shared by the examples (not part of the crate's API).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use pollverbs::{ibv_wc, CompletionQueue, Result};

/// Byte `i` of test pattern `seed`.
pub fn pattern(seed: u8, i: usize) -> u8 {
    (i as u8).wrapping_mul(31).wrapping_add(seed) ^ ((i >> 8) as u8)
}

/// Poll `cq` until the completions of every id in `ids` arrived or
/// `timeout` passed; a completion with an error status is an error.
pub fn wait_ids(cq: &CompletionQueue<'_>, ids: &[u64], timeout: Duration) -> Result<Vec<ibv_wc>> {
    let mut got: Vec<ibv_wc> = Vec::new();
    let mut wcs = [ibv_wc::default(); 16];
    let end = Instant::now() + timeout;
    while got.len() < ids.len() {
        for wc in cq.poll(&mut wcs)? {
            if let Some((status, vendor)) = wc.error() {
                return Err(pollverbs::Error::InvalidArgument(format!(
                    "wr {} completed with {} ({}, vendor error {})",
                    wc.wr_id(),
                    wc.status_str(),
                    status,
                    vendor
                )));
            }
            if !ids.contains(&wc.wr_id()) {
                return Err(pollverbs::Error::InvalidArgument(format!(
                    "unexpected completion of wr {}",
                    wc.wr_id()
                )));
            }
            got.push(*wc);
        }
        if Instant::now() > end {
            return Err(pollverbs::Error::InvalidArgument(format!(
                "timed out: {} of {} completions",
                got.len(),
                ids.len()
            )));
        }
    }
    Ok(got)
}
