#!/usr/bin/env python3
"""window_calls.py REPORT LOGS COLLPROF FROM_NS TO_NS - how many calls of
the logs start in [FROM_NS, TO_NS) of the run: each call's start (collprof
dump --csv) less its node's clock offset (the whole run's report.json),
counted from the earliest such start.  What collprof analyze --from/--to
should join (docs/analysis.md, "Windows"); window.sh and winseek.sh."""
import csv
import json
import subprocess
import sys

report, logs, collprof, lo, hi = sys.argv[1:6]
rep = json.load(open(report))
off = {n["node"]: n["offset_s"] or 0 for n in rep["clock_offsets"]["nodes"]}
out = subprocess.run([collprof, "dump", "--csv", logs], capture_output=True,
                     text=True, check=True).stdout
t = [int(r["start_ns"]) - round(off[r["node"]] * 1e9)
     for r in csv.DictReader(out.splitlines())]
t0 = min(t)
print(sum(1 for x in t if int(lo) <= x - t0 < int(hi)))
