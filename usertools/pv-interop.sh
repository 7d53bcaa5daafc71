#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Interoperability of pollverbs' softroce with Linux soft-RoCE (rdma_rxe) and
# the standard verbs tools, against the rxe lab of ../shared/lab/rxe:
#
#   usertools/pv-interop.sh BUILD_DIR        (what `make interop` runs)
#
# The lab VM (vm1, 10.77.0.11, rxe0) runs ibv_rc_pingpong, ibv_ud_pingpong
# and perftest, and for the rdma_cm cases (cm-*) rping, perftest -R,
# ucmatose, udaddy, rdma_server/rdma_client and the seed's read/write sample
# built against librdmacm; the pollverbs side runs in the lab's network
# namespace on a veth joined to the lab bridge (rxh0), as a softroce device
# over DPDK net_af_packet at 10.77.0.100. The TCP exchanges go through the
# namespace's own stack (br0, 10.77.0.1); the cm-* cases have none. Two
# MTU sets: netdev MTU 1500 (RoCE MTU 1024) and 9000 (RoCE MTU 4096); the VM
# is restarted between them. The compat-* cases run Debian's own tools on
# the pollverbs side too (ibv_rc_pingpong, ibv_ud_pingpong, ib_write_bw,
# ib_read_bw, ib_send_lat, rping, ucmatose, udaddy), unchanged, through
# pv-run (lib/compat).
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

# ------------------------------------------------------------------ rdma_cm
# The pollverbs programs on the connection manager (pv_rdma_cma.h) against
# rdma-core 44's rdmacm-utils, perftest -R and librdmacm programs in the VM:
# no TCP exchange, every connection is made by CM MADs on QP1 (softroce's
# CM at 10.77.0.100, the kernel's rdma_cm on rxe0 at 10.77.0.11).

