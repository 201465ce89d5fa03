#!/usr/bin/env bash
# Installs the Debian packages cuzk needs to build and test. Idempotent: packages that
# are already present are not fetched again. Run as root (or through sudo) on Debian 12.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev libtbb-dev libcli11-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev libsimdjson-dev libssl-dev
  clang-format python3
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libtomlplusplus-dev libcpp-httplib-dev prometheus-cpp-dev
  # only for promtool: daemon_test checks /metrics with it, and tests/packaging checks and unit-tests
  # the alerting rules of packaging/prometheus (each skipped without)
  prometheus
  python3-yaml  # tests/packaging/check_packaging.py reads the alerting rules and their tests
  chromium  # headless: daemon_status_page_test loads the daemon's status page in it (skipped without)
  python3-grpcio python3-grpc-tools
  clang libclang-rt-14-dev  # libFuzzer: sanitizer-tests.sh's ASan build also fuzzes tests/fuzz's targets
  tmux  # a pseudo-terminal for daemon_watch_test: `cuzk status --watch` drawn and quit with Ctrl-C (skipped without)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# The snarkjs interop test (label interop) installs snarkjs and circom2 with `npm ci`. A Node.js
# that is already there keeps its own npm: NodeSource's nodejs package bundles npm and conflicts
# with Debian's, so Debian's nodejs and npm are installed only for the commands that are missing.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present, and node and npm"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
