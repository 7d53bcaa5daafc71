// SPDX-License-Identifier: BSD-3-Clause
//! Runs the examples as processes and checks what they report: loopback
//! (the ibverbs crate's, runtime from PV_EAL_ARGS), ud, srq on a loopback
//! ring port, and rc_write_read as a server and a client over a memif pair.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

const LIMIT: Duration = Duration::from_secs(90);

/// Wait for `child` at most LIMIT, killing it after; its output.
fn finish(mut child: Child, what: &str) -> Output {
    let end = Instant::now() + LIMIT;
    loop {
        match child.try_wait().unwrap() {
            Some(_) => break,
            None if Instant::now() > end => {
                let _ = child.kill();
                eprintln!("{}: killed after {:?}", what, LIMIT);
                break;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let out = child.wait_with_output().unwrap();
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn example(name: &str) -> Command {
    let mut c = Command::new(common::examples_dir().join(name));
    c.env("PV_PORT_WAIT_MS", "30000").stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn loopback() {
    let args = common::ring_args("lo");
    let mut c = example("loopback");
    c.env("PV_EAL_ARGS", args[1..].join(" "));
    // 0.4's example never stops the runtime: what the devices hold is still
    // allocated at exit, which LeakSanitizer (the ASan pass of
    // usertools/pv-test-rust.sh) would report
    if let Ok(o) = std::env::var("ASAN_OPTIONS") {
        c.env("ASAN_OPTIONS", format!("{}:detect_leaks=0", o));
    }
    let out = finish(c.spawn().unwrap(), "loopback");
    common::remove_runtime_dir(&common::prefix("lo"));
    assert!(out.status.success(), "loopback: {}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l == "sent"), "no 'sent'");
    assert!(text.lines().any(|l| l == "received"), "no 'received'");
}

fn single(name: &str, expect: &str) {
    let args = common::ring_args(name);
    let mut c = example(name);
    c.args(&args[1..]);
    let out = finish(c.spawn().unwrap(), name);
    common::remove_runtime_dir(&common::prefix(name));
    assert!(out.status.success(), "{}: {}", name, out.status);
    assert!(String::from_utf8_lossy(&out.stdout).contains(expect), "{}: no {:?}", name, expect);
}

/// A server and a client process of example `name` over a memif pair:
/// the server's first line ("listening X") gives `client_args` its target;
/// each side must exit 0 and print its `expect`.
fn two_process(
    name: &str,
    server_args: &[&str],
    client_args: &dyn Fn(&str) -> Vec<String>,
    expect: (&str, &str),
) {
    let pid = std::process::id();
    let sock = format!("/tmp/pvrs-{}-{}.sock", name, pid);
    let _ = std::fs::remove_file(&sock);
    let side = |role: &str, ip: &str| -> Vec<String> {
        format!(
            "--no-huge -m 256 --no-pci -l 0 --log-level=*:warning --file-prefix={} \
             --vdev=net_memif0,role={},socket={},socket-abstract=no \
             --pv-dev=softroce:port=net_memif0,ip={}",
            common::prefix(&format!("{}_{}", name, role)), role, sock, ip
        )
        .split_whitespace()
        .map(String::from)
        .collect()
    };
    let mut s = example(name);
    s.args(side("server", "10.99.7.1")).arg("--").args(server_args);
    let mut server = s.spawn().unwrap();
    let mut first = String::new();
    let mut so = BufReader::new(server.stdout.take().unwrap());
    so.read_line(&mut first).unwrap();
    let addr = first.trim().strip_prefix("listening ").unwrap_or("").to_string();
    if addr.is_empty() {
        let _ = server.kill();
        let out = finish(server, "server");
        panic!("server said {:?} then exited {}", first, out.status);
    }
    let mut c = example(name);
    c.args(side("client", "10.99.7.2")).arg("--").args(client_args(&addr));
    let client = finish(c.spawn().unwrap(), "client");
    let sout = finish(server, "server");
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut so, &mut rest);
    print!("{}", rest);
    let _ = std::fs::remove_file(&sock);
    for role in &["server", "client"] {
        common::remove_runtime_dir(&common::prefix(&format!("{}_{}", name, role)));
    }
    assert!(client.status.success(), "client: {}", client.status);
    assert!(sout.status.success(), "server: {}", sout.status);
    assert!(String::from_utf8_lossy(&client.stdout).contains(expect.1), "client output");
    assert!(rest.contains(expect.0), "server output: {:?}", rest);
}

fn rc_write_read() {
    two_process(
        "rc_write_read",
        &["server", "127.0.0.1:0"],
        &|addr| vec!["client".into(), addr.into()],
        ("written by the client, checked", "checked by the server"),
    );
}

fn cm_pingpong() {
    two_process(
        "cm_pingpong",
        &["server", "10.99.7.1:7471"],
        &|addr| vec!["client".into(), addr.into()],
        ("server: 8192 bytes received over a CM connection, checked",
         "client: 8192 bytes received over a CM connection, checked"),
    );
}

fn main() {
    let cases: Vec<common::Case<'_>> = vec![
        ("loopback", Box::new(loopback)),
        ("ud", Box::new(|| single("ud", "3 messages of 512 bytes received and checked"))),
        ("srq", Box::new(|| single("srq", "through one SRQ, checked"))),
        ("rc_write_read", Box::new(rc_write_read)),
        ("cm_pingpong", Box::new(cm_pingpong)),
    ];
    std::process::exit((common::run("examples", &cases) != 0) as i32);
}
