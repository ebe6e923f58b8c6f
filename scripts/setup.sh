#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), configures and builds hcpsim into build/.
# Idempotent: with everything present it only runs an incremental build.
# HCPSIM_BUILD_DIR (default build), HCPSIM_CMAKE_ARGS (first configure only) and
# HCPSIM_BUILD_TARGETS (default: everything) choose what is built.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ cmake ninja-build pkg-config libgtest-dev libbenchmark-dev
  libsimgrid-dev libboost-graph-dev libyaml-cpp-dev
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev qt6-qpa-plugins
  libcli11-dev nlohmann-json3-dev zlib1g-dev libisal-dev libopenmpi-dev openmpi-bin libjemalloc-dev libsqlite3-dev patchelf
  xvfb xauth x11-utils fonts-dejavu-core)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${#missing[@]} missing packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${HCPSIM_BUILD_DIR:-build}
BUILD_TYPE=${HCPSIM_BUILD_TYPE:-RelWithDebInfo}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" ${HCPSIM_CMAKE_ARGS:-}
fi
# shellcheck disable=SC2086  # targets are a space-separated list
cmake --build "$BUILD_DIR" -j"$(nproc)" ${HCPSIM_BUILD_TARGETS:+--target $HCPSIM_BUILD_TARGETS}
