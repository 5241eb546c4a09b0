#!/usr/bin/env python3
"""test_summary.py RESULTS.tsv... - sum up test records (suite, test, PASS|FAIL|SKIP, detail).

Prints a points table per suite for instructors, writes summary.json beside the first file,
and ends with the line 'N passed, N failed, N skipped'. Exit status 1 if anything failed.
Points: a suite's weight times the fraction of its graded (not skipped) tests that passed.
A suite whose tests were all skipped (no GPU) earns no points and is marked 'not graded'.
"""
import json
import os
import sys

WEIGHTS = {"common": 10, "stage-1": 10, "stage-2": 15, "stage-3": 20, "stage-4": 20, "stage-5": 25}


def main(paths):
    suites = {}
    skip_reasons = {}
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 3:
                    continue
                suite_file = os.path.splitext(os.path.basename(path))[0]
                counts = suites.setdefault(suite_file, {"PASS": 0, "FAIL": 0, "SKIP": 0})
                status = parts[2]
                if status in counts:
                    counts[status] += 1
                if status == "SKIP" and len(parts) > 3:
                    skip_reasons[parts[3]] = skip_reasons.get(parts[3], 0) + 1
    total = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    rows = []
    earned = possible = 0.0
    print()
    print(f"{'suite':<10} {'passed':>7} {'failed':>7} {'skipped':>8} {'points':>14}")
    for name in sorted(suites):
        c = suites[name]
        for k in total:
            total[k] += c[k]
        weight = WEIGHTS.get(name, 0)
        graded = c["PASS"] + c["FAIL"]
        if graded:
            pts = weight * c["PASS"] / graded
            earned += pts
            possible += weight
            pts_text = f"{pts:5.1f} / {weight}"
        else:
            pts = None
            pts_text = "not graded"
        rows.append({"suite": name, "passed": c["PASS"], "failed": c["FAIL"], "skipped": c["SKIP"],
                     "points": pts, "weight": weight})
        print(f"{name:<10} {c['PASS']:>7} {c['FAIL']:>7} {c['SKIP']:>8} {pts_text:>14}")
    print(f"{'points':<10} {'':>7} {'':>7} {'':>8} {earned:5.1f} / {possible:g}")
    for reason, count in skip_reasons.items():
        print(f"skipped {count} tests: {reason}")
    if paths:
        out = os.path.join(os.path.dirname(paths[0]) or ".", "summary.json")
        with open(out, "w") as f:
            json.dump({"suites": rows, "passed": total["PASS"], "failed": total["FAIL"],
                       "skipped": total["SKIP"], "points": earned, "possible": possible}, f, indent=1)
    print(f"{total['PASS']} passed, {total['FAIL']} failed, {total['SKIP']} skipped")
    return 1 if total["FAIL"] or not (total["PASS"] + total["SKIP"]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
