#!/usr/bin/env bash
# test_make_help.sh - `make help` names every make target and variable that a README shows.
# The READMEs (every *.md outside build/) are searched for "make TARGET" and for VAR=value on
# the same command; each must appear in the help text (a concrete target such as test-stage-3
# counts when its pattern, test-stage-N, is listed). Runs without a GPU.
suite=make-help
source common/harness.sh
help=$(make --no-print-directory help 2>&1)
# The course's own READMEs, found from its folder (never through git: the course may sit inside
# another repository, untracked, or in no repository at all).
mapfile -t mds < <(course_markdown)
targets=$(grep -hoE '(^|`|\s)make [a-zA-Z][a-zA-Z0-9_-]*' "${mds[@]}" | awk '{print $2}' | sort -u)
variables=$(grep -hoE 'make [^`|]*' "${mds[@]}" | grep -oE '\b[A-Z][A-Z0-9_]*=' | tr -d '=' | sort -u)
plan "make help" $(($(wc -w <<<"$targets") + $(wc -w <<<"$variables")))
group "make help"
for t in $targets; do
    generic=$(sed -E 's/-stage-[0-9]+$/-stage-N/' <<<"$t")
    if grep -qE "make $t\b|make $generic\b|(^| )$t( |$)" <<<"$help"; then record "target $t" PASS "listed"
    else record "target $t" FAIL "a README shows 'make $t'; make help does not list it"; fi
done
for v in $variables; do
    if grep -qE "\b$v=" <<<"$help"; then record "variable $v" PASS "listed"
    else record "variable $v" FAIL "a README shows '$v=' with make; make help does not list it"; fi
done
finish
