// SPDX-License-Identifier: BSD-3-Clause
//! RC through the connection manager between two processes: the server
//! listens on its device's address, the client connects to it by address
//! and port (no out-of-band exchange), sends a message, and the server
//! answers with its own; both check every byte.
//!
//! Usage: cm_pingpong <EAL and --pv-dev args> -- server <ip:port>
//!        cm_pingpong <EAL and --pv-dev args> -- client <server ip:port>
//! e.g. over a memif pair (the server first; it prints "listening" when
//! ready):
//!   cm_pingpong --no-huge -m 256 --no-pci --file-prefix=s \
//!     --vdev=net_memif0,role=server,socket=/tmp/pv.sock,socket-abstract=no \
//!     --pv-dev=softroce:port=net_memif0,ip=10.99.0.1 -- server 10.99.0.1:7471
//!   cm_pingpong ... role=client ... ip=10.99.0.2 -- client 10.99.0.1:7471
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use pollverbs::cm::{Connector, Listener};
use pollverbs::{ibv_qp_type, WorkRequest};

mod common;
use common::{pattern, wait_ids};

const LEN: usize = 8192;

fn run(role: &str, addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let wait = Duration::from_secs(30);
    let (listener, connector) = if role == "server" {
        let l = Listener::bind(addr, 1)?;
        println!("listening {}", addr);
        std::io::stdout().flush()?;
        (Some(l), None)
    } else {
        (None, Some(Connector::resolve(addr, 5000)?))
    };
    let request = match &listener {
        Some(l) => Some(l.get_request()?),
        None => None,
    };
    let ctx = match (&request, &connector) {
        (Some(r), _) => r.context().clone(),
        (_, Some(c)) => c.context().clone(),
        _ => unreachable!(),
    };
    let cq = ctx.create_cq(16, 0)?;
    let pd = ctx.alloc_pd()?;
    let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC);
    // the server posts its receive once accept() returned: infinite RNR
    // retries cover a client that sends before that
    b.set_max_send_wr(4).set_max_recv_wr(4).set_rnr_retry(7);
    let mut send = pd.allocate::<u8>(LEN)?;
    let mut recv = pd.allocate::<u8>(LEN)?;
    let (mine, theirs) = if role == "server" { (11, 22) } else { (22, 11) };
    for (i, x) in send.iter_mut().enumerate() {
        *x = pattern(mine, i);
    }
    let mut qp = match (request, connector) {
        (Some(r), _) => r.accept(&b)?,
        (_, Some(c)) => c.connect(&b)?,
        _ => unreachable!(),
    };
    unsafe { qp.post_receive(&mut recv, .., 2)? };
    if role == "client" {
        let sge = [send.sge(..)?];
        unsafe { qp.post(&[WorkRequest::send(1, &sge)])? };
        wait_ids(&cq, &[1, 2], wait)?;
    } else {
        wait_ids(&cq, &[2], wait)?;
        let sge = [send.sge(..)?];
        unsafe { qp.post(&[WorkRequest::send(1, &sge)])? };
        wait_ids(&cq, &[1], wait)?;
    }
    let bad = recv.iter().enumerate().filter(|(i, x)| **x != pattern(theirs, *i)).count();
    if bad != 0 {
        return Err(format!("{}: {} of {} bytes differ", role, bad, LEN).into());
    }
    println!("{}: {} bytes received over a CM connection, checked", role, LEN);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let app = pollverbs::init(std::env::args())?;
    if app.len() != 2 || (app[0] != "server" && app[0] != "client") {
        return Err("usage: cm_pingpong <EAL args> -- server|client <ip:port>".into());
    }
    let addr: SocketAddr = app[1].parse()?;
    let r = run(&app[0], addr);
    if let Err(e) = pollverbs::cleanup() {
        eprintln!("cleanup: {}", e);
    }
    r
}
