"""grading_common.py - what the test runner, the summary and the grader share: reading a stage's
points table, and the environment stamp (GPU, driver, CUDA, commit, time) every result carries."""
import datetime
import math
import os
import subprocess


def read_points(path):
    """points.tsv: one line per group, 'group<TAB>weight<TAB>what it grades'; '#' comments.
    Returns {group: (weight, what)} in file order."""
    groups = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            p = line.rstrip("\n").split("\t")
            groups[p[0]] = (float(p[1]), p[2] if len(p) > 2 else "")
    return groups


def shown_points(x):
    """Points as printed, to one decimal, rounded DOWN: 14.98 of 15 shows as 14.9, never as a full-looking
    15.0 (a run with a failure must not print a full total). The results files keep three decimals."""
    return f"{math.floor(x * 10 + 1e-6) / 10:5.1f}"


def _cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def environment_stamp():
    gpu = _cmd(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"])
    first = [x.strip() for x in gpu.splitlines()[0].split(",")] if gpu else []
    nvcc = [x for x in _cmd(["nvcc", "--version"]).splitlines() if "release" in x]
    commit = os.environ.get("GIT_COMMIT") or _cmd(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    return {"gpu": first[0] if first else "none", "driver": first[1] if len(first) > 1 else "",
            "compute_capability": first[2] if len(first) > 2 else "",
            "cuda": "CUDA " + nvcc[-1].split("release")[-1].split(",")[0].strip() if nvcc else "", "commit": commit,
            "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
