#!/usr/bin/env bash
# test_barriers.sh - the helpers' barriers, graded (group "tile barriers"): racecheck on
# sanitize_single_tile's small runs (the single-tile kernel at NB = 4..32, padded and not; the
# helpers alone and back to back at NB = 1, 5, 8, 16, 32), where a missing barrier inside a helper
# or at its end races. See common/racecheck.sh for why.
suite=stage-2-barriers
source common/harness.sh
source common/racecheck.sh
racecheck_group "tile barriers" "racecheck: the four helpers race nowhere, alone or back to back" "" \
    "${BUILD:-build}/02_single_tile/sanitize_single_tile"
finish
