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
hcpsim="$build/cli/hcpsim"
if [[ ! -x "$hcpsim" ]]; then
  echo "scale_targets: $hcpsim is not an executable (build the hcpsim target of a Release build, or pass its build folder)" >&2
  exit 2
fi
type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
if [[ "$type" != "Release" ]]; then
  echo "scale_targets: $build is a '${type:-unknown}' build; the targets are for a Release build (-DCMAKE_BUILD_TYPE=Release)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "scale_targets: /usr/bin/time is missing (Debian package 'time')" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run FILE: the fastest of $repeat runs of `hcpsim simulate FILE --format json`; sets wall, cpu, rss_mb
# and leaves the report in $work/report.json.
run() {
  local file="$1"
  wall="" cpu="" rss_mb=""
  for ((i = 0; i < repeat; ++i)); do
    if ! /usr/bin/time -v -o "$work/time" "$hcpsim" simulate "$file" --format json -q > "$work/out.json"; then
      echo "scale_targets: hcpsim simulate $file failed" >&2
      exit 2
    fi
    local w u s m
    w="$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); t = 0; for (i = 1; i <= n; ++i) t = t * 60 + p[i]; print t }' "$work/time")"
    u="$(awk -F': ' '/User time/ { print $2 }' "$work/time")"
    s="$(awk -F': ' '/System time/ { print $2 }' "$work/time")"
    m="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")"
    if [[ -z "$wall" ]] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
      wall="$w"
      cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
      rss_mb="$(awk -v m="$m" 'BEGIN { printf "%.0f", m / 1024 }')"
      cp "$work/out.json" "$work/report.json"
    fi
  done
}

failed=0
# check WHAT VALUE LIMIT UNIT
check() {
  local verdict
  if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v <= l) }'; then verdict="met"; else verdict="MISSED"; failed=1; fi
  printf "  %-34s %8s %-3s (target <= %s %s: %s)\n" "$1" "$2" "$4" "$3" "$4" "$verdict"
}
# expect WHAT KEY VALUE: the report's fold.KEY is VALUE (one line of the pretty-printed JSON).
expect() {
  if grep -Eq "\"$2\": $3,?\$" "$work/report.json"; then
    printf "  %-34s %8s     (as expected)\n" "$1" "$3"
  else
    printf "  %-34s %8s     (expected %s: WRONG)\n" "$1" "$(grep -E "\"$2\":" "$work/report.json" | head -1 | tr -d ' ,')" "$3"
    failed=1
  fi
}

echo "scale_targets: $("$hcpsim" --version 2>/dev/null | head -1), $(nproc) CPUs, uptime:$(uptime | sed 's/.*up[^,]*,//')"
if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
  echo "scale_targets: warning: the machine is busy (load average above half its CPUs): wall times will be"
  echo "  longer than on an idle machine; CPU seconds are printed too, and are less affected"
fi

file="$root/scenarios/scale/llama3-405b-class-128k-16k-gpus.yaml"
run "$file"
echo "16,384 GPUs folded (simgrid): wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB"
check "16K folded wall" "$wall" 60 s
check "16K folded peak RSS" "$rss_mb" 250 MB
expect "16K represented GPUs" represented_ranks 16384
expect "16K folded" folded true

file="$root/scenarios/scale/llama3-405b-class-128k-4k-gpus-unfolded.yaml"
run "$file"
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
