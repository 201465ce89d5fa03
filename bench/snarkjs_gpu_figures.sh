#!/usr/bin/env bash
# snarkjs keys on a machine without node or circom (the GPU machine; docs/PERF.md, issue 28): for
# each power k, `cuzk-bench snarkjs chain` writes circom's Chain(2^k - 4) and its witness,
# `cuzk-bench snarkjs setup` a key (insecure, known toxic waste), then `cuzk-bench snarkjs prove`
# runs per backend on the key's first read (every point checked) and on a key recorded as checked,
# --repeat 3 (the CUDA prover keeps the bases of the last key resident: rows 1 and 2 show it).
# Each backend's proof (proof-BACKEND.json), public.json and the key's verification_key.json stay
# in OUTDIR/kK, for snarkjs to verify on a machine with node.
#   bench/snarkjs_gpu_figures.sh OUTDIR POWER...
# Environment: CUZK_BENCH (default build/bench/cuzk-bench), BACKENDS (default "cpu cuda"; the CPU
# row is skipped above CPU_MAX_POWER, default 20), RUN_TIMEOUT (seconds per command, 590).
set -uo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
out=$1
shift
bench=${CUZK_BENCH:-build/bench/cuzk-bench}
limit=${RUN_TIMEOUT:-590}
mkdir -p "$out"
checked="$out/checked-keys"

step() { # LOG COMMAND...: runs it under the time limit, logs its output, prints its exit status
  local log=$1
  shift
  local start=$SECONDS
  timeout "$limit" "$@" >"$log" 2>&1
  local rc=$?
  echo "   exit $rc after $((SECONDS - start)) s: $*"
  return $rc
}

for k in "$@"; do
  n=$(((1 << k) - 4))
  dir="$out/k$k"
  mkdir -p "$dir"
  echo "== 2^$k: Chain($n)"
  step "$dir/chain.log" "$bench" snarkjs chain "$n" "$dir/chain.r1cs" "$dir/chain.wtns" || continue
  step "$dir/setup.log" "$bench" snarkjs setup "$dir/chain.r1cs" "$dir/chain.zkey" || continue
  grep '^wrote' "$dir/setup.log"
  step "$dir/export-vk.log" "$bench" snarkjs export-vk "$dir/chain.zkey" "$dir/verification_key.json"
  for backend in ${BACKENDS:-cpu cuda}; do
    if [ "$backend" = cpu ] && [ "$k" -gt "${CPU_MAX_POWER:-20}" ]; then continue; fi
    for read in first recorded; do
      keys=(--no-checked-keys)
      [ "$read" = recorded ] && keys=(--checked-keys "$checked")
      [ "$read" = recorded ] && timeout "$limit" "$bench" snarkjs prove "$dir/chain.zkey" "$dir/chain.wtns" \
        "$dir/proof.json" "$dir/public.json" --backend "$backend" "${keys[@]}" >/dev/null 2>&1
      log="$dir/prove-$backend-$read.log"
      echo "-- $backend, key $read"
      step "$log" "$bench" snarkjs prove "$dir/chain.zkey" "$dir/chain.wtns" "$dir/proof.json" "$dir/public.json" \
        --backend "$backend" --repeat 3 "${keys[@]}"
      grep -E '^zkey:|^ *rep|^ *[0-9]+ ' "$log"
    done
    # Kept for snarkjs to verify elsewhere (snarkjs groth16 verify VK PUBLIC PROOF).
    cp -f "$dir/proof.json" "$dir/proof-$backend.json" 2>/dev/null
  done
  rm -f "$dir/chain.zkey" "$dir/chain.r1cs" "$dir/chain.wtns" # large; the logs, proofs and vk stay
done