# pv_bin NAME: the built program NAME under BUILD/apps (or a subdirectory)
pv_bin() {
	local f
	for f in "$BUILD/apps/$1" "$BUILD"/apps/*/"$1"; do
		[ -x "$f" ] && { printf '%s\n' "$f"; return 0; }
	done
	return 1
}

# wait_log FILE REGEX PID [SECONDS]: print the first line of FILE matching
# REGEX once it is there (the "+ command" lines do not count); fail when PID
# exits first or after SECONDS (60)
wait_log() {
	local f=$1 re=$2 pid=$3 n=$((${4:-60} * 5)) line
	while [ "$n" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || n=1	# one last look
		line=$(grep -v '^+ ' "$f" 2>/dev/null | grep -m1 -E -- "$re") &&
			{ printf '%s\n' "$line"; return 0; }
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

# vm_cm_listen PS PORT: wait (60 s at most) until an rdma_cm id of port
# space PS (TCP, UDP) listens on PORT in the VM
vm_cm_listen() {
	vm "for i in \$(seq 1 300); do rdma resource show cm_id 2>/dev/null |
		grep -q 'state LISTEN ps $1 .*src-addr [^ ]*:$2 ' && exit 0; sleep 0.2; done
		exit 1"
}

# cm_ready READY LOG PID: wait for one side to listen (see run_cm_pair);
# prints the line that said so
cm_ready() {
	local ready=$1 f=$2 pid=$3
	case $ready in
	cm\ *)
		# shellcheck disable=SC2086
		vm_cm_listen ${ready#cm } && echo listening ;;
	log\ *)
		wait_log "$f" "${ready#log }" "$pid" ;;
	sleep\ *)
		sleep "${ready#sleep }"
		kill -0 "$pid" 2>/dev/null && echo started ;;
	esac
}

# cm_run SIDE: run the command of SIDE (pv: the array PVCMD in the
# namespace; vm: the string VMCMD in the VM, its shell's pid kept in the
# VM's /tmp/pv-interop-case.pid), its output appended to its log
cm_run() {
	if [ "$1" = pv ]; then
		ip netns exec "$NS" timeout -k 5 "$TMO" "${PVCMD[@]}" >> "$PVLOG" 2>&1
	else
		vm "echo \$\$ > /tmp/pv-interop-case.pid
			exec timeout -k 5 $TMO stdbuf -oL sh -c '$VMCMD'" >> "$VMLOG" 2>&1
	fi
}

# cm_log SIDE: start SIDE's log with its command line; print the log's path
cm_log() {
	if [ "$1" = pv ]; then
		echo "+ ip netns exec $NS ${PVCMD[*]}" > "$PVLOG"
		printf '%s\n' "$PVLOG"
	else
		echo "+ vm$VM: $VMCMD" > "$VMLOG"
		printf '%s\n' "$VMLOG"
	fi
}

# cm_stop SIDE PID: when SIDE's command (PID, run by cm_run in the
# background) still runs 5 s on, stop it (timeout(1) passes SIGTERM on)
cm_stop() {
	local _
	for _ in 1 2 3 4 5; do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 1
	done
	if [ "$1" = pv ]; then
		# cm_run's subshell runs timeout(1) (ip netns exec execs it),
		# which passes SIGTERM on to the program
		pkill -TERM -P "$2" 2>/dev/null
		kill "$2" 2>/dev/null
	else
		# shellcheck disable=SC2016	# expanded in the VM
		vm 'kill $(cat /tmp/pv-interop-case.pid)' 2>/dev/null
	fi
}

# run_cm_pair NAME ROLE READY PV_CMD... @vm VM_CMD
#   ROLE server: pollverbs listens, the VM connects; client: the reverse.
#   READY says when the listening side is ready for the other to start:
#   "log REGEX" (a line of its output), "cm PS PORT" (an rdma_cm id listens
#   in the VM), "sleep S". "@PORT@" in the second command becomes the last
#   number of that line (a port the listener chose). When one side fails,
#   the other gets 5 s to end before it is stopped. VM_CMD may not
#   hold single quotes. Sets PV_RC, VM_RC; logs in
#   $OUT/$NETMTU/NAME.{pv,vm}.log
run_cm_pair() {
	local name=$1 role=$2 ready=$3 first=vm second=pv log pid pid2 line port rc1='' rc2
	shift 3
	PVCMD=()
	while [ "$1" != @vm ]; do PVCMD+=("$1"); shift; done
	shift
	VMCMD=$*
	PVLOG=$OUT/$NETMTU/$name.pv.log
	VMLOG=$OUT/$NETMTU/$name.vm.log
	[ "$role" = server ] && first=pv && second=vm
	log=$(cm_log "$first")
	cm_run "$first" &
	pid=$!
	line=$(cm_ready "$ready" "$log" "$pid")
	port=$(grep -oE '[0-9]+' <<< "$line" | tail -1)
	PVCMD=("${PVCMD[@]//@PORT@/$port}")
	VMCMD=${VMCMD//@PORT@/$port}
	log=$(cm_log "$second")
	if [ -z "$line" ]; then
		echo "(not run: the $first side never got ready: $ready)" >> "$log"
		rc2=255
	else
		sleep 1		# from a line to its listen call
		cm_run "$second" &
		pid2=$!
		# whichever side fails first, the other gets 5 s to end
		while kill -0 "$pid2" 2>/dev/null; do
			if ! kill -0 "$pid" 2>/dev/null; then
				wait "$pid"
				rc1=$?
				[ "$rc1" = 0 ] || cm_stop "$second" "$pid2"
				break
			fi
			sleep 0.5
		done
		wait "$pid2"
		rc2=$?
	fi
	if [ -z "$rc1" ]; then
		[ "$rc2" = 0 ] || cm_stop "$first" "$pid"
		wait "$pid"
		rc1=$?
	fi
	if [ "$first" = pv ]; then
		PV_RC=$rc1 VM_RC=$rc2
	else
		PV_RC=$rc2 VM_RC=$rc1
	fi
}

# cm_expect NAME SIDE REGEX [COUNT]: '' when SIDE's log (pv, vm) has COUNT
# (default 1) lines matching REGEX, else the reason
cm_expect() {
	local f=$OUT/$NETMTU/$1.$2.log n
	n=$(grep -c -E -- "$3" "$f" 2>/dev/null)
	[ "${n:-0}" -ge "${4:-1}" ] ||
		printf '%s' "$2 side: ${n:-0} of ${4:-1} lines /$3/"
}

# cm_result NAME CHECK...: PASS when both sides exited 0 and every CHECK
# ("SIDE REGEX [COUNT]", see cm_expect; REGEX without blanks) holds
cm_result() {
	local name=$1 r c w
	shift
	r=$(pair_reason "$name")
	for c in "$@"; do
		[ -n "$r" ] && break
		read -r -a w <<< "$c"	# split on blanks, no globbing
		r=$(cm_expect "$name" "${w[@]}")
	done
	result "$name" "$r"
}

# the pollverbs side of a case: its EAL arguments, then PROGRAM's options
cm_pv_cmd() {	# cm_pv_cmd PROGRAM -> CMD array in PVCMD
	mapfile -t PVCMD < <(pv_eal "")
	PVCMD=("$1" "${PVCMD[@]}" --)
}

# pv-cmatose against ucmatose (-c 4 RC connections set up in parallel) and
# pv-udaddy against udaddy (SIDR on -c 2 UD ids): the default 10 messages of
# 100 bytes each way on each
case_cm_utils() {	# TOOL ROLE (TOOL: ucmatose or udaddy)
	local tool=$1 role=$2 name prog base=cmatose c=4 ps=TCP port=7471
	[ "$tool" = udaddy ] && base=udaddy c=2 ps=UDP port=7174
	name="cm-$tool-pv-$role-c$c-mtu$ROCEMTU"
	want "$name" || return 0
	prog=$(pv_bin "pv-$base") || { result "$name" "pv-$base not built"; return; }
	cm_pv_cmd "$prog"
	if [ "$role" = server ]; then
		run_cm_pair "$name" server "log $base: listening" "${PVCMD[@]}" -c $c -T 30 \
			@vm "$tool -s $PV_IP -c $c"
	else
		run_cm_pair "$name" client "cm $ps $port" "${PVCMD[@]}" -s "$VM_IP" -c $c -T 30 \
			@vm "$tool -c $c"
	fi
	cm_result "$name" "pv ^data.transfers.complete" "vm ^data.transfers.complete" \
		"vm ^return.status.0"
}

# pv-rping against rping -C 10 -V (-v: both print each ping's data; the
# VM's count is checked)
case_cm_rping() {	# ROLE
	local role=$1 name prog n=10
	name="cm-rping-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	prog=$(pv_bin pv-rping) || { result "$name" "pv-rping not built"; return; }
	cm_pv_cmd "$prog"
	if [ "$role" = server ]; then
		# -d: rping's debug lines, "rdma_listen" among them
		run_cm_pair "$name" server "log rdma_listen" "${PVCMD[@]}" -s -a "$PV_IP" -C $n -V -v -d \
			@vm "rping -c -a $PV_IP -C $n -V -v"
	else
		run_cm_pair "$name" client "cm TCP 7174" "${PVCMD[@]}" -c -a "$VM_IP" -C $n -V -v \
			@vm "rping -s -C $n -V -v"
	fi
	cm_result "$name" "vm ping.data:.rdma-ping- $n"
}

# pv-perf -R against perftest -R (its own exchange in SENDs on a first
# rdma_cm connection, the measured QP on a second)
case_cm_perf() {	# ROLE TEST SIZE ITERS
	local role=$1 t=$2 size=$3 iters=$4 name prog side=vm
	name="cm-perftest-pv-$role-$t-${size}B-mtu$ROCEMTU"
	want "$name" || return 0
	prog=$(pv_bin pv-perf) || { result "$name" "pv-perf not built"; return; }
	if ! "$prog" --help 2>&1 | grep -Eq -- '^ *-R[ ,]'; then
		result "$name" "pv-perf has no -R (rdma_cm) option"
		return
	fi
	cm_pv_cmd "$prog"
	if [ "$role" = server ]; then
		run_cm_pair "$name" server "sleep 3" "${PVCMD[@]}" "$t" -R -s "$size" -n "$iters" \
			@vm "ib_$t -d rxe0 -R -F -s $size -n $iters $PV_IP"
	else
		run_cm_pair "$name" client "cm TCP 18515" "${PVCMD[@]}" "$t" -R -s "$size" \
			-n "$iters" "$VM_IP" @vm "ib_$t -d rxe0 -R -F -s $size -n $iters"
	fi
	# a result line starts with the size; the read_lat server prints none
	[ "$t" = read_lat ] && [ "$role" = client ] && side=pv
	cm_result "$name" "$side ^[[:space:]]*${size}[[:space:]]+${iters}[[:space:]]"
}

# pv-rdma-client against librdmacm's rdma_server, pv-rdma-server against
# rdma_client: the synchronous API, one 16-byte SEND each way
case_cm_rdma_sc() {	# ROLE
	local role=$1 name prog
	if [ "$role" = server ]; then
		name="cm-rdma_client-pv-server-mtu$ROCEMTU"
		want "$name" || return 0
		prog=$(pv_bin pv-rdma-server) || { result "$name" "pv-rdma-server not built"; return; }
		cm_pv_cmd "$prog"
		run_cm_pair "$name" server "log rdma_server: start" "${PVCMD[@]}" \
			@vm "rdma_client -s $PV_IP"
	else
		name="cm-rdma_server-pv-client-mtu$ROCEMTU"
		want "$name" || return 0
		prog=$(pv_bin pv-rdma-client) || { result "$name" "pv-rdma-client not built"; return; }
		cm_pv_cmd "$prog"
		run_cm_pair "$name" client "cm TCP 7471" "${PVCMD[@]}" -s "$VM_IP" @vm rdma_server
	fi
	cm_result "$name" "pv ^rdma_(server|client):.end.0" "vm ^rdma_(server|client):.end.0"
}

# a REQ to a port nobody listens on: the peer's CM answers REJ reason 8
# (invalid service ID) itself; librdmacm reports REJECTED status 8 and
# rdma_connect() ECONNREFUSED
case_cm_reject_pv_client() {
	local name="cm-reject-pv-client-mtu$ROCEMTU" prog r=''
	want "$name" || return 0
	prog=$(pv_bin pv-cmatose) || { result "$name" "pv-cmatose not built"; return; }
	cm_pv_cmd "$prog"
	PVCMD+=(-s "$VM_IP" -p 7999 -T 30)
	PVLOG=$OUT/$NETMTU/$name.pv.log
	cm_log pv > /dev/null
	cm_run pv
	PV_RC=$?
	if [ "$PV_RC" = 0 ]; then
		r="pv-cmatose exited 0"
	elif ! grep -q 'event: RDMA_CM_EVENT_REJECTED, error: 8$' "$PVLOG"; then
		r="no REJECTED status 8: $(why "$PVLOG")"
	fi
	result "$name" "$r"
}

# rdma_client to a port of ours nobody listens on, while pv-cmatose listens
# on 7471 (so softroce's CM runs); then ucmatose -C 1 to that listener, to
# show the CM still serves after its REJ
case_cm_reject_pv_server() {
	local name="cm-reject-pv-server-mtu$ROCEMTU" prog
	want "$name" || return 0
	prog=$(pv_bin pv-cmatose) || { result "$name" "pv-cmatose not built"; return; }
	cm_pv_cmd "$prog"
	run_cm_pair "$name" server "log cmatose: listening" "${PVCMD[@]}" -C 1 -T 30 \
		@vm "rdma_client -s $PV_IP -p 7999; echo rdma_client rc=\$?; ucmatose -s $PV_IP -C 1"
	cm_result "$name" "vm ^rdma_connect:.Connection.refused" "vm ^rdma_client.rc=[1-9]" \
		"vm ^return.status.0" "pv ^disconnected"
}

# The seed's RDMA read/write sample (apps/examples/rdma_rw.c) built against
# librdmacm for the VM, from the same source (-DUSE_LIBRDMACM,
# pv_rdma_compat.h): in the VM when it has a compiler (the lab image has
# none), else the build's own librdmacm builds (apps/examples/meson.build:
# BUILD/apps/examples/rdmacm-rdma-rw-*, made when this host has librdmacm;
# the lab and this host are both Debian 12 with rdma-core 44.0-2), copied
# in. Binaries: /root/pv-seed/rdma-rw-{server,client} in the VM.
SEED_SRC="rdma_rw.c pv_rdma_compat.h"
seed_vm_prepare() {
	local d=$REPO/apps/examples b=$BUILD/apps/examples role
	vm 'test -x /root/pv-seed/rdma-rw-server && test -x /root/pv-seed/rdma-rw-client' &&
		return 0
	if vm 'command -v cc' > /dev/null 2>&1; then
		# shellcheck disable=SC2086,SC2016	# the word list; expanded in the VM
		tar -C "$d" -cf - $SEED_SRC | vm 'mkdir -p /root/pv-seed && tar -C /root/pv-seed -xf - &&
			cd /root/pv-seed && for r in server client; do
			cc -O2 -DUSE_LIBRDMACM -DRDMA_RW_$(echo $r | tr a-z A-Z) -o rdma-rw-$r \
				rdma_rw.c -lrdmacm -libverbs -lpthread || exit 1; done' ||
			{ echo "build in the VM failed"; return 1; }
		return 0
	fi
	for role in server client; do
		[ -x "$b/rdmacm-rdma-rw-$role" ] ||
			{ echo "no compiler in the VM and no $b/rdmacm-rdma-rw-$role"; return 1; }
	done
	tar -C "$b" -cf - rdmacm-rdma-rw-server rdmacm-rdma-rw-client |
		vm 'mkdir -p /root/pv-seed && tar -C /root/pv-seed -xf - &&
			mv /root/pv-seed/rdmacm-rdma-rw-server /root/pv-seed/rdma-rw-server &&
			mv /root/pv-seed/rdmacm-rdma-rw-client /root/pv-seed/rdma-rw-client' ||
		{ echo "copy into the VM failed"; return 1; }
}

# the seed's sample: pv-rdma-rw-{server,client} against the librdmacm build
case_cm_seed() {	# ROLE MODE
	local role=$1 mode=$2 name prog r
	name="cm-rdma_rw-$mode-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	prog=$(pv_bin "pv-rdma-rw-$role") || { result "$name" "pv-rdma-rw-$role not built"; return; }
	if ! r=$(seed_vm_prepare 2>&1); then
		result "$name" "librdmacm build for the VM: $r"
		return
	fi
	cm_pv_cmd "$prog"
	if [ "$role" = server ]; then
		run_cm_pair "$name" server "log listening.on.port" "${PVCMD[@]}" "$mode" \
			@vm "/root/pv-seed/rdma-rw-client $mode $PV_IP @PORT@"
	else
		run_cm_pair "$name" client "log listening.on.port" "${PVCMD[@]}" "$mode" \
			"$VM_IP" @PORT@ @vm "/root/pv-seed/rdma-rw-server $mode"
	fi
	cm_result "$name" "pv ^remote.buffer:.message.from.(passive/server|active/client).side" \
		"vm ^remote.buffer:.message.from.(passive/server|active/client).side"
}

# ------------------------------------------------------- compat (pv-run)
# Debian's own programs on the pollverbs side too, unchanged, through
# pv-run and lib/compat's libibverbs.so.1 / librdmacm.so.1
PVRUN=$BUILD/usertools/pv-run
CMDELAY=$BUILD/test/integration/libpv-interop-cm-delay.so

compat_pv_cmd() {	# compat_pv_cmd -> pv-run and its arguments in PVCMD
	mapfile -t PVCMD < <(pv_eal "")
	PVCMD=("$PVRUN" "${PVCMD[@]}" --)
}

# ibv_rc_pingpong -c against ibv_rc_pingpong -c (4100 B: two or five
# packets a message); ibv_ud_pingpong -c (one packet, 512 B)
case_compat_pingpong() {	# ROLE TOOL SIZE [-e]
	local role=$1 tool=$2 size=$3 ev=${4:-} iters=100 name r mtu="-m $ROCEMTU"
	name="compat-${tool#ibv_}${ev}-pv-$role-${size}B-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v "$tool" >/dev/null || { result "$name" "no $tool here"; return; }
	[ "$tool" = ibv_ud_pingpong ] && mtu=''
	compat_pv_cmd
	# -e: both sides sleep in ibv_get_cq_event() instead of polling
	local opts="-s $size -n $iters $mtu -c $ev"
	if [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_pair "$name" server "${PVCMD[@]}" "$tool" -g 1 $opts @vm \
			"$tool -d rxe0 -g $GIDX $opts $PV_TCP"
	else
		# shellcheck disable=SC2086
		run_pair "$name" client "${PVCMD[@]}" "$tool" -g 1 $opts "$VM_IP" @vm \
			"$tool -d rxe0 -g $GIDX $opts"
	fi
	r=$(pair_reason "$name")
	if [ -z "$r" ]; then
		grep -q "$((size * iters * 2)) bytes in" "$OUT/$NETMTU/$name.vm.log" ||
			r="$tool did not report $((size * iters * 2)) bytes"
	fi
	result "$name" "$r"
}

# ib_write_bw / ib_read_bw / ib_send_lat against the same perftest tool,
# with -R (rdma_cm instead of perftest's TCP exchange) when given.
# Reads and atomics: -o 16 on both sides. perftest's requester takes its
# max_rd_atomic from the responder's outstanding-reads figure (rxe: 128) and
# softroce's limit is 16 (max_qp_init_rd_atom): the verb refuses 128, as the
# kernel refuses a value above a NIC's limit.
case_compat_perf() {	# ROLE TOOL SIZE ITERS [-R]
	local role=$1 tool=$2 size=$3 iters=$4 cm=${5:-} name r o='' side=pv
	name="compat-$tool${cm}-pv-$role-${size}B-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v "$tool" >/dev/null || { result "$name" "no $tool here"; return; }
	[[ $tool == ib_read_* || $tool == ib_atomic_* ]] && o='-o 16'
	# one tool reports in Gb/s (perftest's --report_gbits), both sides
	[ "$tool" = ib_send_bw ] && o='--report_gbits'
	compat_pv_cmd
	if [ -n "$cm" ] && [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_cm_pair "$name" server "sleep 4" "${PVCMD[@]}" "$tool" -R -F -s "$size" \
			-n "$iters" $o @vm "$tool -d rxe0 -R -F -s $size -n $iters $o $PV_IP"
	elif [ -n "$cm" ]; then
		# perftest 4.5-0.17 -R: the client's data-connection REQ can beat
		# the TCG server's rdma_listen (REJ reason 8), and its retry of
		# that crashes; the shim's 50 ms before rdma_connect give the
		# server its time (test/integration/interop_cm_delay.c)
		[ -f "$CMDELAY" ] || { result "$name" "$CMDELAY not built"; return; }
		PVCMD=(env LD_PRELOAD="$CMDELAY" "${PVCMD[@]}")
		# shellcheck disable=SC2086
		run_cm_pair "$name" client "cm TCP 18515" "${PVCMD[@]}" "$tool" -R -F -s "$size" \
			-n "$iters" $o "$VM_IP" @vm "$tool -d rxe0 -R -F -s $size -n $iters $o"
	elif [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_pair "$name" server "${PVCMD[@]}" "$tool" -x 1 -F -s "$size" -n "$iters" $o \
			@vm "$tool -d rxe0 -x $GIDX -F -s $size -n $iters $o $PV_TCP"
	else
		# shellcheck disable=SC2086
		run_pair "$name" client "${PVCMD[@]}" "$tool" -x 1 -F -s "$size" -n "$iters" $o \
			"$VM_IP" @vm "$tool -d rxe0 -x $GIDX -F -s $size -n $iters $o"
	fi
	r=$(pair_reason "$name")
	# the client's result line (read_lat's server prints none)
	[ "$role" = server ] && side=vm
	if [ -z "$r" ] && ! grep -Eq "^ *$size +$iters " "$OUT/$NETMTU/$name.$side.log"; then
		r="$tool$cm printed no result line on the $side side (the client)"
	fi
	result "$name" "$r"
}

# librdmacm's rdma_server / rdma_client (the synchronous rdma_verbs.h API,
# one 16-byte SEND each way) on both sides
case_compat_rdma_sc() {	# ROLE
	local role=$1 name
	name="compat-rdma_sc-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v rdma_server >/dev/null || { result "$name" "no rdma_server here"; return; }
	compat_pv_cmd
	if [ "$role" = server ]; then
		# rdma_server's "start" line stays in its stdout buffer (a file)
		run_cm_pair "$name" server "sleep 5" "${PVCMD[@]}" rdma_server \
			@vm "rdma_client -s $PV_IP"
	else
		run_cm_pair "$name" client "cm TCP 7471" "${PVCMD[@]}" rdma_client -s "$VM_IP" \
			@vm rdma_server
	fi
	cm_result "$name" "pv ^rdma_(server|client):.end.0" "vm ^rdma_(server|client):.end.0"
}

# rping -V -C 10 against rping -V -C 10 (rdma_cm, lib/compat's librdmacm)
case_compat_rping() {	# ROLE
	local role=$1 name n=10
	name="compat-rping-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v rping >/dev/null || { result "$name" "no rping here"; return; }
	compat_pv_cmd
	if [ "$role" = server ]; then
		run_cm_pair "$name" server "sleep 5" "${PVCMD[@]}" rping -s -a "$PV_IP" -C $n -V -v \
			@vm "rping -c -a $PV_IP -C $n -V -v"
	else
		run_cm_pair "$name" client "cm TCP 7174" "${PVCMD[@]}" rping -c -a "$VM_IP" -C $n -V -v \
			@vm "rping -s -C $n -V -v"
	fi
	# rping (rdma-core < 58) exits 255 when its CM thread calls
	# rdma_get_cm_event() after main() destroyed the channel at the end of
	# a run that passed: rping's own race, fixed upstream by rdma-core pull
	# request 1622 ("rping: Fix spurious failure return codes")
	if [ "$PV_RC" = 255 ] &&
	   grep -q "ping data: rdma-ping-$((n - 1)):" "$OUT/$NETMTU/$name.pv.log" &&
	   grep -q '^rdma_get_cm_event: Bad file descriptor$' "$OUT/$NETMTU/$name.pv.log"; then
		echo "(rping's exit race, rdma-core PR 1622: counted as exit 0)" >> "$OUT/$NETMTU/$name.pv.log"
		PV_RC=0
	fi
	cm_result "$name" "vm ping.data:.rdma-ping- $n" "pv ping.data:.rdma-ping- $n"
}

# ucmatose / udaddy against themselves (rdma_cm: RC, and UD through SIDR)
case_compat_cm_utils() {	# ROLE TOOL
	local role=$1 tool=$2 name ps=TCP port=7471
	[ "$tool" = udaddy ] && ps=UDP port=7174
	name="compat-$tool-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v "$tool" >/dev/null || { result "$name" "no $tool here"; return; }
	compat_pv_cmd
	if [ "$role" = server ]; then
		run_cm_pair "$name" server "sleep 5" "${PVCMD[@]}" "$tool" -b "$PV_IP" \
			@vm "$tool -s $PV_IP"
	else
		run_cm_pair "$name" client "cm $ps $port" "${PVCMD[@]}" "$tool" -s "$VM_IP" \
			@vm "$tool"
	fi
	cm_result "$name" "pv ^data.transfers.complete" "vm ^data.transfers.complete" \
		"vm ^return.status.0" "pv ^return.status.0"
}

# fio's rdma engine, channel semantics: the sender's 16 MiB in 64 KiB
# SENDs, each block with fio's verify header and crc32c, which the
# receiver checks (fio rw=read --verify=crc32c); the receiver posts a
# receive for every block at once (fio's client has rnr_retry_count 0)
case_compat_fio() {	# ROLE (client: pollverbs sends)
	local role=$1 name port=7175
	local rx="fio --thread --name=srv --ioengine=rdma --port=$port --rw=read --iodepth=256"
	local tx="fio --thread --name=cli --ioengine=rdma --port=$port --rw=write --iodepth=4 --verb=send"
	local io="--bs=64k --size=16m --verify=crc32c"
	name="compat-fio-send-verify-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v fio >/dev/null || { result "$name" "no fio here"; return; }
	compat_pv_cmd
	if [ "$role" = server ]; then
		# shellcheck disable=SC2086
		run_cm_pair "$name" server "log waiting.for.connection" "${PVCMD[@]}" $rx $io \
			@vm "$tx --hostname=$PV_IP $io"
		cm_result "$name" "pv READ:.bw=.*io=16.0MiB" "vm WRITE:.bw=.*io=16.0MiB" \
			"pv srv:.*err=.0" "vm cli:.*err=.0"
	else
		# shellcheck disable=SC2086
		run_cm_pair "$name" client "cm TCP $port" "${PVCMD[@]}" $tx --hostname="$VM_IP" $io \
			@vm "$rx $io"
		cm_result "$name" "vm READ:.bw=.*io=16.0MiB" "pv WRITE:.bw=.*io=16.0MiB" \
			"vm srv:.*err=.0" "pv cli:.*err=.0"
	fi
}

# qperf (Debian's 0.4.11, -cm1: rdma_cm): the lab's image has no qperf
# package, so the host's binary (the same Debian 12 package) is copied into
# the VM as it is and runs there against rxe0. The six RC tests qperf runs
# on RoCE each print their figure on the client. qperf reaches its server's
# TCP port and its rdma_cm address at one host name: for a pollverbs
# server the namespace's kernel holds PV_IP on the veth too (TCP), with
# ARP left to the veth (arp_ignore/arp_announce on br0, so that rxe never
# learns br0's MAC for PV_IP) and a socket that swallows UDP 4791 (the
# kernel would answer RoCE frames with ICMP port unreachable; af_packet
# still hands every frame to softroce).
QPERF_PORT=19766
QPERF_TESTS="rc_bw rc_lat rc_rdma_read_bw rc_rdma_write_bw rc_rdma_write_lat rc_compare_swap_mr"
QPERF_SINK=""
QPERF_SYSCTL=()

qperf_seed() {
	vm 'test -x /root/pv-seed/qperf' 2>/dev/null && return 0
	vm 'mkdir -p /root/pv-seed && cat > /root/pv-seed/qperf && chmod +x /root/pv-seed/qperf' \
		< "$(command -v qperf)"
}

qperf_tcp_on() {
	local k
	QPERF_SYSCTL=()
	for k in net.ipv4.conf.all.rp_filter "net.ipv4.conf.$VETH.rp_filter" \
		net.ipv4.conf.br0.arp_ignore net.ipv4.conf.br0.arp_announce; do
		QPERF_SYSCTL+=("$k=$(ip netns exec "$NS" sysctl -n "$k")")
	done
	ip netns exec "$NS" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
		"net.ipv4.conf.$VETH.rp_filter=0" net.ipv4.conf.br0.arp_ignore=1 \
		net.ipv4.conf.br0.arp_announce=2 || return 1
	ip -n "$NS" addr add "$PV_IP/32" dev "$VETH" || return 1
	ip netns exec "$NS" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 4791))
while True:
    s.recv(65536)' "$PV_IP" &
	QPERF_SINK=$!
}

qperf_tcp_off() {
	[ -n "$QPERF_SINK" ] && kill "$QPERF_SINK" 2>/dev/null && wait "$QPERF_SINK" 2>/dev/null
	QPERF_SINK=""
	ip -n "$NS" addr del "$PV_IP/32" dev "$VETH" 2>/dev/null
	[ "${#QPERF_SYSCTL[@]}" -gt 0 ] && ip netns exec "$NS" sysctl -qw "${QPERF_SYSCTL[@]}"
	QPERF_SYSCTL=()
}

case_compat_qperf() {	# ROLE
	local role=$1 name t r='' n
	local -a base
	name="compat-qperf-pv-$role-mtu$ROCEMTU"
	want "$name" || return 0
	[ -x "$PVRUN" ] || { result "$name" "pv-run not built"; return; }
	command -v qperf >/dev/null || { result "$name" "no qperf here"; return; }
	qperf_seed || { result "$name" "could not copy qperf into vm$VM"; return; }
	# qperf's server forks a process per test, each one its own pollverbs
	# runtime (one after the other: the same EAL file prefix does)
	compat_pv_cmd
	base=("${PVCMD[@]}")
	if [ "$role" = server ]; then
		qperf_tcp_on || { qperf_tcp_off; result "$name" "cannot give the namespace $PV_IP"; return; }
		# shellcheck disable=SC2086
		run_cm_pair "$name" server "sleep 3" "${base[@]}" qperf -lp "$QPERF_PORT" \
			@vm "/root/pv-seed/qperf -lp $QPERF_PORT -cm1 -t 1 $PV_IP $QPERF_TESTS quit"
		qperf_tcp_off
		r=$(pair_reason "$name")
		[ -z "$r" ] && r=$(qperf_figures "$OUT/$NETMTU/$name.vm.log" 6)
		result "$name" "$r"
		return
	fi
	# Debian's qperf 0.4.11 server, on rdma-core, dies (SIGSEGV in
	# libibverbs: rdma_destroy_qp() on its listen id) as each -cm1 test
	# ends, and rejects the next test's REQ (invalid service ID): rxe
	# against rxe in the VM does the same. One fresh server per test.
	for t in $QPERF_TESTS; do
		run_cm_pair "$name-$t" client "sleep 5" "${base[@]}" qperf -lp "$QPERF_PORT" \
			-cm1 -t 1 "$VM_IP" "$t" quit @vm "/root/pv-seed/qperf -lp $QPERF_PORT"
		r=$(pair_reason "$name-$t")
		[ -z "$r" ] && r=$(qperf_figures "$OUT/$NETMTU/$name-$t.pv.log" 1)
		[ -n "$r" ] && { r="$t: $r"; break; }
	done
	result "$name" "$r"
}

# qperf_figures LOG N: '' when LOG (qperf's client) has N tests, each with
# its figure under its name, else the reason
qperf_figures() {
	local n
	n=$(awk '/^[a-z_]+:$/ { t = $1; next }
		 t != "" && /^    (bw|latency|msg_rate)  =  [0-9.]+ / { n++; t = "" }
		 END { print n + 0 }' "$1")
	[ "$n" -eq "$2" ] || printf 'qperf client: %s of %s tests printed a figure' "$n" "$2"
}

compat_cases() {
	local role
	for role in client server; do
		case_compat_fio "$role"
		case_compat_pingpong "$role" ibv_rc_pingpong 4100
		case_compat_pingpong "$role" ibv_rc_pingpong 4100 -e
		case_compat_pingpong "$role" ibv_ud_pingpong 512
		case_compat_pingpong "$role" ibv_ud_pingpong 512 -e
		case_compat_pingpong "$role" ibv_uc_pingpong 4100
		case_compat_pingpong "$role" ibv_uc_pingpong 4100 -e
		case_compat_pingpong "$role" ibv_srq_pingpong 4100
		case_compat_pingpong "$role" ibv_srq_pingpong 4100 -e
		case_compat_perf "$role" ib_write_bw 65536 50
		case_compat_perf "$role" ib_read_bw 65536 50
		case_compat_perf "$role" ib_send_bw 65536 50
		case_compat_perf "$role" ib_atomic_bw 8 50
		case_compat_perf "$role" ib_send_lat 8 200
		case_compat_perf "$role" ib_write_lat 8 200
		case_compat_perf "$role" ib_read_lat 8 200
		case_compat_perf "$role" ib_atomic_lat 8 200
		case_compat_perf "$role" ib_write_bw 65536 50 -R
		case_compat_perf "$role" ib_read_bw 65536 50 -R
		case_compat_perf "$role" ib_send_bw 65536 50 -R
		case_compat_perf "$role" ib_atomic_bw 8 50 -R
		case_compat_perf "$role" ib_send_lat 8 200 -R
		case_compat_perf "$role" ib_write_lat 8 200 -R
		case_compat_perf "$role" ib_read_lat 8 200 -R
		case_compat_perf "$role" ib_atomic_lat 8 200 -R
		case_compat_rdma_sc "$role"
		case_compat_rping "$role"
		case_compat_cm_utils "$role" ucmatose
		case_compat_cm_utils "$role" udaddy
		case_compat_qperf "$role"
	done
}

cm_cases() {
	local role t
	case_cm_reject_pv_client
	case_cm_reject_pv_server
	for role in client server; do
		case_cm_rdma_sc "$role"
		case_cm_utils ucmatose "$role"
		case_cm_utils udaddy "$role"
		case_cm_rping "$role"
		case_cm_seed "$role" read
		case_cm_seed "$role" write
		for t in send_bw write_bw read_lat; do
			case_cm_perf "$role" "$t" 4096 50
		done
	done
}

# ------------------------------------------------------------------ nvmf
# issue 15: pv-nvmf-tgt on the namespace's softroce served to the Linux
# nvme-rdma host in the VM (discover, connect, 16 MiB dd + fio crc32c
# verified, nvme list / id-ctrl / smart-log, disconnect), and pv-nvmf-perf
# against the Linux kernel target (nvmet-rdma) in the VM with --verify.
# Results: doc/guides/interop.rst.
NVMF_PV_NQN=nqn.2026-11.org.pollverbs:interop
NVMF_LAB_NQN=nqn.2026-11.io.pollverbs:lab

case_nvmf_linux_host() {
	local name=nvmf-linux-host-mtu$ROCEMTU tgt pvlog vmlog pid r='' rc eal=()
	want "$name" || return 0
	tgt=$(pv_bin pv-nvmf-tgt) || { result "$name" "pv-nvmf-tgt not built"; return; }
	pvlog=$OUT/$NETMTU/$name.pv.log
	vmlog=$OUT/$NETMTU/$name.vm.log
	cat > "$OUT/$NETMTU/$name.json" <<JSON
{ "poll_groups": { "lcores": [0] },
  "listeners": [ { "traddr": "$PV_IP", "trsvcid": "4420" } ],
  "subsystems": [ { "nqn": "$NVMF_PV_NQN", "serial": "PVINTEROP1", "model": "pollverbs interop",
                    "namespaces": [ { "type": "ram", "size_mb": 64, "block_size": 512 } ] } ] }
JSON
	mapfile -t eal < <(pv_eal "")
	echo "+ ip netns exec $NS $tgt ${eal[*]} -- -c $name.json" > "$pvlog"
	ip netns exec "$NS" timeout -k 5 "$TMO" "$tgt" "${eal[@]}" -- \
		-c "$OUT/$NETMTU/$name.json" >> "$pvlog" 2>&1 &
	pid=$!
	if ! wait_log "$pvlog" 'pv-nvmf-tgt: listening' "$pid" 30 > /dev/null; then
		kill "$pid" 2>/dev/null
		wait "$pid"
		result "$name" "pv-nvmf-tgt did not start: $(why "$pvlog")"
		return
	fi
	: > "$vmlog"
	RXELAB_NVMF_NQN=$NVMF_PV_NQN RXELAB_NVMF_IO=both RXELAB_NVMF_IO_KB=16384 \
		"$LAB/nvmf.sh" connect "$VM" "$PV_IP" >> "$vmlog" 2>&1
	rc=$?
	[ "$rc" = 0 ] || r="nvme connect / I/O rc=$rc: $(why "$vmlog")"
	# shellcheck disable=SC2016	# expanded in the VM
	vm 'nvme list; for c in /sys/class/nvme-fabrics/ctl/nvme*; do
		[ "$(cat $c/subsysnqn)" = '"$NVMF_PV_NQN"' ] || continue
		nvme id-ctrl /dev/${c##*/} && nvme smart-log /dev/${c##*/} || exit 1; done' \
		>> "$vmlog" 2>&1 || r="${r:+$r; }nvme id-ctrl / smart-log failed"
	RXELAB_NVMF_NQN=$NVMF_PV_NQN "$LAB/nvmf.sh" disconnect "$VM" >> "$vmlog" 2>&1 ||
		r="${r:+$r; }nvme disconnect failed"
	grep -q 'dd check OK' "$vmlog" || r="${r:+$r; }no dd check OK"
	grep -q 'err= 0' "$vmlog" || r="${r:+$r; }no fio verify (err= 0)"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || r="${r:+$r; }pv-nvmf-tgt rc=$rc: $(why "$pvlog")"
	result "$name" "$r"
}

