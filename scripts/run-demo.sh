#!/usr/bin/env bash
# The main job: installs the dependencies, builds, starts cuzk-daemon with its defaults (its
# socket in a temporary directory), proves the demo job (a 2^16-constraint synthetic
# PoRep-profile circuit; parameters are set up once and cached in params-cache/) through the
# cuzk client, which writes proof.bin and prints the verified flag (the daemon verifies every
# proof before returning it), then stops the daemon with SIGTERM. Exits non-zero on any failure.
# Extra arguments go to cuzk-daemon (e.g. --backend cpu); CUZK_DEMO_OUT sets the proof file.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

run_dir=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
sock="$run_dir/cuzk.sock"
log="$run_dir/daemon.log"
out="${CUZK_DEMO_OUT:-proof.bin}"
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

echo "run-demo: starting cuzk-daemon on unix:$sock (log: $log)"
build/src/cli/cuzk-daemon --listen "unix:$sock" "$@" >"$log" 2>&1 &
daemon_pid=$!

# Ready when the client gets an answer; give up if the daemon dies or takes a minute.
for _ in $(seq 600); do
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    echo "run-demo: cuzk-daemon exited during start-up" >&2
    wait "$daemon_pid" || true
    daemon_pid=""
    exit 1
  fi
  build/src/cli/cuzk --addr "unix:$sock" status >/dev/null 2>&1 && break
  sleep 0.1
done
build/src/cli/cuzk --addr "unix:$sock" status

result=$(build/src/cli/cuzk --addr "unix:$sock" prove --demo --out "$out")
echo "$result"
grep -q '^verified  true' <<<"$result" || { echo "run-demo: the proof was not verified" >&2; exit 1; }
[ "$(stat -c %s "$out")" -eq 192 ] || { echo "run-demo: $out is not 192 bytes" >&2; exit 1; }

echo "run-demo: stopping cuzk-daemon (SIGTERM)"
kill -TERM "$daemon_pid"
rc=0
wait "$daemon_pid" || rc=$?
daemon_pid=""
tail -n 5 "$log"
[ $rc -eq 0 ] || { echo "run-demo: cuzk-daemon exited with $rc" >&2; exit 1; }
[ ! -e "$sock" ] || { echo "run-demo: the socket $sock was not removed" >&2; exit 1; }
echo "run-demo: OK: $out holds a verified 192-byte proof"
