#!/usr/bin/env bash
# The main job. Until the daemon lands this proves and verifies a synthetic PoRep-profile
# circuit of 2^16 constraints on the CPU (parameters are set up once and cached in
# params-cache/) and prints the per-phase table. Extra arguments go to `cuzk-bench prove`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/bench/cuzk-bench prove --constraints 65536 "$@"
