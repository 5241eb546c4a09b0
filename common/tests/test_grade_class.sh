#!/usr/bin/env bash
# test_grade_class.sh - make grade-class for real, on three submissions made from the student kit:
# alice (the reference solution, a folder), bob (the untouched kit, a .tar.gz) and carol (the
# reference with one stage-2 bug: a missing barrier in the tile POTRF). Stages 1 and 2 are graded
# (without a GPU only stage 1 earns points; on a GPU carol loses stage 2's).
#   here:   grade-class without Slurm gives every student exactly the points of their own
#           `make grade`; a second run grades nobody again (same content, same commit).
#   Slurm:  on the cluster that is running (CI: .ci/slurm-up, a real one-node cluster), a job array
#           in which carol's task is cancelled mid-run: she is reported failed with Slurm's reason,
#           the others graded; run again, only carol is graded, and the table equals make grade's.
# If no Slurm cluster answers, the Slurm group fails saying why (it is never skipped quietly).
# Slow (about ten builds of the course; ccache helps): `make test-grade-class`, and CI.
suite=grade-class
cd "$(dirname "$0")/../.."
root=$PWD
source common/harness.sh
tmp=$(mktemp -d)
trap 'scancel --name=grade-class >/dev/null 2>&1; rm -rf "$tmp"' EXIT
stages="1 2"

slurm_class_grading() { # the class through Slurm, in the background: maker = the pid of make
    make --no-print-directory grade-class SUBMISSIONS="$tmp/subs" STAGE="$stages" SLURM=1 CLASS_OUT="$tmp/slurm" > "$tmp/slurm.log" 2>&1 &
    maker=$!
}

here_tests() {
    group "class grading here"
    start=$(date +%s)
    setup make --no-print-directory grade-class SUBMISSIONS="$tmp/subs" STAGE="$stages" SLURM=0 CLASS_OUT="$tmp/local" > "$tmp/local.log" 2>&1
    rc=$? took=$(( $(date +%s) - start ))
    got=$(status_of "$tmp/local/grades.csv")
    record "three submissions graded here (folder, tarball, folder)" $([ $rc -eq 0 ] && [ "$got" = "alice=graded bob=graded carol=graded" ] && echo PASS || echo FAIL) "exit $rc in $took s: $got"
    res=$(same_as_make_grade "$tmp/local")
    record "every student's points are make grade's" $([[ $res == *"as make grade" ]] && echo PASS || echo FAIL) "$res"
    record "summary.md: mean and median per stage" $(grep -qE '^## stage-1: mean [0-9.]+, median [0-9.]+ of' "$tmp/local/summary.md" 2>/dev/null && grep -qE '^## stage-2: ' "$tmp/local/summary.md" && echo PASS || echo FAIL) \
        "$(grep -m1 '^## stage-1' "$tmp/local/summary.md" 2>/dev/null)"
    record "grades.csv: points per stage and group, GPU and time" $(head -n 1 "$tmp/local/grades.csv" 2>/dev/null | grep -q 'student,status,total,max,stage-1,stage-2,stage-1: serial' && head -n 1 "$tmp/local/grades.csv" | grep -q 'gpu,seconds' && echo PASS || echo FAIL) \
        "$(head -n 1 "$tmp/local/grades.csv" 2>/dev/null | cut -c1-120)"
    start=$(date +%s)
    setup make --no-print-directory grade-class SUBMISSIONS="$tmp/subs" STAGE="$stages" SLURM=0 CLASS_OUT="$tmp/local" > "$tmp/local2.log" 2>&1
    rc=$? took=$(( $(date +%s) - start )) kept=$(grep -c "graded before with the same content" "$tmp/local2.log" 2>/dev/null)
    record "run again: nobody graded twice (same content, same commit)" $([ $rc -eq 0 ] && [ "$kept" -eq 3 ] && [ $took -lt 60 ] && echo PASS || echo FAIL) "exit $rc, $kept of 3 kept, $took s"
}

