#!/usr/bin/env python3
"""slurm_script.py TARGET [--out FILE] [--nodes N --gpus G --args ARGS] - a Slurm batch script that runs
`make TARGET` on one GPU, or (TARGET distributed) the torch.distributed example over N nodes x G GPUs.

For students without a GPU of their own whose course has a cluster: `make slurm-script
TARGET=test > job.sh`, then `sbatch job.sh` from any folder (the job runs in the course's folder,
whose absolute path the script holds); the output goes to the job's log
(cholesky-TARGET-<jobid>.out in the folder it was submitted from). TARGET: test, bench or tune
(also test-stage-N and bench-stage-N). SLURM_PARTITION, SLURM_ACCOUNT and SLURM_GRES (default
gpu:1, or gpu:G a node for distributed; empty: no gres line) fill in the cluster's names.

TARGET distributed: `make slurm-script TARGET=distributed NODES=2 GPUS=4 ARGS="--order 64 --matrices
8000000 --dtype float64"`: one task a GPU (G a node, each its node's GPU SLURM_LOCALID), the Python
library built first (once: the nodes share the course's folder), the rendezvous on the first node
(MASTER_ADDR, and MASTER_PORT from the job's id), then `srun` of 06_tuning/python/distributed_example.py
with ARGS. With --show-ranks in ARGS nothing is built: every task prints what Slurm gave it.
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


EXAMPLE_ARGS = "--order 64 --matrices 2000000 --dtype float64"


def distributed(nodes, gpus, args):
    """The batch script of the torch.distributed example: nodes x gpus ranks, one a GPU."""
    gres = os.environ.get("SLURM_GRES", f"gpu:{gpus}")
    cpus = os.environ.get("SLURM_CPUS", "4")
    lines = ["#!/bin/bash",
             f"# distributed_example.py over {nodes} node(s) x {gpus} GPU(s), one rank a GPU, through torch.distributed",
             "# (NCCL) (made by `make slurm-script TARGET=distributed`). Submit it from any folder: sbatch job.sh;",
             "# read it: cholesky-distributed-<jobid>.out in the folder it was submitted from.",
             "#SBATCH --job-name=cholesky-distributed",
             f"#SBATCH --nodes={nodes}",
             f"#SBATCH --ntasks-per-node={gpus}",
             f"#SBATCH --cpus-per-task={cpus}",
             "#SBATCH --time=30",
             "#SBATCH --output=cholesky-distributed-%j.out"]
    if gres:
        lines.append(f"#SBATCH --gres={gres}")
    for var, opt in (("SLURM_PARTITION", "partition"), ("SLURM_ACCOUNT", "account")):
        if os.environ.get(var):
            lines.append(f"#SBATCH --{opt}={os.environ[var]}")
    lines += ["set -eu",
              f"cd {shlex.quote(COURSE)}",  # the course, wherever the job was submitted from
              'echo "job ${SLURM_JOB_ID:-?}: ${SLURM_NNODES:-?} node(s), ${SLURM_NTASKS:-?} tasks: '
              '$(scontrol show hostnames "$SLURM_JOB_NODELIST" | paste -sd " ")"']
    if "--show-ranks" not in args.split():
        lines.append('make -j"${SLURM_CPUS_PER_TASK:-4}" python  # once, here: every node sees this folder')
    lines += ['export MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)"',
              "export MASTER_PORT=$((20000 + ${SLURM_JOB_ID:-0} % 20000))  # one port a job",
              f"srun python3 06_tuning/python/distributed_example.py {args}",
              ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("target")
    ap.add_argument("--out")
    ap.add_argument("--nodes", default="1", help="distributed: nodes (default 1)")
    ap.add_argument("--gpus", default="2", help="distributed: GPUs (ranks) a node (default 2)")
    ap.add_argument("--args", default=EXAMPLE_ARGS, help="distributed: the example's arguments")
    a = ap.parse_args()
    if a.target == "distributed":
        for what, v in (("NODES", a.nodes), ("GPUS", a.gpus)):
            if not re.fullmatch(r"[1-9][0-9]{0,3}", v):
                print(f"slurm-script: {what} is a whole number from 1, not {v!r}", file=sys.stderr)
                return 2
        if re.search(r"[;&|`$<>\n]", a.args):
            print(f"slurm-script: ARGS are the example's options only, not {a.args!r}", file=sys.stderr)
            return 2
        text = distributed(int(a.nodes), int(a.gpus), a.args)
    elif not re.fullmatch(r"(test|bench)(-stage-[1-6])?|tune", a.target):
        print(f"slurm-script: TARGET is test, bench, tune or distributed (or test-stage-N, bench-stage-N), "
              f"not {a.target!r}", file=sys.stderr)
        return 2
    else:
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
