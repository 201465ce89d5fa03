#!/usr/bin/env bash
# Installs the pinned snarkjs and circom2 (this folder's package-lock.json) into NPM_DIR with
# `npm ci`: never globally, never into the source tree. An install made from the same lockfile
# is kept (the interop test can rerun offline).
#
# Usage: npm_install.sh NPM_DIR
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -eq 1 ]] || {
    echo "usage: $0 NPM_DIR" >&2
    exit 1
}
NPM_DIR="$1"

for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "FAIL: $tool is not installed; the snarkjs interop test needs node and npm" \
            "(Debian: apt-get install nodejs npm, or scripts/install-deps.sh)" >&2
        exit 1
    }
done

mkdir -p "$NPM_DIR"
if cmp -s "$HERE/package-lock.json" "$NPM_DIR/package-lock.json" &&
    [[ -f "$NPM_DIR/node_modules/.package-lock.json" && -f "$NPM_DIR/node_modules/snarkjs/cli.js" ]]; then
    echo "snarkjs and circom2 already installed from this lockfile in $NPM_DIR"
    exit 0
fi
cp "$HERE/package.json" "$HERE/package-lock.json" "$NPM_DIR/"
if ! (cd "$NPM_DIR" && npm ci --no-audit --no-fund); then
    echo "FAIL: npm ci in $NPM_DIR failed (is the npm registry reachable? see npm's messages above)" >&2
    exit 1
fi
echo "installed snarkjs $(node -p "require('$NPM_DIR/node_modules/snarkjs/package.json').version")" \
    "and circom2 $(node -p "require('$NPM_DIR/node_modules/circom2/package.json').version") into $NPM_DIR"
