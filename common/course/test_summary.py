#!/usr/bin/env python3
"""test_summary.py [--write SUMMARY.json] SUITE.json... - the points table of one or more suites
(written by run_suite.py), ending with the line 'N passed, N failed, N skipped' (one suite whose
graded tests could not run here ends with a 'NOT GRADED here' line after it).

Points are per learning goal: each group of a suite has a fixed weight (the stage's points.tsv)
and earns weight x passed / planned. Groups worth 0 are sanity checks of provided code or of
cuSOLVER itself: they must pass, but they earn nothing. Skipped tests (no GPU here) earn nothing
either; the table says how many points could not be earned on this machine, so the possible
total is the same everywhere. Exit status 1 if any test failed (in grading mode, GRADE=1, a
test that did not run is a failure too).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading_common import shown_points  # noqa: E402


def main(argv):
    out = None
    if len(argv) >= 2 and argv[0] == "--write":
        out, argv = argv[1], argv[2:]
    suites = []
    for path in argv:
        with open(path) as f:
            suites.append(json.load(f))
    total = {"passed": 0, "failed": 0, "skipped": 0}
    earned = possible = not_here = 0.0
    print()
    head = f"{'suite / learning goal':<44} {'passed':>7} {'failed':>7} {'not run':>8} {'points':>15}"
    print(head)
    print("-" * len(head))
    for s in suites:
        sp = sum(g["points"] for g in s["groups"])
        sw = sum(g["weight"] for g in s["groups"])
        cnt = {k: sum(g[k] for g in s["groups"]) for k in total}
        for k in total:
            total[k] += cnt[k]
        earned, possible = earned + sp, possible + sw
        not_here += sum(g["points_not_run"] for g in s["groups"])
        pts = f"{shown_points(sp)} / {sw:g}" if sw else "sanity (0 pts)"
        print(f"{s['suite']:<44} {cnt['passed']:>7} {cnt['failed']:>7} {cnt['skipped']:>8} {pts:>15}")
        for g in s["groups"]:
            gp = f"{shown_points(g['points'])} / {g['weight']:g}" if g["weight"] else "sanity"
            print(f"  {g['group'][:42]:<42} {g['passed']:>7} {g['failed']:>7} {g['skipped']:>8} {gp:>15}")
        for p in s.get("problems", []):
            print(f"  !! {p}")
    print("-" * len(head))
    print(f"{'points':<44} {'':>7} {'':>7} {'':>8} {shown_points(earned)} / {possible:g}")
    if total["skipped"]:
        print(f"not run here: {total['skipped']} tests (they need a GPU, or a tool this machine lacks: the SKIP lines "
              f"say which); {not_here:.1f} points could not be earned on this machine (grading runs them on a GPU)")
    if suites:
        st = suites[0]["stamp"]
        print(f"mode {suites[0]['mode']}; GPU {st['gpu']} (driver {st['driver'] or '-'}), {st['cuda'] or 'CUDA ?'}, "
              f"commit {st['commit']}, {st['utc']}")
    if out:
        with open(out, "w") as f:
            json.dump({"suites": suites, "points": round(earned, 3), "possible": possible,
                       "points_not_run_here": round(not_here, 3), **total}, f, indent=1)
    counts = f"{total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped"
    # A suite whose graded tests all skipped earned nothing and failed nothing: say so where a
    # student looks, the last line (with several suites the counts stay last, for CI).
    ungraded = [not_graded_line(s) for s in suites]
    ungraded = [x for x in ungraded if x]
    if len(suites) == 1 and ungraded:
        print(counts)
        print(ungraded[0])
    else:
        for x in ungraded:
            print(x)
        print(counts)
    return 1 if total["failed"] or not suites else 0


def not_graded_line(suite):
    graded = [g for g in suite["groups"] if g["weight"]]
    if not graded or any(g["passed"] + g["failed"] for g in graded) or not any(g["skipped"] for g in graded):
        return None
    why = "no GPU" if suite["stamp"].get("gpu", "none") == "none" else "its graded tests could not run"
    possible = sum(g["weight"] for g in graded)
    return f"NOT GRADED here: {why}; 0 of {possible:g} points of {suite['suite']} could be earned (run it on a GPU)"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
