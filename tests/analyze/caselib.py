"""caselib.py - what cases.py and partials.py share: the binaries, TAP
output, preparing a golden case (tests/analyze/cases/<case>/; cases.py's
header describes its files) and running a function over every case.
"""
import os
import shlex
import shutil
import subprocess
import tempfile

top_srcdir = os.environ.get("top_srcdir", ".")
top_builddir = os.environ.get("top_builddir", ".")
COLLPROF = os.path.join(top_builddir, "analyzer", "collprof")
GEN = os.path.join(top_builddir, "tests", "tools", "gen_logs")
CASES = os.path.join(top_srcdir, "tests", "analyze", "cases")


class Tap:
    """TAP lines: ok() prints one and counts the failures."""

    def __init__(self, why_lines=None):
        self.n = 0
        self.failed = 0
        self.why_lines = why_lines  # lines of `why` printed, None: all

    def ok(self, cond, name, why=""):
        self.n += 1
        print("%sok %d - %s" % ("" if cond else "not ", self.n, name),
              flush=True)
        if not cond:
            self.failed += 1
            for line in str(why).splitlines()[:self.why_lines]:
                print("#   " + line)
        return cond

    def plan(self):
        """Prints the plan; the exit status of the run."""
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0


class CaseFailed(Exception):
    """Preparing a case failed: `step` (gen_logs, prepare) said `output`."""

    def __init__(self, step, output):
        super().__init__("%s: %s" % (step, output))
        self.step = step
        self.output = output


def read_file(case_dir, name):
    """The case's file `name`, or None."""
    path = os.path.join(case_dir, name)
    return open(path).read() if os.path.exists(path) else None


def prepare_case(case_dir, tmp, extra=()):
    """Writes the case's logs into tmp/logs (gen_logs with its arguments
    and `extra`, then its prepare script).  Returns (logs, analyze
    arguments, truth.json path or None); raises CaseFailed."""
    logs = os.path.join(tmp, "logs")
    truth = os.path.join(tmp, "truth.json")
    gen = read_file(case_dir, "gen")
    if gen is not None:
        r = subprocess.run([GEN] + shlex.split(gen) + list(extra) +
                           ["-o", logs, "--truth", truth],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise CaseFailed("gen_logs", r.stderr)
    else:
        os.makedirs(logs)
    if os.path.exists(os.path.join(case_dir, "prepare")):
        r = subprocess.run(["sh", os.path.join(case_dir, "prepare"), logs,
                            GEN], capture_output=True, text=True)
        if r.returncode != 0:
            raise CaseFailed("prepare", r.stdout + r.stderr)
    args = (read_file(case_dir, "args") or "").replace("$CASE", case_dir) \
        .replace("$LOGS", logs)
    return logs, shlex.split(args), truth if os.path.exists(truth) else None


def built():
    """False (after printing the skip plan) when a binary is missing."""
    if os.path.exists(COLLPROF) and os.path.exists(GEN):
        return True
    print("1..0 # SKIP collprof or gen_logs not built")
    return False


def each_case(tap, fn, only, prefix):
    """fn(case_dir, tmp) for every case (those named in `only`, if any),
    each in a fresh temporary folder; a case that cannot be prepared is one
    failed test."""
    for case in sorted(os.listdir(CASES)):
        case_dir = os.path.join(CASES, case)
        if not os.path.isdir(case_dir) or (only and case not in only):
            continue
        tmp = tempfile.mkdtemp(prefix=prefix)
        try:
            fn(case_dir, tmp)
        except CaseFailed as e:
            tap.ok(False, "%s: %s" % (case, e.step), e.output)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
