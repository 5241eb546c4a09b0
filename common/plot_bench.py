#!/usr/bin/env python3
"""plot_bench.py BENCH.csv OUTDIR - GFLOP/s against n, one line per (stage, variant), and the
speedup over cuSOLVER; the GPU and commit in the title. Run through `make plots`."""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, outdir):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"{path}: no rows to plot")
        return 0
    os.makedirs(outdir, exist_ok=True)
    lines = defaultdict(list)
    for r in rows:
        lines[(r["stage"], r["variant"])].append((int(r["n"]), float(r["gflops"]),
                                                  float(r["x_cusolver"]) if r["x_cusolver"] else None))
    title = f"{rows[0]['gpu']} - commit {rows[0]['commit']}"
    for what, index, ylabel, name in (("rate", 1, "GFLOP/s", "gflops.png"),
                                      ("speedup", 2, "x cuSOLVER (same run)", "speedup.png")):
        fig, ax = plt.subplots(figsize=(8, 5))
        for (stage, variant), pts in sorted(lines.items()):
            pts = sorted(p for p in pts if p[index] is not None)
            if len(pts) > 1 or (pts and what == "rate"):
                ax.plot([p[0] for p in pts], [p[index] for p in pts], marker="o", label=f"{stage} {variant}")
        ax.set_xlabel("n (matrix order)")
        ax.set_ylabel(ylabel)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, name), dpi=120)
        plt.close(fig)
        print(f"wrote {os.path.join(outdir, name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
