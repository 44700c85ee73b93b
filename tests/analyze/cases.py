#!/usr/bin/env python3
"""cases.py - the golden cases of collprof analyze, as TAP.

Every folder tests/analyze/cases/<case>/ holds:
  gen       optional: arguments of tests/tools/gen_logs (the driver adds
            -o LOGS --truth TRUTH); without it the case needs `prepare`
  prepare   optional: a shell script run as `sh prepare LOGS GEN` after gen
            (to damage, mix or remove inputs); GEN is the gen_logs binary
  args      optional: arguments of collprof analyze, after `LOGS -o OUT`;
            $CASE is replaced by the case folder, $LOGS by the log folder
  expected  one check per line:
    # a comment
    exit N                      collprof's exit status
    stdout contains TEXT        (also stderr; "lacks" for the opposite)
    stdout lines <= N
    PATH OP VALUE               OP: == != < <= > >=
    PATH ~ VALUE TOL            TOL: absolute, or relative with a % sign
    PATH exists | PATH absent
    PATH contains VALUE         a string contains text, a list an element
    PATH length OP N
    PATH keys == [..]           the object's keys, in order
  VALUE is a JSON literal or {python expression}, evaluated with `truth`
  (the generator's truth.json) and `report` in scope (builtins: abs, len,
  min, max, sum).
  PATH starts at report.json's root: dotted keys, [N] for an index,
  [k=v,k2=v2] for the first element of an array whose fields match
  (numbers compare as numbers); "." is the root.
"""
import json
import os
import re
import subprocess
import sys

from caselib import COLLPROF, Tap, built, each_case, prepare_case, read_file

tap = Tap()
ok = tap.ok


class Missing(Exception):
    pass


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def matches(elem, conds):
    if not isinstance(elem, dict):
        return False
    for cond in conds:
        k, _, v = cond.partition("=")
        if k not in elem:
            return False
        have = elem[k]
        if isinstance(have, (int, float)) and not isinstance(have, bool):
            try:
                if float(v) != float(have):
                    return False
            except ValueError:
                return False
        elif str(have) != v and json.dumps(have) != v:
            return False
    return True


def resolve(doc, path):
    if path == ".":
        return doc
    cur = doc
    for tok in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        if tok.startswith("["):
            inner = tok[1:-1]
            if not isinstance(cur, list):
                raise Missing("%s: not an array" % tok)
            if re.fullmatch(r"-?\d+", inner):
                i = int(inner)
                if not -len(cur) <= i < len(cur):
                    raise Missing("%s: out of range (%d)" % (tok, len(cur)))
                cur = cur[i]
            else:
                found = [e for e in cur if matches(e, inner.split(","))]
                if not found:
                    raise Missing("no element matches %s" % tok)
                cur = found[0]
        else:
            if not isinstance(cur, dict) or tok not in cur:
                raise Missing("no key '%s'" % tok)
            cur = cur[tok]
    return cur


def value(text, env):
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return eval(text[1:-1], {"__builtins__": {"abs": abs, "len": len,
                                                  "min": min, "max": max,
                                                  "sum": sum}},
                    env)
    try:
        return json.loads(text)
    except ValueError:
        return text


def compare(have, op, want):
    if op == "==":
        return same(have, want)
    if op == "!=":
        return not same(have, want)
    if have is None or want is None:
        return False
    return {"<": have < want, "<=": have <= want, ">": have > want,
            ">=": have >= want}[op]


