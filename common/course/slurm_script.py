#!/usr/bin/env python3
"""slurm_script.py TARGET [--out FILE] - a Slurm batch script that runs `make TARGET` on one GPU.

For students without a GPU of their own whose course has a cluster: `make slurm-script
TARGET=test > job.sh`, then `sbatch job.sh` from any folder (the job runs in the course's folder,
whose absolute path the script holds); the output goes to the job's log
(cholesky-TARGET-<jobid>.out in the folder it was submitted from). TARGET: test, bench or tune
(also test-stage-N and bench-stage-N). SLURM_PARTITION, SLURM_ACCOUNT and SLURM_GRES (default
gpu:1) fill in the cluster's names.
"""
import argparse
import os
import re
import shlex
import sys

# The course's folder (this file is common/course/slurm_script.py in it): the job runs there.
COURSE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Minutes each target needs at most on a slow GPU (the H100 takes 4, 3 and 12 minutes), with the build.
MINUTES = {"test": 60, "bench": 60, "tune": 180}


def script(target):
    kind = re.sub(r"-stage-\d+$", "", target)
    minutes = MINUTES[kind] // (2 if kind != target else 1)
    lines = ["#!/bin/bash",
             f"# make {target} on one GPU of the cluster (made by `make slurm-script TARGET={target}`).",
             "# Submit it from any folder: sbatch job.sh; follow it: squeue -u $USER;",
             f"# read it: cholesky-{target}-<jobid>.out in the folder it was submitted from.",
             f"#SBATCH --job-name=cholesky-{target}",
             f"#SBATCH --gres={os.environ.get('SLURM_GRES', 'gpu:1')}",
             "#SBATCH --cpus-per-task=8",
             f"#SBATCH --time={minutes}",
             f"#SBATCH --output=cholesky-{target}-%j.out"]
    for var, opt in (("SLURM_PARTITION", "partition"), ("SLURM_ACCOUNT", "account")):
        if os.environ.get(var):
            lines.append(f"#SBATCH --{opt}={os.environ[var]}")
    lines += ["set -eu",
              f"cd {shlex.quote(COURSE)}",  # the course, wherever the job was submitted from
              'echo "job ${SLURM_JOB_ID:-?} on $(hostname): $(nvidia-smi -L 2>&1 | head -n 1)"',
              "make -j\"${SLURM_CPUS_PER_TASK:-8}\" all",
              f"make {target}",
              ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("target")
    ap.add_argument("--out")
    a = ap.parse_args()
    if not re.fullmatch(r"(test|bench)(-stage-[1-6])?|tune", a.target):
        print(f"slurm-script: TARGET is test, bench or tune (or test-stage-N, bench-stage-N), not {a.target!r}", file=sys.stderr)
        return 2
    text = script(a.target)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        os.chmod(a.out, 0o755)
        print(f"slurm-script: wrote {a.out}; submit it with: sbatch {a.out}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
