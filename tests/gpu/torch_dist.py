"""torch_dist.py - PyTorch torch.distributed with the NCCL backend, world
size 1, for tests/gpu/run.sh: all_reduce and all_gather of several sizes.
Run under the shim (LD_PRELOAD) with each timer; prints one line."""
import os
import sys

import torch
import torch.distributed as dist


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1)
    calls = 0
    for size in (1024, 65536, 4 << 20, 64 << 20):
        t = torch.ones(size // 4, device="cuda")
        out = torch.empty(size // 4, device="cuda")
        for _ in range(5):
            dist.all_reduce(t)
            dist.all_gather_into_tensor(out, t)
            calls += 2
    torch.cuda.synchronize()
    dist.destroy_process_group()
    print("torch_dist: %d collectives, torch %s" % (calls, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
