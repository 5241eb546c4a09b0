#!/usr/bin/env bash
# test_cli_serial.sh - the stage 01 benchmark's command line (issue 9's regressions): a batch
# larger than the machine is refused with the memory it needs (it used to segfault), --help exits
# 0, and a CSV that cannot be written stops the benchmark with a nonzero exit (it used to print
# an error per row and exit 0). Runs everywhere; provided code only (worth 0 points).
suite=stage-1-cli
b=${BUILD:-build}/01_serial/bench_serial
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/a-file"
cli_tests() {
    group "command line"
    out=$(setup $b 1048576 2>&1); rc=$?
    record "bench_serial: 1 TiB per batch refused" $([ $rc -eq 2 ] && grep -q "GiB of host memory" <<<"$out" && echo PASS || echo FAIL) "exit $rc: $(head -n 1 <<<"$out")"
    out=$(setup $b --help 2>&1); rc=$?
    record "bench_serial --help exits 0" $([ $rc -eq 0 ] && grep -q usage <<<"$out" && echo PASS || echo FAIL) "exit $rc"
    out=$(setup $b 0 2>&1); rc=$?
    record "bench_serial: 0 MB refused" $([ $rc -eq 2 ] && echo PASS || echo FAIL) "exit $rc: $(head -n 1 <<<"$out")"
    # A path no other program can create: under a plain file of this test's own temporary folder.
    out=$(BENCH_CSV="$tmp/a-file/x.csv" setup $b 1 2>&1); rc=$?
    n=$(grep -c "cannot append" <<<"$out")
    record "bench_serial: unwritable BENCH_CSV stops it" $([ $rc -eq 2 ] && [ "$n" -eq 1 ] && echo PASS || echo FAIL) "exit $rc, $n error line(s): $(grep -m1 'cannot append' <<<"$out")"
}
plan_from cli_tests
cli_tests
finish
