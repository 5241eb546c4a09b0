#!/usr/bin/env bash
# test_barriers.sh - the rows kernel's barriers, graded: compute-sanitizer's racecheck on small runs
# of every stage 06 kernel (sanitize_tuning: every rows instance, steps written out and the loop,
# with partial blocks and chunks). A missing barrier in rows_step or rows_loop most often still
# gives right factors (the threads of a warp rarely overtake each other), so the results alone
# cannot grade it: the race itself is what this group looks for. Needs a GPU and compute-sanitizer
# (it comes with the CUDA toolkit); on a machine without them the test is skipped (a FAIL when
# grading, as every skipped test).
suite=stage-6-barriers
bin=${BUILD:-build}/06_tuning/sanitize_tuning
source common/harness.sh
barrier_tests() {
    group "rows kernel barriers"
    out=$(setup "$cs" --tool racecheck --error-exitcode 86 --print-limit 10 "$bin" 2>&1)
    rc=$?
    summary=$(grep -m1 -E "RACECHECK SUMMARY|ERROR SUMMARY" <<<"$out" | sed 's/^========= //')
    if [ $rc -eq 0 ] && grep -q "RACECHECK SUMMARY: 0 hazards" <<<"$out"; then
        record "racecheck: every rows instance (and the provided kernels) races nowhere" PASS "$summary"
    else
        first=$(grep -m3 -E "^========= +(Race|Error|Warning)|at .*\.cuh?:[0-9]+" <<<"$out" | sed 's/^========= *//' | tr '\n' ' ')
        record "racecheck: every rows instance (and the provided kernels) races nowhere" FAIL \
            "exit $rc; ${summary:-no summary}; ${first:-$(tail -n 3 <<<"$out" | tr '\n' ' ')}"
    fi
}
plan_from barrier_tests
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
if ! nvidia-smi -L >/dev/null 2>&1; then skip_rest "rows kernel barriers" "no CUDA device"; finish; fi
if [ -z "$cs" ]; then skip_rest "rows kernel barriers" "compute-sanitizer not found (it comes with the CUDA toolkit)"; finish; fi
barrier_tests
finish
