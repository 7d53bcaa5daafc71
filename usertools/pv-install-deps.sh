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
	"$@"
)

# package: what drops out without it
declare -A optional=(
	[libclang-rt-14-dev]="the libFuzzer targets (make fuzz, the fuzz step of make test)"
	[libibverbs-dev]="the mlx5 driver's hardware control path (and the driver without mlx5dv.h)"
	[libpcap-dev]="tools/roce-decode and the tests that read captures"
	[rdma-core]="the mlx5 driver's hardware control path"
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
