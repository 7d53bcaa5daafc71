// SPDX-License-Identifier: BSD-3-Clause
//! UD on one device: two UD QPs, an address handle to the device's own
//! GID (loopback), three sends (one with immediate data) checked byte for
//! byte behind their 40-byte GRH.
//!
//! Run (EAL and pollverbs arguments on the command line):
//!   cargo run --example ud -- --no-huge -m 256 --no-pci --vdev=net_ring0 \
//!       --pv-dev=softroce:port=net_ring0,ip=10.0.0.1
use std::time::Duration;

use pollverbs::{ibv_qp_type, AddressHandleAttr, WorkRequest, DEFAULT_QKEY};

mod common;
use common::{pattern, wait_ids};

const GRH: usize = 40;
const MSG: usize = 512;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    pollverbs::init(std::env::args())?;
    {
        let list = pollverbs::devices()?;
        let dev = list.get(0).ok_or("no device: give --pv-dev")?;
        let ctx = dev.open()?;
        println!("device {:?}, GID index {}", dev.name(), ctx.gid_index());
        let cq = ctx.create_cq(64, 0)?;
        let pd = ctx.alloc_pd()?;
        let mut qa = {
            let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_UD);
            b.set_max_send_wr(8).set_max_recv_wr(8);
            b.build()?.activate_ud()?
        };
        let mut qb = {
            let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_UD);
            b.set_max_send_wr(8).set_max_recv_wr(8);
            b.build()?.activate_ud()?
        };
        let ah = pd.create_ah(&AddressHandleAttr::new(&ctx, ctx.gid()))?;

        let mut send = pd.allocate::<u8>(3 * MSG)?;
        let mut recv = pd.allocate::<u8>(3 * (GRH + MSG))?;
        for (i, b) in send.iter_mut().enumerate() {
            *b = pattern(9, i);
        }
        for m in 0..3 {
            let off = m * (GRH + MSG);
            unsafe { qb.post_receive(&mut recv, off..off + GRH + MSG, 100 + m as u64)? };
        }
        let sges: Vec<_> =
            (0..3).map(|m| send.sge(m * MSG..(m + 1) * MSG)).collect::<Result<_, _>>()?;
        let qpn = qb.qp_num();
        let wrs = [
            WorkRequest::send(1, &sges[0..1]).to(&ah, qpn, DEFAULT_QKEY),
            WorkRequest::send(2, &sges[1..2]).imm(0xfeed_0002).to(&ah, qpn, DEFAULT_QKEY),
            WorkRequest::send(3, &sges[2..3]).to(&ah, qpn, DEFAULT_QKEY),
        ];
        unsafe { qa.post(&wrs)? };
        let wcs = wait_ids(&cq, &[1, 2, 3, 100, 101, 102], Duration::from_secs(10))?;
        for wc in wcs.iter().filter(|w| w.wr_id() >= 100) {
            let m = (wc.wr_id() - 100) as usize;
            assert_eq!(wc.len(), GRH + MSG, "byte_len of message {}", m);
            assert!(wc.has_grh());
            assert_eq!(wc.src_qp(), qa.qp_num());
            assert_eq!(wc.imm_data(), if m == 1 { Some(0xfeed_0002) } else { None });
            let off = m * (GRH + MSG) + GRH;
            assert_eq!(&recv[off..off + MSG], &send[m * MSG..(m + 1) * MSG], "message {}", m);
        }
        println!("ud: 3 messages of {} bytes received and checked", MSG);
    }
    pollverbs::cleanup()?;
    Ok(())
}
