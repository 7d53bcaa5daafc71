// SPDX-License-Identifier: BSD-3-Clause
//! The safe API on one softroce device over a loopback ring port (QPs
//! connected to QPs of the same device): every operation's data compared
//! byte for byte, errors returned rather than panics or aborts, objects
//! dropped in any order, the runtime's cleanup refused while objects live.

use std::time::{Duration, Instant};

use pollverbs::{
    ibv_qp_type, ibv_wc, ibv_wc_opcode, ibv_wc_status, CompletionQueue, Context, Error,
    ProtectionDomain, QueuePair, RecvRequest, WorkRequest,
};

mod common;

/// Poll until `n` completions arrived (any status) or 10 s passed.
fn poll_n(cq: &CompletionQueue<'_>, n: usize) -> Vec<ibv_wc> {
    let mut got = Vec::new();
    let mut wcs = [ibv_wc::default(); 8];
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < n {
        got.extend_from_slice(cq.poll(&mut wcs).expect("poll"));
        assert!(Instant::now() < end, "{} of {} completions", got.len(), n);
    }
    got
}

fn rc_pair<'a>(pd: &'a ProtectionDomain<'_>, cq: &'a CompletionQueue<'_>) -> (QueuePair<'a>, QueuePair<'a>) {
    let mk = || {
        let mut b = pd.create_qp(cq, cq, ibv_qp_type::IBV_QPT_RC);
        b.allow_remote_rw()
            .set_access(
                pollverbs::ibv_access_flags::IBV_ACCESS_LOCAL_WRITE
                    | pollverbs::ibv_access_flags::IBV_ACCESS_REMOTE_WRITE
                    | pollverbs::ibv_access_flags::IBV_ACCESS_REMOTE_READ
                    | pollverbs::ibv_access_flags::IBV_ACCESS_REMOTE_ATOMIC,
            )
            .set_max_send_wr(16)
            .set_max_recv_wr(16)
            .set_max_send_sge(4)
            .set_max_recv_sge(4)
            .set_max_inline_data(64)
            .set_max_rd_atomic(4)
            .set_max_dest_rd_atomic(4);
        b.build().expect("build")
    };
    let (a, b) = (mk(), mk());
    let (ea, eb) = (a.endpoint(), b.endpoint());
    (a.handshake(eb).expect("handshake a"), b.handshake(ea).expect("handshake b"))
}

fn queries(ctx: &Context) {
    let d = ctx.query_device().unwrap();
    assert!(d.max_qp_wr() > 0 && d.max_sge() > 0 && d.max_cqe() > 0);
    assert_eq!(d.phys_port_cnt(), 1);
    let p = ctx.query_port(1).unwrap();
    assert_eq!(p.state(), pollverbs::ibv_port_state::IBV_PORT_ACTIVE);
    assert_eq!(p.link_layer(), 2, "Ethernet");
    // softroce: index 1 is the IPv4-mapped GID, and the default
    assert_eq!(ctx.gid_index(), 1);
    let g = ctx.query_gid(1, 1).unwrap();
    assert!(g.is_ipv4_mapped());
    assert_eq!(&g.raw[12..], &[10, 0, 7, 1]);
    assert_eq!(ctx.gid(), g);
    assert!(!ctx.query_gid(1, 0).unwrap().is_ipv4_mapped(), "index 0 is link-local IPv6");
    assert!(ctx.query_port(9).is_err());
    assert!(ctx.progress().is_ok());
    let list = pollverbs::devices().unwrap();
    assert_eq!(list.len(), 1);
    let dev = list.get(0).unwrap();
    assert_eq!(dev.name().unwrap().to_str().unwrap(), "sroce0");
    assert!(dev.guid().unwrap() != 0);
    assert!(list.get(1).is_none());
    assert_eq!(list.iter().count(), 1);
    match dev.open_port(2, None) {
        Err(Error::InvalidArgument(_)) => {}
        other => panic!("port 2: {:?}", other.map(|_| ())),
    }
    match dev.open_port(1, Some(200)) {
        Err(Error::InvalidArgument(_)) => {}
        other => panic!("GID index 200: {:?}", other.map(|_| ())),
    }
    let c0 = dev.open_port(1, Some(0)).unwrap();
    assert_eq!(c0.gid_index(), 0);
}

