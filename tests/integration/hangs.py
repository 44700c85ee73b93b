#!/usr/bin/env python3
"""hangs.py - planted hangs, deadlocks, mismatches and kills, found by
collprof analyze (analyzer/cp_hang.c), as TAP.

For each train_sim pattern, a healthy run (its --expect files say which
collective every rank makes, on which communicator, at which sequence)
must give none of the hang findings and no `hang` section; then each case
is planted with a simnccl topology directive (tests/simnccl/README.md) on
one rank and one of its collectives, and the finding must name exactly
that rank, communicator and sequence:

  compute   hang rank=R after=N            hang: R never arrived at N (or at
                                           its next call on another
                                           communicator: program order is
                                           not in the logs)
  inside    hang rank=R in=OP after=N      hang: R was inside N (never returned)
  deadlock  swap rank=R seq=K              deadlock: a cycle through R, K and K+1
  size      mismatch rank=R seq=N count=+1 mismatch: R at N
  op        mismatch rank=R seq=N op=X     mismatch: R at N
  killed    kill rank=R after=N            killed (or hang) naming R at N

The full matrix (6 patterns x 6 cases) takes a few minutes on two cores;
`make check` runs ddp and tp fully and the healthy run of every pattern
unless COLLPROF_HANG_TESTS=full.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

b = os.path.abspath(os.environ.get("top_builddir", "."))
COLLPROF = os.path.join(b, "analyzer", "collprof")
SIMRUN = os.path.join(b, "tests", "simnccl", "simrun")
TRAIN_SIM = os.path.join(b, "tests", "apps", "train_sim")
KINDS = ("hang", "deadlock", "mismatch", "killed")
NRANKS, NODES, STEPS, RANK = 4, 2, 2, 1
# simrun's --timeout for a planted hang: the ranks must reach the hang
# before it; 5 s was too short once under a loaded make check (the tp
# deadlock's rank 2 still in its compute, 5 s behind, at the kill)
TIMEOUT = int(os.environ.get("COLLPROF_HANG_TIMEOUT", "10"))

n_tests = 0
n_failed = 0


def ok(cond, name, why=""):
    global n_tests, n_failed
    n_tests += 1
    print("%sok %d - %s" % ("" if cond else "not ", n_tests, name))
    if not cond:
        n_failed += 1
        for line in str(why).splitlines():
            print("#   " + line)
    sys.stdout.flush()


def skip(name, why):
    global n_tests
    n_tests += 1
    print("ok %d - %s # SKIP %s" % (n_tests, name, why))


def run_job(work, pattern, topo=None, expect=False, log_format=None):
    """Record one train_sim run under simrun (logs of log_format, else
    the shim's default); analyze it.  Returns (report, verdict)."""
    logs = os.path.join(work, "logs")
    rep = os.path.join(work, "rep")
    for d in (logs, rep):
        shutil.rmtree(d, ignore_errors=True)
    cmd = [COLLPROF, "record", "-q", "-o", logs, "--", SIMRUN, "-n",
           str(NRANKS), "--nodes", str(NODES), "--timeout", str(TIMEOUT)]
    if topo:
        path = os.path.join(work, "plant.topo")
        with open(path, "w") as f:
            f.write(topo + "\n")
        cmd += ["--topo", path]
    cmd += ["--", TRAIN_SIM, "--pattern", pattern, "--steps", str(STEPS),
            "--quiet"]
    if expect:
        cmd += ["--expect", os.path.join(work, "expect.%d.csv")]
    env = dict(os.environ)
    if log_format:
        env["COLLPROF_LOG_FORMAT"] = str(log_format)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=TIMEOUT + 60, env=env)
    out = subprocess.run([COLLPROF, "analyze", logs, "-o", rep],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=120)
    try:
        with open(os.path.join(rep, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(rep, "report.html")) as f:
            report["_html"] = f.read()
    except (OSError, ValueError):
        report = None
    return report, out.stdout


def html_first(report, culprit):
    """report.html opens with the hang section, culprit row highlighted."""
    html = (report or {}).get("_html", "")
    h, v = html.find('<section id="hang"'), html.find('<section id="verdict"')
    row = '<tr class="culprit"><td class="n">%d</td>' % culprit
    return 0 <= h < v and row in html and html.count('class="culprit"') == 1


roots = {}


def collectives(work):
    """Per rank: its collectives in call order (op, comm, seq); their roots
    (peer column) in roots."""
    calls = {}
    for r in range(NRANKS):
        with open(os.path.join(work, "expect.%d.csv" % r)) as f:
            rows = [x for x in csv.DictReader(f)
                    if x["op"] not in ("send", "recv")]
        calls[r] = [(x["op"], x["comm"], int(x["seq"])) for x in rows]
        roots[r] = [int(x["peer"]) for x in rows]
    return calls


def entered(report, comm, seq):
    """How many members of comm entered its instance seq (the report's hang
    section), None when the report does not say."""
    for c in ((report or {}).get("hang") or {}).get("communicators", []):
        if c["name"] == comm:
            return sum(m["last_entered"] >= seq for m in c["members"])
    return None


def found(report, kind):
    return [f for f in (report or {}).get("findings", []) if f["kind"] == kind]


def wire(op):
    return "broadcast" if op == "bcast" else op


def describe(report, verdict):
    lines = [verdict.splitlines()[0] if verdict else "(no verdict)"]
    for f in (report or {}).get("findings", []):
        if f["kind"] in KINDS:
            lines.append("%s %s: %s" % (f["kind"], f["ranks"], f["message"]))
    return "\n".join(lines)


SYMMETRIC = ("allreduce", "allgather", "reducescatter", "alltoall")


def pick_swap(calls):
    """A rank and K where the rank's collectives K and K+1 are on different
    communicators that share another member, who calls them in that order
    and waits in K for the rank: K is symmetric, and K+1 is symmetric too
    or rooted at the rank on the world (a leaf of a rooted collective does
    not wait).  Rank RANK first."""
    members = {}
    for r, cs in calls.items():
        for op, comm, seq in cs:
            members.setdefault(comm, set()).add(r)
    for rank in [RANK] + [r for r in sorted(calls) if r != RANK]:
        mine = calls[rank]
        for k in range(len(mine) - 2, -1, -1):
            a, b = mine[k], mine[k + 1]
            if a[1] == b[1] or a[0] not in SYMMETRIC:
                continue
            if b[0] not in SYMMETRIC and not (b[1] == "world" and
                                              roots[rank][k + 1] == rank):
                continue
            for q in (members[a[1]] & members[b[1]]) - {rank}:
                qa = [i for i, c in enumerate(calls[q]) if c[1:] == a[1:]]
                qb = [i for i, c in enumerate(calls[q]) if c[1:] == b[1:]]
                if qa and qb and qa[0] < qb[0]:
                    return rank, k
    return None, None


def check_pattern(work, pattern, full):
    report, verdict = run_job(work, pattern, expect=True)
    bad = [f for f in (report or {}).get("findings", []) if f["kind"] in KINDS]
    ok(report is not None and not bad and "hang" not in report and
       'id="hang"' not in report.get("_html", "") and
       not verdict.startswith("collprof: job") and "HUNG" not in verdict,
       "%s healthy: no hang finding, no hang section" % pattern,
       describe(report, verdict))
    if not full:
        return
    calls = collectives(work)
    mine = calls[RANK]
    members = {}
    for r, cs in calls.items():
        for c in cs:
            members.setdefault(c[1], set()).add(r)
    # the middle collective among those with somebody to wait for it
    shared = [i for i, c in enumerate(mine) if len(members[c[1]]) > 1]
    n = shared[len(shared) // 2]
    op, comm, seq = mine[n]
    where = "rank %d's collective %d (%s seq %d on %s)" % (RANK, n, op, seq,
                                                           comm)

    # The instances the rank never came to: its next one on each of its
    # communicators from collective n on.  Which of them its program would
    # have called first the logs cannot tell (docs/analysis.md, "Hangs"):
    # the finding may name any of them, with the rank.
    nexts = {}
    for c in mine[n:]:
        nexts.setdefault(c[1], (c[0], c[2]))

    def at_next(f):
        e = f["evidence"]
        return nexts.get(e.get("communicator"), (None, None))[1] == e.get("seq")

    # stuck in compute
    report, verdict = run_job(work, pattern, "hang rank=%d after=%d" % (RANK, n))
    hs = found(report, "hang")
    good = [f for f in hs if f["ranks"] == [RANK] and at_next(f)]
    head = ["collprof: HUNG in %s seq %d on %s: rank %d " % (wire(o), q, cm, RANK)
            for cm, (o, q) in nexts.items()]
    ok(good and all(f["ranks"] == [RANK] for f in hs) and
       any(verdict.startswith(x) for x in head) and
       good[0]["evidence"]["where"]["term_signal"] == 15 and
       html_first(report, RANK),
       "%s compute: hang names rank %d at %s seq %d (SIGTERM at the timeout "
       "seen)" % (pattern, RANK, comm, seq), describe(report, verdict))

    # stuck inside a collective: the culprit is named where it was inside
    report, verdict = run_job(
        work, pattern, "hang rank=%d in=%s after=%d" % (RANK, wire(op), n))
    hs = found(report, "hang")
    good = [f for f in hs if f["ranks"] == [RANK] and
            (f["evidence"]["where"].get("in_flight") or {}).get(
                "communicator") == comm and
            f["evidence"]["where"]["in_flight"]["seq"] == seq]
    ok(good and all(f["ranks"] == [RANK] for f in hs),
       "%s inside: hang names rank %d inside %s seq %d on %s"
       % (pattern, RANK, op, seq, comm), describe(report, verdict))

    # deadlock across two communicators
    srank, k = pick_swap(calls)
    if k is None:
        skip("%s deadlock" % pattern,
             "no two consecutive collectives of a rank on communicators "
             "sharing another rank that waits for it (one communicator)")
    else:
        a, b2 = calls[srank][k], calls[srank][k + 1]
        report, verdict = run_job(work, pattern,
                                  "swap rank=%d seq=%d" % (srank, k))
        ds = found(report, "deadlock")
        insts = set()
        ranks = set()
        for f in ds:
            ranks |= set(f["ranks"])
            for w in f["evidence"]["cycle"]:
                insts.add((w["waits_in"]["communicator"], w["waits_in"]["seq"]))
        ok(ds and srank in ranks and (a[1], a[2]) in insts and
           (b2[1], b2[2]) in insts and verdict.startswith("collprof: DEADLOCK"),
           "%s deadlock: cycle through rank %d, %s seq %d and %s seq %d"
           % (pattern, srank, a[1], a[2], b2[1], b2[2]),
           describe(report, verdict))

    # mismatched size, mismatched op
    other = "allgather" if wire(op) != "allgather" else "allreduce"
    for case, directive in (("size", "count=+1"), ("op", "op=" + other)):
        report, verdict = run_job(
            work, pattern, "mismatch rank=%d seq=%d %s" % (RANK, n, directive))
        ms = found(report, "mismatch")
        good = [f for f in ms if f["ranks"] == [RANK] and
                f["evidence"]["communicator"] == comm and
                f["evidence"]["seq"] == seq]
        # Only two members came to the instance before the job ended, one
        # each way: which call was meant is not in the logs, and the
        # finding names nobody (docs/analysis.md, "Hangs").
        if not good and entered(report, comm, seq) == 2:
            good = [f for f in ms if f["ranks"] == [] and
                    f["evidence"]["communicator"] == comm and
                    f["evidence"]["seq"] == seq and
                    f["evidence"]["culprit_known"] is False]
        wrong = found(report, "killed") + found(report, "hang")
        ok(good and len(ms) == 1 and
           all(RANK in f["ranks"] or not f["ranks"] for f in wrong),
           "%s mismatched %s: rank %d at %s seq %d" % (pattern, case, RANK,
                                                       comm, seq),
           describe(report, verdict))

    # a rank killed in its compute
    report, verdict = run_job(work, pattern,
                              "kill rank=%d after=%d" % (RANK, n))
    ks = [f for f in found(report, "killed") if f["ranks"]]
    hs = found(report, "hang")
    good = [f for f in ks + hs if f["ranks"] == [RANK] and at_next(f)]
    ok(good and all(f["ranks"] == [RANK] for f in ks + hs),
       "%s killed: rank %d named at %s seq %d" % (pattern, RANK, comm, seq),
       describe(report, verdict))


def slots(path):
    """(offset, kind, end_ns) of every written slot of a log."""
    import struct
    out = []
    with open(path, "rb") as f:
        data = f.read()
    hsize = struct.unpack("<I", data[16:20])[0]
    for off in range(hsize, len(data) - 63, 64):
        kind = data[off]
        if kind:
            out.append((off, kind, struct.unpack("<Q", data[off + 56:off + 64])[0]))
    return out


def bad_inputs(work):
    """Damaged and odd inputs around a planted hang: a clear message, no
    crash, never a wrong culprit.  The damage is planted byte by byte in
    logs of one slot per record (format 3); format 4's own damage cases
    are tests/unit/log4read.c's."""
    report, verdict = run_job(work, "ddp", "hang rank=%d after=5" % RANK,
                              log_format=3)
    logs = os.path.join(work, "logs")
    base = os.path.join(work, "base")
    shutil.rmtree(base, ignore_errors=True)
    shutil.copytree(logs, base)
    files = sorted(f for f in os.listdir(base) if f.endswith(".cplog"))

    def rank_of(name):
        out = subprocess.run([COLLPROF, "dump", "--summary",
                              os.path.join(base, name)],
                             stdout=subprocess.PIPE, universal_newlines=True)
        for word in out.stdout.replace(",", " ").split("rank ")[1:2]:
            return int(word.split()[0])
        return -1

    by_rank = {rank_of(f): f for f in files}

    def analyze(d):
        rep = os.path.join(work, "rep-bad")
        shutil.rmtree(rep, ignore_errors=True)
        out = subprocess.run([COLLPROF, "analyze", d, "-o", rep],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True, timeout=120)
        try:
            with open(os.path.join(rep, "report.json")) as f:
                return out.returncode, json.load(f), out.stdout
        except (OSError, ValueError):
            return out.returncode, None, out.stdout

    def culprits(rep):
        return sorted({r for f in (rep or {}).get("findings", [])
                       if f["kind"] in KINDS for r in f["ranks"]})

    # 1. a waiter's log cut in the middle of its entry record
    d = os.path.join(work, "cut")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(base, d)
    victim = os.path.join(d, by_rank.get(0, files[0]))
    inflight = [x for x in slots(victim) if x[1] == 1 and x[2] == 0]
    cut_at = inflight[-1][0] + 30 if inflight else None
    if cut_at:
        with open(victim, "r+b") as f:
            f.truncate(cut_at)
    rc, rep, out = analyze(d)
    probs = [p for i in (rep or {}).get("inputs", {}).get("problems", [])
             for p in [i]] if rep else []
    ok(cut_at and rc == 0 and rep is not None and culprits(rep) == [RANK] and
       any(str(cut_at - 30) in json.dumps(p) or "partial" in json.dumps(p)
           or "truncat" in json.dumps(p) for p in probs),
       "log cut inside an entry record: analysed, the cut reported, rank %d "
       "still the culprit" % RANK,
       "exit %d, culprits %s, problems %s\n%s" % (rc, culprits(rep), probs,
                                                  out))

    # 2. a rank whose log ends before the others start (another run's)
    d = os.path.join(work, "early")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(base, d)
    healthy = os.path.join(work, "healthy")
    shutil.rmtree(healthy, ignore_errors=True)
    subprocess.run([COLLPROF, "record", "-q", "-o", healthy, "--", SIMRUN,
                    "-n", str(NRANKS), "--nodes", str(NODES), "--", TRAIN_SIM,
                    "--pattern", "ddp", "--steps", "1", "--quiet"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120)
    old = [f for f in os.listdir(healthy) if f.endswith(".cplog")]
    other = 2 if RANK != 2 else 3
    os.remove(os.path.join(d, by_rank[other]))
    for f in old:
        src = os.path.join(healthy, f)
        out_rank = subprocess.run([COLLPROF, "dump", "--summary", src],
                                  stdout=subprocess.PIPE,
                                  universal_newlines=True).stdout
        if ("rank %d " % other) in out_rank or ("rank %d," % other) in out_rank:
            shutil.copy(src, os.path.join(d, "early-" + f))
    rc, rep, out = analyze(d)
    ok(rc == 0 and rep is not None and culprits(rep) in ([RANK], []) and
       other not in culprits(rep),
       "rank %d's log from an earlier run: no crash, rank %d never named"
       % (other, other), "exit %d, culprits %s\n%s" % (rc, culprits(rep), out))

    # 3. two logs claim the same rank
    d = os.path.join(work, "dup")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(base, d)
    twin = 3 if RANK != 3 else 2
    shutil.copy(os.path.join(d, by_rank[twin]), os.path.join(d, "twin.cplog"))
    rc, rep, out = analyze(d)
    dups = [f for f in (rep or {}).get("findings", [])
            if f["kind"] == "duplicate_rank"]
    ok(rc == 0 and rep is not None and culprits(rep) in ([RANK], []) and
       twin not in culprits(rep) and dups and dups[0]["ranks"] == [twin] and
       "twin.cplog" in dups[0]["message"],
       "two logs claim rank %d: no crash, said, never named" % twin,
       "exit %d, culprits %s\n%s" % (rc, culprits(rep), out))


def main():
    for tool in (COLLPROF, SIMRUN, TRAIN_SIM):
        if not os.path.exists(tool):
            print("1..0 # SKIP %s not built" % tool)
            return 77
    mode = os.environ.get("COLLPROF_HANG_TESTS", "")
    patterns = ("ddp", "fsdp", "tp", "moe", "pp", "3d")
    work = tempfile.mkdtemp(prefix="cp-hangs-")
    try:
        for p in patterns:
            check_pattern(work, p, mode == "full" or p in ("ddp", "tp"))
        bad_inputs(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("1..%d" % n_tests)
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
