#!/bin/sh
# run-logsize.sh - make bench: bytes on disk per call of the shim's logs
# (format 4), for every train_sim pattern on the CPU NCCL and every
# gen_logs pattern.  "steady" is what a log grows by between two points
# of a run (a short and a long run of the same job: the extra steps)
# divided by the calls between them; "whole" is the whole file's bytes,
# header and ring included, per call of the long run.  Beside it the
# same job in format 3 (64 bytes a slot).
set -eu
b=${top_builddir:-$(pwd)}
s=${top_srcdir:-$b/..}
tmp=$(mktemp -d /tmp/cp-logsize-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp=$b/analyzer/collprof
simrun=$b/tests/simnccl/simrun
ts=$b/tests/apps/train_sim
gen=$b/tests/tools/gen_logs
py=$s/tests/tools/log4.py

# size DIR: "SLOTS STREAM FILE" summed over the shim's logs of DIR
size() {
    for f in "$1"/*.cplog; do
        case $f in *.nccl.cplog) continue ;; esac
        python3 "$py" size "$f"
    done | awk '{ n += $2; st += $4; fl += $6; al += $12 }
                END { print n, st, fl, al }'
}

# line NAME SHORT_DIR LONG_DIR DIR3
line() {
    set -- "$1" $(size "$2") $(size "$3") $(size "$4")
    awk -v name="$1" -v n1="$2" -v s1="$3" -v n2="$6" -v s2="$7" \
        -v f2="$8" -v a2="$9" -v n3="${10}" -v f3="${12}" 'BEGIN {
        printf "log size, %s: %.2f bytes per slot steady; whole files %.1f (allocated on disk %.1f: the ring given back at exit) over %d slots; format 3 %.1f\n",
            name, (s2 - s1) / (n2 - n1), f2 / n2, a2 / n2, n2, f3 / n3 }'
}

echo "== log size: bytes on disk per slot (a call, a group, a device interval), format 4"
if [ -x "$simrun" ] && [ -x "$ts" ]; then
    for p in ddp fsdp tp moe pp 3d; do
        for steps in 5 25; do
            "$cp" record -o "$tmp/$p.$steps" -- "$simrun" -n 8 --nodes 4 \
                --timeout 300 -- "$ts" --pattern "$p" --steps "$steps" \
                >/dev/null 2>&1
        done
        COLLPROF_LOG_FORMAT=3 "$cp" record -o "$tmp/$p.3" -- "$simrun" -n 8 \
            --nodes 4 --timeout 300 -- "$ts" --pattern "$p" --steps 25 \
            >/dev/null 2>&1
        line "train_sim $p" "$tmp/$p.5" "$tmp/$p.25" "$tmp/$p.3"
    done
fi
for p in ddp-small ddp-large mixed sweep uniform 3d; do
    "$gen" -o "$tmp/g$p.1" --pattern "$p" --ranks 8 --steps 50 >/dev/null
    "$gen" -o "$tmp/g$p.2" --pattern "$p" --ranks 8 --steps 250 >/dev/null
    "$gen" -o "$tmp/g$p.3" --format 3 --pattern "$p" --ranks 8 --steps 250 \
        >/dev/null
    line "gen_logs $p" "$tmp/g$p.1" "$tmp/g$p.2" "$tmp/g$p.3"
done
