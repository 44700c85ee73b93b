#!/usr/bin/env python3
"""domcheck.py - checks on a page or on the DOM Chromium dumped of it.

  domcheck.py figures FILE           every plot's figure, the verdict and
                                     the findings are present, and each
                                     plot's figure holds its drawing (an
                                     <svg class="plot">), not a sentence
                                     saying why there is none
  domcheck.py timeline FILE REPORT   the timeline figure draws one bar
                                     group per window of REPORT's (a
                                     report.json) timeline.windows
  domcheck.py safe HOSTILE BENIGN    the page with hostile names has no
                                     element or attribute the benign one
                                     lacks, no script-capable element, no
                                     event handler, no outside reference
  domcheck.py text FILE STRING       STRING is in the page's text (as text)
  domcheck.py counts FILE            print the element counts

Exit status 0 when the check holds, 1 with the reason on stdout as a TAP
comment, 2 on bad usage.
"""
import collections
import html.parser
import json
import sys

FIGURES = ["fig-time-1", "fig-busbw", "fig-hist", "fig-heatmap",
           "fig-lateness", "fig-timeline", "verdict", "findings", "summary"]
DANGEROUS = {"script", "img", "iframe", "object", "embed", "link", "base",
             "form", "input", "image", "foreignobject", "use", "audio",
             "video", "source", "frame", "frameset", "applet", "animate",
             "set", "meta-refresh"}
# Every element the renderer writes: a hostile page may use any of them
# (a finding the benign run lacks), never anything else.
RENDERER = {"html", "head", "meta", "title", "style", "body", "header", "h1",
            "h2", "h3", "p", "nav", "a", "section", "article", "span", "div",
            "table", "tbody", "tr", "th", "td", "caption", "b", "figure",
            "figcaption", "footer", "sup", "svg", "defs", "clippath", "rect",
            "line", "path", "text", "circle", "g", "pattern",
            "lineargradient", "stop"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = collections.Counter()
        self.ids = set()
        self.handlers = []
        self.outside = []
        self.text = []
        self.figure = None             # the id of the figure being read
        self.plots = collections.Counter()  # figure id: its svg plots
        self.groups = collections.Counter()  # figure id: its <g> elements

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        if tag == "figure":
            self.figure = dict(attrs).get("id")
        if (tag == "svg" and self.figure and
                "plot" in (dict(attrs).get("class") or "").split()):
            self.plots[self.figure] += 1
        if tag == "g" and self.figure:
            self.groups[self.figure] += 1
        for name, value in attrs:
            value = value or ""
            if name == "id":
                self.ids.add(value)
            if name.startswith("on"):
                self.handlers.append("%s %s=%r" % (tag, name, value))
            if name in ("src", "srcset", "action", "formaction", "data",
                        "poster", "background"):
                self.outside.append("%s %s=%r" % (tag, name, value))
            if name in ("href", "xlink:href") and not value.startswith("#"):
                self.outside.append("%s %s=%r" % (tag, name, value))
            if "javascript:" in value.lower() and name != "content":
                self.outside.append("%s %s=%r" % (tag, name, value))
        if tag == "meta":
            d = dict(attrs)
            if (d.get("http-equiv") or "").lower() == "refresh":
                self.tags["meta-refresh"] += 1

    def handle_endtag(self, tag):
        if tag == "figure":
            self.figure = None

    def handle_data(self, data):
        self.text.append(data)


def load(path):
    p = Page()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    p.close()
    return p


def fail(why):
    print("# " + why)
    return 1


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "figures":
        p = load(argv[2])
        missing = [f for f in FIGURES if f not in p.ids]
        if missing:
            return fail("missing: " + ", ".join(missing))
        # figures named after the file may hold a sentence instead (a
        # one-node job's heatmap)
        undrawn = [f for f in FIGURES if f.startswith("fig-")
                   and not p.plots[f] and f not in argv[3:]]
        if undrawn:
            return fail("figures without a plot: " + ", ".join(undrawn))
        print("# %d figures, %d plots, %d svg, %d findings" % (
            p.tags["figure"], sum(p.plots.values()), p.tags["svg"],
            sum(1 for i in p.ids if i.startswith("finding-"))))
        return 0
    if cmd == "timeline" and len(argv) == 4:
        p = load(argv[2])
        with open(argv[3]) as f:
            windows = json.load(f)["timeline"]["windows"]
        want = sum(1 for w in windows if w["end_s"] > w["start_s"])
        if want < 2:
            return fail("report.json has %d windows with a width" % want)
        if not p.plots["fig-timeline"]:
            return fail("the timeline figure has no plot")
        if p.groups["fig-timeline"] != want:
            return fail("the timeline plot has %d bars, report.json %d "
                        "windows" % (p.groups["fig-timeline"], want))
        print("# the timeline: %d windows drawn" % want)
        return 0
    if cmd == "safe" and len(argv) == 4:
        h, b = load(argv[2]), load(argv[3])
        if sum(h.tags.values()) < 100 or sum(b.tags.values()) < 100:
            return fail("not a rendered page: %d and %d elements" % (
                sum(h.tags.values()), sum(b.tags.values())))
        print("# hostile: " + " ".join(
            "%s=%d" % (t, h.tags[t]) for t in sorted(DANGEROUS) if h.tags[t]))
        bad = [t for t in DANGEROUS if h.tags[t] != b.tags[t] or h.tags[t]]
        if bad:
            return fail("dangerous elements: " + ", ".join(
                "%s %d vs %d" % (t, h.tags[t], b.tags[t]) for t in bad))
        extra = set(h.tags) - set(b.tags) - RENDERER
        if extra:
            return fail("elements only in the hostile page: " +
                        ", ".join(sorted(extra)))
        if h.handlers:
            return fail("event handlers: " + "; ".join(h.handlers[:5]))
        if h.outside:
            return fail("outside references: " + "; ".join(h.outside[:5]))
        print("# %d elements in the hostile page, %d in the benign one, "
              "same kinds" % (sum(h.tags.values()), sum(b.tags.values())))
        return 0
    if cmd == "text" and len(argv) == 4:
        p = load(argv[2])
        if argv[3] not in "".join(p.text):
            return fail("text %r not found" % argv[3])
        return 0
    if cmd == "counts":
        p = load(argv[2])
        for t, n in sorted(p.tags.items()):
            print("%s %d" % (t, n))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
