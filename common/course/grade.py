#!/usr/bin/env python3
"""grade.py --submission DIR [--stage N] [--out build/grade] - grade a student's submitted kit.
grade.py --self [--stage N] - in a student's kit (make grade there): the kit's own points for the
tests it can run, as make test-stage-N gives them, and what only the instructor's run adds.

Policy (INSTRUCTORS.md):
  * Only the solution regions are taken from the submission (common/course/course_kit.py splice); any
    change outside them, in any file, is reported and ignored.
  * The regions' code may not reach what judges it (common/course/solution_policy.py: files, the
    environment, other processes, the checkers' symbols, a library function replaced, a different
    build under the sanitizers): a stage where the built solution does any of that scores 0, its
    tests not run, and the report says what was found.
  * Stage N is graded in a clean copy of the course holding the submission's regions of stage N
    and the reference solution everywhere else, so one bug in stage 2 is not paid for again in
    stages 3-5.
  * Tests run in grading mode (GRADE=1: a test that did not run scores 0) with the hidden variants
    (GRADE_SEED, GRADE_EXTRA=1: other seeds, n = 5, 47, 97, batch 2049, chunk 17, 7 matrices per
    block), under the suite's time limit. A tree that does not compile scores 0 for its stage.
  * Performance (stages 4 and 5, GPU only): the submission's and the reference's benchmarks run
    one after the other on the same GPU; only rows whose result was verified count. The speed
    ratio r = geometric mean over the matched rows of t_reference / t_submission; points =
    weight x min(1, r / 0.8): full points at 0.8x the reference or faster.
Writes OUT/results.json in the Gradescope autograder format and prints the points table.
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # common/course/ -> the course
sys.path.insert(0, HERE)
import course_kit  # noqa: E402
import solution_policy  # noqa: E402
from grading_common import environment_stamp, read_points, shown_points  # noqa: E402

STAGES = {1: "stage-1", 2: "stage-2", 3: "stage-3", 4: "stage-4", 5: "stage-5", 6: "stage-6"}
POINTS = {1: "01_serial/points.tsv", 2: "02_single_tile/points.tsv", 3: "03_left_right_top/points.tsv",
          4: "04_interleaved/points.tsv", 5: "05_chunked/points.tsv", 6: "06_tuning/points.tsv"}
# What building stage N for its tests takes (make build-<suite>: the suite's programs only).
def build_cmd(suite, jobs, extra=""):
    return f"make -j{jobs} build-{suite} {extra}".strip()


# Performance: stage -> (weight, benchmark program, which rows are the student's code)
PERF = {4: (5, "build/04_interleaved/bench_interleaved", lambda v: v.startswith("interleaved:")),
        5: (5, "build/05_chunked/bench_chunked", lambda v: v.startswith("convert (tiled)"))}
FULL_AT = 0.8


def sh(cmd, cwd, log, env=None, timeout=None):
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, cwd=cwd, shell=True, stdout=f, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write(f"\ntimed out after {timeout} s\n")
            return 124


def clean_course(dst):
    """A copy of the course's tracked files: the reference solution, no build products."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for f in course_kit.repo_files(ROOT):
        os.makedirs(os.path.dirname(os.path.join(dst, f)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dst, f))


def reference_tree(out, commit, jobs):
    """The reference solution, built: in OUT/reference, or, with GRADE_REFERENCE_DIR (make
    grade-class), in that folder, built once per course commit and shared by every grading job of
    the node (a lock file keeps two jobs from building it at once)."""
    shared = os.environ.get("GRADE_REFERENCE_DIR")
    where = os.path.abspath(shared) if shared else os.path.join(out, "reference")
    log = os.path.join(out, "build-reference.log")
    if not shared:
        clean_course(where)
        return where if sh(f"make -j{jobs} {' '.join(PERF[k][1] for k in PERF)}", where, log) == 0 else None
    import fcntl
    os.makedirs(os.path.dirname(where) or ".", exist_ok=True)
    with open(where + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = os.path.join(where, ".built")
        if os.path.exists(stamp) and open(stamp).read().strip() == commit:
            with open(log, "w") as f:
                f.write(f"the reference of {commit} was built before in {where}: reused\n")
            return where
        clean_course(where)
        if sh(f"make -j{jobs} {' '.join(PERF[k][1] for k in PERF)}", where, log) != 0:
            return None
        with open(stamp, "w") as f:
            f.write(commit + "\n")
    return where


def changed_files(sub_dir):
    """Files of the submission that differ from the course's outside the solution regions, and files the
    course does not have: each is ignored (the course's copy is graded); this lists them."""
    found, course = [], set(course_kit.repo_files(ROOT))
    for dirpath, dirs, files in os.walk(sub_dir):
        dirs[:] = [d for d in dirs if d not in (".git", "build", ".venv", "__pycache__")]
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), sub_dir)
            if rel == course_kit.VERSION_FILE or rel.endswith((".md", ".tar.gz", ".log")):
                continue  # the kit's own: its version stamp, its READMEs (rewritten for students)
            if rel not in course:
                found.append(f"{rel}: not a file of the course (ignored)")
                continue
            if rel.endswith(course_kit.SOURCE_EXT) and course_kit.regions(course_kit.parse(open(os.path.join(ROOT, rel)).read(), rel)):
                continue  # splice compares these outside their regions
            if open(os.path.join(sub_dir, rel), "rb").read() != open(os.path.join(ROOT, rel), "rb").read():
                found.append(f"{rel}: changed (ignored: the course's copy is graded)")
    return sorted(found)


