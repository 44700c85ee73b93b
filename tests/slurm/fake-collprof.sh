#!/bin/sh
# fake-collprof.sh - stands in for `collprof` in the plugin's tests, so that
# the plugin's side of `collprof analyze` (the verdict, report.json, syslog,
# the alert hook, time limits) is tested whatever state the analyzer is in.
# Installed as DIR/fake/collprof; other commands go to DIR/collprof, the
# real one.  FAKE_ANALYZE (from srun's environment) picks the behaviour:
#   ok (default)  a 2-line verdict, report.json with a critical slow_link
#                 n2-n3 and a warning
#   long          a 9-line verdict (the plugin prints at most 5 lines)
#   hang          never ends (the plugin's time limit must stop it)
#   fail          exit 3 with a message on stderr
#   none          no analyze command at all (like an older collprof)
# FAKE_PROFILE=FILE instead runs the real analyzer with --profile FILE (the
# site profile a real site keeps in $(sysconfdir)/collprof/profile).
# FAKE_PROBE (from the probe's environment, on the nodes) for `probe`:
#   hang          never ends (probe_timeout must stop it)
#   fail          exit 1 with a message on stderr
# and the real probe otherwise.
real=$(dirname "$0")/../collprof
mode=${FAKE_ANALYZE:-ok}
if [ "${1:-}" = probe ] && [ "${2:-}" != --help ]; then
    case ${FAKE_PROBE:-} in
    hang) exec sleep 100000 ;;
    fail) echo "collprof probe: rank 0: ncclCommInitRank failed" >&2; exit 1 ;;
    esac
fi
if [ "${1:-}" = analyze ] && [ -n "${FAKE_PROFILE:-}" ] && [ "${2:-}" != --help ]; then
    exec "$real" "$@" --profile "$FAKE_PROFILE"
fi
if [ "${1:-}" != analyze ] || [ "$mode" = none ]; then
    exec "$real" "$@"
fi
shift
case ${1:-} in --help) echo "usage: collprof analyze DIR -o OUT"; exit 0 ;; esac
dir=$1 out=$3
[ "${2:-}" = -o ] && [ -d "$dir" ] && [ -d "$out" ] || {
    echo "collprof analyze: usage: collprof analyze DIR -o OUT" >&2; exit 2; }
# rank logs: the shim's (capture=both writes a plugin log beside each)
logs=$(ls "$dir" 2>/dev/null | grep '\.cplog$' | grep -v -c '\.nccl\.cplog$')
printf '%s\n' "analyze $dir -o $out" "uid $(id -u)" "logs $logs" "cwd $(pwd -P)" \
    >"$out/fake-analyze.txt"
case $mode in
hang) exec sleep 100000 ;;
fail) echo "collprof analyze: $dir: the logs are damaged" >&2; exit 3 ;;
esac
cat >"$out/report.json" <<JSON
{"schema": "collprof.report/1",
 "findings": [
  {"kind": "slow_link", "severity": "critical", "nodes": ["n2", "n3"],
   "ranks": [2, 3, 4, 5], "message": "link n2-n3 runs at 50 MB/s, its peers at 400 MB/s",
   "evidence": {}},
  {"kind": "latency_bound", "severity": "warning", "nodes": [], "ranks": [],
   "message": "62% of communication time is in calls under 64 KiB", "evidence": {}},
  {"kind": "note", "severity": "info", "nodes": [], "ranks": [], "message": "fine", "evidence": {}}
 ]}
JSON
echo "slow link n2-n3: 50 MB/s against 400 MB/s on the other links ($logs rank logs)"
echo "latency-bound: 62% of communication time in calls under 64 KiB"
if [ "$mode" = long ]; then
    for i in 3 4 5 6 7 8 9; do echo "verdict line $i"; done
fi
exit 0
