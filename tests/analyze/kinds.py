#!/usr/bin/env python3
"""kinds.py - the kinds of finding are one table (common/cp_kinds.c).

Checks, in the tree at ROOT: the enum (cp_kinds.h) and the table rows agree;
every kind a detector emits (det_add_finding in analyzer/judge/, the hang
pass's in analyzer/analysis/) is a row and
every row is emitted; the detectors name kinds only through the enum; every
kind in the reports and expectations under tests/ is a row; the Findings
list of docs/analysis.md has exactly the rows, in order, with their rule and
severity; each row's doc anchor is a heading of that document; the
what-to-do texts are plain (no < > & ", balanced backquotes); report.html
has a what-to-do for every row (the row's text or its own from the
evidence).

Usage: kinds.py [ROOT]  - prints one line per problem, exits 1 if any.
"""
import glob
import json
import os
import re
import sys

STR = r'((?:"(?:[^"\\]|\\.)*"\s*)+)'


def c_string(literals):
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', literals)
    return ''.join(parts).replace('\\"', '"').replace('\\\\', '\\')


def table(root):
    text = open(os.path.join(root, 'common/cp_kinds.c')).read()
    rows = []
    for m in re.finditer(r'^ +\[CP_KIND_(\w+)\]\s*=\s*\{(.*?)\}(?=,?\s*(?:\[|\};))',
                         text, re.S | re.M):
        body = m.group(2)
        row = {'enum': m.group(1)}
        for field in ('name', 'title', 'rule', 'severity', 'todo', 'doc'):
            f = re.search(r'\.' + field + r'\s*=\s*' + STR, body)
            row[field] = c_string(f.group(1)) if f else None
        rows.append(row)
    return rows


def anchor(heading):
    return re.sub(r'[^a-z0-9 -]', '', heading.lower()).replace(' ', '-')