def tail(path, lines=25):
    try:
        return "".join(open(path, errors="replace").readlines()[-lines:])
    except OSError:
        return ""


def has_gpu():
    return subprocess.run("nvidia-smi -L", shell=True, capture_output=True).returncode == 0


def bench_rows(path, mine):
    rows = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if mine(r["variant"]) and r.get("verified") == "yes":
                rows[(r["variant"], r["n"])] = float(r["median_ms"])
    return rows


def grade_performance(stage, tree, reference, out, env):
    weight, prog, mine = PERF[stage]
    benv = dict(env, BENCH_NS=os.environ.get("GRADE_BENCH_NS", "20 60 100"),
                BENCH_BYTES=os.environ.get("GRADE_BENCH_BYTES", str(256 << 20)))
    csvs = {}
    for who, where in (("reference", reference), ("submission", tree)):
        csvs[who] = os.path.join(out, f"bench-stage-{stage}-{who}.csv")
        if os.path.exists(csvs[who]):
            os.remove(csvs[who])
        benv["BENCH_CSV"] = csvs[who]
        sh(prog, where, os.path.join(out, f"bench-stage-{stage}-{who}.log"), env=benv, timeout=900)
    ref, sub = bench_rows(csvs["reference"], mine), bench_rows(csvs["submission"], mine)
    if not ref:
        return None, "the reference benchmark produced no verified row", csvs["submission"]
    logs = [math.log(ref[k] / sub[k]) if k in sub else math.log(1e-9) for k in ref]
    r = math.exp(sum(logs) / len(logs))
    missing = [f"{v} n={n}" for (v, n) in ref if (v, n) not in sub]
    pts = weight * min(1.0, r / FULL_AT)
    msg = (f"speed {r:.2f}x the reference solution over {len(ref)} verified rows (full points at {FULL_AT}x)"
           + (f"; no verified row for {len(missing)}: {', '.join(missing[:4])}" if missing else ""))
    return pts, msg, csvs["submission"]


