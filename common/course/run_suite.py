#!/usr/bin/env python3
"""run_suite.py --suite NAME --points POINTS.tsv --results DIR [--timeout S] -- 'cmd' ['cmd' ...]

Runs one test suite so that its points can be trusted, and writes DIR/NAME.tsv (every test) and
DIR/NAME.json (points per group, with the GPU, driver, CUDA version, commit and time).

How a suite cannot gain points by dying: each test program first writes its plan (how many
tests each group will run; common/harness.h), then one record per test, then END. When a
program crashes, calls exit(), dies on a signal or runs past the suite's time limit, every
planned test that did not report becomes a FAIL with the reason ("crashed: ...", "timed out
after N s"), except in a group planned as GPU-only (harness_plan_gpu) on a machine without a GPU,
where those tests would have been skipped anyway: they count as not run; a group in POINTS.tsv that never even planned (its program died first, or never
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
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading_common import environment_stamp, read_points  # noqa: E402


def run_command(cmd, env, time_left, progress=None):
    """Run one command in its own process group, echoing its output. Returns (status, exit code,
    the last lines it printed); status is 'ok' (exit 0 or 1), 'crashed' or 'timeout'. progress(),
    when given, is called every PROGRESS_S seconds while the command runs (a line for long suites)."""
    proc = subprocess.Popen(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    tail = []

    def pump():
        for raw in proc.stdout:
            line = raw.decode(errors="replace")
            sys.stdout.write(line)
            sys.stdout.flush()
            tail.append(line.rstrip("\n"))
            del tail[:-200]  # a sanitizer's report is long; its first frames name the bug

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    deadline = time.monotonic() + max(time_left, 0.1)
    while True:
        try:
            rc = proc.wait(timeout=max(min(deadline - time.monotonic(), PROGRESS_S), 0.1))
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() < deadline:
                if progress:
                    progress()
                continue
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            reader.join(timeout=5)
            return "timeout", None, tail
    reader.join(timeout=5)
    if sanitizer_report(tail):
        return "crashed", rc, tail  # UBSan and LeakSanitizer can exit 1, like a failed test
    return ("ok" if rc in (0, 1) else "crashed"), rc, tail


PROGRESS_S = float(os.environ.get("TEST_PROGRESS_S") or 30)
COURSE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAN_ERROR = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer): .*|runtime error: .*")
FRAME = re.compile(r"#\d+ 0x[0-9a-f]+ in (\S+) (\S+?:\d+)")


def course_path(path):
    return os.path.relpath(path, COURSE) if path.startswith(COURSE + os.sep) else path


def sanitizer_report(tail):
    """'AddressSanitizer: heap-buffer-overflow in spotrf_serial at 01_serial/cholesky_serial.c:31:9'
    from a host sanitizer's report (make SAN=1, which builds with -g), or None. The frame named is
    the first one in a course file outside common/ (the student's code), else the first one."""
    for k, line in enumerate(tail):
        m = SAN_ERROR.search(line)
        if not m:
            continue
        if m.group(0).startswith("runtime error"):  # UBSan: 'path/file.c:12:5: runtime error: ...'
            where = course_path(line[:m.start()].strip().rstrip(":"))
            return f"UndefinedBehaviorSanitizer: {m.group(0)[len('runtime error: '):][:160]} at {where}"
        what = m.group(0)[len("ERROR: "):].split(" on address")[0].split(" (")[0][:120]
        frames = [f for f in (FRAME.search(x) for x in tail[k + 1:k + 80]) if f]
        mine = [f for f in frames if f.group(2).startswith(COURSE + os.sep)]
        student = [f for f in mine if not course_path(f.group(2)).startswith("common/")]
        best = (student or mine or frames or [None])[0]
        return what + (f" in {best.group(1)} at {course_path(best.group(2))}" if best else "")
    return None


def crash_reason(rc, tail):
    san = sanitizer_report(tail)
    if san:
        return f"crashed: {san}"
    if rc is not None and rc < 0:
        try:
            what = f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            what = f"killed by signal {-rc}"
    else:
        what = f"exit status {rc}"
    # The most telling line it printed: an error message if there is one.
    hints = [t for t in tail[-20:] if any(k in t for k in ("error", "Error", "ERROR", "Assertion", "misuse", "FAILED"))]
    return f"crashed: {what}" + (f" ({hints[-1][:200]})" if hints else "")


GPU_GROUPS = set()  # groups planned with harness_plan_gpu (parse_records)


def gpu_here():
    """1 when nvidia-smi lists a GPU on this machine."""
    if not hasattr(gpu_here, "answer"):
        try:
            r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
            gpu_here.answer = r.returncode == 0 and "GPU" in r.stdout
        except (OSError, subprocess.SubprocessError):
            gpu_here.answer = False
    return gpu_here.answer


def parse_records(path):
    """PLAN / START / TEST / END records -> (plans, tests, ended, running); running is (group, name)
    of a test that started (harness_start) and never reported, or None."""
    plans, tests, ended, running = {}, [], False, None
    if not os.path.exists(path):
        return plans, tests, ended, running

    with open(path, errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "PLAN" and len(p) >= 3:
                plans[p[1]] = plans.get(p[1], 0) + int(p[2])
                if len(p) >= 4 and p[3] == "gpu":  # harness_plan_gpu: runs on a GPU only
                    GPU_GROUPS.add(p[1])
            elif p[0] == "START" and len(p) >= 3:
                running = (p[1], p[2])
            elif p[0] == "TEST" and len(p) >= 4:
                tests.append({"group": p[1], "name": p[2], "status": p[3], "detail": p[4] if len(p) > 4 else ""})
                running = None
            elif p[0] == "END":
                ended = True
    return plans, tests, ended, running


def where_it_stopped(plans, tests, running):
    """(group, words) for the test a hang or crash happened in: the one that started and never
    reported, or else the one after the last that reported."""
    if running:
        return running[0], f"in test '{running[1]}'"
    if not tests:
        first = next(iter(plans), None)
        return first, (f"in the first test of group '{first}'" if first else "before planning its tests")
    last = tests[-1]
    done = sum(1 for t in tests if t["group"] == last["group"])
    if done < plans.get(last["group"], 0):
        return last["group"], f"in test {done + 1} of {plans[last['group']]} of '{last['group']}' (after '{last['name']}')"
    return None, f"in the test after '{last['name']}'"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--points", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    # The suite's limit: about ten times its normal time, so a hang is told in seconds, not minutes;
    # TEST_TIMEOUT_SCALE stretches it for slow builds (make SAN=1, DEBUG=1), TEST_TIMEOUT replaces it.
    timeout = float(os.environ.get("TEST_TIMEOUT") or a.timeout * float(os.environ.get("TEST_TIMEOUT_SCALE") or 1))
    grading = os.environ.get("GRADE", "") not in ("", "0")
    groups = read_points(a.points)
    os.makedirs(a.results, exist_ok=True)

    plans, tests, problems = {}, [], []
    start = time.monotonic()
    print(f"== {a.suite}: time limit {timeout:g} s (a hang fails there; TEST_TIMEOUT=S sets another)", flush=True)
    for k, cmd in enumerate(a.commands):
        rec = os.path.join(a.results, f".{a.suite}.{k}.records")
        if os.path.exists(rec):
            os.remove(rec)
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            problems.append(f"'{cmd}' not started: the suite's {timeout:g} s were used up")
            continue
        env = dict(os.environ, TEST_RESULTS=rec)

        def progress(rec=rec, cmd=cmd):  # long suites: a line every PROGRESS_S seconds
            p, t, _, running = parse_records(rec)
            now = f"; now {running[1]}" if running else ""
            print(f"..... {a.suite}: {sum(p.values())} planned, {len(t)} done, "
                  f"{time.monotonic() - start:.0f} of {timeout:g} s{now}", flush=True)

        status, rc, tail = run_command(cmd, env, left, progress)
        p, t, ended, running = parse_records(rec)
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
        hung_group = culprit = None
        if reason:  # name the test it happened in: the first unreported test is that one
            hung_group, where = where_it_stopped(p, t, running)
            culprit = running[1] if running else None
            reason += f" {where}" + (" (the suite's time limit; TEST_TIMEOUT=S sets another)" if status == "timeout" else "")
        # Every planned test that never reported is a FAIL with the reason.
        for g, n in p.items():
            got = sum(1 for x in t if x["group"] == g)
            for i in range(got, n):
                name = f"{g} (planned test {i + 1} of {n})"
                if reason and g == hung_group and i == got and culprit:
                    name = culprit
                if g in GPU_GROUPS and not gpu_here():  # it would have been skipped here: not the crash's
                    t.append({"group": g, "name": name, "status": "SKIP",
                              "detail": f"not run: needs a GPU, none here (and the program stopped before it: "
                                        f"{reason or 'fewer tests reported than planned'})"})
                    continue
                t.append({"group": g, "name": name, "status": "FAIL",
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
        # More results than the program planned are not the harness's own (it refuses extra tests):
        # someone wrote records, and extra PASS lines would dilute the real FAILs. The group scores 0.
        forged = g in plans and len(mine) > plans[g]
        if forged:
            print(f"FAIL  {a.suite}: {g}: {len(mine)} results for {plans[g]} planned tests: records not written by "
                  "the harness; the group scores 0", flush=True)
        rows.append({"group": g, "what": what, "weight": weight, "planned": planned, "passed": c["PASS"],
                     "failed": c["FAIL"] + (1 if forged else 0), "skipped": c["SKIP"],
                     "points": 0.0 if forged else weight * c["PASS"] / planned,
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
