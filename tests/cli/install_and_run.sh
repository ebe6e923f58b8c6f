#!/usr/bin/env bash
# Installs the build into a temporary prefix and predicts the default scenario from there, outside
# the source tree: the installed hcpsim must find its presets under PREFIX/share/hcpsim/hardware and
# its example scenarios under PREFIX/share/hcpsim/scenarios.
# usage: install_and_run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
prefix=$(mktemp -d /tmp/hcpsim-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > "$prefix.log"
for f in bin/hcpsim share/hcpsim/hardware/dgx-h100.yaml share/hcpsim/scenarios/llama3-70b-128k-dgx-h100-hcp.yaml \
         share/doc/hcpsim/architecture.md; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f was not installed"; cat "$prefix.log"; exit 1; }
done
rm -f "$prefix.log"
cd "$prefix"
unset HCPSIM_HARDWARE_DIR
env -u HCPSIM_HARDWARE_DIR "$prefix/bin/hcpsim" -v simulate share/hcpsim/scenarios/llama3-70b-128k-dgx-h100-hcp.yaml \
  --backend analytic > report.txt 2> stderr.txt || { echo "FAIL: installed hcpsim exited $?"; cat stderr.txt; exit 1; }
grep -q "presets: $prefix/share/hcpsim/hardware" stderr.txt ||
  { echo "FAIL: the installed hcpsim did not use its own presets:"; cat stderr.txt; exit 1; }
grep -q "attention forward" report.txt || { echo "FAIL: no report"; cat report.txt; exit 1; }
echo "installed into $prefix and predicted the default scenario:"
head -3 report.txt
