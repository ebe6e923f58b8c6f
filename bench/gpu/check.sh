#!/usr/bin/env bash
# The device check, run on a lent GPU machine from a bundle made by bench/gpu/bundle.sh (nothing is
# compiled there). One overall deadline (DEADLINE_S, at most 360 s) caps every step; summary.txt is
# rewritten after every step (bench/gpu/results.py), so a hang or a kill still returns what was
# measured. Steps, most important first, each with its own limit (the deadline cuts the sum short):
#   preflight           20 s  OS, glibc vs the bundle's needs, driver, CUDA runtime, GPU, SMs, NCCL; stops early
#   kernel tests       100 s  test_kernels (8K sampled-row correctness included); a skipped test is a failure
#   held-out            150 s  calibrate --grid (full grid; the scenario's shapes held out), run --emulate-ranks,
#                             simulate uncalibrated and grid-calibrated, compare both
#   torch tables        60 s  PyTorch SDPA (cuDNN, FlashAttention) at the scenario's real attention shapes
#                             and BF16/FP8 GEMMs, against the model's tables (torch_tables.py)
#   interference        40 s  attention beside a bandwidth-bound copy on a second stream vs the model
#   run --check         60 s  the scenario at 512 tokens on real data, every attention tile on the GPU
#   SDPA speed          45 s  PyTorch SDPA at 8K (d 128, causal and not) next to our kernels
#   compute-sanitizer   45 s  the smallest attention case
#   usage: BUNDLE/check.sh [RESULTS_DIR]          (default: $OUT, else ./check-results)
#   environment: DEADLINE_S (default and maximum 360), PYTHON (default python3)
# Results: summary.txt, steps.tsv (one line per step), log.txt (every command's output) and the
# files each step writes (results.py names them). Exit 0 only when every step passed.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
RES=${1:-${OUT:-$PWD/check-results}}
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)   # absolute: the calibration path is passed as a scenario override
DEADLINE_S=${DEADLINE_S:-360}
[ "$DEADLINE_S" -le 360 ] 2>/dev/null || DEADLINE_S=360
PY=${PYTHON:-python3}
HCPSIM=$B/bin/hcpsim
SCEN=$B/emulated-small.yaml
export HCPSIM_TEST_SOURCE_DIR=$B/src   # the repository files the kernel tests read
LOG=$RES/log.txt
STEPS=$RES/steps.tsv
: > "$LOG"
printf 'step\tstatus\tseconds\tnote\n' > "$STEPS"
printf 'deadline_s\t%s\nstarted\t%s\n' "$DEADLINE_S" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$RES/run.tsv"
t0=$(date +%s)
failed=0

elapsed() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( DEADLINE_S - $(elapsed) )); }
summarize() {
  "$PY" "$B/results.py" summary "$RES" > "$RES/summary.txt.new" 2>> "$LOG" && mv "$RES/summary.txt.new" "$RES/summary.txt" \
    || { echo "results.py failed; the steps so far:"; cat "$STEPS"; } > "$RES/summary.txt"
}
# record STEP STATUS START NOTE: one line in steps.tsv, then summary.txt again.
record() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" $(( $(date +%s) - $3 )) "$4" >> "$STEPS"
  case "$2" in pass) ;; *) failed=1 ;; esac
  summarize
}
# run LIMIT CMD...: the command under min(LIMIT, time left), output to the log; 124 on timeout.
run() {
  local limit=$1 l
  shift
  l=$(left)
  [ "$l" -lt "$limit" ] && limit=$l
  [ "$limit" -ge 5 ] || { echo "deadline: not started: $*" >> "$LOG"; return 124; }
  echo "\$ $* (limit ${limit} s)" >> "$LOG"
  timeout -k 5 "$limit" "$@" >> "$LOG" 2>&1
}
# run_to FILE LIMIT CMD...: the same with stdout into FILE (stderr to the log).
run_to() {
  local out=$1 limit=$2 l
  shift 2
  l=$(left)
  [ "$l" -lt "$limit" ] && limit=$l
  [ "$limit" -ge 5 ] || { echo "deadline: not started: $*" >> "$LOG"; return 124; }
  echo "\$ $* > $(basename "$out") (limit ${limit} s)" >> "$LOG"
  timeout -k 5 "$limit" "$@" > "$out" 2>> "$LOG"
}
status_of() { case "$1" in 0) echo pass ;; 124|137) echo TIMEOUT ;; *) echo FAIL ;; esac; }
banner() { printf '\n== %s (%s s)\n' "$1" "$(elapsed)" >> "$LOG"; }
stop() {   # the preflight's verdict: nothing else can run here
  record preflight STOP "$ts" "$1"
  echo "stop: $1" | tee -a "$LOG"
  exit 1
}

