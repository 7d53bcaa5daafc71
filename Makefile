# SPDX-License-Identifier: BSD-3-Clause
# Thin wrapper over meson: every target installs what is missing, builds, runs.
BUILD      ?= build
ASAN_BUILD ?= build-asan
CLANG_BUILD ?= build-clang
TSAN_BUILD ?= build-tsan
# STYLE.md section 11: gcc and clang, warning_level=2, werror
MESON_OPTS ?= -Dwerror=true

.PHONY: all deps build build-asan build-clang build-tsan demo test test-unit test-asan test-valgrind \
	test-rust \
	interop bench-mlx5 bench-chaos bench-modes bench-compat bench-peers bench-nvmf verbs-coverage \
	fuzz install clean

all: build

deps:
	@usertools/pv-install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false \
		--buildtype=debug $(MESON_OPTS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# ThreadSanitizer: only the threading tests (meson suite 'threads') are built
# and run there. -Wno-tsan: DPDK's headers use fences TSan does not model.
$(TSAN_BUILD)/build.ninja:
	meson setup $(TSAN_BUILD) -Db_sanitize=thread -Db_lundef=false \
		--buildtype=debug -Dc_args=-Wno-tsan $(MESON_OPTS)

build-tsan: deps $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD) $$(meson test -C $(TSAN_BUILD) --suite threads --list \
		2>/dev/null | sed -n 's|.* / integration-\(.*\)|test/integration/test_\1|p')

$(CLANG_BUILD)/build.ninja:
	CC=clang meson setup $(CLANG_BUILD) $(MESON_OPTS)

# a second compiler catches what the first lets through; built, not run
build-clang: deps $(CLANG_BUILD)/build.ninja
	ninja -C $(CLANG_BUILD)

# the main job: pv-perf over softroce between two processes on this machine
demo: build
	usertools/pv-demo.sh $(BUILD)

# the whole test suite: release build, then the ASan+UBSan build, same suites,
# then the unit suites of the release build under valgrind memcheck, then
# the fuzz targets of the clang build for a few seconds each, then the Rust
# crates (bindings/rust): their tests against the release build, then
# against the ASan+UBSan build
test: build build-asan build-clang build-tsan
	usertools/pv-test.sh --valgrind $(BUILD) --fuzz $(CLANG_BUILD) --tsan $(TSAN_BUILD) \
		--rust $(BUILD) --rust-asan $(ASAN_BUILD) $(BUILD) $(ASAN_BUILD)

# the Rust crates alone: build offline from Debian's crates, cargo test and
# docs against the release build, cargo test against the ASan+UBSan build
test-rust: build build-asan
	usertools/pv-test-rust.sh $(BUILD) $(ASAN_BUILD)

# the unit suites alone under valgrind memcheck (see test/meson.build)
test-valgrind: build
	usertools/pv-test.sh --valgrind $(BUILD)

interop: build
	usertools/pv-interop.sh $(BUILD)

bench-mlx5: build
	usertools/pv-bench-mlx5.sh $(BUILD)

# the libFuzzer targets of test/fuzz (clang build) for FUZZ_SECONDS each
FUZZ_SECONDS ?= 60
fuzz: build-clang
	usertools/pv-fuzz.sh $(CLANG_BUILD) $(FUZZ_SECONDS)

# softroce RC/UC/UD under loss, reorder, duplication, corruption: messages
# survived per minute (CHAOS_SECONDS per transport)
CHAOS_SECONDS ?= 20
bench-chaos: build
	usertools/pv-bench-chaos.sh $(BUILD) $(CHAOS_SECONDS)

bench-modes: build
	usertools/pv-bench-modes.sh $(BUILD)

# perftest through pv-run (lib/compat) against pv-perf native: the table
bench-compat: build
	usertools/pv-bench-compat.sh $(BUILD)

# pv-perf over softroce/memif against UCX over shared memory (ucx_perftest),
# same cores, BENCH_RUNS rounds: table and plots in $(BUILD)/bench-peers
BENCH_RUNS ?= 3
bench-peers: build
	PV_BENCH_RUNS=$(BENCH_RUNS) usertools/pv-bench-peers.sh $(BUILD)

# issue 15: pv-nvmf-tgt and pv-nvmf-perf over memif, PV_BENCH_SECONDS per run
bench-nvmf: build
	usertools/pv-bench-nvmf.sh $(BUILD)

# every ibv_* function of the installed infiniband/verbs.h with its pv_* state
verbs-coverage: build
	python3 usertools/pv-verbs-coverage.py --lib $(BUILD)/libpollverbs.so

install: build
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(CLANG_BUILD)
