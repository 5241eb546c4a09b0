#!/usr/bin/env bash
# test_grading.sh - the grading machinery itself, on any machine (CI has no GPU): the student kit
# (no solution line in it, builds without warnings, its tests run to the end and fail, the
# solutions put back give the sources byte for byte), a planted exit() and a planted hang lose
# their points, grading the reference without a GPU earns exactly the CPU-runnable points, and the
# common suite finds the same tests wherever the course sits (inside another repository, or none).
# Slow (it builds the course three times): `make test-grading`, and CI; not part of `make test`.
suite=grading
cd "$(dirname "$0")/../.."
root=$PWD
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)

# A copy of the course with its build, so only what a mutation touches is rebuilt.
copy_course() { mkdir -p "$1" && tar --exclude=./.git --exclude=./.venv -cf - . | tar -xf - -C "$1"; }
ok() { "$@" && echo PASS || echo FAIL; }

in_dir() { (cd "$1" && shift && "$@"); } # in_dir DIR COMMAND...: COMMAND run in DIR
outer_repository() { # a fresh git repository with one commit that does not track the course
    mkdir -p "$1" && git -C "$1" init -q && echo outer > "$1/README.md" && git -C "$1" add README.md &&
        git -C "$1" -c user.name=t -c user.email=t@t commit -qm outer
}

