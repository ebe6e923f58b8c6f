#!/usr/bin/env bash
# Set-up + the main job: predicts the default scenario (a whole Llama-3-70B training job that fits on
# 64 H100) with the SimGrid backend, then asks the planner for its three best layouts. Builds only the
# hcpsim program (no tests, GUI or CUDA code) in its own folder build-main/, so a first prediction
# comes within minutes; ./scripts/test.sh builds everything in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
HCPSIM_BUILD_DIR=build-main \
  HCPSIM_CMAKE_ARGS="-DHCPSIM_WITH_GUI=OFF -DHCPSIM_WITH_CUDA=OFF -DHCPSIM_BUILD_BENCH=OFF ${HCPSIM_CMAKE_ARGS:-}" \
  HCPSIM_BUILD_TARGETS=hcpsim ./scripts/setup.sh
./build-main/cli/hcpsim simulate scenarios/llama3-70b-64k-dgx-h100-train.yaml "$@"
echo
echo "The planner's three best layouts for the same job (64 GPUs, analytic backend):"
./build-main/cli/hcpsim plan scenarios/llama3-70b-64k-dgx-h100-train.yaml --top 3 2>/dev/null
