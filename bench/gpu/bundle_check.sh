#!/usr/bin/env bash
# Proves a bundle portable: every executable and library in OUT/bin resolves each library it needs
# inside the bundle or among those a bare CUDA machine has (glibc's libc, libm, libdl, libpthread,
# librt and loader, libstdc++, libgcc_s, the CUDA driver and runtime), with LD_LIBRARY_PATH empty;
# the bundle is at most MAX_MIB (default 64) MiB; every executable starts (--version or --help); the
# newest GLIBC_ and GLIBCXX_ symbol versions any file needs are at most MAX_GLIBC / MAX_GLIBCXX
# (default 2.35 and 3.4.30: Ubuntu 22.04's glibc and its libstdc++6, built from GCC 12), written to
# OUT/needs.tsv, which check.sh compares with the machine it runs on.
#   usage: bench/gpu/bundle_check.sh OUT [MAX_MIB]     (environment: MAX_GLIBC, MAX_GLIBCXX)
set -uo pipefail
out=$(cd "$1" && pwd)
max_mib=${2:-64}
status=0
allowed() {
  case "$(basename "$1")" in
    linux-vdso.so*|ld-linux*.so*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*) return 0 ;;
    libcuda.so*|libcudart.so*|libnvidia-*.so*) return 0 ;;
  esac
  return 1
}
checked=0
for f in "$out"/bin/* "$out"/bin/lib/*.so*; do
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  while read -r line; do
    name=$(awk '{print $1}' <<< "$line")
    case "$line" in
      *"not found"*)
        if allowed "$name"; then continue; fi   # e.g. no CUDA driver on this machine
        echo "NOT PORTABLE: $(basename "$f") needs $name: not found"; status=1 ;;
      *"=>"*)
        path=$(awk '{print $3}' <<< "$line")
        [ -n "$path" ] || continue
        case "$path" in "$out"/*) continue ;; esac
        allowed "$name" && continue
        echo "NOT PORTABLE: $(basename "$f") takes $name from $path (outside the bundle)"; status=1 ;;
    esac
  done < <(LD_LIBRARY_PATH= ldd "$f" 2>&1 | grep -v "statically linked")
done
[ "$checked" -gt 0 ] || { echo "NOT A BUNDLE: nothing in $out/bin"; exit 1; }
# Symbol versions: the newest of each family that some file of the bundle needs (undefined symbols).
newest() { grep -ho "$1_[0-9][0-9.]*" "$versions" | sed "s/^$1_//" | sort -uV | tail -1; }
versions=$(mktemp)
for f in "$out"/bin/* "$out"/bin/lib/*.so*; do
  [ -f "$f" ] && objdump -T "$f" 2>/dev/null | awk '/\*UND\*/' >> "$versions"
done
need_glibc=$(newest GLIBC)
need_glibcxx=$(newest GLIBCXX)
rm -f "$versions"
printf 'needs_glibc\t%s\nneeds_glibcxx\t%s\n' "${need_glibc:-none}" "${need_glibcxx:-none}" > "$out/needs.tsv"
max_glibc=${MAX_GLIBC:-2.35}
max_glibcxx=${MAX_GLIBCXX:-3.4.30}
echo "symbol versions needed: GLIBC_${need_glibc:-none} (at most $max_glibc), GLIBCXX_${need_glibcxx:-none} (at most $max_glibcxx)"
above() { [ -n "$1" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" != "$2" ]; }
for pair in "GLIBC $need_glibc $max_glibc" "GLIBCXX $need_glibcxx $max_glibcxx"; do
  set -- $pair
  if above "${2:-}" "$3"; then
    echo "TOO NEW: the bundle needs $1_$2, above the limit $1_$3: $(for f in "$out"/bin/* "$out"/bin/lib/*.so*; do
      [ -f "$f" ] && objdump -T "$f" 2>/dev/null | grep "($1_$2)" > /dev/null && basename "$f"; done | tr '\n' ' ')"
    status=1
  fi
done
size_kib=$(du -sk "$out" | cut -f1)
if [ "$size_kib" -gt $((max_mib * 1024)) ]; then
  echo "TOO BIG: $((size_kib / 1024)) MiB > $max_mib MiB"; status=1
fi
for exe in "$out"/bin/*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  if ! LD_LIBRARY_PATH= "$exe" --version > /dev/null 2>&1 && ! LD_LIBRARY_PATH= "$exe" --help > /dev/null 2>&1; then
    echo "DOES NOT START: $(basename "$exe")"; LD_LIBRARY_PATH= "$exe" --help 2>&1 | tail -3; status=1
  fi
done
[ $status -eq 0 ] && echo "portable: $checked files resolve inside the bundle or from the allowed system libraries; $((size_kib / 1024)) MiB <= $max_mib MiB"
exit $status
