#!/usr/bin/env bash
# Fails, naming the files, when a C++ or CUDA source file is not as clang-format (with the
# repository's .clang-format) writes it. Fix with: clang-format -i FILE...
# Checks the files git knows (tracked, or new and not ignored); without git, every such file
# outside build directories.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t listed < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.h' '*.cc' '*.cu' '*.cuh')
else
  mapfile -t listed < <(find . \( -path ./.git -o -path './build*' \) -prune -o -type f \( -name '*.cpp' -o \
    -name '*.hpp' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||')
fi
files=()
for f in "${listed[@]}"; do [ -f "$f" ] && files+=("$f"); done  # skips files deleted in the work tree
# One clang-format for all files (a process per file costs more than the formatting); its
# diagnostics start with FILE:LINE:COL.
out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1) && rc=0 || rc=$?
mapfile -t bad < <(grep -E '^[^ :]+:[0-9]+:[0-9]+: ' <<<"$out" | cut -d: -f1 | sort -u)
if [ ${#bad[@]} -gt 0 ] || [ "$rc" -ne 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not clang-formatted ($(clang-format --version)):" >&2
  if [ ${#bad[@]} -gt 0 ]; then printf '  %s\n' "${bad[@]}" >&2; else echo "$out" >&2; fi
  exit 1
fi
echo "check-format: ${#files[@]} files clang-formatted"
