#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Interoperability of pollverbs' softroce with Linux soft-RoCE (rdma_rxe) and
# the standard verbs tools, against the rxe lab of ../shared/lab/rxe:
#
#   usertools/pv-interop.sh BUILD_DIR        (what `make interop` runs)
#
# The lab VM (vm1, 10.77.0.11, rxe0) runs ibv_rc_pingpong, ibv_ud_pingpong
# and perftest; the
# pollverbs side runs in the lab's network namespace on a veth joined to the
# lab bridge (rxh0), as a softroce device over DPDK net_af_packet at
# 10.77.0.100. The TCP exchanges go through the namespace's own stack
# (br0, 10.77.0.1). Two MTU sets: netdev MTU 1500 (RoCE MTU 1024) and 9000
# (RoCE MTU 4096); the VM is restarted between them.
#
# One line per case, "PASS name" or "FAIL name (reason)", then
# "interop: N passed, N failed". Exit status 0 only when nothing failed.
# Logs: $PV_INTEROP_OUT (default BUILD_DIR/interop), one file per side per case.
#
# Environment:
#   PV_RXE_LAB          lab directory (default: ../shared/lab/rxe from the repo)
#   PV_INTEROP_MTUS     netdev MTUs to run (default "1500 9000")
#   PV_INTEROP_ONLY     extended regex: run only the cases whose name matches
#   PV_INTEROP_KEEP_VM  1: leave the VM running at the end
#   PV_INTEROP_VDEV     ethdev for softroce (default af_packet on rxh0; the
#                       string IFACE is replaced by the veth name)
#   PV_INTEROP_TIMEOUT  seconds per process (default 90)
#   PV_INTEROP_PIN_NEIGH 1: pin softroce's MAC in the VM's neighbour table
#                       instead of relying on softroce answering ARP
set -uo pipefail

BUILD=${1:?usage: $0 BUILD_DIR}
REPO=$(cd "$(dirname "$0")/.." && pwd)
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
LAB=${PV_RXE_LAB:-$REPO/../shared/lab/rxe}
[ -d "$LAB" ] || LAB=/work/shared/lab/rxe
ART=${RXELAB_ART:-/var/tmp/rxe-lab}
OUT=${PV_INTEROP_OUT:-$BUILD/interop}
MTUS=${PV_INTEROP_MTUS:-1500 9000}
ONLY=${PV_INTEROP_ONLY:-}
TMO=${PV_INTEROP_TIMEOUT:-90}
NS=rxelab
VETH=rxh0
PV_IP=10.77.0.100
PV_TCP=10.77.0.1		# br0: where the VM reaches the namespace's TCP
VM=1
VM_IP=10.77.0.11
FAKE_IP=10.77.0.200		# QP address announced by the exchange-only checks
FAKE_MAC=02:00:0a:4d:00:c8

PINGPONG=$BUILD/apps/pv-pingpong
PERF=$BUILD/apps/pv-perf
DECODE=$BUILD/tools/pv-roce-decode
OOB=$BUILD/test/unit/perf/test_perf_proto

pass=0 fail=0
started_vm=0

