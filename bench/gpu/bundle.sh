#!/usr/bin/env bash
# Builds here the portable bundle for a lent GPU machine (CUDA driver, PyTorch, no Debian -dev
# libraries, no network): Release, sm_90, GUI, SimGrid and benchmarks off. OUT gets
#   bin/hcpsim, bin/test_kernels     with their libraries in bin/lib (RPATH $ORIGIN/lib)
#   share/hcpsim/hardware            the presets (where hcpsim looks for them, beside bin/)
#   check.sh, sdpa_bench.py, emulated-small.yaml   the device check (bench/gpu/check.sh)
#   src/                             the repository files the kernel tests read
# NCCL is not shipped: hcpsim loads it at run time from the system or the Python wheel
# (kernels/nccl_loader.h). MPI is not shipped either (HCPSIM_WITH_MPI=OFF keeps libmpi out of hcpsim,
# which otherwise links it for `mpirun hcpsim sweep`): the device check runs only single-process
# paths (GPU tests, calibrate, run --emulate-ranks); multi-process runs need hcpsim-mpi and an MPI
# installation. The bundle is then proven portable (bundle_check.sh) and at most 64 MiB.
#   usage: bench/gpu/bundle.sh OUT [BUILD_DIR]      (from anywhere; BUILD_DIR default build-bundle)
#   environment: BUILD_TYPE (default Release; RelWithDebInfo reuses the ccache objects of a
#   development build, and the bundle is stripped either way)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 OUT [BUILD_DIR]" >&2; exit 2; }
OUT=$1
BUILD=${2:-$ROOT/build-bundle}
mkdir -p "$BUILD"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DHCPSIM_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DHCPSIM_WITH_GUI=OFF -DHCPSIM_WITH_SIMGRID=OFF -DHCPSIM_BUILD_BENCH=OFF \
  -DHCPSIM_WITH_MPI=OFF \
  "${launcher[@]}" > "$BUILD/bundle-cmake.log" 2>&1 || { tail -30 "$BUILD/bundle-cmake.log"; exit 1; }
grep "hcpsim parts" "$BUILD/bundle-cmake.log"
grep -q "cuda=ON" "$BUILD/bundle-cmake.log" || { echo "bundle: CUDA is off in this build (nvcc, NCCL headers and MPI needed here)" >&2; exit 1; }
cmake --build "$BUILD" --target hcpsim test_kernels -j"$(nproc)"
rm -rf "$OUT"
"$ROOT/bench/gpu/bundle_assemble.sh" "$OUT" "$BUILD/cli/hcpsim" "$BUILD/tests/kernels/test_kernels"
mkdir -p "$OUT/share/hcpsim"
cp -r "$ROOT/scenarios/hardware" "$OUT/share/hcpsim/hardware"
cp "$ROOT/bench/gpu/check.sh" "$ROOT/bench/gpu/results.py" "$ROOT/bench/gpu/sdpa_bench.py" "$ROOT/bench/gpu/torch_tables.py" \
  "$ROOT/bench/gpu/emulated-small.yaml" "$OUT/"
# The repository files test_kernels reads (tests/kernels/test_files.h; check.sh points at them).
for f in bench/gpu/emulated-small.yaml tests/runner/cpu-small.yaml; do
  mkdir -p "$OUT/src/$(dirname "$f")"
  cp "$ROOT/$f" "$OUT/src/$f"
done
"$ROOT/bench/gpu/bundle_check.sh" "$OUT" 64
