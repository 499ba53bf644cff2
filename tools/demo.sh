#!/usr/bin/env bash
# The main job: set up, build native and wasm, run the sample models through both, and show in one screen that
# the desktop and the browser computed the same bits in exact mode.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
echo "building native (build/native) ..."
tools/build-native.sh release > /dev/null
echo "building wasm (npm/dist) ..."
tools/build-wasm.sh > /tmp/onemodel-build-wasm.log 2>&1 || { cat /tmp/onemodel-build-wasm.log; exit 1; }

native=(build/native/onemodel)
wasm=(node npm/bin/onemodel.mjs)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -c "import numpy as np; np.save('$work/x.npy', np.array([[5.1, 3.5, 1.4, 0.2]], np.float32))"

echo
echo "== classifier.onnx, input [5.1, 3.5, 1.4, 0.2]: class probabilities"
for mode in fast exact; do
  printf '  native %-5s %s\n' "$mode" "$("${native[@]}" run examples/models/classifier.onnx --input "x=$work/x.npy" --mode $mode | sed 's/^probs F32 \[1,3\]: //')"
  printf '  wasm   %-5s %s\n' "$mode" "$("${wasm[@]}" run examples/models/classifier.onnx --input "x=$work/x.npy" --mode $mode | sed 's/^probs F32 \[1,3\]: //')"
done

echo
echo "== wide.onnx (256 -> 512 -> 64), exact mode: SHA-256 of the output bytes"
hashes=()
row() {
  local label=$1
  shift
  local h
  h=$("$@" | awk '{print $2}')
  printf '  %-28s %s\n' "$label" "$h"
  hashes+=("$h")
}
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for path in scalar v128 avx2 avx512; do
  case $path in
    avx2) grep -qw avx2 <<<"$flags" || { echo "  native $path: not on this CPU"; continue; } ;;
    avx512) grep -qw avx512bw <<<"$flags" || { echo "  native $path: not on this CPU"; continue; } ;;
  esac
  for t in 1 2; do
    row "native $path, $t thread(s)" "${native[@]}" run examples/models/wide.onnx --mode exact --hash --kernels $path --threads $t
  done
done
for path in scalar v128; do
  row "wasm in Node, $path" "${wasm[@]}" run examples/models/wide.onnx --mode exact --hash --kernels $path
done
row "wasm in Chromium, v128" node js-tests/browser/wide-hash-chromium.mjs

echo
distinct=$(printf '%s\n' "${hashes[@]}" | sort -u | wc -l)
if [ "$distinct" -eq 1 ]; then
  echo "ALL ${#hashes[@]} EXACT HASHES AGREE: desktop and browser computed the same bits (${hashes[0]:0:16}...)"
else
  echo "EXACT HASHES DIFFER ($distinct distinct values across ${#hashes[@]} rows): this is a bug"
  exit 1
fi
