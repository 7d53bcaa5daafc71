#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora of the fuzz targets, written to
OUT/{parse,resp,req,cm_mad,nvmf_capsule}.

usage: pv-fuzz-seeds.py RXE_DATA_DIR OUT_DIR

From each classic pcap of RXE_DATA_DIR (if the directory exists): its RoCEv2
frames as parser seeds (mode byte 0: ICRC as captured), and per capture one
responder seed (the frames towards the responder, 10.77.0.11) and one
requester seed (the frames from it) in the action format of fuzz_sroce_qp.c,
with the QPN, rkey/va and PSN patched by the harness; and every distinct
CM MAD (UD SEND Only to QP1: the 256 bytes after BTH and DETH) as a
fuzz_cm_mad seed. A few synthetic seeds are always written (frames, one
MAD per CM attribute, rdma_cm headers), so the targets start from valid
input without the data. The fuzz_nvmf_capsule seeds are synthetic only:
command sequences in the action format of fuzz_nvmf_capsule.c (bring-up,
admin commands, I/O, discovery, waiting data, reset and keep-alive expiry).
"""
import os
import struct
import sys

RESPONDER_IP = bytes([10, 77, 0, 11])
MAX_FRAMES = 24          # per QP seed
MAX_PARSE = 400          # parser seeds in all
MAD_SIZE = 256
CM_ATTRS = [0x0001] + list(range(0x0010, 0x001b))


def pcap_frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack('<I', data[:4])[0]
    endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def roce_body(frame):
    """(BTH-onward bytes without the ICRC, IPv4 source) or None"""
    l3 = 14
    if len(frame) < 14:
        return None
    if frame[12:14] == b'\x81\x00':
        l3 = 18
    if frame[l3 - 2:l3] != b'\x08\x00' or len(frame) < l3 + 20:
        return None
    ihl = (frame[l3] & 0xf) * 4
    if frame[l3 + 9] != 17 or len(frame) < l3 + ihl + 8 + 12 + 4:
        return None
    if struct.unpack('>H', frame[l3 + ihl + 2:l3 + ihl + 4])[0] != 4791:
        return None
    total = struct.unpack('>H', frame[l3 + 2:l3 + 4])[0]
    end = min(len(frame), l3 + total)
    return frame[l3 + ihl + 8:end - 4], frame[l3 + 12:l3 + 16]


def cm_mad(body):
    """the MAD of a UD SEND Only to QP1 (BTH, DETH, MAD), or None"""
    if len(body) != 12 + 8 + MAD_SIZE or body[0] != 0x64 or body[5:8] != b'\x00\x00\x01':
        return None
    return body[20:]


def cm_synthetic():
    """one CM Send of each attribute, all fields zero; two rdma_cm headers"""
    seeds = []
    for attr in CM_ATTRS:
        hdr = bytes([1, 0x07, 2, 0x03, 0, 0, 0, 0]) + struct.pack('>QHHI', 1, attr, 0, 0)
        seeds.append(hdr + bytes(MAD_SIZE - len(hdr)))
    v4 = bytes([0, 0x40]) + struct.pack('>H', 54793)
    v4 += bytes(12) + bytes([10, 77, 0, 12]) + bytes(12) + bytes([10, 77, 0, 11])
    v6 = bytes([0, 0x60]) + struct.pack('>H', 4791) + bytes(range(16)) + bytes(range(16, 32))
    return seeds + [v4, v6]


def qp_record(body):
    """action 0 (frame) with the QPN, rkey/va and PSN patched by the harness"""
    op = body[0]
    q = 1 if 0x20 <= op < 0x40 else 3 if op >= 0xa0 else 2 if op >= 0x60 else 0
    # bit 2: the XRC TGT QP (qp[3]); its XRCETH and RETH are patched too
    flags = {0: 0x39, 1: 0x3a, 2: 0x38, 3: 0x3c}[q]
    return bytes([0]) + struct.pack('>H', len(body)) + bytes([flags]) + body


def synthetic():
    """a few frames (BTH on) for the QPs: WRITE ONLY, SEND ONLY, READ, ACK"""
    def bth(op, psn, ackreq=0):
        return bytes([op, 0, 0xff, 0xff, 0, 0, 0, 0x11, ackreq << 7,
                      (psn >> 16) & 0xff, (psn >> 8) & 0xff, psn & 0xff])
    reth = struct.pack('>QII', 0, 0, 64)
    write = bth(0x0a, 0, 1) + reth + bytes(64)
    send = bth(0x04, 0, 1) + bytes(32)
    read = bth(0x0c, 0) + struct.pack('>QII', 0, 0, 3000)
    ack = bth(0x11, 0) + bytes([0x1f, 0, 0, 1])
    uc_send = bth(0x24, 0) + bytes(16)
    ud_send = bth(0x64, 0) + struct.pack('>II', 0x1111, 0x102) + bytes(16)
    # XRC (0xa0 + the RC opcode): XRCETH (patched to the SRQ) after the BTH
    xrc_send = bth(0xa4, 0, 1) + bytes(4) + bytes(32)
    xrc_write = bth(0xaa, 0, 1) + bytes(4) + reth + bytes(64)
    xrc_read = bth(0xac, 0) + bytes(4) + struct.pack('>QII', 0, 0, 3000)
    send_inv = bth(0x17, 0, 1) + bytes(4) + bytes(16)
    frames = [write, send, read, ack, uc_send, ud_send, xrc_send, xrc_write, xrc_read,
              send_inv]
    return frames


# fuzz_nvmf_capsule.c: its NQNs, host key and host memory address
NVMF_SUBNQN = b'nqn.2026-11.org.pollverbs:fuzz'
NVMF_HOSTNQN = b'nqn.2014-08.org.nvmexpress:uuid:fuzz-host'
NVMF_DISC_NQN = b'nqn.2014-08.org.nvmexpress.discovery'
NVMF_KEY = 0x1234abcd
NVMF_HOST_VA = 0x100000000


def nvme_sqe(opc, cid, nsid=0, sgl=bytes(16), cdw=()):
    """a 64-byte SQE, SGL data (PSDT 01b), cdw10 on from cdw"""
    cdw = tuple(cdw) + (0,) * (6 - len(cdw))
    return struct.pack('<BBHIIIQ', opc, 0x40, cid, nsid, 0, 0, 0) + sgl + \
        struct.pack('<6I', *cdw)


def nvmf_sqe(fctype, cid, sgl=bytes(16), fcs=b''):
    """a Fabrics SQE: fctype at byte 4, 24 command-specific bytes at 40"""
    return struct.pack('<BBHB', 0x7f, 0x40, cid, fctype) + bytes(19) + sgl + \
        fcs.ljust(24, b'\0')


def sgl_keyed(off, length):
    """a keyed data block at the harness's host memory + off"""
    return struct.pack('<Q', NVMF_HOST_VA + off) + length.to_bytes(3, 'little') + \
        struct.pack('<I', NVMF_KEY) + bytes([0x40])