def check_line(line, run, env):
    """Returns (passed, explanation)."""
    words = line.split(None, 2)
    if words[0] == "exit":
        return run["rc"] == int(words[1]), "exit status %d" % run["rc"]
    if words[0] in ("stdout", "stderr"):
        text = run[words[0]]
        if words[1] == "contains":
            return words[2] in text, "%s was:\n%s" % (words[0], text[-2000:])
        if words[1] == "lacks":
            return words[2] not in text, "%s was:\n%s" % (words[0], text[-2000:])
        if words[1] == "lines":
            op, n = words[2].split()
            count = len(text.splitlines())
            return compare(count, op, int(n)), "%d lines" % count
        return False, "unknown stream check"
    report = env["report"]
    if report is None:
        return False, "no report.json"
    path = words[0]
    rest = line.split(None, 1)[1] if len(words) > 1 else ""
    try:
        if rest == "exists":
            resolve(report, path)
            return True, ""
        if rest == "absent":
            try:
                have = resolve(report, path)
                return False, "present: %s" % json.dumps(have)[:300]
            except Missing:
                return True, ""
        have = resolve(report, path)
    except Missing as e:
        return False, str(e)
    op, _, arg = rest.partition(" ")
    if op == "length":
        op2, _, n = arg.partition(" ")
        return compare(len(have), op2, value(n, env)), "length %d" % len(have)
    if op == "keys":
        op2, _, keys = arg.partition(" ")
        got = list(have.keys())
        return compare(got, op2, value(keys, env)), "keys %s" % got
    if op == "contains":
        want = value(arg, env)
        if isinstance(have, str):
            return str(want) in have, "value %r" % have
        return any(same(e, want) for e in have), "value %s" % json.dumps(have)[:300]
    if op == "~":
        val, tol = arg.rsplit(None, 1)
        want = value(val, env)
        if tol.endswith("%"):
            limit = abs(want) * float(tol[:-1]) / 100
        else:
            limit = float(tol)
        good = isinstance(have, (int, float)) and abs(have - want) <= limit
        return good, "got %r, want %r +- %g" % (have, want, limit)
    want = value(arg, env)
    return compare(have, op, want), "got %s, want %s %s" % (
        json.dumps(have)[:300], op, json.dumps(want)[:300])


def run_case(case_dir, tmp):
    name = os.path.basename(case_dir.rstrip("/"))
    out = os.path.join(tmp, "out")
    logs, args, truth_path = prepare_case(case_dir, tmp)
    cmd = [COLLPROF, "analyze", logs, "-o", out] + args
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                       timeout=600)
    run = {"rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
    env = {"truth": {}, "report": None}
    if truth_path:
        env["truth"] = json.load(open(truth_path))
    rp = os.path.join(out, "report.json")
    if os.path.exists(rp):
        env["report"] = json.load(open(rp))
    for line in (read_file(case_dir, "expected") or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            good, why = check_line(line, run, env)
        except Exception as e:  # a broken expectation is a failure, not a crash
            good, why = False, "%s: %s" % (type(e).__name__, e)
        ok(good, "%s: %s" % (name, line), why)
    # the same report with one thread and with three (read-ahead)
    if os.path.exists(rp):
        have = open(rp, "rb").read()
        for jobs in ("1", "3"):
            o = os.path.join(tmp, "out-j" + jobs)
            subprocess.run([COLLPROF, "analyze", logs, "-o", o, "-j", jobs]
                           + args, capture_output=True, timeout=600)
            p = os.path.join(o, "report.json")
            ok(os.path.exists(p) and open(p, "rb").read() == have,
               "%s: report.json byte-identical with -j %s" % (name, jobs))
    # the same calls logged in format 3 (gen_logs writes both from one
    # seed): the same report, but for the logs' paths
    gen = read_file(case_dir, "gen")
    if os.path.exists(rp) and gen is not None and "--format" not in gen:
        t3 = os.path.join(tmp, "format3")
        os.makedirs(t3)
        logs3, args3, _ = prepare_case(case_dir, t3, ["--format", "3"])
        o3 = os.path.join(t3, "out")
        subprocess.run([COLLPROF, "analyze", logs3, "-o", o3] + args3,
                       capture_output=True, timeout=600)
        p3 = os.path.join(o3, "report.json")
        same = False
        if os.path.exists(p3):
            text3 = open(p3).read().replace(logs3, logs)
            same = json.loads(text3) == env["report"]
        ok(same, "%s: the same report from the calls logged in format 3"
           % name)


def main():
    if not built():
        return 77
    each_case(tap, run_case, sys.argv[1:], "cp-case-")
    return tap.plan()


if __name__ == "__main__":
    sys.exit(main())
