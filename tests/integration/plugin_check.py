#!/usr/bin/env python3
"""plugin_check.py - checks of the NCCL profiler plugin's records.

usage: plugin_check.py DUMP NRANKS [SENDS]

DUMP is `collprof dump --all` of a plugin log directory of a ring job
(train_sim --pattern ddp on simnccl).  Prints TAP lines (no plan) and exits
non-zero when one fails.  What holds for every rank:
  - collective seqs per communicator are 0..n-1, each call has exactly one
    nccl record (Ring/Simple, its seq) and one gpu record (kernel_ch timer)
    that starts no earlier than the call's task started (1 ms slack for the
    calibration) and lasts > 0;
  - every all-reduce of B bytes sends 2(p-1)/p*B bytes (up to whole
    elements) to the next rank of the ring and receives as much from the
    previous one, in proxy records whose
    steps (when present) add up to their bytes and step count;
  - or, in the plugin's default mode (link records, kind 11): sends that
    many bytes to the next rank in one link record per call and peer,
    and no receive, no proxy or step record.
SENDS, when given, is written with one line per call and peer sent to:
"rank comm seq op peer bytes", from link or proxy records alike, the
communicator numbered by its first call in the rank's log (two runs of
the same job in two modes compare equal).
"""
import collections
import re
import sys

fails = 0
n = 0


def ok(cond, name):
    global fails, n
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, name))
    if not cond:
        fails += 1


def check_links(r, calls, links, proxies, steps, nranks):
    """The default mode's checks of rank r: its link records."""
    nxt = (r + 1) % nranks
    ok(not proxies and not steps, "rank %d: no proxy or step record beside "
       "the link records (%d, %d)" % (r, len(proxies), len(steps)))
    ok(all(l["dir"] == "send" for l in links), "rank %d: link records of "
       "sends only" % r)
    keys = [(l["slot"], l["peer"]) for l in links]
    ok(len(keys) == len(set(keys)) and all(l["slot"] in calls for l in links),
       "rank %d: one link record per call and peer, each naming its call"
       % r)
    bad = 0
    for s, c in calls.items():
        if c["op"] != "allreduce":
            continue
        want = 2 * (nranks - 1) * c["bytes"] // nranks
        mine = [l for l in links if l["slot"] == s]
        sent = sum(l["bytes"] for l in mine if l["peer"] == nxt)
        slack = 2 * (nranks - 1) * 8
        if abs(sent - want) > slack or len(mine) != 1:
            bad += 1
    ok(bad == 0, "rank %d: all-reduce links: 2(p-1)/p of the bytes to rank "
       "%d, nothing else (%d wrong)" % (r, nxt, bad))
    bad = [l for l in links if l["steps"] == 0 or l["channels"] == 0]
    ok(not bad, "rank %d: every link record with its steps and channels "
       "(%d without)" % (r, len(bad)))


