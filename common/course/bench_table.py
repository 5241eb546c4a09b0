#!/usr/bin/env python3
"""bench_table.py BENCH.csv - the classroom's comparison table from benchmark rows (report.c).

One line per (stage, variant, n, batch): median time, GFLOP/s, speedup over cuSOLVER measured in
the same run, and the fraction of the device-to-device copy roofline. Stamped with the GPU,
driver, CUDA runtime and commit of the run.
"""
import csv
import sys


def skipped(path):
    """The benchmarks that did not run here and why (report.c's bench_begin_gpu writes PATH.skipped)."""
    try:
        with open(path + ".skipped") as f:
            return [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line]
    except FileNotFoundError:
        return []


def summary(path, rows):
    """The closing line: what ran, and what did not and why (the last line a newcomer reads)."""
    stages = sorted({r["stage"] for r in rows})
    ran = f"{len(rows)} rows from stage{'s' if len(stages) != 1 else ''} {', '.join(stages)}" if rows else "no rows"
    by_reason = {}
    for stage, reason in skipped(path):
        if stage not in by_reason.setdefault(reason, []):
            by_reason[reason].append(stage)
    if not by_reason:
        return f"bench: {ran}"
    gone = "; ".join(f"{', '.join(s)} ({r})" for r, s in by_reason.items())
    return f"bench: {ran}; not run here: {gone}"


def main(path):
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        rows = []
    if not rows:
        print(f"{path}: no benchmark rows")
        print(summary(path, rows))
        return 0
    r0 = rows[0]
    print()
    print(f"GPU {r0['gpu']} (cc {r0['cc']}, {r0['sms']} SMs), driver API {r0['driver']}, "
          f"CUDA runtime {r0['cuda_runtime']}, host {r0['host']}, commit {r0['commit']}")
    head = f"{'stage':<8} {'variant':<28} {'n':>4} {'batch':>9} {'time ms':>10} {'GFLOP/s':>9} {'x cuSOLVER':>10} {'% copy roofline':>15}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['stage']:<8} {r['variant']:<28} {r['n']:>4} {r['batch']:>9} {float(r['median_ms']):>10.4f} "
              f"{float(r['gflops']):>9.1f} {r['x_cusolver'] or '-':>10} {r['pct_copy_roofline'] or '-':>15}")
    print(f"(CSV: {path})")
    print(summary(path, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/bench.csv"))
