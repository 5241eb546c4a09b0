"""distributed_example.py - a batch bigger than one GPU, through the engine clusters use: torch.distributed.

Every rank (one process a GPU, started by torchrun or a Slurm job step) makes its own shard of one
global batch of SPD matrices (rows [lo, hi) of it, from seeds: no input moves between GPUs),
factors it with course_cholesky.cholesky_ex on its GPU, and the infos are gathered on rank 0 over
NCCL (all_gather_into_tensor: torch's own transport, nothing home-made). Rank 0 prints the time of
the slowest rank (the median of 5 calls, CUDA events between two barriers) and the matrices a second.

    torchrun --nproc-per-node=2 06_tuning/python/distributed_example.py --order 64 --matrices 2000000 --dtype float64
    torchrun --nproc-per-node=2 06_tuning/python/distributed_example.py --order 64 --matrices 20000 --check

--check: the factors of every rank are gathered on rank 0 too, which factors each rank's shard again
alone (the same matrices and batch size, so the same plan), and every factor must be equal bit for
bit: it may not depend on the GPU it ran on, nor on the transport. Across nodes: the same script
under `srun`, in the batch script `make slurm-script TARGET=distributed NODES=N GPUS=G` writes
(06_tuning/python/README.md, "Beyond one GPU": MASTER_ADDR, MASTER_PORT and the ranks come from
Slurm's variables). --show-ranks prints what the launcher gave this process and stops.
"""
import argparse
import os
import socket
import sys

try:
    import torch
    import torch.distributed as dist
except ImportError:  # --show-ranks needs neither (the Slurm test on a machine without torch)
    torch = dist = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def shard(batch, world, rank):
    """[lo, hi) of the global batch for this rank: sizes differ by at most one."""
    base, extra = divmod(batch, world)
    lo = rank * base + min(rank, extra)
    return lo, lo + base + (rank < extra)


def make(lo, hi, n, dtype, device, total):
    """Matrices lo .. hi-1 of a global batch of `total`: made in pieces of the global batch that do not
    depend on the ranks (piece p: matrices p .. p + step - 1, from seed p, the whole piece generated),
    so any rank makes the same matrix bit for bit."""
    out = torch.empty(hi - lo, n, n, dtype=dtype, device=device)
    step = max(1, (1 << 26) // (n * n))  # generate in pieces of 512 MiB of float64 at most
    for p in range(lo // step * step, hi, step):
        q = min(total, p + step)
        g = torch.Generator(device=device).manual_seed(1_000_003 * p + n)
        x = torch.randn(q - p, n, n, dtype=torch.float64, device=device, generator=g)
        m = x @ x.mT / n + torch.eye(n, dtype=torch.float64, device=device)
        a, b = max(lo, p), min(hi, q)
        out[a - lo:b - lo] = m[a - p:b - p].to(dtype)
    return out


def rank_env():
    """(rank, world, local rank): torchrun's variables, else Slurm's (srun), else one process."""
    env = os.environ
    if "RANK" in env:
        return int(env["RANK"]), int(env["WORLD_SIZE"]), int(env.get("LOCAL_RANK", 0))
    if "SLURM_PROCID" in env:
        return int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"]), int(env.get("SLURM_LOCALID", 0))
    return 0, 1, 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--order", type=int, default=64, help="n: the order of every matrix")
    ap.add_argument("--matrices", type=int, default=200000, help="the global batch's size")
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--check", action="store_true", help="rank 0 refactors the whole batch alone and compares")
    ap.add_argument("--show-ranks", action="store_true",
                    help="print this process's rank, the world, its shard and the rendezvous, and stop (no GPU)")
    a = ap.parse_args()
    rank, world, local = rank_env()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    if a.show_ranks:  # what a launcher gave this process: checked by the Slurm test without a GPU
        lo, hi = shard(a.matrices, world, rank)
        print(f"rank {rank} of {world}, local {local}, on {socket.gethostname()}: matrices [{lo}, {hi}); "
              f"rendezvous {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
        return 0
    if torch is None:
        print("distributed_example.py: torch is not installed (pip install torch)", file=sys.stderr)
        return 2
    import course_cholesky as cc
    # A GPU a rank: the node's GPU `local`, or, where the launcher shows each task only its own
    # (srun --gpus-per-task), that one.
    index = local % torch.cuda.device_count()
    torch.cuda.set_device(index)
    device = torch.device("cuda", index)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device)
    dtype = getattr(torch, a.dtype)
    lo, hi = shard(a.matrices, world, rank)
    A = make(lo, hi, a.order, dtype, device, a.matrices)
    L, info = cc.cholesky_ex(A)  # the plan and its warm-up, outside the timing
    torch.cuda.synchronize()
    times = []
    for _ in range(5):  # the median of 5 calls, each between two barriers
        dist.barrier()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        L, info = cc.cholesky_ex(A)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    ms = torch.tensor([sorted(times)[len(times) // 2]], device=device)
    dist.all_reduce(ms, op=dist.ReduceOp.MAX)  # the batch is done when the slowest rank is
    # The infos of every rank on every rank (equal shards: pad the short ones with -1).
    size = -(-a.matrices // world)
    mine = torch.full((size,), -1, dtype=torch.int32, device=device)
    mine[:hi - lo] = info
    every = torch.empty(world * size, dtype=torch.int32, device=device)
    dist.all_gather_into_tensor(every, mine)
    infos = torch.cat([every[r * size:r * size + (shard(a.matrices, world, r)[1] - shard(a.matrices, world, r)[0])]
                       for r in range(world)])
    same = True
    if a.check:  # every factor on rank 0, against each rank's shard factored there alone
        Ls = torch.zeros(world * size, a.order, a.order, dtype=dtype, device=device)
        part = torch.zeros(size, a.order, a.order, dtype=dtype, device=device)
        part[:hi - lo] = L
        dist.all_gather_into_tensor(Ls, part)
        if rank == 0:
            for r in range(world):  # the same batch size as on rank r, so the same plan
                rlo, rhi = shard(a.matrices, world, r)
                alone, _ = cc.cholesky_ex(make(rlo, rhi, a.order, dtype, device, a.matrices))
                same = same and torch.equal(Ls[r * size:r * size + rhi - rlo], alone)
    if rank == 0:
        bad = int((infos != 0).sum())
        t = float(ms[0])
        print(f"{world} ranks ({torch.cuda.get_device_name(device)}), {a.matrices} matrices of n = {a.order}, {a.dtype}: "
              f"{t:.3f} ms (slowest rank), {a.matrices / t * 1e3:.3g} matrices/s; infos gathered: {infos.numel()}, "
              f"nonzero {bad}" + (f"; every factor equal to its shard's on GPU 0 alone: {same}" if a.check else ""),
              flush=True)
    dist.destroy_process_group()
    return 0 if same and int((infos != 0).sum()) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
