#!/usr/bin/env python3
"""hostile.py SRC DST NRANKS NCOMMS: copy the logs of SRC (a gen_logs
directory) to DST with every call and communicator record claiming NRANKS
ranks and one of NCOMMS new communicator ids (a 10 KB log claiming a
million-rank job): what the analysis may allocate must follow the records
present, not the claims."""
import os
import struct
import sys

src, dst, nranks, ncomms = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(dst, exist_ok=True)
for name in sorted(os.listdir(src)):
    if not name.endswith(".cplog"):
        continue
    data = bytearray(open(os.path.join(src, name), "rb").read())
    hsize = struct.unpack_from("<I", data, 16)[0]
    i = 0
    for off in range(hsize, len(data) - 63, 64):
        kind = data[off]
        comm = 0x5eed000000000000 + (i % ncomms)
        if kind == 1:  # call: comm_id @8, rank @32, nranks @36
            rank = struct.unpack_from("<I", data, off + 32)[0]
            struct.pack_into("<Q", data, off + 8, comm)
            struct.pack_into("<II", data, off + 32, (rank * 7919 + i) % nranks, nranks)
            i += 1
        elif kind == 2:  # comm: comm_id @8, nranks @24, rank @28
            struct.pack_into("<Q", data, off + 8, comm)
            struct.pack_into("<II", data, off + 24, nranks, i % nranks)
            i += 1
    open(os.path.join(dst, name), "wb").write(bytes(data))
