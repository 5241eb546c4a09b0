#!/usr/bin/env python3
"""run_suite.py --suite NAME --points POINTS.tsv --results DIR [--timeout S] -- 'cmd' ['cmd' ...]

Runs one test suite so that its points can be trusted, and writes DIR/NAME.tsv (every test) and
DIR/NAME.json (points per group, with the GPU, driver, CUDA version, commit and time).

How a suite cannot gain points by dying: each test program first writes its plan (how many
tests each group will run; common/harness.h), then one record per test, then END. When a
program crashes, calls exit(), dies on a signal or runs past the suite's time limit, every
planned test that did not report becomes a FAIL with the reason ("crashed: ...", "timed out
after N s"); a group in POINTS.tsv that never even planned (its program died first, or never
started) fails as a whole, and so does a group that planned no tests at all (a check that found
nothing to check cannot fail, so it may not pass). The time limit (--timeout, or TEST_TIMEOUT in the environment) is
enforced here, by killing the program's whole process group, not by the code under test.

Modes: by default (students) a skipped test (no GPU here) is shown as not run and earns nothing;
with GRADE=1 (instructors) a skipped test is recorded as a FAIL, so a grade never depends on
what the machine could run. Either way the possible total is the same on every machine.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading_common import environment_stamp, read_points  # noqa: E402


def run_command(cmd, env, time_left):
    """Run one command in its own process group, echoing its output. Returns (status, exit code,
    the last lines it printed); status is 'ok' (exit 0 or 1), 'crashed' or 'timeout'."""
    proc = subprocess.Popen(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    tail = []

    def pump():
        for raw in proc.stdout:
            line = raw.decode(errors="replace")
            sys.stdout.write(line)
            sys.stdout.flush()
            tail.append(line.strip())
            del tail[:-20]

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        rc = proc.wait(timeout=max(time_left, 0.1))
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        reader.join(timeout=5)
        return "timeout", None, tail
    reader.join(timeout=5)
    return ("ok" if rc in (0, 1) else "crashed"), rc, tail


def crash_reason(rc, tail):
    if rc is not None and rc < 0:
        try:
            what = f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            what = f"killed by signal {-rc}"
    else:
        what = f"exit status {rc}"
    # The most telling line it printed: an error message if there is one.
    hints = [t for t in tail if any(k in t for k in ("error", "Error", "ERROR", "Assertion", "misuse", "FAILED"))]
    return f"crashed: {what}" + (f" ({hints[-1][:200]})" if hints else "")


def parse_records(path):
    plans, tests, ended = {}, [], False
    if not os.path.exists(path):
        return plans, tests, ended
    with open(path, errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "PLAN" and len(p) >= 3:
                plans[p[1]] = plans.get(p[1], 0) + int(p[2])
            elif p[0] == "TEST" and len(p) >= 4:
                tests.append({"group": p[1], "name": p[2], "status": p[3], "detail": p[4] if len(p) > 4 else ""})
            elif p[0] == "END":
                ended = True
    return plans, tests, ended


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    timeout = float(os.environ.get("TEST_TIMEOUT") or a.timeout)
    grading = os.environ.get("GRADE", "") not in ("", "0")
    groups = read_points(a.points)
    os.makedirs(a.results, exist_ok=True)

    plans, tests, problems = {}, [], []
    start = time.monotonic()
    for k, cmd in enumerate(a.commands):
        rec = os.path.join(a.results, f".{a.suite}.{k}.records")
        if os.path.exists(rec):
            os.remove(rec)
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            problems.append(f"'{cmd}' not started: the suite's {timeout:g} s were used up")
            continue
        env = dict(os.environ, TEST_RESULTS=rec)
        status, rc, tail = run_command(cmd, env, left)
        p, t, ended = parse_records(rec)
        if os.path.exists(rec):
            os.remove(rec)
        if status == "timeout":
            reason = f"timed out after {timeout:g} s"
        elif status == "crashed":
            reason = crash_reason(rc, tail)
        elif not ended:
            reason = f"ended without reporting its end (exit status {rc}: exit() called early?)"
        else:
            reason = None
        # Every planned test that never reported is a FAIL with the reason.
        for g, n in p.items():
            got = sum(1 for x in t if x["group"] == g)
            for i in range(got, n):
                t.append({"group": g, "name": f"{g} (planned test {i + 1} of {n})", "status": "FAIL",
                          "detail": f"did not run: {reason or 'the program reported fewer tests than it planned'}"})
        if reason:
            print(f"FAIL  {a.suite}: '{cmd}' {reason}")
            problems.append(f"'{cmd}' {reason}")
        for g, n in p.items():
            plans[g] = plans.get(g, 0) + n
        tests += t

    # Groups that never planned: their program never got going.
    why = "; ".join(problems) or "no program planned this group"
    for g in groups:
        if g not in plans:
            plans[g] = 1
            tests.append({"group": g, "name": f"{g} (whole group)", "status": "FAIL", "detail": f"never ran: {why}"})
            print(f"FAIL  {a.suite}: group '{g}' never ran ({why})")
        elif plans[g] == 0 and not any(t["group"] == g for t in tests):
            # A check that found nothing to check (no README, no program) cannot fail: it fails here.
            plans[g] = 1
            tests.append({"group": g, "name": f"{g} (whole group)", "status": "FAIL",
                          "detail": "planned no tests: it found nothing to check"})
            print(f"FAIL  {a.suite}: group '{g}' planned no tests (it found nothing to check)")
    if not tests:
        tests.append({"group": "(suite)", "name": f"{a.suite} (whole suite)", "status": "FAIL",
                      "detail": "the suite ran no tests at all"})
        print(f"FAIL  {a.suite}: the suite ran no tests at all")
    for t in tests:
        if t["group"] not in groups:
            t["status"], t["detail"] = "FAIL", f"group '{t['group']}' is not in {a.points}: " + t["detail"]
        if grading and t["status"] == "SKIP":
            t["status"], t["detail"] = "FAIL", "not run (grading mode): " + t["detail"]

    rows = []
    # A group the program reported but points.tsv lacks gets a row of its own (0 points), so that
    # its tests (all failed above) count in the totals instead of vanishing from them.
    unknown = {t["group"]: (0.0, f"not in {a.points}") for t in tests if t["group"] not in groups}
    for g, (weight, what) in list(groups.items()) + list(unknown.items()):
        mine = [t for t in tests if t["group"] == g]
        c = {s: sum(1 for t in mine if t["status"] == s) for s in ("PASS", "FAIL", "SKIP")}
        planned = max(plans.get(g, 0), len(mine), 1)
        rows.append({"group": g, "what": what, "weight": weight, "planned": planned, "passed": c["PASS"],
                     "failed": c["FAIL"], "skipped": c["SKIP"], "points": weight * c["PASS"] / planned,
                     "points_not_run": weight * c["SKIP"] / planned,
                     "first_failure": next((t["name"] for t in mine if t["status"] == "FAIL"), ""),
                     "first_failure_detail": next((t["detail"][:200] for t in mine if t["status"] == "FAIL"), "")})
    with open(os.path.join(a.results, f"{a.suite}.tsv"), "w") as f:
        for t in tests:
            f.write("\t".join([a.suite, t["group"], t["name"], t["status"], t["detail"]]) + "\n")
    with open(os.path.join(a.results, f"{a.suite}.json"), "w") as f:
        json.dump({"suite": a.suite, "mode": "grading" if grading else "student", "timeout_s": timeout,
                   "elapsed_s": round(time.monotonic() - start, 1), "problems": problems, "groups": rows,
                   "stamp": environment_stamp()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
