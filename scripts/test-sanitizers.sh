#!/usr/bin/env bash
# The malformed-input tests (ctest label "badinput": the real hcpsim binary on every bad input of
# tests/cli/test_cli_bad_input.cpp and test_cli_hardening.cpp, the fuzz regression corpus) again, built
# with AddressSanitizer + UndefinedBehaviorSanitizer, then the fuzzer (tests/fuzz, docs/testing.md
# "Fuzzing") for a fixed number of inputs. Engine + CLI only (no GUI, SimGrid, CUDA, bench), in its own
# build folder (default build-asan, or $HCPSIM_ASAN_BUILD_DIR).
# HCPSIM_FUZZ_COUNT (default 8000, about 2.5 minutes on 2 idle cores) and HCPSIM_FUZZ_SEED (default 1: CI
# runs the same inputs every time; another seed explores new ones) tune the run.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${HCPSIM_ASAN_BUILD_DIR:-build-asan}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHCPSIM_SANITIZE=ON \
    -DHCPSIM_WITH_GUI=OFF -DHCPSIM_WITH_SIMGRID=OFF -DHCPSIM_WITH_CUDA=OFF -DHCPSIM_BUILD_BENCH=OFF \
    "${launcher[@]}"
fi
cmake --build "$BUILD_DIR" -j"$(nproc)" --target hcpsim test_cli_bad_input test_cli_hardening hcpsim_fuzz \
  test_fuzz_regressions
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_limit_mb=3072}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
(cd "$BUILD_DIR" && ctest --output-on-failure --no-tests=error -j"$(nproc)" -L badinput -E fuzz_smoke)

count=${HCPSIM_FUZZ_COUNT:-8000}
seed=${HCPSIM_FUZZ_SEED:-1}
echo "fuzz: $count inputs, seed $seed (rerun: HCPSIM_FUZZ_SEED=$seed $0)"
"$BUILD_DIR/tests/fuzz/hcpsim_fuzz" --count "$count" --seed "$seed" --timeout-s 30 --memory-mib 3072 \
  --crash-dir "$BUILD_DIR/fuzz-crashes" scenarios tests/fuzz/data
