#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# pv-nvmf-tgt's "listeners": a target on two softroce devices (two
# net_memif server ports, 10.99.0.1 and 10.99.1.1) listening on three
# addresses (two ports of the first device, one of the second) starts, says
# so and exits 0 after -t 1; a listener given twice, nine listeners, an
# empty array and a port out of range are refused (exit 1) with a message
# naming the problem. I/O through several listeners is
# integration-nvmf_listen's (lib/nvmf, one process). Exit 77 (skip) when
# the softroce devices cannot be created here.
#
# usage: test_nvmf_tgt_listeners.sh PV_NVMF_TGT
set -uo pipefail

tgt=$1
tag=pvnvl-$$
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
fails=0

cleanup() {
	rm -f "/tmp/$tag-0.sock" "/tmp/$tag-1.sock"
	[ "$fails" -eq 0 ] && rm -rf "$logdir"
}
trap cleanup EXIT

# config NAME LISTENERS_JSON: $logdir/NAME.json
config() {
	cat >"$logdir/$1.json" <<JSON
{
  "transport": { "max_io_size": 131072, "buffers_per_group": 16 },
  "poll_groups": { "lcores": [0] },
  "listeners": $2,
  "subsystems": [ { "nqn": "nqn.2026-11.org.pollverbs:l", "allow_any_host": true,
                    "namespaces": [ { "type": "ram", "size_mb": 1 } ] } ]
}
JSON
}

# start NAME: pv-nvmf-tgt on NAME.json for 1 s; its exit status in $rc
start() {
	timeout 60 "$tgt" -l 0 --no-pci --no-huge -m 256 --file-prefix="$tag-$1" \
		--log-level='*:warning' --log-level=pv.nvmf:notice \
		--vdev="net_memif0,role=server,socket=/tmp/$tag-0.sock,socket-abstract=no" \
		--vdev="net_memif1,role=server,socket=/tmp/$tag-1.sock,socket-abstract=no" \
		--pv-dev=softroce:port=net_memif0,ip=10.99.0.1 \
		--pv-dev=softroce:port=net_memif1,ip=10.99.1.1 \
		-- -c "$logdir/$1.json" -t 1 >"$logdir/$1.log" 2>&1
	rc=$?
}

# expect NAME WANT_RC PATTERN: NAME exited WANT_RC and its output has PATTERN
expect() {
	if [ "$rc" -eq "$2" ] && grep -q -- "$3" "$logdir/$1.log"; then
		echo "ok: $1"
	else
		fails=$((fails + 1))
		echo "FAIL: $1 (exit $rc, expected $2 and '$3')"
		tail -n 20 "$logdir/$1.log"
	fi
}

config three '[ { "traddr": "10.99.0.1", "trsvcid": "4420" },
                { "traddr": "10.99.0.1", "trsvcid": "4421" },
                { "traddr": "10.99.1.1" } ]'
start three
if [ "$rc" -ne 0 ] && grep -q 'pv_init: \|no device\|bad devargs' "$logdir/three.log"; then
	echo "skip: the target's devices cannot be created here:"
	cat "$logdir/three.log"
	exit 77
fi
expect three 0 'listening on 10.99.0.1:4420 10.99.0.1:4421 10.99.1.1:4420, 1 poll group'
expect three 0 '3 listener(s) on 2 device(s)'

config twice '[ { "traddr": "10.99.0.1", "trsvcid": "4420" },
                { "traddr": "10.99.1.1", "trsvcid": "4420" },
                { "traddr": "10.99.0.1", "trsvcid": "4420" } ]'
start twice
expect twice 1 'listeners\[0\] and listeners\[2\] are both 10.99.0.1:4420'

nine=$(for p in $(seq 4420 4428); do printf '{ "traddr": "10.99.0.1", "trsvcid": "%s" },' "$p"; done)
config nine "[ ${nine%,} ]"
start nine
expect nine 1 '"listeners" must be an array of 1 to 8 listeners'

config none '[]'
start none
expect none 1 '"listeners" must be an array of 1 to 8 listeners'

config port '[ { "traddr": "10.99.0.1", "trsvcid": "70000" } ]'
start port
expect port 1 'listeners\[0\] needs an IPv4 "traddr" and a "trsvcid" of 1..65535'

[ "$fails" -eq 0 ] || { echo "$fails failure(s); logs in $logdir"; exit 1; }
