#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# The main demo (make demo): pv-perf over softroce between two processes on
# this machine, one lcore each (server -l 0, client -l 1), joined by a
# net_memif pair. Prints perftest's tables for write_bw, read_bw and send_bw
# at 4 KiB, 64 KiB and 1 MiB, send_lat at 8 B and the write message rate at
# 8 B with post lists of 32.
#
# Memory: hugepages when there are (or, as root, when 1 GiB of 2 MiB pages
# can be reserved; released again at exit), else --no-huge -m 1024.
#
# usage: usertools/pv-demo.sh [BUILD_DIR]
#   PV_DEMO_PORT   TCP port of the address exchange (default 18515)
#   PV_DEMO_ITERS  iterations of the bandwidth runs (default 5000, as perftest)
#   PV_DEMO_NO_HUGE=1  do not use or reserve hugepages
#   PV_DEMO_MTU    softroce Ethernet MTU (default 9000: path MTU 4096; 1500: 1024)
#   PV_DEMO_ONLY   run only these (space-separated): write_bw read_bw send_bw
#                  send_lat write_rate
#   PV_DEMO_SIZES  sizes of the bandwidth runs (default 4096,65536,1048576)
#   PV_DEMO_LAT_SIZES  sizes of the send_lat run (default 8)
#   PV_DEMO_LAT_ITERS  iterations of the send_lat run (default 1000, as perftest)
#   PV_DEMO_RATE_ITERS messages of the 8 B write_rate run (default 100000)
#   PV_DEMO_ARGS   more pv-perf options for both sides (e.g. --thread-safe)
#   PV_DEMO_MEMIF_ZC=0  no memif zero-copy on the client side (default: on
#                  with hugepages; see below)
set -uo pipefail

build=${1:-build}
perf=$build/apps/pv-perf
port=${PV_DEMO_PORT:-18515}
iters=${PV_DEMO_ITERS:-5000}
sock=/tmp/pv-demo-$$.sock
logdir=$(mktemp -d /tmp/pv-demo.XXXXXX)
hp_sys=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp_prev=""
hp_mounted=""
spid=""
failed=0

say() { printf 'pv-demo: %s\n' "$*"; }

