#!/usr/bin/env python3
"""log4.py - an independent reader of log format 4 (docs/log-format.md),
written from the format's description, not from the C decoder: the tests
compare what it and the analyzer's reader make of the same files.

  log4.py slots LOG        one line per slot: its number and 64 bytes, hex
                           (kind 0 slots: "empty"), from stream then ring
  log4.py same LOG4 LOG3   exit 0 when LOG4's slots are LOG3's (a format-3
                           log of the same records), else say the first
                           difference and exit 1
  log4.py calls LOG        one line per call: its seq and end_ns
  log4.py size LOG         slots, stream bytes, file bytes, bytes per
                           slot, the blocks the file system gave it
  log4.py kinds LOG        per record kind: the records the stream holds
                           and the bytes of their ops (a template's
                           counted to its kind), one line each
"""
import struct
import sys

HDR = 4096
REC = 64
MAGIC = 0x34424350


class Damage(Exception):
    pass


def varint(b, i):
    v = 0
    shift = 0
    for k in range(10):
        if i >= len(b):
            raise Damage("varint past the payload")
        x = b[i]
        i += 1
        if k == 9 and x > 1:
            raise Damage("varint too long")
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, i
    raise Damage("varint too long")


def unzz(v):
    return (v >> 1) ^ -(v & 1)


M64 = (1 << 64) - 1
M32 = (1 << 32) - 1


def header(data):
    if data[:8] != b"COLLPROF":
        raise Damage("not a collprof log")
    end = "<" if struct.unpack_from("<I", data, 8)[0] == 0x01020304 else ">"
    version, = struct.unpack_from(end + "I", data, 12)
    start_rt, = struct.unpack_from(end + "Q", data, 56)
    f = struct.unpack_from(end + "IIQQQQI", data, 456)
    flags, = struct.unpack_from(end + "I", data, 28)
    h = dict(zip(("ring_slots", "dict_slots", "ring_offset", "stream_offset",
                  "stream_end", "stream_slots", "sync_bytes"), f))
    if not flags & 4:
        h["sync_bytes"] = 0
    return end, version, start_rt, h


# Templated kinds: (offset, size, role, ref) of each varying field, in
# order (docs/log-format.md, "templated records").
SLOT, TIME, CALL, SPAN, NEXT, VALUE, DEV, DEVEND = range(1, 9)
TEMPLATED = {
    5: [(8, 8, SLOT, 0), (16, 8, CALL, 0), (24, 8, SPAN, 1)],
    6: [(8, 8, SLOT, 0), (24, 8, NEXT, 0), (32, 4, NEXT, 0),
        (40, 8, DEV, 0), (48, 8, DEVEND, 0)],
    7: [(16, 8, SLOT, 0), (24, 8, VALUE, 0), (32, 8, CALL, 0),
        (40, 8, SPAN, 2), (48, 8, VALUE, 0), (58, 2, VALUE, 0),
        (60, 4, VALUE, 0)],
    8: [(8, 8, SLOT, 0), (16, 4, NEXT, 0), (24, 8, VALUE, 0),
        (32, 8, TIME, 0), (40, 8, SPAN, 3), (48, 8, SPAN, 4)],
    9: [(8, 8, SLOT, 0), (4, 4, NEXT, 0)],
    10: [(8, 8, SLOT, 0), (24, 4, NEXT, 0), (32, 8, DEV, 0),
         (40, 8, SPAN, 2), (48, 8, SPAN, 2), (56, 8, SPAN, 3)],
    11: [(16, 4, VALUE, 0), (20, 4, VALUE, 0), (24, 8, VALUE, 0),
         (32, 8, CALL, 0), (40, 8, SPAN, 3), (48, 8, VALUE, 0),
         (56, 4, VALUE, 0), (60, 4, VALUE, 0)],
    12: [(24, 4, VALUE, 0), (28, 4, VALUE, 0), (32, 4, SPAN, 1),
         (36, 2, VALUE, 0), (38, 2, VALUE, 0), (40, 2, VALUE, 0),
         (42, 2, VALUE, 0), (48, 8, TIME, 0), (56, 8, VALUE, 0)],
}
SIZE_FMT = {1: "B", 2: "H", 4: "I", 8: "Q"}


