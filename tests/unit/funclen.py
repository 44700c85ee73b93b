#!/usr/bin/env python3
"""funclen.py - the product's functions longer than MAX lines.

A function's body is the lines between a "{" alone at column 0 and the
next "}" at column 0 (the project's style: a function's braces on lines of
their own).  The product is every .c file under the source tree but
tests/, build directories and worktrees.  Prints "LINES FILE FUNCTION" for
each over MAX, and exits 1 when there is one.

usage: funclen.py TOP [MAX]
"""
import os
import re
import sys

SKIP = {'tests', 'build', 'autom4te.cache', '.git', 'debian'}


def product_files(top):
    for root, dirs, files in os.walk(top):
        rel = os.path.relpath(root, top)
        first = rel.split(os.sep)[0]
        if first in SKIP or first.startswith('build') or \
                first.startswith('wt-'):
            dirs[:] = []
            continue
        for f in files:
            if f.endswith('.c'):
                yield os.path.join(root, f)


def long_functions(path, most):
    lines = open(path, errors='replace').read().split('\n')
    start = None
    for i, line in enumerate(lines):
        if start is None and line == '{' and i > 0:
            sig, j = '', i - 1
            while j >= 0 and lines[j].strip() and \
                    not lines[j].startswith(('}', '#', '/*', ' *')):
                sig = lines[j] + ' ' + sig
                j -= 1
            m = re.search(r'(\w+)\s*\(', sig)
            start, name = i, (m.group(1) if m else '?')
        elif start is not None and line.startswith('}'):
            if i - start - 1 > most:
                yield i - start - 1, name
            start = None


def main():
    top = sys.argv[1]
    most = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    found = []
    for path in sorted(product_files(top)):
        for n, name in long_functions(path, most):
            found.append((n, os.path.relpath(path, top), name))
    for n, path, name in sorted(found, reverse=True):
        print('%d %s %s' % (n, path, name))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
