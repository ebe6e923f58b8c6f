#!/usr/bin/env bash
# CTest (labels bundle, cpu_runner): bench/gpu/check.sh and bench/gpu/results.py without a GPU.
#   1. No GPU: a bundle with this build's real hcpsim stops in the preflight within 30 s, exit != 0,
#      with summary.txt saying why.
#   2. Stub binaries (tests/runner/check_stubs: canned output in the real formats where a GPU is
#      needed, the real hcpsim for simulate, compare and --model-table, the real torch_tables.py
#      comparison with a fake timer): every step passes, summary.txt holds the held-out comparison
#      (communication "not measured in emulation"), the torch tables, the interference probe and
#      the check; results.py fills docs/validation.md's table.
#   3. Skipped GPU tests (exit 0) fail the kernel-test step and the run.
#   4. A hung step: the overall deadline ends the run and summary.txt has what was measured.
#   usage: check_sh_test.sh SOURCE_DIR WORK_DIR HCPSIM
set -uo pipefail
src=$1 work=$2 real=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
# bundle DIR BIN_HCPSIM: the files bench/gpu/bundle.sh puts in a bundle, with the given binaries.
bundle() {
  mkdir -p "$1/bin" "$1/share/hcpsim"
  cp "$src/bench/gpu/check.sh" "$src/bench/gpu/results.py" "$src/bench/gpu/emulated-small.yaml" "$1/"
  cp -r "$src/scenarios/hardware" "$1/share/hcpsim/hardware"
  printf 'needs_glibc\t2.34\nneeds_glibcxx\t3.4.30\n' > "$1/needs.tsv"
}

# 1. No GPU, the real hcpsim.
bundle "$work/nogpu"
ln -s "$real" "$work/nogpu/bin/hcpsim"
t=$(date +%s)
PATH=/usr/bin:/bin timeout 60 "$work/nogpu/check.sh" "$work/nogpu-res" > "$work/nogpu.out" 2>&1
rc=$?
took=$(( $(date +%s) - t ))
cat "$work/nogpu.out"
[ $rc -ne 0 ] || fail "check.sh exited 0 without a GPU"
[ $took -le 30 ] || fail "check.sh took $took s to stop without a GPU (limit 30)"
grep -q "preflight *STOP" "$work/nogpu-res/summary.txt" || { cat "$work/nogpu-res/summary.txt"; fail "summary.txt has no preflight STOP"; }
grep -qE "no usable GPU: .*(no CUDA device|without CUDA)" "$work/nogpu-res/summary.txt" ||
  { cat "$work/nogpu-res/summary.txt"; fail "summary.txt does not say why"; }
grep -q "^machine: .*glibc 2\.[0-9]* (bundle needs 2.34" "$work/nogpu-res/summary.txt" ||
  { cat "$work/nogpu-res/summary.txt"; fail "summary.txt lacks the OS/glibc preflight line"; }
[ "$(tail -n +2 "$work/nogpu-res/steps.tsv" | wc -l)" -eq 1 ] || fail "steps ran after a failed preflight"
echo "ok 1: no GPU: stopped in the preflight after $took s, exit $rc"

# 2. Stub binaries: a full run.
stub() {
  bundle "$1"
  cp "$src/tests/runner/check_stubs/hcpsim" "$src/tests/runner/check_stubs/test_kernels" "$1/bin/"
  cp "$src/tests/runner/check_stubs/sdpa_bench.py" "$src/tests/runner/check_stubs/torch_tables.py" "$1/"
  mkdir -p "$1/path"
  cp "$src/tests/runner/check_stubs/nvidia-smi" "$src/tests/runner/check_stubs/compute-sanitizer" "$1/path/"
}
export REAL_HCPSIM=$real TORCH_TABLES_SOURCE=$src/bench/gpu/torch_tables.py
stub "$work/stub"
PATH="$work/stub/path:/usr/bin:/bin" timeout 300 "$work/stub/check.sh" "$work/stub-res" > "$work/stub.out" 2>&1
rc=$?
S=$work/stub-res/summary.txt
cat "$S"
[ $rc -eq 0 ] || { tail -40 "$work/stub-res/log.txt"; fail "stub run exited $rc"; }
grep -q "verdict: every step passed" "$S" || fail "no pass verdict"
grep -qE "all_to_all .*not measured in emulation" "$S" || fail "communication kinds not marked 'not measured in emulation'"
grep -qE "^  attention_forward +[0-9]+ +[-+][0-9.]+ % / [-+][0-9.]+ % +[-+][0-9.]+ % / [-+][0-9.]+ %" "$S" ||
  fail "no grid-calibrated and uncalibrated errors for attention_forward"
