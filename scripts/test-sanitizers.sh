#!/usr/bin/env bash
# The malformed-input tests (ctest label "badinput": the real hcpsim binary on every bad input of
# tests/cli/test_cli_bad_input.cpp) again, built with AddressSanitizer + UndefinedBehaviorSanitizer. Engine + CLI only (no GUI, SimGrid, CUDA, bench),
# in its own build folder (default build-asan, or $HCPSIM_ASAN_BUILD_DIR).
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
cmake --build "$BUILD_DIR" -j"$(nproc)" --target hcpsim test_cli_bad_input
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
(cd "$BUILD_DIR" && ctest --output-on-failure --no-tests=error -j"$(nproc)" -L badinput)
