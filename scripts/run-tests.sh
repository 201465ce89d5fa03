#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test that this machine
# can run (labels unit and slow; gpu tests skip themselves when there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" -L 'unit|slow|gpu'