slurm_tests() { # on a Slurm cluster that answers
    group "class grading through Slurm"
    record "cluster up" PASS "$(sinfo -h -o '%P %D nodes %T %c CPUs' | head -n 1)"
    export SLURM_GRES="" SLURM_CPUS=1   # the CI node has no GPU and two cores: two tasks at a time
    # Without ccache a task grades for a minute or more (with it, in seconds: done before the cancel).
    export CCACHE_DISABLE=1
    maker=
    setup slurm_class_grading # in the background (maker: its pid)
    cancelled=""
    for _ in $(seq 1200); do    # carol's task (array index 2) running: cancel it
        if grep -qs '"status": "running"' "$tmp/slurm/carol/status.json"; then
            job=$(cut -d' ' -f1 "$tmp/slurm/slurm/array_job")
            scancel "${job}_2" && cancelled="array task ${job}_2 cancelled while it graded"
            break
        fi
        kill -0 $maker 2>/dev/null || break
        sleep 1
    done
    wait $maker
    rc=$?
    record "array: carol cancelled mid-run" $([ -n "$cancelled" ] && [ $rc -ne 0 ] && echo PASS || echo FAIL) "${cancelled:-the task of carol never ran}; make exit $rc (a failed task fails the run)"
    reason=$(python3 -c "import csv,sys; print(next(r['reason'] for r in csv.DictReader(open(sys.argv[1])) if r['student']=='carol'))" "$tmp/slurm/grades.csv" 2>/dev/null)
    record "carol reported failed with Slurm's reason" $(status_of "$tmp/slurm/grades.csv" | grep -q "carol=failed" && grep -qi "cancelled" <<<"$reason" && grep -q "carol" "$tmp/slurm/summary.md" && echo PASS || echo FAIL) "$reason"
    record "alice and bob graded" $(status_of "$tmp/slurm/grades.csv" | grep -q "alice=graded bob=graded" && echo PASS || echo FAIL) "$(status_of "$tmp/slurm/grades.csv")"
    record "Slurm logs kept beside the results" $(ls "$tmp"/slurm/alice/slurm-*_0.out "$tmp"/slurm/carol/slurm-*_2.out >/dev/null 2>&1 && echo PASS || echo FAIL) "$(ls "$tmp"/slurm/*/slurm-*.out 2>/dev/null | wc -l) task logs"
    setup make --no-print-directory grade-class SUBMISSIONS="$tmp/subs" STAGE="$stages" SLURM=1 CLASS_OUT="$tmp/slurm" > "$tmp/slurm2.log" 2>&1
    rc=$? kept=$(grep -c "graded before with the same content" "$tmp/slurm2.log" 2>/dev/null)
    record "run again: only carol graded" $([ $rc -eq 0 ] && [ "$kept" -eq 2 ] && grep -q "1 tasks" "$tmp/slurm2.log" && echo PASS || echo FAIL) "exit $rc, $kept kept; $(grep -m1 'job array' "$tmp/slurm2.log")"
    res=$(same_as_make_grade "$tmp/slurm")
    record "the class table equals make grade's" $([[ $res == *"as make grade" ]] && echo PASS || echo FAIL) "$res"
}

plan_from here_tests slurm_tests # (the helpers they call are defined below: counting needs none of them)

# The submissions.
python3 common/course/course_kit.py kit "$tmp/kit" >/dev/null
mkdir -p "$tmp/subs"
python3 common/course/course_kit.py splice "$root" "$tmp/kit" "$tmp/subs/alice" >/dev/null
tar -czf "$tmp/subs/bob.tar.gz" -C "$tmp" kit
python3 common/course/course_kit.py splice "$root" "$tmp/kit" "$tmp/subs/carol" >/dev/null
python3 - "$tmp/subs/carol/02_single_tile/tile_helpers.cuh" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
key = "        __syncthreads(); // column k of L is ready for the update\n"
assert key in s, "the planted bug's anchor moved"
open(p, "w").write(s.replace(key, "", 1))
PY

# What make grade gives each one: "test<TAB>score" per line, sorted.
scores() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('\n'.join(sorted(f\"{t['name']}\t{t['score']}\" for t in r['tests'])))" "$1" 2>/dev/null; }
total() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['score'])" "$tmp/grade-$1.json" 2>/dev/null; }
declare -A want
for s in alice bob carol; do
    dir=$tmp/subs/$s
    [ $s = bob ] && dir=$tmp/kit
    make --no-print-directory grade SUBMISSION="$dir" STAGE="$stages" > "$tmp/grade-$s.log" 2>&1 || true
    want[$s]=$(scores build/grade/results.json)
    cp build/grade/results.json "$tmp/grade-$s.json" 2>/dev/null
done
same_as_make_grade() { # same_as_make_grade CLASS_OUT: every student's class results equal make grade's
    local bad=""
    for s in alice bob carol; do
        [ -n "${want[$s]}" ] && [ "$(scores "$1/$s/results.json")" = "${want[$s]}" ] || bad="$bad $s"
    done
    [ -z "$bad" ] && echo "alice $(total alice), bob $(total bob), carol $(total carol) points, as make grade" || echo "differ from make grade:$bad"
}
status_of() { python3 -c "import csv,sys; print(' '.join(r['student']+'='+r['status'] for r in csv.DictReader(open(sys.argv[1]))))" "$1" 2>/dev/null; }

here_tests
if ! command -v sbatch >/dev/null || ! sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    why=$(command -v sbatch >/dev/null && echo "sinfo: $(sinfo 2>&1 | tail -n 1)" || echo "sbatch is not installed")
    fail_rest "class grading through Slurm" "no Slurm cluster answers ($why); CI starts one with .ci/slurm-up"
    finish
fi
slurm_tests
finish
