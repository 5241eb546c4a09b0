#!/usr/bin/env bash
# test_fresh_targets.sh - every documented target works alone on a fresh clone, without a GPU: make
# test-common (0 failed: it builds only common and datasets), make test-course (it builds the stage
# programs its checks run), make fuzz (it builds the sanitized programs it
# fuzzes), make bench-gpumode (one SKIP line and exit 0, as make bench), make plots (nothing to
# draw: a clear message, exit 2, nothing installed), make sass (a counter per file) and the script
# of make slurm-script (it finds the course when submitted from another folder). Each target runs
# once, in a clone of this repository's committed tree; where this checkout has uncommitted changes
# (a developer trying them before the commit) they are applied to the clone, so what is tested is
# what would be committed. The GPU is hidden (CUDA_VISIBLE_DEVICES="") from every target but make
# test-course, whose README-command checks ask nvidia-smi whether there is one. CCACHE=ccache (or
# ccache on the PATH) is passed on: the clone builds the course's CLIs twice (plain and SAN=1).
# Slow on a cold cache: make test-fresh-targets, and CI; not part of `make test`.
suite=fresh-targets
cd "$(dirname "$0")/../.."
root=$(pwd -P)
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fresh=$(cd "$tmp" && pwd -P)/fresh # physical: the Slurm script's cd names it so
jobs=$(nproc 2>/dev/null || echo 2)
ccache=${CCACHE:-}
[ -z "$ccache" ] && command -v ccache >/dev/null 2>&1 && ccache=ccache

clone_fresh() { # the committed tree, plus this checkout's uncommitted changes and new files, if any
    git clone -q "$root" "$fresh" || return 1
    local diff others
    diff=$(git -C "$root" diff --binary HEAD) && others=$(git -C "$root" ls-files --others --exclude-standard) || return 1
    if [ -n "$diff" ]; then git -C "$fresh" apply --binary <<<"$diff" || return 1; fi
    if [ -n "$others" ]; then (cd "$root" && git ls-files -z --others --exclude-standard | xargs -0 cp --parents -t "$fresh") || return 1; fi
    if [ -n "$diff$others" ]; then echo "the committed tree and this checkout's uncommitted changes"; else echo "the committed tree"; fi
}

# in_fresh LOG COMMAND...: COMMAND run in the clone as a user types it there (nothing of this make's
# environment leaks in), its output in LOG; returns its exit status
in_fresh() {
    local log=$1
    shift
    (cd "$fresh" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TEST_RESULTS -u BUILD -u GIT_COMMIT -u SAN -u DEBUG \
        -u FILES -u ASAN_OPTIONS -u LSAN_OPTIONS -u UBSAN_OPTIONS -u TEST_TIMEOUT_SCALE CCACHE_NOHASHDIR=true "$@") >"$log" 2>&1
}
took() { echo "$((SECONDS - $1)) s"; }
why() { # why LOG: the lines that say what went wrong, then the last ones
    { grep -E '^FAIL|Traceback|Error [0-9]|No rule|error:|No such file' "$1" | head -n 5; tail -n 3 "$1"; } 2>/dev/null |
        tr '\n' ' ' | cut -c1-700
}

make_stub() { # $tmp/stub/make: says where it runs and what it would do (make -n); $tmp/elsewhere: another folder
    mkdir -p "$tmp/elsewhere" "$tmp/stub" &&
        printf '#!/bin/sh\necho "make in $PWD: $*"\nexec %s -n "$@"\n' "$(command -v make)" >"$tmp/stub/make" && chmod +x "$tmp/stub/make"
}

clone_tests() {
    group "fresh clone"
    what=$(setup clone_fresh 2>"$tmp/clone.err")
    rc=$?
    if [ $rc -eq 0 ]; then record "git clone of this repository" PASS "$what"
    else record "git clone of this repository" FAIL "exit $rc: $(tr '\n' ' ' <"$tmp/clone.err" 2>/dev/null | cut -c1-300)"; fi
}

