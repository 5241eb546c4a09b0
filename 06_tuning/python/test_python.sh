#!/usr/bin/env bash
# test_python.sh - the Python binding (06_tuning/python): test_course_cholesky.py's tests in its two
# groups, each recorded like the C harness does. They need a GPU and torch; without either every planned test
# is skipped with the reason (so the group never passes on nothing), and a script that dies leaves
# its unreported tests to fail.
suite=stage-6-python
source common/harness.sh
here=06_tuning/python
groups=("python binding" "python gpu-mode families" "python gpu-mode families, precision high"
    "python gpu-mode families, precision medium" "python float64")
door_groups=("python door")
for g in "${groups[@]}"; do plan "$g" "$(python3 $here/test_course_cholesky.py --count "$g")"; done
for g in "${door_groups[@]}"; do plan "$g" "$(python3 $here/test_door.py --count "$g")"; done
groups+=("${door_groups[@]}")
plan "python distributed" 2
groups+=("python distributed")
group "python binding"
skip_all() { for g in "${groups[@]}"; do skip_rest "$g" "$1"; done; finish; }
if ! nvidia-smi -L > /dev/null 2>&1; then skip_all "no GPU"; fi
if ! python3 -c "import torch; assert torch.cuda.is_available()" > /dev/null 2>&1; then
    skip_all "torch with CUDA is not installed (the binding itself needs only ctypes)"
fi
# auto takes the student's kernels too: the package's sanity groups run only when they factor right
if ! what=$(${BUILD:-build}/06_tuning/test_student_kernels); then skip_all "needs $what to pass first (these sanity groups run your code too)"; fi
while IFS=$'\t' read -r g name status detail; do
    case $status in
    PASS | FAIL | SKIP) group "$g"; record "$name" "$status" "$detail" ;;
    *) echo "$g $name $status $detail" ;;
    esac
done < <(for t in test_course_cholesky.py test_door.py; do
    PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} python3 $here/$t 2>&1
done)
# Beyond one GPU: distributed_example.py under torchrun (NCCL), float64, every factor gathered on
# rank 0 and compared with the whole batch factored there alone.
group "python distributed"
torchrun_check() { # ranks batch
    local out rc
    out=$(PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} timeout 300 python3 -m torch.distributed.run --nproc-per-node="$1" \
        --master-port=$((29500 + $1)) $here/distributed_example.py --order 64 --matrices "$2" --dtype float64 --check 2>&1)
    rc=$?
    record "$3" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(tail -2 <<< "$out" | tr '\n' ' ' | cut -c1-400)"
}
torchrun_check 1 5000 "torchrun, one rank: the infos gathered, the factors equal a lone call's"
if [ "$(nvidia-smi -L 2> /dev/null | wc -l)" -ge 2 ]; then
    torchrun_check 2 20000 "torchrun, two ranks on two GPUs: every factor equal to one GPU's"
else
    record "torchrun, two ranks on two GPUs: every factor equal to one GPU's" SKIP "needs two GPUs (this machine has 1)"
fi
finish
