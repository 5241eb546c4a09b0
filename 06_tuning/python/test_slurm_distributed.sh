#!/usr/bin/env bash
# test_slurm_distributed.sh - the torch.distributed example's batch script, on the Slurm cluster that is
# running (CI: .ci/slurm-up, a real one-node cluster without a GPU): `make slurm-script
# TARGET=distributed` writes it, sbatch runs it, and every task reports what Slurm gave it
# (--show-ranks: rank, world, shard and rendezvous, no GPU, no torch). The factoring itself on two
# GPUs is "python distributed" in test_python.sh. If no cluster answers, the Slurm test fails saying
# why (never skipped quietly). `make test-slurm-distributed`; CI runs it, not `make test`.
suite=slurm-distributed
cd "$(dirname "$0")/../.."
source common/harness.sh
tmp=$(mktemp -d)
trap 'scancel --name=cholesky-distributed >/dev/null 2>&1; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

script_tests() {
    group "distributed batch script"
    setup make --no-print-directory slurm-script TARGET=distributed NODES=1 GPUS=2 ARGS="--show-ranks --matrices 11" \
        OUT="$tmp/job.sh" > "$tmp/make.log" 2>&1
    local lines
    lines=$(grep -cE '^#SBATCH --nodes=1$|^#SBATCH --ntasks-per-node=2$|^export MASTER_ADDR=|^srun python3 06_tuning/python/distributed_example.py --show-ranks --matrices 11$' "$tmp/job.sh" 2>/dev/null)
    record "make slurm-script TARGET=distributed NODES=1 GPUS=2: one task a GPU, the rendezvous, srun" \
        $([ "$lines" = 4 ] && ! grep -q '^make ' "$tmp/job.sh" && echo PASS || echo FAIL) \
        "$lines of 4 lines; $(grep -c '^make ' "$tmp/job.sh" 2>/dev/null) make lines (none for --show-ranks)"
    expect "NODES=0 refused" 2 "NODES is a whole number" make --no-print-directory slurm-script TARGET=distributed NODES=0
    expect "ARGS with a shell command refused" 2 "the example's options only" \
        make --no-print-directory slurm-script TARGET=distributed ARGS="--order 8; rm -rf /"
}

slurm_tests() {
    group "distributed through Slurm"
    local job out host job_rc=1
    setup eval 'job=$(cd "$tmp" && sbatch --parsable --wait job.sh 2> "$tmp/sbatch.err"); job_rc=$?'
    out=$tmp/cholesky-distributed-${job%%;*}.out
    host=$(scontrol show hostnames "$(sinfo -h -o '%N' | head -n 1)" 2>/dev/null | head -n 1)
    record "sbatch --wait: the job ran to its end, exit 0" \
        $([ -n "$job" ] && [ "$job_rc" = 0 ] && grep -q "tasks" "$out" 2>/dev/null && echo PASS || echo FAIL) \
        "job ${job:-none}, exit $job_rc: $(head -n 1 "$out" 2>/dev/null || tail -n 1 "$tmp/sbatch.err")"
    record "two ranks of 2, shards [0, 6) and [6, 11) of 11" \
        $(grep -q "^rank 0 of 2, local 0, .*matrices \[0, 6)" "$out" 2>/dev/null &&
          grep -q "^rank 1 of 2, local 1, .*matrices \[6, 11)" "$out" 2>/dev/null && echo PASS || echo FAIL) \
        "$(grep '^rank' "$out" 2>/dev/null | cut -d: -f1-2 | paste -sd ';')"
    local rendezvous
    rendezvous=$(grep '^rank' "$out" 2>/dev/null | sed 's/.*rendezvous //' | sort -u)
    record "one rendezvous for both: the first node, a port from the job's id" \
        $([ "$(wc -l <<<"$rendezvous")" = 1 ] && [ "${rendezvous%%:*}" = "$host" ] &&
          [ "${rendezvous##*:}" = "$((20000 + ${job%%;*} % 20000))" ] && echo PASS || echo FAIL) \
        "$(paste -sd ' ' <<<"$rendezvous") (node $host)"
}

plan_from script_tests slurm_tests
script_tests
if ! command -v sbatch >/dev/null || ! sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    why=$(command -v sbatch >/dev/null && echo "sinfo: $(sinfo 2>&1 | tail -n 1)" || echo "sbatch is not installed")
    fail_rest "distributed through Slurm" "no Slurm cluster answers ($why); CI starts one with .ci/slurm-up"
    finish
fi
# The CI node has no GPU and two cores. (Only for the generator: exported to the job, an empty
# SLURM_GRES would reach srun as an empty --gres, which it refuses.)
setup env SLURM_GRES= SLURM_CPUS=1 make --no-print-directory slurm-script TARGET=distributed NODES=1 GPUS=2 ARGS="--show-ranks --matrices 11" \
    OUT="$tmp/job.sh" > "$tmp/make.log" 2>&1
slurm_tests
finish
