#!/usr/bin/env bash
# fuzz.sh SECONDS - make fuzz: the reader fuzz target, then random command lines for every CLI,
# all built with ASan/UBSan (build-san/). Half the time each. Records for run_suite.py.
suite=fuzz
seconds=${1:-60}
source "$(dirname "$0")/../harness.sh"
plan fuzzing 2
group fuzzing
b=build-san
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/common/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=$(cd "$tmp" && "$OLDPWD/$b/common/tests/fuzz_readers" "$OLDPWD/common/tests/fuzz-corpus" $((seconds / 2)) "${FUZZ_SEED:-1}" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then record "dataset reader and parsers ($((seconds / 2)) s)" PASS "$(tail -n 1 <<<"$out")"
else
    record "dataset reader and parsers ($((seconds / 2)) s)" FAIL "exit $rc: $(grep -m3 -E 'FAILED|ERROR|runtime error|SUMMARY' <<<"$out" | tr '\n' ' ')"
    [ -f "$tmp/fuzz-failure.bin" ] && cp "$tmp/fuzz-failure.bin" fuzz-failure.bin && echo "the failing input: fuzz-failure.bin"
fi
# The CLIs read the corpus as plain files (without the fuzz target's first, selecting byte).
mkdir -p "$tmp/files"
for f in common/tests/fuzz-corpus/*; do tail -c +2 "$f" > "$tmp/files/$(basename "$f")"; done
out=$(python3 common/tests/fuzz_cli.py "$b" "$tmp/files" $((seconds / 2)) "${FUZZ_SEED:-1}" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then record "every CLI with random arguments ($((seconds / 2)) s)" PASS "$(tail -n 1 <<<"$out")"
else record "every CLI with random arguments ($((seconds / 2)) s)" FAIL "$(head -n 12 <<<"$out" | tr '\n' ' ' | cut -c1-900)"; fi
finish
