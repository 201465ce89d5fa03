#!/usr/bin/env bash
# The main job. Until the prover lands this is the arithmetic benchmark: field, curve
# and pairing operations on this machine, printed as a table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bench/cuzk-bench arith --benchmark_min_time=0.2 "$@"
