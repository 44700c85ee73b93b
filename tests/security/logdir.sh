#!/bin/sh
# logdir.sh - root's reads stay in the directory it was given
# (docs/security.md, "The directory given"):
# - a log directory that is another user's symbolic link (to a victim's
#   logs) is refused by analyze, reduce, trace and dump, with or without a
#   trailing slash, and nothing of the victim's is read or written;
# - the directory swapped for such a link while reduce runs: the partial
#   holds the logs of the directory reduce was given, none of the victim's;
# - --follow-symlinks looks at a link's target before opening it: a link to
#   a fifo (whose opening a writer would see) or to a device is refused,
#   unopened;
# - file names, names of logs inside a partial and node names from log
#   headers reach stderr and stdout with their control characters escaped.
. "${top_srcdir:-.}/tests/tap.sh"
. "${top_srcdir:-.}/tests/security/lib.sh"
gen="$b/tests/tools/gen_logs"
[ -x "$cp" ] || skip_all "collprof not built"
[ -x "$gen" ] || skip_all "tests/tools/gen_logs not built"
for p in timeout python3; do
    command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
done
t=$(mktemp -d /tmp/cp-secdir-XXXXXX)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$t"; drop_attacker' EXIT INT TERM
chmod 755 "$t"
"$gen" -o "$t/logs" --ranks 4 --steps 3 >/dev/null || skip_all "gen_logs failed"

# no escape character, no BEL, and every line a collprof line: FILE
clean_lines() {
    python3 -c "
import sys
d = open(sys.argv[1], 'rb').read()
bad = [c for c in (b'\x1b', b'\x07', b'\r') if c in d]
lines = d.splitlines()
sys.exit(1 if bad or not lines or
         not all(l.startswith(b'collprof') for l in lines) else 0)" "$1"
}

# ---- 7: --follow-symlinks looks at the target before opening it ---------------
mkdir "$t/f7"
cp "$t/logs"/n0.* "$t/f7/"
mkfifo "$t/f7/target"
ln -s target "$t/f7/x.cplog"
ln -s /dev/null "$t/f7/y.cplog"
# a writer blocked in opening the fifo goes on once anything opens it for
# reading (even non-blocking, even closed at once): it leaves a mark
( exec 3>"$t/f7/target"; echo opened >"$t/f7.opened" ) &
writer=$!
timeout 30 "$cp" analyze --follow-symlinks "$t/f7" -o "$t/f7.out" -q 2>"$t/f7.err"
rc=$?
sleep 1
check "--follow-symlinks: a link to a fifo is not opened (its writer still waits)" \
    [ ! -e "$t/f7.opened" ]
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
writer=
[ "$rc" -eq 0 ] && [ -f "$t/f7.out/report.json" ]
ok $? "... the analysis ran on the other logs (exit $rc)"
check "... the link to the fifo named, as not a regular file" \
    grep -q "$t/f7/x.cplog: a symbolic link to a fifo, not a regular file; not opened" "$t/f7.err"
check "... a link to /dev/null too, as a device" \
    grep -q "$t/f7/y.cplog: a symbolic link to a device, not a regular file; not opened" "$t/f7.err"
timeout 30 "$cp" dump --follow-symlinks --summary "$t/f7" >"$t/f7.dump" 2>"$t/f7d.err"
[ "$(wc -l <"$t/f7.dump")" -eq 2 ] &&
    [ "$(grep -c 'not a regular file; not opened' "$t/f7d.err")" -eq 2 ]
ok $? "dump --follow-symlinks: the same (two logs dumped, both links named)"

# ---- 8: names from the inputs reach the terminal escaped ---------------------
esc=$(printf 'n\033]0;owned\007\033[31m\nfake')
mkdir "$t/names8"
: >"$t/names8/$esc.cplog" # an empty file: named in a message
timeout 30 "$cp" analyze "$t/names8" -o "$t/names8.out" -q 2>"$t/names8.err"
check "analyze: a file name with escape sequences and a newline: escaped on stderr" \
    clean_lines "$t/names8.err"
