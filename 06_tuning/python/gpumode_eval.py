"""gpumode_eval.py - run gpu-mode's own evaluator (reference-kernels, problems/linalg/cholesky_py) on
this package, as a contestant's submission would be run: its eval.py, reference.py (inputs and the
check), task.py and pmpp_v2/utils.py from a checkout you give, and a submission.py that calls
course_cholesky.cholesky_ex(A, precision=...). Nothing of gpu-mode's is kept in this repository.

  git clone https://github.com/gpu-mode/reference-kernels /somewhere/reference-kernels
  make python
  python3 06_tuning/python/gpumode_eval.py /somewhere/reference-kernels --precision medium --mode test
  python3 06_tuning/python/gpumode_eval.py /somewhere/reference-kernels --precision medium --mode benchmark

test: task.yml's 17 tests (shape, dtype, finiteness, lower triangle, positive diagonal and the
normwise residual <= 20 n eps ||A||_1 on the six families); benchmark: its 15 shapes, each checked again
after every timed round, the times as eval.py reports them (mean ns of one call, L2 emptied). Prints
eval.py's log, then one line per test or shape and the geometric mean; exits with eval.py's status
(0 pass, 112 fail). Needs a GPU, torch and the built library (make python).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUBMISSION = '''import os
import course_cholesky as cc

_PRECISION = os.environ["COURSE_PRECISION"]


def custom_kernel(data):
    return cc.cholesky_ex(data, precision=_PRECISION).L
'''


def cases(task_yml, section):
    """The dicts under `section:` of task.yml ("- {...}" lines, each valid JSON), as eval.py's spec lines."""
    lines, inside = [], False
    for line in open(task_yml):
        if re.match(r"^\S", line):
            inside = line.strip() == f"{section}:"
            continue
        m = re.match(r"^\s*-\s*(\{.*\})\s*$", line)
        if inside and m:
            lines.append("; ".join(f"{k}: {v}" for k, v in json.loads(m.group(1)).items()))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("reference_kernels", help="a checkout of github.com/gpu-mode/reference-kernels")
    ap.add_argument("--precision", default="highest", choices=["highest", "high", "medium"])
    ap.add_argument("--mode", default="test", choices=["test", "benchmark"])
    args = ap.parse_args()
    problem = os.path.join(args.reference_kernels, "problems", "linalg", "cholesky_py")
    sources = [os.path.join(problem, f) for f in ("eval.py", "reference.py", "task.py")]
    sources.append(os.path.join(args.reference_kernels, "problems", "pmpp_v2", "utils.py"))
    missing = [f for f in sources + [os.path.join(problem, "task.yml")] if not os.path.isfile(f)]
    if missing:
        sys.exit(f"gpumode_eval: not a reference-kernels checkout: {missing[0]} is missing")
    specs = cases(os.path.join(problem, "task.yml"), "tests" if args.mode == "test" else "benchmarks")
    if not specs:
        sys.exit("gpumode_eval: task.yml lists no cases")
    with tempfile.TemporaryDirectory() as work:
        for f in sources:
            shutil.copy(f, work)
        with open(os.path.join(work, "submission.py"), "w") as f:
            f.write(SUBMISSION)
        with open(os.path.join(work, "cases.txt"), "w") as f:
            f.write("\n".join(specs) + "\n")
        log_path = os.path.join(work, "popcorn.log")
        env = dict(os.environ, COURSE_PRECISION=args.precision,
                   PYTHONPATH=HERE + (os.pathsep + os.environ["PYTHONPATH"] if "PYTHONPATH" in os.environ else ""))
        with open(log_path, "w") as log:
            env["POPCORN_FD"] = str(log.fileno())
            rc = subprocess.run([sys.executable, "eval.py", args.mode, "cases.txt"], cwd=work, env=env,
                                pass_fds=(log.fileno(),)).returncode
        entries = dict(line.rstrip("\n").split(": ", 1) for line in open(log_path) if ": " in line)
    print(f"gpu-mode eval.py {args.mode}, precision {args.precision}: eval.py exit {rc}")
    means = []
    for i, spec in enumerate(specs):
        key = f"test.{i}" if args.mode == "test" else f"benchmark.{i}"
        if args.mode == "test":
            status = entries.get(f"{key}.status", "not run")
            detail = entries.get(f"{key}.message", entries.get(f"{key}.error", ""))
            print(f"  {status:5s} {spec}  {detail}")
        elif f"{key}.mean" in entries:
            mean = float(entries[f"{key}.mean"])
            means.append(mean)
            print(f"  pass  {spec}  mean {mean / 1e3:.1f} us, best {float(entries[key + '.best']) / 1e3:.1f} us,"
                  f" {entries[key + '.runs']} runs")
        else:
            print(f"  {entries.get(key + '.status', 'not run'):5s} {spec}  {entries.get(key + '.error', '')}")
    if means and len(means) == len(specs):
        geomean = math.exp(sum(math.log(m) for m in means) / len(means))
        print(f"  geometric mean over {len(means)} shapes: {geomean / 1e3:.1f} us")
    print(f"  check: {entries.get('check', 'none')}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
