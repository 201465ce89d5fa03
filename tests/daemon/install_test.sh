#!/usr/bin/env bash
# The installed files run from the install prefix: `cmake --install BUILD --prefix P` into a
# temporary P gives one program, P/bin/cuzk, with P/bin/cuzk-daemon a link to it: help, the example
# configuration, Curio's `cuzk --config FILE` form started from / (its directories absolute, where
# --print-config says), and a daemon started as `cuzk daemon` on gRPC's unix:///abs address,
# reached by the client through the same text, stopped by SIGTERM.
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
  share/doc/cuzk/LICENSE-APACHE share/doc/cuzk/LICENSE-MIT share/cuzk/prometheus/cuzk-alerts.yml \
  share/cuzk/prometheus/cuzk-alerts.test.yml share/cuzk/grafana/cuzk-dashboard.json; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
# The installed rules pass their installed tests (which name the rules by a relative path).
if command -v promtool >/dev/null 2>&1; then
  promtool test rules "$prefix/share/cuzk/prometheus/cuzk-alerts.test.yml" >/dev/null ||
    fail "promtool test rules of the installed alerting rules"
fi
[ -L "$prefix/bin/cuzk-daemon" ] && [ "$(readlink "$prefix/bin/cuzk-daemon")" = cuzk ] ||
  fail "bin/cuzk-daemon is not a link to cuzk"
grep -q "^ExecStart=$prefix/bin/cuzk --config " "$prefix/share/cuzk/cuzk.service" || fail "the unit does not run $prefix/bin/cuzk"

"$prefix/bin/cuzk" --help | grep -q 'daemon' || fail "cuzk --help does not mention the daemon"
"$prefix/bin/cuzk-daemon" --print-config | grep -q '^\[engine\]' || fail "cuzk-daemon --print-config"
# The example configuration loads and says what it says.
"$prefix/bin/cuzk-daemon" --config "$prefix/share/cuzk/cuzk.example.toml" --print-config >"$prefix/printed.toml"
cmp -s <(grep -v '^#' "$prefix/printed.toml") <(grep -v '^#' "$prefix/share/cuzk/cuzk.example.toml") ||
  fail "the example configuration does not read back as itself"
# Curio's unit file: `cuzk --config FILE` runs the daemon (here only to print its configuration),
# from /: the directories it would use are absolute.
out=$(cd / && "$prefix/bin/cuzk" --config "$src/tests/data/curio/cuzk.example.toml" --print-config 2>"$prefix/notes")
grep -q '^listen = "0.0.0.0:9820"' <<<"$out" || fail "cuzk --config did not read Curio's file"
grep -q 'gpus.gpu_threads' "$prefix/notes" || fail "Curio's ignored keys were not named"
grep -q '^param_cache_dir = "/' <<<"$out" || fail "the parameter cache is not an absolute path: $(grep param_cache_dir <<<"$out")"
grep -q '^spool_dir = "/' <<<"$out" || fail "the spool is not an absolute path: $(grep spool_dir <<<"$out")"
# Flags and file refuse the same nonsense.
if "$prefix/bin/cuzk-daemon" --gpu-workers-per-device 100000 --print-config >/dev/null 2>&1; then
  fail "--gpu-workers-per-device 100000 was accepted"
fi
if "$prefix/bin/cuzk" daemon --shutdown-timeout inf --print-config >/dev/null 2>&1; then
  fail "--shutdown-timeout inf was accepted"
fi

# A daemon as `cuzk daemon`, on unix:///abs, started from /; the client reaches it with the same
# address text, and its spool is where --print-config says.
mkdir "$prefix/run"
addr="unix://$prefix/run/cuzk.sock"
args=(--listen "$addr" --backend cpu --budget 1GiB --cpu-threads 2 --param-cache-dir "$prefix/run/params")
spool=$("$prefix/bin/cuzk" daemon "${args[@]}" --print-config | sed -n 's/^spool_dir = "\(.*\)"$/\1/p')
[ "$spool" = "$prefix/run/spool" ] || fail "--print-config says the spool is '$spool'"
(cd / && exec "$prefix/bin/cuzk" daemon "${args[@]}" --ready-file "$prefix/run/ready" --log-format json \
  >"$prefix/run/daemon.log" 2>&1) &
daemon_pid=$!
for _ in $(seq 600); do
  [ -s "$prefix/run/ready" ] && break
  kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon exited during start-up"
  sleep 0.1
done
[ -s "$prefix/run/ready" ] || fail "the daemon did not become ready"
"$prefix/bin/cuzk" --addr "$addr" status >/dev/null || fail "cuzk --addr $addr status"
[ -d "$spool" ] || fail "the daemon made no spool at $spool"
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
