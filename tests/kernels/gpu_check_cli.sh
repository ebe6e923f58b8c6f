#!/usr/bin/env bash
# CTest (label gpu): `hcpsim run FILE --check` on GPUs from the command line, single-process
# (--emulate-ranks) and, when mpirun exists, 4 MPI processes sharing the machine's GPUs. Exits 77
# (reported as skipped) without a CUDA device, saying so.
#   usage: gpu_check_cli.sh HCPSIM FILE [overrides]
set -uo pipefail
hcpsim=$1 file=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
check_json() {   # OUTPUT: a passed check of bf16 tiles on the GPU
  printf '%s\n' "$1" | grep -q '"tiles": "cuda bf16"' || fail "the check does not name the CUDA tiles"
  err=$(printf '%s\n' "$1" | sed -n 's/.*"max_rel_error": *\([0-9.eE+-]*\).*/\1/p' | head -1)
  [ -n "$err" ] || fail "no max_rel_error"
  tol=$(printf '%s\n' "$1" | sed -n 's/.*"tolerance": *\([0-9.eE+-]*\).*/\1/p' | head -1)
  [ -n "$tol" ] || fail "no tolerance"
  awk -v e="$err" -v t="$tol" 'BEGIN { exit !(e > 0 && e < t) }' || fail "max_rel_error $err not in (0, $tol)"
  echo "ok: max_rel_error $err"
}
out=$(timeout 300 "$hcpsim" -q run "$file" "$@" --emulate-ranks --check --format json 2>&1)
rc=$?
echo "$out"
if printf '%s\n' "$out" | grep -q "no CUDA device found"; then
  echo "SKIPPED: no CUDA device on this machine"
  exit 77
fi
[ $rc -eq 0 ] || fail "--emulate-ranks --check: exit code $rc"
check_json "$out"
if command -v mpirun > /dev/null; then
  launcher=(mpirun --oversubscribe -np 4)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  out=$(timeout 300 "${launcher[@]}" "$hcpsim" -q run "$file" "$@" --check --format json 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 0 ] || fail "mpirun -np 4 ... --check: exit code $rc"
  check_json "$out"
else
  echo "note: no mpirun here; the multi-process GPU check was not run"
fi
