#!/usr/bin/env bash
# Runs one libFuzzer target for a while: tools/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]
# TARGET: wire | onnx_model | tensor | onemodel_file | whg1 | session (fuzz/targets.h). The corpus lives in the cache, outside the
# repository ($ONEMODEL_CACHE/fuzz/<target>, default ~/.cache/onemodel), seeded on first use from the sample
# models and the ONNX backend test data. Crashes land in build/fuzz/crashes/<target>/;
# once fixed, copy each into fuzz/regressions/<target>/ so the unit tests replay it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: tools/fuzz.sh TARGET SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
target=$1 seconds=$2
shift 2
case "$target" in wire | onnx_model | tensor | onemodel_file | whg1 | session) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
tools/setup.sh >&2
dir=$(tools/build-native.sh fuzz "fuzz_$target" onemodel_cli)
corpus="${ONEMODEL_CACHE:-$HOME/.cache/onemodel}/fuzz/$target"
if [ ! -d "$corpus" ]; then
  mkdir -p "$corpus"
  data=/usr/share/libonnx-testdata/data
  n=0
  if [ "$target" = tensor ]; then
    for f in "$data"/node/*/test_data_set_0/*.pb; do cp "$f" "$corpus/seed-$((n++))"; done
  elif [ "$target" = onemodel_file ]; then
    for f in examples/models/*.onnx "$data"/node/*/model.onnx; do
      "$dir/onemodel" convert "$f" "$corpus/seed-$((n++))" >/dev/null 2>&1 || rm -f "$corpus/seed-$((n - 1))"
    done
  elif [ "$target" = whg1 ]; then
    # The graphs of the wai-ops/1 vector files (hex in each line's "graph" field).
    n=$(/usr/bin/python3 -c '
import glob, json, sys
n = 0
for path in sorted(glob.glob("testdata/wai/*.jsonl")):
    for line in open(path):
        graph = json.loads(line).get("graph")
        if graph:
            open(f"{sys.argv[1]}/seed-{n}", "wb").write(bytes.fromhex(graph))
            n += 1
print(n)' "$corpus")
  else
    for f in examples/models/*.onnx "$data"/node/*/model.onnx "$data"/simple/*/model.onnx; do
      cp "$f" "$corpus/seed-$((n++))"
    done
  fi
  echo "seeded $corpus with $n files" >&2
fi
mkdir -p "$dir/crashes/$target"
echo "fuzzing $target for $seconds s (corpus $corpus)" >&2
"$dir/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 -timeout=30 \
  -artifact_prefix="$dir/crashes/$target/" "$@" "$corpus"
