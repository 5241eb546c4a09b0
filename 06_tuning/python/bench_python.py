"""bench_python.py [--against CSV] [--csv OUT] - every shape of `make bench-gpumode`, timed the way a torch
user times a call: the course's package (course_cholesky.cholesky_ex, out of place, as torch's), torch,
cupy and jax in the same run, and the C bench's time for the same shape beside them. The package is
timed twice: on the same input each call, and as in a training loop, a new input tensor each call
(distinct tensors used in turn) with the previous output kept alive, so that the pointers change on
every call. The loop's steady state is timed after a round of the pool (the whole-GPU path
captures a graph for pointers it has not seen, keeps 16 and replays them); the first round,
pointers never seen, is timed on its own ("first round / same").

Each library: a warm-up of 3 calls, then CUDA events around R calls in a row on the same input
(R: about 20 ms of work, 1 to 200 calls), the mean per call; the median of 5 such means. No L2
flush, no restored input: what `torch.cuda.Event` around a loop of calls shows a user. jax runs on
its own streams: its time is the host clock around R calls and block_until_ready (the same mean).
The results are checked: every info 0 and the residual of a sampled matrix.

Where one input fits the L2 (16-32 MiB shapes), the same tensor's calls find their input (and the
output's lines) there from the call before, and 8 new tensors in turn cannot: the gap between the
two is then the memory's, not the pointers'. So both are timed once more with the L2 emptied before
each call (the GPU writes four times its size first; events around that call alone, the median of
30): "new / same, L2 emptied" is the cost of new pointers by themselves.

--against CSV: the CSV of `make bench-gpumode` (GPUMODE_CSV=...) of the same run: its `auto` row
gives the C column and its cuSOLVER row the x_cusolver column. --csv OUT: the rows in the
course's bench CSV format (common/report.c): variant `python <what the plan runs>`, the C bench's
`auto ...` rows and the libraries' beside them. BENCH_MAX_N=N leaves out larger n.

--dtype float64: every library in float64 (jax with x64 enabled); cupy's is cuSOLVER's Dpotrf (one
matrix) or DpotrfBatched. --batched: instead of the grid, n = 20..128 at 1024 matrices (the
classroom size) and at 1 GiB (past the L2), with a device-to-device copy of the same bytes (the
copy roofline: every byte read once and written once) timed beside them.
"""
import csv
import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import course_cholesky as cc

SHAPES = [(4096, 32), (1024, 64), (256, 128), (64, 256), (16, 512), (640, 512), (4, 1024), (60, 1024),
          (2, 2048), (8, 2048), (1, 4096), (2, 4096), (1, 8192), (1, 16384), (1, 32768)]
FIELDS = ["stage", "variant", "n", "batch", "median_ms", "min_ms", "repeats", "gflops", "x_cusolver",
          "pct_copy_roofline", "cusolver_ms", "copy_ms", "verified", "gpu", "cc", "sms", "driver", "cuda_runtime",
          "host", "commit", "utc"]


def mean_per_call(call, sync_events, target_ms=20.0, warmup=3):
    """Median over 5 blocks of the mean time per call of R calls in a row (after the warm-ups)."""
    for _ in range(warmup):
        call()
    one = sync_events(call, 1)
    reps = max(1, min(200, int(math.ceil(target_ms / max(one, 1e-3)))))
    means = [sync_events(call, reps) / reps for _ in range(5)]
    return statistics.median(means), min(means), reps


