#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare pv-roce-decode with tshark, field by field, on pcap files.

  compare-tshark.py DECODER FILE.pcap...

For every frame: addresses, UDP source port, BTH opcode/QPN/PSN/AckReq/PadCnt,
RETH, AETH syndrome and MSN, AtomicETH, AtomicAckETH and the ICRC bytes.
Exit status 0 when every frame agrees and every ICRC is ok.
"""
import re
import subprocess
import sys

FIELDS = ["frame.number", "ip.src", "ip.dst", "udp.srcport", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
          "infiniband.bth.padcnt", "infiniband.reth.va", "infiniband.reth.r_key",
          "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
          "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
          "infiniband.atomicacketh.origremdt", "infiniband.invariant.crc"]
LINE = re.compile(r"(\d+ \S+ > \S+ )(.*) \(0x(..)\) qpn 0x(\w+) psn 0x(\w+) ackreq (\d)(.*)"
                  r" icrc 0x(\w+) ok$")


def tshark(path):
    # rpcordma's heuristic takes small SENDs for RPC-over-RDMA and hides the ICRC
    cmd = ["tshark", "--disable-protocol", "rpcordma", "-r", path, "-T", "fields",
           "-E", "separator=|", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("|"))) for line in out.splitlines()]


def agrees(v, line):
    def n(k):
        return int(v[k], 0) if v[k] else None

    m = LINE.match(line)
    if m is None:
        return False
    rest = m.group(7)
    ok = m.group(1) == "%s %s:%s > %s:4791 " % (v["frame.number"], v["ip.src"],
                                                 v["udp.srcport"], v["ip.dst"])
    ok &= int(m.group(3), 16) == n("infiniband.bth.opcode")
    ok &= int(m.group(4), 16) == n("infiniband.bth.destqp")
    ok &= int(m.group(5), 16) == n("infiniband.bth.psn")
    ok &= int(m.group(6)) == (v["infiniband.bth.a"] in ("1", "True"))
    pad = n("infiniband.bth.padcnt")
    ok &= ((" pad %d" % pad) in rest) == (pad != 0)
    if v["infiniband.reth.va"] and n("infiniband.bth.opcode") not in (0x13, 0x14):
        ok &= (" reth va 0x%x rkey 0x%08x len %d" % (n("infiniband.reth.va"),
               n("infiniband.reth.r_key"), n("infiniband.reth.dmalen"))) in rest
    if v["infiniband.aeth.syndrome"]:
        ok &= (" aeth 0x%02x " % n("infiniband.aeth.syndrome")) in rest
        ok &= (" msn %d " % n("infiniband.aeth.msn")) in rest
    if v["infiniband.atomiceth.swapdt"]:
        ok &= (" swap_add 0x%x compare 0x%x" % (n("infiniband.atomiceth.swapdt"),
               n("infiniband.atomiceth.cmpdt"))) in rest
    if v["infiniband.atomicacketh.origremdt"]:
        ok &= (" orig 0x%x" % n("infiniband.atomicacketh.origremdt")) in rest
    # tshark shows the 4 ICRC bytes as a big-endian number, we the LE u32 (the CRC)
    crc = n("infiniband.invariant.crc")
    ok &= crc is not None and int(m.group(8), 16) == int.from_bytes(crc.to_bytes(4, "big"),
                                                                  "little")
    return ok


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    total = bad = 0
    for path in sys.argv[2:]:
        ours = subprocess.run([sys.argv[1], path], capture_output=True,
                              text=True).stdout.splitlines()
        theirs = tshark(path)
        if len(ours) != len(theirs) + 1:
            print("%s: %d frames decoded, tshark has %d" % (path, len(ours) - 1, len(theirs)))
            bad += 1
            continue
        for v, line in zip(theirs, ours):
            total += 1
            if not agrees(v, line):
                bad += 1
                print("%s: MISMATCH\n  tshark: %s\n  ours:   %s" % (path, v, line))
        print("%s: %s" % (path, ours[-1]))
    print("compared %d frames with tshark, %d mismatches" % (total, bad))
    return 1 if bad or not total else 0


if __name__ == "__main__":
    sys.exit(main())