def leaderboard_value(csv_path):
    best = {}
    if csv_path and os.path.exists(csv_path):
        for r in csv.DictReader(open(csv_path)):
            if r.get("verified") == "yes" and r.get("x_cusolver") and 20 <= int(r["n"]) <= 100:
                best[r["n"]] = max(best.get(r["n"], 0), float(r["x_cusolver"]))
    return math.exp(sum(math.log(v) for v in best.values()) / len(best)) if best else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--submission")
    ap.add_argument("--self", action="store_true", help="in a student's kit: grade the kit itself")
    ap.add_argument("--stage", type=int, action="append")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "grade"))
    a = ap.parse_args()
    for s in a.stage or []:
        if s not in STAGES:
            print(f"grade: STAGE={s}: the stages are 1..6", file=sys.stderr)
            return 2
    if a.self:
        return self_grade(a.stage or sorted(STAGES), os.path.abspath(a.out))
    if not a.submission:
        print("grade: --submission DIR (the student's kit folder), or --self in a kit", file=sys.stderr)
        return 2
    sub_dir = os.path.abspath(a.submission)
    if not os.path.isdir(sub_dir):
        print(f"grade: {a.submission}: not a directory (give the submitted kit's folder)", file=sys.stderr)
        return 2
    stages = a.stage or sorted(STAGES)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    # TEST_TIMEOUT_SCALE 2: the hidden variants add sizes, and a slower GPU than the course's must not
    # turn a right answer into a timeout.
    env = dict(os.environ, GRADE="1", GRADE_EXTRA="1", GRADE_SEED=os.environ.get("GRADE_SEED", "20170529"),
               GIT_COMMIT=f"{commit or 'unknown'} (grading)",
               TEST_TIMEOUT_SCALE=os.environ.get("TEST_TIMEOUT_SCALE", "2"))
    env.pop("TEST_RESULTS", None)
    jobs = os.environ.get("GRADE_JOBS", str(os.cpu_count() or 2))
    if not env.get("CCACHE") and shutil.which("ccache"):
        env["CCACHE"] = "ccache"  # the graded trees differ from each other in a few files
    gpu = has_gpu()

    need_ref = gpu and any(s in PERF for s in stages)
    reference = reference_tree(out, commit, jobs) if need_ref else None
    if need_ref and not reference:
        print("grade: the reference solution does not build; see build-reference.log", file=sys.stderr)
        return 2

    changed = changed_files(sub_dir)
    tests, table, notes = [], [], changed[:20] + ([f"... and {len(changed) - 20} more files changed (ignored)"]
                                                  if len(changed) > 20 else [])
    total = possible = 0.0
    lb_csv = None
    for stage in stages:
        suite = STAGES[stage]
        tree = os.path.join(out, suite)
        clean_course(tree)
        ignored = course_kit.splice(sub_dir, tree, tree, quiet=True, only=[course_kit.STAGE_DIRS[stage]])
        notes += [f"{suite}: {x}" for x in ignored]
        groups = read_points(os.path.join(tree, POINTS[stage]))
        print(f"== {suite}: building and testing (grading mode, hidden variants)", flush=True)
        built = sh(build_cmd(suite, jobs, PERF[stage][1] if stage in PERF and gpu else ""), tree,
                   os.path.join(out, f"build-{suite}.log"), env=env) == 0
        result = None
        broken = solution_policy.check(tree, stage) if built else []
        if broken:  # its tests are not run: the code would run inside them
            notes += [f"{suite}: {x}" for x in broken]
            print(f"{suite}: 0 points, the solution breaks the grading policy:\n  " + "\n  ".join(broken), flush=True)
        elif built:
            sh(f"make test-{suite}", tree, os.path.join(out, f"test-{suite}.log"), env=env)
            path = os.path.join(tree, "build", "test-results", f"{suite}.json")
            result = json.load(open(path)) if os.path.exists(path) else None
        log = os.path.join(out, f"test-{suite}.log" if built else f"build-{suite}.log")
        for g, (weight, what) in groups.items():
            row = next((x for x in (result or {}).get("groups", []) if x["group"] == g), None)
            pts = row["points"] if row else 0.0
            detail = (f"{row['passed']} of {row['planned']} tests passed" if row else
                      "did not compile: see the build log" if not built else
                      "not run: the solution breaks the grading policy (" + "; ".join(broken) + ")" if broken else
                      "the suite did not report")
            if row and row["failed"]:
                if row.get("first_failure"):
                    detail += ("\nfirst failing test of this group: " + row["first_failure"] + "\n  "
                               + row.get("first_failure_detail", ""))
                fails = [l for l in open(log, errors="replace") if l.startswith("FAIL")]
                detail += "\nfirst failures of the suite:\n" + "".join(fails[:5])
            if not built:
                detail += "\n" + tail(log)
            passed = bool(row) and row["failed"] == 0 and row["passed"] == row["planned"]
            tests.append({"name": f"{suite}: {g}", "score": round(pts, 3), "max_score": weight,
                          "status": "passed" if passed else "failed",
                          "output": f"{what}\n{detail}", "visibility": "visible"})
            total, possible = total + pts, possible + weight
            table.append((suite, g, pts, weight))
        if stage in PERF and built and not broken:
            weight = PERF[stage][0]
            if gpu:
                pts, msg, csv_path = grade_performance(stage, tree, reference, out, env)
                if stage == 4:
                    lb_csv = csv_path
            else:
                pts, msg = None, "no GPU on the grading machine: performance not measured"
            pts = pts or 0.0
            tests.append({"name": f"{suite}: performance", "score": round(pts, 3), "max_score": weight,
                          "status": "passed" if pts >= weight - 1e-9 else "failed", "output": msg, "visibility": "visible"})
            total, possible = total + pts, possible + weight
            table.append((suite, "performance", pts, weight))

    results = {"score": round(total, 3), "output": "\n".join(["Graded with the reference solution for every other stage."] + notes),
               "tests": tests, "stamp": environment_stamp()}
    lb = leaderboard_value(lb_csv)
    if lb is not None:
        results["leaderboard"] = [{"name": "geomean x cuSOLVER (n 20..100)", "value": round(lb, 3)}]
    return report(out, results, table, total, possible, notes)


