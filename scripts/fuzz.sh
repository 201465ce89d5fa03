#!/usr/bin/env bash
# Runs the fuzz targets of tests/fuzz under libFuzzer with ASan and UBSan: configures a clang build
# in build-fuzz (CUDA off, CUZK_FUZZ=ON), builds the targets, runs each for SECONDS (default 30)
# on a copy of its seed corpus, and prints executions and findings per target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (targets: file names of tests/fuzz/*.cpp)
# Environment: FUZZ_BUILD_DIR (default build-fuzz; an existing clang build with CUZK_FUZZ=ON, such as
# sanitizer-tests.sh's build-asan-fuzz, is used as it is), FUZZ_JOBS (build jobs, default nproc),
# FUZZ_PARALLEL (targets fuzzed at once, default 1).
# Findings (crash-*, leak-*, timeout-*, oom-* inputs; slow-unit-* too, not counted) are kept in
# $FUZZ_BUILD_DIR/fuzz-runs/<target>/findings/;
# replay one with $FUZZ_BUILD_DIR/tests/fuzz/fuzz_<target> <file>. The long campaign is the same
# command with a longer time, e.g. scripts/fuzz.sh 600.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}
parallel=${FUZZ_PARALLEL:-1}

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

# One target: its log, findings and a summary line in fuzz-runs/<target>/.
fuzz_one() {
  local t=$1 run="$build/fuzz-runs/$1" rc=0
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/findings"
  cp -r "tests/fuzz/corpus/$t/." "$run/corpus/"
  # -timeout: a single input slower than 60 s is a finding (a hang), not a wait. (The first PoRep or
  # SnapDeals request of a process counts its circuit's shape once: tens of seconds under ASan.)
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$run/findings/" "$run/corpus" >"$run/log" 2>&1 || rc=$?
  local execs findings
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)
  # slow-unit-* inputs (over 10 s, libFuzzer's report) are kept but are not findings.
  findings=$(find "$run/findings" -type f ! -name 'slow-unit-*' | wc -l)
  if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi # died without writing an input
  printf '%-22s executions %-12s findings %s (corpus %s files)\n' "$t" "${execs:-?}" "$findings" \
    "$(find "$run/corpus" -type f | wc -l)" >"$run/summary"
  echo "$findings" >"$run/findings.count"
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "== $t: ${seconds}s"
  fuzz_one "$t" &
done
wait

status=0
echo
echo "fuzz summary (${seconds}s per target):"
for t in "${targets[@]}"; do
  run="$build/fuzz-runs/$t"
  echo "  $(cat "$run/summary")"
  if [ "$(cat "$run/findings.count")" -ne 0 ]; then
    status=1
    tail -40 "$run/log" | sed "s/^/    $t: /"
  fi
done
exit $status
