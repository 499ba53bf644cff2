#!/usr/bin/env bash
# Builds the npm package (npm/dist/): the WebAssembly library and CLI with Emscripten, plus the JS API and its
# types. Idempotent: a second run only rebuilds what changed. Usage: tools/build-wasm.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/wasm}

run() {
  echo "+ $*"
  "$@"
}

run emcmake cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
run ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" onemodel_npm
echo "build-wasm: npm/dist now holds:"
ls -l "$root/npm/dist"
