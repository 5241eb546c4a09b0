#!/usr/bin/env python3
"""plot_tuning.py [RESULTS_DIR] [OUT_DIR] [GPU] - the figures of the stage 06 README for one GPU, from
its sweep (tune_GPU.csv, `make tune`) and one benchmark run (bench_GPU.csv: `make bench-stage-6`,
with cuSolverDx, and common/course/frameworks.py appending torch, cupy and jax to the same CSV; a
frameworks_GPU.csv beside it is read too). One question per figure; GPU and commits in titles.
Default: 06_tuning/results -> 06_tuning/, GPU h100."""
import csv
import glob
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CLASSES = {"1GiB": "1 GiB of matrices (past the L2)", "1024": "1024 matrices (classroom size)"}


def read(pattern):
    rows = []
    for p in sorted(glob.glob(pattern)):
        with open(p) as f:
            rows += list(csv.DictReader(f))
    return rows


FAMILIES = {"cyclic": "cyclic (2D-cyclic grid of threads)", "staged": "staged (one thread, row-major)",
            "grid": "grid (stage 03 tile tasks)", "tiles": "tiles (stage 02 helpers)"}


def family(r):
    if r["kernel"] == "rows":
        return "rows, steps written out" if r["unroll"] == "0" else "rows, loop over k"
    if r["kernel"] == "thread":
        return f"thread, {r['order']}-looking"
    return FAMILIES.get(r["kernel"], r["kernel"])


def stamp(rows):
    commits = sorted({r.get("commit", "?") for r in rows})
    which = f"commit {commits[0]}" if len(commits) == 1 else f"commits {', '.join(commits)}"
    return f"{rows[0].get('gpu', '?')}, {which}"


# The benchmark's rows drawn beside the sweep's families: the course's answer for a user's
# (row-major) data, the strongest peer, cuSOLVER; the frameworks are every other name.
PEERS = {"rowmajor auto": ("k", "-", "o", 2.4), "cuSolverDx best": ("darkviolet", "-.", "^", 1.6),
         "cusolverDnSpotrfBatched": ("dimgrey", "--", "o", 1.0)}
NMAX = 128  # the batched course's range (the sweep's few larger n are stage 03's business)


def bench_series(bench, label):
    """name -> sorted [(n, ms)] of one class (label "(1 GiB)" or "(1024)"), the configuration dropped"""
    out = defaultdict(list)
    for r in bench:
        v = r["variant"]
        if not v.endswith(label) or "(batch sweep)" in v or r.get("verified") not in ("yes", "reference"):
            continue
        name = v[: -len(label)].strip().split(":")[0]
        if name in ("auto", "fixed", "cuSolverDx suggested"):
            continue
        out[name].append((int(r["n"]), float(r["median_ms"])))
    return {k: sorted(v) for k, v in out.items()}


def best_by(rows, key):
    best = {}
    for r in rows:
        if r.get("verified") != "yes":
            continue
        k = key(r)
        t = float(r["median_ms"])
        if k not in best or t < best[k][0]:
            best[k] = (t, r)
    return best


def legend_outside(ax):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def fig_roofline(tune, bench, fw, out):
    """How close does each kernel family get to the copy roofline, next to the libraries?"""
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.6), sharey=True)
    copy = {(int(r["n"]), r["class"]): float(r["copy_ms"]) for r in tune}
    for ax, cls in zip(axes, CLASSES):
        rows = [r for r in tune if r["class"] == cls and int(r["n"]) <= NMAX]
        best = best_by(rows, lambda r: (family(r), int(r["n"])))
        for fam in sorted({k[0] for k in best}):
            pts = sorted((n, 100 * copy[(n, cls)] / t) for (f, n), (t, _) in best.items() if f == fam)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=fam, lw=1.4)
        label = "(1 GiB)" if cls == "1GiB" else "(1024)"
        bcopy = {int(r["n"]): float(r["copy_ms"]) for r in bench
                 if r["variant"].endswith(label) and float(r["copy_ms"] or 0) > 0}
        for name, pts in sorted(bench_series(bench + fw, label).items()):
            pts = [(n, 100 * bcopy[n] / t) for n, t in pts if n in bcopy]
            if not pts:
                continue
            color, style, marker, lw = PEERS.get(name, (None, ":", "s", 1.0))
            shown = "rowmajor auto (the course, benchmark run)" if name == "rowmajor auto" else name
            ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=style, color=color, marker=marker, ms=3,
                    lw=lw, label=shown)
        ax.axhline(50, color="grey", lw=0.6)
        ax.set_title(CLASSES[cls], fontsize=10)
        ax.set_xlabel("n")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("% of the copy roofline (higher is better)")
    legend_outside(axes[1])
    fig.suptitle(f"Best configuration per kernel family (sweep: {stamp(tune)})\nvs the libraries and the course's "
                 f"auto in one benchmark run ({stamp(bench) if bench else 'none'})", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "roofline_by_family.png"), dpi=110)