def report(out, results, table, total, possible, notes):
    """results.json (Gradescope format) and the points table."""
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print()
    width = max([34] + [len(g) for _, g, _, _ in table])  # whole group names, however long
    print(f"{'stage':<9} {'learning goal':<{width}} {'points':>14}")
    for suite, g, pts, w in table:
        shown = ("instructor" if pts is None else "not run here" if pts == NOT_RUN else
                 f"{shown_points(pts)} / {w:g}" if w else "sanity")
        print(f"{suite:<9} {g:<{width}} {shown:>14}")
    print(f"{'total':<{width + 10}} {shown_points(total)} / {possible:g}")
    for x in notes:
        print(f"note: {x}")
    st = results["stamp"]
    print(f"GPU {st['gpu']}, {st['cuda']}, commit {st['commit']}; results: {os.path.join(out, 'results.json')}")
    return 0


NOT_RUN = "not run"  # a group whose every test was skipped here (no GPU): 0 points, shown as such

ONLY_THE_INSTRUCTOR = (
    "This is your grade for the tests this kit runs here: the points of make test-stage-N, stage by stage. "
    "The instructor's make grade runs the same tests and adds: hidden variants (other seeds; n = 5, 47, 97; "
    "batch 2049; chunk 17; 7 matrices per block), so an answer tuned to the visible sizes loses there; "
    "grading mode, where a test that could not run (no GPU) scores 0; each stage graded with the reference "
    "solution of the other stages; and the performance points of stages 4 and 5, your kernels timed against "
    "the reference solution's on the same GPU.")


def self_grade(stages, out):
    """make grade in a student's kit (no git, no reference solution): each stage's own suite, as
    make test-stage-N runs it, with the points an instructor's grade would give for those tests."""
    env = dict(os.environ)
    env.pop("TEST_RESULTS", None)
    env.pop("GRADE", None)
    if not env.get("CCACHE") and shutil.which("ccache"):
        env["CCACHE"] = "ccache"
    jobs = os.environ.get("GRADE_JOBS", str(os.cpu_count() or 2))
    os.makedirs(out, exist_ok=True)
    tests, table = [], []
    total = possible = not_run = 0.0
    build = os.environ.get("BUILD", "build")
    for stage in stages:
        suite = STAGES[stage]
        groups = read_points(os.path.join(ROOT, POINTS[stage]))
        print(f"== {suite}: building its programs (make build-{suite}; log in {os.path.relpath(out, ROOT)})", flush=True)
        log = os.path.join(out, f"build-{suite}.log")
        built = sh(build_cmd(suite, jobs), ROOT, log, env=env) == 0
        result = None
        for x in solution_policy.check(ROOT, stage) if built else []:
            print(f"warning: {x}\n  the instructor's make grade gives stage {stage} 0 points for this "
                  "(common/course/solution_policy.py says why)", flush=True)
        if built:
            # The suite's own output, without make's "*** Error 1" after a failing suite: the table says it.
            proc = subprocess.Popen(["make", "--no-print-directory", f"test-{suite}"], cwd=ROOT, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
            for line in proc.stdout:
                if not line.startswith("make: *** ") and not line.startswith("make[1]: *** "):
                    sys.stdout.write(line)
                    sys.stdout.flush()
            proc.wait()
            path = os.path.join(ROOT, build, "test-results", f"{suite}.json")
            result = json.load(open(path)) if os.path.exists(path) else None
        else:
            print(f"{suite} does not compile:\n{tail(log)}")
        for g, (weight, what) in groups.items():
            row = next((x for x in (result or {}).get("groups", []) if x["group"] == g), None)
            pts = row["points"] if row else 0.0
            detail = (f"{row['passed']} of {row['planned']} tests passed, {row['skipped']} not run here" if row else
                      "did not compile" if not built else "the suite did not report")
            tests.append({"name": f"{suite}: {g}", "score": round(pts, 3), "max_score": weight,
                          "status": "passed" if row and row["passed"] == row["planned"] else "failed",
                          "output": f"{what}\n{detail}", "visibility": "visible"})
            total, possible = total + pts, possible + weight
            skipped_all = row and row["planned"] > 0 and row["skipped"] == row["planned"]
            not_run += weight if skipped_all else 0
            table.append((suite, g, NOT_RUN if skipped_all else pts, weight))
        if stage in PERF:
            table.append((suite, "performance", None, PERF[stage][0]))
    results = {"score": round(total, 3), "output": ONLY_THE_INSTRUCTOR, "tests": tests, "stamp": environment_stamp()}
    notes = [f"not run here: {not_run:g} of the {possible:g} points (their tests need a GPU, or a tool this "
             "machine lacks); they count 0 in this total, and make grade on a GPU runs them"] if not_run else []
    report(out, results, table, total, possible, notes)
    print(textwrap.fill(ONLY_THE_INSTRUCTOR, 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
