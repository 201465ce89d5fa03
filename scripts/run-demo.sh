#!/usr/bin/env bash
# The main job: installs the dependencies, builds, and proves a Filecoin PoRep Commit2 through
# the daemon, as Curio would have it proved:
#  1. cuzk-bench c1 generates a 2 KiB sector (StackedDrg2KiBV1_1, miner t01000, sector 1) and
#     writes its Commit1 output;
#  2. cuzk-daemon starts on the default backend (CUDA when built and present, else the CPU),
#     its socket in a temporary directory, with TEST parameters allowed: Filecoin publishes
#     parameters for 2 KiB sectors, but a user's machine rarely has them, so the daemon makes its
#     own for the circuit's shape (random toxic waste; such proofs never verify on chain). That
#     setup takes minutes on a few cores the first time, then it is cached in params-cache/;
#  3. `cuzk prove porep` sends the Commit1 output and writes the proof (192 bytes per partition,
#     as filecoin-ffi's seal_commit_phase2 returns them);
#  4. `cuzk verify porep` checks it as Filecoin's verify_seal does, against the parameters used;
#  5. SIGTERM stops the daemon, which must exit 0 and remove its socket.
# Any failure exits non-zero (with the daemon's log). Extra arguments go to cuzk-daemon (e.g.
# --backend cpu); CUZK_DEMO_OUT sets the proof file (default proof.bin).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

run_dir=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
sock="$run_dir/cuzk.sock"
log="$run_dir/daemon.log"
ready="$run_dir/ready"
c1="$run_dir/c1.json"
out="${CUZK_DEMO_OUT:-proof.bin}"
params=params-cache
daemon_pid=""

finish() {
  local rc=$?
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  if [ $rc -ne 0 ]; then
    echo "run-demo: FAILED (exit $rc); daemon log:" >&2
    cat "$log" >&2 2>/dev/null || true
  fi
  rm -rf "$run_dir"
  exit $rc
}
trap finish EXIT

echo "run-demo: generating a 2 KiB sector's Commit1 output ($c1)"
build/bench/cuzk-bench c1 --proof StackedDrg2KiBV1_1 --out "$c1" --miner 1000 --sector 1

echo "run-demo: starting cuzk-daemon on unix:$sock (log: $log; parameters of our own in $params/)"
build/src/cli/cuzk-daemon --listen "unix:$sock" --ready-file "$ready" --param-cache-dir "$params" \
  --allow-test-parameters "$@" >"$log" 2>&1 &
daemon_pid=$!
# Ready once the daemon has written the ready file; give up if it dies or takes two minutes.
for _ in $(seq 1200); do
  [ -s "$ready" ] && break
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    echo "run-demo: cuzk-daemon exited during start-up" >&2
    wait "$daemon_pid" || true
    daemon_pid=""
    exit 1
  fi
  sleep 0.1
done
[ -s "$ready" ] || { echo "run-demo: cuzk-daemon did not start within two minutes" >&2; exit 1; }
build/src/cli/cuzk --addr "unix:$sock" status

echo "run-demo: proving (the first run sets up TEST parameters for the 2 KiB circuit: minutes)"
build/src/cli/cuzk --addr "unix:$sock" prove porep --c1 "$c1" --miner t01000 --sector 1 --out "$out"
[ "$(stat -c %s "$out")" -eq 192 ] || { echo "run-demo: $out is not one 192-byte partition proof" >&2; exit 1; }

# Against the parameters the daemon used: the client searches as the daemon does (Filecoin's
# published 2 KiB file when this machine has it, then the TEST parameters in params-cache/).
echo "run-demo: verifying $out as Filecoin's verify_seal does"
build/src/cli/cuzk verify porep --c1 "$c1" --miner t01000 --sector 1 --proof "$out" --param-cache-dir "$params"

echo "run-demo: stopping cuzk-daemon (SIGTERM)"
kill -TERM "$daemon_pid"
rc=0
wait "$daemon_pid" || rc=$?
daemon_pid=""
tail -n 5 "$log"
[ $rc -eq 0 ] || { echo "run-demo: cuzk-daemon exited with $rc" >&2; exit 1; }
[ ! -e "$sock" ] || { echo "run-demo: the socket $sock was not removed" >&2; exit 1; }
echo "run-demo: OK: $out holds a 2 KiB sector's PoRep proof, made by the daemon and verified"
