#!/usr/bin/env bash
# test_barriers.sh - the rows kernel's barriers, graded (group "rows kernel barriers"): racecheck
# on sanitize_tuning's small runs of every rows instance, steps written out and the loop, with
# partial blocks and chunks (and the provided kernels). See common/racecheck.sh for why.
suite=stage-6-barriers
source common/harness.sh
source common/racecheck.sh
racecheck_group "rows kernel barriers" "racecheck: every rows instance (and the provided kernels) races nowhere" "" \
    "${BUILD:-build}/06_tuning/sanitize_tuning"
finish
