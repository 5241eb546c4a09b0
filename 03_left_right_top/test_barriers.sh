#!/usr/bin/env bash
# test_barriers.sh - the looking orders' barriers, graded (group "tiled orders barriers"): racecheck
# on sanitize_tiled's small runs of the three orders (NB = 4..32, n = 1, 7, 33, 45: remainder tiles,
# several tile rows), the single-block kernel only. See common/racecheck.sh for why.
suite=stage-3-barriers
source common/harness.sh
source common/racecheck.sh
racecheck_group "tiled orders barriers" "racecheck: the three orders race nowhere" potrf_tiled_kernel \
    "${BUILD:-build}/03_left_right_top/sanitize_tiled"
finish
