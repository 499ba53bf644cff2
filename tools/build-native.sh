#!/usr/bin/env bash
# Configures and builds one native flavour: tools/build-native.sh [release|sanitize|arm64]. Prints the build dir.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
jobs=${ONEMODEL_JOBS:-2}
case "$flavour" in
  release) dir=build/native; extra=() ;;
  sanitize) dir=build/sanitize; extra=(-DONEMODEL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  arm64) dir=build/arm64; extra=(-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake) ;;
  *) echo "unknown flavour $flavour" >&2; exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >&2
fi
ninja -C "$dir" -j "$jobs" >&2
echo "$dir"
