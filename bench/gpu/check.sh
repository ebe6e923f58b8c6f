#!/usr/bin/env bash
# One-shot check for a lent H200 (or any sm_80+ GPU): build the CUDA parts, run the kernel tests,
# time our attention kernels against PyTorch SDPA, emulate a small CP scenario on the GPU and
# compare it with the prediction calibrated on that GPU. Prints a short table; budget < 8 minutes.
#   usage: bench/gpu/check.sh [BUILD_DIR]      (run from the repository root)
# Everything it writes goes to $OUT (default: BUILD_DIR/check).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-gpu-check}
OUT=${OUT:-$BUILD/check}
JOBS=$(nproc 2>/dev/null || echo 8)
SCEN=$ROOT/bench/gpu/emulated-small.yaml
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)   # absolute: the calibration path is passed as a scenario override
t0=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - t0 )) s)"; }
status=0

step "GPU"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader || { echo "no GPU: stop"; exit 1; }

step "configure + build (CUDA only)"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHCPSIM_WITH_CUDA=ON \
  -DHCPSIM_WITH_GUI=OFF -DHCPSIM_WITH_SIMGRID=OFF -DHCPSIM_BUILD_BENCH=OFF > "$OUT/cmake.log" 2>&1 \
  || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHCPSIM_WITH_CUDA=ON \
  -DHCPSIM_WITH_GUI=OFF -DHCPSIM_WITH_SIMGRID=OFF -DHCPSIM_BUILD_BENCH=OFF > "$OUT/cmake.log" 2>&1 \
  || { tail -30 "$OUT/cmake.log"; exit 1; }
grep "hcpsim parts" "$OUT/cmake.log"
cmake --build "$BUILD" --target hcpsim test_kernels -j"$JOBS" > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
HCPSIM=$BUILD/cli/hcpsim

step "kernel tests (label gpu)"
if (cd "$BUILD" && timeout 300 ctest -L gpu --output-on-failure > "$OUT/ctest.log" 2>&1); then
  tests_result="pass"
else
  tests_result="FAIL"; status=1
fi
grep -E "tests passed|tests failed|Skipped|Failed" "$OUT/ctest.log" | head -20

step "calibrate (our kernels, this GPU)"
timeout 240 "$HCPSIM" calibrate "$SCEN" --quick --out "$OUT/calib.yaml" > "$OUT/calibrate.txt" 2>&1 \
  || { tail -20 "$OUT/calibrate.txt"; status=1; }
sed -n '/^pass/,/^$/p' "$OUT/calibrate.txt"

step "PyTorch SDPA on the same shapes"
timeout 120 python3 "$ROOT/bench/gpu/sdpa_bench.py" --shapes 8192:128:causal,8192:128:none,1024:128:causal \
  --heads 16 > "$OUT/sdpa.csv" 2> "$OUT/sdpa.err" || { cat "$OUT/sdpa.err"; status=1; }
cat "$OUT/sdpa.csv"

step "emulated scenario: run --emulate-ranks"
timeout 180 "$HCPSIM" run "$SCEN" --emulate-ranks --iterations 3 --trace "$OUT/measured.json" > "$OUT/run.txt" 2>&1 \
  || { tail -20 "$OUT/run.txt"; status=1; }
cat "$OUT/run.txt"

step "prediction with this calibration, and compare"
if "$HCPSIM" simulate "$SCEN" "cluster.calibration=$OUT/calib.yaml" --backend analytic \
     --trace "$OUT/predicted.json" > "$OUT/simulate.txt" 2>&1; then
  "$HCPSIM" compare "$OUT/predicted.json" "$OUT/measured.json" > "$OUT/compare.txt" 2>&1
  "$HCPSIM" compare "$OUT/predicted.json" "$OUT/measured.json" --format json > "$OUT/compare.json" 2>/dev/null
  sed -n '/By task kind/,/^$/p' "$OUT/compare.txt"
else
  tail -5 "$OUT/simulate.txt"; status=1
fi

step "summary"
python3 - "$OUT" "$tests_result" <<'PY'
import csv, json, os, re, sys
out, tests = sys.argv[1], sys.argv[2]
ours = {}
try:
    for line in open(os.path.join(out, "calibrate.txt")):
        m = re.match(r"(forward|backward)\s+(causal|none)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", line)
        if m and m.group(4) == m.group(5) and m.group(6) == "16" and m.group(7) == "16":
            ours[(m.group(1), m.group(2), m.group(3), m.group(4))] = float(m.group(9))
except OSError:
    pass
rows = []
try:
    for r in csv.DictReader(open(os.path.join(out, "sdpa.csv"))):
        k = (r["pass"], r["mask"], r["head_dim"], r["q_len"])
        rows.append((k, ours.get(k), float(r["tflops"])))
except (OSError, KeyError, ValueError):
    pass
print(f"kernel tests: {tests}")
print(f"{'pass':9} {'mask':7} {'d':>4} {'n':>6} {'ours TF/s':>10} {'SDPA TF/s':>10} {'ratio':>6}")
for (p, m, d, n), o, s in rows:
    ratio = f"{o / s:.2f}" if o else "-"
    print(f"{p:9} {m:7} {d:>4} {n:>6} {o if o else '-':>10} {s:>10.1f} {ratio:>6}")
try:
    j = json.load(open(os.path.join(out, "compare.json")))
    print("predicted vs measured (emulated scenario), relative error by kind:")
    for kind, st in sorted(j["by_kind"].items()):
        print(f"  {kind:20} n={st['count']:4} mean {st['mean_rel_error']*100:+6.1f}%  max {st['max_rel_error']*100:+6.1f}%")
except (OSError, KeyError, ValueError):
    print("compare: no result (see compare.txt / simulate.txt)")
PY
echo "total $(( $(date +%s) - t0 )) s; files in $OUT"
exit $status
