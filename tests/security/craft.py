#!/usr/bin/env python3
"""craft.py - hostile node partials (docs/partial-format.md), written as
an attacker would: valid checksums and header, hostile counts.

  craft.py spin DIR LOG
      DIR/n9.cppart, 786 bytes: one log (LOG's header) claiming 2^62
      bytes, its slots one run of 2^56 - 64 never-written slots.
  craft.py runs DIR LOG N
      DIR/n9.cppart: N logs (LOG's header, ranks 900..) of the largest
      size a log has (2^28 slots, 16 GiB): LOG's first records, one run
      of never-written slots to the end, a few hundred bytes each.
  craft.py kinds DIR RAW LOG N
      N logs (LOG's header, ranks 900..), each one slot of every kind
      1..255 (kinds 9.. are no record kind: the readers skip them), as
      one partial DIR/n9.cppart and as raw logs RAW/n9.RANK.cplog.
  craft.py seqs SRC DST
      SRC's logs (gen_logs) with every call on a communicator of its own,
      claiming the last sequence number the hang pass compares (2^22 - 1):
      a 20 KB log claiming hundreds of 16384-instance windows.
  craft.py seeds DIR LOG
      small valid partials for the fuzzer's corpus.

The encoder is the format's own (kinds 16.. against zeros); the partial's
header and index are checked as collprof checks them, so what a test sees
is the reader's handling of the counts, not a checksum refusal.
"""
import os
import struct
import sys

HEADER_BYTES = 520  # sizeof(struct cp_log_header) (the partial's entries)
REC = 64
KINDS = 16  # CP_PARTIAL_KINDS
OP_EMPTY, OP_SLOT, OP_TAIL, OP_END = 0, 1, 2, 3


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fnv(data):
    h, m = 0xCBF29CE484222325, (1 << 64) - 1
    whole = len(data) - len(data) % 8
    for (w,) in struct.iter_unpack("<Q", data[:whole]):
        h = ((h ^ w) * 0x100000001B3) & m
    for b in data[whole:]:
        h = ((h ^ b) * 0x100000001B3) & m
    return h


def log_header(log, rank):
    """LOG's header bytes as one of rank `rank` (pid and global rank)."""
    h = bytearray(open(log, "rb").read(HEADER_BYTES))
    struct.pack_into("<ii", h, 36, 40000 + rank, rank)
    return bytes(h)


def header_size(hdr):
    return struct.unpack_from("<I", hdr, 16)[0]


def encode_slots(data):
    """The slot stream of whole slots `data` (no END)."""
    prev, out, empty = {}, bytearray(), 0
    for off in range(0, len(data) - len(data) % REC, REC):
        slot = data[off:off + REC]
        if slot[0] == 0:
            empty += 1
            continue
        if empty:
            out += bytes([OP_EMPTY]) + varint(empty)
            empty = 0
        p = prev.get(slot[0], bytes(REC)) if slot[0] < KINDS else bytes(REC)
        mask, changed = 0, bytearray()
        for k in range(1, REC):
            if slot[k] != p[k]:
                mask |= 1 << (k - 1)
                changed.append(slot[k] ^ p[k])
        out += bytes([OP_SLOT, slot[0]]) + varint(mask) + changed
        if slot[0] < KINDS:
            prev[slot[0]] = slot
    if empty:
        out += bytes([OP_EMPTY]) + varint(empty)
    return bytes(out)


def partial(path, node, logs):
    """Write a partial of logs: (name, rank, header bytes, header_size,
    slot stream with END, raw_size, slots), names in order."""
    logs = sorted(logs)
    start = 128 + 192 * len(logs)
    index, data, raw_bytes = bytearray(), bytearray(), 0
    for name, rank, hdr, hsize, stream, raw_size, slots in logs:
        section = hdr + stream
        e = bytearray(192)
        e[:len(name)] = name.encode()
        struct.pack_into("<QQQQiIIIQ", e, 128, start + len(data),
                         len(section), raw_size, fnv(section), rank,
                         len(hdr), hsize, 0, slots)
        index += e
        data += section
        raw_bytes = (raw_bytes + raw_size) & ((1 << 64) - 1)
    h = bytearray(128)
    h[:8] = b"CPPARTL\n"
    struct.pack_into("<IIIIQQQ", h, 8, 1, 128, 192, len(logs), fnv(index),
                     start + len(data), raw_bytes)
    h[64:64 + len(node)] = node.encode()
    with open(path, "wb") as f:
        f.write(h + index + data)