def templated(end, st, tmpl, b, i, me):
    rec = bytearray(tmpl["rec"])
    fields = TEMPLATED[rec[0]]
    # the fields present: a byte, two (little-endian) past 8 fields
    width = 2 if len(fields) > 8 else 1
    if i + width > len(b):
        raise Damage("templated record cut short")
    present = int.from_bytes(b[i:i + width], "little")
    i += width
    if present >> len(fields):
        raise Damage("fields %#x present, the kind has %d"
                     % (present, len(fields)))
    last = tmpl["last"]
    vals = []
    for j, (off, size, role, ref) in enumerate(fields):
        mask = (1 << (8 * size)) - 1
        x = 0
        if present >> j & 1:
            x, i = varint(b, i)
        if role == SLOT:
            last[j] = (last[j] + unzz(x)) & M64
            v = me - last[j]
        elif role == NEXT:
            last[j] = (last[j] + 1 + unzz(x)) & mask
            v = last[j]
        elif role == VALUE:
            last[j] = (last[j] + unzz(x)) & mask
            v = last[j]
        elif x == 0:
            v = 0
        elif role == TIME:
            v = (st.t_call + unzz(x - 1)) & M64
            st.t_call = v
        else:
            last[j] = (last[j] + unzz(x - 1)) & M64
            base = {CALL: st.call_start, DEV: st.dev_start,
                    DEVEND: st.dev_end}.get(role)
            v = (vals[ref] if base is None else base) + last[j]
        v &= mask
        vals.append(v)
        struct.pack_into(end + SIZE_FMT[size], rec, off, v)
    return bytes(rec), i


class State:
    def __init__(self, t0):
        self.call_start = t0
        self.dev_start = self.dev_end = t0
        self.tmpl = []
        self.sig = []
        self.seqlast = {}
        self.t_call = t0
        self.t_gpu = t0
        self.last_group = 0
        self.at_sync = False


def times(b, i, prev):
    v, i = varint(b, i)
    start = (prev + unzz(v)) & M64
    e, i = varint(b, i)
    end = 0 if e == 0 else (start + e - 1) & M64
    return start, end, i


def after(start, end):
    return end if end else start


def call(end, f):
    # kind op dtype redop result timer flags comm count seq peer rank
    # nranks group stream start end
    return struct.pack(end + "BBBBbBHQQIiIIIIQQ", 1, *f)


class Out(list):
    """The slots decoded; the latest call's start follows them."""

    def __init__(self, end, st):
        super().__init__()
        self.end = end
        self.st = st

    def append(self, rec):
        if rec[0] == 1:
            self.st.call_start, = struct.unpack_from(self.end + "Q", rec, 48)
        elif rec[0] == 5:
            self.st.dev_start, self.st.dev_end = struct.unpack_from(
                self.end + "QQ", rec, 16)
        super().append(rec)


# kind -> [records, bytes of their ops] when counting (log4.py kinds)
KINDS = None