kit_tests() {
    group "student kit"
    out=$(setup python3 common/course/course_kit.py kit "$tmp/kit" 2>&1 && setup python3 common/course/course_kit.py check "$tmp/kit" 2>&1)
    record "kit written and checked (no solution line, nothing instructor-only, byte-exact restore)" $(ok grep -q "0 problem(s)" <<<"$out") "$(tail -n 1 <<<"$out")"
    [ -f "$tmp/kit.tar.gz" ] && record "kit tarball" PASS "$(du -h "$tmp/kit.tar.gz" | cut -f1)" || record "kit tarball" FAIL "no $tmp/kit.tar.gz"
    setup in_dir "$tmp/kit" env CI=true make -j"$jobs" all > "$tmp/kit-build.log" 2>&1
    rc=$?
    warnings=$(grep -ciE "warning" "$tmp/kit-build.log" 2>/dev/null)
    record "kit builds without warnings" $([ $rc -eq 0 ] && [ "$warnings" -eq 0 ] && echo PASS || echo FAIL) "make exit $rc, $warnings warning lines"
    setup in_dir "$tmp/kit" env CI=true TEST_TIMEOUT=300 timeout 900 make test > "$tmp/kit/test.log" 2>&1
    rc=$?
    last=$(grep -E '^[0-9]+ passed, ' "$tmp/kit/test.log" | tail -n 1)
    record "kit: make test runs to the end and fails" $([ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' <<<"$last" && echo PASS || echo FAIL) "exit $rc: $last"
    # ... and only the student's work fails there: every failed test of a fresh kit is in a graded group
    # (a sanity group failing beside it would blame the course, or a README, for the student's stubs).
    ungraded=$(python3 - "$tmp/kit/build/test-results" 2>&1 <<'PY'
import glob, json, sys
bad, suites = [], 0
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    if "groups" not in d:  # summary.json: the totals, no groups
        continue
    suites += 1
    bad += [f"{d['suite']}: {g['group']} ({g['failed']} failed)" for g in d["groups"] if g["failed"] and not g["weight"]]
print("; ".join(bad) if suites else "no suite's results")
PY
)
    rc=$?
    record "kit: every failing test is in a graded group" $([ $rc -eq 0 ] && [ -z "$ungraded" ] && echo PASS || echo FAIL) "${ungraded:-none outside the graded groups}"
    setup in_dir "$tmp/kit" env CI=true GRADE=1 TEST_TIMEOUT=300 timeout 900 make test > "$tmp/kit/grade.log" 2>&1
    bad=0
    for s in 1 2 3 4 5; do
        grep -qE "^stage-$s +[0-9]+ +[1-9][0-9]* " "$tmp/kit/grade.log" || bad=$((bad + 1))
    done
    record "kit, grading mode: every stage suite fails, 0 points" $([ $bad -eq 0 ] && grep -qE '^points .* 0\.0 / 100' "$tmp/kit/grade.log" && echo PASS || echo FAIL) \
        "$bad stage suites without a failure; $(grep -E '^points' "$tmp/kit/grade.log" | tr -s ' ')"
    record "kit README starts with the students' getting started, no instructors' block" \
        $(sed -n 3p "$tmp/kit/README.md" | grep -q "Getting started" && ! grep -q "For instructors" "$tmp/kit/README.md" && echo PASS || echo FAIL) "line 3: $(sed -n 3p "$tmp/kit/README.md")"
    record "kit names the course's version it was made from" $(grep -qE '^[0-9a-f]{7}' "$tmp/kit/COURSE_VERSION" 2>/dev/null && echo PASS || echo FAIL) "$(head -n 1 "$tmp/kit/COURSE_VERSION" 2>&1)"
    out=$(setup in_dir "$tmp/kit" env CI=true make student-kit 2>&1)
    rc=$?
    record "kit: make student-kit refused with a message" $([ $rc -ne 0 ] && grep -q "student kit" <<<"$out" && echo PASS || echo FAIL) "exit $rc: $(head -n 1 <<<"$out")"
    # make grade in a fresh kit (no git, nothing built): stage 1 only is built, and its points are
    # make test-stage-1's, for the stubs, for the reference solution and for a wrong one.
    for who in stubs right wrong; do
        setup rm -rf "$tmp/kit-$who"
        setup tar -xzf "$tmp/kit.tar.gz" -C "$tmp" --transform "s,^kit,kit-$who,"
        [ $who = stubs ] || setup python3 common/course/course_kit.py splice "$root" "$tmp/kit-$who" "$tmp/kit-$who" 1 > /dev/null
        [ $who = wrong ] && setup sed -i 's|row_i\[i\] = sqrtf(d);|row_i[i] = sqrtf(d) * 1.5f;|' "$tmp/kit-$who/01_serial/cholesky_serial.c"
        setup in_dir "$tmp/kit-$who" env CI=true make grade STAGE=1 > "$tmp/kit-$who/grade.log" 2>&1
        built=$(ls "$tmp/kit-$who/build" 2>/dev/null | grep -v test-results | grep -v grade | tr '\n' ' ')
        graded=$(grep -E '^total ' "$tmp/kit-$who/grade.log" | awk '{print $2}')
        setup in_dir "$tmp/kit-$who" env CI=true make test-stage-1 > "$tmp/kit-$who/test.log" 2>&1
        tested=$(grep -E '^points ' "$tmp/kit-$who/test.log" | awk '{print $2}')
        record "kit ($who): make grade STAGE=1 builds only stage 1" $([ "$built" = "01_serial common datasets " ] || [ "$built" = "01_serial common " ] && echo PASS || echo FAIL) "build/ holds: $built"
        record "kit ($who): make grade STAGE=1 gives make test-stage-1's points" $([ -n "$graded" ] && [ "$graded" = "$tested" ] && echo PASS || echo FAIL) "make grade: ${graded:-none}; make test-stage-1: ${tested:-none}"
    done
}

crash_tests() {
    group "crash and hang"
    setup copy_course "$tmp/exit"
    setup python3 - "$tmp/exit/01_serial/cholesky_serial.c" "if (n >= 64) exit(1);" <<'PY'
import sys
p, plant = sys.argv[1:3]; s = open(p).read()
key = "    for (int i = 0; i < n; i++) {\n        float *row_i"
assert key in s
open(p, "w").write("#include <stdlib.h>\n" + s.replace(key, "    " + plant + "\n" + key, 1))
PY
    setup in_dir "$tmp/exit" env CI=true make test-stage-1 > "$tmp/exit/log" 2>&1
    rc=$?
    pts=$(grep -E '^points' "$tmp/exit/log" | awk '{print $2}')
    record "exit(1) in spotrf_serial for n >= 64: nonzero exit" $([ $rc -ne 0 ] && echo PASS || echo FAIL) "make exit $rc"
    record "exit(1) in spotrf_serial for n >= 64: at most half the points" $(python3 -c "import sys; sys.exit(0 if float('${pts:-99}') <= 5 else 1)" && echo PASS || echo FAIL) \
        "stage 1 earned ${pts:-?} / 10; $(grep -m1 'ended without' "$tmp/exit/log")"
    setup copy_course "$tmp/hang"
    setup python3 - "$tmp/hang/01_serial/cholesky_serial.c" "if (n >= 64) for (volatile int spin = 1; spin;) {}" <<'PY'
import sys
p, plant = sys.argv[1:3]; s = open(p).read()
key = "    for (int i = 0; i < n; i++) {\n        float *row_i"
open(p, "w").write(s.replace(key, "    " + plant + "\n" + key, 1))
PY
    # The stage's own limit (no TEST_TIMEOUT): a student learns of the hang, by the test's name, within a minute.
    setup in_dir "$tmp/hang" env CI=true make build-stage-1 > /dev/null 2>&1
    start=$(date +%s)
    setup in_dir "$tmp/hang" env CI=true timeout 300 make test-stage-1 > "$tmp/hang/log" 2>&1
    rc=$? took=$(( $(date +%s) - start ))
    record "infinite loop: the suite fails within a minute, by its own limit" $([ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -le 60 ] && grep -q "timed out after 20 s" "$tmp/hang/log" && echo PASS || echo FAIL) \
        "exit $rc after $took s (stage 1's limit: 20 s)"
    record "infinite loop: the FAIL line names the test that hung" $(grep -q "timed out after 20 s in test 'serial spd n=64" "$tmp/hang/log" && echo PASS || echo FAIL) "$(grep -m1 "timed out" "$tmp/hang/log" | cut -c1-200)"
    record "infinite loop: its unreported tests are FAILs" $(grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' "$tmp/hang/log" && echo PASS || echo FAIL) "$(grep -E "^[0-9]+ passed, " "$tmp/hang/log" | tail -n 1)"
    # A heap overflow under make SAN=1: reported as AddressSanitizer's, at the student's line.
    setup copy_course "$tmp/asan"
    setup python3 - "$tmp/asan/01_serial/cholesky_serial.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
key = "    for (int i = 0; i < n; i++) {\n        float *row_i"
open(p, "w").write("#include <stdlib.h>\n" + s.replace(key, "    if (n >= 64) { volatile float *x = malloc((size_t)n * sizeof *x); x[n] = 1; free((void *)x); }\n" + key, 1))
PY
    setup in_dir "$tmp/asan" env CI=true make SAN=1 test-stage-1 > "$tmp/asan/log" 2>&1
    rc=$?
    record "heap overflow under SAN=1: a crash named by the sanitizer, the test and the student's line" \
        $([ $rc -ne 0 ] && grep -qE "crashed: AddressSanitizer: heap-buffer-overflow in spotrf_serial at 01_serial/cholesky_serial.c:[0-9]+.* in test 'serial spd n=64" "$tmp/asan/log" && echo PASS || echo FAIL) \
        "exit $rc: $(grep -m1 "crashed" "$tmp/asan/log" | cut -c1-240)"
}

planted_tests() {
    group "planted mistakes"
    # Each typical wrong solution must cost at least half of a graded group (.ci/planted-bugs says
    # which group lost what). Stage 1 runs anywhere; the GPU stages need a GPU.
    setup bash .ci/planted-bugs 1 > "$tmp/planted-1.log" 2>&1
    rc=$?
    record "stage 1: wrong arithmetic with the right info, and half an OpenMP batch, each lose half a group" \
        $([ $rc -eq 0 ] && grep -q "^caught .*wrong arithmetic" "$tmp/planted-1.log" && echo PASS || echo FAIL) "$(tail -n 1 "$tmp/planted-1.log" 2>&1)"
    # The same mistakes through the instructor's make grade (only the solution regions are taken, on
    # the reference): each one in a region loses half a group there too, against the reference's grade.
    setup env PLANT_CHECK=grade bash .ci/planted-bugs 1 > "$tmp/planted-grade-1.log" 2>&1
    rc=$?
    record "stage 1 through make grade: each mistake in the solution regions loses half a group" \
        $([ $rc -eq 0 ] && grep -q "^caught .*upper triangle read" "$tmp/planted-grade-1.log" && echo PASS || echo FAIL) \
        "$(grep -E '^(NOT|KEPT)' "$tmp/planted-grade-1.log" | head -n 2 | tr '\n' ' ')$(tail -n 1 "$tmp/planted-grade-1.log" 2>&1)"
    if nvidia-smi -L > /dev/null 2>&1; then
        setup env PLANT_ONLY='ignores|barrier|remainder' bash .ci/planted-bugs 2 3 4 5 6 > "$tmp/planted-gpu.log" 2>&1
        rc=$?
        record "stages 2-6: layout ignored, missing barriers, dropped remainder tiles each lose half a group" \
            $([ $rc -eq 0 ] && echo PASS || echo FAIL) "$(grep -E '^(NOT|KEPT)' "$tmp/planted-gpu.log" | head -n 3 | tr '\n' ' ')$(tail -n 1 "$tmp/planted-gpu.log" 2>&1)"
    else
        record "stages 2-6: layout ignored, missing barriers, dropped remainder tiles each lose half a group" SKIP "$(gpu_reason)"
    fi
}

cpu_grading_tests() { # on a machine without a GPU
    group "grading without a GPU"
    setup python3 common/course/course_kit.py splice "$root" "$tmp/kit" "$tmp/sub" > /dev/null   # a submission holding the reference solution
    GRADE_JOBS=$jobs CI=true setup python3 common/course/grade.py --submission "$tmp/sub" --out "$tmp/grade" > "$tmp/grade.log" 2>&1
    rc=$?
    total=$(grep -E '^total' "$tmp/grade.log" 2>/dev/null | tr -s ' ')
    record "reference graded without a GPU: exactly the CPU points (9 of 110)" $([ $rc -eq 0 ] && grep -qE '^total +9\.0 / 110' "$tmp/grade.log" && echo PASS || echo FAIL) "exit $rc: $total"
    record "every GPU-only group scores 0" $(python3 - "$tmp/grade/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cpu = ("stage-1: serial", "stage-1: failing pivots", "stage-1: openmp")  # the groups that run without a GPU
gpu = [t for t in r["tests"] if not t["name"].startswith(cpu)]
print("PASS" if all(t["score"] == 0 for t in gpu) and r["score"] == 9 else "FAIL")
PY
    ) "$(python3 -c "import json; r=json.load(open('$tmp/grade/results.json')); print(len(r['tests']), 'tests in results.json, score', r['score'])")"
    record "results.json in the Gradescope format" $(python3 - "$tmp/grade/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keys = {"name", "score", "max_score", "status", "output", "visibility"}
print("PASS" if "score" in r and r["tests"] and all(keys <= set(t) for t in r["tests"]) else "FAIL")
PY
    ) "score, tests[] with name, score, max_score, status, output, visibility"
}

policy_tests() {
    group "solution policy"
    # A solution's regions run inside the programs that judge them: each way two students' audits found
    # to earn points without a Cholesky (2026-11-29) is refused by solution_policy.py, on the object
    # the compiler made, whatever macros built it; except writing into the harness's memory, which
    # only a process of its own would stop (INSTRUCTORS.md). Stage 1, a built copy of the course.
    setup copy_course "$tmp/policy"
    local src="$tmp/policy/01_serial/cholesky_serial.c" kind
    setup cp "$src" "$tmp/policy-reference.c"
    # plant REF DST BODY: DST is REF with the first region's content replaced by BODY (\n: a new line)
    plant() { setup python3 - "$@" <<'PY'
import sys
ref, dst, body = sys.argv[1:4]
s = open(ref).read()
begin = s.index("// BEGIN SOLUTION: factor A in place")
end = s.index("    // END SOLUTION", begin)
line_end = s.index("\n", begin) + 1
open(dst, "w").write(s[:line_end] + body.replace("\\n", "\n").replace("\\&", "&") + "\n" + s[end:])
PY
    }
    # KIND|what the finding must name|the first region's new content (\n: a new line)
    local cases=(
        'forge|calls fopen|    extern char *getenv(const char *);\n    extern void *fopen(const char *, const char *);\n    { const char *p = getenv("TEST_RESULTS"); if (p) (void)fopen(p, "a"); }\n    (void)n; (void)a; return 0;'
        'pasted|calls getenv|#define GLUE(x, y) x##y\n    (void)GLUE(get, env)("TEST_RESULTS");\n    (void)n; (void)a; return 0;'
        'interpose|defines fprintf|    (void)n; (void)a; return 0;\n}\n#include <stdio.h>\nint fprintf(FILE *s, const char *f, ...) { (void)s; (void)f; return 0; }\nstatic int tail_of_region(int n, float *a)\n{\n    (void)n; (void)a; return 0;'
        'harness|defines harness_check|    (void)n; (void)a; return 0;\n}\nint harness_check(void *h, int ok, const char *name) { (void)h; (void)ok; (void)name; return 1; }\nstatic int tail_of_region(int n, float *a)\n{\n    (void)n; (void)a; return 0;'
        'oracle|calls ref_potrf_d|    extern int ref_potrf_d(int n, double *a);\n    double x = 4.0; (void)ref_potrf_d(1, \&x); (void)n; (void)a; return 0;'
        'fork|calls fork|    extern int fork(void);\n    if (n == 12345) (void)fork();\n    (void)a; return 0;'
        'tsan|asks which build|#ifdef __SANITIZE_THREAD__\n#endif\n    (void)n; (void)a; return 0;'
        'syscall|raw system call|    if (n == 12345) __asm__ volatile("syscall" ::: "rax", "rcx", "r11", "memory");\n    (void)a; return 0;'
        'alias|calls __write|    extern long __write(int, const void *, unsigned long);\n    if (n == 12345) (void)__write(3, "x", 1);\n    (void)a; return 0;'
        'stream|calls fflush|    extern int fflush(void *);\n    if (n == 12345) (void)fflush(0);\n    (void)a; return 0;'
        'pie|asks which build|#ifdef __PIE__\n#endif\n    (void)n; (void)a; return 0;'
        'escape|closes a brace|    (void)n; (void)a; return 0;\n}\nstatic int tail_of_region(int n, float *a)\n{\n    (void)n; (void)a; return 0;'
    )
    for c in "${cases[@]}"; do
        IFS='|' read -r kind want body <<<"$c"
        plant "$tmp/policy-reference.c" "$src" "$body"
        setup in_dir "$tmp/policy" env CI=true make build/01_serial/cholesky_serial.o > "$tmp/policy-$kind.log" 2>&1
        out=$(setup python3 common/course/solution_policy.py "$tmp/policy" 1 2>&1)
        rc=$?
        record "refused: $kind" $([ $rc -eq 1 ] && grep -q "$want" <<<"$out" && echo PASS || echo FAIL) "exit $rc: $(head -n 2 <<<"$out" | cut -c1-200)$(grep -m1 -i error "$tmp/policy-$kind.log")"
    done
    setup cp "$tmp/policy-reference.c" "$src"
    setup in_dir "$tmp/policy" env CI=true make build/01_serial/cholesky_serial.o > /dev/null 2>&1
    out=$(setup python3 common/course/solution_policy.py "$tmp/policy" 1 2>&1)
    rc=$?
    record "the reference solution passes it" $([ $rc -eq 0 ] && [ -z "$out" ] && echo PASS || echo FAIL) "exit $rc ${out:0:200}"
    # Through make grade: the forged records score 0 with the finding named; files changed outside the
    # regions and files the course lacks are listed.
    setup rm -rf "$tmp/forge" && setup python3 common/course/course_kit.py splice "$root" "$tmp/kit" "$tmp/forge" 1 > /dev/null
    IFS='|' read -r kind want body <<<"${cases[0]}"
    plant "$tmp/policy-reference.c" "$tmp/forge/01_serial/cholesky_serial.c" "$body"
    setup sh -c "echo '/* edited */' >> '$tmp/forge/common/harness.c' && echo x > '$tmp/forge/01_serial/extra.c'"
    GRADE_JOBS=$jobs CI=true setup python3 common/course/grade.py --submission "$tmp/forge" --stage 1 --out "$tmp/grade-forge" > "$tmp/grade-forge.log" 2>&1
    rc=$?
    record "make grade: forged records score 0, the finding in the notes" $([ $rc -eq 0 ] && grep -qE '^total +0\.0 / 10' "$tmp/grade-forge.log" && grep -q "note: stage-1: .*calls getenv" "$tmp/grade-forge.log" && echo PASS || echo FAIL) \
        "exit $rc: $(grep -E '^total' "$tmp/grade-forge.log" | tr -s ' '); $(grep -m1 'calls getenv' "$tmp/grade-forge.log" | cut -c1-120)"
    record "make grade: every file changed outside the regions is listed" $(grep -q "note: common/harness.c: changed" "$tmp/grade-forge.log" && grep -q "note: 01_serial/extra.c: not a file of the course" "$tmp/grade-forge.log" && echo PASS || echo FAIL) \
        "$(grep -E '^note: (common/harness|01_serial/extra)' "$tmp/grade-forge.log" | tr '\n' ' ')"
}

harness_tests() {
    group "harness"
    # A test reported into a group that points.tsv lacks is a FAIL and counts in the totals (it once
    # vanished from them: 98 tests of the common suite were neither passed nor failed).
    printf 'known\t0\ta group of the suite\n' > "$tmp/points.tsv"
    printf 'suite=h; source common/harness.sh; plan known 1; plan stray 1; group known; record a PASS x; group stray; record b PASS y; finish\n' > "$tmp/stray.sh"
    setup python3 common/course/run_suite.py --suite h --points "$tmp/points.tsv" --results "$tmp/hres" "bash $tmp/stray.sh" > "$tmp/stray.log" 2>&1
    record "a test in a group missing from points.tsv fails and is counted" $(python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['groups']; sys.exit(0 if sum(x['failed'] for x in g) == 1 and sum(x['passed'] for x in g) == 1 else 1)" "$tmp/hres/h.json" && echo PASS || echo FAIL) \
        "$(python3 -c "import json,sys; print([(x['group'], x['passed'], x['failed']) for x in json.load(open(sys.argv[1]))['groups']])" "$tmp/hres/h.json" 2>&1)"
    # A total short of full never prints as full: 12 x 499/500 + 3 = 14.976 of 15 was shown as "15.0 / 15"
    # (one-decimal rounding), which reads as a clean run. Shown rounded down, it is 14.9.
    printf 'a\t12\tgroup a\nb\t3\tgroup b\n' > "$tmp/round.tsv"
    printf 'suite=r; source common/harness.sh; plan a 500; plan b 1; group a; for i in $(seq 499); do record "t$i" PASS x; done; record bad FAIL y; group b; record c PASS z; finish\n' > "$tmp/round.sh"
    setup python3 common/course/run_suite.py --suite r --points "$tmp/round.tsv" --results "$tmp/rres" "bash $tmp/round.sh" > "$tmp/round-run.log" 2>&1
    setup python3 common/course/test_summary.py "$tmp/rres/r.json" > "$tmp/round.log" 2>&1
    record "14.976 of 15 points shows as 14.9, never as 15.0" $(grep -qE '^points .* 14\.9 / 15' "$tmp/round.log" && echo PASS || echo FAIL) \
        "$(grep -E '^points' "$tmp/round.log" | tr -s ' ')"
    # A sanity group that runs the student's code (needs): skipped, with the probe's word, when the
    # probe fails; run when it passes. A student's bug then fails graded tests only.
    printf 'suite=n; source common/harness.sh; plan s 2; plan t 1; group s\nif needs s "your kernel" sh -c "echo at n = 33; exit 1"; then record a PASS x; record b PASS y; fi\ngroup t; needs t "your kernel" true && record c PASS z; finish\n' > "$tmp/needs.sh"
    setup bash -c "env -u TEST_RESULTS bash '$tmp/needs.sh' > '$tmp/needs.log' 2>&1" # its records are its own
    record "needs: a failed probe skips the group, saying why; a passing one runs it" \
        $(grep -q "^SKIP  n: needs your kernel to pass first (this sanity group runs your code too): at n = 33" "$tmp/needs.log" &&
            grep -q "^n: 1 passed, 0 failed, 2 skipped" "$tmp/needs.log" && echo PASS || echo FAIL) "$(tr '\n' ' ' < "$tmp/needs.log" 2>/dev/null)"
    # A crash before a GPU-only group (harness_plan_gpu) on a machine without a GPU: its tests would
    # have been skipped here, so they count as not run, not as the crash's failures.
    printf 'a\t1\tgroup a\ng\t1\ta GPU group\n' > "$tmp/gpu-points.tsv"
    cat > "$tmp/gpu-crash.sh" <<'SH'
printf 'PLAN\ta\t2\nPLAN\tg\t3\tgpu\nTEST\ta\tx\tPASS\td\n' > "$TEST_RESULTS"
kill -SEGV $$
SH
    setup python3 common/course/run_suite.py --suite gc --points "$tmp/gpu-points.tsv" --results "$tmp/gcres" "bash $tmp/gpu-crash.sh" > "$tmp/gpu-crash.log" 2>&1
    if nvidia-smi -L > /dev/null 2>&1; then
        record "a crash before a GPU-only group, no GPU here: its tests not run, not failed" SKIP "this machine has a GPU (the case is a machine without one)"
    else
        record "a crash before a GPU-only group, no GPU here: its tests not run, not failed" \
            $(python3 -c "import json,sys; g={x['group']: x for x in json.load(open(sys.argv[1]))['groups']}; sys.exit(0 if g['a']['failed'] == 1 and g['g']['skipped'] == 3 and g['g']['failed'] == 0 else 1)" "$tmp/gcres/gc.json" && echo PASS || echo FAIL) \
            "$(python3 -c "import json,sys; print([(x['group'], x['passed'], x['failed'], x['skipped']) for x in json.load(open(sys.argv[1]))['groups']])" "$tmp/gcres/gc.json" 2>&1)"
    fi
}

discovery_tests() {
    group "discovery anywhere"
    # The course (its build linked, not copied) inside a fresh repository that does not track it, and
    # in a folder with no git at all: the course suite, whose tests find READMEs and programs, must
    # run the same tests in both, and as many as here. A search that finds nothing fails its group.
    place_course() { mkdir -p "$1" && tar --exclude=./.git --exclude=./.venv --exclude=./build --exclude='./build-*' -cf - . | tar -xf - -C "$1" && ln -s "$root/${BUILD:-build}" "$1/${BUILD:-build}"; }
    common_tests() { # folder name -> "planned passed failed" of its course suite (results and log in $tmp/name)
        (cd "$1" && CI=true make --no-print-directory test-course RESULTS="$tmp/$2" > "$tmp/$2.log" 2>&1)
        python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['groups']; print(sum(x['planned'] for x in g), sum(x['passed'] for x in g), sum(x['failed'] for x in g))" "$tmp/$2/course.json" 2>/dev/null || echo "0 0 0"
    }
    setup outer_repository "$tmp/outer"
    setup place_course "$tmp/outer/course"
    setup place_course "$tmp/nogit/course"
    here=$(setup common_tests "$root" here)
    inside=$(setup common_tests "$tmp/outer/course" inside)
    nogit=$(setup common_tests "$tmp/nogit/course" nogit)
    record "inside another repository: the same tests as here" $([ "$inside" = "$here" ] && [ "${here%% *}" -gt 50 ] && echo PASS || echo FAIL) "here: $here; inside: $inside (planned passed failed)"
    record "in no repository: the same tests as here" $([ "$nogit" = "$here" ] && echo PASS || echo FAIL) "here: $here; no git: $nogit"
    # And a search that finds nothing: the READMEs gone, make-help must fail, not pass on nothing.
    setup find "$tmp/nogit/course" -name '*.md' -delete
    setup in_dir "$tmp/nogit/course" env CI=true make --no-print-directory test-course RESULTS="$tmp/empty" > "$tmp/nogit/empty.log" 2>&1
    rc=$?
    record "no README to check: the suite fails" $([ $rc -ne 0 ] && grep -q "planned no tests" "$tmp/nogit/empty.log" && echo PASS || echo FAIL) \
        "exit $rc: $(grep -m1 'planned no tests' "$tmp/nogit/empty.log")"
}

plan_from kit_tests crash_tests planted_tests policy_tests cpu_grading_tests harness_tests discovery_tests
kit_tests
crash_tests
planted_tests
policy_tests
if nvidia-smi -L > /dev/null 2>&1; then
    skip_rest "grading without a GPU" "this machine has a GPU (the GPU grading run is .ci/acceptance-gpu)"
else
    cpu_grading_tests
fi
harness_tests
discovery_tests
finish
