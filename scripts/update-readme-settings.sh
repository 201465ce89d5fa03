#!/usr/bin/env bash
# Rewrites README.md's settings list (between the "settings:" markers) with what
# `cuzk-daemon --print-settings` prints: the settings table of src/server/settings.cpp.
# tests/server/settings_test.cpp fails while the two differ. Usage: update-readme-settings.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
daemon="${1:-build}/src/cli/cuzk-daemon"
[ -x "$daemon" ] || { echo "no $daemon: build first (scripts/build.sh)" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$daemon" --print-settings >"$table"
python3 - "$table" <<'PY'
import sys
begin, end = "<!-- settings: begin (scripts/update-readme-settings.sh) -->", "<!-- settings: end -->"
text = open("README.md").read()
if begin not in text or end not in text:
    sys.exit("README.md has no settings markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open("README.md", "w").write(head + begin + "\n\n" + open(sys.argv[1]).read() + "\n" + end + tail)
PY
echo "README.md: settings list updated"
