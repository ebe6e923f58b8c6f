#!/usr/bin/env bash
# CTest driver of the CPU runner: starts `mpirun -np NP hcpsim run FILE --device cpu ...` with the
# flags CI needs (oversubscribed ranks on 2 cores; --allow-run-as-root when root) and checks the
# outcome of one mode:
#   check   NP HCPSIM FILE [overrides]   --check --format json: exit 0 and a max_rel_error below 1e-4
#   check-bf16 NP HCPSIM FILE [overrides] the same with HCPSIM_CHECK_TILES=cpu-bf16 (every attention tile
#                                         rounded to bf16 as `run --check` on GPUs does): exit 0, the JSON
#                                         names the tiles, max_rel_error above 1e-6 (rounding visible) and
#                                         below the reported tolerance
#   fail    NP HCPSIM FILE RANK TASK      HCPSIM_RUNNER_FAIL=RANK:TASK: nonzero exit within 10 s, and
#                                         the message names the rank and the task
#   hang    NP HCPSIM FILE RANK TASK      HCPSIM_RUNNER_FAIL=RANK:TASK:hang with --timeout 3: another rank
#                                         reports what it waited for, and the job ends within 20 s
#   compare NP HCPSIM FILE OUTDIR         the run prints the report of its measured trace; measured trace +
#                                         analytic prediction; `hcpsim compare` reads both
set -uo pipefail
mode=$1 np=$2 hcpsim=$3 file=$4
shift 4
launcher=(mpirun --oversubscribe -np "$np")
[ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
# Containers often deny the ptrace rights that shared-memory single copies need (CMA): copy in/out.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
fail() { echo "FAIL: $*"; exit 1; }
case "$mode" in
  check)
    out=$(timeout 120 "${launcher[@]}" "$hcpsim" -q run "$file" "$@" --device cpu --check --format json 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || fail "exit code $rc"
    err=$(printf '%s\n' "$out" | sed -n 's/.*"max_rel_error": *\([0-9.eE+-]*\).*/\1/p' | head -1)
    [ -n "$err" ] || fail "no max_rel_error in the output"
    awk -v e="$err" 'BEGIN { exit !(e < 1e-4) }' || fail "max_rel_error $err >= 1e-4"
    echo "ok: max_rel_error $err"
    ;;
  check-bf16)
    out=$(HCPSIM_CHECK_TILES=cpu-bf16 timeout 120 "${launcher[@]}" "$hcpsim" -q run "$file" "$@" --device cpu --check \
          --format json 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || fail "exit code $rc"
    printf '%s\n' "$out" | grep -q '"tiles": "cpu bf16"' || fail "the check does not name the bf16 tiles"
    err=$(printf '%s\n' "$out" | sed -n 's/.*"max_rel_error": *\([0-9.eE+-]*\).*/\1/p' | head -1)
    tol=$(printf '%s\n' "$out" | sed -n 's/.*"tolerance": *\([0-9.eE+-]*\).*/\1/p' | head -1)
    [ -n "$err" ] && [ -n "$tol" ] || fail "no max_rel_error or tolerance in the output"
    awk -v e="$err" -v t="$tol" 'BEGIN { exit !(e > 1e-6 && e < t) }' || fail "max_rel_error $err not in (1e-6, $tol)"
    echo "ok: max_rel_error $err with bf16 tiles (tolerance $tol)"
    ;;
  fail)
    rank=$1 task=$2
    start=$(date +%s.%N)
    out=$(HCPSIM_RUNNER_FAIL="$rank:$task" timeout 60 "${launcher[@]}" "$hcpsim" -q run "$file" --device cpu 2>&1)
    rc=$?
    elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    echo "$out"
    [ $rc -ne 0 ] || fail "the job succeeded although rank $rank failed"
    [ $rc -ne 124 ] || fail "the job hung (killed by timeout)"
    printf '%s\n' "$out" | grep -Eq "rank $rank: task [0-9]+ \\($task\\)" || fail "no message naming rank $rank and task $task"
    awk -v e="$elapsed" 'BEGIN { exit !(e < 10) }' || fail "every rank ended after $elapsed s (limit 10 s)"
    echo "ok: every rank ended in $elapsed s"
    ;;
  hang)
    rank=$1 task=$2
    start=$(date +%s.%N)
    out=$(HCPSIM_RUNNER_FAIL="$rank:$task:hang" timeout 60 "${launcher[@]}" "$hcpsim" -q run "$file" --device cpu \
          --timeout 3 2>&1)
    rc=$?
    elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    echo "$out"
    [ $rc -ne 0 ] || fail "the job succeeded although rank $rank hung"
    [ $rc -ne 124 ] || fail "the job hung (killed by timeout)"
    printf '%s\n' "$out" | grep -Eq "rank [0-9]+: task [0-9]+ \([^)]*\) (did not finish|could not start) within 3 s" ||
      fail "no rank reported the task it waited for"
    awk -v e="$elapsed" 'BEGIN { exit !(e < 20) }' || fail "every rank ended after $elapsed s (limit 20 s)"
    echo "ok: a silent rank $rank was detected; every rank ended in $elapsed s"
    ;;
  compare)
    dir=$1
    mkdir -p "$dir"
    run_out=$(timeout 120 "${launcher[@]}" "$hcpsim" -q run "$file" --device cpu --trace "$dir/measured.json") ||
      fail "run failed"
    # Rank 0 prints the Report of the measured trace, as `simulate` prints a prediction's.
    printf '%s\n' "$run_out" | grep -q '^hcpsim report: .*(backend cpu)' || fail "the run printed no report"
    printf '%s\n' "$run_out" | grep -q '^Critical path: ' || fail "the report has no critical path"
    "$hcpsim" -q simulate "$file" --backend analytic --trace "$dir/predicted.json" > /dev/null || fail "simulate failed"
    out=$("$hcpsim" compare "$dir/predicted.json" "$dir/measured.json" --format json) || fail "compare failed"
    echo "$out" | head -40
    printf '%s\n' "$out" | grep -q '"attention_forward"' || fail "compare found no attention_forward tasks"
    printf '%s\n' "$out" | grep -q '"send_recv"' || fail "compare found no send_recv tasks"
    echo "ok: compare read the measured trace"
    ;;
  *) fail "unknown mode $mode" ;;
esac
