"""bench_python.py [--against CSV] - the Python call's time beside the C benchmark's.

For n = 20, 30, ..., 100, 64, 128 and the two batch classes of `make bench-stage-6` (1024
matrices, and 1 GiB of matrices): course_cholesky.cholesky_ (in place, as bench_tuned times
auto) and torch.linalg.cholesky_ex, each the median of 7 after 2 warm-ups, timed with CUDA events
around the call alone, with the L2 flushed (a 256 MB write) and the input restored before each
run (neither timed), then a 0.2 ms spin on the GPU, during which the host enqueues the call, so the
events measure the GPU's work, not Python's, as bench_tuned's do for C. --against: the CSV of `make bench-stage-6` (BENCH_CSV=...) of the
same run; its 'rowmajor auto' rows give the last column. Also prints the host time of one call
(Python + ctypes + launch), what a loop of tiny calls would pay.
"""
import csv
import statistics
import sys
import time

import torch
import course_cholesky as cc

REPEATS, WARMUP = 7, 2


def time_gpu(fn, pristine, work, flush):
    times = []
    for r in range(WARMUP + REPEATS):
        work.copy_(pristine)
        flush.zero_()
        torch.cuda._sleep(400_000)  # ~0.2 ms of GPU time: the host enqueues the call before the GPU gets to it
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn(work)
        b.record()
        b.synchronize()
        if r >= WARMUP:
            times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    against = {}
    if sys.argv[1:2] == ["--against"]:
        for row in csv.DictReader(open(sys.argv[2])):
            if row["variant"].startswith("rowmajor auto"):
                cls = "1GiB" if "1 GiB" in row["variant"] else "1024"
                against[(cls, int(row["n"]))] = float(row["median_ms"])
    flush = torch.empty(64 << 20, device="cuda")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; median ms of {REPEATS}")
    print("| class | n | batch | course_cholesky ms | auto's choice | torch ms | × torch | C bench rowmajor auto ms | Python / C |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for cls in ("1024", "1GiB"):
        for n in (20, 30, 40, 50, 60, 70, 80, 90, 100, 64, 128):
            batch = 1024 if cls == "1024" else (1 << 30) // (n * n * 4)
            g = torch.Generator(device="cuda").manual_seed(n)
            b = torch.randn(batch, n, n, device="cuda", generator=g)
            pristine = b @ b.transpose(1, 2) / n + torch.eye(n, device="cuda")
            del b
            work = torch.empty_like(pristine)
            t_ours = time_gpu(cc.cholesky_, pristine, work, flush)
            info = cc.cholesky_(work.copy_(pristine))
            assert int((info != 0).sum()) == 0, "infos nonzero"
            t_torch = time_gpu(torch.linalg.cholesky_ex, pristine, work, flush)
            c = against.get((cls, n))
            print(f"| {cls} | {n} | {batch} | {t_ours:.4f} | {cc.choice(n, batch)} | {t_torch:.4f} | {t_torch / t_ours:.1f} | "
                  + (f"{c:.4f} | {t_ours / c:.3f} |" if c else "– | – |"), flush=True)
            del pristine, work
    a = torch.eye(20, device="cuda").expand(4, 20, 20).contiguous()
    for _ in range(100):
        cc.cholesky_(a.copy_(torch.eye(20, device="cuda")))
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(1000):
        cc.cholesky_(a)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    print(f"# host time of one call (4 matrices of n = 20, 1000 calls in a row): {(t1 - t0) * 1e3:.1f} us")


if __name__ == "__main__":
    main()