case_nvmf_kernel_target() {	# case_nvmf_kernel_target PERF_ARGS...
	local name="nvmf-kernel-target-$1-mtu$ROCEMTU" perf log rc r='' eal=()
	shift
	want "$name" || return 0
	perf=$(pv_bin pv-nvmf-perf) || { result "$name" "pv-nvmf-perf not built"; return; }
	log=$OUT/$NETMTU/$name.pv.log
	if ! RXELAB_NVMF_NQN=$NVMF_LAB_NQN "$LAB/nvmf.sh" target "$VM" > "$OUT/$NETMTU/$name.vm.log" 2>&1; then
		result "$name" "kernel target setup: $(why "$OUT/$NETMTU/$name.vm.log")"
		return
	fi
	mapfile -t eal < <(pv_eal "")
	echo "+ ip netns exec $NS $perf ${eal[*]} -- $*" > "$log"
	ip netns exec "$NS" timeout -k 5 "$TMO" "$perf" "${eal[@]}" -- \
		-r "trtype:RDMA adrfam:IPv4 traddr:$VM_IP trsvcid:4420 subnqn:$NVMF_LAB_NQN" \
		"$@" >> "$log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || r="pv-nvmf-perf rc=$rc: $(why "$log")"
	grep -q '^Total' "$log" || r="${r:+$r; }no Total line"
	result "$name" "$r"
}

nvmf_cases() {
	case_nvmf_linux_host
	case_nvmf_kernel_target randrw-4k-verify -q 8 -o 4096 -w randrw -t 5 --verify
	case_nvmf_kernel_target read-128k-verify -q 4 -o 131072 -w read -t 5 --verify
	RXELAB_NVMF_NQN=$NVMF_LAB_NQN "$LAB/nvmf.sh" untarget "$VM" > /dev/null 2>&1
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
	cm_cases
	compat_cases
	nvmf_cases
done

say "interop: $pass passed, $fail failed"
[ "$fail" = 0 ]