def decode_payload(end, st, b, slot):
    out = Out(end, st)
    i = 0
    while i < len(b):
        at, had = i, len(out)
        op = b[i]
        i += 1
        if op < 0xC0:
            x = b[i] if op >= 0x80 else 0
            if op >= 0x80:
                i += 1
                if x & ~15:
                    raise Damage("unknown flags %#x" % x)
            idx = op & 0x3F
            if x & 1:
                h, i = varint(b, i)
                idx |= h << 6
            if idx >= len(st.sig):
                raise Damage("signature %d past the table" % idx)
            s = st.sig[idx]
            pred = (st.seqlast.get(s["key"], M32) + 1) & M32
            seq = pred
            if x & 2:
                v, i = varint(b, i)
                seq = (pred + unzz(v)) & M32
            ingroup = s["flags"] & 1
            if x & 4:
                group, i = varint(b, i)
            if x & 8:
                count, i = varint(b, i)
            else:
                count = s["count"]
            if x & 4:
                pass
            elif ingroup:
                group = st.last_group + 1 if op & 0x40 and op < 0x80 \
                    else st.last_group
            else:
                if op & 0x40 and op < 0x80:
                    raise Damage("a new group outside groups")
                group = 0
            v, i = varint(b, i)
            start = (st.t_call + unzz(v)) & M64
            st.t_call = start
            e, i = varint(b, i)
            if e == 0:
                endt = 0
            else:
                dur = (s["lastdur"] + unzz(e - 1)) & M64
                s["lastdur"] = dur
                endt = (start + dur) & M64
                st.t_call = endt
            st.seqlast[s["key"]] = seq
            if group:
                st.last_group = group
            out.append(call(end, (s["op"], s["dtype"], s["redop"],
                                  s["result"], s["timer"], s["flags"],
                                  s["comm"], count, seq, s["peer"],
                                  s["rank"], s["nranks"], group & M32,
                                  s["stream"], start, endt)))
        elif op == 0xC0:
            s = dict(zip(("op", "dtype", "redop", "timer"), b[i:i + 4]))
            s["result"] = struct.unpack("b", b[i + 4:i + 5])[0]
            i += 5
            for k in ("flags", "comm", "count", "peer", "rank", "nranks",
                      "stream", "key"):
                v, i = varint(b, i)
                s[k] = unzz(v) if k == "peer" else v
            if s["key"] > len(st.sig):
                raise Damage("key past its own index")
            s["lastdur"] = 0
            st.sig.append(s)
        elif op == 0xC1:
            f = list(b[i:i + 4])
            res = struct.unpack("b", b[i + 4:i + 5])[0]
            i += 5
            vals = {}
            for k in ("flags", "comm", "count", "seq", "peer", "rank",
                      "nranks", "group", "stream"):
                v, i = varint(b, i)
                vals[k] = unzz(v) if k == "peer" else v
            start, endt, i = times(b, i, st.t_call)
            st.t_call = after(start, endt)
            if vals["group"]:
                st.last_group = vals["group"]
            out.append(call(end, (f[0], f[1], f[2], res, f[3], vals["flags"],
                                  vals["comm"], vals["count"], vals["seq"],
                                  vals["peer"], vals["rank"], vals["nranks"],
                                  vals["group"], vals["stream"], start,
                                  endt)))
        elif op == 0xC2:
            out.append(bytes(b[i:i + REC]))
            i += REC
        elif op == 0xC3 or op == 0xC8:
            # never-written slots; 0xc8: calls a capture policy folded
            # into aggregates, read back as never-written slots
            n, i = varint(b, i)
            if op == 0xC8 and n == 0:
                raise Damage("empty run of folded calls")
            out.extend([bytes(REC)] * n)
        elif op == 0xC4:
            v, i = varint(b, i)
            group = (st.last_group + unzz(v)) & M32
            res = struct.unpack("b", b[i:i + 1])[0]
            i += 1
            ncalls, i = varint(b, i)
            start, endt, i = times(b, i, st.t_call)
            st.t_call = after(start, endt)
            st.last_group = group
            out.append(struct.pack(end + "BbHIII QQ32x", 3, res, 0, group,
                                   ncalls, 0, start, endt))
        elif op == 0xC5:
            d, i = varint(b, i)
            timer = b[i]
            i += 1
            flags, i = varint(b, i)
            start, endt, i = times(b, i, st.t_gpu)
            st.t_gpu = after(start, endt)
            me = slot + len(out)
            out.append(struct.pack(end + "BBHI QQQ32x", 5, timer, flags, 0,
                                   me - d, start, endt))
        elif op == 0xC7:
            if i != 1 or not st.at_sync:
                raise Damage("sync op where no sync point is")
            v = []
            for _ in range(6):
                x, i = varint(b, i)
                v.append(x)
            st.t_call = st.t_gpu = v[0]
            st.call_start, st.dev_start, st.dev_end, st.last_group = v[1:5]
            st.sig, st.tmpl, st.seqlast = [], [], {}
        elif op == 0xC6:
            rec = bytes(b[i:i + REC])
            i += REC
            if len(rec) < REC or rec[0] not in TEMPLATED:
                raise Damage("template of no templated kind")
            st.tmpl.append({"rec": rec, "last": [0] * 16})
        elif op >= 0xE0:
            idx = op - 0xE0
            if op == 0xFF:
                idx, i = varint(b, i)
            if idx >= len(st.tmpl):
                raise Damage("template %d past the table" % idx)
            rec, i = templated(end, st, st.tmpl[idx], b, i, slot + len(out))
            out.append(rec)
        else:
            raise Damage("unknown op %#x" % op)
        if KINDS is not None:
            # a template's bytes to its kind; runs of empty or folded
            # slots to none
            kind = None
            if op == 0xC6:
                kind = b[at + 1]
            elif len(out) > had and op not in (0xC3, 0xC8):
                kind = out[-1][0]
            if kind is not None:
                k = KINDS.setdefault(kind, [0, 0])
                k[0] += op != 0xC6
                k[1] += i - at
    return out