check "... shown as \\xHH" grep -q 'n\\x1b\]0;owned\\x07\\x1b\[31m\\x0afake.cplog' "$t/names8.err"
timeout 30 "$cp" dump "$t/names8" >/dev/null 2>"$t/names8d.err"
check "dump: the same file name escaped on stderr" clean_lines "$t/names8d.err"
# a log of that name held by a partial, its data damaged: the note names it
mkdir "$t/part8"
cp "$t/logs/n0.10000.cplog" "$t/part8/$esc.cplog"
"$cp" reduce --node n0 -q "$t/part8" 2>"$t/part8r.err"
rm -f "$t/part8/$esc.cplog"
python3 - "$t/part8/n0.cppart" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
d[-20] ^= 0xff  # a byte of the log's data: its checksum fails
open(p, "wb").write(bytes(d))
PY
cp "$t/logs/n0.10001.cplog" "$t/part8/"
timeout 30 "$cp" analyze "$t/part8" -o "$t/part8.out" -q 2>"$t/part8.err"
[ -s "$t/part8.err" ] && clean_lines "$t/part8.err"
ok $? "analyze: a damaged partial's log name escaped on stderr"
check "... the name shown" grep -q 'n\\x1b\]0;owned' "$t/part8.err"
# a node name with escape sequences, in a note about its partial
mkdir "$t/node8"
cp "$t/logs"/n0.* "$t/node8/"
"$cp" reduce --node n0 -q "$t/node8"
cp "$t/logs/n1.10002.cplog" "$t/node8/"
python3 - "$t/node8/n1.10002.cplog" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
name = b"n\x1b]0;owned\x07\x1b[31m\nfake"  # node[64] at offset 96
d[96:160] = name + bytes(64 - len(name))
open(p, "wb").write(bytes(d))
PY
timeout 30 "$cp" analyze "$t/node8" -o "$t/node8.out" -q 2>"$t/node8.err"
[ -s "$t/node8.err" ] && clean_lines "$t/node8.err"
ok $? "analyze: a node name from a log header escaped on stderr"
check "... the node shown" grep -q 'node n\\x1b\]0;owned' "$t/node8.err"
# the verdict names a straggler's node (a guard: the analysis's own node
# names were already made printable)
"$gen" -o "$t/verdict8" --ranks 8 --ranks-per-node 2 --steps 20 \
    --straggler 4=5ms >/dev/null
for f in "$t/verdict8"/n2.*; do
    python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
name = b"n\x1b]0;owned\x07\x1b[31m\nfake"  # node[64] at offset 96
d[96:160] = name + bytes(64 - len(name))
open(p, "wb").write(bytes(d))
PY
done
timeout 60 "$cp" analyze "$t/verdict8" -o "$t/verdict8.out" >"$t/verdict8.txt" 2>&1
grep -q 'straggler rank 4 on n' "$t/verdict8.txt" && clean_lines "$t/verdict8.txt"
ok $? "analyze: the verdict names a node from a log header, escaped"

