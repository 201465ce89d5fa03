#!/usr/bin/env bash
# The timeline scripts (scripts/timeline_gpu_gaps.py, scripts/timeline_peaks.py) on a real engine
# timeline: a small CPU pipeline run writes one, and each script must report what the run did, from
# the whole trace and from one cut off mid-run (a killed process leaves the array open).
# Usage: timeline_scripts_test.sh CUZK_BENCH REPO_DIR [PYTHON3]
set -euo pipefail
bench=$1
repo=$2
py=${3:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$bench" pipeline --constraints 4096 --partitions 3 --jobs 2 --workers 2 --policy budget --backend cpu \
  --pseudo-params --timeline "$tmp/t.json" >"$tmp/run.txt"

gaps=$("$py" "$repo/scripts/timeline_gpu_gaps.py" "$tmp/t.json")
echo "$gaps"
# Two jobs of three partitions: six proofs on the one prover, and six spans of each stage.
echo "$gaps" | grep -Eq '^\| gpu-cpu-0 \| 6 \| [0-9.]+ \| [0-9.]+% \|' || fail "the prover's row"
busy=$(echo "$gaps" | awk -F'|' '/^\| gpu-cpu-0 /{gsub(/[ %]/, "", $5); print $5}')
awk -v b="$busy" 'BEGIN { exit !(b > 0 && b <= 100) }' || fail "busy $busy% is not a share"
for span in synthesize prove_start prove_finish; do
  echo "$gaps" | grep -Eq "^\| $span \| 6 \|" || fail "the $span spans"
done
# The backend's steps, from the prove_start spans' args.
for step in h_ntt_s msm_h_s msm_b_g2_s; do
  echo "$gaps" | grep -Eq "^\| $step \| 6 \| [0-9.]+ \|" || fail "the prove_start step $step"
done

peaks=$("$py" "$repo/scripts/timeline_peaks.py" "$tmp/t.json")
echo "$peaks"
for series in "budget used" "process RSS" "witness" "abc"; do
  echo "$peaks" | grep -Eq "^\| $series \| [0-9.]+ \|" || fail "the peak of $series"
done

# Cut off mid-run: the lines written so far, the array left open.
head -n "$(($(wc -l <"$tmp/t.json") / 2))" "$tmp/t.json" >"$tmp/cut.json"
"$py" "$repo/scripts/timeline_gpu_gaps.py" "$tmp/cut.json" >/dev/null || fail "a trace cut off mid-run"
"$py" "$repo/scripts/timeline_peaks.py" "$tmp/cut.json" >/dev/null || fail "a trace cut off mid-run (peaks)"
echo "timeline scripts: ok"
