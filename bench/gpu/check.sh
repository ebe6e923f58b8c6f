#!/usr/bin/env bash
# The device check, run on a lent GPU machine from a bundle made by bench/gpu/bundle.sh (nothing is
# compiled there): kernel tests, compute-sanitizer on the smallest, our kernels against PyTorch SDPA
# (naming the backend PyTorch picked), calibrate, an emulated run of a small CP scenario, the same
# scenario shrunk and checked on real data (run --check, every attention tile on the GPU), its
# prediction with the fresh calibration, and compare. Budget: under 6 minutes. Per step, estimated
# (not yet measured on a device; each has a hard timeout, the sum of which is larger):
#   GPU + NCCL lookup ~2 s | kernel tests ~40 s | compute-sanitizer ~30 s | SDPA ~40 s |
#   calibrate --quick ~60 s | run --emulate-ranks ~40 s | run --check ~20 s | simulate + compare ~5 s
#   => about 4 minutes.
#   usage: BUNDLE/check.sh [RESULTS_DIR]          (default: $OUT, else ./check-results)
# Results (8 files): log.txt (every command's output), summary.txt (the table), sdpa.csv, calib.yaml,
# measured.json, check.json (run --check: max relative error of O, dQ, dK, dV), predicted.json,
# compare.json.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
RES=${1:-${OUT:-$PWD/check-results}}
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)   # absolute: the calibration path is passed as a scenario override
HCPSIM=$B/bin/hcpsim
SCEN=$B/emulated-small.yaml
# The repository files the kernel tests read (tests/kernels/test_files.h).
export HCPSIM_TEST_SOURCE_DIR=$B/src
LOG=$RES/log.txt
: > "$LOG"
t0=$(date +%s)
status=0
step() { printf '\n== %s (%s s)\n' "$*" "$(( $(date +%s) - t0 ))" | tee -a "$LOG"; }
# run LIMIT_S CMD...: output to the log; returns the command's status.
run() { local limit=$1; shift; echo "\$ $*" >> "$LOG"; timeout "$limit" "$@" >> "$LOG" 2>&1; }

step "GPU"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$LOG" || { echo "no GPU: stop"; exit 1; }
# NCCL from the Python wheel when the system has none (hcpsim also searches site-packages itself).
if [ -z "${HCPSIM_NCCL_LIBRARY:-}" ]; then
  wheel=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)
  [ -n "$wheel" ] && [ -f "$wheel" ] && export HCPSIM_NCCL_LIBRARY=$wheel
fi

step "kernel tests"
if run 150 "$B/bin/test_kernels" --gtest_brief=1; then tests="pass"; else tests="FAIL"; status=1; fi
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$LOG" | tail -5

step "compute-sanitizer on the smallest case"
if command -v compute-sanitizer > /dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if run 90 "$cs" --error-exitcode 1 "$B/bin/test_kernels" \
       --gtest_filter='Sections/AttentionGpu.ForwardAndBackwardMatchReference/full_nomask_d64'; then
    sanitizer="clean"; else sanitizer="ERRORS"; status=1; fi
else
  sanitizer="not found"
fi

step "PyTorch SDPA on the same shapes"
if timeout 120 python3 "$B/sdpa_bench.py" --shapes 8192:128:causal,8192:128:none,1024:128:causal --heads 16 \
     > "$RES/sdpa.csv" 2>> "$LOG"; then :; else status=1; fi

step "calibrate (our kernels, this GPU)"
run 150 "$HCPSIM" calibrate "$SCEN" --quick --out "$RES/calib.yaml" || status=1

step "emulated scenario: run --emulate-ranks"
run 120 "$HCPSIM" run "$SCEN" --emulate-ranks --iterations 3 --trace "$RES/measured.json" || status=1

