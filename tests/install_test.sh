#!/usr/bin/env bash
# The installed files run from the install prefix: `cmake --install BUILD --prefix P` into a
# temporary P, then P/bin/cuzk and P/bin/cuzk-daemon: help, the example configuration,
# Curio's `cuzk --config FILE` form, and a daemon started as `cuzk daemon` on gRPC's
# unix:///abs address, reached by the client through the same text, stopped by SIGTERM.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
prefix=$(mktemp -d /tmp/cuzk-install-test-XXXXXX)
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then kill -KILL "$daemon_pid"; fi
  rm -rf "$prefix"
}
trap cleanup EXIT
fail() {
  echo "install_test: $*" >&2
  [ -f "$prefix/run/daemon.log" ] && cat "$prefix/run/daemon.log" >&2
  exit 1
}

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/cuzk bin/cuzk-daemon share/cuzk/cuzk.service share/cuzk/cuzk.example.toml share/doc/cuzk/LICENSE \
  share/doc/cuzk/LICENSE-APACHE share/doc/cuzk/LICENSE-MIT; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
grep -q "^ExecStart=$prefix/bin/cuzk-daemon " "$prefix/share/cuzk/cuzk.service" || fail "the unit does not run $prefix/bin/cuzk-daemon"

"$prefix/bin/cuzk" --help | grep -q 'daemon' || fail "cuzk --help does not mention the daemon"
"$prefix/bin/cuzk-daemon" --print-config | grep -q '^\[engine\]' || fail "cuzk-daemon --print-config"
# The example configuration loads and says what it says.
"$prefix/bin/cuzk-daemon" --config "$prefix/share/cuzk/cuzk.example.toml" --print-config >"$prefix/printed.toml"
cmp -s <(grep -v '^#' "$prefix/printed.toml") <(grep -v '^#' "$prefix/share/cuzk/cuzk.example.toml") ||
  fail "the example configuration does not read back as itself"
# Curio's unit file: `cuzk --config FILE` runs the daemon (here only to print its configuration).
out=$("$prefix/bin/cuzk" --config "$src/tests/data/curio/cuzk.example.toml" --print-config 2>"$prefix/notes")
grep -q '^listen = "0.0.0.0:9820"' <<<"$out" || fail "cuzk --config did not read Curio's file"
grep -q 'gpus.gpu_threads' "$prefix/notes" || fail "Curio's ignored keys were not named"
# Flags and file refuse the same nonsense.
if "$prefix/bin/cuzk-daemon" --gpu-workers-per-device 100000 --print-config >/dev/null 2>&1; then
  fail "--gpu-workers-per-device 100000 was accepted"
fi
if "$prefix/bin/cuzk" daemon --shutdown-timeout inf --print-config >/dev/null 2>&1; then
  fail "--shutdown-timeout inf was accepted"
fi

# A daemon as `cuzk daemon`, on unix:///abs; the client reaches it with the same address text.
mkdir "$prefix/run"
addr="unix://$prefix/run/cuzk.sock"
"$prefix/bin/cuzk" daemon --listen "$addr" --backend cpu --budget 1GiB --cpu-threads 2 \
  --param-cache-dir "$prefix/run/params" --ready-file "$prefix/run/ready" --log-format json \
  >"$prefix/run/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 600); do
  [ -s "$prefix/run/ready" ] && break
  kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon exited during start-up"
  sleep 0.1
done
[ -s "$prefix/run/ready" ] || fail "the daemon did not become ready"
"$prefix/bin/cuzk" --addr "$addr" status >/dev/null || fail "cuzk --addr $addr status"
kill -TERM "$daemon_pid"
rc=0
wait "$daemon_pid" || rc=$?
daemon_pid=""
[ $rc -eq 0 ] || fail "the daemon exited with $rc after SIGTERM"
[ ! -e "$prefix/run/cuzk.sock" ] || fail "the socket was not removed"
# --log-format json: every line is one JSON object.
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "empty log"
for l in lines:
    o = json.loads(l)
    assert {"timestamp", "level", "message"} <= o.keys(), l
' "$prefix/run/daemon.log" || fail "the JSON log is not one JSON object per line"
echo "install_test: OK"
