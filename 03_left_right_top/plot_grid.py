#!/usr/bin/env python3
"""plot_grid.py BENCH.csv OUT.png - the picture of stage 03 part 2: one matrix of order n, how
long each way of factoring it takes (left, log-log) and how that compares with the fastest
library timed in the same run (right: t_fastest_library / t, above 1 = faster than every library).
Rows: make bench-stage-3 (bench_grid and common/course/frameworks.py --single). Run: make plot-stage-3."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["batch"] == "1" and r["stage"] in ("03", "frameworks")]
    times = defaultdict(dict)  # variant -> n -> ms; a later run's row replaces an earlier one's
    used = {}  # (variant, n) -> the commit of the row kept
    for r in rows:
        name = r["variant"].replace(" (one matrix)", "").replace(" (default)", "")
        times[name][int(r["n"])] = float(r["median_ms"])
        used[(name, int(r["n"]))] = r["commit"]
    libs = [v for v in times if v.startswith("cusolver") or "linalg" in v]
    ours = [v for v in ("one block left-looking NB=32", "grid stream", "grid graph", "grid lookahead", "grid pairs", "grid quads",
                        "grid lookahead tf32x3", "grid pairs tf32x3", "grid quads tf32x3") if v in times]
    if not libs or not ours:
        print(f"plot_grid: no stage 03 rows in {sys.argv[1]}")
        return 1
    gpu = next((r["gpu"] for r in rows if r["gpu"]), "?")
    commit = ", ".join(dict.fromkeys(c for c in used.values() if c)) or "?"  # every run the picture draws from
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
    color = {v: plt.cm.tab20(i % 20) for i, v in enumerate(libs + ours)}  # one colour per line, the same in both panels
    for v in libs + ours:
        ns = sorted(times[v])
        style = "--" if v in libs else "-"
        ax.plot(ns, [times[v][n] for n in ns], style, marker="o", ms=3, label=v, color=color[v])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (one n x n matrix)")
    ax.set_ylabel("median time, ms")
    ax.set_title("time to factor one matrix")
    ax.grid(True, which="both", alpha=0.3)
    for v in ours:
        ns = [n for n in sorted(times[v]) if any(n in times[lib] for lib in libs)]
        best = [min(times[lib][n] for lib in libs if n in times[lib]) for n in ns]
        bx.plot(ns, [b / times[v][n] for b, n in zip(best, ns)], marker="o", ms=3, label=v, color=color[v])
    bx.axhline(1.0, color="k", lw=0.8)
    bx.axhline(0.8, color="gray", lw=0.8, ls=":")
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_xlabel("n")
    bx.set_ylabel("fastest library's time / ours (> 1: faster)")
    short = sorted({v.split(".")[0] if "linalg" in v else "cuSOLVER" for v in libs})  # torch.linalg.cholesky -> torch
    bx.set_title("against the fastest library at each n (" + ", ".join(short) + ")", fontsize=9)
    bx.grid(True, which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(f"Stage 03: one matrix over the whole GPU ({gpu}, commit {commit})")
    fig.tight_layout(rect=(0, 0.14, 1, 0.95))
    fig.savefig(sys.argv[2], dpi=110)
    print(f"plot_grid: wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
