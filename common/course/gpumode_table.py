#!/usr/bin/env python3
"""gpumode_table.py CSV - the table of `make bench-gpumode`: per shape of gpu-mode's Cholesky grid,
the course's `auto` (row-major data), cuSOLVER, torch, cupy and jax from the same run (the rows
bench_gpumode and frameworks.py --gpumode wrote to CSV), the fastest library and auto's speed-up
over it; then the geometric means over the shapes every column has, the way the leaderboard
ranks entries. Where the run also timed precision high (one TF32 pass in the whole-GPU updates, the
user's choice) and medium (the warpgroup bulk in scaled fp16, Hopper), their times and speed-ups
follow; the first means are the fp32-accurate auto's, then those of the fastest labelled mode per
shape (the user's choice among highest, high and medium), against the fastest library and torch.
Prints Markdown; exits 2 when the CSV has no gpumode rows.
"""
import csv
import math
import os
import sys

LIBS = [("cuSOLVER", lambda v: v.startswith("cusolverDn")), ("torch", lambda v: v.startswith("torch.")),
        ("cupy", lambda v: v.startswith("cupy.")), ("jax", lambda v: v.startswith("jax."))]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help") else 2
    shapes, gpu, commit = {}, "", ""
    if not os.path.exists(sys.argv[1]):
        print(f"gpumode_table: no {sys.argv[1]} (make bench-gpumode writes it; without a GPU it writes none)")
        return 2
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            v = r["variant"]
            if r["stage"] == "gpumode":
                gpu, commit = r["gpu"], r["commit"]
            elif not (r["stage"] == "frameworks" and v.endswith("(gpumode)")):
                continue
            key = (int(r["n"]), int(r["batch"]))
            row = shapes.setdefault(key, {})
            ms = float(r["median_ms"])
            if v.startswith("auto"):
                row["auto"], row["config"] = ms, v[len("auto (row-major) "):]
            elif v.startswith("precision high"):
                row["high"] = ms
            elif v.startswith("precision medium"):
                row["medium"] = ms
            for lib, match in LIBS:
                if match(v):
                    row[lib] = ms
    if not shapes:
        print(f"gpumode_table: no gpumode rows in {sys.argv[1]} (make bench-gpumode writes them)")
        return 2
    print(f"gpu-mode Cholesky grid on {gpu or 'an unknown GPU'} (commit {commit}); median µs, row-major fp32, "
          "auto's speed-up over the fastest library of the same run\n")
    modes = [m for m in ("high", "medium") if any(m in row for row in shapes.values())]
    head = ["batch × n", "auto", "auto's kernel"] + [lib for lib, _ in LIBS] + ["fastest library", "auto vs fastest"]
    for m in modes:
        head += [f"precision {m}", f"{m} vs fastest"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" if k < 1 or k == 2 else "---:" for k in range(len(head))) + "|")
    auto_t, best_t, mode_t, torch_t = [], [], [], []
    for (n, batch) in sorted(shapes, key=lambda s: (s[0], s[1])):
        row = shapes[(n, batch)]
        libs = {lib: row[lib] for lib, _ in LIBS if lib in row}
        fastest = min(libs, key=libs.get) if libs else None
        cells = [f"{batch} × {n}", f"{row['auto'] * 1e3:,.1f}" if "auto" in row else "–", row.get("config", "–")]
        cells += [f"{row[lib] * 1e3:,.1f}" if lib in row else "–" for lib, _ in LIBS]
        cells.append(fastest or "–")
        if "auto" in row and fastest:
            ratio = libs[fastest] / row["auto"]
            cells.append(f"**{ratio:.2f}×**" if ratio < 1 else f"{ratio:.2f}×")
            auto_t.append(row["auto"])
            best_t.append(libs[fastest])
            mode_t.append(min(row.get(m, row["auto"]) for m in ["auto"] + modes))
            torch_t.append(row.get("torch", float("nan")))
        else:
            cells.append("–")
        for m in modes:
            cells += [f"{row[m] * 1e3:,.1f}", f"{libs[fastest] / row[m]:.2f}×" if fastest else "–"] \
                if m in row else ["–", "–"]
        print("| " + " | ".join(cells) + " |")
    ga, gb = geomean(auto_t), geomean(best_t)
    print(f"\nGeometric mean over the {len(auto_t)} shapes with both: auto {ga * 1e3:,.1f} µs, fastest library "
          f"{gb * 1e3:,.1f} µs: auto {gb / ga:.2f}× the fastest library.")
    if modes:
        gm = geomean(mode_t)
        with_torch = [(m, t) for m, t in zip(mode_t, torch_t) if t == t]
        vs_torch = geomean([t for _, t in with_torch]) / geomean([m for m, _ in with_torch]) if with_torch else None
        print(f"The fastest labelled mode per shape (highest, {', '.join(modes)}): {gm * 1e3:,.1f} µs, "
              f"{gb / gm:.2f}× the fastest library" +
              (f", {vs_torch:.2f}× torch over the {len(with_torch)} shapes torch ran." if vs_torch else "."))
    return 0


if __name__ == "__main__":
    sys.exit(main())
