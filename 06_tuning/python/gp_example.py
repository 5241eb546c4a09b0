"""gp_example.py - a real use: the marginal log-likelihood of many small Gaussian processes.

A hyperparameter search over independent GP regressions (one per time series, sensor, or
cross-validation fold): for each of D data sets of n points and each of H length scales,
    K = exp(-|x_i - x_j|^2 / (2 l^2)) + s^2 I,   L = cholesky(K),   alpha = K^-1 y,
    log p(y) = -y^T alpha / 2 - sum(log diag L) - n log(2 pi) / 2,
all in torch, batched over D x H. The same function runs with torch.linalg.cholesky_ex and with
course_cholesky.cholesky_ex; everything else (kernel matrices, triangular solves, sums) is torch's.
Prints both end-to-end times (CUDA events, median of 10 after 3 warm-ups), the speed-up, and how
far the two log-likelihoods are apart.

    PYTHONPATH=06_tuning/python python3 06_tuning/python/gp_example.py [--n 64] [--sets 1024] [--scales 16] [--dtype float64]

GP libraries (GPyTorch, BoTorch) work in float64: --dtype float64 runs everything in it.
"""
import argparse
import math
import statistics

import torch
import course_cholesky as cc


def log_likelihood(x, y, scales, noise, cholesky):
    """x: (D, n, 1) inputs, y: (D, n) targets, scales: (H,) -> (D, H) log marginal likelihoods."""
    n = x.shape[1]
    d2 = torch.cdist(x, x).square()                                   # (D, n, n)
    K = torch.exp(-0.5 * d2[:, None] / scales[None, :, None, None] ** 2)  # (D, H, n, n)
    K = K + noise ** 2 * torch.eye(n, device=x.device, dtype=x.dtype)
    L, info = cholesky(K)
    yb = y[:, None, :, None].expand(-1, scales.shape[0], -1, -1)
    z = torch.linalg.solve_triangular(L, yb, upper=False)             # L z = y: y^T K^-1 y = |z|^2
    fit = z.square().sum((-1, -2))
    logdet = torch.log(torch.diagonal(L, dim1=-2, dim2=-1)).sum(-1)
    return -0.5 * fit - logdet - 0.5 * n * math.log(2 * math.pi), info


def timed(fn, repeats=10, warmup=3):
    times = []
    for r in range(warmup + repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        out = fn()
        b.record()
        b.synchronize()
        if r >= warmup:
            times.append(a.elapsed_time(b))
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=64, help="points per data set (1..128)")
    ap.add_argument("--sets", type=int, default=1024, help="data sets D")
    ap.add_argument("--scales", type=int, default=16, help="length scales H tried per data set")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    a = ap.parse_args()
    dt = getattr(torch, a.dtype)
    g = torch.Generator(device="cuda").manual_seed(2017)
    x = torch.rand(a.sets, a.n, 1, device="cuda", generator=g, dtype=dt) * 10
    y = torch.sin(x[..., 0]) + 0.1 * torch.randn(a.sets, a.n, device="cuda", generator=g, dtype=dt)
    scales = torch.logspace(-1, 1, a.scales, device="cuda", dtype=dt)
    noise = 0.1
    t_torch, (ll_torch, info_t) = timed(lambda: log_likelihood(x, y, scales, noise, torch.linalg.cholesky_ex))
    t_ours, (ll_ours, info_o) = timed(lambda: log_likelihood(x, y, scales, noise, cc.cholesky_ex))
    both = (info_t == 0) & (info_o == 0)
    rel = float(((ll_ours - ll_torch).abs() / ll_torch.abs().clamp_min(1))[both].max())
    best = scales[ll_ours.argmax(1)]
    print(f"{torch.cuda.get_device_name()}: {a.sets} data sets x {a.scales} length scales = {a.sets * a.scales} GPs of n = {a.n}, {a.dtype}")
    print(f"  with torch.linalg.cholesky_ex:  {t_torch:8.3f} ms")
    print(f"  with course_cholesky.cholesky_ex:{t_ours:8.3f} ms   ({t_torch / t_ours:.2f}x end to end)")
    print(f"  log-likelihoods agree to {rel:.1e} (relative, {int(both.sum())} of {both.numel()} factored by both); "
          f"infos nonzero: torch {int((info_t != 0).sum())}, course {int((info_o != 0).sum())}")
    print(f"  the best length scale of data set 0: {float(best[0]):.3f} (both: {bool(ll_torch[0].argmax() == ll_ours[0].argmax())})")


if __name__ == "__main__":
    main()
