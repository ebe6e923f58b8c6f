#!/usr/bin/env bash
# Assembles a portable bundle from built executables: OUT/bin/<each executable> with every shared
# library it needs that a bare CUDA machine may lack copied into OUT/bin/lib, RPATH $ORIGIN/lib on
# the executables and $ORIGIN on the libraries (DT_RPATH, so that it also serves indirect
# dependencies); debug information stripped (symbols kept for backtraces). Left outside, as the
# target machine has them: glibc (libc, libm, libdl, libpthread, librt, the loader), libstdc++,
# libgcc_s and the CUDA driver.
#   usage: bench/gpu/bundle_assemble.sh OUT EXECUTABLE...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT EXECUTABLE..." >&2; exit 2; }
command -v patchelf > /dev/null || { echo "bundle: patchelf is missing (apt install patchelf)" >&2; exit 1; }
out=$1
shift
mkdir -p "$out/bin/lib"
# Libraries resolved from the target machine (bundle_check.sh allows these). The CUDA runtime is
# allowed outside too but shipped all the same (under 1 MiB): PyTorch machines often have it only
# inside Python wheels, off the loader's path.
system_lib() {
  case "$(basename "$1")" in
    linux-vdso.so*|ld-linux*.so*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*) return 0 ;;
    libcuda.so*|libnvidia-*.so*) return 0 ;;
  esac
  return 1
}
for exe in "$@"; do
  [ -x "$exe" ] || { echo "bundle: $exe is not an executable" >&2; exit 1; }
  cp -f "$exe" "$out/bin/"
  # ldd lists the whole closure (indirect dependencies too).
  while read -r name _ path _; do
    [ "$path" = "not" ] && { echo "bundle: $exe needs $name, which is not found here" >&2; exit 1; }
    [ -n "$path" ] && [ -f "$path" ] || continue
    system_lib "$name" && continue
    [ -f "$out/bin/lib/$name" ] || cp -fL "$path" "$out/bin/lib/$name"
  done < <(LD_LIBRARY_PATH= ldd "$exe" | awk '$2 == "=>" { print $1, $2, $3, $4 }')
  strip --strip-debug "$out/bin/$(basename "$exe")"
  patchelf --force-rpath --set-rpath '$ORIGIN/lib' "$out/bin/$(basename "$exe")"
done
for lib in "$out"/bin/lib/*.so*; do
  [ -f "$lib" ] || continue
  chmod u+w "$lib"
  strip --strip-debug "$lib"
  patchelf --force-rpath --set-rpath '$ORIGIN' "$lib"
done
echo "bundle: $(ls "$out/bin" | grep -cv '^lib$') executables, $(ls "$out/bin/lib" | wc -l) libraries, $(du -sm "$out" | cut -f1) MiB in $out"
