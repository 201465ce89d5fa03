#!/usr/bin/env bash
# promtool with the given arguments (`check rules FILE`, `test rules FILE`), or exit 77, which
# CTest counts as skipped, when promtool (Debian package prometheus) is not installed.
set -euo pipefail
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found (Debian package prometheus): skipped"
  exit 77
fi
exec promtool "$@"
