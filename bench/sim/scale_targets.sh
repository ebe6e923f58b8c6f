#!/usr/bin/env bash
# 16K GPUs: times the commands a user types on the two scale scenarios and checks the targets:
#   scenarios/scale/llama3-405b-class-128k-16k-gpus.yaml (16,384 GPUs, folded: simulation.fold auto)
#     with SimGrid:                                  wall <= 60 s, peak RSS <= 250 MB
#   scenarios/scale/llama3-405b-class-128k-4k-gpus-unfolded.yaml (4,096 GPUs, simulation.fold off,
#     every GPU in the graph) with SimGrid:           wall <= 30 s, peak RSS <= 1000 MB
# Each command is `hcpsim simulate FILE --format json` as written (the scenarios name the simgrid
# backend), under /usr/bin/time -v; peak RSS is the larger of hcpsim and its SimGrid child. The
# script also checks that the report says what was simulated (16,384 represented by a folded unit;
# 4,096 simulated). Builds nothing. Exits 1 when a target is missed, 2 when it cannot run. Not part
# of ctest; run it from a Release build:
#   cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-release --target hcpsim
#   bench/sim/scale_targets.sh [build-release] [--repeat N]
# With --repeat N each command is repeated and the fastest run kept (the machine's noise is one-sided).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build-release"
repeat=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) build="$1"; shift ;;
  esac
done
me=scale_targets
# shellcheck source=timing_lib.sh
source "$here/timing_lib.sh"
require_release_build

# expect WHAT KEY VALUE: the report's fold.KEY is VALUE (one line of the pretty-printed JSON).
expect() {
  if grep -Eq "\"$2\": $3,?\$" "$work/report.json"; then
    printf "  %-34s %8s     (as expected)\n" "$1" "$3"
  else
    printf "  %-34s %8s     (expected %s: WRONG)\n" "$1" "$(grep -E "\"$2\":" "$work/report.json" | head -1 | tr -d ' ,')" "$3"
    failed=1
  fi
}

print_machine

file="$root/scenarios/scale/llama3-405b-class-128k-16k-gpus.yaml"
time_simulate "$work/report.json" "$file"
echo "16,384 GPUs folded (simgrid): wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB"
check "16K folded wall" "$wall" 60 s
check "16K folded peak RSS" "$rss_mb" 250 MB
expect "16K represented GPUs" represented_ranks 16384
expect "16K folded" folded true

file="$root/scenarios/scale/llama3-405b-class-128k-4k-gpus-unfolded.yaml"
time_simulate "$work/report.json" "$file"
echo "4,096 GPUs unfolded (simgrid): wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB"
check "4K unfolded wall" "$wall" 30 s
check "4K unfolded peak RSS" "$rss_mb" 1000 MB
expect "4K simulated GPUs" simulated_ranks 4096
expect "4K folded" folded false

if [[ "$failed" != 0 ]]; then
  echo "scale_targets: a target was missed"
  exit 1
fi
echo "scale_targets: every target met"
