#!/usr/bin/env python3
"""partials.py - node partials (collprof reduce) give the report of the raw
logs, as TAP.

For every golden case (tests/analyze/cases/*; see cases.py for a case's
files): the logs are analyzed raw; every node's partial is made with
`collprof reduce --node NODE`; the directory is analyzed again with the
partials beside the logs ("both") and with only the partials (the logs the
partials hold moved away).  report.json, the exit status and stdout must be
byte-identical in the three runs.

Then damaged and missing partials on one case: the merge names the node's
partial (file and offset) and reads that node's raw logs instead, so that
everything but inputs.problems equals the raw report; without the raw logs
either, that node's ranks are missing and said so.  Hostile headers (a
count of 2^32-1 logs, a wrong version) are refused with the offset.  A
partial of version 1 (tests/analyze/partial-v1, written before calls were
stored as numbers) still reads as its logs; a long job's partials of
version 2 are no larger than its format-4 logs and give the same trace.
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from caselib import COLLPROF, GEN, Tap, built, each_case, prepare_case

tap = Tap(why_lines=30)
ok = tap.ok


def analyze(logs, out, args):
    r = subprocess.run([COLLPROF, "analyze", logs, "-o", out] + args,
                       capture_output=True, text=True, errors="replace",
                       timeout=600)
    rp = os.path.join(out, "report.json")
    text = open(rp, "rb").read() if os.path.exists(rp) else None
    # the verdict names the output folder: the same name in every run
    return {"rc": r.returncode, "stdout": r.stdout.replace(out, "OUT"),
            "stderr": r.stderr,
            "report": text}


def is_log(path):
    """A file the shim wrote, as far as its first bytes say."""
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"COLLPROF" and os.path.getsize(path) >= 4096
    except OSError:
        return False


def nodes_of(logs):
    """Node names, as the shim puts them in the file names."""
    return sorted({os.path.basename(p).split(".")[0]
                   for p in glob.glob(os.path.join(logs, "*.cplog"))})


def reduce_all(logs):
    made = []
    for node in nodes_of(logs):
        r = subprocess.run([COLLPROF, "reduce", "-q", "--node", node, logs],
                           capture_output=True, text=True)
        if r.returncode == 0:
            made.append(node)
    return made


def diff_hint(a, b):
    if a is None or b is None:
        return "a report is missing"
    la, lb = a.decode(errors="replace").splitlines(), \
        b.decode(errors="replace").splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  raw:     %s\n  partial: %s" % (i + 1, x, y)
    return "lengths differ: %d and %d lines" % (len(la), len(lb))


def same_run(name, raw, other):
    ok(raw["report"] is not None and raw["report"] == other["report"],
       name + ": report.json byte-identical",
       diff_hint(raw["report"], other["report"]))
    ok(raw["rc"] == other["rc"] and raw["stdout"] == other["stdout"],
       name + ": same exit status (%d) and verdict" % raw["rc"],
       "exit %d vs %d\nraw: %s\npartial: %s" % (raw["rc"], other["rc"],
                                               raw["stdout"], other["stdout"]))


def run_case(case_dir, tmp):
    name = os.path.basename(case_dir.rstrip("/"))
    logs, args, _ = prepare_case(case_dir, tmp)
    raw = analyze(logs, os.path.join(tmp, "raw"), args)
    made = reduce_all(logs)
    ok(len(made) > 0 and len(glob.glob(os.path.join(logs, "*.cppart")))
       == len(made), "%s: a partial per node (%s)" % (name, " ".join(made)))
    same_run(name + ", partials and logs",
             raw, analyze(logs, os.path.join(tmp, "both"), args))
    # only the partials: the logs they hold move out of the directory
    aside = os.path.join(tmp, "aside")
    os.makedirs(aside)
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        if is_log(p) and os.path.basename(p).split(".")[0] in made:
            shutil.move(p, aside)
    same_run(name + ", partials only",
             raw, analyze(logs, os.path.join(tmp, "part"), args))
    for p in glob.glob(os.path.join(aside, "*")):
        shutil.move(p, logs)


def without_problems(report):
    j = json.loads(report)
    j["inputs"].pop("problems", None)
    return j


def problems(report):
    return json.loads(report)["inputs"].get("problems", [])


def damage_tests(tmp):
    logs = os.path.join(tmp, "logs")
    subprocess.run([GEN, "--pattern", "mixed", "--ranks", "8",
                    "--ranks-per-node", "2", "--steps", "6", "--straggler",
                    "5=2ms", "--seed", "3", "-o", logs], check=True,
                   capture_output=True)
    raw = analyze(logs, os.path.join(tmp, "raw"), [])
    raw_j = without_problems(raw["report"])
    reduce_all(logs)
    n = [0]

    def run():
        n[0] += 1
        return analyze(logs, os.path.join(tmp, "o%d" % n[0]), [])

    # a node without a partial: named, its logs read raw
    os.rename(os.path.join(logs, "n1.cppart"), os.path.join(tmp, "n1.cppart"))
    r = run()
    pr = problems(r["report"]) if r["report"] else []
    ok(r["report"] and without_problems(r["report"]) == raw_j,
       "missing partial: the report is the raw one", r["stderr"])
    ok(any("node n1 has no partial" in p["message"] for p in pr) and
       all("n1." in p["file"] for p in pr) and len(pr) == 2,
       "missing partial: node n1 named, once per log read raw", pr)
    ok("node n1 has no partial" in r["stderr"],
       "missing partial: said on stderr too", r["stderr"])
    os.rename(os.path.join(tmp, "n1.cppart"), os.path.join(logs, "n1.cppart"))

    # damaged data: the checksum names the partial and the offset
    p2 = os.path.join(logs, "n2.cppart")
    good = open(p2, "rb").read()
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0x40
    open(p2, "wb").write(bad)
    r = run()
    pr = problems(r["report"]) if r["report"] else []
    ok(r["report"] and without_problems(r["report"]) == raw_j,
       "damaged partial: the report is the raw one", r["stderr"])
    ok(len(pr) == 1 and pr[0]["file"].endswith("n2.cppart") and
       pr[0]["offset"] > 0 and "damaged" in pr[0]["message"] and
       "node n2's raw logs are read instead" in pr[0]["message"],
       "damaged partial: named with its offset, n2's logs read instead", pr)

    # damaged and no raw logs of that node: its ranks are missing
    aside = os.path.join(tmp, "aside")
    os.makedirs(aside)
    for p in glob.glob(os.path.join(logs, "n2.*.cplog")):
        shutil.move(p, aside)
    r = run()
    j = json.loads(r["report"]) if r["report"] else {}
    pr = j.get("inputs", {}).get("problems", [])
    ok(j and j["job"]["processes"] == json.loads(raw["report"])["job"]["processes"] - 2 and
       any(p["file"].endswith("n2.cppart") for p in pr),
       "damaged partial without raw logs: n2's 2 ranks missing, the partial "
       "named", pr)
    for p in glob.glob(os.path.join(aside, "*")):
        shutil.move(p, logs)

    # hostile or foreign headers: refused with the offset, logs read raw
    def header_case(label, mutate, offset, text):
        b = bytearray(good)
        mutate(b)
        open(p2, "wb").write(b)
        r = run()
        pr = problems(r["report"]) if r["report"] else []
        ok(r["report"] and without_problems(r["report"]) == raw_j and
           len(pr) == 1 and pr[0]["offset"] == offset and
           text in pr[0]["message"], "partial with %s: offset %d named, raw "
           "logs read" % (label, offset), pr)

    header_case("2^32-1 logs claimed",
                lambda b: b.__setitem__(slice(20, 24),
                                        struct.pack("<I", 0xffffffff)),
                20, "do not fit")
    header_case("version 9", lambda b: b.__setitem__(slice(8, 12),
                                                     struct.pack("<I", 9)),
                8, "partial format version 9")
    header_case("bad magic", lambda b: b.__setitem__(0, ord("X")), 0,
                "not a collprof partial")
    header_case("a truncated tail", lambda b: b.__delitem__(slice(-10, None)),
                32, "truncated")
    header_case("a damaged index", lambda b: b.__setitem__(130, b[130] ^ 1),
                128, "index damaged")
    open(p2, "wb").write(good)

    # a partial that is no longer what the index says, after the merge
    # validated it, can only be seen while reading: named, not trusted
    r = run()
    ok(r["report"] == raw["report"], "restored partial: the raw report again")

    # a version-4 log damaged in its stream: reduce leaves it out of its
    # node's partial (which would hold it only up to the damage and say
    # nothing of it) and says so; the merge reads it raw and names the
    # damage with its file and offset, the rest as from the raw logs
    victim = sorted(glob.glob(os.path.join(logs, "n3.*.cplog")))[0]
    keep = open(victim, "rb").read()
    b = bytearray(keep)
    stream_at = struct.unpack_from("<Q", b, 472)[0]
    b[stream_at + 24 + 100] ^= 0x5a
    open(victim, "wb").write(b)
    only_logs = os.path.join(tmp, "dmg-logs")
    os.makedirs(only_logs)
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        shutil.copy(p, only_logs)
    raw_dmg = analyze(only_logs, os.path.join(tmp, "raw-dmg"), [])
    os.unlink(os.path.join(logs, "n3.cppart"))
    r = subprocess.run([COLLPROF, "reduce", "--node", "n3", logs],
                       capture_output=True, text=True)
    ok(r.returncode == 0 and "1 damaged log left out of the partial" in
       r.stderr and os.path.basename(victim) in r.stderr and
       "1 log of node n3" in r.stdout,
       "reduce, a damaged version-4 log: left out, said with its file",
       r.stdout + r.stderr)
    r = run()
    pr = problems(r["report"]) if r["report"] else []
    ok(r["report"] and without_problems(r["report"]) ==
       without_problems(raw_dmg["report"].replace(only_logs.encode(),
                                                  logs.encode())),
       "partials with a damaged log left out: the report of the raw logs",
       r["stderr"])
    ok(any(p["file"] == victim and p["offset"] == stream_at and
           "sum" in p["message"] for p in pr) and
       any(p["file"] == victim and "damaged when it was reduced" in
           p["message"] for p in pr),
       "... the damage named with its file and offset, the log read raw", pr)
    open(victim, "wb").write(keep)
    reduce_all(logs)

    # reduce: a node without logs is an error, nothing written
    r = subprocess.run([COLLPROF, "reduce", "--node", "nosuch", logs],
                       capture_output=True, text=True)
    ok(r.returncode == 1 and "no readable log of node 'nosuch'" in r.stderr and
       not os.path.exists(os.path.join(logs, "nosuch.cppart")),
       "reduce --node nosuch: exit 1, said, nothing written", r.stderr)
    # the partial is smaller than the logs it holds
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(logs, "*.cppart")))
    rawsize = sum(os.path.getsize(p) for p in glob.glob(os.path.join(logs, "*.cplog")))
    ok(size < rawsize / 2, "partials: %d bytes for %d bytes of logs" %
       (size, rawsize))


def nodes_tests(tmp):
    """collprof analyze --nodes under a launcher of 4 tasks, one per node:
    each reduces its node, rank 0 waits for the partials and merges."""
    logs = os.path.join(tmp, "logs")
    subprocess.run([GEN, "--pattern", "mixed", "--ranks", "8",
                    "--ranks-per-node", "2", "--steps", "6", "--seed", "5",
                    "-o", logs], check=True, capture_output=True)
    raw = analyze(logs, os.path.join(tmp, "raw"), [])
    procs = []
    for rank in (3, 2, 1, 0):  # rank 0 last: it has to wait for nobody
        env = dict(os.environ, COLLPROF_NODE="n%d" % rank, RANK=str(rank))
        env.pop("SLURM_PROCID", None)
        procs.append(subprocess.Popen(
            [COLLPROF, "analyze", "--nodes", logs, "-o",
             os.path.join(tmp, "dist%d" % rank)], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    ok(all(o[2] == raw["rc"] for o in outs),
       "--nodes: the 4 tasks exit %d" % raw["rc"], outs)
    ok(sorted(os.path.basename(p) for p in
              glob.glob(os.path.join(logs, "*.cppart"))) ==
       ["n0.cppart", "n1.cppart", "n2.cppart", "n3.cppart"],
       "--nodes: each task wrote its node's partial")
    rp = os.path.join(tmp, "dist0", "report.json")
    ok(os.path.exists(rp) and open(rp, "rb").read() == raw["report"],
       "--nodes: rank 0's report.json is the raw logs' one",
       diff_hint(raw["report"], open(rp, "rb").read()
                 if os.path.exists(rp) else None))
    ok(not any(os.path.exists(os.path.join(tmp, "dist%d" % r))
               for r in (1, 2, 3)), "--nodes: only rank 0 writes a report")
    # rank 0 alone: it waits, then names the nodes without a partial
    for p in glob.glob(os.path.join(logs, "*.cppart")):
        os.unlink(p)
    env = dict(os.environ, COLLPROF_NODE="n0", RANK="0")
    env.pop("SLURM_PROCID", None)
    r = subprocess.run([COLLPROF, "analyze", "-q", "--nodes", "--nodes-wait",
                        "1", logs, "-o", os.path.join(tmp, "alone")],
                       env=env, capture_output=True, text=True)
    rp = os.path.join(tmp, "alone", "report.json")
    ok(r.returncode == raw["rc"] and
       "3 nodes of %s still without a partial" % logs in r.stderr and
       os.path.exists(rp) and
       without_problems(open(rp, "rb").read()) ==
       without_problems(raw["report"]),
       "--nodes, the other nodes silent: after --nodes-wait 1 their logs "
       "are read, the report is the raw one", r.stderr)
    r = subprocess.run([COLLPROF, "analyze", "--nodes", "--nodes-wait", "x",
                        logs, "-o", os.path.join(tmp, "bad")],
                       capture_output=True, text=True)
    ok(r.returncode == 2 and "--nodes-wait" in r.stderr,
       "--nodes-wait x: usage error", r.stderr)


def fd_limit_tests(tmp):
    """300 logs on 10 nodes, partials alone, with 64 file descriptors: the
    merge reads the partials through the descriptors kept from their checks
    and gives the raw logs' report; the same on 30 nodes, where only 16
    partials keep one (a quarter of the limit) and the others' logs open
    theirs by name, parked between buffers."""
    fd_limit_case(os.path.join(tmp, "10"), 30, "10 partials")
    fd_limit_case(os.path.join(tmp, "30"), 10, "30 partials (14 opened by name)")


def fd_limit_case(tmp, per_node, label):
    import resource
    logs = os.path.join(tmp, "logs")
    subprocess.run([GEN, "--pattern", "mixed", "--ranks", "300",
                    "--ranks-per-node", str(per_node), "--steps", "3",
                    "--seed", "3", "-o", logs], check=True,
                   capture_output=True)
    raw = analyze(logs, os.path.join(tmp, "raw"), [])
    reduce_all(logs)
    aside = os.path.join(tmp, "aside")
    os.makedirs(aside)
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        shutil.move(p, aside)
    out = os.path.join(tmp, "part")
    r = subprocess.run([COLLPROF, "analyze", "-q", logs, "-o", out],
                       capture_output=True, text=True,
                       preexec_fn=lambda: resource.setrlimit(
                           resource.RLIMIT_NOFILE, (64, 64)))
    rp = os.path.join(out, "report.json")
    got = open(rp, "rb").read() if os.path.exists(rp) else None
    ok(r.returncode == raw["rc"] and got == raw["report"] and not r.stderr,
       "300 logs in %s, 64 descriptors: the raw logs' report" % label,
       r.stderr[:2000] + diff_hint(raw["report"], got))


def peak_rss_kib(cmd):
    """Run cmd under tests/analyze/maxrss: (exit status, peak RSS in KiB)."""
    maxrss = os.path.join(os.path.dirname(GEN), "..", "analyze", "maxrss")
    r = subprocess.run([maxrss] + cmd, capture_output=True, text=True,
                       errors="replace", timeout=600)
    kib = [int(l.split()[1]) for l in r.stderr.splitlines()
           if l.startswith("maxrss_kib ")]
    return r.returncode, (kib[0] if kib else None), r.stderr


def memory_tests(tmp):
    """2048 logs on 64 nodes read from their partials alone: the raw logs'
    report, in about the memory of the raw analysis (a decoding buffer per
    log from the same budget as the scans', no larger than its section; a
    fixed 80 KiB per log was 164 MiB more here, 1.3 GiB at 16,384 logs)."""
    logs = os.path.join(tmp, "logs")
    subprocess.run([GEN, "--pattern", "ddp-large", "--ranks", "2048",
                    "--ranks-per-node", "32", "--calls", "40", "-o", logs],
                   check=True, capture_output=True)
    rc_raw, raw_kib, err_raw = peak_rss_kib(
        [COLLPROF, "analyze", "-q", logs, "-o", os.path.join(tmp, "raw")])
    made = reduce_all(logs)
    aside = os.path.join(tmp, "aside")
    os.makedirs(aside)
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        shutil.move(p, aside)
    rc_part, part_kib, err_part = peak_rss_kib(
        [COLLPROF, "analyze", "-q", logs, "-o", os.path.join(tmp, "part")])
    raw_rep = open(os.path.join(tmp, "raw", "report.json"), "rb").read() \
        if rc_raw == 0 else None
    part_path = os.path.join(tmp, "part", "report.json")
    part_rep = open(part_path, "rb").read() if os.path.exists(part_path) \
        else None
    ok(len(made) == 64 and rc_part == rc_raw == 0 and part_rep == raw_rep,
       "2048 logs in 64 partials alone: the raw logs' report",
       err_raw[-1000:] + err_part[-1000:] + diff_hint(raw_rep, part_rep))
    ok(raw_kib is not None and part_kib is not None and
       part_kib <= raw_kib + 2048 * 12,
       "... in about the raw analysis's memory: peak RSS %s KiB against "
       "%s KiB (at most 12 KiB a log more)" % (part_kib, raw_kib))
    # each partial opened once (its check; the descriptor is then shared by
    # its 32 logs in every pass), not once per log and pass (8192 here)
    if shutil.which("strace") is None:
        ok(True, "# SKIP strace not installed: opens of the partials")
        return
    trace = os.path.join(tmp, "trace")
    r = subprocess.run(["strace", "-f", "-o", trace, "-e", "trace=openat",
                        COLLPROF, "analyze", "-q", "-j", "1", logs, "-o",
                        os.path.join(tmp, "traced")],
                       capture_output=True, text=True, errors="replace",
                       timeout=600)
    if r.returncode != 0 and not os.path.exists(trace):
        ok(True, "# SKIP strace cannot trace here: opens of the partials")
        return
    opens = sum(1 for line in open(trace) if ".cppart\"" in line
                and "openat(" in line)
    traced = os.path.join(tmp, "traced", "report.json")
    same = os.path.exists(traced) and open(traced, "rb").read() == raw_rep
    ok(opens == 64 and same,
       "... each of the 64 partials opened once (%d opens), the same "
       "report under strace" % opens, r.stderr[-1000:])


def trace_of(logs, out):
    r = subprocess.run([COLLPROF, "trace", logs, "-o", out],
                       capture_output=True, text=True)
    return open(out, "rb").read() if r.returncode == 0 and \
        os.path.exists(out) else None


def version_tests(tmp):
    """Version 2 (calls as numbers, ops 4 and 5) against the logs, and a
    partial of version 1 (written before them) still read."""
    here = os.path.dirname(os.path.abspath(__file__))
    fixture = os.path.join(here, "partial-v1")
    logs = os.path.join(tmp, "v1")
    aside = os.path.join(tmp, "v1-aside")
    os.makedirs(logs)
    os.makedirs(aside)
    for p in glob.glob(os.path.join(fixture, "*.cplog")):
        shutil.copy(p, logs)
    raw = analyze(logs, os.path.join(tmp, "v1-raw"), [])
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        shutil.move(p, aside)
    versions = []
    for p in sorted(glob.glob(os.path.join(fixture, "*.cppart"))):
        shutil.copy(p, logs)
        versions.append(struct.unpack_from("<I", open(p, "rb").read(), 8)[0])
    ok(versions == [1, 1], "the fixture's partials are of version 1 (%s)"
       % versions)
    same_run("a version-1 partial, partials only",
             raw, analyze(logs, os.path.join(tmp, "v1-part"), []))

    # a long job under the capture policy: its partials made now are of
    # version 2, no larger than its format-4 logs (3.3 times them with
    # op 1 alone), and hold every call (the trace of every call the same)
    logs = os.path.join(tmp, "long")
    subprocess.run([GEN, "-o", logs, "--ranks", "8", "--ranks-per-node", "4",
                    "--pattern", "uniform", "--rate", "1000", "--duration",
                    "6m", "--policy",
                    "first=2000,window=1000,every=50000,interval=60s",
                    "--intra-alpha", "100ns", "--inter-alpha", "200ns",
                    "--intra-bw", "200GB/s", "--inter-bw", "50GB/s", "--gap",
                    "1us", "--straggler", "5=300us:from=3m"],
                   check=True, stdout=subprocess.DEVNULL)
    log_bytes = sum(os.path.getsize(p)
                    for p in glob.glob(os.path.join(logs, "*.cplog")))
    raw = analyze(logs, os.path.join(tmp, "long-raw"), [])
    raw_trace = trace_of(logs, os.path.join(tmp, "long-raw.json"))
    made = reduce_all(logs)
    parts = sorted(glob.glob(os.path.join(logs, "*.cppart")))
    part_bytes = sum(os.path.getsize(p) for p in parts)
    versions = {struct.unpack_from("<I", open(p, "rb").read(), 8)[0]
                for p in parts}
    ok(made == ["n0", "n1"] and versions == {2},
       "a long job's partials: one per node, version 2 (%s)" % versions)
    ok(0 < part_bytes <= log_bytes,
       "... no larger than its format-4 logs (%d bytes against %d)"
       % (part_bytes, log_bytes))
    aside = os.path.join(tmp, "long-aside")
    os.makedirs(aside)
    for p in glob.glob(os.path.join(logs, "*.cplog")):
        shutil.move(p, aside)
    same_run("a long job, partials only",
             raw, analyze(logs, os.path.join(tmp, "long-part"), []))
    part_trace = trace_of(logs, os.path.join(tmp, "long-part.json"))
    ok(raw_trace is not None and raw_trace == part_trace,
       "... the same trace of every call (%d bytes)"
       % len(raw_trace or b""))


def main():
    if not built():
        return 77
    only = sys.argv[1:]
    each_case(tap, run_case, only, "cp-partial-")
    if not only:
        tmp = tempfile.mkdtemp(prefix="cp-partial-")
        try:
            damage_tests(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for fn in (version_tests, nodes_tests, fd_limit_tests, memory_tests):
            tmp = tempfile.mkdtemp(prefix="cp-partial-")
            try:
                fn(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return tap.plan()


if __name__ == "__main__":
    sys.exit(main())