# --- preflight -------------------------------------------------------------------------------
banner preflight; ts=$(date +%s)
{
  os=$( (. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}") || echo unknown)
  glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  printf 'os\t%s\nglibc\t%s\n' "$os" "${glibc:-unknown}"
  [ -f "$B/needs.tsv" ] && cat "$B/needs.tsv"
} > "$RES/preflight.tsv"
cat "$RES/preflight.tsv" >> "$LOG"
need_glibc=$(awk -F'\t' '$1 == "needs_glibc" {print $2}' "$RES/preflight.tsv")
have_glibc=$(awk -F'\t' '$1 == "glibc" {print $2}' "$RES/preflight.tsv")
if [ -n "$need_glibc" ] && [ -n "$have_glibc" ] && [ "$have_glibc" != unknown ] &&
   [ "$(printf '%s\n%s\n' "$need_glibc" "$have_glibc" | sort -V | head -1)" != "$need_glibc" ]; then
  stop "this machine's glibc $have_glibc is older than the $need_glibc the bundle needs (build it on an older system)"
fi
if command -v nvidia-smi > /dev/null; then
  drv=$(timeout 10 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>> "$LOG" | head -1)
  printf 'nvidia_smi\t%s\n' "${drv:-no answer}" >> "$RES/preflight.tsv"
else
  printf 'nvidia_smi\t%s\n' "not found" >> "$RES/preflight.tsv"
fi
# NCCL from the Python wheel when the system has none (hcpsim also searches site-packages itself).
if [ -z "${HCPSIM_NCCL_LIBRARY:-}" ]; then
  wheel=$(timeout 10 "$PY" -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)
  [ -n "$wheel" ] && [ -f "$wheel" ] && export HCPSIM_NCCL_LIBRARY=$wheel
fi
run_to "$RES/devices.txt" 20 "$HCPSIM" calibrate --devices
rc=$?
cat "$RES/devices.txt" >> "$LOG"
case $rc in
  0) record preflight pass "$ts" "$(grep -m1 '^GPU 0' "$RES/devices.txt")" ;;
  126|127) stop "bin/hcpsim does not start here (exit $rc): $(grep -m1 -E 'GLIBC|not found|error' "$LOG" || echo 'see log.txt')" ;;
  124|137) stop "hcpsim calibrate --devices did not answer within 20 s (driver hung?)" ;;
  *) if grep -q "version .GLIBC" "$LOG"; then stop "bin/hcpsim cannot load here: $(grep -m1 'version .GLIBC' "$LOG")"; fi
     why=$(grep -h -m1 -E 'no CUDA device|error' "$RES/devices.txt" "$LOG" | head -1)
     stop "no usable GPU: ${why:-hcpsim calibrate --devices exited $rc}" ;;
esac

# --- kernel tests ----------------------------------------------------------------------------
banner "kernel tests"; ts=$(date +%s)
run 100 "$B/bin/test_kernels" --gtest_brief=1 --gtest_output="json:$RES/tests.json"
rc=$?
note=$("$PY" "$B/results.py" gtest "$RES/tests.json" 2>&1)
gt=$?
if [ $rc -eq 0 ] && [ $gt -eq 0 ]; then record "kernel tests" pass "$ts" "$note"
elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then record "kernel tests" TIMEOUT "$ts" "$note"
else record "kernel tests" FAIL "$ts" "exit $rc; $note"; fi

# --- held-out comparison of the cost model ---------------------------------------------------
banner "held-out comparison"; ts=$(date +%s)
# The full grid (1K..16K, d 64 and 128): held out, the scenario's 8K causal diagonal is interpolated
# between 4K and 16K instead of clamped to 1K as with --quick. About 40 kernels of milliseconds each.
run_to "$RES/calibrate.txt" 80 "$HCPSIM" calibrate "$SCEN" --grid --out "$RES/calib-grid.yaml"
c1=$?
run 50 "$HCPSIM" run "$SCEN" --emulate-ranks --iterations 3 --trace "$RES/measured.json"
c2=$?
run 20 "$HCPSIM" simulate "$SCEN" --backend analytic --trace "$RES/predicted-uncalibrated.json"
c3=$?
c4=1
[ $c1 -eq 0 ] && { run 20 "$HCPSIM" simulate "$SCEN" "cluster.calibration=$RES/calib-grid.yaml" --backend analytic \
                     --trace "$RES/predicted-grid.json"; c4=$?; }
