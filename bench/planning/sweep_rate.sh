#!/usr/bin/env bash
# Sweep throughput: runs the 500-point analytic sweep of bench/planning/sweep500.yaml with one worker
# per CPU and prints points per second. Target: 500 points in under 60 s on 2 cores.
#   bench/planning/sweep_rate.sh [path/to/hcpsim] [jobs]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
hcpsim="${1:-$here/../../build/cli/hcpsim}"
jobs="${2:-$(nproc)}"
if [[ ! -x "$hcpsim" ]]; then
  echo "sweep_rate: $hcpsim is not an executable (build hcpsim first, or pass its path)" >&2
  exit 2
fi
out="$(mktemp --suffix=.csv)"
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$hcpsim" sweep "$here/sweep500.yaml" -j "$jobs" --out "$out" --format csv > /dev/null
end=$(date +%s.%N)
points=$(($(wc -l < "$out") - 1))
awk -v n="$points" -v s="$start" -v e="$end" -v j="$jobs" 'BEGIN {
  t = e - s;
  printf "sweep_rate: %d points in %.1f s with %d workers: %.1f points/s (target: 500 in < 60 s, %s)\n",
         n, t, j, n / t, (n >= 500 && t < 60) ? "met" : "NOT met";
  exit (n >= 500 && t < 60) ? 0 : 1 }'
