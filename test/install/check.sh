#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The installed library, used from outside the tree: `meson install` the
# build into a scratch DESTDIR, point pkg-config at the installed
# pollverbs.pc (its prefix moved under DESTDIR, as a package would be
# relocated), build outside.c with nothing but
#     cc outside.c $(pkg-config --cflags --libs pollverbs)
# and run it: it must print the device count given here. The .pc file must
# be relocatable (paths from ${prefix}) and name no DPDK, and only the
# public headers are installed (no driver SDK header). Then the installed
# pv-run runs ibv_devices on the installed compat libraries.
# Usage: check.sh BUILD_ROOT OUTSIDE_C EXPECTED_DEVICES [pv_init argument ...]
# Exits 77 (skipped) without a C compiler or pkg-config.
set -euo pipefail
build=$1 src=$2 expect=$3
shift 3

cc=${CC:-cc}
for t in "$cc" pkg-config meson; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "check.sh: $t not found: skipped"
		exit 77
	fi
done

work=$build/test/install/work
destdir=$work/destdir
rm -rf "$work"
mkdir -p "$work/pkgconfig"

meson install -C "$build" --destdir "$destdir" --quiet

pc=$(find "$destdir" -name pollverbs.pc -path '*/pkgconfig/*' | head -1)
if [ -z "$pc" ]; then
	echo "check.sh: meson install put no pollverbs.pc under $destdir" >&2
	exit 1
fi
prefix=$(sed -n 's/^prefix=//p' "$pc")
# relocatable: every other path derives from ${prefix}
if grep -v '^prefix=' "$pc" | grep -Eq '(^[a-z_]+=|-[IL])/'; then
	echo "check.sh: $pc has a path not relative to \${prefix}:" >&2
	cat "$pc" >&2
	exit 1
fi
if [ -n "$(find "$destdir" -name pv_verbs_driver.h)" ]; then
	echo "check.sh: the driver SDK header pv_verbs_driver.h was installed" >&2
	exit 1
fi
# applications need no DPDK development package unless they use DPDK
if grep -qi dpdk "$pc"; then
	echo "check.sh: $pc names DPDK (the public headers and -lpollverbs need none):" >&2
	cat "$pc" >&2
	exit 1
fi
sed "s|^prefix=.*|prefix=$destdir$prefix|" "$pc" >"$work/pkgconfig/pollverbs.pc"
echo "--- $work/pkgconfig/pollverbs.pc"
cat "$work/pkgconfig/pollverbs.pc"

flags=$(PKG_CONFIG_PATH=$work/pkgconfig pkg-config --cflags --libs pollverbs)
# a sanitized build's library needs the sanitizer runtime in the program
san=$(meson introspect --buildoptions "$build" |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"))')
[ "$san" = none ] && san= || san=-fsanitize=$san
echo "--- $cc -Wall -Wextra -Werror $san outside.c $flags"
# shellcheck disable=SC2086  # flags are pkg-config's words
"$cc" -Wall -Wextra -Werror $san -o "$work/outside" "$src" $flags

libdir=$(PKG_CONFIG_PATH=$work/pkgconfig pkg-config --variable=libdir pollverbs)
echo "--- outside $*"
out=$(LD_LIBRARY_PATH=$libdir "$work/outside" "$@")
echo "$out"
got=$(sed -n 's/^pollverbs devices: \([0-9]*\)$/\1/p' <<<"$out")
if [ "$got" != "$expect" ]; then
	echo "check.sh: expected $expect device(s), the program found '${got}'" >&2
	exit 1
fi
echo "check.sh: installed pollverbs builds and runs outside the tree ($got device(s))"

# the installed pv-run and compat libraries ($libdir/pollverbs/compat): an
# unmodified ibv_devices lists the same devices (when ibverbs-utils is there)
pvrun=$(find "$destdir" -name pv-run -path '*/bin/*' | head -1)
compat=$libdir/pollverbs/compat
if [ -n "$pvrun" ] && [ -e "$compat/libibverbs.so.1" ] && command -v ibv_devices >/dev/null; then
	echo "--- pv-run $* -- ibv_devices"
	out=$(PV_COMPAT_DIR=$compat "$pvrun" "$@" -- ibv_devices)
	echo "$out"
	got=$(grep -c '^ *sroce[0-9]' <<<"$out" || true)
	if [ "$got" != "$expect" ]; then
		echo "check.sh: pv-run ibv_devices: expected $expect device(s), got $got" >&2
		exit 1
	fi
	echo "check.sh: installed pv-run runs ibv_devices on the compat libraries"
fi
