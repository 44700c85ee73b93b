#!/usr/bin/env python3
"""reportcheck.py - checks on the bench.html that collprof bench --report
writes, against the bench.json beside it and, for an import, against the
nccl-tests outputs it came from.

  reportcheck.py plots DIR [INPUT...]

For every collective of bench.json's "fit": one time plot and one busbw
plot; in each, one out-of-place mark per size (the sizes of the INPUT
files, else of bench.json) and as many in-place ones; the marks sit at
their sizes and values on the log axes (the axis is recovered from the
marks, so a mark at a wrong place shows as a residual); the fitted model
curve (none without a fit; for the ring collectives, its shape against
T(n) = A alpha + B n / bandwidth with the fit's values); the regime boundary line at fit.<op>.regime_boundary_bytes; the
busbw plateau line at fit.<op>.busbw_Bps; the link line at the calibrated
bandwidth of the link class where there is one.

Prints one line per check, "PASS name" or "FAIL name: why", for the shell
test to turn into TAP.
"""
import html.parser
import json
import math
import re
import sys

VOID = {"meta", "br", "hr", "img", "input", "link"}
PERF = {"all_reduce_perf": "allreduce", "all_gather_perf": "allgather",
        "reduce_scatter_perf": "reducescatter", "broadcast_perf": "broadcast",
        "reduce_perf": "reduce", "alltoall_perf": "alltoall",
        "gather_perf": "gather", "scatter_perf": "scatter",
        "sendrecv_perf": "sendrecv"}
# T(n) = A alpha + B n / bandwidth of the fitted ring models on p ranks
# (docs/model.md), to check the curve's shape independently of collprof
RING = {"allreduce": lambda p: (2 * (p - 1), 2 * (p - 1) / p),
        "reducescatter": lambda p: (p - 1, (p - 1) / p),
        "allgather": lambda p: (p - 1, (p - 1) / p),
        "broadcast": lambda p: (p - 1, 1),
        "reduce": lambda p: (p - 1, 1)}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []
        self.text = ""

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and
                (cls is None or cls in n.classes())]


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data


def by_id(root, ident):
    found = [n for n in root.walk() if n.attrs.get("id") == ident]
    return found[0] if len(found) == 1 else None


def input_sizes(paths):
    """op -> number of result lines with a size above 0, from the text."""
    sizes = {}
    for path in paths:
        op = next((v for k, v in PERF.items() if k in path), None)
        n = 0
        for line in open(path, errors="replace"):
            line = re.sub(r"^\[\d+,\d+\]<stdout>:", "", line).strip()
            t = line.split()
            if len(t) == 13 and t[0].isdigit() and t[1].isdigit() and int(t[0]) > 0:
                n += 1
        sizes[op] = sizes.get(op, 0) + n
    return sizes


def fit_axis(pairs):
    """px = a + b log(v) by least squares; (a, b, largest residual)."""
    xs = [math.log(v) for v, _ in pairs]
    ys = [p for _, p in pairs]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    return a, b, max(abs(a + b * x - y) for x, y in zip(xs, ys))


def circles(g):
    return sorted((float(c.attrs["cx"]), float(c.attrs["cy"]))
                  for c in g.find("circle"))


