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

# Emscripten runs its clang through ccache when one is installed (see build-native.sh).
if command -v ccache > /dev/null; then
  export EM_COMPILER_WRAPPER=ccache CCACHE_BASEDIR="$root"
fi
run emcmake cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
run ninja -C "$build" -j "${ONEMODEL_JOBS:-2}" onemodel_npm
echo "build-wasm: npm/dist now holds:"
ls -l "$root/npm/dist"
