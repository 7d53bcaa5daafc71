// SPDX-License-Identifier: BSD-3-Clause
//! Every `static inline` function of the headers pollverbs-sys binds has a
//! Rust version in src/lib.rs (bindgen cannot bind them: no symbol), and
//! the data-path ones read the function pointers of the C inlines.

use std::fs;
use std::path::Path;

const HEADERS: &[&str] = &["pv_verbs.h", "pv_verbs_ex.h", "pv_rtc.h", "pv_rdma_cma.h"];

/// Names of the `static inline` functions in C source `text`.
fn static_inlines(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find("static inline") {
        rest = &rest[pos + "static inline".len()..];
        // the function name is the identifier right before the first '('
        let paren = match rest.find('(') {
            Some(p) => p,
            None => break,
        };
        let head = rest[..paren].trim_end();
        let name: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        names.push(name);
    }
    names
}

#[test]
fn inline_complete() {
    let dirs = env!("PV_SYS_INCLUDE_DIRS");
    let ours = include_str!("../src/lib.rs");
    let mut checked = 0;
    let mut missing = Vec::new();
    for h in HEADERS {
        let path = dirs
            .split(':')
            .map(|d| Path::new(d).join(h))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{} not found in {}", h, dirs));
        let text = fs::read_to_string(&path).unwrap();
        for name in static_inlines(&text) {
            checked += 1;
            let as_fn = format!("fn {}(", name);
            if !ours.contains(&as_fn) {
                missing.push(format!("{} ({})", name, h));
            }
        }
    }
    assert!(checked >= 40, "only {} static inline functions found", checked);
    assert!(missing.is_empty(), "no Rust version of: {}", missing.join(", "));
}

#[test]
fn helpers_match_c() {
    use pollverbs_sys::*;
    assert_eq!(pv_mtu_to_bytes(pv_mtu::PV_MTU_256), 256);
    assert_eq!(pv_mtu_to_bytes(pv_mtu::PV_MTU_4096), 4096);
    assert_eq!(pv_mtu_to_bytes(0), 0);
    assert_eq!(pv_mtu_to_bytes(6), 0);
    assert_eq!(pv_inc_rkey(0x1234_56ff), 0x1234_5600);
    assert_eq!(pv_inc_rkey(0x1234_5601), 0x1234_5602);
}

/// A CQ whose driver left its pointers NULL: errors, no call through NULL.
#[test]
fn null_pointers_are_errors() {
    use pollverbs_sys::*;
    let mut cq: pv_cq = unsafe { std::mem::zeroed() };
    let mut wc = pv_wc::default();
    assert_eq!(unsafe { pv_poll_cq(&mut cq, 1, &mut wc) }, -95);
    assert_eq!(unsafe { pv_req_notify_cq(&mut cq, 0) }, 95);
}