def block_sum(p):
    a, b = 1, 0
    for x in p:
        a = (a + x) & M32
        b = (b + a) & M32
    return (b ^ (a << 16)) & M32


def calls(data):
    """(seq, end_ns) of every call slot, in slot order."""
    end = header(data)[0]
    return [struct.unpack_from(end + "I", r, 24) +
            struct.unpack_from(end + "Q", r, 56) for r in slots(data)
            if r[0] == 1]


def slots(data):
    end, version, t0, h = header(data)
    if version != 4:
        return [data[k:k + REC] for k in range(HDR, len(data) - REC + 1, REC)]
    st = State(t0)
    res = []
    off = h["stream_offset"]
    sync = h["sync_bytes"]
    while off + 24 <= len(data):
        magic, n, first, count, total = struct.unpack_from(end + "IIQII",
                                                           data, off)
        rel = off - h["stream_offset"]
        if magic == 0 and sync and rel % sync:
            pad = sync - rel % sync
            if pad < 256 and not any(data[off:off + pad]):
                off += pad
                continue
        st.at_sync = bool(sync) and rel > 0 and rel % sync == 0
        unfinished = off - h["stream_offset"] >= h["stream_end"]
        if magic != MAGIC or off + 24 + n > len(data):
            if unfinished:
                break
            raise Damage("block at %d cut short" % off)
        payload = data[off + 24:off + 24 + n]
        if total != block_sum(payload):
            if unfinished:
                break
            raise Damage("block at %d fails its sum" % off)
        if first != len(res):
            raise Damage("block at %d starts at slot %d, not %d"
                         % (off, first, len(res)))
        got = decode_payload(end, st, payload, len(res))
        if len(got) != count:
            raise Damage("block at %d: %d slots, says %d"
                         % (off, len(got), count))
        res.extend(got)
        off += 24 + n
    n = h["ring_slots"]
    s = len(res)
    while n:
        p = s % n
        idx, = struct.unpack_from(end + "Q", data, h["ring_offset"] + 8 * p)
        if idx != s:
            break
        c = h["ring_offset"] + 8 * n + REC * p
        res.append(data[c:c + REC])
        s += 1
    return res


def main(argv):
    if len(argv) >= 3 and argv[1] == "slots":
        for k, r in enumerate(slots(open(argv[2], "rb").read())):
            print(k, "empty" if r[0] == 0 else r.hex())
        return 0
    if len(argv) >= 4 and argv[1] == "same":
        a = slots(open(argv[2], "rb").read())
        b = slots(open(argv[3], "rb").read())
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else None
            y = b[k] if k < len(b) else None
            if x != y:
                print("slot %d differs:\n  %s\n  %s" % (
                    k, x.hex() if x else "(none)", y.hex() if y else "(none)"))
                return 1
        return 0
    if len(argv) >= 3 and argv[1] == "calls":
        for seq, endt in calls(open(argv[2], "rb").read()):
            print(seq, endt)
        return 0
    if len(argv) >= 3 and argv[1] == "size":
        data = open(argv[2], "rb").read()
        h = header(data)[3]
        n = len(slots(data))
        import os
        alloc = os.stat(argv[2]).st_blocks * 512
        print("slots %d stream %d file %d per-slot %.2f whole %.2f "
              "allocated %d" % (n, h["stream_end"], len(data),
                                h["stream_end"] / max(n, 1),
                                len(data) / max(n, 1), alloc))
        return 0
    if len(argv) >= 3 and argv[1] == "kinds":
        global KINDS
        KINDS = {}
        slots(open(argv[2], "rb").read())
        for kind in sorted(KINDS):
            print("kind %d records %d bytes %d" % (kind, KINDS[kind][0],
                                                   KINDS[kind][1]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
