"""plot_precision.py - gpu-mode's normwise residual ||A - L L^T||_1 / ||A||_1 and the time against n,
one line per math of the whole-GPU path (fp32 cores, tf32x3 and f16x3 = precision highest, tf32 =
precision high, f16 = precision medium), beside the contest's bound 20 n eps. The stage 03 README's figure.

  measure (GPU): python3 03_left_right_top/plot_precision.py --measure build/03_left_right_top/cholesky_one CSV
                 [--ns "256 512 ..."] [--families "spd illcond"] (default: spd) [--maths "tf32x3 tf32 f16"]
  plot:          python3 03_left_right_top/plot_precision.py CSV PNG
"""
import csv
import os
import re
import subprocess
import sys

MATHS = ["fp32", "tf32x3", "f16x3", "tf32", "f16"]
LABEL = {"fp32": "fp32 cores", "tf32x3": "tf32x3 (precision highest)", "f16x3": "f16x3 (highest on Hopper)",
         "tf32": "tf32 (precision high)", "f16": "f16 bulk (precision medium)"}
FIELDS = ["n", "family", "math", "residual", "residual_n_eps", "ms", "gpu", "commit"]


def measure(binary, out, ns, families, maths=MATHS):
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines()[0]
    commit = os.environ.get("GIT_COMMIT", "unknown")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for family in families:
            for n in ns:
                for math in maths:
                    run = subprocess.run([binary, "--n", str(n), "--family", family, "--math", math, "--residual",
                                          "--mode", "lookahead" if n <= 4032 else "quads"],
                                         capture_output=True, text=True, timeout=600)
                    r = re.search(r"residual: .*? = (\S+) = (\S+) n eps", run.stdout)
                    t = re.search(r"; ([0-9.]+) ms", run.stdout)
                    if run.returncode != 0 or not r:
                        print(f"plot_precision: n = {n} {family} {math}: no residual (rc {run.returncode})\n"
                              f"{run.stdout}{run.stderr}", file=sys.stderr)
                        continue
                    row = {"n": n, "family": family, "math": math, "residual": r.group(1),
                           "residual_n_eps": r.group(2), "ms": t.group(1) if t else "", "gpu": gpu, "commit": commit}
                    w.writerow(row)
                    f.flush()
                    print(f"n = {n:6d} {family:8s} {math:7s} residual {float(r.group(1)):.3e} "
                          f"({float(r.group(2)):.3f} n eps), {row['ms']} ms", flush=True)


def plot(csv_path, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(csv_path)))
    if not rows:
        print(f"plot_precision: no rows in {csv_path}")
        return 1
    families = sorted({r["family"] for r in rows})
    timed = any(r["ms"] for r in rows)
    fig, axes = plt.subplots(2 if timed else 1, len(families), figsize=(6 * len(families), 8.0 if timed else 4.2),
                             squeeze=False)
    eps = 2.0 ** -23
    for column, family in enumerate(families):
        ax = axes[0][column]
        ns = sorted({int(r["n"]) for r in rows if r["family"] == family})
        for math in MATHS:
            pts = sorted((int(r["n"]), float(r["residual"])) for r in rows
                         if r["family"] == family and r["math"] == math)
            if pts:
                ax.plot(*zip(*pts), "o-", label=LABEL[math])
        ax.plot(ns, [20 * n * eps for n in ns], "k--", label="gpu-mode's bound 20 n eps")
        ax.plot(ns, [2.0 ** -10 for n in ns], "k:", label="2^-10: one TF32 product's error, |L||L^T| ~ |A|")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("||A - L L^T||_1 / ||A||_1")
        ax.set_title(f"family {family}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="center right")  # the residuals lie far below the bound
        if timed:  # the time of one factorization, same runs
            ax = axes[1][column]
            for math in MATHS:
                pts = sorted((int(r["n"]), float(r["ms"])) for r in rows
                             if r["family"] == family and r["math"] == math and r["ms"])
                if pts:
                    ax.plot(*zip(*pts), "o-", label=LABEL[math])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_ylabel("ms (median of 7 warm runs)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
    fig.suptitle(f"one matrix, whole GPU (cholesky_one --residual)\n{rows[0]['gpu']}, commit {rows[0]['commit']}",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"plot_precision: wrote {png}")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "--measure":
        opts = dict(zip(argv[3::2], argv[4::2]))
        ns = [int(v) for v in opts.get("--ns", "256 512 1024 2048 4096 8192 16384").split()]
        families = opts.get("--families", "spd").split()
        maths = opts.get("--maths", " ".join(MATHS)).split()
        unknown = [m for m in maths if m not in MATHS]
        if unknown:
            print(f"plot_precision: --maths {' '.join(unknown)}: one of {' '.join(MATHS)}", file=sys.stderr)
            return 2
        measure(argv[1], argv[2], ns, families, maths)
        return 0
    if len(argv) == 2:
        return plot(argv[0], argv[1])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
