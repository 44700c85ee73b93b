#!/bin/sh
# hangs.sh - planted hangs, deadlocks, mismatches and kills in every
# train_sim pattern, named by collprof analyze (see hangs.py).
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
exec python3 "${top_srcdir:-.}/tests/integration/hangs.py" "$@"
