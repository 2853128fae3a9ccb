#!/usr/bin/env bash
# Formats the project's C++ and CUDA sources with .clang-format (clang-format from Debian's
# clang-format package), or with --check lists the files that differ and exits 1.
# The generated field assembly (tools/gen_mont_x86_64.py's output) is left as generated.
#   tools/format.sh            format in place
#   tools/format.sh --check    change nothing; exit 1 if any file is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format: clang-format not found (apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | grep -v -e '^rust/' -e 'mont_inline_x86_64\.hpp$')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    if ! clang-format "$f" | cmp -s - "$f"; then echo "not formatted: $f (run tools/format.sh)"; bad=1; fi
  done
  exit $bad
fi
clang-format -i "${files[@]}"
