#!/usr/bin/env python3
"""grade_class.py --submissions DIR [--stage N ...] [--out build/class] [--slurm | --local] - grade a class.

Every entry of DIR is one student's submission: a folder (the submitted kit) or a FILE.tar.gz of
one; its name (without .tar.gz) is the student's id. Each is graded exactly as `make grade` grades
one (grade.py: the same policy, hidden variants, time limits, the reference timed in the same job).

  --local   the submissions run in parallel, one per visible GPU (CUDA_VISIBLE_DEVICES per worker);
            without a GPU one at a time on the CPU, the GPU points 0, as make grade gives them.
  --slurm   one Slurm job array, a task per submission, one GPU each (--gres, --partition,
            --account; the time limit per task from the suites' limits), then a dependent job that
            collects. Default: --slurm when sbatch is on PATH, else --local.

Resumable: a submission graded before with the same content (its hash) and the same course commit
is not graded again. A task that failed, was cancelled or ran out of time is reported as such (0
points and the reason), never dropped. The collection writes OUT/grades.csv, OUT/summary.md, every
student's OUT/<id>/results.json, and the class leaderboard over the verified bench rows, per GPU.

Internal steps (what the workers and the Slurm tasks run): `task --out OUT --index I` grades
submission I of OUT/manifest.json; `collect --out OUT` writes the tables.
"""
import argparse
import concurrent.futures
import csv
import glob
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import grade  # noqa: E402  (its STAGES, POINTS and PERF: one definition of what is graded)

BUILD_ALLOWANCE = 900      # seconds to build one stage's tree
DEFAULT_SUITE_TIMEOUT = 1800


def course_commit():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return (head or "unknown") + ("-dirty" if dirty else "")


