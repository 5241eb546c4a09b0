#!/usr/bin/env python3
"""frameworks.py [--single | --gpumode | --float64] [CSV] - what a user would pick instead: torch, cupy and
jax Cholesky (`linalg.cholesky` on float32 arrays, float64 with --float64), timed like the course's rows: an SPD matrix of the same
shape, warm-up, median of 7 device-synchronised runs with the L2 flushed (a 100 MB write) before
each. Appends rows to CSV (default $BENCH_CSV, else build/bench.csv) in the format of
common/report.c, stage "frameworks", so the table and the plots show them beside cuSOLVER.

  batched (default): an (batch, n, n) array, the batches of `make bench-stage-6` (1 GiB of
                     matrices and 1024 matrices, n = 20, 30, ..., 100, 64 and 128)
  --single:          ONE n x n matrix, the sizes of `make bench-stage-3` (n = 256 .. 16384)
  --gpumode:         the (batch, n) grid of gpu-mode's Cholesky leaderboard (`make bench-gpumode`,
                     06_tuning/bench_gpumode.c); BENCH_MAX_N=N leaves out larger n
  --float64:         float64 arrays (jax with x64), the shapes of `make bench-float64` (bench_float64.c):
                     n = 20 .. 128 at 1024 matrices and at 1 GiB, then the large shapes (one matrix of
                     4096 .. 32768, small batches of 256 .. 2048); BENCH_PART=batched|large runs one
                     part, BENCH_MAX_N=N leaves out larger n; the variants end in "float64"

A framework that is not installed is skipped with a message; with none, the script says so and
exits 0. BENCH_NS="20 100" picks the orders. Times are host wall clock around synchronised
calls: at a few tens of microseconds they include the framework's own call overhead, which is
what a user pays.
"""
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

FIELDS = ["stage", "variant", "n", "batch", "median_ms", "min_ms", "repeats", "gflops", "x_cusolver",
          "pct_copy_roofline", "cusolver_ms", "copy_ms", "verified", "gpu", "cc", "sms", "driver", "cuda_runtime",
          "host", "commit", "utc"]


def spd_batch(xp, batch, n, seed, dtype="float32"):
    """A well-conditioned SPD batch: B B^T / n + I (the frameworks' own RNG, on the device)."""
    if xp.__name__.startswith("jax"):
        import jax
        b = jax.random.normal(jax.random.PRNGKey(seed), (batch, n, n), dtype=dtype)
        return b @ b.transpose(0, 2, 1) / n + xp.eye(n, dtype=dtype)
    if xp.__name__ == "torch":
        g = xp.Generator(device="cuda").manual_seed(seed)
        b = xp.randn(batch, n, n, device="cuda", generator=g, dtype=getattr(xp, dtype))
        return b @ b.transpose(1, 2) / n + xp.eye(n, device="cuda", dtype=getattr(xp, dtype))
    xp.random.seed(seed)
    b = xp.random.standard_normal((batch, n, n), dtype=dtype)
    return b @ b.transpose(0, 2, 1) / n + xp.eye(n, dtype=dtype)


def git_commit():
    """The commit as the Makefile stamps it (GIT_COMMIT), for a run started outside make."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=here, timeout=10).returncode != 0
        return head.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def frameworks(dtype="float32"):
    """(name, make(batch, n) -> input, run(input) -> output, sync(), check(input, output) -> bool)"""
    out = []
    tol = 1e-9 if dtype == "float64" else 1e-3  # L L^T against A, on the first four matrices
    try:
        import torch
        if torch.cuda.is_available():
            flush = torch.empty(25_000_000, device="cuda")
            out.append(("torch.linalg.cholesky", lambda b, n: spd_batch(torch, b, n, 1, dtype), torch.linalg.cholesky,
                        torch.cuda.synchronize, lambda: flush.fill_(1.0),
                        lambda a, l: bool(torch.allclose(l[:4] @ l[:4].transpose(-2, -1), a[:4], atol=tol, rtol=tol))))
        else:
            print("frameworks: torch is installed but sees no GPU: skipped")
    except ImportError:
        print("frameworks: torch is not installed: skipped")
    try:
        import cupy
        flush_c = cupy.empty(25_000_000, dtype="float32")
        out.append(("cupy.linalg.cholesky", lambda b, n: spd_batch(cupy, b, n, 1, dtype), cupy.linalg.cholesky,
                    cupy.cuda.Device().synchronize, lambda: flush_c.fill(1.0),
                    lambda a, l: bool(cupy.allclose(l[:4] @ l[:4].swapaxes(-2, -1), a[:4], atol=tol, rtol=tol))))
    except ImportError:
        print("frameworks: cupy is not installed: skipped")
    try:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        import jax.numpy as jnp
        if dtype == "float64":
            jax.config.update("jax_enable_x64", True)  # else jax silently makes float32 arrays
        if any(d.platform == "gpu" for d in jax.devices()):
            chol = jax.jit(jnp.linalg.cholesky)
            state = {"flush": jnp.zeros(25_000_000)}

            def jflush():
                state["flush"] = (state["flush"] + 1.0).block_until_ready()
            out.append(("jax.numpy.linalg.cholesky", lambda b, n: spd_batch(jnp, b, n, 1, dtype), lambda a: chol(a),
                        lambda: None, jflush,
                        lambda a, l: bool(jnp.allclose(l[:4] @ l[:4].swapaxes(-2, -1), a[:4], atol=tol, rtol=tol))))
        else:
            print("frameworks: jax is installed but sees no GPU: skipped")
    except ImportError:
        print("frameworks: jax is not installed: skipped")
    return out


def release_memory():
    """Hand what torch's and cupy's allocators keep cached back to the GPU before the next framework
    asks: one 32768² float64 is 8 GiB, and jax's autotuner ran out of memory behind those caches."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