fn rc_batch(ctx: &Context) {
    let cq = ctx.create_cq(64, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let (mut a, mut b) = rc_pair(&pd, &cq);
    let mut src = pd.allocate::<u8>(8192).unwrap();
    let dst = pd.allocate::<u8>(8192).unwrap();
    for (i, x) in src.iter_mut().enumerate() {
        *x = (i * 7 + 1) as u8;
    }
    // b receives the WRITE_WITH_IMM's immediate (first: receives are
    // consumed in order), then the inline SEND
    unsafe {
        let r = [dst.sge(7000..7100).unwrap()];
        b.post_recv(&[RecvRequest { wr_id: 51, sges: &[] }, RecvRequest { wr_id: 50, sges: &r }])
            .unwrap();
    }
    let two = [src.sge(0..1000).unwrap(), src.sge(2000..3000).unwrap()];
    let one = [src.sge(3000..4000).unwrap()];
    let back = [src.sge(6000..6500).unwrap()];
    let note = b"inline, no registration needed";
    let inl = [pollverbs::inline_sge(note)];
    let remote = dst.remote(..).unwrap();
    let wrs = [
        // two SGEs gathered into dst[0..2000]
        WorkRequest::write(1, &two, remote.slice(0, 2000).unwrap()).unsignaled(),
        WorkRequest::write(2, &one, remote.slice(4000, 1000).unwrap()).imm(0xabcd),
        // READ back what the first WRITE placed, after it (fence)
        WorkRequest::read(3, &back, remote.slice(500, 500).unwrap()).fenced(),
        WorkRequest::send(4, &inl).inline().solicited(),
    ];
    unsafe { a.post(&wrs).unwrap() };
    let wcs = poll_n(&cq, 5);
    for wc in &wcs {
        assert!(wc.is_valid(), "wr {}: {}", wc.wr_id(), wc.status_str());
    }
    let ids: Vec<u64> = wcs.iter().map(|w| w.wr_id()).collect();
    for id in &[2, 3, 4, 50, 51] {
        assert!(ids.contains(id), "no completion of {} in {:?}", id, ids);
    }
    assert!(!ids.contains(&1), "unsignaled WRITE completed");
    let imm = wcs.iter().find(|w| w.wr_id() == 51).unwrap();
    assert_eq!(imm.imm_data(), Some(0xabcd));
    assert_eq!(imm.opcode(), ibv_wc_opcode::IBV_WC_RECV_RDMA_WITH_IMM);
    let rd = wcs.iter().find(|w| w.wr_id() == 3).unwrap();
    assert_eq!(rd.opcode(), ibv_wc_opcode::IBV_WC_RDMA_READ);
    let recv = wcs.iter().find(|w| w.wr_id() == 50).unwrap();
    assert_eq!(recv.len(), note.len());
    assert_eq!(&dst[..1000], &src[..1000]);
    assert_eq!(&dst[1000..2000], &src[2000..3000]);
    assert_eq!(&dst[4000..5000], &src[3000..4000]);
    assert_eq!(&src[6000..6500], &dst[500..1000]);
    assert_eq!(&dst[7000..7000 + note.len()], &note[..]);
}

fn atomics(ctx: &Context) {
    let cq = ctx.create_cq(16, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let (mut a, _b) = rc_pair(&pd, &cq);
    let mut target = pd.allocate::<u64>(2).unwrap();
    let old = pd.allocate::<u64>(2).unwrap();
    target[0] = 40;
    target[1] = 7;
    let r0 = target.remote(0..1).unwrap();
    let r1 = target.remote(1..2).unwrap();
    let s0 = [old.sge(0..1).unwrap()];
    let s1 = [old.sge(1..2).unwrap()];
    unsafe {
        a.post(&[
            WorkRequest::fetch_add(1, &s0, r0, 2),
            WorkRequest::compare_swap(2, &s1, r1, 7, 99),
        ])
        .unwrap()
    };
    let wcs = poll_n(&cq, 2);
    assert!(wcs.iter().all(|w| w.is_valid()));
    assert_eq!(old[0], 40);
    assert_eq!(target[0], 42);
    assert_eq!(old[1], 7);
    assert_eq!(target[1], 99);
    // a compare that does not match leaves the value
    unsafe { a.post(&[WorkRequest::compare_swap(3, &s1, r1, 7, 5)]).unwrap() };
    poll_n(&cq, 1);
    assert_eq!((old[1], target[1]), (99, 99));
    // an atomic needs one 8-byte SGE
    let wide = [old.sge(..).unwrap()];
    match unsafe { a.post(&[WorkRequest::fetch_add(4, &wide, r0, 1)]) } {
        Err(Error::InvalidArgument(_)) => {}
        other => panic!("16-byte atomic: {:?}", other),
    }
}

fn errors(ctx: &Context) {
    let cq = ctx.create_cq(16, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let (mut a, _b) = rc_pair(&pd, &cq);
    let mut mr = pd.allocate::<u32>(16).unwrap();
    // ranges beyond the region: an error, nothing posted
    assert!(matches!(unsafe { a.post_send(&mut mr, 10..17, 1) }, Err(Error::InvalidArgument(_))));
    assert!(mr.sge(3..2).is_err());
    assert!(matches!(pd.allocate::<u8>(0), Err(Error::InvalidArgument(_))));
    let remote = mr.remote(..).unwrap();
    assert_eq!(remote.len, 64);
    assert!(remote.slice(60, 8).is_err());
    let all = [mr.sge(..).unwrap()];
    assert!(matches!(
        unsafe { a.post(&[WorkRequest::write(2, &all, remote.slice(0, 32).unwrap())]) },
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(unsafe { a.post(&[]) }, Err(Error::InvalidArgument(_))));
    // a bad rkey: the responder NAKs, the WRITE completes in error
    let mut bad = remote;
    bad.rkey ^= 0x80;
    unsafe { a.post(&[WorkRequest::write(5, &all, bad)]).unwrap() };
    let wc = poll_n(&cq, 1)[0];
    assert_eq!(wc.wr_id(), 5);
    assert_eq!(wc.error().map(|e| e.0), Some(ibv_wc_status::IBV_WC_REM_ACCESS_ERR));
    // errno-style errors keep their errno and kind
    let e = ctx.query_gid(1, 100).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    let io: std::io::Error = e.into();
    assert_eq!(io.raw_os_error(), None, "wrapped: the message stays");
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
}

/// ibverbs issue #14: a PreparedQueuePair dropped without a handshake
/// aborted the process. Here it destroys the QP; a failed handshake too.
fn drops(ctx: &Context) {
    let cq = ctx.create_cq(8, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    for _ in 0..3 {
        let p = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC).build().unwrap();
        let _ = p.endpoint();
        drop(p);
    }
    let p = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC).set_retry_count(9).build().unwrap();
    let e = p.endpoint();
    let err = p.handshake(e).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EINVAL), "{}", err);
    // UD activation of an RC QP: an error, not a panic
    let p = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC).build().unwrap();
    assert!(matches!(p.activate_ud(), Err(Error::InvalidArgument(_))));
    // the compiler orders QPs, CQs and PDs (0.4's lifetimes); a memory
    // region has none: it holds its PD (and context) until it goes
    let ctx2 = pollverbs::devices().unwrap().get(0).unwrap().open().unwrap();
    let cq2 = ctx2.create_cq(8, 0).unwrap();
    let pd2 = ctx2.alloc_pd().unwrap();
    let mut mr = pd2.allocate::<u8>(64).unwrap();
    {
        let qp = pd2.create_qp(&cq2, &cq2, ibv_qp_type::IBV_QPT_RC).build().unwrap();
        let e = qp.endpoint();
        let mut qp = qp.handshake(e).unwrap();
        unsafe { qp.post_receive(&mut mr, .., 1).unwrap() };
    }
    drop(cq2);
    drop(pd2);
    drop(ctx2);
    mr[0] = 1;
    assert!(mr.lkey() != 0 || mr.rkey().0 != 0);
    drop(mr);
}

