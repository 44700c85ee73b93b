#!/usr/bin/env python3
"""layers.py - the include-direction check of collprof's folders.

Each product folder is a layer; a file may include (with "...") only headers
of its own folder and of the folders its row below names.  Includes point
down: cli -> watch -> judge -> analysis, bench -> logs -> core -> common,
cli -> fleet -> core; reports/ reads
JSON and uses core and common alone; the shim (preload/) includes nothing
of the analyzer, the SPANK plugin (plugin/) only common/, the small library
below both; the NCCL profiler plugin (nccl-profiler/) uses the
shim's log writer.  include/collprof/ is the public log format and the one
error type (cp_error.h) that everyone may include.  A bare name is found in the including file's folder
first, then in every folder; a name that two folders hold is an error (it
would depend on the -I order).

Usage: layers.py [ROOT]  - prints one line per violation, exits 1 if any.
"""
import os
import re
import sys

# folder -> the folders its files may include (besides their own)
MAY_INCLUDE = {
    'include/collprof': set(),
    # below both the analyzer and the SPANK plugin: kinds and severities,
    # printable text, paths, the bounded JSON loader
    'common': {'include/collprof'},
    'analyzer/core': {'common', 'include/collprof'},
    'analyzer/logs': {'analyzer/core', 'common', 'include/collprof'},
    'analyzer/analysis': {'analyzer/logs', 'analyzer/core', 'common',
                          'include/collprof'},
    # the run (join, then judge) and the detectors, over the join's view
    'analyzer/judge': {'analyzer/analysis', 'analyzer/logs', 'analyzer/core',
                       'common', 'include/collprof'},
    'analyzer/bench': {'analyzer/logs', 'analyzer/core', 'common',
                       'include/collprof'},
    # a running job's logs followed; the analysis run when it suspects a hang
    'analyzer/watch': {'analyzer/judge', 'analyzer/analysis', 'analyzer/logs',
                       'analyzer/core', 'common', 'include/collprof'},
    # the fleet database: reports read through core's checked reader
    'analyzer/fleet': {'analyzer/core', 'common', 'include/collprof'},
    'analyzer/cli': {'analyzer/watch', 'analyzer/fleet', 'analyzer/judge', 'analyzer/analysis',
                     'analyzer/bench',
                     'analyzer/logs', 'analyzer/core', 'common', 'reports',
                     'include/collprof'},
    'reports': {'analyzer/core', 'common', 'include/collprof'},
    'preload': {'include/collprof'},
    # the plugin runs the commands: nothing of the analyzer, only common/
    'plugin': {'common', 'include/collprof'},
    # NCCL's profiler plugin writes the shim's log with the shim's writer
    'nccl-profiler': {'preload', 'include/collprof'},
}

# Includes that point the wrong way today and are being removed; each one
# is reported as a TODO.  One that is gone must leave this list.
PENDING = set()

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def product_files(root):
    for folder in MAY_INCLUDE:
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(('.c', '.h')):
                yield folder, name


def check(root):
    """Returns (violations, pending_seen, problems) as lists of strings."""
    where = {}
    problems = []
    files = list(product_files(root))
    for folder, name in files:
        if name.endswith('.h'):
            where.setdefault(name, []).append(folder)
    for name, folders in sorted(where.items()):
        if len(folders) > 1:
            problems.append('%s is in %s' % (name, ' and '.join(folders)))
    violations, pending = [], []
    for folder, name in files:
        path = os.path.join(folder, name)
        with open(os.path.join(root, path), encoding='utf-8',
                  errors='replace') as f:
            text = f.read()
        for inc in INCLUDE_RE.findall(text):
            if inc == 'config.h':
                continue
            if '/' in inc:
                target = os.path.dirname(os.path.join('include', inc))
                if not os.path.exists(os.path.join(root, 'include', inc)):
                    continue
            elif os.path.exists(os.path.join(root, folder, inc)):
                continue
            elif inc in where:
                target = where[inc][0]
            else:
                continue   # a system or build header
            if target == folder or target in MAY_INCLUDE[folder]:
                continue
            line = '%s includes %s (%s may not include %s)' % (
                path, inc, folder, target)
            if (path, inc) in PENDING:
                pending.append((path, inc))
            else:
                violations.append(line)
    return violations, pending, problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    violations, pending, problems = check(root)
    for line in problems + violations:
        print(line)
    for path, inc in pending:
        print('pending: %s includes %s' % (path, inc))
    for path, inc in sorted(PENDING - set(pending)):
        print('gone from the code, remove from PENDING: %s includes %s'
              % (path, inc))
    return 1 if problems or violations else 0


if __name__ == '__main__':
    sys.exit(main())
