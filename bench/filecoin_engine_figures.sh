#!/usr/bin/env bash
# The Filecoin kinds through the engine on a GPU machine (docs/PERF.md, issues 25 and 27): each RUN
# is one `cuzk-bench pipeline` call with pseudo-random parameters of the real circuit's shape and
# generated sparse sectors (speed only), logged to OUTDIR/RUN.log under /usr/bin/time -v when
# present, then summarised (s/job, urgent latencies, peak RSS).
#   bench/filecoin_engine_figures.sh OUTDIR RUN...
# RUN: porep32 (three 32 GiB C2 jobs, timeline in OUTDIR/porep32.json), porep32-48g (five, within
# a 48 GiB budget: a 64 GiB host; timeline in OUTDIR/porep32-48g.json), porep32-48g-nokeep (the
# same with no witness memory kept: engine.kept_witnesses 0), porep32-old (three on the
# full-synthesis path), window32 (three 32 GiB WindowPoSt partitions, timeline in
# OUTDIR/window32.json; each timeline's prover summary and prove_start steps are printed), winning-beside /
# winning-reserve (WinningPoSt alone, then every 3 s beside three 32 GiB C2 jobs, per
# engine.urgent_admission), winning-lane (the same on the card's urgent lane, 2 GiB), snap32 (two
# 32 GiB SnapDeals proofs, 16 partitions each; timeline in OUTDIR/snap32.json), gpu-tests (the
# gpu-labelled test programs beside cuzk-bench, the device-fault tests of issue 29 included).
# Environment: CUZK_BENCH (default build/bench/cuzk-bench), RUN_TIMEOUT (seconds per run, 330).
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
out=$1
shift
bench=${CUZK_BENCH:-build/bench/cuzk-bench}
limit=${RUN_TIMEOUT:-330}
mkdir -p "$out"
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
common=(--pseudo-params --backend cuda --policy budget)

for run in "$@"; do
  log="$out/$run.log"
  case $run in
    porep32) args=(--proof StackedDrg32GiBV1_1 --jobs 3 --workers 4 --timeline "$out/porep32.json") ;;
    porep32-48g)
      args=(--proof StackedDrg32GiBV1_1 --jobs 5 --workers 4 --budget-mib 49152 --timeline "$out/porep32-48g.json")
      ;;
    porep32-48g-nokeep)
      args=(--proof StackedDrg32GiBV1_1 --jobs 5 --workers 4 --budget-mib 49152 --kept-witnesses 0
        --timeline "$out/porep32-48g-nokeep.json")
      ;;
    porep32-old) args=(--proof StackedDrg32GiBV1_1 --jobs 3 --workers 4 --witness-synthesis off) ;;
    window32) args=(--proof StackedDrgWindow32GiBV1_2 --jobs 3 --workers 4 --timeline "$out/window32.json") ;;
    winning-lane)
      args=(--proof StackedDrg32GiBV1_1 --jobs 3 --workers 4 --urgent StackedDrgWinning32GiBV1 --urgent-every 3
        --urgent-lane-mib 2048)
      ;;
    winning-beside | winning-reserve)
      args=(--proof StackedDrg32GiBV1_1 --jobs 3 --workers 4 --urgent StackedDrgWinning32GiBV1 --urgent-every 3
        --urgent-admission "${run#winning-}")
      ;;
    snap32) args=(--update StackedDrg32GiBV1 --jobs 2 --workers 4 --timeline "$out/snap32.json") ;;
    gpu-tests)
      dir=$(dirname "$bench")
      {
        for t in "$dir"/*_gpu_test "$dir"/*_gpu_faults_test; do
          [ -x "$t" ] || continue
          echo "== $(basename "$t")"
          timeout "$limit" "$t" --gtest_brief=1 2>&1 | tail -5
        done
      } >"$log" 2>&1
      echo "== $run"
      grep -E '^==|PASSED|FAILED|SKIPPED' "$log"
      continue
      ;;
    *)
      echo "filecoin_engine_figures: unknown run '$run'" >&2
      exit 2
      ;;
  esac
  echo "== $run: ${bench} pipeline ${args[*]} ${common[*]}"
  start=$SECONDS
  timeout "$limit" "${timer[@]}" "$bench" pipeline "${args[@]}" "${common[@]}" >"$log" 2>&1
  rc=$?
  echo "   exit $rc after $((SECONDS - start)) s"
  # The bench's tables (s/job, urgent latencies), its inputs and parameters, the device's memory
  # plans (a second witness buffer shows as "witness ahead"), and the peak RSS and wall time
  # /usr/bin/time measured; any job's error.
  grep -E '^\||^inputs|^parameters|^job |^urgent job|device memory plan|Maximum resident|Elapsed|cuzk-bench pipeline:' \
    "$log" | tail -34
  # The prover's busy share and each prove_start step's mean, from the run's timeline, and the
  # MSM of H by what ran beside it (the syntheses' page-locking tails, or their bodies).
  trace="$out/$run.json"
  if [ -s "$trace" ] && command -v python3 >/dev/null; then
    python3 "$(dirname "$0")/../scripts/timeline_gpu_gaps.py" "$trace" | tail -n +2
    python3 "$(dirname "$0")/../scripts/timeline_msm_beside.py" "$trace"
  fi
done
