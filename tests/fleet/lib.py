#!/usr/bin/env python3
"""lib.py - helpers of tests/fleet/fleet.sh.

  lib.py sql DB STATEMENT        run STATEMENT on DB (an SQLite file, or a
                                 postgresql:// URI through psql); rows on
                                 stdout, tab-separated
  lib.py counts DB               rows of steps, step_links, step_nodes,
                                 step_ports, step_port_counters, findings
  lib.py ports DIR PLANT...      port snapshots ports-nK-{start,end}.json
                                 of n0..n3 (2 ports each, 200 Gb/s) into
                                 DIR; PLANT is errors:NODE:DEVICE (5 symbol
                                 errors more at the end) or
                                 rate:NODE:DEVICE (100 Gb/s)
  lib.py fixture KIND SRC DST    a hand-edited report: cut (its first half),
                                 schema (another schema), string (a string
                                 where links[0].bytes is a number), big
                                 (3000 long findings more), job=ID (another
                                 job id)
  lib.py copies SRC DIR N FIRST  N copies of SRC as DIR/rK.json, job ids
                                 FIRST .. FIRST+N-1
  lib.py gen DB STEPS NODES      STEPS steps over NODES nodes written
                                 straight into DB's tables (its schema made
                                 by an ingest first), for make bench: each
                                 step 8 nodes in a ring (8 pairs), a port
                                 per node; c0000-c0001 slow in 2 of 3 steps,
                                 c0008 a straggler in every 4th of its steps
"""
import json
import os
import sqlite3
import subprocess
import sys

TABLES = ("steps", "step_links", "step_nodes", "step_ports",
          "step_port_counters", "findings")


def sql(db, statement):
    if db.startswith("postgresql://") or db.startswith("postgres://"):
        out = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t", db,
                              "-c", statement], check=True,
                             capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines()]
    con = sqlite3.connect(db, timeout=60)
    try:
        rows = [[("" if v is None else str(v)) for v in r]
                for r in con.execute(statement)]
        con.commit()
    finally:
        con.close()
    return rows


def ports(d, plants):
    plants = [p.split(":") for p in plants]
    for n in range(4):
        node = "n%d" % n
        for when in ("start", "end"):
            ps = []
            for k in range(2):
                dev = "mlx5_%d" % k
                rate = 100.0 if ["rate", node, dev] in plants else 200.0
                err = 5 if when == "end" and ["errors", node, dev] in plants \
                    else 0
                ps.append({"device": dev, "port": 1, "state": "ACTIVE",
                           "phys_state": "LinkUp",
                           "link_layer": "InfiniBand",
                           "rate": "%g Gb/sec" % rate, "rate_Gbps": rate,
                           "active_width": 4, "lane_Gbps": rate / 4,
                           "from_verbs": False,
                           "counters": {"link_downed": 0,
                                        "symbol_error": err},
                           "problems": ""})
            doc = {"schema": "collprof.ports/1", "node": node, "when": when,
                   "time_ns": 1796206450000000000 +
                   (60 * 10**9 if when == "end" else 0),
                   "sysfs_root": "/sys", "verbs": False, "ports": ps}
            with open(os.path.join(d, "ports-%s-%s.json" % (node, when)),
                      "w") as f:
                json.dump(doc, f)


def fixture(kind, src, dst):
    text = open(src).read()
    if kind == "cut":
        open(dst, "w").write(text[:len(text) // 2])
        return
    r = json.loads(text)
    if kind == "schema":
        r["schema"] = "collprof.probe/1"
    elif kind == "string":
        r["links"][0]["bytes"] = str(r["links"][0]["bytes"])
    elif kind == "big":
        for i in range(3000):
            r["findings"].append({"kind": "failed_calls",
                                  "severity": "info", "nodes": ["n0"],
                                  "ranks": [0], "message": "x" * 400,
                                  "evidence": {"failed_calls": i}})
    elif kind.startswith("job="):
        r["job"]["job_id"] = kind[4:]
    json.dump(r, open(dst, "w"))


def gen_rows(steps, nodes):
    """The rows of each table, as lists of tuples of text or None."""
    t = {k: [] for k in ("steps", "step_links", "step_nodes", "step_ports")}
    for k in range(steps):
        key = ("bench", "g%d" % k, "0")
        first = (k * 8) % nodes
        ring = ["c%04d" % ((first + i) % nodes) for i in range(8)]
        end = "2026-%02d-%02dT%02d:%02d:00Z" % (1 + k // 40000 % 12,
                                                1 + k // 1440 % 28,
                                                k // 60 % 24, k % 60)
        t["steps"].append(key + ("u%d" % (k % 47), " ".join(ring), "8", "16",
                                 None, end, "60", "0.1.0", "%064x" % k,
                                 "bench.json", end, "caller", "caller",
                                 "caller", "caller", "caller"))
        for i in range(8):
            a, b = sorted((ring[i], ring[(i + 1) % 8]))
            slow = (a, b) == ("c0000", "c0001") and k % 3 != 0
            t["step_links"].append(key + (a, b, "slow" if slow else "ok",
                                          "calls", "1e9", "100", "80",
                                          "2.5e9" if slow else "1e10",
                                          "1e10", "0.25" if slow else "1",
                                          None))
            strag = ring[i] == "c0008" and k // max(nodes // 8, 1) % 4 == 0
            t["step_nodes"].append(key + (ring[i], "2", "5", "0.01", "0",
                                          "1" if strag else "0", "0",
                                          "in_call" if strag else None,
                                          "0.005" if strag else None))
            t["step_ports"].append(key + (ring[i], "mlx5_0", "1", "ACTIVE",
                                          "InfiniBand", "200", "200", "0"))
    return t


def gen(db, steps, nodes):
    t = gen_rows(steps, nodes)
    if db.startswith("postgres"):
        import csv, io
        for table, rows in t.items():
            buf = io.StringIO()
            w = csv.writer(buf)
            for r in rows:
                w.writerow(["" if v is None else v for v in r])
            subprocess.run(["psql", "-X", "-q", db, "-c",
                            "COPY %s FROM STDIN WITH (FORMAT csv)" % table],
                           input=buf.getvalue(), text=True, check=True)
        return
    con = sqlite3.connect(db, timeout=60)
    for table, rows in t.items():
        con.executemany("INSERT INTO %s VALUES (%s)" %
                        (table, ", ".join("?" * len(rows[0]))), rows)
    con.commit()
    con.close()


def main():
    cmd = sys.argv[1]
    if cmd == "sql":
        for row in sql(sys.argv[2], sys.argv[3]):
            print("\t".join(row))
    elif cmd == "counts":
        print(" ".join(sql(sys.argv[2], "SELECT COUNT(*) FROM %s" % t)[0][0]
                       for t in TABLES))
    elif cmd == "ports":
        ports(sys.argv[2], sys.argv[3:])
    elif cmd == "fixture":
        fixture(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "copies":
        r = json.load(open(sys.argv[2]))
        for k in range(int(sys.argv[4])):
            r["job"]["job_id"] = str(int(sys.argv[5]) + k)
            with open(os.path.join(sys.argv[3], "r%d.json" % k), "w") as f:
                json.dump(r, f)
    elif cmd == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit("lib.py: unknown command " + cmd)


main()
