#!/bin/sh
# install.sh - make install prefix=P gives P/bin/collprof and
# P/lib/libcollprof.so, and the installed collprof finds its own shim.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/lib.sh"
need "$collprof" "$shim"

p=$work/prefix
make -C "$b" install prefix="$p" >"$work/install.log" 2>&1
ok $? "make install prefix=P"
check "P/bin/collprof installed" test -x "$p/bin/collprof"
check "P/lib/libcollprof.so installed" test -f "$p/lib/libcollprof.so"
out=$(LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 COLLPROF_PRELOAD= \
    "$p/bin/collprof" record -q -o "$work/logs" -- sh -c 'echo "$LD_PRELOAD"')
ok $? "installed collprof record runs a command"
case $out in
"$p/lib/libcollprof.so:/lib/x86_64-linux-gnu/libm.so.6") ok 0 "the installed shim is prepended to the user's LD_PRELOAD" ;;
*) ok 1 "the installed shim is prepended to the user's LD_PRELOAD (got '$out')" ;;
esac
"$p/bin/collprof" record -q -o "$work/logs2" -- sh -c 'exit 7'
ok $([ $? -eq 7 ]; echo $?) "record returns the command's exit status"
"$p/bin/collprof" record -o "$work/logs3" -- /nonexistent/prog 2>"$work/err"
ok $([ $? -eq 127 ]; echo $?) "a command that cannot run: status 127"
grep -q "cannot run /nonexistent/prog" "$work/err"
ok $? "and a message naming it"
"$p/bin/collprof" dump "$work/nothing" 2>"$work/err2"
ok $([ $? -eq 1 ]; echo $?) "dump of a missing directory fails"
grep -q "collprof: $work/nothing" "$work/err2"
ok $? "naming it: $(cat "$work/err2")"
"$p/bin/collprof" bogus 2>/dev/null
ok $([ $? -eq 2 ]; echo $?) "unknown command: status 2"
"$p/bin/collprof" --help | grep -q "record"
ok $? "--help lists the commands"
check "P/share/man/man1/collprof.1 installed" test -f "$p/share/man/man1/collprof.1"
check "man collprof shows the page (with trace)" sh -c \
    "MANPATH='$p/share/man' MANWIDTH=80 man collprof 2>/dev/null | grep -q 'collprof trace'"
if [ -f "$b/plugin/.libs/spank_collprof.so" ]; then
    check "man spank_collprof shows the page" sh -c \
        "MANPATH='$p/share/man' MANWIDTH=80 man spank_collprof 2>/dev/null | grep -q 'SPANK plugin'"
fi
done_testing