def first_slots(log, n):
    d = open(log, "rb").read()
    hs = header_size(d[:HEADER_BYTES])
    return d[hs:hs + n * REC]


def spin(d, log):
    hdr = log_header(log, 900)
    run = ((1 << 62) - header_size(hdr)) // REC  # all of the claimed size
    stream = bytes([OP_EMPTY]) + varint(run) + bytes([OP_END])
    partial(os.path.join(d, "n9.cppart"), "n9",
            [("n9.900.cplog", 900, hdr, header_size(hdr), stream, 1 << 62,
              run)])


def runs(d, log, n):
    logs, slots = [], 1 << 28
    for i in range(n):
        hdr = log_header(log, 900 + i)
        real = first_slots(log, 8)
        stream = encode_slots(real)
        stream += bytes([OP_EMPTY]) + varint(slots - len(real) // REC)
        stream += bytes([OP_END])
        hs = header_size(hdr)
        logs.append(("n9.%d.cplog" % (900 + i), 900 + i, hdr, hs, stream,
                     hs + slots * REC, slots))
    partial(os.path.join(d, "n9.cppart"), "n9", logs)


def kinds(d, raw, log, n):
    os.makedirs(raw, exist_ok=True)
    logs = []
    for i in range(n):
        hdr = log_header(log, 900 + i)
        hs = header_size(hdr)
        slots = b"".join(bytes([k]) + bytes(REC - 1) for k in range(1, 256))
        name = "n9.%d.cplog" % (900 + i)
        with open(os.path.join(raw, name), "wb") as f:
            f.write(hdr + bytes(hs - len(hdr)) + slots)
        logs.append((name, 900 + i, hdr, hs,
                     encode_slots(slots) + bytes([OP_END]),
                     hs + len(slots), 255))
    partial(os.path.join(d, "n9.cppart"), "n9", logs)


def seeds(d, log):
    """A partial of LOG's first records; one with a run, a tail and a
    kind past 16."""
    hdr = log_header(log, 900)
    hs = header_size(hdr)
    real = first_slots(log, 6)
    partial(os.path.join(d, "small"), "n9",
            [("n9.900.cplog", 900, hdr, hs, encode_slots(real) +
              bytes([OP_END]), hs + len(real), len(real) // REC)])
    body = real + bytes(3 * REC) + bytes([200]) + bytes(REC - 1)
    stream = encode_slots(body) + bytes([OP_TAIL, 5]) + b"tail!" + \
        bytes([OP_END])
    partial(os.path.join(d, "runs-tail"), "n9",
            [("n9.901.cplog", 901, hdr, hs, stream, hs + len(body) + 5,
              len(body) // REC)])


def seqs(src, dst):
    os.makedirs(dst, exist_ok=True)
    i = 0  # a communicator per call, across the logs too
    for name in sorted(os.listdir(src)):
        if not name.endswith(".cplog"):
            continue
        data = bytearray(open(os.path.join(src, name), "rb").read())
        hs = header_size(data[:HEADER_BYTES])
        for off in range(hs, len(data) - REC + 1, REC):
            if data[off] == 1:  # call: comm_id @8, seq @24
                struct.pack_into("<Q", data, off + 8, 0x5e9000000000 + i)
                struct.pack_into("<I", data, off + 24, (1 << 22) - 1)
                i += 1
        open(os.path.join(dst, name), "wb").write(bytes(data))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "spin" and len(argv) == 4:
        spin(argv[2], argv[3])
    elif cmd == "runs" and len(argv) == 5:
        runs(argv[2], argv[3], int(argv[4]))
    elif cmd == "kinds" and len(argv) == 6:
        kinds(argv[2], argv[3], argv[4], int(argv[5]))
    elif cmd == "seqs" and len(argv) == 4:
        seqs(argv[2], argv[3])
    elif cmd == "seeds" and len(argv) == 4:
        seeds(argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
