#!/usr/bin/env bash
# CTest (label bundle): the bundle machinery of bench/gpu/ proven without CUDA, on a reduced bundle
# of this build's hcpsim-mpi and test_runner (the full one, bench/gpu/bundle.sh, needs a Release
# CUDA build: too slow for CI). Checks that
#   1. bundle_assemble.sh + bundle_check.sh: every file resolves inside the bundle or from the
#      allowed system libraries with LD_LIBRARY_PATH empty, under 64 MiB, every executable starts;
#   2. the bundled hcpsim-mpi runs a scenario on 4 MPI ranks with --check (RPATH really used);
#   3. a bundle missing one of its libraries is reported NOT PORTABLE, naming it;
#   4. the newest GLIBC_/GLIBCXX_ versions needed are written to needs.tsv, and a limit below them
#      (MAX_GLIBC=2.17) fails the check naming the version and a file that needs it.
#   usage: bundle_test.sh SOURCE_DIR WORK_DIR HCPSIM_MPI TEST_RUNNER
set -uo pipefail
src=$1 work=$2 mpi_exe=$3 runner=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
"$src/bench/gpu/bundle_assemble.sh" "$work" "$mpi_exe" "$runner" || fail "assemble"
# This reduced bundle carries Debian 12's Open MPI stack (libevent needs GLIBC_2.36), which the real
# bundle does not: its glibc limit is this machine's, the real bundle's is Ubuntu 22.04's (2.35).
export MAX_GLIBC=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
"$src/bench/gpu/bundle_check.sh" "$work" 64 || fail "the reduced bundle is not portable"
grep -qE '^needs_glibc	2\.[0-9]+$' "$work/needs.tsv" || { cat "$work/needs.tsv"; fail "needs.tsv has no glibc version"; }
grep -qE '^needs_glibcxx	3\.4\.[0-9]+$' "$work/needs.tsv" || { cat "$work/needs.tsv"; fail "needs.tsv has no GLIBCXX version"; }
if out=$(MAX_GLIBC=2.17 "$src/bench/gpu/bundle_check.sh" "$work" 64 2>&1); then
  echo "$out"; fail "bundle_check.sh passed with MAX_GLIBC=2.17"
fi
echo "$out" | grep -qE "TOO NEW: the bundle needs GLIBC_2\.[0-9]+, above the limit GLIBC_2\.17: [a-z]" ||
  { echo "$out"; fail "bundle_check.sh did not name the glibc version and a file"; }
for lib in libyaml-cpp libmpi.so; do
  ls "$work/bin/lib" | grep -q "^$lib" || fail "$lib was not collected into the bundle"
done
launcher=(mpirun --oversubscribe -np 4)
[ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
# Containers often deny the ptrace rights that shared-memory single copies need (CMA): copy in/out.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(cd "$work" && LD_LIBRARY_PATH= timeout 120 "${launcher[@]}" "$work/bin/hcpsim-mpi" -q run \
      "$src/tests/runner/cpu-small.yaml" --device cpu --check 2>&1) || { echo "$out"; fail "bundled hcpsim-mpi failed"; }
echo "$out" | grep "check: max relative error" || fail "no check line from the bundled hcpsim-mpi"
victim=$(ls "$work/bin/lib" | grep '^libyaml-cpp' | head -1)
rm -f "$work/bin/lib/$victim"
if out=$("$src/bench/gpu/bundle_check.sh" "$work" 64 2>&1); then
  echo "$out"; fail "bundle_check.sh passed a bundle without $victim"
fi
echo "$out" | grep -q "NOT PORTABLE: .*$victim" || { echo "$out"; fail "bundle_check.sh did not name $victim"; }
echo "ok: reduced bundle portable; a missing $victim is caught"
