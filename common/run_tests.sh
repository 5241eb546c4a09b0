#!/usr/bin/env bash
# run_tests.sh SUITE RESULTS.tsv 'command' ['command' ...]
# Runs each test command with TEST_RESULTS=RESULTS.tsv (the harness appends one line per test).
# A command that crashes or exits with a status other than 0 (all passed) or 1 (some failed)
# is recorded as one failed test, so a segfault can never look like success.
suite=$1 results=$2
shift 2
mkdir -p "$(dirname "$results")"
touch "$results"
for cmd in "$@"; do
    TEST_RESULTS="$results" bash -c "$cmd"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
        echo "FAIL  $suite: '$cmd' exited with status $rc (crash or error)"
        printf '%s\t%s\tFAIL\texited with status %d\n' "$suite" "$cmd" "$rc" >> "$results"
    fi
done
exit 0