fn channel(ctx: &Context) {
    let ch = ctx.create_comp_channel().unwrap();
    assert!(ch.fd() >= 0);
    let cq = ctx.create_cq_with_channel(16, 77, &ch, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let (mut a, mut b) = rc_pair(&pd, &cq);
    ch.set_nonblocking(true).unwrap();
    assert_eq!(ch.get_cq_event().unwrap(), None, "no event before any completion");
    cq.req_notify(false).unwrap();
    let mut mr = pd.allocate::<u8>(256).unwrap();
    unsafe { b.post_receive(&mut mr, 128.., 2).unwrap() };
    for (i, x) in mr[..128].iter_mut().enumerate() {
        *x = i as u8;
    }
    unsafe { a.post_send(&mut mr, ..128, 1).unwrap() };
    // the fd becomes readable, the event names the CQ's id
    assert_eq!(ch.wait(Some(Duration::from_secs(10))).unwrap(), Some(77));
    cq.ack_events(1);
    let wcs = poll_n(&cq, 2);
    assert!(wcs.iter().all(|w| w.is_valid()));
    assert_eq!(&mr[128..], &mr[..128]);
    // no second event without re-arming
    assert_eq!(ch.wait(Some(Duration::from_millis(50))).unwrap(), None);
}

fn async_events(ctx: &Context) {
    let fd = ctx.async_fd();
    assert!(fd >= 0);
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    assert!(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } == 0);
    // drain whatever is queued (a port-active event may be), then none
    let mut n = 0;
    while let Some(ev) = ctx.get_async_event().unwrap() {
        assert!(!ev.describe().is_empty());
        n += 1;
        assert!(n < 100);
    }
    assert!(ctx.get_async_event().unwrap().is_none());
}