def content_hash(path):
    """sha256 of a submission: a tarball's bytes, or a folder's files (relative names and bytes)."""
    h = hashlib.sha256()
    if os.path.isfile(path):
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in ("build", ".git", ".venv"))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            if os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def list_submissions(folder):
    subs = []
    for name in sorted(os.listdir(folder)):
        full = os.path.join(folder, name)
        if name.startswith("."):
            continue
        if os.path.isdir(full):
            subs.append({"id": name, "path": os.path.abspath(full)})
        elif name.endswith(".tar.gz") or name.endswith(".tgz"):
            subs.append({"id": re.sub(r"\.(tar\.gz|tgz)$", "", name), "path": os.path.abspath(full)})
    ids = [s["id"] for s in subs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise SystemExit(f"grade-class: two submissions for {', '.join(dup)} (a folder and a tarball?)")
    return subs


def suite_timeouts():
    """SUITE_TIMEOUT_stage-N from the stages' stage.mk (the default where a stage sets none)."""
    limits = {}
    for mk in glob.glob(os.path.join(ROOT, "*", "stage.mk")):
        for m in re.finditer(r"^SUITE_TIMEOUT_(stage-\d+)\s*:?=\s*(\d+)", open(mk).read(), re.M):
            limits[m.group(1)] = int(m.group(2))
    return limits


def task_seconds(stages):
    """The most one submission's grading may take: per stage its build and its suite's limit, and
    the two benchmarks (reference and submission) where performance is graded."""
    limits = suite_timeouts()
    total = 0
    for s in stages:
        total += BUILD_ALLOWANCE + limits.get(grade.STAGES[s], DEFAULT_SUITE_TIMEOUT)
        if s in grade.PERF:
            total += 2 * 900
    return total


def visible_gpus():
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [g for g in env.split(",") if g.strip() and g.strip() != "-1"]
    out = subprocess.run("nvidia-smi -L", shell=True, capture_output=True, text=True)
    return [str(i) for i, _ in enumerate(out.stdout.splitlines())] if out.returncode == 0 else []


# ---- one submission -------------------------------------------------------------------------

def unpack(sub, dest):
    """The submission's kit folder: as it is, or extracted from its tarball (one top folder or none)."""
    if os.path.isdir(sub["path"]):
        return sub["path"]
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(sub["path"]) as t:
        if hasattr(tarfile, "data_filter"):
            t.extractall(dest, filter="data")   # no absolute paths, no .., no devices
        else:
            for m in t.getmembers():
                if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                    raise ValueError(f"unsafe member {m.name}")
            t.extractall(dest)
    entries = [e for e in os.listdir(dest) if not e.startswith(".")]
    if len(entries) == 1 and os.path.isdir(os.path.join(dest, entries[0])):
        return os.path.join(dest, entries[0])
    return dest


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


def run_task(out, index):
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    sub = manifest["submissions"][index]
    sdir = os.path.join(out, sub["id"])
    os.makedirs(sdir, exist_ok=True)
    status_path = os.path.join(sdir, "status.json")
    for stale in ("results.json", "status.json"):
        if os.path.exists(os.path.join(sdir, stale)):
            os.remove(os.path.join(sdir, stale))
    start = time.time()
    host = os.uname().nodename
    write_json(status_path, {"status": "running", "key": sub["key"], "host": host, "started": start})
    status = {"key": sub["key"], "host": host, "gpu": os.environ.get("CUDA_VISIBLE_DEVICES", "")}
    try:
        kit = unpack(sub, os.path.join(sdir, "submission"))
    except (tarfile.TarError, OSError, ValueError) as e:
        status.update(status="failed", reason=f"the submission could not be unpacked: {e}", seconds=0)
        write_json(status_path, status)
        return 1
    cmd = [sys.executable, os.path.join(HERE, "grade.py"), "--submission", kit, "--out", os.path.join(sdir, "grade")]
    for s in manifest["stages"]:
        cmd += ["--stage", str(s)]
    env = dict(os.environ)
    env.setdefault("GRADE_REFERENCE_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                       f"course-reference-{manifest['commit'][:12]}"))
    log = os.path.join(sdir, "grade.log")
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, env=env,
                                timeout=manifest["task_seconds"]).returncode
            why = f"grade.py exited with status {rc}" if rc else ""
        except subprocess.TimeoutExpired:
            rc, why = 124, f"over the task's time limit of {manifest['task_seconds']} s"
    results = os.path.join(sdir, "grade", "results.json")
    status["seconds"] = round(time.time() - start, 1)
    if rc == 0 and os.path.exists(results):
        shutil.copy2(results, os.path.join(sdir, "results.json"))
        r = json.load(open(results))
        status.update(status="graded", score=r["score"], gpu=r.get("stamp", {}).get("gpu", ""))
    else:
        status.update(status="failed", reason=(why or "no results.json") + "; see " + os.path.relpath(log, out))
    write_json(status_path, status)
    return 0 if status["status"] == "graded" else 1


# ---- the class ------------------------------------------------------------------------------

def slurm_reason(sdir):
    """What Slurm wrote about a task that ended without a result (cancelled, time limit, node)."""
    for log in sorted(glob.glob(os.path.join(sdir, "slurm-*.out"))):
        for line in open(log, errors="replace"):
            m = re.search(r"\*\*\* (?:JOB|STEP) \S+ ON \S+ (CANCELLED|DUE TO TIME LIMIT|DUE TO NODE FAILURE|DUE TO PREEMPTION)"
                          r"(.*?)\*\*\*", line)
            if m:
                return f"Slurm: {m.group(1).lower()}{m.group(2).rstrip()}"
    return ""


def student_outcome(out, sub):
    sdir = os.path.join(out, sub["id"])
    try:
        st = json.load(open(os.path.join(sdir, "status.json")))
    except (OSError, ValueError):
        st = {"status": "missing"}
    if st.get("status") == "graded" and st.get("key") == sub["key"] and os.path.exists(os.path.join(sdir, "results.json")):
        return st, json.load(open(os.path.join(sdir, "results.json")))
    if st.get("status") == "failed" and st.get("key") == sub["key"]:
        return st, None
    reason = slurm_reason(sdir) or ("the task started but ended without a result (killed?)" if st.get("status") == "running"
                                    else "the task never ran")
    return {"status": "failed", "reason": reason, "seconds": "", "gpu": st.get("gpu", "")}, None


def first_failure(test):
    """The name of the group's first failing test (grade.py writes it into the test's output)."""
    out = test.get("output", "")
    m = re.search(r"first failing test of this group: ([^\n]*)", out)
    if m:
        return m.group(1).strip()
    if "did not compile" in out:
        return "did not compile"
    return "the suite did not report" if "did not report" in out else ""


def collect(out):
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    rows, groups = [], []
    for sub in manifest["submissions"]:
        st, res = student_outcome(out, sub)
        row = {"student": sub["id"], "status": st["status"], "total": "", "max": "", "gpu": st.get("gpu", ""),
               "seconds": st.get("seconds", ""), "reason": st.get("reason", "")}
        if res:
            row["total"] = res["score"]
            row["max"] = round(sum(t["max_score"] for t in res["tests"]), 3)
            for t in res["tests"]:
                if t["name"] not in groups:
                    groups.append(t["name"])
                row[t["name"]] = t["score"]
            row["_tests"] = res["tests"]
        rows.append(row)
    stages = sorted({g.split(":")[0] for g in groups}, key=lambda s: int(s.split("-")[1]))
    for row in rows:
        for s in stages:
            row[s] = round(sum(row[g] for g in groups if g.startswith(s + ":") and g in row), 3) if row["total"] != "" else ""
    fields = ["student", "status", "total", "max"] + stages + groups + ["gpu", "seconds", "reason"]
    with open(os.path.join(out, "grades.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)

    graded = [r for r in rows if r["status"] == "graded"]
    failed = [r for r in rows if r["status"] != "graded"]
    lines = [f"# Class grades ({len(rows)} submissions: {len(graded)} graded, {len(failed)} failed)", "",
             f"Course commit {manifest['commit']}, stages {', '.join(map(str, manifest['stages']))}; per student: "
             f"`{os.path.basename(out)}/<id>/results.json`; the table: `grades.csv`.", ""]
    if graded and all(r["gpu"] in ("", "none") for r in graded):
        lines += ["Graded without a GPU: every group that needs one scores 0 for everyone (as make grade).", ""]
    if failed:
        lines += ["## Not graded (0 points)", "", "| student | reason |", "| --- | --- |"]
        lines += [f"| {r['student']} | {r['reason']} |" for r in failed] + [""]
    for s in stages:
        totals = [r[s] for r in graded]
        gmax = [g for g in groups if g.startswith(s + ":")]
        smax = next((round(sum(t["max_score"] for t in r["_tests"] if t["name"] in gmax), 3) for r in graded), 0)
        lines += [f"## {s}: mean {statistics.mean(totals):.1f}, median {statistics.median(totals):.1f} of {smax:g}"
                  if totals else f"## {s}: nobody graded", ""]
        fails = []
        for g in gmax:
            tests = [t for r in graded for t in r["_tests"] if t["name"] == g]
            bad = [t for t in tests if t["status"] != "passed"]
            if bad and tests[0]["max_score"] > 0:
                firsts = [first_failure(t) for t in bad if first_failure(t)]
                common = max(set(firsts), key=firsts.count) if firsts else "-"
                fails.append((len(bad), g.split(": ", 1)[1], common))
        if fails:
            lines += ["| group | students who lost points | most common first failing test |", "| --- | ---: | --- |"]
            lines += [f"| {g} | {k} of {len(graded)} | {c} |" for k, g, c in sorted(fails, reverse=True)] + [""]
        elif totals:
            lines += ["Every graded student has every point of this stage.", ""]
    benches = sorted(glob.glob(os.path.join(out, "*", "grade", "bench-stage-4-submission.csv")))
    if benches:
        rc = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "leaderboard", "CSVS=" + " ".join(benches)],
                            capture_output=True, text=True)
        lines += ["## Leaderboard", "", "`make leaderboard` over every student's verified stage 04 rows, per GPU model: "
                  + ("build/leaderboard.png" if rc.returncode == 0 else "could not be drawn: " + rc.stderr.strip()[-200:]), ""]
    else:
        lines += ["## Leaderboard", "", "No verified stage 04 benchmark rows (stage 4 not graded, or no GPU): no leaderboard.", ""]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print(f"grade-class: wrote {os.path.join(out, 'grades.csv')} and summary.md")
    return 0 if not failed else 1


def prepare(a):
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    stages = sorted(set(a.stage or grade.STAGES))
    commit = course_commit()
    subs = list_submissions(a.submissions)
    if not subs:
        raise SystemExit(f"grade-class: {a.submissions}: no submission (folders or .tar.gz files) in it")
    for s in subs:
        s["key"] = hashlib.sha256(f"{content_hash(s['path'])} {commit} {stages}".encode()).hexdigest()[:16]
    manifest = {"commit": commit, "stages": stages, "submissions": subs, "task_seconds": task_seconds(stages)}
    write_json(os.path.join(out, "manifest.json"), manifest)
    pending = []
    for i, s in enumerate(subs):
        try:
            st = json.load(open(os.path.join(out, s["id"], "status.json")))
        except (OSError, ValueError):
            st = {}
        if st.get("status") == "graded" and st.get("key") == s["key"]:
            print(f"grade-class: {s['id']}: graded before with the same content and course commit: kept")
        else:
            pending.append(i)
    return out, manifest, pending


def run_local(out, manifest, pending):
    gpus = visible_gpus()
    # One worker per GPU; GRADE_CLASS_WORKERS=N more (they then share GPUs: builds overlap tests,
    # but a shared GPU makes the performance points noisier).
    workers = max(1, int(os.environ.get("GRADE_CLASS_WORKERS", len(gpus) or 1)))
    slots = [gpus[k % len(gpus)] for k in range(workers)] if gpus else [None] * workers
    cpus = os.cpu_count() or 2
    print(f"grade-class: {len(pending)} to grade here, {workers} at a time "
          f"({'GPUs ' + ', '.join(slots) if gpus else 'no GPU: the GPU points are 0'})", flush=True)
    free = list(range(len(slots)))

    def one(i):
        slot = free.pop()
        env = dict(os.environ, GRADE_JOBS=str(max(1, cpus // len(slots))))
        if slots[slot] is not None:
            env["CUDA_VISIBLE_DEVICES"] = slots[slot]
        try:
            rc = subprocess.run([sys.executable, os.path.abspath(__file__), "task", "--out", out, "--index", str(i)],
                                cwd=ROOT, env=env).returncode
        finally:
            free.append(slot)
        print(f"grade-class: {manifest['submissions'][i]['id']}: {'graded' if rc == 0 else 'FAILED'}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(slots)) as pool:
        list(pool.map(one, pending))


def run_slurm(out, manifest, pending, a):
    sdir = os.path.join(out, "slurm")
    os.makedirs(sdir, exist_ok=True)
    minutes = (manifest["task_seconds"] + 59) // 60
    opts = [f"--time={a.time or minutes}"]
    if a.gres:
        opts.append(f"--gres={a.gres}")
    if a.partition:
        opts.append(f"--partition={a.partition}")
    if a.account:
        opts.append(f"--account={a.account}")
    opts.append(f"--cpus-per-task={a.cpus}")
    py = sys.executable
    with open(os.path.join(sdir, "grade.sbatch"), "w") as f:
        f.write("#!/bin/bash\n# One task of the class: submission $SLURM_ARRAY_TASK_ID of manifest.json (grade_class.py).\n"
                "#SBATCH --job-name=grade-class\n"
                + "".join(f"#SBATCH {o}\n" for o in opts)
                + f"cd {ROOT}\nexport GRADE_JOBS=${{SLURM_CPUS_PER_TASK:-2}}\n"
                f"exec {py} {os.path.abspath(__file__)} task --out {out} --index $SLURM_ARRAY_TASK_ID\n")
    for i in pending:  # a new attempt: the last one's Slurm log goes
        for old in glob.glob(os.path.join(out, manifest["submissions"][i]["id"], "slurm-*.out")):
            os.remove(old)
        os.makedirs(os.path.join(out, manifest["submissions"][i]["id"]), exist_ok=True)
    array = ",".join(map(str, pending))
    # Slurm cannot name a log after the student: the collection moves each task's log beside its
    # student's results (attach_slurm_logs).
    cmd = ["sbatch", "--parsable", f"--array={array}", f"--output={os.path.join(sdir, 'slurm-%A_%a.out')}",
           os.path.join(sdir, "grade.sbatch")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"grade-class: sbatch refused the array: {r.stderr.strip()}", file=sys.stderr)
        return 2
    job = r.stdout.strip().split(";")[0]
    with open(os.path.join(sdir, "array_job"), "w") as f:
        f.write(f"{job} {array}\n")
    print(f"grade-class: Slurm job array {job}: {len(pending)} tasks ({' '.join(opts)})", flush=True)
    collect_cmd = ["sbatch", "--parsable", f"--dependency=afterany:{job}", "--job-name=grade-class-collect",
                   f"--output={os.path.join(sdir, 'collect-%j.out')}", "--time=30", "--cpus-per-task=1"]
    if a.partition:
        collect_cmd.append(f"--partition={a.partition}")
    if a.account:
        collect_cmd.append(f"--account={a.account}")
    if a.wait:
        collect_cmd.append("--wait")
    collect_cmd += ["--wrap", f"cd {ROOT} && {py} {os.path.abspath(__file__)} collect --out {out} --slurm-job {job}"]
    r = subprocess.run(collect_cmd, capture_output=not a.wait, text=True)
    if not a.wait:
        print(f"grade-class: the collection runs after the array as job {r.stdout.strip()}; then see {out}/summary.md")
        return 0 if r.returncode == 0 else 2
    return None


def attach_slurm_logs(out, job):
    """Slurm's log of each array task, moved beside its student's results."""
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    for log in glob.glob(os.path.join(out, "slurm", f"slurm-{job}_*.out")):
        i = int(re.search(r"_(\d+)\.out$", log).group(1))
        shutil.move(log, os.path.join(out, manifest["submissions"][i]["id"], os.path.basename(log)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", nargs="?", default="class", choices=["class", "task", "collect"])
    ap.add_argument("--submissions")
    ap.add_argument("--stage", type=int, action="append", choices=sorted(grade.STAGES))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "class"))
    ap.add_argument("--index", type=int)
    ap.add_argument("--slurm-job")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--slurm", dest="slurm", action="store_true", default=None)
    mode.add_argument("--local", dest="slurm", action="store_false")
    ap.add_argument("--partition", default=os.environ.get("SLURM_PARTITION", ""))
    ap.add_argument("--account", default=os.environ.get("SLURM_ACCOUNT", ""))
    ap.add_argument("--gres", default=os.environ.get("SLURM_GRES", "gpu:1"), help="'' on a cluster without GPUs")
    ap.add_argument("--cpus", type=int, default=int(os.environ.get("SLURM_CPUS", "8")))
    ap.add_argument("--time", type=int, default=0, help="minutes per task (default: from the suites' limits)")
    ap.add_argument("--no-wait", dest="wait", action="store_false")
    a = ap.parse_args()
    if a.step == "task":
        return run_task(os.path.abspath(a.out), a.index)
    if a.step == "collect":
        if a.slurm_job:
            attach_slurm_logs(os.path.abspath(a.out), a.slurm_job)
        return collect(os.path.abspath(a.out))
    if not a.submissions or not os.path.isdir(a.submissions):
        print(f"grade-class: give SUBMISSIONS=DIR, a folder of submissions (got {a.submissions!r})", file=sys.stderr)
        return 2
    out, manifest, pending = prepare(a)
    slurm = a.slurm if a.slurm is not None else shutil.which("sbatch") is not None
    print(f"grade-class: {len(manifest['submissions'])} submissions, stages {manifest['stages']}, "
          f"{'Slurm' if slurm else 'this machine'}; at most {manifest['task_seconds']} s each", flush=True)
    if pending and slurm:
        rc = run_slurm(out, manifest, pending, a)
        if rc is not None:
            return rc
        summary = os.path.join(out, "summary.md")
        if not os.path.exists(summary):
            print("grade-class: the collection job wrote no summary; see " + os.path.join(out, "slurm"), file=sys.stderr)
            return 2
        print(open(summary).read())
        rows = list(csv.DictReader(open(os.path.join(out, "grades.csv"))))
        return 0 if all(r["status"] == "graded" for r in rows) else 1
    if pending:
        run_local(out, manifest, pending)
    return collect(out)


if __name__ == "__main__":
    sys.exit(main())