step "run --check: the emulated scenario shrunk to 512 tokens, real data, every attention tile on the GPU"
# 512^2 x 32 heads x 128 = 2^30 multiply-adds for the dense reference (limit 2^32): seconds on the CPU.
log_at=$(stat -c %s "$LOG")
if run 90 "$HCPSIM" run "$SCEN" model.seq_length=512 --emulate-ranks --check --format json; then
  checked="pass"; else checked="FAIL"; status=1; fi
# The JSON object this command printed to the log (after byte log_at): keep it as check.json.
python3 - "$LOG" "$RES/check.json" "$log_at" <<'PY'
import json, sys
text = open(sys.argv[1], errors="replace").read()[int(sys.argv[3]):]
start = text.rfind("\n{\n")
try:
    j = json.loads(text[start + 1:text.index("\n}\n", start) + 2])
except ValueError:
    j = {"error": "no JSON from run --check (see log.txt)"}
json.dump(j, open(sys.argv[2], "w"), indent=2)
PY

step "prediction with this calibration, and compare"
run 60 "$HCPSIM" simulate "$SCEN" "cluster.calibration=$RES/calib.yaml" --backend analytic \
  --trace "$RES/predicted.json" || status=1
"$HCPSIM" compare "$RES/predicted.json" "$RES/measured.json" --format json > "$RES/compare.json" 2>> "$LOG" || status=1

step "summary"
python3 - "$RES" "$LOG" "$tests" "$sanitizer" "$checked" <<'PY' | tee "$RES/summary.txt"
import csv, json, os, re, sys
res, log, tests, sanitizer, checked = sys.argv[1:6]
ours = {}
for line in open(log, errors="replace"):
    m = re.match(r"(forward|backward)\s+(causal|none)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", line)
    if m and m.group(4) == m.group(5) and m.group(6) == "16" and m.group(7) == "16":
        ours[(m.group(1), m.group(2), m.group(3), m.group(4))] = float(m.group(9))
nccl = next((l.strip() for l in open(log, errors="replace") if l.startswith("NCCL ") or "libnccl" in l), "NCCL: not used")
print(f"kernel tests: {tests}; compute-sanitizer: {sanitizer}; {nccl}")
try:
    c = json.load(open(os.path.join(res, "check.json")))["check"]
    print(f"run --check ({checked}): max relative error {c['max_rel_error']:.3g} (O {c['out']:.3g}, dQ {c['dq']:.3g}, "
          f"dK {c['dk']:.3g}, dV {c['dv']:.3g}; tolerance {c['tolerance']:.0e}; tiles {c.get('tiles', '?')})")
except (OSError, KeyError, ValueError, TypeError):
    print(f"run --check ({checked}): no result (see log.txt)")
print(f"{'pass':9} {'mask':7} {'d':>4} {'n':>6} {'ours TF/s':>10} {'SDPA TF/s':>10} {'ratio':>6}  SDPA backend")
try:
    for r in csv.DictReader(open(os.path.join(res, "sdpa.csv"))):
        k = (r["pass"], r["mask"], r["head_dim"], r["q_len"])
        o, s = ours.get(k), float(r["tflops"])
        ratio = f"{o / s:.2f}" if o else "-"
        print(f"{k[0]:9} {k[1]:7} {k[2]:>4} {k[3]:>6} {o if o else '-':>10} {s:>10.1f} {ratio:>6}  {r.get('backend', '?')}")
except (OSError, KeyError, ValueError) as e:
    print(f"SDPA: no result ({e})")
try:
    j = json.load(open(os.path.join(res, "compare.json")))
    print("predicted vs measured (emulated scenario), relative error by kind:")
    for kind, st in sorted(j["by_kind"].items()):
        print(f"  {kind:20} n={st['count']:4} mean {st['mean_rel_error']*100:+6.1f}%  max {st['max_rel_error']*100:+6.1f}%")
except (OSError, KeyError, ValueError):
    print("compare: no result (see log.txt)")
PY
echo "total $(( $(date +%s) - t0 )) s; $(ls "$RES" | wc -l) files in $RES"
exit $status
