#!/usr/bin/env bash
# test_barriers.sh - the converters' barrier, graded (group "converter barriers"): racecheck on
# sanitize_chunked's small runs of the tiled converters (odd n, partial last chunks), the converter
# kernel only. See common/racecheck.sh for why.
suite=stage-5-barriers
source common/harness.sh
source common/racecheck.sh
racecheck_group "converter barriers" "racecheck: the tiled converters race nowhere" transpose_kernel \
    "${BUILD:-build}/05_chunked/sanitize_chunked"
finish