for which in grid uncalibrated; do
  [ -f "$RES/predicted-$which.json" ] && [ -f "$RES/measured.json" ] &&
    run_to "$RES/compare-$which.json" 15 "$HCPSIM" compare "$RES/predicted-$which.json" "$RES/measured.json" --format json
done
note="calibrate --grid $(status_of $c1), run --emulate-ranks $(status_of $c2), simulate $(status_of $c3)/$(status_of $c4)"
if [ $c1 -eq 0 ] && [ $c2 -eq 0 ] && [ $c3 -eq 0 ] && [ $c4 -eq 0 ] && [ -s "$RES/compare-grid.json" ]; then
  record "held-out" pass "$ts" "$note"
else record "held-out" FAIL "$ts" "$note"; fi

# --- the production kernels behind the model's tables ----------------------------------------
banner "torch tables"; ts=$(date +%s)
# The scenario's shapes (a2a+p2p: causal diagonals, half-chunk ring sections, GQA 4:1) and those of
# the same model as a plain p2p ring (cp 8), as the model prices them.
run_to "$RES/model-table.csv" 15 "$HCPSIM" calibrate "$SCEN" --model-table
c1=$?
run_to "$RES/model-table-p2p.csv" 15 "$HCPSIM" calibrate "$SCEN" model.cp_comm_type=p2p \
  "model.hierarchical_context_parallel_sizes=[]" --model-table
c2=$?
tail -n +2 "$RES/model-table-p2p.csv" >> "$RES/model-table.csv" 2>/dev/null
run_to "$RES/torch-tables.csv" 60 "$PY" "$B/torch_tables.py" "$RES/model-table.csv"
c3=$?
note="model table $(status_of $c1)/$(status_of $c2), torch_tables.py $(status_of $c3)"
if [ $c1 -eq 0 ] && [ $c2 -eq 0 ] && [ $c3 -eq 0 ]; then record "torch tables" pass "$ts" "$note"
else record "torch tables" FAIL "$ts" "$note"; fi

# --- interference ----------------------------------------------------------------------------
banner "interference"; ts=$(date +%s)
run_to "$RES/interference.csv" 40 "$HCPSIM" calibrate "$SCEN" --interference --iterations 3
rc=$?
record interference "$(status_of $rc)" "$ts" ""

# --- run --check -----------------------------------------------------------------------------
banner "run --check"; ts=$(date +%s)
# 512^2 x 32 heads x 128 = 2^30 multiply-adds for the dense reference (limit 2^32): seconds on the CPU.
run_to "$RES/check.json" 60 "$HCPSIM" run "$SCEN" model.seq_length=512 --emulate-ranks --check --format json
rc=$?
record "run --check" "$(status_of $rc)" "$ts" ""

# --- SDPA next to our kernels ----------------------------------------------------------------
banner "SDPA speed"; ts=$(date +%s)
run_to "$RES/sdpa.csv" 45 "$PY" "$B/sdpa_bench.py" --shapes 8192:128:causal,8192:128:none --heads 16
rc=$?
record "SDPA speed" "$(status_of $rc)" "$ts" ""

# --- compute-sanitizer -----------------------------------------------------------------------
banner "compute-sanitizer"; ts=$(date +%s)
cs=$(command -v compute-sanitizer || { [ -x /usr/local/cuda/bin/compute-sanitizer ] && echo /usr/local/cuda/bin/compute-sanitizer; })
if [ -n "$cs" ]; then
  run 45 "$cs" --error-exitcode 1 "$B/bin/test_kernels" \
    --gtest_filter='Sections/AttentionGpu.ForwardAndBackwardMatchReference/full_nomask_d64'
  rc=$?
  record compute-sanitizer "$(status_of $rc)" "$ts" ""
else
  record compute-sanitizer "NOT FOUND" "$ts" "no compute-sanitizer on PATH or in /usr/local/cuda/bin"
fi

printf 'finished\t%s\nelapsed_s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(elapsed)" >> "$RES/run.tsv"
summarize
echo "total $(elapsed) s; $(ls "$RES" | wc -l) files in $RES"
exit $failed
