#!/bin/sh
# outputs.sh - the symlink-farm attack on what collprof writes, as root, in
# a directory an unprivileged user owns: that user plants links from the
# output names (and from every temporary name an output was once written
# under) to a file of root's.  The file must stay unchanged; a link on an
# output's own name is refused with a message naming it; the temporary
# names are never followed (docs/security.md).
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
attacker cpsec_out
t=$(mktemp -d /tmp/cp-secout-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"; drop_attacker' EXIT INT TERM
chmod 755 "$t"
canary="$t/canary"
canary_text="root's file, $$"
echo "$canary_text" >"$canary"
chmod 644 "$canary"
home="$t/home"
mkdir -m 755 "$home" && chown "$who" "$home"
"$gen" -o "$t/logs" --ranks 4 --steps 3 >/dev/null || skip_all "gen_logs failed"
udir() { as_attacker mkdir -m 755 "$home/$1"; }

# ---- collprof analyze -o: report.json and report.html -----------------------
udir a1
farm "$home/a1" report.json report.html
as_attacker ln -s "$canary" "$home/a1/report.json"
"$cp" analyze "$t/logs" -o "$home/a1" -q 2>"$t/a1.err"
rc=$?
check "analyze: a link on report.json: refused (exit 1)" [ "$rc" -eq 1 ]
check "... the message names the link" \
    grep -q "$home/a1/report.json is a symbolic link" "$t/a1.err"
check "... root's file unchanged" canary_same
check "... no temporary file left" no_tmp "$home/a1"

udir a2
farm "$home/a2" report.json report.html
as_attacker ln -s "$canary" "$home/a2/report.html"
"$cp" analyze "$t/logs" -o "$home/a2" -q 2>"$t/a2.err"
check "analyze: a link on report.html: refused" \
    grep -q "$home/a2/report.html is a symbolic link" "$t/a2.err"
check "... root's file unchanged" canary_same

udir a3
farm "$home/a3" report.json report.html
"$cp" analyze "$t/logs" -o "$home/a3" -q 2>"$t/a3.err"
check_sh "analyze: links on temporary names only: the report is written" \
    '[ -f "$home/a3/report.json" ] && [ ! -L "$home/a3/report.json" ] &&
    [ -f "$home/a3/report.html" ] && [ ! -L "$home/a3/report.html" ]'
check "... root's file unchanged" canary_same
check "... no temporary file left" no_tmp "$home/a3"

# ---- collprof report --------------------------------------------------------
udir r1
cp "$home/a3/report.json" "$home/r1/report.json" && chown "$who" "$home/r1/report.json"
farm "$home/r1" report.html
as_attacker ln -s "$canary" "$home/r1/report.html"
"$cp" report "$home/r1/report.json" 2>"$t/r1.err"
rc=$?
check "report: a link on report.html: refused" [ "$rc" -ne 0 ]
check "... the message names the link" \
    grep -q "$home/r1/report.html is a symbolic link" "$t/r1.err"
check "... root's file unchanged" canary_same
as_attacker rm "$home/r1/report.html"
"$cp" report "$home/r1/report.json" 2>"$t/r1b.err"
check_sh "report: links on temporary names only: the page is written" \
    '[ -f "$home/r1/report.html" ] && [ ! -L "$home/r1/report.html" ]'
check "... root's file unchanged" canary_same
check "... no temporary file left" no_tmp "$home/r1"

# ---- collprof ports -o ------------------------------------------------------
udir p1
farm "$home/p1" ports-n1-start.json
as_attacker ln -s "$canary" "$home/p1/ports-n1-start.json"
"$cp" ports -o "$home/p1" --when start --node n1 --sysfs "$t/nosysfs" 2>"$t/p1.err"
rc=$?
check "ports: a link on the snapshot's name: refused" [ "$rc" -ne 0 ]
check "... the message names the link" \
    grep -q "$home/p1/ports-n1-start.json is a symbolic link" "$t/p1.err"
check "... root's file unchanged" canary_same
as_attacker rm "$home/p1/ports-n1-start.json"
umask 022
"$cp" ports -o "$home/p1" --when start --node n1 --sysfs "$t/nosysfs" 2>"$t/p1b.err"
check_sh "ports: links on temporary names only: the snapshot is written" \
    '[ -f "$home/p1/ports-n1-start.json" ] && [ ! -L "$home/p1/ports-n1-start.json" ]'
check "... root's file unchanged" canary_same
(umask 077 && "$cp" ports -o "$home/p1" --when end --node n1 --sysfs "$t/nosysfs")
check "ports: the snapshot's mode is the umask's (077: 0600, never 0644)" \
    [ "$(stat -c %a "$home/p1/ports-n1-end.json")" = 600 ]

# ---- collprof probe -o and its id file ---------------------------------------
simrun="$b/tests/simnccl/simrun"
if [ -x "$simrun" ] && [ -f "$b/tests/simnccl/lib/libnccl.so.2" ]; then
    printf 'nodes 2\nintra latency=5us bandwidth=2GB/s\ninter latency=20us bandwidth=25MB/s\n' >"$t/two.topo"
    udir pr
    farm "$home/pr" probe.json
    as_attacker ln -s "$canary" "$home/pr/probe.json"
    "$simrun" -n 2 --nodes 2 --topo "$t/two.topo" --timeout 60 -- "$cp" probe \
        -o "$home/pr" --id-dir "$home/pr" >"$t/pr.out" 2>"$t/pr.err"
    check "probe: a link on probe.json: refused" \
        grep -q "$home/pr/probe.json is a symbolic link" "$t/pr.err"
    check "... root's file unchanged" canary_same
    # the NCCL id rank 0 publishes for the others, named after the job
    udir pi
    id=.collprof-probe-ncclid.4242.0
    farm "$home/pi" "$id"
    as_attacker ln -s "$canary" "$home/pi/$id"
    SLURM_JOB_ID=4242 SLURM_STEP_ID=0 "$simrun" -n 2 --nodes 2 \
        --topo "$t/two.topo" --timeout 60 -- "$cp" probe -o "$t/pi" \
        --id-dir "$home/pi" --id-timeout 5s >"$t/pi.out" 2>"$t/pi.err"
    # rank 0 refuses to write through it, or rank 1 to read through it
    # (whichever comes first stops the other)
    check "probe: a link on the id file: refused, naming it" \
        grep -q -e "$home/pi/$id is a symbolic link" \
            -e "$home/pi/$id: a symbolic link, not followed" "$t/pi.err"
    check "... root's file unchanged" canary_same
else
    for i in 1 2 3 4; do ok 0 "# SKIP probe: tests/simnccl not built"; done
fi
done_testing