grep -qE "attention cudnn +n= *[0-9]+ +median \|error\| +20.0 %" "$S" || fail "torch tables: cuDNN median error not 20 %"
grep -qE "attention flash +n= *[0-9]+ +median \|error\| +25.0 %" "$S" || fail "torch tables: flash median error not 25 %"
grep -qE "GEMM fp8 +n= *[0-9]+ +median \|error\| +10.0 %" "$S" || fail "torch tables: no FP8 GEMM rows"
grep -q "forward    16 SMs .*measured x1.200  model x2.321" "$S" || fail "interference line"
grep -q "run --check: max relative error 0.00405" "$S" || fail "check line"
grep -qE "forward +causal +d 128 n  8192 .* 0\.[0-9]+x|forward +causal" "$S" || fail "speed lines"
for f in devices.txt tests.json calibrate.txt calib-grid.yaml measured.json predicted-grid.json predicted-uncalibrated.json \
         compare-grid.json compare-uncalibrated.json model-table.csv torch-tables.csv interference.csv check.json sdpa.csv; do
  [ -s "$work/stub-res/$f" ] || fail "stub run wrote no $f"
done
# The held-out comparison is real: the grid-calibrated and uncalibrated predictions differ.
cmp -s "$work/stub-res/predicted-grid.json" "$work/stub-res/predicted-uncalibrated.json" && fail "calibration changed nothing"
# The table line, into a copy of docs/validation.md.
cp "$src/docs/validation.md" "$work/validation.md"
row=$(python3 "$src/bench/gpu/results.py" fill "$work/stub-res" "$work/validation.md") || fail "results.py fill"
echo "$row"
grep -qF "$row" "$work/validation.md" || fail "the row is not in the document"
grep -q "^| — | not run yet" "$work/validation.md" && fail "the 'not run yet' line is still there"
echo "$row" | grep -qE "^\| [0-9]{4}-[0-9]{2}-[0-9]{2} \| NVIDIA H200 \(stub\) \| 301 / 598 \(cudnn\) \| 263 / 527 \(cudnn\) \| [0-9.]+ % / [0-9.]+ % \([0-9]+\) \| .* \| x1.20 / x2.32 \| 0.00405 \| all passed \|$" ||
  fail "row cells"
python3 "$src/bench/gpu/results.py" fill "$work/stub-res" "$work/validation.md" > /dev/null
[ "$(grep -cF "$row" "$work/validation.md")" -eq 1 ] || fail "a second fill of the same run added a line"
echo "ok 2: stub run: every step passed; summary and table line parsed"

# 3. Every GPU test skipped, exit 0: the step fails.
stub "$work/skip"
STUB_SKIP=1 PATH="$work/skip/path:/usr/bin:/bin" timeout 300 "$work/skip/check.sh" "$work/skip-res" > /dev/null 2>&1
rc=$?
[ $rc -ne 0 ] || fail "a run whose GPU tests all skipped exited 0"
grep -qE "kernel tests +FAIL .*2 skipped \(skipped counts as failed" "$work/skip-res/summary.txt" ||
  { cat "$work/skip-res/summary.txt"; fail "skipped tests not reported as a failure"; }
echo "ok 3: skipped GPU tests fail the step"

# 4. A hung step under a 30 s deadline.
stub "$work/hang"
t=$(date +%s)
DEADLINE_S=30 STUB_HANG=--emulate-ranks PATH="$work/hang/path:/usr/bin:/bin" timeout 120 "$work/hang/check.sh" "$work/hang-res" \
  > /dev/null 2>&1
rc=$?
took=$(( $(date +%s) - t ))
[ $rc -ne 0 ] || fail "a run with a hung step exited 0"
[ $took -le 45 ] || fail "the 30 s deadline let the run go on for $took s"
grep -q "kernel tests *pass" "$work/hang-res/summary.txt" || { cat "$work/hang-res/summary.txt"; fail "the step before the hang is lost"; }
grep -qE "held-out +FAIL .*run --emulate-ranks TIMEOUT" "$work/hang-res/summary.txt" ||
  { cat "$work/hang-res/summary.txt"; fail "the hung step is not reported as a timeout"; }
echo "ok 4: a hung step: the run ended after $took s (deadline 30 s) with the earlier steps in summary.txt"
