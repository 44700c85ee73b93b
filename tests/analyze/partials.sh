#!/bin/sh
# partials.sh - node partials (collprof reduce) give the report of the raw
# logs on every golden case; damaged and missing partials are named and
# their nodes' logs read instead.  Run by partials.py (see its header).
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP no python3"; exit 77; }
exec python3 "${top_srcdir:-.}/tests/analyze/partials.py" "$@"
