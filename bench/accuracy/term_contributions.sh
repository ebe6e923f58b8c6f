#!/usr/bin/env bash
# What each cost-model term contributes on the ring cases (docs/metrics.md section 9.6): runs each
# case with every term off, with one term alone on, and with the defaults, and prints one Markdown
# row per case: attention forward ms / attention backward ms / step s (analytic backend).
#   bench/accuracy/term_contributions.sh [BUILD_DIR] [TERM ...]
# BUILD_DIR defaults to build/; TERMs default to every term of cluster.efficiency.model_terms.
# A case is a scenario file or a validation/published case (its inline `scenario:` is used).
# HCPSIM_TERM_BUT="X Y" adds columns "all on but X" (terms that replace another's effect, such as
# nccl_p2p_channels replacing the fitted network send/recv ratio of bandwidth_curves, show there).
# Needs python3 with PyYAML (python3-yaml) to read the case files. Exit 2 when it cannot run.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
if [[ $# -gt 0 && -d "$1" ]]; then build="$(cd "$1" && pwd)"; shift; fi
hcpsim="$build/cli/hcpsim"
[[ -x "$hcpsim" ]] || { echo "term_contributions: $hcpsim not built" >&2; exit 2; }
terms=("$@")
if [[ ${#terms[@]} -eq 0 ]]; then
  terms=(comm_compute_interference bandwidth_curves host_overheads memory_operators attention_shapes
         nccl_rails nccl_ring_latency nccl_protocols)
fi
cases=(scenarios/llama3-8b-64k-dgx-h100-p2p.yaml scenarios/llama3-405b-128k-dgx-h100-p2p.yaml
       validation/published/dfa-llama7b-1x8-ring-128k.yaml validation/published/dfa-llamagqa-2x8-ring-128k.yaml)
[[ -n "${HCPSIM_TERM_CASES:-}" ]] && read -r -a cases <<<"$HCPSIM_TERM_CASES"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# scenario_of CASE -> a scenario file (the case's inline scenario for validation/published cases)
scenario_of() {
  local f="$root/$1"
  if grep -q '^scenario:' "$f"; then
    local out="$work/$(basename "$f")"
    python3 - "$f" "$out" <<'PY'
import sys, yaml
case = yaml.safe_load(open(sys.argv[1]))
yaml.safe_dump(case["scenario"], open(sys.argv[2], "w"))
PY
    echo "$out"
  else
    echo "$f"
  fi
}

# cell FILE OVERRIDES... -> "fwd_ms / bwd_ms / step_s"
cell() {
  local file="$1"; shift
  "$hcpsim" -q simulate "$file" --backend analytic --format json "$@" > "$work/out.json"
  python3 - "$work/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{d['attention']['forward_s']*1e3:.2f} / {d['attention']['backward_s']*1e3:.2f} / {d['step']['time_s']:.3f}")
PY
}

header="| case | all off |"
rule="|---|---|"
read -r -a but <<<"${HCPSIM_TERM_BUT:-}"
for t in "${terms[@]}"; do header+=" only $t |"; rule+="---|"; done
for t in "${but[@]}"; do header+=" all on but $t |"; rule+="---|"; done
echo "$header all on |"
echo "$rule---|"
for c in "${cases[@]}"; do
  f="$(scenario_of "$c")"
  row="| $(basename "$c" .yaml) | $(cell "$f" cluster.efficiency.model_terms.all=off) |"
  for t in "${terms[@]}"; do
    row+=" $(cell "$f" cluster.efficiency.model_terms.all=off "cluster.efficiency.model_terms.$t=on") |"
  done
  for t in "${but[@]}"; do
    row+=" $(cell "$f" "cluster.efficiency.model_terms.$t=off") |"
  done
  echo "$row $(cell "$f") |"
done
