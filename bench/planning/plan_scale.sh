#!/usr/bin/env bash
# The planner at scale: times `hcpsim plan scenarios/scale/llama3-405b-class-128k-16k-gpus.yaml
# --gpus 16384` (every layout of 16,384 GPUs checked, the fitting ones predicted on the analytic
# backend) and prints wall time and peak RSS with their ratio to the targets: wall <= 20 s, peak RSS
# <= 1 GB (1024 MB). Builds nothing; not part of ctest. Run it on the build a user gets from
# scripts/setup.sh (RelWithDebInfo, folder build/) or on a Release build:
#   bench/planning/plan_scale.sh [BUILD_DIR] [--threads N]
# --threads N is passed to `hcpsim plan` (default: every CPU). Exits 1 when a target is missed, 2 when
# it cannot run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build"
threads=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --threads) threads=(--threads "$2"); shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) build="$1"; shift ;;
  esac
done
me=plan_scale
# shellcheck source=../sim/timing_lib.sh
source "$root/bench/sim/timing_lib.sh"   # check, print_machine
hcpsim="$build/cli/hcpsim"
type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
if [[ ! -x "$hcpsim" || ( "$type" != "Release" && "$type" != "RelWithDebInfo" ) || ! -x /usr/bin/time ]]; then
  echo "$me: need $hcpsim from a Release or RelWithDebInfo build (found '${type:-none}') and /usr/bin/time" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
print_machine
scenario="$root/scenarios/scale/llama3-405b-class-128k-16k-gpus.yaml"
if ! /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$hcpsim" plan "$scenario" --gpus 16384 "${threads[@]}" \
     > "$work/plan.txt" 2> "$work/err.txt"; then
  echo "$me: hcpsim plan failed:" >&2
  tail -5 "$work/err.txt" >&2
  exit 2
fi
read -r wall user sys rss_kb < "$work/time"
rss_mb="$(awk -v m="$rss_kb" 'BEGIN { printf "%.0f", m / 1024 }')"
sed -n '1,2p' "$work/plan.txt"
check "wall time" "$wall" 20 s
check "peak RSS" "$rss_mb" 1024 MB
awk -v w="$wall" -v m="$rss_mb" -v u="$user" -v s="$sys" 'BEGIN {
  printf "  ratio to target: wall %.2f, memory %.2f (cpu %.1f s)\n", w / 20, m / 1024, u + s }'
exit "$failed"
