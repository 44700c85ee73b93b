#!/bin/sh
# cases.sh - the golden cases of collprof analyze (tests/analyze/cases/*),
# run by cases.py; see its header for the format of a case.
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
exec python3 "${top_srcdir:-.}/tests/analyze/cases.py" "$@"
