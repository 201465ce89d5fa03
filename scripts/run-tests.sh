#!/usr/bin/env bash
# The test command: installs dependencies, checks formatting, builds, and runs every test that
# this machine can run (labels unit, slow and interop; gpu tests skip themselves when there is no GPU),
# then the engine and daemon tests again under ThreadSanitizer and AddressSanitizer + UBSan.
# CUZK_SKIP_SANITIZERS=1 leaves out the sanitizer builds (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
scripts/build.sh
# interop: snarkjs (npm ci into build/interop-npm) and Curio's client against cuzk.
ctest --test-dir build --output-on-failure -j "$(nproc)" -L 'unit|slow|gpu|interop'
if [ "${CUZK_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitizer-tests.sh thread address
fi