def main(argv):
    if len(argv) < 3 or argv[1] != "plots":
        print(__doc__)
        return 2
    d = json.load(open(argv[2] + "/bench.json"))
    tree = Tree()
    tree.feed(open(argv[2] + "/bench.html", encoding="utf-8").read())
    tree.close()
    root = tree.root
    expect = input_sizes(argv[3:]) if len(argv) > 3 else None
    links = d.get("calibration", {}).get("links", {})
    results = []

    def check(name, cond, why=""):
        results.append("PASS %s" % name if cond else "FAIL %s: %s" % (name, why))

    ops = sorted(d["fit"])
    times = root.find("figure", "bench-time")
    busbws = root.find("figure", "bench-busbw")
    check("one time plot per collective (%d)" % len(ops),
          sorted(f.attrs["id"][len("fig-time-"):] for f in times) == ops,
          [f.attrs.get("id") for f in times])
    check("one busbw plot per collective (%d)" % len(ops),
          sorted(f.attrs["id"][len("fig-busbw-"):] for f in busbws) == ops,
          [f.attrs.get("id") for f in busbws])
    for op in ops:
        fit = d["fit"][op]
        pts = sorted((p for p in d["points"] if p["op"] == op and
                      p["ranks"] == fit["ranks"] and p["size_bytes"] > 0 and
                      not p["in_place"]), key=lambda p: p["size_bytes"])
        n = expect[op] if expect is not None else len(pts)
        for kind in ("time", "busbw"):
            fig = by_id(root, "fig-%s-%s" % (kind, op))
            if fig is None:
                check("%s: the %s figure" % (op, kind), False, "missing")
                continue
            svgs = fig.find("svg", "plot")
            check("%s %s: one plot" % (op, kind), len(svgs) == 1, len(svgs))
            oop = [g for g in fig.find("g", "pts") if "oop" in g.classes()]
            inp = [g for g in fig.find("g", "pts") if "inplace" in g.classes()]
            marks = circles(oop[0]) if len(oop) == 1 else []
            squares = len(inp[0].find("rect")) if len(inp) == 1 else -1
            check("%s %s: %d out-of-place marks, one per size" % (op, kind, n),
                  len(marks) == n == len(pts), "%d marks, %d points in "
                  "bench.json" % (len(marks), len(pts)))
            check("%s %s: %d in-place marks" % (op, kind, n), squares == n,
                  squares)
            if len(marks) != len(pts) or len(pts) < 2:
                continue
            ax, bx, rx = fit_axis([(p["size_bytes"], m[0])
                                   for p, m in zip(pts, marks)])
            key = "time_s" if kind == "time" else "busbw_Bps"
            ay, by, ry = fit_axis([(p[key], m[1]) for p, m in zip(pts, marks)])
            check("%s %s: every mark at its size and value on the log axes"
                  % (op, kind), rx < 0.2 and ry < 0.2 and bx > 0 and by < 0,
                  "largest residual x %.3f px, y %.3f px" % (rx, ry))
            models = fig.find("path", "model")
            if fit["alpha_s"] is None:
                check("%s %s: no model curve without a fit" % (op, kind),
                      not models, "%d model paths" % len(models))
            else:
                check("%s %s: the fitted model curve" % (op, kind),
                      len(models) == 1 and
                      models[0].attrs["d"].count("L") >= 40,
                      "%d model paths" % len(models))
            if kind == "time" and op in RING and len(models) == 1:
                A, B = RING[op](fit["ranks"])
                worst = 0
                for x, y in re.findall(r"[ML]([-\d.]+) ([-\d.]+)",
                                       models[0].attrs["d"]):
                    x, y = float(x), float(y)
                    if not 0 < y < 340:
                        continue  # clamped outside the frame
                    size = math.exp((x - ax) / bx)
                    t = A * fit["alpha_s"] + B * size / fit["bandwidth_Bps"]
                    worst = max(worst, abs(ay + by * math.log(t) - y))
                check("%s time: the curve is T(n) = %g alpha + %g n / bandwidth "
                      "of the fit" % (op, A, B), worst < 0.3,
                      "%.2f px off" % worst)
            b = fit["regime_boundary_bytes"]
            bounds = fig.find("g", "boundary")
            if len(bounds) != 1:
                check("%s %s: one regime boundary marker" % (op, kind), False,
                      "%d markers" % len(bounds))
                continue
            line = bounds[0].find("line")[0]
            want = ax + bx * math.log(b)
            check("%s %s: the boundary at fit.regime_boundary_bytes = %.6g B"
                  % (op, kind, b),
                  abs(float(bounds[0].attrs["data-bytes"]) / b - 1) < 1e-11 and
                  abs(float(line.attrs["x1"]) - want) < 0.25 and
                  line.attrs["x1"] == line.attrs["x2"],
                  "data-bytes %s, x %s, expected x %.2f" % (
                      bounds[0].attrs["data-bytes"], line.attrs["x1"], want))
            if kind != "busbw":
                continue
            plateau = fig.find("g", "plateau")
            if fit["busbw_Bps"] is not None:
                y = float(plateau[0].find("line")[0].attrs["y1"]) if plateau else math.nan
                want = ay + by * math.log(fit["busbw_Bps"])
                check("%s busbw: the plateau line at %.4g GB/s" % (
                    op, fit["busbw_Bps"] / 1e9), abs(y - want) < 0.25,
                    "y %s, expected %.2f" % (y, want))
            bw = (links.get(fit["link"]) or {}).get("bandwidth_Bps")
            if bw and links[fit["link"]].get("ok"):
                link = fig.find("g", "link")
                y = float(link[0].find("line")[0].attrs["y1"]) if link else math.nan
                want = ay + by * math.log(bw)
                check("%s busbw: the %s link line at %.4g GB/s" % (
                    op, fit["link"], bw / 1e9), abs(y - want) < 0.25,
                    "y %s, expected %.2f" % (y, want))
    for line in results:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
