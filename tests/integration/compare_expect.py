#!/usr/bin/env python3
"""compare_expect.py DUMP_CSV EXPECT_TEMPLATE NRANKS

Checks a `collprof dump --csv` of a train_sim run against the calls
train_sim says it made (--expect FILE.%d, one file per rank):
  - every call is recorded exactly once, in order, on every rank, with the
    right op, count, datatype, root/peer and sequence number;
  - communicators: the same train_sim name maps to one id on every rank and
    different names to different ids; nranks equals the members seen.
Prints TAP lines (no plan); exit status 1 on any failure.
"""
import csv
import sys

dump, template, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(dump)))
failed = 0
n = 0


def ok(cond, name):
    global failed, n
    n += 1
    print("%sok - %s" % ("" if cond else "not ", name))
    if not cond:
        failed += 1
    return cond


by_rank = {}
for r in rows:
    by_rank.setdefault(int(r["rank"]), []).append(r)

DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"]
name_to_id, id_to_name, members, sizes = {}, {}, {}, {}
for rank in range(nranks):
    want = list(csv.DictReader(open(template % rank)))
    got = by_rank.get(rank, [])
    if not ok(len(got) == len(want),
              "rank %d: %d records for %d calls" % (rank, len(got), len(want))):
        continue
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        same = (g["op"] == w["op"] and int(g["count"]) == int(w["count"])
                and g["seq"] == w["seq"] and int(g["peer"]) == int(w["peer"])
                and g["result"] == "0"
                and g["dtype"] == DTYPES[int(w["dtype"])])
        if not same:
            bad.append("call %d: got %s/%s/%s/seq %s/peer %s, want %s/%s/%s/seq %s/peer %s"
                       % (i, g["op"], g["count"], g["dtype"], g["seq"], g["peer"],
                          w["op"], w["count"], DTYPES[int(w["dtype"])], w["seq"],
                          w["peer"]))
        cid = g["comm"]
        if name_to_id.setdefault(w["comm"], cid) != cid:
            bad.append("call %d: comm %s has ids %s and %s"
                       % (i, w["comm"], name_to_id[w["comm"]], cid))
        if id_to_name.setdefault(cid, w["comm"]) != w["comm"]:
            bad.append("call %d: id %s used for %s and %s"
                       % (i, cid, id_to_name[cid], w["comm"]))
        members.setdefault(cid, set()).add(rank)
        sizes.setdefault(cid, set()).add(int(g["nranks"]))
    ok(not bad, "rank %d: every call once, in order, op/count/peer/seq/comm right" % rank)
    for b in bad[:5]:
        print("# " + b)

for cid, m in sorted(members.items()):
    ok(sizes[cid] == {len(m)},
       "comm %s (%s): nranks %s = %d members seen"
       % (cid, id_to_name[cid], sorted(sizes[cid]), len(m)))
sys.exit(1 if failed else 0)
