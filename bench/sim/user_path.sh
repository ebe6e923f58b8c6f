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
hcpsim="$build/cli/hcpsim"
scenario="$here/a2a-p2p-8x128-4-layers.yaml"
if [[ ! -x "$hcpsim" ]]; then
  echo "user_path: $hcpsim is not an executable (build the hcpsim target of a Release build, or pass its build folder)" >&2
  exit 2
fi
type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
if [[ "$type" != "Release" ]]; then
  echo "user_path: $build is a '${type:-unknown}' build; the targets are for a Release build (-DCMAKE_BUILD_TYPE=Release)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "user_path: /usr/bin/time is missing (Debian package 'time')" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run NAME ARGS...: the fastest of $repeat runs; sets wall, cpu, rss_mb.
run() {
  local name="$1"; shift
  wall="" cpu="" rss_mb=""
  for ((i = 0; i < repeat; ++i)); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$hcpsim" simulate "$scenario" "$@" --format json -q \
      > "$work/$name.json"
    read -r w u s m < "$work/time"
    if [[ -z "$wall" ]] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
      wall="$w"
      cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
      rss_mb="$(awk -v m="$m" 'BEGIN { printf "%.0f", m / 1024 }')"
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

echo "user_path: $("$hcpsim" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
  echo "user_path: warning: the machine is busy (load average above half its CPUs): wall times will be longer"
  echo "  than on an idle machine; CPU seconds are printed too, and are less affected"
fi
for backend in analytic simgrid; do
  limit=1.0
  [[ "$backend" == simgrid ]] && limit=6
  run "$backend" --backend "$backend"
  base_wall="$wall"
  echo "$backend: wall ${wall} s, CPU ${cpu} s, peak RSS ${rss_mb} MB"
  check "$backend wall" "$wall" "$limit" s
  check "$backend peak RSS" "$rss_mb" 250 MB
  for ext in json json.gz; do
    run "$backend-trace" --backend "$backend" --trace "$work/trace.$ext"
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
