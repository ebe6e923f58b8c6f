#!/usr/bin/env bash
# The command line at benchmark speed: times the command a user types, `hcpsim simulate ... --format
# json`, on the 1,024-rank a2a+p2p [8,128] 4-layer forward scenario (bench/sim/a2a-p2p-8x128-4-layers.yaml,
# 1.63 M tasks), with each backend, without and with a trace file, and checks the targets:
#   analytic <= 1.0 s wall, simgrid <= 6 s wall, peak RSS <= 250 MB (the larger of hcpsim and its
#   SimGrid child), and a run with --trace FILE.json (or .json.gz) in under twice the time without.
# Exits 1 when a target is missed, 2 when it cannot run. Not part of ctest (it takes about half a
# minute and needs an idle machine); run it from a Release build:
#   cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-release --target hcpsim
#   bench/sim/user_path.sh [build-release] [--repeat N]
# With --repeat N each run is repeated and the fastest kept (the machine's noise is one-sided).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
build="$root/build-release"
repeat=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    *) build="$1"; shift ;;
  esac
done
scenario="$here/a2a-p2p-8x128-4-layers.yaml"
me=user_path
# shellcheck source=timing_lib.sh
source "$here/timing_lib.sh"
require_release_build

print_machine
for backend in analytic simgrid; do
  limit=1.0
  [[ "$backend" == simgrid ]] && limit=6
  time_simulate "$work/$backend.json" "$scenario" --backend "$backend"
  base_wall="$wall"
  echo "$backend: wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB"
  check "$backend wall" "$wall" "$limit" s
  check "$backend peak RSS" "$rss_mb" 250 MB
  for ext in json json.gz; do
    time_simulate "$work/$backend-trace.json" "$scenario" --backend "$backend" --trace "$work/trace.$ext"
    size_mb="$(du -m "$work/trace.$ext" | cut -f1)"
    echo "$backend --trace trace.$ext: wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB, file ${size_mb} MB"
    check "$backend --trace .$ext wall" "$wall" "$(awk -v b="$base_wall" 'BEGIN { printf "%.2f", 2 * b }')" s
    check "$backend --trace .$ext peak RSS" "$rss_mb" 250 MB
    rm -f "$work/trace.$ext"
  done
done
if [[ $failed -ne 0 ]]; then
  echo "user_path: a target was missed (see above)"
  exit 1
fi
echo "user_path: every target met"
