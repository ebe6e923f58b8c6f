#!/usr/bin/env bash
# Set-up + the whole test suite (unit, golden, numerics, GUI offscreen; GPU tests skip without a GPU),
# then the malformed-input set again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
(cd build && ctest --output-on-failure --no-tests=error -j"$(nproc)" "$@")
if [ -x scripts/test-sanitizers.sh ]; then
  ./scripts/test-sanitizers.sh
fi
