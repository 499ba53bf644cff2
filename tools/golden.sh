#!/usr/bin/env bash
# Cross-target golden hashes: computes the exact-mode hash lines on every row this machine can run and compares each
# row with testdata/golden-exact.txt. Rows: native scalar/v128/avx2/avx512 at 1 and 2 threads, arm64 scalar and
# NEON (with and without the dot product) under qemu, wasm scalar and v128 in Node, wasm v128 in headless Chromium.
#   tools/golden.sh            check every row (builds must exist: tools/test.sh makes them)
#   tools/golden.sh --print    print the lines of the native scalar row (the file's content, for review)
set -uo pipefail
cd "$(dirname "$0")/.."
golden=testdata/golden-exact.txt
# The sample models and one graph per operator family (tools/models/make_golden_models.py).
models=(examples/models/classifier examples/models/scorer examples/models/wide
  testdata/golden-models/elementwise testdata/golden-models/shape testdata/golden-models/norms
  testdata/golden-models/int8 testdata/golden-models/activations testdata/golden-models/indexing
  testdata/golden-models/training testdata/golden-models/linalg testdata/golden-models/scatter10)
# The real models of tools/real-models.tsv, on the inputs tools/oracle/real-models.mjs recorded (both in the cache).
# A model recorded on several cases (docs/models.md) gives lines model/<name>/<case>/<output>, each case run alone
# on its recorded inputs (a chained case on the state ONNX Runtime returned for the case before it).
real_models=(cls det melspectrogram wake-embedding silero-vad-legacy silero-vad-v5)
cache="${ONEMODEL_CACHE:-$HOME/.cache/onemodel}"
for m in "${real_models[@]}"; do
  [ -f "$cache/oracle/$m/manifest.tsv" ] || {
    echo "golden: real model $m is not in $cache: run tools/fetch-models.sh && node tools/oracle/real-models.mjs" >&2
    exit 1
  }
done

# The recorded cases of a real model in order: one empty line for a model recorded on one case.
real_cases() {
  awk -F'\t' '!/^#/ && NF && !seen[$6]++ { print $6 }' "$cache/oracle/$1/manifest.tsv"
}

# The --input flags of a real model's recorded inputs for case $2.
real_inputs() {
  awk -F'\t' -v dir="$cache/oracle/$1" -v c="$2" '$1 == "input" && $6 == c {
    printf "--input\n%s=%s/%sinput-%s.npy\n", $3, dir, (c == "" ? "" : c "/"), $2 }' "$cache/oracle/$1/manifest.tsv"
}

# lines RUNNER... : the kernel lines and the model lines of one row; RUNNER runs the onemodel CLI.
lines() {
  local kernels=$1 threads=$2
  shift 2
  "$@" golden-kernels --kernels "$kernels" --threads "$threads" || return 1
  for m in "${models[@]}"; do
    "$@" run "$m.onnx" --mode exact --hash --kernels "$kernels" --threads "$threads" |
      sed "s|^|model/$(basename "$m")/|" || return 1
  done
  local m c cases inputs
  for m in "${real_models[@]}"; do
    mapfile -t cases < <(real_cases "$m")
    for c in "${cases[@]}"; do
      mapfile -t inputs < <(real_inputs "$m" "$c")
      "$@" run "$cache/models/$m.onnx" "${inputs[@]}" --mode exact --hash --kernels "$kernels" --threads "$threads" |
        sed "s|^|model/$m/${c:+$c/}|" || return 1
    done
  done
  # The WHG1 integer graphs (docs/wai-ops.md): one hash per output of each decode; kernels and threads do not
  # apply to them, so every row must give the same lines by construction.
  "$@" wai run testdata/wai/golden.jsonl --hash || return 1
}

native_cli=(build/native/onemodel)
arm64_cli=(qemu-aarch64 -L /usr/aarch64-linux-gnu build/arm64/onemodel)
wasm_cli=(node npm/bin/onemodel.mjs)

if [ "${1:-}" = "--print" ]; then
  lines scalar 1 "${native_cli[@]}"
  exit
fi

ok=0
bad=0
check_row() {
  local row=$1
  shift
  local out
  if ! out=$("$@" 2>&1); then
    echo "FAIL $row: the row did not run"
    echo "$out" | tail -5 | sed 's/^/    /'
    bad=$((bad + 1))
    return
  fi
  if diff <(echo "$out") <(grep -v "^#" "$golden") > /tmp/golden-diff.$$; then
    echo "ok   $row ($(echo "$out" | wc -l) hashes equal)"
    ok=$((ok + 1))
  else
    echo "FAIL $row differs from $golden:"
    sed 's/^/    /' /tmp/golden-diff.$$ | head -20
    bad=$((bad + 1))
  fi
  rm -f /tmp/golden-diff.$$
}

cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo)
for path in scalar v128 avx2 avx512; do
  case $path in
    avx2) grep -qw avx2 <<<"$cpu_flags" || { echo "SKIP native $path: this CPU has no AVX2 (row not run)"; continue; } ;;
    avx512) grep -qw avx512bw <<<"$cpu_flags" || { echo "SKIP native $path: this CPU has no AVX-512 (row not run)"; continue; } ;;
  esac
  for threads in 1 2; do check_row "native-$path-t$threads" lines $path $threads "${native_cli[@]}"; done
done
for path in scalar v128; do check_row "arm64-$path (qemu)" lines $path 1 "${arm64_cli[@]}"; done
# qemu's default CPU has the dot product, so the row above runs the int8 SDOT kernel; this one the NEON pair kernel.
check_row "arm64-v128-no-dotprod (qemu cortex-a57)" lines v128 1 env QEMU_CPU=cortex-a57 "${arm64_cli[@]}"
for path in scalar v128; do check_row "wasm-node-$path" lines $path 1 "${wasm_cli[@]}"; done
check_row "wasm-chromium-v128" node js-tests/browser/golden-chromium.mjs

echo "golden rows: $ok passed, $bad failed"
((bad == 0))