def torch_events(call, reps):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        call()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def cold_per_call(call, reps=30):
    """Median ms of one call, the L2 emptied before each (events around the call alone)."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    scratch = torch.empty(max(l2, 1 << 20), device="cuda")  # 4 x the L2's bytes: its lines all replaced
    call()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        scratch.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    del scratch
    return statistics.median(times)


_AT = sys.argv.index("--dtype") + 1 if "--dtype" in sys.argv else None
DTYPE = torch.float64 if _AT and sys.argv[_AT:_AT + 1] == ["float64"] else torch.float32
EPS = 2.0 ** -53 if DTYPE is torch.float64 else 2.0 ** -24


def spd(batch, n, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if DTYPE is torch.float64:
        b = torch.randn(batch, n, n, device="cuda", generator=g, dtype=torch.float64)
        a = torch.baddbmm(torch.eye(n, device="cuda", dtype=torch.float64).expand(batch, n, n), b, b.transpose(1, 2),
                          alpha=1.0 / n)
        del b
        return (a + a.transpose(1, 2)) / 2
    if batch * n * n <= (1 << 26):
        b = torch.randn(batch, n, n, device="cuda", generator=g, dtype=torch.float64)
        return (b @ b.transpose(1, 2) / n + torch.eye(n, device="cuda", dtype=torch.float64)).float()
    b = torch.randn(batch, n, n, device="cuda", generator=g)
    a = b @ b.transpose(1, 2) / n
    del b
    a = (a + a.transpose(1, 2)) / 2
    a.diagonal(dim1=1, dim2=2).add_(1.0)
    return a


def sampled_ok(A, L, info):
    """Every info 0, and 32 rows of the last matrix within 20 times the float32 bound (float64, in column blocks)."""
    if int((info != 0).sum()):
        return False
    b, n = A.shape[0] - 1, A.shape[-1]
    rows = torch.randperm(n, device=A.device)[:32]
    lr = L[b][rows].double()
    err = A[b][rows].double()
    scale = torch.zeros_like(err)
    for j in range(0, n, 4096):
        lj = L[b][j:j + 4096].double()
        err[:, j:j + 4096] -= lr @ lj.T
        scale[:, j:j + 4096] = lr.abs() @ lj.abs().T
    worst = float((err.abs() / scale.clamp_min(1e-300)).amax())
    return bool(torch.isfinite(L[b]).all()) and worst < 20 * (n + 1) * EPS


def libraries():
    """(name, make(A) -> input, call(x) -> result, timer) for every library that runs here."""
    out = [("torch linalg.cholesky_ex", lambda A: A, lambda x: torch.linalg.cholesky_ex(x), torch_events)]
    try:
        import cupy

        def cupy_events(call, reps):
            a, b = cupy.cuda.Event(), cupy.cuda.Event()
            a.record()
            for _ in range(reps):
                call()
            b.record()
            b.synchronize()
            return cupy.cuda.get_elapsed_time(a, b)
        out.append(("cupy linalg.cholesky", lambda A: cupy.from_dlpack(A), lambda x: cupy.linalg.cholesky(x),
                    cupy_events))
    except Exception as e:  # not installed, or no GPU for it
        print(f"# cupy: skipped ({type(e).__name__}: {str(e)[:80]})")
    try:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # else jax takes 75 % of the GPU at once
        import jax
        if DTYPE is torch.float64:
            jax.config.update("jax_enable_x64", True)  # else jax makes float32 of a float64 array
        import jax.numpy as jnp
        chol = jax.jit(jnp.linalg.cholesky)

        def jax_clock(call, reps):
            r = call()
            r.block_until_ready()
            t0 = time.perf_counter()
            for _ in range(reps):
                r = call()
            r.block_until_ready()
            return (time.perf_counter() - t0) * 1e3
        out.append(("jax linalg.cholesky", lambda A: jnp.asarray(A.cpu().numpy()), lambda x: chol(x), jax_clock))
    except Exception as e:
        print(f"# jax: skipped ({type(e).__name__}: {str(e)[:80]})")
    return out


def c_rows(path):
    """(n, batch) -> {'auto': row, 'cusolver': row} from a CSV of make bench-gpumode."""
    rows = {}
    if not path:
        return rows
    for r in csv.DictReader(open(path)):
        key = (int(r["n"]), int(r["batch"]))
        if r["variant"].startswith("auto"):
            rows.setdefault(key, {})["auto"] = r
        elif r["variant"].startswith("cusolver"):
            rows.setdefault(key, {})["cusolver"] = r
    return rows


def batched(libs):
    """n = 20..128 at 1024 matrices and at 1 GiB: the course, the libraries and the copy of the same bytes."""
    size = torch.finfo(DTYPE).bits // 8
    print(f"# {torch.cuda.get_device_name()}, {DTYPE}, ms per call (mean of R calls in a row, median of 5)")
    print("| n | batch | course ms | % of copy roofline | copy ms | fastest library | its ms | x it | what runs |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |")
    for n in (20, 24, 32, 40, 48, 56, 64, 72, 80, 96, 100, 112, 128):
        for batch in (1024, (1 << 30) // (n * n * size)):
            A = spd(batch, n, 7 * n + batch)
            L, info = cc.cholesky_ex(A)
            ok = sampled_ok(A, L, info)
            del L, info
            med, _, _ = mean_per_call(lambda: cc.cholesky_ex(A), torch_events)
            out = torch.empty_like(A)
            copy, _, _ = mean_per_call(lambda: out.copy_(A), torch_events)
            del out
            best = None
            for name, make, call, timer in libs:
                try:
                    x = make(A)
                    lm, _, _ = mean_per_call(lambda: call(x), timer)
                    if best is None or lm < best[1]:
                        best = (name, lm)
                    del x
                except Exception as e:
                    print(f"# {name} {batch} x {n}: {type(e).__name__}: {str(e)[:100]}")
                torch.cuda.empty_cache()
            what = cc.choice(n, batch, dtype=str(DTYPE)).split(": ", 1)[1].split(" (")[0]
            print(f"| {n} | {batch} | {med:.4f}{'' if ok else ' WRONG'} | {100 * copy / med:.0f} | {copy:.4f} | "
                  + (f"{best[0]} | {best[1]:.4f} | {best[1] / med:.2f}" if best else "– | – | –") + f" | {what} |",
                  flush=True)
            del A
            torch.cuda.empty_cache()


def main():
    args = sys.argv[1:]
    against = args[args.index("--against") + 1] if "--against" in args else None
    out_path = args[args.index("--csv") + 1] if "--csv" in args else None
    max_n = int(os.environ.get("BENCH_MAX_N") or 65536)
    c = c_rows(against)
    libs = libraries()
    if "--batched" in args:
        return batched(libs)
    gpu = torch.cuda.get_device_name()
    props = torch.cuda.get_device_properties(0)
    commit = os.environ.get("GIT_COMMIT") or subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                                            capture_output=True, text=True).stdout.strip() or "unknown"
    stamp = {"gpu": gpu, "cc": f"{props.major}.{props.minor}", "sms": props.multi_processor_count, "driver": "",
             "cuda_runtime": torch.version.cuda, "host": platform.node(), "commit": commit,
             "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    rows = []
    print(f"# {gpu}, torch {torch.__version__}, {DTYPE}; ms per call (mean of R calls in a row, median of 5)")
    print("| batch | n | course (Python) ms | new tensors ms | new / same | new / same, L2 emptied | first round / same "
          "| C bench ms | Python / C | fastest library | its ms | × it | × it, new tensors | what runs |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |")
    ratios, loop_ratios = [], []
    for batch, n in SHAPES:
        if n > max_n:
            continue
        A = spd(batch, n, n + batch)
        cusolver_ms = float(c.get((n, batch), {}).get("cusolver", {}).get("median_ms", 0) or 0)
        flops = (n ** 3 / 3 + n ** 2 / 2 + n / 6) * batch

        def row(variant, med, mn, reps, ok):
            rows.append(dict(stamp, stage="gpumode", variant=variant, n=n, batch=batch, median_ms=f"{med:.5f}",
                             min_ms=f"{mn:.5f}", repeats=reps, gflops=f"{flops / (med * 1e6):.2f}",
                             x_cusolver=f"{cusolver_ms / med:.2f}" if cusolver_ms else "", pct_copy_roofline="",
                             cusolver_ms=cusolver_ms, copy_ms=0, verified="yes" if ok else "WRONG"))

        L, info = cc.cholesky_ex(A)
        ok = sampled_ok(A, L, info)
        med, mn, reps = mean_per_call(lambda: cc.cholesky_ex(A), torch_events)
        what = cc.choice(n, batch, dtype=str(DTYPE))
        short = what.split(": ", 1)[1].split(", tuned")[0].split(" (")[0]
        row(f"python {short}", med, mn, reps, ok)
        del L, info
        # A training loop: a new input tensor each call (a pool of distinct ones, used in turn, up to 8 and
        # 8 GiB) and the previous output kept alive, so that no two calls in a row see the same pointers.
        pool = [A] + [A.clone() for _ in range(max(1, min(7, (8 << 30) // max(A.numel() * A.element_size(), 1) - 1)))]
        state = {"k": 0, "prev": None}

        def loop_call():
            state["k"] = (state["k"] + 1) % len(pool)
            state["prev"] = cc.cholesky_ex(pool[state["k"]])
        # The pool's first round: every pointer set new to the whole-GPU path (each one captured); a training
        # loop's steady state, timed after, replays the kept graphs (grid_cholesky.c).
        primed = [cc.cholesky_ex(A) for _ in range(2)]  # the allocator's blocks for two outputs alive at once:
        del primed  # the first round then times the captures, not torch's first cudaMalloc of them
        first_round = torch_events(loop_call, len(pool) - 1) / (len(pool) - 1)
        loop_med, loop_mn, loop_reps = mean_per_call(loop_call, torch_events, warmup=len(pool) + 3)
        loop_ok = sampled_ok(pool[state["k"]], *state["prev"])
        row(f"python new tensors ({len(pool)} inputs in turn) {short}", loop_med, loop_mn, loop_reps, loop_ok)
        cold = "–"
        if A.numel() * A.element_size() <= props.L2_cache_size:  # the same tensor's input may stay in the L2: compare cold
            same_cold = cold_per_call(lambda: cc.cholesky_ex(A))
            new_cold = cold_per_call(loop_call)
            row(f"python L2 emptied {short}", same_cold, same_cold, 30, ok)
            row(f"python L2 emptied, new tensors ({len(pool)} inputs in turn) {short}", new_cold, new_cold, 30,
                loop_ok)
            cold = f"{new_cold / same_cold:.2f}"
        row(f"python new tensors, first round ({len(pool)} inputs) {short}", first_round, first_round, len(pool) - 1,
            loop_ok)
        del pool, state
        best = None
        for name, make, call, timer in libs:
            try:
                x = make(A)
                lm, lmn, lreps = mean_per_call(lambda: call(x), timer)
                row(name, lm, lmn, lreps, True)
                if best is None or lm < best[1]:
                    best = (name, lm)
                del x
            except Exception as e:  # out of memory, unsupported: say so, go on
                print(f"# {name} {batch} x {n}: {type(e).__name__}: {str(e)[:100]}")
            torch.cuda.empty_cache()
            if name.startswith("cupy"):
                import cupy
                cupy.get_default_memory_pool().free_all_blocks()
        cr = c.get((n, batch), {}).get("auto")
        if cr:
            rows.append(dict(cr))
        c_ms = float(cr["median_ms"]) if cr else None
        if best:
            ratios.append(best[1] / med)
        if best:
            loop_ratios.append(best[1] / loop_med)
        print(f"| {batch} | {n} | {med:.4f}{'' if ok else ' WRONG'} | {loop_med:.4f}{'' if loop_ok else ' WRONG'} | "
              f"{loop_med / med:.2f} | {cold} | {first_round / med:.2f} | " + (f"{c_ms:.4f} | {med / c_ms:.2f}" if c_ms else "– | –")
              + (f" | {best[0]} | {best[1]:.4f} | {best[1] / med:.2f} | {best[1] / loop_med:.2f}" if best
                 else " | – | – | – | –") + f" | {short} |", flush=True)
        del A
        torch.cuda.empty_cache()
    if ratios:
        print(f"# geometric mean of (fastest library / course): {math.exp(statistics.mean(map(math.log, ratios))):.2f}x "
              f"over {len(ratios)} shapes; behind on {sum(r < 1 for r in ratios)}")
    if loop_ratios:
        print(f"# new tensors each call: geometric mean {math.exp(statistics.mean(map(math.log, loop_ratios))):.2f}x "
              f"the fastest library (same tensors); behind on {sum(r < 1 for r in loop_ratios)}")
    a = torch.eye(20, device="cuda", dtype=DTYPE).expand(4, 20, 20).contiguous()
    for _ in range(100):
        cc.cholesky_ex(a)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(1000):
        cc.cholesky_ex(a)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    for _ in range(1000):
        torch.linalg.cholesky_ex(a)
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    print(f"# host time of one call (4 matrices of n = 20, 1000 calls in a row): course {(t1 - t0) * 1e3:.1f} us, "
          f"torch.linalg.cholesky_ex {(t3 - t2) * 1e3:.1f} us")
    if out_path:
        new = not os.path.exists(out_path) or os.path.getsize(out_path) == 0
        with open(out_path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