def sgl_icd(length, off=0):
    """in-capsule data at offset off"""
    return struct.pack('<QI', off, length) + bytes(3) + bytes([0x01])


def nvmf_connect(cid, qid, cntlid, sgl, disc=False, kato=0):
    """(SQE, connect data) of a Connect of queue qid"""
    fcs = struct.pack('<HHHBBI', 0, qid, 31, 0, 0, kato)
    data = bytes([0x42] * 16) + struct.pack('<H', cntlid) + bytes(238)
    data += (NVMF_DISC_NQN if disc else NVMF_SUBNQN).ljust(256, b'\0')
    data += NVMF_HOSTNQN.ljust(256, b'\0') + bytes(256)
    return nvmf_sqe(0x01, cid, sgl, fcs), data


def nvmf_prop(cid, fctype, ofst, size8=False, value=0):
    """Property Get (fctype 0x04) or Set (0x00) of the property at ofst"""
    return nvmf_sqe(fctype, cid, fcs=struct.pack('<B3xIQ', 1 if size8 else 0, ofst, value))


def nvmf_capsule(how, sqe, icd=b''):
    """action 0: how, in-capsule data length, SQE, data"""
    return bytes([0, how]) + struct.pack('<H', len(icd)) + sqe + icd


def nvmf_synthetic():
    """(name, input) of the fuzz_nvmf_capsule seeds; how bit 7 keeps the
    flags valid, bit 5 fixes a Connect's NQNs and controller ID"""
    seeds = []
    # 0: nothing connected; admin Connect, properties, enable, I/O Connect
    # (controller 1: the harness starts IDs from 1), Keep Alive, Disconnect
    sqe, data = nvmf_connect(1, 0, 0xffff, sgl_icd(1024))
    b = bytes([0, 0]) + nvmf_capsule(0xa0, sqe, data)
    b += nvmf_capsule(0x80, nvmf_prop(2, 0x04, 0x00, size8=True))
    b += nvmf_capsule(0x80, nvmf_prop(3, 0x04, 0x08))
    b += nvmf_capsule(0x80, nvmf_prop(4, 0x00, 0x14, value=0x460001))
    b += nvmf_capsule(0x80, nvmf_prop(5, 0x04, 0x1c))
    sqe, data = nvmf_connect(6, 1, 1, sgl_icd(1024))
    b += nvmf_capsule(0xa1, sqe, data)
    b += nvmf_capsule(0x80, nvme_sqe(0x18, 7))
    b += nvmf_capsule(0x81, nvmf_sqe(0x08, 8)) + bytes([2])
    seeds.append(('connect', b))
    # 2: admin queue enabled; Identify, Get Log Page, features, AER, Abort
    b = bytes([2, 0])
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 1, 0, sgl_keyed(0, 4096), (1,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 2, 1, sgl_keyed(4096, 4096), (0,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 3, 0, sgl_keyed(8192, 4096), (2,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 4, 2, sgl_keyed(0, 4096), (3,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 5, 0, sgl_keyed(0, 4096), (6,)))
    for cid, lid, numd in ((6, 0x01, 255), (7, 0x02, 127), (8, 0x03, 127), (9, 0x04, 1023)):
        b += nvmf_capsule(0x90, nvme_sqe(0x02, cid, 0xffffffff, sgl_keyed(0, 4096),
                                         (lid | numd << 16,)))
    b += nvmf_capsule(0x80, nvme_sqe(0x09, 10, cdw=(0x07, 0x00010001)))
    b += nvmf_capsule(0x90, nvme_sqe(0x0a, 11, sgl=sgl_keyed(0, 4096), cdw=(0x07,)))
    b += nvmf_capsule(0x80, nvme_sqe(0x09, 12, cdw=(0x0f, 2000)))
    b += nvmf_capsule(0x90, nvme_sqe(0x0a, 13, sgl=sgl_keyed(0, 4096), cdw=(0x0f,)))
    b += nvmf_capsule(0x80, nvme_sqe(0x09, 14, cdw=(0x0b, 0x100)))
    b += nvmf_capsule(0x80, nvme_sqe(0x0c, 15))
    b += nvmf_capsule(0x80, nvme_sqe(0x0c, 16))
    b += nvmf_capsule(0x80, nvme_sqe(0x08, 17, cdw=(15,)))
    seeds.append(('identify', b))
    # 3: I/O queue connected; Write (in capsule, keyed), Read, Flush, Write
    # Zeroes, DSM deallocate, the 4 KiB namespace's last block
    b = bytes([3, 0])
    b += bytes([5]) + struct.pack('<HB', 0, 16) + bytes(range(16))
    b += nvmf_capsule(0x81, nvme_sqe(0x01, 1, 1, sgl_icd(512), (0, 0, 0)), bytes(range(256)) * 2)
    b += nvmf_capsule(0x91, nvme_sqe(0x02, 2, 1, sgl_keyed(4096, 4096), (0, 0, 7)))
    b += nvmf_capsule(0x91, nvme_sqe(0x01, 3, 2, sgl_keyed(0, 4096), (1, 0, 0)))
    b += nvmf_capsule(0x81, nvme_sqe(0x00, 4, 1))
    b += nvmf_capsule(0x81, nvme_sqe(0x00, 5, 0xffffffff))
    b += nvmf_capsule(0x81, nvme_sqe(0x08, 6, 1, cdw=(8, 0, 15)))
    ranges = struct.pack('<IIQ', 0, 4, 0) + struct.pack('<IIQ', 0, 8, 100)
    b += nvmf_capsule(0x81, nvme_sqe(0x09, 7, 1, sgl_icd(32), (1, 4)), ranges)
    b += nvmf_capsule(0x91, nvme_sqe(0x02, 8, 2, sgl_keyed(8192, 4096), (255, 0, 0)))
    seeds.append(('read', b))
    # 2 + discovery: Identify, the discovery log page whole and from 1024 on
    b = bytes([6, 0])
    b += nvmf_capsule(0x90, nvme_sqe(0x06, 1, 0, sgl_keyed(0, 4096), (1,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x02, 2, 0, sgl_keyed(0, 4096), (0x70 | 1023 << 16,)))
    b += nvmf_capsule(0x90, nvme_sqe(0x02, 3, 0, sgl_keyed(0, 2048),
                                     (0x70 | 511 << 16, 0, 1024)))
    seeds.append(('discovery', b))
    # 3 + KATO 1 s: data that comes later (written, failed), an AER, reset
    # (CC.EN 0: the I/O queue goes), keep-alive expiry after 2 s
    b = bytes([11, 0])
    b += nvmf_capsule(0x95, nvme_sqe(0x01, 1, 1, sgl_keyed(0, 4096), (0, 0, 7)))
    b += bytes([1, 0])
    b += nvmf_capsule(0x95, nvme_sqe(0x02, 2, 1, sgl_keyed(0, 4096), (0, 0, 7)))
    b += bytes([1, 1])
    b += nvmf_capsule(0x80, nvme_sqe(0x0c, 3))
    b += bytes([4, 0])
    b += nvmf_capsule(0x80, nvmf_prop(4, 0x00, 0x14, value=0))
    b += bytes([2])
    b += bytes([4, 10 << 2, 2])
    seeds.append(('async', b))
    # nothing connected, slot 3 is QID 2: Connects with keyed data (the
    # admin one read later, as an RDMA READ), a Read of two keyed
    # descriptors in a Last Segment, the connection lost
    b = bytes([0, 2])
    sqe, data = nvmf_connect(1, 0, 0xffff, sgl_keyed(0, 1024))
    b += nvmf_capsule(0xb4, sqe) + bytes([1, 0])
    b += nvmf_capsule(0x80, nvmf_prop(2, 0x00, 0x14, value=0x460001))
    sqe, data = nvmf_connect(3, 2, 1, sgl_keyed(4096, 1024))
    b += nvmf_capsule(0xb3, sqe)
    last = struct.pack('<QI', 0, 32) + bytes(3) + bytes([0x31])
    descs = sgl_keyed(8192, 2048) + sgl_keyed(16384, 2048)
    b += nvmf_capsule(0x93, nvme_sqe(0x02, 4, 1, last, (0, 0, 7)), descs)
    b += bytes([3, 0])
    seeds.append(('keyed', b))
    return seeds


def main():
    data_dir, out = sys.argv[1], sys.argv[2]
    for d in ('parse', 'resp', 'req', 'cm_mad', 'nvmf_capsule'):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    n_parse = 0
    seen = set()
    mads = set()
    if os.path.isdir(data_dir):
        for name in sorted(os.listdir(data_dir)):
            if not name.endswith('.pcap'):
                continue
            to_resp, from_resp = [], []
            for frame in pcap_frames(os.path.join(data_dir, name)):
                r = roce_body(frame)
                if r is None:
                    continue
                body, sip = r
                mad = cm_mad(body)
                if mad is not None and mad not in mads:
                    mads.add(mad)
                    with open(os.path.join(out, 'cm_mad', '%s-%d' % (name, len(mads))),
                              'wb') as f:
                        f.write(mad)
                key = (body[0], len(body) // 256)
                if n_parse < MAX_PARSE and key not in seen:
                    seen.add(key)
                    with open(os.path.join(out, 'parse', '%s-%d' % (name, n_parse)), 'wb') as f:
                        f.write(b'\x00' + frame)
                    n_parse += 1
                lst = from_resp if sip == RESPONDER_IP else to_resp
                if len(lst) < MAX_FRAMES:
                    lst.append(qp_record(body))
            for kind, lst in (('resp', to_resp), ('req', from_resp)):
                if lst:
                    with open(os.path.join(out, kind, name), 'wb') as f:
                        f.write(b''.join(lst) + b'\x07\x00')
    for i, body in enumerate(synthetic()):
        rec = qp_record(body)
        for kind in ('resp', 'req'):
            with open(os.path.join(out, kind, 'synthetic-%d' % i), 'wb') as f:
                f.write(rec + b'\x07\x00')
        eth = bytes(12) + b'\x08\x00'
        ip = bytes([0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1])
        udp = struct.pack('>HHHH', 0xc000, 4791, 0, 0)
        with open(os.path.join(out, 'parse', 'synthetic-%d' % i), 'wb') as f:
            f.write(b'\x01' + eth + ip + udp + body + bytes(4))
    for i, seed in enumerate(cm_synthetic()):
        with open(os.path.join(out, 'cm_mad', 'synthetic-%d' % i), 'wb') as f:
            f.write(seed)
    for name, seed in nvmf_synthetic():
        with open(os.path.join(out, 'nvmf_capsule', 'synthetic-' + name), 'wb') as f:
            f.write(seed)
    print('seeds: %d parser frames, %d QP sequences, %d CM MADs, %d NVMe-oF inputs' %
          (n_parse + len(synthetic()), len(os.listdir(os.path.join(out, 'resp'))),
           len(mads) + len(cm_synthetic()), len(nvmf_synthetic())))


if __name__ == '__main__':
    main()