say() { printf '%s\n' "$*"; }
log() { printf '[interop %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

result() {	# result NAME REASON ('' = pass)
	if [ -z "$2" ]; then
		say "PASS $1"
		pass=$((pass + 1))
	else
		say "FAIL $1 ($2)"
		fail=$((fail + 1))
	fi
}

want() { [ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]; }

vm() { "$LAB/vm.sh" exec "$VM" "$@"; }

# last meaningful line of a log, for a FAIL reason
why() {
	grep -v -e '^\s*$' -e '^EAL:' -e '^---' "$1" 2>/dev/null | tail -1 | tr -s ' \t' ' ' |
		cut -c1-160
}

# ------------------------------------------------------------------ lab
lab_up() {	# lab_up NETDEV_MTU
	local mtu=$1 cur=''
	if [ ! -f "$ART/rootfs.img" ]; then
		log "building the rxe lab (a few minutes)"
		(cd "$LAB" && ./build.sh) >&2 || return 1
	fi
	if [ -f "$ART/run/vm$VM.qemu.cmdline" ] && "$LAB/vm.sh" status 2>/dev/null |
		grep -q "vm$VM running"; then
		cur=$(grep -o 'rxelab.mtu=[0-9]*' "$ART/run/vm$VM.qemu.cmdline" | cut -d= -f2)
	fi
	if [ -n "$cur" ] && [ "$cur" != "$mtu" ]; then
		log "vm$VM runs with MTU $cur: restarting it with $mtu"
		"$LAB/vm.sh" stop all >&2
		cur=''
	fi
	if [ -z "$cur" ]; then
		RXELAB_MTU=$mtu "$LAB/vm.sh" start "$VM" >&2 || return 1
		started_vm=1
	fi
	RXELAB_MTU=$mtu "$LAB/net.sh" up >&2 || return 1
	RXELAB_MTU=$mtu "$LAB/net.sh" port "$VETH" >&2 || return 1
	PV_MAC=$(ip -n "$NS" -br link show "$VETH" | awk '{print $3}')
	# softroce is to answer rxe's ARP itself; PV_INTEROP_PIN_NEIGH=1 pins the
	# entry instead (what the lab README offers for stacks without ARP)
	if [ "${PV_INTEROP_PIN_NEIGH:-0}" = 1 ]; then
		vm "ip neigh replace $PV_IP lladdr $PV_MAC dev eth0 nud permanent" || return 1
	else
		vm "ip neigh del $PV_IP dev eth0 2>/dev/null; true" || return 1
	fi
	vm "ip neigh replace $FAKE_IP lladdr $FAKE_MAC dev eth0 nud permanent" || return 1
	GIDX=$(vm rxelab-gid) || return 1
	# rxe's IPv6 link-local GID (RoCE v2): index 0 on a netdev, as softroce's;
	# read from ibv_devinfo -v ("GID[  0]:  fe80:...:0011, RoCE v2")
	GIDX6=$(vm "ibv_devinfo -v -d rxe0" |
		sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*fe80:.*v2.*/\1/p' | head -1)
	GIDX6=${GIDX6:-0}
	# the namespace's kernel owns the veth's link-local address too (same
	# MAC, same EUI-64): without IPv6 there it neither answers RoCE frames
	# to that address with ICMPv6 port unreachable nor races softroce's
	# neighbour advertisements; af_packet still sees every frame
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$VETH.disable_ipv6=1" || return 1
	return 0
}

lab_down() {
	if [ "$started_vm" = 1 ] && [ "${PV_INTEROP_KEEP_VM:-0}" != 1 ]; then
		"$LAB/vm.sh" stop all >&2
	fi
}

# ------------------------------------------------------------------ processes
# EAL arguments of a pollverbs process on the veth; $1: extra softroce devargs
pv_eal() {
	local vdev=${PV_INTEROP_VDEV:-net_af_packet0,iface=IFACE,qdisc_bypass=0}
	vdev=${vdev//IFACE/$VETH}
	# af_packet copies a frame into one mbuf: a frame less its 32-byte
	# TPACKET2 header must fit softroce's 4352-byte data room and hold a
	# 4096-byte RoCE payload with its headers (4170 bytes). The PMD also
	# addresses frames as if contiguous, so blocksz must be a multiple of
	# framesz (framesz=4384 with blocksz=8192 lost every transmitted frame):
	# 16 frames of 4352 bytes per 17-page block.
	if [ "$NETMTU" -gt 1500 ]; then
		case $vdev in net_af_packet*) vdev=$vdev,blocksz=69632,framesz=4352 ;; esac
	fi
	# softroce takes its RoCE MTU from the ethdev MTU, 1500 unless told
	printf '%s\n' --no-pci --no-huge -m 512 -l 0 "--file-prefix=pv-interop-$$" \
		--log-level='*:warning' "--vdev=$vdev" \
		"--pv-dev=softroce:port=${vdev%%,*},ip=$PV_IP,mtu=$NETMTU$1"
}

# wait until something listens on TCP port $1 in the namespace ($2: pid to watch)
ns_wait_listen() {
	local _
	for _ in $(seq 1 300); do
		ip netns exec "$NS" ss -ltnH "sport = :$1" 2>/dev/null | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# run_pair NAME ROLE PV_CMD... @vm VM_CMD
#   ROLE server: pollverbs listens, the VM connects; client: the reverse.
#   Sets PV_RC, VM_RC; logs in $OUT/$NETMTU/NAME.{pv,vm}.log
run_pair() {
	local name=$1 role=$2 pvcmd=() vmcmd pvlog vmlog pid
	shift 2
	while [ "$1" != @vm ]; do pvcmd+=("$1"); shift; done
	shift
	vmcmd=$*
	pvlog=$OUT/$NETMTU/$name.pv.log
	vmlog=$OUT/$NETMTU/$name.vm.log
	echo "+ ip netns exec $NS ${pvcmd[*]}" > "$pvlog"
	echo "+ vm$VM: $vmcmd" > "$vmlog"
	if [ "$role" = server ]; then
		ip netns exec "$NS" timeout -k 5 "$TMO" "${pvcmd[@]}" >> "$pvlog" 2>&1 &
		pid=$!
		if ! ns_wait_listen 18515 "$pid"; then
			wait "$pid"
			PV_RC=$?
			VM_RC=255
			echo "(pollverbs side never listened)" >> "$vmlog"
			return
		fi
		vm "timeout -k 5 $TMO $vmcmd" >> "$vmlog" 2>&1
		VM_RC=$?
		wait "$pid"
		PV_RC=$?
	else
		vm "timeout -k 5 $TMO $vmcmd" >> "$vmlog" 2>&1 &
		pid=$!
		# the VM's tool listens within a second or two under TCG
		sleep 4
		ip netns exec "$NS" timeout -k 5 "$TMO" "${pvcmd[@]}" >> "$pvlog" 2>&1
		PV_RC=$?
		wait "$pid"
		VM_RC=$?
	fi
}

pair_reason() {	# pair_reason NAME: '' when both sides exited 0
	local name=$1 r=''
	if [ "$PV_RC" != 0 ]; then
		r="pollverbs rc=$PV_RC$([ "$PV_RC" = 124 ] && echo ' timeout'): $(why "$OUT/$NETMTU/$name.pv.log")"
	fi
	if [ "$VM_RC" != 0 ]; then
		[ -n "$r" ] && r="$r; "
		r="${r}rxe rc=$VM_RC$([ "$VM_RC" = 124 ] && echo ' timeout'): $(why "$OUT/$NETMTU/$name.vm.log")"
	fi
	printf '%s' "$r"
}

# ------------------------------------------------------------------ cases
# exchange only (no RDMA): pv-perf's perftest exchange (apps/perf/perf_proto.c)
# against real perftest servers
case_oob() {	# case_oob TEST
	local t=$1 name="perftest-oob-$1-mtu$ROCEMTU" r=''
	want "$name" || return 0
	if [ ! -x "$OOB" ]; then
		result "$name" "$OOB not built"
		return
	fi
	run_pair "$name" client "$OOB" --peer "$VM_IP" --test "$t" --gid-ip "$FAKE_IP" \
		--mtu "$MTUENUM" @vm "ib_$t -d rxe0 -x $GIDX -F -s 8 -n 5"
	r=$(pair_reason "$name")
	# perftest's server prints the report it received from us
	if [ -z "$r" ] && [ "$t" != read_lat ] &&
		! grep -q ' 4096 *1000 *123.50 *100.25' "$OUT/$NETMTU/$name.vm.log"; then
		r="ib_$t did not print the report we sent"
	fi
	if [ -z "$r" ] && ! grep -q 'remote address: LID 0000 QPN 0x1234 PSN 0xabcdef' \
		"$OUT/$NETMTU/$name.vm.log"; then
		r="ib_$t did not print the address we sent"
	fi
	result "$name" "$r"
}

case_pingpong() {	# case_pingpong ROLE SIZE ITERS [PCAP [IPV6 [UD]]]
	local role=$1 size=$2 iters=$3 pcap=${4:-} v6=${5:-} ud=${6:-} name r peer='' dev=''
	local g=1 vg=$GIDX tool=ibv_rc_pingpong mode="-m $ROCEMTU"
	# IPv6: both sides' link-local GID; softroce resolves rxe's MAC by
	# neighbour discovery, rxe (the VM's kernel) ours
	[ -n "$v6" ] && g=0 && vg=$GIDX6
	# UD: pv-pingpong --connection=UD against ibv_ud_pingpong (no -m: a
	# message is one packet, -s at most the RoCE MTU)
	[ -n "$ud" ] && tool=ibv_ud_pingpong && mode=''
	name="pingpong${ud:+-ud}${v6:+-ipv6}-pv-$role-${size}B-mtu$ROCEMTU${pcap:+-pcap}"
	[ -n "$pcap" ] || want "$name" || return 0
	if [ ! -x "$PINGPONG" ]; then
		result "$name" "pv-pingpong not built"
		return
	fi
	[ -n "$pcap" ] && dev=",pcap=$pcap"
	[ "$role" = client ] && peer=$VM_IP
	local opts="${ud:+--connection=UD }-g $g -s $size -n $iters $mode -c"
	mapfile -t eal < <(pv_eal "$dev")
	if [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_pair "$name" server "$PINGPONG" "${eal[@]}" -- $opts @vm \
			"$tool -d rxe0 -g $vg -s $size -n $iters $mode -c $PV_TCP"
	else
		# shellcheck disable=SC2086
		run_pair "$name" client "$PINGPONG" "${eal[@]}" -- $opts $peer @vm \
			"$tool -d rxe0 -g $vg -s $size -n $iters $mode -c"
	fi
	r=$(pair_reason "$name")
	if [ -z "$r" ]; then
		grep -q "$((size * iters * 2)) bytes in" "$OUT/$NETMTU/$name.vm.log" ||
			r="$tool did not report $((size * iters * 2)) bytes"
	fi
	# -c: the server (and, on UD, pv-pingpong's GRH check) print bad data
	# as "invalid ..." and still exit 0
	if [ -z "$r" ] && grep -q '^invalid ' "$OUT/$NETMTU/$name.pv.log" \
		"$OUT/$NETMTU/$name.vm.log"; then
		r="-c: $(grep -h -m1 '^invalid ' "$OUT/$NETMTU/$name.pv.log" \
			"$OUT/$NETMTU/$name.vm.log" | head -1)"
	fi
	result "$name" "$r"
}

perf_has_perftest_mode() { "$PERF" --help 2>&1 | grep -q -- '--perftest'; }

case_perf() {	# case_perf ROLE TEST SIZE ITERS
	local role=$1 t=$2 size=$3 iters=$4 name r peer=''
	name="perf-pv-$role-$t-${size}B-mtu$ROCEMTU"
	want "$name" || return 0
	if [ ! -x "$PERF" ]; then
		result "$name" "pv-perf not built"
		return
	fi
	if ! perf_has_perftest_mode; then
		result "$name" "pv-perf has no --perftest exchange (apps/perf/perf_proto.c not wired in)"
		return
	fi
	[ "$role" = client ] && peer=$VM_IP
	local opts="$t --perftest -x 1 -s $size -n $iters -m $ROCEMTU"
	local vopts="-d rxe0 -x $GIDX -F -s $size -n $iters -m $ROCEMTU"
	mapfile -t eal < <(pv_eal "")
	if [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_pair "$name" server "$PERF" "${eal[@]}" -- $opts @vm "ib_$t $vopts $PV_TCP"
	else
		# shellcheck disable=SC2086
		run_pair "$name" client "$PERF" "${eal[@]}" -- $opts $peer @vm "ib_$t $vopts"
	fi
	r=$(pair_reason "$name")
	if [ -z "$r" ]; then
		# a result line starts with the size; perftest's bw servers print
		# the client's report, the read_lat server prints nothing
		local side=vm
		[ "$t" = read_lat ] && [ "$role" = client ] && side=pv
		grep -Eq "^ *$size +$iters " "$OUT/$NETMTU/$name.$side.log" ||
			r="$side side printed no result line"
	fi
	result "$name" "$r"
}

# the softroce capture of one run must decode cleanly
case_capture() {
	local name="capture-pingpong-mtu$ROCEMTU" f="$OUT/$NETMTU/softroce.pcap" r=''
	want "$name" || return 0
	if ! grep -q 'pcap=' "$REPO/drivers/softroce/sroce_dev.c" 2>/dev/null; then
		result "$name" "softroce has no pcap= devarg"
		return
	fi
	rm -f "$f"
	case_pingpong client 4100 20 "$f"
	if [ ! -s "$f" ]; then
		result "$name" "no capture written"
		return
	fi
	local bad
	bad=$(tshark -r "$f" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
	[ "$bad" = 0 ] || r="tshark: $bad malformed/error frames"
	"$DECODE" -q "$f" > "$OUT/$NETMTU/softroce.decode.txt" 2>&1
	if ! grep -q 'icrc_bad 0,' "$OUT/$NETMTU/softroce.decode.txt"; then
		[ -n "$r" ] && r="$r; "
		r="${r}pv-roce-decode: $(tail -1 "$OUT/$NETMTU/softroce.decode.txt")"
	fi
	if [ -z "$r" ] && [ "$(tshark -r "$f" 2>/dev/null | wc -l)" -lt 2 ]; then
		r="capture holds fewer than 2 frames"
	fi
	result "$name" "$r"
}

# ------------------------------------------------------------------ main
if [ "$(id -u)" != 0 ]; then
	say "FAIL setup (must run as root: network namespace and VMs)"
	say "interop: 0 passed, 1 failed"
	exit 1
fi
if [ ! -x "$LAB/vm.sh" ]; then
	say "FAIL setup (rxe lab not found at $LAB; set PV_RXE_LAB)"
	say "interop: 0 passed, 1 failed"
	exit 1
fi
trap lab_down EXIT

for NETMTU in $MTUS; do
	if [ "$NETMTU" -gt 1500 ]; then ROCEMTU=4096; MTUENUM=5; else ROCEMTU=1024; MTUENUM=3; fi
	mkdir -p "$OUT/$NETMTU"
	log "MTU set: netdev $NETMTU, RoCE $ROCEMTU"
	if ! lab_up "$NETMTU"; then
		result "lab-up-mtu$ROCEMTU" "the rxe lab did not come up (see above)"
		continue
	fi
	if [ "$NETMTU" = "${MTUS%% *}" ]; then
		for t in write_bw read_bw read_lat; do case_oob "$t"; done
	fi
	for role in client server; do
		for size in 8 1027 4100 65536; do
			iters=100
			[ "$size" -ge 65536 ] && iters=20
			case_pingpong "$role" "$size" "$iters"
		done
		# RoCEv2 over IPv6 link-local (-g 0), one size per segmentation case
		for size in 8 4100; do
			case_pingpong "$role" "$size" 100 "" ipv6
		done
		# UD (ibv_ud_pingpong) over IPv4 (-g 1 and rxe's IPv4-mapped GID)
		# and IPv6 link-local (-g 0): the smallest and the largest message
		for size in 8 "$ROCEMTU"; do
			case_pingpong "$role" "$size" 100 "" "" ud
			case_pingpong "$role" "$size" 100 "" ipv6 ud
		done
	done
	for role in client server; do
		for t in write_bw read_bw send_bw; do
			case_perf "$role" "$t" 4096 200
			case_perf "$role" "$t" 65536 50
		done
		for t in write_lat send_lat read_lat; do
			case_perf "$role" "$t" 8 200
		done
	done
	[ "$NETMTU" = "${MTUS%% *}" ] && case_capture
done

say "interop: $pass passed, $fail failed"
[ "$fail" = 0 ]
