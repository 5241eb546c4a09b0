#!/usr/bin/env python3
"""leaderboard.py OUT.png A.csv [B.csv ...] - the class leaderboard from students' bench CSVs.

Each CSV is one student's `make bench` (or bench-stage-N) output; the student is the CSV's
`student` column when it has one, else the file name without .csv. Rows count only when their
result was verified. Results are grouped by GPU - timings from different GPUs are never
compared raw - and ranked by the geometric mean, over n = 20..100, of the student's best speed
over cuSOLVER at each n (cuSOLVER timed in the same run on the same GPU). Prints the table and
draws OUT.png (matplotlib: one panel per GPU, best x cuSOLVER against n, one line per student).
"""
import csv
import math
import os
import sys
from collections import defaultdict


def load(paths):
    best = defaultdict(lambda: defaultdict(dict))  # gpu -> student -> n -> best x cuSOLVER
    for p in paths:
        default = os.path.splitext(os.path.basename(p))[0]
        try:
            rows = list(csv.DictReader(open(p)))
        except OSError as e:
            print(f"leaderboard: {p}: {e.strerror}", file=sys.stderr)
            continue
        for r in rows:
            if r.get("verified") != "yes" or not r.get("x_cusolver"):
                continue
            n = int(r["n"])
            if not 20 <= n <= 100:
                continue
            who = r.get("student") or default
            cell = best[r["gpu"]][who]
            cell[n] = max(cell.get(n, 0.0), float(r["x_cusolver"]))
    return best


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, paths = argv[0], argv[1:]
    best = load(paths)
    if not best:
        print("leaderboard: no verified rows with a cuSOLVER comparison in the given CSVs")
        return 1
    for gpu, students in best.items():
        ranked = sorted(students.items(), key=lambda kv: -math.exp(sum(map(math.log, kv[1].values())) / len(kv[1])))
        print(f"\nGPU {gpu}")
        print(f"{'rank':>4} {'student':<24} {'geomean x cuSOLVER':>19} {'n measured':>11}")
        for k, (who, cells) in enumerate(ranked, 1):
            g = math.exp(sum(map(math.log, cells.values())) / len(cells))
            print(f"{k:>4} {who:<24} {g:>19.2f} {len(cells):>11}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("leaderboard: matplotlib is not installed: no plot (make leaderboard installs it)")
        return 0
    fig, axes = plt.subplots(1, len(best), figsize=(6.5 * len(best), 4.5), squeeze=False)
    for ax, (gpu, students) in zip(axes[0], best.items()):
        for who, cells in sorted(students.items()):
            ns = sorted(cells)
            ax.plot(ns, [cells[n] for n in ns], marker="o", label=who)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
        ax.set_title(gpu, fontsize=10)
        ax.set_xlabel("n (matrix order)")
        ax.set_ylabel("best verified speed over cuSOLVER (x)")
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle("Class leaderboard: speed over cusolverDnSpotrfBatched, same run, same GPU")
    fig.tight_layout()
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"\nplot: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
