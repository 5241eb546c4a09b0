#!/usr/bin/env bash
# test_python.sh - the Python binding (06_tuning/python): test_course_cholesky.py's tests, each
# recorded like the C harness does. They need a GPU and torch; without either every planned test
# is skipped with the reason (so the group never passes on nothing), and a script that dies leaves
# its unreported tests to fail.
suite=stage-6-python
source common/harness.sh
here=06_tuning/python
total=$(python3 $here/test_course_cholesky.py --count)
plan "python binding" "$total"
group "python binding"
if ! nvidia-smi -L > /dev/null 2>&1; then skip_rest "python binding" "no GPU"; finish; fi
if ! python3 -c "import torch; assert torch.cuda.is_available()" > /dev/null 2>&1; then
    skip_rest "python binding" "torch with CUDA is not installed (the binding itself needs only ctypes)"; finish
fi
while IFS=$'\t' read -r name status detail; do
    case $status in PASS | FAIL | SKIP) record "$name" "$status" "$detail" ;; *) echo "$name $status $detail" ;; esac
done < <(PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} python3 $here/test_course_cholesky.py 2>&1)
finish
