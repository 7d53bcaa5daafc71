#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages pollverbs builds and tests with, when missing.
# Required packages must be there to build; optional ones only add features
# (meson prints what drops out without them). As root, both are installed;
# otherwise a missing required package is an error, a missing optional one
# a note.
# Usage: pv-install-deps.sh [extra-package ...]
set -euo pipefail

pkgs=(
	build-essential
	clang
	dpdk-dev
	libcunit1-dev
	libdpdk-dev
	meson
	ninja-build
	pkg-config
	python3
	python3-pyelftools
	# the Rust crates of bindings/rust (make test builds and tests them):
	# Debian's toolchain and the crates they use, offline
	# (bindings/rust/.cargo/config.toml, doc/guides/prog_guide/rust.rst)
	cargo
	libclang-dev
	librust-bindgen-dev
	librust-libc-dev
	librust-serde-dev
	librust-serde-derive-dev
	librust-serde-json-dev
	librust-thiserror-dev
	rustc
	"$@"
)

# package: what drops out without it
declare -A optional=(
	[ibverbs-utils]="the lib/compat tests (ibv_rc_pingpong through pv-run) and the symbol check"
	[libclang-rt-14-dev]="the libFuzzer targets (make fuzz, the fuzz step of make test)"
	[libjansson-dev]="pv-nvmf-tgt (its JSON configuration)"
	[liburing-dev]="pv-nvmf-tgt's file and block device namespaces (io_uring)"
	[libibverbs-dev]="the mlx5 driver's hardware control path (and the driver without mlx5dv.h)"
	[libpcap-dev]="tools/roce-decode and the tests that read captures"
	[librdmacm-dev]="mlx5 connection management through the kernel's CM (lib/cm/cma_sys.c, unit-cma_sys), lib/compat's librdmacm.so.1"
	[perftest]="the lib/compat tests (ib_write_bw through pv-run) and make bench-compat"
	[qperf]="the lib/compat tests (qperf -cm1 through pv-run) and the symbol check"
	[fio]="the lib/compat tests (fio's rdma engine through pv-run) and the symbol check"
	[rdma-core]="the mlx5 driver's hardware control path"
	[rdmacm-utils]="the lib/compat tests (rping through pv-run)"
	[tshark]="the tshark cross-checks of the capture tests and make interop"
	[valgrind]="make test-valgrind and make bench-mlx5"
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
missing_opt=()
for p in "${!optional[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing_opt+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	for p in "${missing_opt[@]}"; do
		echo "pv-install-deps: optional package $p not installed: no ${optional[$p]}" >&2
	done
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "pv-install-deps: missing packages: ${missing[*]}" >&2
	echo "pv-install-deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
missing+=("${missing_opt[@]}")
echo "pv-install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a terminal
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
