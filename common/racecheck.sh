# racecheck.sh - a graded group of one test: compute-sanitizer's racecheck on a program's small runs.
# Source it after harness.sh, then: racecheck_group GROUP NAME KERNELS COMMAND...
#   KERNELS: a substring of the kernels to check (compute-sanitizer --kernel-name kns=...), or ""
#   for all of them. Plans GROUP, runs the test (skipped without a GPU or compute-sanitizer, which
#   comes with the CUDA toolkit: a FAIL when grading, as every skipped test).
# Why a group of its own: a missing barrier most often still gives right factors (the threads of
# a warp rarely overtake each other), so results alone cannot grade the barriers; the race is what
# racecheck reports, every time, with the source line.
racecheck_test() { # the test, on racecheck_args: GROUP NAME KERNELS COMMAND...
    local group=${racecheck_args[0]} name=${racecheck_args[1]} kernels=${racecheck_args[2]} out rc summary first
    group "$group"
    out=$(setup "$racecheck_cs" --tool racecheck --error-exitcode 86 --print-limit 10 \
        ${kernels:+--kernel-name kns=$kernels} "${racecheck_args[@]:3}" 2>&1)
    rc=$?
    summary=$(grep -m1 -E "RACECHECK SUMMARY|ERROR SUMMARY" <<<"$out" | sed 's/^========= //')
    if [ $rc -eq 0 ] && grep -q "RACECHECK SUMMARY: 0 hazards" <<<"$out"; then
        record "$name" PASS "$summary"
    else
        first=$(grep -m3 -E "^========= +(Race|Error|Warning)|at .*\.cuh?:[0-9]+" <<<"$out" | sed 's/^========= *//' | tr '\n' ' ')
        record "$name" FAIL "exit $rc; ${summary:-no summary}; ${first:-$(tail -n 3 <<<"$out" | tr '\n' ' ')}"
    fi
}
racecheck_group() { # racecheck_group GROUP NAME KERNELS COMMAND...
    racecheck_args=("$@")
    racecheck_cs=$(command -v compute-sanitizer ||
        ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
    plan_from racecheck_test
    if ! nvidia-smi -L >/dev/null 2>&1; then skip_rest "$1" "$(gpu_reason)"; return; fi
    if [ -z "$racecheck_cs" ]; then skip_rest "$1" "compute-sanitizer not found (it comes with the CUDA toolkit)"; return; fi
    racecheck_test
}
