// SPDX-License-Identifier: BSD-3-Clause
//! Compile-time check of the ibverbs 0.4 API shapes: code written against
//! ibverbs 0.4.x, with `use pollverbs as ibverbs;`, type-checks. Nothing
//! here runs a verb (the other tests do, with an EAL of their own); the
//! test only makes sure the functions are compiled and linked.

use pollverbs as ibverbs;

#[allow(dead_code)]
fn every_0_4_item() -> Result<(), Box<dyn std::error::Error>> {
    let list: ibverbs::DeviceList = ibverbs::devices()?;
    let _n: usize = list.len();
    let _e: bool = list.is_empty();
    for d in &list {
        let _ = d.name();
    }
    let mut it: ibverbs::DeviceListIter<'_> = list.iter();
    let dev: ibverbs::Device<'_> = it.next().expect("no rdma device available");
    let _dev2: Option<ibverbs::Device<'_>> = list.get(0);
    let _name: Option<&std::ffi::CStr> = dev.name();
    let _guid: u64 = dev.guid()?;
    let ctx: ibverbs::Context = dev.open()?;
    let cq: ibverbs::CompletionQueue<'_> = ctx.create_cq(16, 0)?;
    let pd: ibverbs::ProtectionDomain<'_> = ctx.alloc_pd().unwrap();
    let mut b: ibverbs::QueuePairBuilder<'_> =
        pd.create_qp(&cq, &cq, ibverbs::ibv_qp_type::IBV_QPT_RC);
    b.set_access(ibverbs::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE)
        .allow_remote_rw()
        .set_min_rnr_timer(16)
        .set_timeout(4)
        .set_retry_count(6)
        .set_rnr_retry(6)
        .set_context(0);
    let prepared: ibverbs::PreparedQueuePair<'_> = b.build()?;
    let endpoint: ibverbs::QueuePairEndpoint = prepared.endpoint();
    let mut qp: ibverbs::QueuePair<'_> = prepared.handshake(endpoint)?;
    let mut mr: ibverbs::MemoryRegion<u64> = pd.allocate::<u64>(2)?;
    mr[1] = 0x42;
    let _k: ibverbs::RemoteKey = mr.rkey();
    unsafe { qp.post_receive(&mut mr, ..1, 2) }?;
    unsafe { qp.post_send(&mut mr, 1.., 1) }?;
    let mut completions = [ibverbs::ibv_wc::default(); 16];
    let completed: &mut [ibverbs::ibv_wc] = cq.poll(&mut completions[..]).unwrap();
    for wc in completed.iter() {
        let _: u64 = wc.wr_id();
        let _: usize = wc.len();
        let _: bool = wc.is_valid();
        let _: Option<(ibverbs::ibv_wc_status::Type, u32)> = wc.error();
        let _: ibverbs::ibv_wc_opcode::Type = wc.opcode();
        let _: Option<u32> = wc.imm_data();
    }
    let _: ibverbs::ffi::ibv_qp_type::Type = ibverbs::ffi::ibv_qp_type::IBV_QPT_UD;
    let _ = ibverbs::ibv_wc_status::IBV_WC_SUCCESS;
    let _ = ibverbs::ibv_wc_opcode::IBV_WC_RECV;
    Ok(())
}

/// 0.4 returned io::Result here: `?` into io::Result still works.
#[allow(dead_code)]
fn io_result_style() -> std::io::Result<usize> {
    let list = ibverbs::devices()?;
    let ctx = list.get(0).unwrap().open()?;
    let _cq = ctx.create_cq(1, 0)?;
    Ok(list.len())
}

#[test]
fn shapes_compile() {
    let f: fn() -> Result<(), Box<dyn std::error::Error>> = every_0_4_item;
    let g: fn() -> std::io::Result<usize> = io_result_style;
    assert!(f as usize != 0 && g as usize != 0);
}
