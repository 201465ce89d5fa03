#!/usr/bin/env bash
# The test command: installs dependencies, checks formatting, builds, and runs every test that
# this machine can run (labels unit and slow; gpu tests skip themselves when there is no GPU),
# then the engine and daemon tests again under ThreadSanitizer and AddressSanitizer + UBSan.
# CUZK_SKIP_SANITIZERS=1 leaves out the sanitizer builds (for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" -L 'unit|slow|gpu'
if [ "${CUZK_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitizer-tests.sh thread address
fi
