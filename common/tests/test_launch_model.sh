#!/usr/bin/env bash
# test_launch_model.sh - the whole-GPU float64 path's launch order (03_left_right_top/launch_model.py):
# every two launches that touch a tile, one writing, ordered by streams, events and the linked
# launches' rule, read as an eager run and as a captured graph; and the model finds each planted
# mistake, so that the check can fail. Runs without a GPU.
suite=launch-model
source common/harness.sh
out=$(python3 03_left_right_top/launch_model.py 2>&1)
rc=$?
mapfile -t lines < <(grep -P '^[^\t]+\t(PASS|FAIL|SKIP)\t' <<<"$out")
# One test per check, and one for the model itself: a model that dies or checks nothing fails here.
plan "launch order" $((${#lines[@]} + 1))
group "launch order"
if [ ${#lines[@]} -ge 10 ] && { [ $rc -eq 0 ] || grep -q FAIL <<<"$out"; }; then record "launch_model.py ran" PASS "${#lines[@]} checks"
else record "launch_model.py ran" FAIL "exit $rc, ${#lines[@]} checks: $(tail -3 <<<"$out")"; fi
for l in "${lines[@]}"; do
    IFS=$'\t' read -r name status detail <<<"$l"
    record "$name" "$status" "$detail"
done
finish
