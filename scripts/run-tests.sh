#!/usr/bin/env bash
# The test command: installs dependencies, checks formatting, builds, and runs every test that
# this machine can run (labels unit, slow and interop; gpu tests skip themselves when there is no GPU),
# then the engine and daemon tests again under ThreadSanitizer and AddressSanitizer + UBSan.
# Prints each phase's wall time at the end (also when a phase fails), with the tests' seconds by
# label, and warns loudly past the 45-minute budget (CUZK_TIME_BUDGET_MIN).
# CUZK_SKIP_SANITIZERS=1 leaves out the sanitizer builds (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/phase-times.sh
. scripts/phase-times.sh
CUZK_PHASE_LOG=$(mktemp)
export CUZK_PHASE_LOG
label_times=$(mktemp)
finish() {
  cat "$label_times"
  print_phase_times
  rm -f "$CUZK_PHASE_LOG" "$label_times"
}
trap finish EXIT

phase "dependencies" scripts/install-deps.sh
phase "format check" scripts/check-format.sh
phase "configure and build" scripts/build.sh
# interop: snarkjs (npm ci into build/interop-npm) and Curio's client against cuzk.
junit=build/Testing/ctest-junit.xml
ctest_rc=0
phase "ctest (unit, slow, gpu, interop)" ctest --test-dir build --output-on-failure -j "$(nproc)" \
  -L 'unit|slow|gpu|interop' --output-junit "$PWD/$junit" || ctest_rc=$?
if [ -f "$junit" ]; then
  python3 scripts/ctest-label-times.py build "$junit" >"$label_times" 2>&1 || true
fi
[ "$ctest_rc" = 0 ] || exit "$ctest_rc"
if [ "${CUZK_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitizer-tests.sh thread address
fi
