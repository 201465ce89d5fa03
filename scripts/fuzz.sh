#!/usr/bin/env bash
# Runs the fuzz targets of tests/fuzz under libFuzzer with ASan and UBSan: configures a clang build
# in build-fuzz (CUDA off, CUZK_FUZZ=ON), builds the targets, runs each for SECONDS (default 30)
# on a copy of its seed corpus, and prints executions and findings per target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (targets: file names of tests/fuzz/*.cpp)
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (build jobs, default nproc).
# Findings (crash-*, leak-*, timeout-*, oom-* inputs) are kept in $FUZZ_BUILD_DIR/fuzz-runs/<target>/;
# replay one with $FUZZ_BUILD_DIR/tests/fuzz/fuzz_<target> <file>. The long campaign is the same
# command with a longer time, e.g. scripts/fuzz.sh 600.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  # The files that define the entry point (replay_main.cpp only declares it).
  for f in $(grep -l '^extern "C" int LLVMFuzzerTestOneInput(.*{' tests/fuzz/*.cpp); do
    targets+=("$(basename "$f" .cpp)")
  done
fi

CC=clang CXX=clang++ cmake -S . -B "$build" -DCUZK_CUDA=OFF -DCUZK_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

status=0
summary=()
for t in "${targets[@]}"; do
  run="$build/fuzz-runs/$t"
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/findings"
  cp -r "tests/fuzz/corpus/$t/." "$run/corpus/"
  echo "== $t: ${seconds}s"
  rc=0
  # -timeout: a single input slower than 60 s is a finding (a hang), not a wait. (The first PoRep or
  # SnapDeals request of a process counts its circuit's shape once: tens of seconds under ASan.)
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$run/findings/" "$run/corpus" >"$run/log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)
  findings=$(find "$run/findings" -type f | wc -l)
  if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi  # died without writing an input
  if [ "$findings" -ne 0 ]; then
    status=1
    tail -40 "$run/log"
  fi
  summary+=("$(printf '%-22s executions %-12s findings %s (corpus %s files)' "$t" "${execs:-?}" "$findings" \
    "$(find "$run/corpus" -type f | wc -l)")")
done
echo
echo "fuzz summary (${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
exit $status
