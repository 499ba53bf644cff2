#!/usr/bin/env bash
# Installs everything onemodel's build, tests and demo need, from Debian's packages and npm only. Idempotent: a
# second run installs nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ clang cmake ninja-build clang-format ccache
  emscripten libxsimd-dev libgtest-dev libbenchmark-dev nlohmann-json3-dev
  g++-aarch64-linux-gnu qemu-user
  chromium libonnx-testdata python3-onnx python3-numpy
  libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node 20 and npm may come from another packaging of nodejs that bundles npm; only a machine without them gets
# Debian's.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

# Dev-only npm packages (test runner, headless browser driver, ONNX Runtime as a black-box oracle), pinned in
# package-lock.json. onnxruntime-node's install script downloads things: its bundled CPU library works without it.
stamp=node_modules/.onemodel-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "setup: npm ci"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
else
  echo "setup: npm packages present"
fi
