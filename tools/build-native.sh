#!/usr/bin/env bash
# Configures and builds one native flavour: tools/build-native.sh [release|sanitize|tsan|fuzz|arm64] [TARGET...].
# Builds every target unless some are named. Prints the build dir.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
shift || true
jobs=${ONEMODEL_JOBS:-2}
env=()
no_debug_info=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG")
case "$flavour" in
  release) dir=build/native; extra=() ;;
  # The sanitizer builds compile at -O2 without debug information: -g does not change the code, and the ASan +
  # UBSan build is about a third of CI's time (a compile about 13 % faster without it). Reports name functions,
  # not lines; rebuild with -g to find one.
  sanitize) dir=build/sanitize; extra=(-DONEMODEL_SANITIZE=ON "${no_debug_info[@]}") ;;
  tsan) dir=build/tsan; extra=(-DONEMODEL_TSAN=ON "${no_debug_info[@]}") ;;
  # libFuzzer needs clang; Debian's libclang-rt-14-dev provides its runtime.
  fuzz) dir=build/fuzz; env=(CC=clang-14 CXX=clang++-14)
    extra=(-DONEMODEL_FUZZ=ON -DONEMODEL_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  arm64) dir=build/arm64; extra=(-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake) ;;
  *) echo "unknown flavour $flavour" >&2; exit 2 ;;
esac
# Debian's ccache (setup.sh installs it) turns a rebuild of unchanged sources, such as CI's clean clone on a machine
# that built them before, into cache hits; the base directory makes hits independent of where the clone lives.
launcher=()
if command -v ccache > /dev/null; then
  export CCACHE_BASEDIR="$PWD"
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$dir/build.ninja" ]; then
  env "${env[@]}" cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${extra[@]}" >&2
fi
ninja -C "$dir" -j "$jobs" "$@" >&2
echo "$dir"
