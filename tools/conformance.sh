#!/usr/bin/env bash
# Runs the ONNX backend conformance cases in fast and exact mode with an already built CLI, regenerates
# docs/conformance.md, and checks the results: any `fail`, or fewer passes than testdata/conformance-baseline.txt
# records, makes it exit non-zero. --update-baseline raises the recorded pass counts to this run's (never lowers them).
#
#   tools/conformance.sh PATH/TO/onemodel [--update-baseline] [--data DIR]
set -euo pipefail

usage() {
  echo "usage: $0 PATH/TO/onemodel [--update-baseline] [--data DIR]" >&2
  exit 2
}

repo=$(cd "$(dirname "$0")/.." && pwd)
data=/usr/share/libonnx-testdata/data
baseline="$repo/testdata/conformance-baseline.txt"
cli=""
update=0
while [ $# -gt 0 ]; do
  case "$1" in
    --update-baseline) update=1 ;;
    --data) [ $# -ge 2 ] || usage; data=$2; shift ;;
    -*) usage ;;
    *) [ -z "$cli" ] || usage; cli=$1 ;;
  esac
  shift
done
[ -n "$cli" ] || usage
[ -x "$cli" ] || { echo "conformance: $cli is not an executable (build the CLI first)" >&2; exit 2; }
[ -d "$data" ] || { echo "conformance: no test data at $data (Debian package libonnx-testdata)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok=1
declare -A passes
for mode in fast exact; do
  rc=0
  "$cli" conformance "$data" --mode "$mode" --json "$work/$mode.json" >"$work/$mode.txt" || rc=$?
  # 1 means some case failed (reported below); anything else means the run itself did not complete.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "conformance: the $mode run stopped with status $rc" >&2
    exit 2
  fi
  passes[$mode]=$(awk '$1 == "pass" { print $2 }' "$work/$mode.txt")
  fails=$(awk '$1 == "fail" { print $2 }' "$work/$mode.txt")
  echo "conformance $mode: $(awk '$1 ~ /^(cases|pass|fail|unsupported-op|unsupported-type|not-exact|known-diff)$/ { printf "%s %s  ", $1, $2 }' "$work/$mode.txt")"
  if [ "$fails" != 0 ]; then
    grep '^FAIL ' "$work/$mode.txt" | sed "s/^/  $mode /" >&2
    ok=0
  fi
done

mkdir -p "$repo/docs"
"$cli" conformance-report "$work/fast.json" "$work/exact.json" >"$repo/docs/conformance.md"
echo "conformance: wrote docs/conformance.md"

recorded() { # the baseline's pass count for a mode, 0 when absent
  if [ -f "$baseline" ]; then awk -v m="$1" '$1 == m { print $2; found = 1 } END { if (!found) print 0 }' "$baseline"; else echo 0; fi
}
for mode in fast exact; do
  base=$(recorded "$mode")
  if [ "${passes[$mode]}" -lt "$base" ]; then
    echo "conformance: $mode mode passes ${passes[$mode]} cases, below the baseline of $base" >&2
    ok=0
  fi
done

if [ "$update" = 1 ]; then
  {
    for mode in fast exact; do
      base=$(recorded "$mode")
      echo "$mode $(( passes[$mode] > base ? passes[$mode] : base ))"
    done
  } >"$work/baseline"
  mkdir -p "$(dirname "$baseline")"
  mv "$work/baseline" "$baseline"
  echo "conformance: baseline now $(tr '\n' ' ' <"$baseline")"
fi

[ "$ok" = 1 ] || { echo "conformance: FAILED" >&2; exit 1; }
echo "conformance: ok"
