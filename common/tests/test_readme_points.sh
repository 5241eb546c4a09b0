#!/usr/bin/env bash
# test_readme_points.sh - the points a README promises are the points the grader gives: each
# stage's points.tsv (and grade.py's performance points) against the stage READMEs, the top
# README's points table and INSTRUCTORS.md, and that every group a suite plans has a row in its
# points file (readme_points.py says how). Runs without a GPU.
suite=readme-points
source common/harness.sh
out=$(python3 common/tests/readme_points.py 2>&1)
rc=$?
mapfile -t lines < <(grep -P '^[^\t]+\t(PASS|FAIL|SKIP)\t' <<<"$out")
# One test per check the script made, and one for the script itself: a checker that dies or
# checks nothing fails here instead of passing on nothing.
plan "README points" $((${#lines[@]} + 1))
group "README points"
if [ $rc -eq 0 ] && [ ${#lines[@]} -ge 6 ]; then record "readme_points.py ran" PASS "${#lines[@]} checks"
else record "readme_points.py ran" FAIL "exit $rc, ${#lines[@]} checks: $(tail -3 <<<"$out")"; fi
for l in "${lines[@]}"; do
    IFS=$'\t' read -r name status detail <<<"$l"
    record "$name" "$status" "$detail"
done
finish
