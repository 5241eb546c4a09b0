#!/usr/bin/env python3
"""plot_bench.py BENCH.csv OUTDIR - the picture of `make bench`, one question per figure:

  stages_vs_cusolver.png   how does each stage compare with cuSOLVER? (best variant of each stage,
                           speedup over cuSOLVER timed in the same run; single-matrix stages and
                           batched stages on separate panels, never mixed)
  best_vs_roofline.png     how close is the best kernel to the copy roofline? (batched stages)
  layout_conversion.png    what does the layout conversion cost? (conversion time next to the
                           factorization time, in ms, never as GFLOP/s)

Legends sit outside the axes; titles carry the GPU and commit. With rows missing (a run without a
GPU has none from the GPU stages) it draws what it has and says what it could not draw; with no
CSV, or nothing it can draw, it says so and exits 2. Run through `make plots`."""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def is_reference(r):
    v = r["variant"].lower()
    return v.startswith("cusolver") or v.startswith("convert") or r["stage"] == "frameworks"


def best_per_stage(rows, key):
    """stage -> n -> the fastest verified row (of the kernels a stage's students write)."""
    best = defaultdict(dict)
    for r in rows:
        if is_reference(r) or r.get("verified") != "yes" or not key(r):
            continue
        n, t = int(r["n"]), float(r["median_ms"])
        if n not in best[r["stage"]] or t < float(best[r["stage"]][n]["median_ms"]):
            best[r["stage"]][n] = r
    return best


def outside(ax):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


def main(path, outdir):
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        print(f"no {path}: run make bench first")
        return 2
    if not rows:
        print(f"plot_bench: {path} has no rows (run make bench on a GPU); nothing drawn")
        return 2
    os.makedirs(outdir, exist_ok=True)
    r0 = rows[0]
    title = f"{r0['gpu']}, CUDA runtime {r0['cuda_runtime']}, commit {r0['commit']}"
    missing, drawn = [], []

    # 1. each stage against cuSOLVER (the x_cusolver column: same run, same matrices)
    with_x = [r for r in rows if r.get("x_cusolver")]
    single = best_per_stage(with_x, lambda r: int(r["batch"]) == 1)
    batched = best_per_stage(with_x, lambda r: int(r["batch"]) > 1 and "(1024)" not in r["variant"]
                             and "sweep" not in r["variant"])
    if single or batched:
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.4))
        for ax, best, what in ((axes[0], single, "one matrix (stages 01-03)"),
                               (axes[1], batched, "batched, 1 GiB of matrices (stages 04-06)")):
            for stage in sorted(best):
                pts = sorted((n, float(r["x_cusolver"])) for n, r in best[stage].items())
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=f"{stage} (its best variant)")
            ax.axhline(1, color="k", lw=0.8, ls="--", label="cuSOLVER (= 1)")
            ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_ylabel("speedup over cuSOLVER (higher is better)")
            ax.set_title(what, fontsize=10)
            ax.grid(alpha=0.3)
            outside(ax)
            if not best:
                ax.text(0.5, 0.5, "no rows", transform=ax.transAxes, ha="center")
        fig.suptitle(f"How each stage compares with cuSOLVER - {title}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "stages_vs_cusolver.png"), dpi=110)
        drawn.append("stages_vs_cusolver.png")
    else:
        missing.append("stages_vs_cusolver.png (no rows with a cuSOLVER time: were the GPU stages skipped?)")

    # 2. the best batched kernel against the copy roofline
    with_roof = [r for r in rows if r.get("pct_copy_roofline") and int(r["batch"]) > 1 and "sweep" not in r["variant"]]
    if with_roof:
        fig, ax = plt.subplots(figsize=(10, 4.4))
        for label, pick in (("1 GiB", lambda r: "(1024)" not in r["variant"]), ("1024 matrices", lambda r: "(1024)" in r["variant"])):
            sub = [r for r in with_roof if pick(r)]
            best = {}
            for r in sub:
                if is_reference(r) or r.get("verified") != "yes":
                    continue
                n = int(r["n"])
                if n not in best or float(r["median_ms"]) < float(best[n]["median_ms"]):
                    best[n] = r
            if best:
                pts = sorted((n, float(r["pct_copy_roofline"])) for n, r in best.items())
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=f"best kernel, {label}")
            cus = sorted({(int(r["n"]), float(r["pct_copy_roofline"])) for r in sub if r["variant"].lower().startswith("cusolver")})
            if cus:
                ax.plot([p[0] for p in cus], [p[1] for p in cus], "--", marker=".", label=f"cuSOLVER, {label}")
        ax.axhline(100, color="k", lw=0.8, label="copy roofline (every byte read and written once)")
        ax.set_xlabel("n")
        ax.set_ylabel("% of the copy roofline")
        ax.grid(alpha=0.3)
        outside(ax)
        ax.set_title(f"How close the best kernel gets to the memory roofline - {title}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "best_vs_roofline.png"), dpi=110)
        drawn.append("best_vs_roofline.png")
    else:
        missing.append("best_vs_roofline.png (no batched rows with a copy-roofline time)")

    # 3. the layout conversion next to the factorization, in ms
    conv = [r for r in rows if r["variant"].startswith("convert")]
    if conv:
        fig, ax = plt.subplots(figsize=(10, 4.4))
        series = defaultdict(list)
        for r in conv:
            series[f"{r['stage']}: {r['variant']}"].append((int(r["n"]), float(r["median_ms"])))
        for name in sorted(series):
            pts = sorted(series[name])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", lw=1, label=name)
        fact = best_per_stage([r for r in rows if int(r["batch"]) > 1 and "(1024)" not in r["variant"]
                               and "sweep" not in r["variant"]], lambda r: True)
        for stage in sorted(fact):
            pts = sorted((n, float(r["median_ms"])) for n, r in fact[stage].items())
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "k--" if stage == "stage-6" else "--", lw=1.6,
                    label=f"{stage}: the factorization itself (best)")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("time for a 1 GiB batch, ms")
        ax.grid(alpha=0.3)
        outside(ax)
        ax.set_title(f"What the layout conversion costs - {title}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "layout_conversion.png"), dpi=110)
        drawn.append("layout_conversion.png")
    else:
        missing.append("layout_conversion.png (no conversion rows: stages 04-05 did not run)")

    print(f"plot_bench: drew {', '.join(drawn) or 'nothing'} in {outdir}")
    for m in missing:
        print(f"plot_bench: could not draw {m}")
    return 0 if drawn else 2


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: plot_bench.py BENCH.csv OUTDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
