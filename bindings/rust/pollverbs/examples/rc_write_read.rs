// SPDX-License-Identifier: BSD-3-Clause
//! RC between two processes: the endpoints and the memory to reach are
//! exchanged as JSON (serde) over TCP; the client RDMA READs the server's
//! buffer and checks it, then RDMA WRITEs its own pattern into it with
//! immediate data; the server, woken by the immediate, checks every byte
//! and answers "ok".
//!
//! Usage: rc_write_read <EAL and --pv-dev args> -- server <tcp addr>
//!        rc_write_read <EAL and --pv-dev args> -- client <tcp addr>
//! e.g. over a memif pair (the server first):
//!   rc_write_read --no-huge -m 256 --no-pci --file-prefix=s \
//!     --vdev=net_memif0,role=server,socket=/tmp/pv.sock,socket-abstract=no \
//!     --pv-dev=softroce:port=net_memif0,ip=10.99.0.1 -- server 127.0.0.1:18515
//!   rc_write_read ... role=client ... ip=10.99.0.2 -- client 127.0.0.1:18515
//! The server prints "listening <addr>" once it accepts connections (with
//! port 0 the kernel chooses the port).
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use pollverbs::{ibv_qp_type, QueuePairEndpoint, RecvRequest, RemoteMemory, WorkRequest};

mod common;
use common::{pattern, wait_ids};

const LEN: usize = 256 * 1024;
const IMM: u32 = 0x5157_0001;

#[derive(serde::Serialize, serde::Deserialize)]
struct Hello {
    qp: QueuePairEndpoint,
    mem: RemoteMemory,
}

fn send_line<T: serde::Serialize>(s: &mut TcpStream, v: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_string(v)?;
    line.push('\n');
    s.write_all(line.as_bytes())
}

fn recv_line<T: serde::de::DeserializeOwned>(r: &mut BufReader<TcpStream>) -> std::io::Result<T> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "peer closed"));
    }
    Ok(serde_json::from_str(&line)?)
}

fn run(role: &str, addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (mut tcp, listener_addr) = if role == "server" {
        let l = TcpListener::bind(addr)?;
        let a = l.local_addr()?;
        println!("listening {}", a);
        std::io::stdout().flush()?;
        (None, Some(l))
    } else {
        (Some(TcpStream::connect(addr)?), None)
    };
    let list = pollverbs::devices()?;
    let ctx = list.get(0).ok_or("no device: give --pv-dev")?.open()?;
    let cq = ctx.create_cq(16, 0)?;
    let pd = ctx.alloc_pd()?;
    let prepared = {
        let mut b = pd.create_qp(&cq, &cq, ibv_qp_type::IBV_QPT_RC);
        b.allow_remote_rw().set_max_send_wr(4).set_max_recv_wr(4).set_timeout(14);
        b.build()?
    };
    let mut mr = pd.allocate::<u8>(LEN)?;
    let seed = if role == "server" { 1 } else { 2 };
    for (i, b) in mr.iter_mut().enumerate() {
        *b = pattern(seed, i);
    }
    let mine = Hello { qp: prepared.endpoint(), mem: mr.remote(..)? };
    let mut tcp = match (tcp.take(), listener_addr) {
        (Some(t), _) => t,
        (None, Some(l)) => l.accept()?.0,
        _ => unreachable!(),
    };
    tcp.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut rd = BufReader::new(tcp.try_clone()?);
    let theirs: Hello = if role == "server" {
        let t = recv_line(&mut rd)?;
        send_line(&mut tcp, &mine)?;
        t
    } else {
        send_line(&mut tcp, &mine)?;
        recv_line(&mut rd)?
    };
    let mut qp = prepared.handshake(theirs.qp)?;
    if role == "server" {
        // the WRITE with immediate consumes a receive (of no bytes)
        unsafe { qp.post_recv(&[RecvRequest { wr_id: 7, sges: &[] }])? };
        send_line(&mut tcp, &"ready")?;
        let wcs = wait_ids(&cq, &[7], Duration::from_secs(60))?;
        assert_eq!(wcs[0].imm_data(), Some(IMM), "immediate data");
        let bad = mr.iter().enumerate().filter(|(i, b)| **b != pattern(2, *i)).count();
        if bad != 0 {
            send_line(&mut tcp, &format!("{} bytes differ", bad))?;
            return Err(format!("server: {} of {} bytes differ after the WRITE", bad, LEN).into());
        }
        send_line(&mut tcp, &"ok")?;
        println!("server: {} bytes written by the client, checked", LEN);
        // stay (and keep making progress) until the client has its own
        // completion: the WRITE's ACK may still be on its way, and a peer
        // that tears down first leaves the client retrying into the void
        let _bye: std::io::Result<String> = recv_line(&mut rd);
    } else {
        let ready: String = recv_line(&mut rd)?;
        assert_eq!(ready, "ready");
        // READ the server's buffer into ours, check it, then WRITE ours back
        let mut mine_copy = vec![0u8; LEN];
        mine_copy.copy_from_slice(&mr);
        let sge = [mr.sge(..)?];
        unsafe { qp.post(&[WorkRequest::read(1, &sge, theirs.mem)])? };
        wait_ids(&cq, &[1], Duration::from_secs(60))?;
        let bad = mr.iter().enumerate().filter(|(i, b)| **b != pattern(1, *i)).count();
        if bad != 0 {
            return Err(format!("client: {} of {} bytes differ after the READ", bad, LEN).into());
        }
        mr.copy_from_slice(&mine_copy);
        unsafe { qp.post(&[WorkRequest::write(2, &sge, theirs.mem).imm(IMM)])? };
        wait_ids(&cq, &[2], Duration::from_secs(60))?;
        let verdict: String = recv_line(&mut rd)?;
        send_line(&mut tcp, &"bye")?;
        if verdict != "ok" {
            return Err(format!("server: {}", verdict).into());
        }
        println!("client: READ {} bytes checked, WRITE with immediate checked by the server", LEN);
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let app = pollverbs::init(std::env::args())?;
    if app.len() != 2 || (app[0] != "server" && app[0] != "client") {
        return Err("usage: rc_write_read <EAL args> -- server|client <tcp addr>".into());
    }
    let r = run(&app[0], &app[1]);
    pollverbs::cleanup()?;
    r
}
