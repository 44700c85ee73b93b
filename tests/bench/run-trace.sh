#!/bin/sh
# run-trace.sh - how large a trace a viewer in the browser can open (make
# bench; docs/trace.md, "How large").  A 4096-rank gen_logs job with device
# intervals, cut to three rank counts around the default limit of
# collprof trace; for each, the events and size collprof wrote, and what
# headless Chromium does with the file: read it into one string and parse
# it (tests/trace/load.html), the first thing a viewer running in the page
# does.  Chromium's longest string is 2^29 - 24 characters (512 MiB); a
# larger file cannot be read whole.  Skipped without chromium.
set -eu
b=${top_builddir:?}
s=$(cd "${top_srcdir:?}" && pwd)
command -v chromium >/dev/null 2>&1 || { echo "== trace: skipped (no chromium)"; exit 0; }
t=$(mktemp -d /tmp/cp-bench-trace-XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
echo "== trace: what the browser opens (load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
"$b/tests/tools/gen_logs" -o "$t/logs" --ranks 4096 --ranks-per-node 8 --steps 4 \
    --inter-alpha 2us --inter-bw 20GB/s --intra-alpha 1us --intra-bw 100GB/s \
    --gpu >/dev/null
"$b/analyzer/collprof" trace "$t/logs" -o "$t/whole.json" 2>"$t/whole.err" || true
sed 's/^/  /' "$t/whole.err"
for cut in 0-255 0-1242 0-2599; do
    "$b/analyzer/collprof" trace "$t/logs" -o "$t/cut.json" --ranks "$cut" \
        --max-events 0 2>"$t/cut.err"
    wrote=$(sed -n 's/.*; \([0-9]* events, .*\)$/\1/p' "$t/cut.err")
    got=$(timeout 600 chromium --headless --no-sandbox --disable-gpu \
        --disable-background-networking --no-first-run \
        --allow-file-access-from-files --user-data-dir="$(mktemp -d "$t/chrome-XXXXXX")" \
        --dump-dom "file://$s/tests/trace/load.html#$t/cut.json" 2>/dev/null |
        sed -n 's/.*<pre id="o">\([^<]*\).*/\1/p')
    echo "trace --ranks $cut: $wrote; Chromium: ${got:-no answer}"
    rm -f "$t/cut.json"
    rm -rf "$t"/chrome-*
done