def time_one(run, a, sync, flush, repeats=7):
    def once():
        flush()
        sync()
        t0 = time.perf_counter()
        r = run(a)
        if hasattr(r, "block_until_ready"):
            r.block_until_ready()
        sync()
        return (time.perf_counter() - t0) * 1e3, r
    once()
    times, r = [], None
    for _ in range(repeats):
        t, r = once()
        times.append(t)
    return statistics.median(times), min(times), r


# bench_float64.c's shapes: the batched orders (1024 matrices and 1 GiB) and the large (n, batch).
FLOAT64_NS = "20 24 32 40 48 56 64 72 80 96 100 112 128"
FLOAT64_LARGE = [(256, 64), (512, 16), (1024, 4), (2048, 2), (4096, 1), (8192, 1), (16384, 1), (32768, 1)]

# gpu-mode's reference-kernels linalg/cholesky_py grid, as (batch, n): the same list as bench_gpumode.c.
GPUMODE_SHAPES = [(4096, 32), (1024, 64), (256, 128), (64, 256), (16, 512), (640, 512), (4, 1024), (60, 1024),
                  (2, 2048), (8, 2048), (1, 4096), (2, 4096), (1, 8192), (1, 16384), (1, 32768)]


def gpu_stamp():
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
        name, cc, drv = [x.strip() for x in q.split(",")]
        return name, cc, drv
    except Exception:
        return "unknown", "", ""


def main():
    args = sys.argv[1:]
    single = "--single" in args
    gpumode = "--gpumode" in args
    float64 = "--float64" in args
    dtype = "float64" if float64 else "float32"
    args = [a for a in args if a not in ("--single", "--gpumode", "--float64")]
    if any(a.startswith("-") for a in args) or len(args) > 1:
        print(__doc__)
        return 0 if any(a in ("-h", "--help") for a in args) else 2
    path = args[0] if args else os.environ.get("BENCH_CSV") or "build/bench.csv"
    fws = frameworks(dtype)
    if not fws:
        print("frameworks: none of torch, cupy, jax can run here; nothing to time")
        return 0
    default_ns = ("256 512 1024 2048 4096 8192 16384" if single else FLOAT64_NS if float64 else
                  "20 30 40 50 60 64 70 80 90 100 128")
    ns = [int(x) for x in (os.environ.get("BENCH_NS") or default_ns).replace(",", " ").split()]
    size = 8 if float64 else 4
    classes = ((("(one matrix)", lambda n: 1),) if single else
               (("(1 GiB)", lambda n: (1 << 30) // (n * n * size) if float64  # as bench_float64.c: down
                 else -(-(1 << 30) // (n * n * size))), ("(1024)", lambda n: 1024)))  # as tune_class_batch: up
    runs = [(label, n, batch_of(n)) for label, batch_of in classes for n in ns]
    max_n = int(os.environ.get("BENCH_MAX_N") or 65536)
    if gpumode:
        runs = [("(gpumode)", n, batch) for batch, n in GPUMODE_SHAPES if n <= max_n]
    if float64:  # bench_float64's parts, in its order
        part = os.environ.get("BENCH_PART") or ""
        large = [("(one matrix)" if batch == 1 else "(large)", n, batch) for n, batch in FLOAT64_LARGE if n <= max_n]
        runs = (runs if part in ("", "batched") else []) + (large if part in ("", "large") else [])
    gpu, cc, drv = gpu_stamp()
    commit = os.environ.get("GIT_COMMIT") or git_commit()
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for label, n, batch in runs:
            for name, make, run, sync, flush, check in fws:
                a = l = None  # the last run's input and factor go first, then the caches they were in
                release_memory()
                try:
                    one = single or label == "(one matrix)"
                    a = make(batch, n)
                    if one:
                        a = a[0]  # one n x n matrix, not a batch of one
                    med, mn, l = time_one(run, a, sync, flush)
                    ok = check(a[None], l[None]) if one else check(a, l)
                except Exception as e:  # out of memory, unsupported size: say so, go on
                    print(f"frameworks: {name} n={n} batch={batch}: {type(e).__name__}: {str(e)[:120]}")
                    continue
                if not ok:
                    print(f"frameworks: {name} n={n} batch={batch}: WRONG result, no row")
                    continue
                flops = (n ** 3 / 3 + n ** 2 / 2 + n / 6) * batch
                print(f"frameworks {name:<28} {label:<8} {dtype} n={n:<4} batch={batch:<9} {med:10.4f} ms (min {mn:.4f})")
                w.writerow({"stage": "frameworks", "variant": f"{name} {label}" + (" float64" if float64 else ""),
                            "n": n, "batch": batch,
                            "median_ms": f"{med:.5f}", "min_ms": f"{mn:.5f}", "repeats": 7,
                            "gflops": f"{flops / (med * 1e6):.2f}", "x_cusolver": "", "pct_copy_roofline": "",
                            "cusolver_ms": 0, "copy_ms": 0, "verified": "yes", "gpu": gpu, "cc": cc, "sms": "",
                            "driver": drv, "cuda_runtime": "", "host": platform.node(), "commit": commit,
                            "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
                f.flush()
                del a, l
    return 0


if __name__ == "__main__":
    sys.exit(main())