cleanup() {
	if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -f "$sock"
	if [ -n "$hp_mounted" ]; then
		umount "$hp_mounted" 2>/dev/null
	fi
	if [ -n "$hp_prev" ]; then
		echo "$hp_prev" > "$hp_sys" 2>/dev/null
		say "released the hugepages reserved for the demo"
	fi
	if [ "$failed" -eq 0 ]; then
		rm -rf "$logdir"
	else
		say "logs kept in $logdir"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$perf" ]; then
	say "$perf not found: build first (make build)"
	exit 1
fi

hp_free_kb() {
	awk '/^HugePages_Free:/ { f = $2 } /^Hugepagesize:/ { s = $2 } END { print f * s }' \
		/proc/meminfo
}

hp_mounted_any() {
	grep -q ' hugetlbfs ' /proc/mounts
}

# Decide the memory arguments; reserve 2 MiB pages when we can.
mem_args=(--no-huge -m 1024)
mem_desc="--no-huge -m 1024 (no hugepages)"
need_kb=$((1024 * 1024))
if [ "${PV_DEMO_NO_HUGE:-0}" = 1 ]; then
	mem_desc="--no-huge -m 1024 (PV_DEMO_NO_HUGE=1)"
elif hp_mounted_any && [ "$(hp_free_kb)" -ge "$need_kb" ]; then
	mem_args=(--huge-unlink)
	mem_desc="hugepages already reserved on this machine"
elif command -v dpdk-hugepages.py >/dev/null 2>&1 &&
	dpdk-hugepages.py -p 2M --setup 1G >/dev/null 2>&1 &&
	[ "$(hp_free_kb)" -ge "$need_kb" ]; then
	mem_args=(--huge-unlink)
	mem_desc="1 GiB of 2 MiB hugepages (dpdk-hugepages.py -p 2M --setup 1G)"
elif [ "$(id -u)" = 0 ] && [ -w "$hp_sys" ]; then
	hp_prev=$(cat "$hp_sys")
	echo $((hp_prev + 512)) > "$hp_sys" 2>/dev/null
	if ! hp_mounted_any; then
		mkdir -p /dev/hugepages &&
			mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null &&
			hp_mounted=/dev/hugepages
	fi
	if hp_mounted_any && [ "$(hp_free_kb)" -ge "$need_kb" ]; then
		mem_args=(--huge-unlink)
		mem_desc="1 GiB of 2 MiB hugepages, reserved for the demo"
	else
		mem_desc="--no-huge -m 1024 (reserving 2 MiB hugepages failed)"
		[ -n "$hp_mounted" ] && umount "$hp_mounted" 2>/dev/null
		hp_mounted=""
		echo "$hp_prev" > "$hp_sys" 2>/dev/null
		hp_prev=""
	fi
fi
say "memory: $mem_desc"

# memif zero-copy (DPDK's zero-copy=yes, client role only): the client's
# mbufs are the memif packet buffers, so its transmit puts them on the ring
# without copying and the server copies straight from them; it needs the
# client's hugepage memory shareable by fd (--single-file-segments, here
# with --in-memory: no files left behind). The server then maps all of the
# client's DPDK memory: fine for two processes of one benchmark. Measured
# (send_bw, 20000 messages, alternated): 4 KiB 24-25 -> 30-32 Gb/sec, 64 KiB
# 33-34 -> 41-43, 1 MiB 34-36 -> 41-42; send_lat 8 B t_typical 1.28-1.30
# -> 1.10-1.13 usec. Not for the message-rate run (below).
client_mem_args=("${mem_args[@]}")
client_zc=""
if [ "${mem_args[0]}" = --huge-unlink ] && [ "${PV_DEMO_MEMIF_ZC:-1}" != 0 ]; then
	client_mem_args=(--in-memory --single-file-segments)
	client_zc=",zero-copy=yes"
	say "memif zero-copy on the client side (PV_DEMO_MEMIF_ZC=0: off)"
fi

# Path MTU 4096: an Ethernet MTU of 9000 on softroce, and memif buffers that
# hold its largest frame (4352 bytes) in one descriptor (memif's chained
# descriptors garble mixed frame sizes in DPDK 22.11). PV_DEMO_MTU=1500 runs
# the memif defaults (path MTU 1024).
if [ "${PV_DEMO_MTU:-9000}" = 1500 ]; then
	memif_args=""
	sroce_args=""
else
	memif_args=",bsize=4352"
	sroce_args=",mtu=${PV_DEMO_MTU:-9000}"
fi
memif_extra=""
say "softroce${sroce_args:- default mtu} memif${memif_args:- default bsize}"

client_lcore=1
[ "$(nproc)" -lt 2 ] && client_lcore=0
say "server: lcore 0, net_memif server, 10.99.0.1; client: lcore $client_lcore," \
	"net_memif client, 10.99.0.2; memif socket $sock"

# run_pair NAME TEST ARGS...: server and client of one pv-perf test
run_pair() {
	local name=$1 slog clog crc src i
	shift
	if [ -n "${PV_DEMO_ONLY:-}" ] && [[ " $PV_DEMO_ONLY " != *" $name "* ]]; then
		return 0
	fi
	set -- "$@" ${PV_DEMO_ARGS:-}
	slog=$logdir/$name.server
	clog=$logdir/$name.client
	rm -f "$sock"
	"$perf" -l 0 --no-pci --file-prefix=pv-demo-s-$$ "${mem_args[@]}" \
		--vdev=net_memif0,role=server,socket=$sock,socket-abstract=no$memif_args$memif_extra \
		--pv-dev=softroce:port=net_memif0,ip=10.99.0.1$sroce_args \
		-- "$@" -p "$port" >"$slog" 2>&1 &
	spid=$!
	# the memif client connects once: wait until the server listens
	for i in $(seq 200); do
		awk -v s="$sock" '$8 == s && $4 ~ /^0*10000$/ { f = 1 } END { exit !f }' \
			/proc/net/unix && grep -q 'Waiting for client' "$slog" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	timeout 150 "$perf" -l "$client_lcore" --no-pci --file-prefix=pv-demo-c-$$ \
		"${client_mem_args[@]}" \
		--vdev=net_memif0,role=client,socket=$sock,socket-abstract=no$memif_args$memif_extra$client_zc \
		--pv-dev=softroce:port=net_memif0,ip=10.99.0.2$sroce_args \
		-- "$@" -p "$port" 127.0.0.1 >"$clog" 2>&1
	crc=$?
	for i in $(seq 100); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$spid" 2>/dev/null; then
		kill "$spid" 2>/dev/null
		src=124
		wait "$spid" 2>/dev/null
	else
		wait "$spid"
		src=$?
	fi
	spid=""
	echo
	say "pv-perf $* (client side; the server printed the same table)"
	sed -n '/^-----/,$p' "$clog"
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
		say "FAILED: $name (client exit $crc, server exit $src)"
		echo "--- server log (last lines) ---"
		tail -n 15 "$slog"
		echo "--- client log (last lines) ---"
		tail -n 15 "$clog"
		failed=1
	fi
}

start=$(date +%s)
sizes=${PV_DEMO_SIZES:-4096,65536,1048576}
run_pair write_bw write_bw --sizes=$sizes -n "$iters"
run_pair read_bw read_bw --sizes=$sizes -n "$iters"
run_pair send_bw send_bw --sizes=$sizes -n "$iters"
# One message is in flight: 256 memif slots (rsize=8) are plenty. (memif
# allocates its ring lazily; before softroce pre-faulted and touched it at
# link up, the 1000 messages of a latency run never got past the first,
# page-faulting pass over 1024 slots: t_typical 4.6 usec instead of 0.5.)
memif_extra=",rsize=8"
run_pair send_lat send_lat --sizes=${PV_DEMO_LAT_SIZES:-8} -n "${PV_DEMO_LAT_ITERS:-1000}"
memif_extra=""
# Small messages go the other way: zero-copy holds every transmitted mbuf
# until the server has read it, and the server reads each frame from a
# different mbuf of the client's pool; copying 100-byte frames into the
# ring is cheaper (8 B -l 32: 5.5-5.6 Mpps with zero-copy, 8.9-9.3 without)
zc_saved=$client_zc
client_zc=""
run_pair write_rate write_bw -s 8 -l 32 -n "${PV_DEMO_RATE_ITERS:-100000}"
client_zc=$zc_saved
echo
if [ "$failed" -ne 0 ]; then
	say "some runs failed ($(( $(date +%s) - start )) s)"
	exit 1
fi
say "all runs passed ($(( $(date +%s) - start )) s)"
