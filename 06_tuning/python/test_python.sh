#!/usr/bin/env bash
# test_python.sh - the Python binding (06_tuning/python): test_course_cholesky.py's tests in its two
# groups, each recorded like the C harness does. They need a GPU and torch; without either every planned test
# is skipped with the reason (so the group never passes on nothing), and a script that dies leaves
# its unreported tests to fail.
suite=stage-6-python
source common/harness.sh
here=06_tuning/python
groups=("python binding" "python gpu-mode families" "python gpu-mode families, precision high")
door_groups=("python door")
for g in "${groups[@]}"; do plan "$g" "$(python3 $here/test_course_cholesky.py --count "$g")"; done
for g in "${door_groups[@]}"; do plan "$g" "$(python3 $here/test_door.py --count "$g")"; done
groups+=("${door_groups[@]}")
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
finish
