# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# Sourced by the scripts that run a server and a client application process
# over a net_memif pair on softroce (perf/test_perf_memif.sh,
# test_cm_apps_memif.sh). The caller sets:
#   tag   prefix of the EAL file prefixes
#   sock  the memif socket path
#   spid  "" (memif_pair_wait_server sets it back to "")
# shellcheck shell=bash

# memif_pair_eal ROLE IP LCORE [DEVARGS]: EAL and --pv-dev arguments of one
# side; DEVARGS (",queues=2", say) are appended to the softroce device's
memif_pair_eal() {
	echo "-l $3 --no-pci --no-huge -m 512 --file-prefix=$tag-$1" \
		"--log-level=*:warning" \
		"--vdev=net_memif0,role=$1,socket=$sock,socket-abstract=no" \
		"--pv-dev=softroce:port=net_memif0,ip=$2${4:-}"
}

# a process listens on $sock (flag __SO_ACCEPTCON in /proc/net/unix)
memif_pair_listening() {
	awk -v s="$sock" '$8 == s && $4 ~ /^0*10000$/ { f = 1 } END { exit !f }' /proc/net/unix
}

# memif_pair_wait_listening PID: up to 20 s for the server PID to listen on
# $sock, then 1 s more for it to get ready behind it (e.g. rdma_listen())
memif_pair_wait_listening() {
	local _
	for _ in $(seq 200); do
		memif_pair_listening && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
}

# memif_pair_wait_server: give the server $spid 10 s to exit after its
# client did; its exit status in $src (124: killed)
memif_pair_wait_server() {
	local i
	for i in $(seq 100); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$spid" 2>/dev/null; then
		kill "$spid"
		wait "$spid" 2>/dev/null
		src=124
	else
		wait "$spid"
		src=$?
	fi
	spid=""
}

# memif_pair_cleanup: the EXIT trap: stop a server still running, remove
# the socket, keep the logs in $logdir only after a failure ($fails)
memif_pair_cleanup() {
	if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -f "$sock"
	[ "$fails" -eq 0 ] && rm -rf "$logdir"
}
