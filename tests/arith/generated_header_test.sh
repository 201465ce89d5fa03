#!/usr/bin/env bash
# Usage: generated_header_test.sh PYTHON GENERATOR HEADER
# Fails, with the difference, when the checked-in HEADER is not what GENERATOR prints now.
set -euo pipefail
python=$1 generator=$2 header=$3
if ! diff -u "$header" <("$python" "$generator"); then
  echo "$header differs from what $generator prints: regenerate it ($generator > $header)" >&2
  exit 1
fi
