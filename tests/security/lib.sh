# lib.sh - helpers of the security tests: an unprivileged account that
# stages attacks on what root writes and reads.  Source after tap.sh.
b=${top_builddir:-.}
cp="$b/analyzer/collprof"

# attacker NAME: create the account NAME (removed on exit if added here);
# sets $who.  Skips the test without root or the tools.
attacker() {
    [ "$(id -u)" -eq 0 ] || skip_all "needs root: the attack is on what root writes"
    for p in useradd userdel runuser python3; do
        command -v "$p" >/dev/null 2>&1 || skip_all "no $p"
    done
    who=$1
    added=
    if ! id "$who" >/dev/null 2>&1; then
        useradd -M -d /nonexistent -s /bin/sh "$who" >/dev/null 2>&1 ||
            skip_all "cannot add the test user $who"
        added=1
    fi
}
drop_attacker() { [ -n "$added" ] && userdel "$who" >/dev/null 2>&1; added=; }

as_attacker() { runuser -u "$who" -- "$@"; }

# farm DIR NAME...: as the attacker, links in DIR from every temporary name
# an output NAME was once written under (NAME.tmp.PID, NAME.tmpPID,
# .NAME.PID) for the next 3000 process ids, to $canary
farm() {
    dir=$1; shift
    as_attacker python3 - "$dir" "$canary" "$@" <<'PY'
import os, sys
d, target, names = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    last = int(open("/proc/sys/kernel/ns_last_pid").read())
except OSError:
    last = os.getpid()
for n in range(last, last + 3000):
    for name in names:
        for tmp in ("%s.tmp.%d" % (name, n), "%s.tmp%d" % (name, n),
                    ".%s.%d" % (name, n)):
            try:
                os.symlink(target, os.path.join(d, tmp))
            except FileExistsError:
                pass
PY
}

# canary_same: the canary holds what it held
canary_same() { [ "$(cat "$canary")" = "$canary_text" ]; }

# no_tmp DIR: no temporary file of ours left in DIR (only the links)
no_tmp() { [ -z "$(find "$1" -maxdepth 1 -type f -name '.*')" ]; }
