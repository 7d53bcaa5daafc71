// SPDX-License-Identifier: BSD-3-Clause
//! A shared receive queue: two RC QPs take their receives from one SRQ;
//! two peers (QPs of the same device, loopback) send to them; each
//! completion names the QP that received, and the data is checked.
//!
//! Run (EAL and pollverbs arguments on the command line):
//!   cargo run --example srq -- --no-huge -m 256 --no-pci --vdev=net_ring0 \
//!       --pv-dev=softroce:port=net_ring0,ip=10.0.0.1
use std::time::Duration;

use pollverbs::{ibv_qp_type, WorkRequest};

mod common;
use common::{pattern, wait_ids};

const MSG: usize = 1024;
const N: usize = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    pollverbs::init(std::env::args())?;
    {
        let list = pollverbs::devices()?;
        let ctx = list.get(0).ok_or("no device: give --pv-dev")?.open()?;
        let cq = ctx.create_cq(64, 0)?;
        let pd = ctx.alloc_pd()?;
        let srq = pd.create_srq(16, 1)?;
        let mut recv = pd.allocate::<u8>(N * MSG)?;
        for i in 0..N {
            unsafe { srq.post_receive(&mut recv, i * MSG..(i + 1) * MSG, 100 + i as u64)? };
        }
        // receivers r1, r2 on the SRQ; senders s1 -> r1, s2 -> r2
        let mut pairs = Vec::new();
        for _ in 0..2 {
            let r = {
                let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC);
                b.set_srq(&srq).set_max_send_wr(4);
                b.build()?
            };
            let s = {
                let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC);
                b.set_max_send_wr(4);
                b.build()?
            };
            let (re, se) = (r.endpoint(), s.endpoint());
            pairs.push((r.handshake(se)?, s.handshake(re)?));
        }
        let mut send = pd.allocate::<u8>(N * MSG)?;
        for (i, b) in send.iter_mut().enumerate() {
            *b = pattern(5, i);
        }
        for i in 0..N {
            let sge = [send.sge(i * MSG..(i + 1) * MSG)?];
            let (_, s) = &mut pairs[i % 2];
            unsafe { s.post(&[WorkRequest::send(i as u64, &sge).imm(i as u32)])? };
            // one at a time: the SRQ hands out its WQEs in order
            let wcs = wait_ids(&cq, &[i as u64, 100 + i as u64], Duration::from_secs(10))?;
            let rwc = wcs.iter().find(|w| w.wr_id() >= 100).unwrap();
            assert_eq!(rwc.qp_num(), pairs[i % 2].0.qp_num(), "receiving QP of message {}", i);
            assert_eq!(rwc.imm_data(), Some(i as u32));
            assert_eq!(rwc.len(), MSG);
            let at = (rwc.wr_id() - 100) as usize * MSG;
            assert_eq!(&recv[at..at + MSG], &send[i * MSG..(i + 1) * MSG], "message {}", i);
        }
        println!("srq: {} messages over 2 QPs through one SRQ, checked", N);
    }
    pollverbs::cleanup()?;
    Ok(())
}