# ---- 1: the directory given is opened once, no other user's link followed -------
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null 2>&1 &&
    command -v runuser >/dev/null 2>&1; then
    attacker cpsec_dir
    # the victim: another user's logs (root's here, 0700; any user but the
    # attacker), of job 4242; the attacker's own logs are of job 1111
    "$gen" -o "$t/victim" --ranks 4 --steps 3 --job-id 4242 >/dev/null
    chmod 700 "$t/victim"
    home="$t/home"
    mkdir "$home" && chown "$who" "$home" && chmod 755 "$home"
    as_attacker ln -s "$t/victim" "$home/run"
    for form in run run/; do
        rm -rf "$home/out"
        "$cp" analyze "$home/$form" -o "$home/out" -q 2>"$t/a1.err"
        rc=$?
        [ "$rc" -eq 1 ] && [ ! -e "$home/out/report.json" ]
        ok $? "analyze DIR, DIR another user's link ($form): refused (exit $rc), no report"
        check "... the link named, with its owner" \
            grep -q "$home/$form: run is a symbolic link of another user (uid $(id -u "$who")); not followed" "$t/a1.err"
    done
    "$cp" reduce --node n0 "$home/run" 2>"$t/r1.err"
    rc=$?
    [ "$rc" -eq 1 ] && [ -z "$(find "$t/victim" "$home" -name '*.cppart*')" ]
    ok $? "reduce: refused (exit $rc), no partial of the victim's logs anywhere"
    "$cp" trace "$home/run" -o "$home/t.json" 2>"$t/t1.err"
    rc=$?
    [ "$rc" -eq 1 ] && [ ! -e "$home/t.json" ]
    ok $? "trace: refused (exit $rc), no trace"
    "$cp" dump --summary "$home/run" >"$t/d1.out" 2>"$t/d1.err"
    rc=$?
    [ "$rc" -eq 1 ] && [ ! -s "$t/d1.out" ] &&
        grep -q "symbolic link of another user" "$t/d1.err"
    ok $? "dump: refused (exit $rc), nothing dumped"
    check "analyze DIR/FILE through the link: refused too" \
        sh -c '! "$1" analyze "$2/run/n0.10000.cplog" -o "$2/out" -q 2>/dev/null' \
        sh "$cp" "$home"
    # a link deeper in the directory given (DIR/probe, read automatically)
    mkdir "$t/vprobe" && echo '{"victim": 4242}' >"$t/vprobe/probe.json"
    chmod 700 "$t/vprobe"
    mkdir "$home/deep" && cp "$t/logs"/*.cplog "$home/deep/" &&
        chown -R "$who" "$home/deep"
    as_attacker ln -s "$t/vprobe" "$home/deep/probe"
    "$cp" analyze "$home/deep" -o "$t/deep.out" -q 2>"$t/deep.err"
    ! grep -q "schema" "$t/deep.err" && grep -q "probe/probe.json" "$t/deep.err"
    ok $? "analyze: DIR/probe another user's link: the victim's probe.json is not read"
    # root's own link to a directory is followed as before
    ln -s "$t/logs" "$t/rootlink"
    "$cp" analyze "$t/rootlink/" -o "$t/rootlink.out" -q 2>"$t/rl.err"
    check "analyze through the invoking user's own link: analysed" \
        [ -f "$t/rootlink.out/report.json" ]

    # the race: the attacker's real directory of big logs of node n0, swapped
    # for a link to the victim's directory (same names, node n0) once
    # reduce's temporary partial appears; reduce paused there to make the
    # swap land before it opens the logs again
    rm -rf "$t/victim" "$home/run"
    "$gen" -o "$t/victim" --ranks 8 --ranks-per-node 8 --steps 400 \
        --job-id 4242 >/dev/null
    "$gen" -o "$home/run" --ranks 8 --ranks-per-node 8 --steps 400 \
        --job-id 1111 >/dev/null
    chown -R "$who" "$home/run"
    chmod 700 "$t/victim"
    python3 - "$cp" "$home" "$t/victim" "$who" <<'PY' >"$t/race.out" 2>&1
import os, pwd, signal, subprocess, sys, time
cp, home, victim, who = sys.argv[1:5]
run = os.path.join(home, "run")
uid = pwd.getpwnam(who).pw_uid
p = subprocess.Popen([cp, "reduce", "--node", "n0", "-q", run])
seen = False
deadline = time.time() + 60
while p.poll() is None and time.time() < deadline:
    if any(n.startswith(".n0.cppart.") for n in os.listdir(run)):
        os.kill(p.pid, signal.SIGSTOP)
        os.rename(run, os.path.join(home, "real"))
        os.symlink(victim, run)
        os.lchown(run, uid, -1)
        os.kill(p.pid, signal.SIGCONT)
        seen = True
        break
p.wait()
if not seen:  # reduce finished before it was seen: the directory as it is
    os.rename(run, os.path.join(home, "real"))
print("swapped" if seen else "not seen", "exit", p.returncode)
PY
    diag "race: $(cat "$t/race.out")"
    "$cp" analyze "$home/real/n0.cppart" -o "$t/race.rep" -q 2>/dev/null
    check "reduce, directory swapped for a link mid-run: the partial holds no victim's log" \
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); j=json.dumps(r.get('job')); sys.exit(0 if '4242' not in j and '1111' in j else 1)" "$t/race.rep/report.json"
    check "... nothing written in the victim's directory" \
        [ -z "$(find "$t/victim" -name '*.cppart*')" ]
else
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        ok 0 "# SKIP the directory given as another user's link: needs root, useradd, runuser"
    done
fi
done_testing