def check(root):
    problems = []
    rows = table(root)
    names = [r['name'] for r in rows]
    if not rows:
        return ['no rows found in common/cp_kinds.c']
    header = open(os.path.join(root, 'common/cp_kinds.h')).read()
    enum = re.findall(r'^\s*CP_KIND_(\w+)\s*(?:=\s*0)?,', header, re.M)
    enum = [e for e in enum if e != 'COUNT']
    if enum != [r['enum'] for r in rows]:
        problems.append('enum cp_kind %s and the table %s differ'
                        % (enum, [r['enum'] for r in rows]))
    for r in rows:
        if r['name'] != r['enum'].lower():
            problems.append('row CP_KIND_%s is named %s' % (r['enum'],
                                                            r['name']))
        for field in ('title', 'rule', 'severity', 'doc'):
            if not r[field]:
                problems.append('%s has no %s' % (r['name'], field))
        todo = r['todo'] or ''
        if re.search(r'[<>&"]', todo) or todo.count('`') % 2:
            problems.append('%s: the what-to-do text is not plain' %
                            r['name'])

    emitted = set()
    for path in sorted(glob.glob(os.path.join(root, 'analyzer/*/*.c'))):
        text = open(path).read()
        # the detectors call add_finding(an, KIND, ...); the hang
        # analysis fills a finding (f.kind = KIND) that it emits later
        for m in re.finditer(r'(?<!an_)add_finding\(\s*an,\s*([^,]+),'
                             r'|\bf\.kind\s*=\s*([^;]+);', text):
            arg = (m.group(1) or m.group(2)).strip()
            k = re.fullmatch(r'CP_KIND_(\w+)', arg)
            if not k:
                problems.append('%s emits a kind not named by the enum: %s'
                                % (os.path.relpath(path, root), arg))
            else:
                emitted.add(k.group(1).lower())
    for k in sorted(emitted - set(names)):
        problems.append('kind %s is emitted but not in the table' % k)
    for k in names:
        if k not in emitted:
            problems.append('kind %s is in the table but never emitted' % k)

    seen = set()
    for path in glob.glob(os.path.join(root, 'tests/**/report.json'),
                          recursive=True):
        try:
            rep = json.load(open(path))
        except (ValueError, OSError):
            continue
        for f in rep.get('findings', []) if isinstance(rep, dict) else []:
            if isinstance(f, dict) and isinstance(f.get('kind'), str):
                seen.add((f['kind'], os.path.relpath(path, root)))
    for path in glob.glob(os.path.join(root, 'tests/analyze/cases/*/expected')):
        for k in re.findall(r'kind=(\w+)', open(path).read()):
            seen.add((k, os.path.relpath(path, root)))
    for k, where in sorted(seen):
        if k not in names:
            problems.append('%s holds kind %s, not in the table' % (where, k))

    doc = open(os.path.join(root, 'docs/analysis.md')).read()
    sec = doc.split('\n## Findings\n', 1)
    listed = []
    if len(sec) == 2:
        for line in sec[1].split('\n## ', 1)[0].splitlines():
            m = re.fullmatch(r'\| `(\w+)` \| (.*) \| (.*) \|', line)
            if m:
                listed.append(m.groups())
    want = [(r['name'], r['rule'], r['severity']) for r in rows]
    if listed != want:
        for x in listed:
            if x not in want:
                problems.append('docs/analysis.md lists %s | %s | %s, '
                                'not a row of the table' % x)
        for x in want:
            if x not in listed:
                problems.append('docs/analysis.md does not list %s | %s | %s'
                                % x)
        if sorted(listed) == sorted(want):
            problems.append('docs/analysis.md lists the kinds in another '
                            'order than the table')
    headings = {}
    for path in glob.glob(os.path.join(root, 'docs/*.md')):
        for h in re.findall(r'^#+ (.*)$', open(path).read(), re.M):
            headings.setdefault(os.path.basename(path), set()).add(anchor(h))
    for r in rows:
        d = (r['doc'] or '').split('#', 1)
        if len(d) != 2 or d[1] not in headings.get(d[0], set()):
            problems.append('%s: the doc anchor %s is no heading' %
                            (r['name'], r['doc']))

    # a kind's name as a string literal in product code (compared, searched
    # or written as a value): every one goes through the table instead; the
    # SPANK plugin too, which links the table (common/).  Allowed: a site
    # profile skips the simulator's `straggler` topology directive (a word
    # of that file, not a kind)
    literal = re.compile(r'(?:strcmp|strstr|strncmp)\([^;]*?"(%s)"'
                         r'|json_string\(\s*"(%s)"\s*\)'
                         % ('|'.join(names), '|'.join(names)))
    allowed = {('analyzer/core/cp_profile.c', 'straggler')}
    # the plugin names neither kinds nor severities: it reads and writes
    # them through the table (cp_kind_from_name, cp_severity_named/_name)
    plugin_literal = re.compile(r'"(%s|info|warning|critical|none)"'
                                % '|'.join(names))
    for folder in ('common', 'analyzer/*', 'reports', 'plugin', 'preload',
                   'nccl-profiler'):
        for path in sorted(glob.glob(os.path.join(root, folder, '*.c'))):
            rel = os.path.relpath(path, root)
            if rel == 'common/cp_kinds.c':
                continue
            text = open(path).read()
            for m in literal.finditer(text):
                k = m.group(1) or m.group(2)
                if (rel, k) not in allowed:
                    problems.append('%s names kind %s as a string literal, '
                                    'not through the table' % (rel, k))
            if folder != 'plugin':
                continue
            for m in plugin_literal.finditer(text):
                # on_hang=none: a word of that key, not a severity
                if (rel, m.group(1)) == ('plugin/cp_args.c', 'none'):
                    continue
                problems.append('%s names %s as a string literal, not '
                                'through the table' % (rel, m.group(1)))

    html = open(os.path.join(root, 'reports/cp_html.c')).read()
    for r in rows:
        own = re.search(r'case CP_KIND_%s:' % r['enum'], html)
        if not r['todo'] and not own:
            problems.append('report.html has no what-to-do for %s' %
                            r['name'])
        if r['todo'] and own:
            problems.append('%s has a what-to-do in the table and one in '
                            'reports/cp_html.c' % r['name'])
    return problems


def main():
    problems = check(sys.argv[1] if len(sys.argv) > 1 else '.')
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
