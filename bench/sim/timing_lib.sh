# Shared by bench/sim/user_path.sh and bench/sim/scale_targets.sh; sourced, not run. The caller sets
# `me` (its name for messages), `build` (a Release build folder) and `repeat` (runs per command; the
# fastest is kept, as the machine's noise is one-sided).

# require_release_build: $build/cli/hcpsim exists, the build is Release and /usr/bin/time is there;
# sets `hcpsim` and a scratch folder `work` removed on exit. Exits 2 otherwise.
require_release_build() {
  hcpsim="$build/cli/hcpsim"
  if [[ ! -x "$hcpsim" ]]; then
    echo "$me: $hcpsim is not an executable (build the hcpsim target of a Release build, or pass its build folder)" >&2
    exit 2
  fi
  local type
  type="$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null || true)"
  if [[ "$type" != "Release" ]]; then
    echo "$me: $build is a '${type:-unknown}' build; the targets are for a Release build (-DCMAKE_BUILD_TYPE=Release)" >&2
    exit 2
  fi
  if [[ ! -x /usr/bin/time ]]; then
    echo "$me: /usr/bin/time is missing (Debian package 'time')" >&2
    exit 2
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
}

# time_simulate OUT ARGS...: the fastest of $repeat runs of `hcpsim simulate ARGS --format json -q`,
# whose report is left in OUT; sets wall and cpu (user + system, seconds) and rss_mb (peak resident
# set of hcpsim or its SimGrid child). Exits 2 when a run fails.
time_simulate() {
  local out="$1"; shift
  wall="" cpu="" rss_mb=""
  local i w u s m
  for ((i = 0; i < repeat; ++i)); do
    if ! /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$hcpsim" simulate "$@" --format json -q > "$work/last.json"; then
      echo "$me: hcpsim simulate $* failed" >&2
      exit 2
    fi
    read -r w u s m < "$work/time"
    if [[ -z "$wall" ]] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
      wall="$w"
      cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
      rss_mb="$(awk -v m="$m" 'BEGIN { printf "%.0f", m / 1024 }')"
      cp "$work/last.json" "$out"
    fi
  done
}

failed=0
# check WHAT VALUE LIMIT UNIT: prints the verdict of VALUE <= LIMIT; a miss sets failed=1.
check() {
  local verdict
  if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v <= l) }'; then verdict="met"; else verdict="MISSED"; failed=1; fi
  printf "  %-34s %8s %-3s (target <= %s %s: %s)\n" "$1" "$2" "$4" "$3" "$4" "$verdict"
}

# print_machine: the build's version, CPUs and load, and a warning when the machine is busy.
print_machine() {
  echo "$me: $("$hcpsim" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo "$me: warning: the machine is busy (load average above half its CPUs): wall times will be longer"
    echo "  than on an idle machine; CPU seconds are printed too, and are less affected"
  fi
}
