#!/usr/bin/env python3
"""fuzz.py LOGS ITERATIONS SEED COLLPROF - damage copies of a log set at
random (bytes, records of a valid kind full of garbage, extreme times and
counts, truncation, duplicates) and check that collprof analyze exits 0 or
1, never crashes, and writes a report whenever it exits 0.  TAP output."""
import os, random, shutil, struct, subprocess, sys, tempfile

base, iterations, seed, collprof = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
random.seed(seed)
work = tempfile.mkdtemp(prefix="cp-fuzz-")
failures = 0
for it in range(iterations):
    logs = os.path.join(work, "logs")
    out = os.path.join(work, "out")
    shutil.rmtree(logs, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(base, logs)
    files = sorted(os.listdir(logs))
    for f in files:
        p = os.path.join(logs, f)
        d = bytearray(open(p, "rb").read())
        n = (len(d) - 4096) // 64
        for _ in range(random.choice([0, 1, 5, 50])):
            off = 4096 + 64 * random.randrange(n)
            m = random.random()
            if m < 0.3:
                d[off + random.randrange(1, 64)] = random.randrange(256)
            elif m < 0.5:
                d[off] = random.randrange(1, 6)
                d[off + 1:off + 64] = os.urandom(63)
            elif m < 0.6:
                d[off] = random.randrange(256)
            elif m < 0.7:
                struct.pack_into("<Q", d, off + random.choice([8, 16, 48, 56]),
                                 random.choice([0, 2**63 - 1, 2**64 - 1, random.getrandbits(64)]))
            elif m < 0.8:
                struct.pack_into("<I", d, off + random.choice([24, 28, 32, 36, 40]),
                                 random.choice([0, 1, 2**31, 2**32 - 1, random.getrandbits(32)]))
            elif m < 0.9:
                d[random.randrange(0, 416)] = random.randrange(256)
            else:
                d[off:off + 64] = d[4096 + 64 * random.randrange(n):][:64]
        if random.random() < 0.2:
            d = d[:random.randrange(len(d))]
        open(p, "wb").write(d)
    if random.random() < 0.2:
        shutil.copy(os.path.join(logs, files[0]), os.path.join(logs, "dup.cplog"))
    r = subprocess.run([collprof, "analyze", logs, "-o", out, "-q"],
                       capture_output=True, text=True, errors="replace")
    good = r.returncode in (0, 1) and \
        (r.returncode != 0 or os.path.exists(os.path.join(out, "report.json")))
    print("%sok %d - damaged copy %d: exit %d" % ("" if good else "not ", it + 1, it, r.returncode))
    if not good:
        failures += 1
        print("# " + r.stderr[-1000:].replace("\n", "\n# "))
shutil.rmtree(work, ignore_errors=True)
print("1..%d" % iterations)
sys.exit(1 if failures else 0)
