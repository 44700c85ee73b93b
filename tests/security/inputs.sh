#!/bin/sh
# inputs.sh - what collprof reads: a fifo named x.cplog is refused at once
# (it used to block the analysis forever), a log that is a symbolic link is
# refused unless --follow-symlinks, and followed then only to a file of the
# invoking user: root analysing a user's directory of links to another
# user's logs reads none of them (docs/security.md).
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
command -v timeout >/dev/null 2>&1 || skip_all "no timeout"
t=$(mktemp -d /tmp/cp-secin-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$t"; drop_attacker' EXIT INT TERM
chmod 755 "$t"
"$gen" -o "$t/logs" --ranks 4 --steps 3 >/dev/null || skip_all "gen_logs failed"

# ---- a fifo named like a log ---------------------------------------------------
cp -r "$t/logs" "$t/fifo"
mkfifo "$t/fifo/x.cplog"
timeout 30 "$cp" analyze "$t/fifo" -o "$t/fifo.out" -q 2>"$t/fifo.err"
rc=$?
check "analyze: a fifo x.cplog does not block (no timeout)" [ "$rc" -ne 124 ]
check_sh "... the analysis of the other logs ran" '[ "$rc" -eq 0 ] &&
    [ -f "$t/fifo.out/report.json" ]'
check "... the fifo is named, as not a regular file" \
    grep -q "$t/fifo/x.cplog: not a regular file (a fifo)" "$t/fifo.err"
timeout 30 "$cp" analyze "$t/fifo/x.cplog" -o "$t/fifo1.out" -q 2>"$t/fifo1.err"
rc=$?
check "analyze FIFO: refused at once (exit 1, no timeout)" [ "$rc" -eq 1 ]
timeout 30 "$cp" dump --summary "$t/fifo" >"$t/dump.out" 2>"$t/dump.err"
rc=$?
check "dump: a fifo does not block" [ "$rc" -ne 124 ]
check "... named" grep -q "x.cplog: not a regular file" "$t/dump.err"
check "... the other logs dumped" [ "$(wc -l <"$t/dump.out")" -eq 4 ]

# ---- a log that is a symbolic link -------------------------------------------
mkdir "$t/links"
for f in "$t/logs"/*.cplog; do ln -s "$f" "$t/links/$(basename "$f")"; done
"$cp" analyze "$t/links" -o "$t/links.out" -q 2>"$t/links.err"
rc=$?
check "analyze: logs that are links: refused (no readable log, exit 1)" \
    [ "$rc" -eq 1 ]
check "... a link named" grep -q "$t/links/n0.10000.cplog: a symbolic link, not followed" "$t/links.err"
check "... the message says how to follow them" \
    grep -q -- '--follow-symlinks' "$t/links.err"
mkdir "$t/mixed"
cp "$t/logs"/n0.* "$t/logs"/n1.10002.cplog "$t/mixed/"
ln -s "$t/logs/n1.10003.cplog" "$t/mixed/n1.10003.cplog"
"$cp" analyze "$t/mixed" -o "$t/mixed.out" -q 2>"$t/mixed.err"
check "analyze: one log a link among files: the files are analyzed" \
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); f=r['inputs']['files']; sys.exit(0 if [x['status'] for x in f] == ['ok']*3 + ['unreadable'] else 1)" "$t/mixed.out/report.json"
check "... the link named on stderr" \
    grep -q "$t/mixed/n1.10003.cplog: a symbolic link, not followed" "$t/mixed.err"
"$cp" analyze --follow-symlinks "$t/links" -o "$t/links2.out" -q 2>"$t/links2.err"
check "analyze --follow-symlinks: links to the invoking user's logs are read" \
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if [x['status'] for x in r['inputs']['files']] == ['ok']*4 else 1)" "$t/links2.out/report.json"

# ---- node names with escape sequences and newlines ------------------------------
mkdir "$t/names"
cp "$t/logs/n0.10000.cplog" "$t/names/"
python3 - "$t/names/n0.10000.cplog" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
name = b"n\x1b]0;owned\x07\x1b[31m\nrank,evil\\x"  # node[64] at offset 96
d[96:160] = name + bytes(64 - len(name))
open(p, "wb").write(bytes(d))
PY
calls=$("$cp" dump --csv "$t/logs/n0.10000.cplog" | wc -l)
"$cp" dump --csv "$t/names" >"$t/names.csv" 2>&1
check "dump --csv: a node name with a newline and commas: one row per call" \
    [ "$(wc -l <"$t/names.csv")" -eq "$calls" ]
check "... every row has the header's 19 columns" \
    python3 -c "import sys; rows=open(sys.argv[1]).read().splitlines(); sys.exit(0 if all(len(r.split(',')) == 19 for r in rows) else 1)" "$t/names.csv"
check "... no escape character reaches the output" \
    python3 -c "import sys; sys.exit(1 if b'\x1b' in open(sys.argv[1],'rb').read() else 0)" "$t/names.csv"
check "... the name shown escaped" grep -q 'n\\x1b\]0;owned\\x07' "$t/names.csv"
"$cp" dump --summary "$t/names" >"$t/names.sum" 2>&1
check "dump --summary: one line, no escape character" \
    python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(0 if b'\x1b' not in d and d.count(b'\n') == 1 else 1)" "$t/names.sum"
"$cp" dump --all "$t/names" >"$t/names.txt" 2>&1
check "dump: one line per record, no escape character" \
    python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.exit(0 if b'\x1b' not in d and all(l.startswith(b'rank 0 node ') for l in d.splitlines()) else 1)" "$t/names.txt"

# ---- reading leaves the logs as they were -------------------------------------
# Their access times too: on a relatime mount the first read after a write
# would set them (a journal update per log); the reader opens with O_NOATIME.
cp -r "$t/logs" "$t/atime"
touch -a -d 2020-01-01 "$t/atime"/*.cplog
atimes() { stat -c %X "$t/atime"/*.cplog | sort -u | tr '\n' ' '; }
before=$(atimes)
"$cp" analyze "$t/atime" -o "$t/atime.out" -q 2>"$t/atime.err"
check_sh "analyze: the logs' access times are unchanged ($before-> $(atimes))" \
    '[ "$(atimes)" = "$before" ] && [ -f "$t/atime.out/report.json" ]'

# ---- root and another user's logs ---------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null 2>&1 &&
    command -v runuser >/dev/null 2>&1; then
    attacker cpsec_in
    # the victim's logs (here: the attacker's own account stands for any
    # user other than the one running collprof)
    cp -r "$t/logs" "$t/victim" && chown -R "$who" "$t/victim" &&
        chmod 700 "$t/victim"
    mkdir "$t/vlinks"
    for f in "$t/victim"/*.cplog; do ln -s "$f" "$t/vlinks/$(basename "$f")"; done
    chown -h "$who" "$t/vlinks"/*
    "$cp" analyze --follow-symlinks "$t/vlinks" -o "$t/root.out" -q 2>"$t/root.err"
    rc=$?
    check_sh "root, --follow-symlinks: links to another user's logs not followed" \
        '[ "$rc" -eq 1 ] && [ ! -f "$t/root.out/report.json" ]'
    check "... named, with the owner" grep -q \
        "vlinks/n0.10000.cplog: a symbolic link to a file of another user (uid $(id -u "$who"))" \
        "$t/root.err"
    # A user who may read logs but does not own them: the kernel refuses
    # O_NOATIME to a non-owner (EPERM) and the reader opens without it.
    cp -r "$t/logs" "$t/shared" && chmod 755 "$t/shared" &&
        chmod 644 "$t/shared"/*.cplog
    mkdir "$t/other" && chown "$who" "$t/other"
    # a copy the other user can run (the build tree may be root's alone)
    cp "$cp" "$t/collprof" && chmod 755 "$t/collprof"
    as_attacker "$t/collprof" analyze "$t/shared" -o "$t/other/out" -q 2>"$t/other.err"
    check "another user's readable logs: analyzed (O_NOATIME refused, opened without)" \
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if [x['status'] for x in r['inputs']['files']] == ['ok']*4 else 1)" "$t/other/out/report.json"
else
    ok 0 "# SKIP root and another user's logs: needs root, useradd, runuser"
    ok 0 "# SKIP root and another user's logs: needs root, useradd, runuser"
    ok 0 "# SKIP root and another user's logs: needs root, useradd, runuser"
fi
done_testing