/// The objects are Send and Sync (the default thread-safe progress mode):
/// one thread posts while another polls the shared CQ (scoped threads).
fn threads(ctx: &Context) {
    const N: usize = 200;
    let cq = ctx.create_cq(4 * N as i32, 0).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let mk = || {
        let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC);
        b.set_max_send_wr(N as u32).set_max_recv_wr(N as u32);
        b.build().unwrap()
    };
    let (a, b) = (mk(), mk());
    let (ea, eb) = (a.endpoint(), b.endpoint());
    let (mut a, mut b) = (a.handshake(eb).unwrap(), b.handshake(ea).unwrap());
    let mut src = pd.allocate::<u8>(N * 64).unwrap();
    let mut dst = pd.allocate::<u8>(N * 64).unwrap();
    for (i, x) in src.iter_mut().enumerate() {
        *x = (i % 251) as u8;
    }
    for i in 0..N {
        unsafe { b.post_receive(&mut dst, i * 64..(i + 1) * 64, 1000 + i as u64).unwrap() };
    }
    let got = std::thread::scope(|s| {
        let poller = s.spawn(|| poll_n(&cq, 2 * N));
        for i in 0..N {
            unsafe { a.post_send(&mut src, i * 64..(i + 1) * 64, i as u64).unwrap() };
        }
        poller.join().unwrap()
    });
    assert!(got.iter().all(|w| w.is_valid()));
    assert_eq!(got.iter().filter(|w| w.wr_id() >= 1000).count(), N);
    assert_eq!(&dst[..], &src[..]);
}

/// The CM's argument errors come back as errors (a connection itself is
/// tested between two processes: tests/examples.rs, cm_pingpong).
fn cm_errors(_ctx: &Context) {
    use pollverbs::cm::Listener;
    let e = Listener::bind("10.9.9.9:7000".parse().unwrap(), 1).unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EADDRNOTAVAIL), "{}", e);
    let l = Listener::bind("10.0.7.1:0".parse().unwrap(), 1).unwrap();
    assert_ne!(l.port(), 0, "an ephemeral port");
    let again = Listener::bind(format!("10.0.7.1:{}", l.port()).parse().unwrap(), 1);
    assert_eq!(again.unwrap_err().raw_os_error(), Some(libc::EADDRINUSE));
}

fn main() {
    let args = common::ring_args("verbs");
    assert!(matches!(pollverbs::devices(), Err(Error::NotStarted)), "devices() before init()");
    pollverbs::init(&args).expect("init");
    assert!(matches!(pollverbs::init(&args), Err(Error::AlreadyStarted)));
    let ctx = pollverbs::devices().unwrap().iter().next().unwrap().open().unwrap();
    let failed = {
        let cases: Vec<common::Case<'_>> = vec![
        ("queries", Box::new(|| queries(&ctx))),
        ("rc_batch", Box::new(|| rc_batch(&ctx))),
        ("atomics", Box::new(|| atomics(&ctx))),
        ("errors", Box::new(|| errors(&ctx))),
        ("drops", Box::new(|| drops(&ctx))),
        ("channel", Box::new(|| channel(&ctx))),
        ("async_events", Box::new(|| async_events(&ctx))),
        ("threads", Box::new(|| threads(&ctx))),
        ("cm_errors", Box::new(|| cm_errors(&ctx))),
        ];
        common::run("verbs", &cases)
    };
    // cleanup is refused while a context lives, then succeeds
    let busy = matches!(pollverbs::cleanup(), Err(Error::Busy(n)) if n >= 1);
    drop(ctx);
    let done = pollverbs::cleanup();
    let cases: Vec<common::Case<'_>> = vec![
        ("cleanup_busy", Box::new(|| assert!(busy, "cleanup() with a context alive"))),
        ("cleanup", Box::new(|| assert!(done.is_ok(), "{:?}", done))),
    ];
    let failed = failed + common::run("verbs_cleanup", &cases);
    common::remove_runtime_dir(&common::prefix("verbs"));
    std::process::exit((failed != 0) as i32);
}