target_tests() {
    group "documented targets"
    local t0 log

    t0=$SECONDS log=$tmp/test-common.log
    setup in_fresh "$log" make -j"$jobs" CCACHE="$ccache" test-common
    rc=$?
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1)
    record "make test-common: builds what it runs, 0 failed" $([ $rc -eq 0 ] && grep -qE '^[0-9]+ passed, 0 failed' <<<"$last" \
        && echo PASS || echo FAIL) "exit $rc after $(took $t0): ${last:-$(why "$log")}"

    t0=$SECONDS log=$tmp/test-course.log
    setup in_fresh "$log" make -j"$jobs" CCACHE="$ccache" test-course
    rc=$?
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1)
    record "make test-course: builds what it runs, 0 failed" $([ $rc -eq 0 ] && grep -qE '^[0-9]+ passed, 0 failed' <<<"$last" \
        && echo PASS || echo FAIL) "exit $rc after $(took $t0): ${last:-$(why "$log")}"

    t0=$SECONDS log=$tmp/fuzz.log
    setup in_fresh "$log" env CUDA_VISIBLE_DEVICES= make -j"$jobs" CCACHE="$ccache" fuzz FUZZ_SECONDS=5
    rc=$?
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1)
    record "make fuzz FUZZ_SECONDS=5: builds the programs it fuzzes (SAN=1)" $([ $rc -eq 0 ] \
        && grep -qE '^[0-9]+ passed, 0 failed' <<<"$last" && echo PASS || echo FAIL) "exit $rc after $(took $t0): ${last:-$(why "$log")}"

    t0=$SECONDS log=$tmp/bench-gpumode.log
    setup in_fresh "$log" env CUDA_VISIBLE_DEVICES= make -j"$jobs" CCACHE="$ccache" bench-gpumode
    rc=$?
    last=$(tail -n 1 "$log" 2>/dev/null)
    record "make bench-gpumode without a GPU: one SKIP line, exit 0" $([ $rc -eq 0 ] && grep -q '^SKIP gpumode bench: ' <<<"$last" \
        && ! grep -q Traceback "$log" && echo PASS || echo FAIL) "exit $rc after $(took $t0): $(grep -m1 '^SKIP' "$log" 2>/dev/null || why "$log")"

    t0=$SECONDS log=$tmp/plots.log
    setup in_fresh "$log" make plots
    rc=$?
    record "make plots with nothing to draw: says so, exit 2, installs nothing" $([ $rc -eq 2 ] \
        && grep -q '^no build/bench.csv: run make bench first' "$log" && [ ! -e "$fresh/.venv" ] && echo PASS || echo FAIL) \
        "exit $rc: $(head -n 1 "$log" 2>/dev/null)$([ -e "$fresh/.venv" ] && echo '; it made .venv')"

    t0=$SECONDS log=$tmp/sass.log
    setup in_fresh "$log" make sass SASS_ARCH=sm_90 FILES="common/gpu_batch.cu 02_single_tile/single_tile.cu"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^\[1/2\] ptxas -v common/gpu_batch.cu' "$log" && grep -q '^\[2/2\] ptxas -v 02_single_tile/single_tile.cu' "$log" \
        && grep -q 'potrf_single_tile_kernel' "$log"; then
        record "make sass: a counter per file, then the table" PASS "after $(took $t0): $(grep '^\[' "$log" | tr '\n' ' ')$(tail -n 1 "$log")"
    else record "make sass: a counter per file, then the table" FAIL "exit $rc, want lines [1/2] and [2/2] and a table: $(why "$log")"; fi

    # The Slurm script, run from another folder with a `make` that only says what it would do (make -n).
    log=$tmp/slurm.log
    setup make_stub
    setup in_fresh "$log" make slurm-script TARGET=test OUT="$tmp/job.sh"
    rc=$?
    [ $rc -eq 0 ] && setup in_fresh "$log" bash -c "cd '$tmp/elsewhere' && PATH='$tmp/stub':\$PATH SLURM_SUBMIT_DIR='$tmp/elsewhere' bash '$tmp/job.sh'"
    rc=$?
    if [ $rc -eq 0 ] && grep -qF "make in $fresh: test" "$log"; then
        record "make slurm-script: the job runs make in the course from another folder" PASS "$(grep -E '^cd ' "$tmp/job.sh"); $(grep '^make in' "$log" | tr '\n' ' ')"
    else record "make slurm-script: the job runs make in the course from another folder" FAIL "exit $rc: $(grep -E '^cd ' "$tmp/job.sh" 2>/dev/null); $(why "$log")"; fi
}

plan_from clone_tests target_tests
if [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" != "$root" ]; then
    skip_rest "fresh clone" "$root is not the top of a git repository (a student's kit?): nothing to clone"
    skip_rest "documented targets" "no clone"
    finish
fi
echo "$suite: cloning $root into $fresh (CCACHE=${ccache:-none}, make -j$jobs)"
clone_tests
if [ ! -f "$fresh/Makefile" ]; then fail_rest "documented targets" "the clone failed"; finish; fi
echo "$suite: make test-common, fuzz, bench-gpumode, plots, sass and slurm-script in the clone"
target_tests
finish
