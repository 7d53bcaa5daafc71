#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages pollverbs builds and tests with, when missing.
# Usage: pv-install-deps.sh [extra-package ...]
set -euo pipefail

pkgs=(
	build-essential
	clang
	dpdk-dev
	libcunit1-dev
	libdpdk-dev
	libclang-rt-14-dev
	libibverbs-dev
	libpcap-dev
	meson
	ninja-build
	pkg-config
	python3
	python3-pyelftools
	rdma-core
	tshark
	valgrind
	"$@"
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "pv-install-deps: missing packages: ${missing[*]}" >&2
	echo "pv-install-deps: run as root, or: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "pv-install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no without a terminal
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
