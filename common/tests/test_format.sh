#!/usr/bin/env bash
# test_format.sh - every C, C++ and CUDA source of the course is laid out as .clang-format says
# (make format fixes one that is not): one test per file, with the first line clang-format would
# change. What students write between the solution markers is theirs: those lines are not checked. clang-format is pinned (make format-check says why); without it, and without the
# network to install it, the tests are skipped with the reason. Provided code only (0 points).
suite=source-format
source common/harness.sh
# (the queries of make below: without the parent's MAKEFLAGS, whose -j would want a jobserver it does not pass)
mapfile -t files < <(env -u MAKEFLAGS -u MFLAGS make --no-print-directory -s -f Makefile print-format-files 2>/dev/null | tr ' ' '\n' | grep .)
plan "source format" ${#files[@]}
group "source format"
if ! cf=$(CLANG_FORMAT_PIN=$(env -u MAKEFLAGS -u MFLAGS make --no-print-directory -s print-clang-format-pin) bash common/course/clang_format.sh 2>"${TMPDIR:-/tmp}/cf-why.$$"); then
    skip_rest "source format" "$(cat "${TMPDIR:-/tmp}/cf-why.$$")"
    rm -f "${TMPDIR:-/tmp}/cf-why.$$"
    finish
fi
rm -f "${TMPDIR:-/tmp}/cf-why.$$"
mapfile -t lines < <(python3 common/course/format_lines.py "${files[@]}") # outside the solution regions
for k in "${!files[@]}"; do
    f=${files[$k]}
    out=$("$cf" --dry-run --Werror ${lines[$k]} "$f" 2>&1)
    if [ $? -eq 0 ]; then record "formatted: $f" PASS ""
    else record "formatted: $f" FAIL "$(grep -m1 -A1 'error:' <<<"$out" | tr '\n' ' ' | cut -c1-240) (make format fixes it)"; fi
done
finish
