#!/usr/bin/env bash
# Set-up + the main job: predicts the default scenario with the SimGrid backend.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./build/cli/hcpsim simulate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml "$@"
