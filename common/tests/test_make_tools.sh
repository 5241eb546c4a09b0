#!/usr/bin/env bash
# test_make_tools.sh - the tools for looking inside a kernel work as their README says: make sass
# prints a row per kernel instance of a file (and its CSV), refuses a KERNEL regex that matches
# nothing, and make profile refuses to run without KERNEL. No GPU needed (make profile is not run).
suite=make-tools
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { env -u MAKEFLAGS -u MFLAGS make --no-print-directory BUILD="$tmp/build" "$@"; }
tool_tests() {
    group "make tools"
    expect "make sass: a row per kernel instance of one file" 0 "potrf_single_tile_kernel.*sm_90" \
        mk sass SASS_ARCH=sm_90 FILES=02_single_tile/single_tile.cu
    rows=$({ wc -l <"$tmp/build/sass/resources.csv"; } 2>/dev/null)
    if [ "${rows:-0}" -ge 2 ]; then record "make sass: the CSV has the rows" PASS "$(tail -n 1 "$tmp/build/sass/resources.csv")"
    else record "make sass: the CSV has the rows" FAIL "no rows in build/sass/resources.csv"; fi
    expect "make sass: a KERNEL regex that matches nothing fails" 2 "no kernel instance matches 'no_such_kernel'" \
        mk sass SASS_ARCH=sm_90 FILES=02_single_tile/single_tile.cu KERNEL=no_such_kernel
    expect "make profile: KERNEL is required" 2 "say which kernel" mk profile
}
plan_from tool_tests
tool_tests
finish