def main():
    path, nranks = sys.argv[1], int(sys.argv[2])
    calls = collections.defaultdict(dict)   # rank -> slot -> call
    nccl = collections.defaultdict(dict)    # rank -> call slot -> nccl
    gpu = collections.defaultdict(dict)     # rank -> call slot -> gpu
    proxies = collections.defaultdict(list)  # rank -> proxies
    links = collections.defaultdict(list)    # rank -> link records
    steps = collections.defaultdict(lambda: collections.defaultdict(list))
    slot = collections.defaultdict(int)
    call_re = re.compile(r"^rank (\d+) node \S+ comm (\S+) seq (\d+) (\S+) "
                         r"\S+ x \d+ \((\d+) B\).* start (\d+) dur")
    for line in open(path):
        f = line.split()
        rank = int(f[1])
        m = call_re.match(line)
        if m:
            # dump prints records in slot order; slots are not printed for
            # calls, but every record takes one: count them
            calls[rank][slot[rank]] = dict(comm=m.group(2), seq=int(m.group(3)),
                                           op=m.group(4), bytes=int(m.group(5)),
                                           start=int(m.group(6)))
        elif f[4] == "nccl":
            nccl[rank][int(f[6])] = dict(seq=int(f[10]), algo=f[14],
                                         proto=f[16], flags=int(f[24], 16))
        elif f[4] == "gpu":
            gpu[rank][int(f[6])] = dict(timer=f[8], start=int(f[12]),
                                        dur=float(f[14]))
        elif f[4] == "proxy":
            proxies[rank].append(dict(slot=int(f[6]), pslot=slot[rank],
                                      dir=f[9], peer=int(f[11]),
                                      steps=f[15], bytes=int(f[17])))
        elif f[4] == "link":
            links[rank].append(dict(slot=int(f[6]), dir=f[9],
                                    peer=int(f[11]), channels=int(f[13]),
                                    steps=int(f[15]), bytes=int(f[17])))
        elif f[4] == "step":
            steps[rank][int(f[6])].append(int(f[15]))
        slot[rank] += 1
    ok(sorted(calls) == list(range(nranks)), "records of ranks 0..%d" % (nranks - 1))
    for r in sorted(calls):
        per_comm = collections.defaultdict(list)
        for c in calls[r].values():
            per_comm[c["comm"]].append(c["seq"])
        ok(all(sorted(v) == list(range(len(v))) for v in per_comm.values()),
           "rank %d: collective seqs 0..n-1 per communicator" % r)
        bad = [s for s, c in calls[r].items()
               if s not in nccl[r] or nccl[r][s]["seq"] != c["seq"]
               or nccl[r][s]["algo"] != "Ring" or nccl[r][s]["proto"] != "Simple"]
        ok(not bad, "rank %d: every call has its nccl record, Ring/Simple "
           "(%d without)" % (r, len(bad)))
        bad = [s for s, c in calls[r].items()
               if s not in gpu[r] or gpu[r][s]["timer"] != "kernel_ch"
               or gpu[r][s]["start"] < c["start"] - 1000000
               or gpu[r][s]["dur"] <= 0]
        ok(not bad, "rank %d: every call has a kernel interval on the "
           "CLOCK_REALTIME scale after its start (%d without)" % (r, len(bad)))
        nxt, prv = (r + 1) % nranks, (r - 1) % nranks
        if links[r]:
            check_links(r, calls[r], links[r], proxies[r], steps[r], nranks)
            continue
        bad = 0
        for s, c in calls[r].items():
            if c["op"] != "allreduce":
                continue
            want = 2 * (nranks - 1) * c["bytes"] // nranks
            mine = [p for p in proxies[r] if p["slot"] == s]
            sent = sum(p["bytes"] for p in mine if p["dir"] == "send" and p["peer"] == nxt)
            got = sum(p["bytes"] for p in mine if p["dir"] == "recv" and p["peer"] == prv)
            other = [p for p in mine if p["peer"] not in (nxt, prv)]
            # ring pieces are whole elements: a few bytes off for counts
            # that do not split evenly
            slack = 2 * (nranks - 1) * 8
            if abs(sent - want) > slack or got != sent or other:
                bad += 1
        ok(bad == 0, "rank %d: all-reduce proxies: 2(p-1)/p of the bytes to "
           "rank %d, from rank %d, nothing else (%d wrong)" % (r, nxt, prv, bad))
        bad = 0
        for p in proxies[r]:
            st = steps[r].get(p["pslot"])
            done, total = (int(x) for x in p["steps"].split("/"))
            if done != total or (st is not None and
                                 (sum(st) != p["bytes"] or len(st) != done)):
                bad += 1
        ok(bad == 0, "rank %d: proxy steps complete and add up (%d wrong)"
           % (r, bad))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as out:
            for r in sorted(calls):
                sent = collections.defaultdict(int)
                comms = {}
                for s in sorted(calls[r]):
                    comms.setdefault(calls[r][s]["comm"], len(comms))
                for p in links[r] + [p for p in proxies[r] if p["dir"] == "send"]:
                    c = calls[r].get(p["slot"])
                    key = (comms[c["comm"]], c["seq"], c["op"]) if c else (-1, -1, "-")
                    sent[key + (p["peer"],)] += p["bytes"]
                for k in sorted(sent):
                    out.write("%d %d %d %s %d %d\n" % ((r,) + k + (sent[k],)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