def fig_heatmap(tune, out):
    """Rows kernel: which threads per matrix x matrices per block wins?"""
    ns = [32, 64, 96]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, n in zip(axes, ns):
        rows = [r for r in tune if r["kernel"] == "rows" and int(r["n"]) == n and r["class"] == "1GiB"
                and r["verified"] == "yes"]
        best = best_by(rows, lambda r: (int(r["threads"]), int(r["per_block"])))
        ts = sorted({k[0] for k in best})
        pbs = sorted({k[1] for k in best})
        top = min(t for t, _ in best.values())
        grid = [[(best[(t, p)][0] / top if (t, p) in best else math.nan) for p in pbs] for t in ts]
        im = ax.imshow(grid, cmap="viridis_r", vmin=1, vmax=2.5, aspect="auto")
        for a, t in enumerate(ts):
            for b, p in enumerate(pbs):
                if (t, p) in best:
                    ax.text(b, a, f"{grid[a][b]:.2f}", ha="center", va="center", fontsize=8,
                            color="white" if grid[a][b] > 1.7 else "black")
        ax.set_xticks(range(len(pbs)), [str(p) for p in pbs])
        ax.set_yticks(range(len(ts)), [str(t) for t in ts])
        ax.set_xlabel("matrices per block (= chunk)")
        ax.set_ylabel("threads per matrix T")
        ax.set_title(f"n = {n}: time / best", fontsize=10)
    fig.colorbar(im, ax=axes, shrink=0.8, label="time relative to the best (1 = best)")
    fig.suptitle(f"Rows kernel, 1 GiB batches: threads per matrix x matrices per block - "
                 f"{stamp([r for r in tune if r['kernel'] == 'rows'])}", fontsize=10, y=1.03)
    fig.savefig(os.path.join(out, "rows_heatmap.png"), dpi=110, bbox_inches="tight")


def fig_orders_unroll(tune, out):
    """Thread kernel: which looking order, and does unrolling help?"""
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.4))
    rows = [r for r in tune if r["kernel"] == "thread" and r["class"] == "1GiB"]
    best = best_by(rows, lambda r: (r["order"], int(r["n"])))
    for order in ("left", "right", "top"):
        pts = sorted((n, t) for (o, n), (t, _) in best.items() if o == order)
        axes[0].plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f"{order}-looking (best NB, unroll, chunk)")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("n")
    axes[0].set_ylabel("time per 1 GiB batch, ms (lower is better)")
    axes[0].set_title("looking orders, one thread per matrix", fontsize=10)
    axes[0].grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    best_u = best_by([r for r in rows if r["order"] == "left"], lambda r: (int(r["nb"]), int(r["unroll"]), int(r["n"])))
    ref = {}
    for (nb, u, n), (t, _) in best_u.items():
        if u == 1:
            ref[(nb, n)] = t
    for nb in (4, 8):
        for u in (2, 4):
            pts = sorted((n, ref[(nb, n)] / t) for (b, uu, n), (t, _) in best_u.items() if b == nb and uu == u and (nb, n) in ref)
            axes[1].plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=f"NB={nb}, unroll {u}")
    axes[1].axhline(1, color="k", lw=0.6)
    axes[1].set_xlabel("n")
    axes[1].set_ylabel("speedup over unroll 1 (same NB)")
    axes[1].set_title("unrolling the left-looking update loop", fontsize=10)
    axes[1].grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.suptitle(f"Thread-per-matrix kernel, 1 GiB batches - {stamp(rows)}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "thread_orders_unroll.png"), dpi=110)


def fig_batch(bench, out):
    """How does the time grow with the batch size, from 1024 matrices to a large part of the GPU?"""
    rows = [r for r in bench if "(batch sweep)" in r["variant"]]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(9, 4.6))
    for n, color in zip((20, 60, 100), ("C0", "C1", "C2")):
        for kind, style in (("auto:", "-"), ("cusolverDnSpotrfBatched", "--")):
            pts = sorted((int(r["batch"]), float(r["median_ms"])) for r in rows
                         if int(r["n"]) == n and r["variant"].startswith(kind))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, marker=".",
                    label=f"n={n} {'tuned (auto)' if kind == 'auto:' else 'cuSOLVER'}")
        pts = sorted((int(r["batch"]), float(r["copy_ms"])) for r in rows if int(r["n"]) == n and r["variant"].startswith("auto:"))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ":", color=color, label=f"n={n} copy roofline")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("matrices in the batch")
    ax.set_ylabel("time, ms")
    ax.grid(alpha=0.3)
    legend_outside(ax)
    ax.set_title(f"Time against batch size - {stamp(rows)}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "batch_sweep.png"), dpi=110)


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "06_tuning/results"
    out = sys.argv[2] if len(sys.argv) > 2 else "06_tuning"
    gpu = sys.argv[3] if len(sys.argv) > 3 else "h100"
    tune, runs = read(f"{res}/tune_{gpu}.csv"), read(f"{res}/bench_{gpu}.csv")
    bench = [r for r in runs if r["stage"] != "frameworks"]
    fw = [r for r in runs if r["stage"] == "frameworks"] + read(f"{res}/frameworks_{gpu}.csv")
    if not tune:
        print(f"plot_tuning: no sweep rows in {res}/tune_{gpu}.csv: run make tune; nothing drawn")
        return 0
    fig_roofline(tune, bench, fw, out)
    fig_heatmap(tune, out)
    fig_orders_unroll(tune, out)
    if bench:
        fig_batch(bench, out)
    else:
        print(f"plot_tuning: no benchmark rows in {res}/bench_{gpu}.csv: the batch-size figure is not drawn")
    print(f"plot_tuning: figures in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
