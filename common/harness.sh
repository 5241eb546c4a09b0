# harness.sh - the shell twin of harness.h for test scripts: source it, then
#   suite=NAME; plan GROUP COUNT ...; group GROUP; record NAME PASS|FAIL|SKIP DETAIL; ...; finish
# Records go to $TEST_RESULTS in the format run_suite.py reads (PLAN / TEST / END lines), so a
# script that dies half-way loses the tests it did not report, exactly like a C test program.
passed=0 failed=0 skipped=0 current_group=
declare -A planned_count reported_count

plan() { # plan GROUP COUNT: before the first test
    planned_count[$1]=$2
    reported_count[$1]=0
    [ -n "${TEST_RESULTS:-}" ] && printf 'PLAN\t%s\t%d\n' "$1" "$2" >> "$TEST_RESULTS"
    return 0
}

plan_from() { # plan_from FUNCTION...: plan every group the FUNCTIONs report tests into, with the number of
              # tests they report there, found by running them first in a subshell where tests are only
              # counted: expect and record count and return, `setup` steps are skipped. So the counts
              # come from the tests themselves. The number of tests must not depend on results (each
              # arm of an if reports as many); a step with a cost or a side effect that is not a test
              # goes through `setup`.
    local counts n g f
    counts=$(
        harness_counting=1 harness_order=()
        declare -A harness_counted=()
        for f in "$@"; do "$f" > /dev/null 2>&1; done
        for g in "${harness_order[@]}"; do printf '%s\t%s\n' "${harness_counted[$g]}" "$g"; done
    )
    [ -n "$counts" ] || { echo "$suite: harness misuse: $* report no test" >&2; exit 3; }
    while IFS=$'\t' read -r n g; do plan "$g" "$n"; done <<<"$counts"
}

setup() { # setup COMMAND...: a step of a test function that is not a test (make a file, a reference
          # run that a later test compares with); skipped while plan_from counts
    [ -n "${harness_counting:-}" ] && return 0
    "$@"
}

group() { # group GROUP: the group of the tests that follow
    [ -n "${harness_counting:-}" ] && { current_group=$1; return 0; }
    [ -n "${planned_count[$1]+x}" ] || { echo "$suite: harness misuse: group '$1' was never planned" >&2; exit 3; }
    current_group=$1
}

record() { # record NAME PASS|FAIL|SKIP DETAIL
    if [ -n "${harness_counting:-}" ]; then
        [ -n "${harness_counted[$current_group]+x}" ] || harness_order+=("$current_group")
        harness_counted[$current_group]=$((${harness_counted[$current_group]:-0} + 1))
        return 0
    fi
    [ -n "$current_group" ] || { echo "$suite: harness misuse: a test before 'group'" >&2; exit 3; }
    case $2 in
        PASS) passed=$((passed + 1)); [ -n "${TEST_VERBOSE:-}" ] && echo "PASS  $suite: $1  $3" ;;
        FAIL) failed=$((failed + 1)); echo "FAIL  $suite: $1  $3" ;;
        SKIP) skipped=$((skipped + 1)) # one line per reason, as harness.c prints it: every skip is shown
              if [ "$3" != "${last_skip_reason:-}" ]; then
                  echo "SKIP  $suite: $3 (shown once: the later tests skipped for this reason are counted, not listed)"
                  last_skip_reason=$3
              fi ;;
    esac
    reported_count[$current_group]=$((reported_count[$current_group] + 1))
    [ -n "${TEST_RESULTS:-}" ] && printf 'TEST\t%s\t%s\t%s\t%s\n' "$current_group" "$1" "$2" "$(tr '\t\n' '  ' <<<"$3")" >> "$TEST_RESULTS"
    return 0
}

expect() { # expect NAME STATUS PHRASE COMMAND...: one test of a program: its exit status and a phrase in
           # its output (stdout and stderr together, left in $out and $rc for further checks)
    local name=$1 want=$2 phrase=$3
    shift 3
    if [ -n "${harness_counting:-}" ]; then out= rc=0; record "$name" PASS "counted"; return 0; fi
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq "$want" ] && grep -q -- "$phrase" <<<"$out"; then record "$name" PASS "exit $rc: $(grep -m1 -- "$phrase" <<<"$out")"
    else record "$name" FAIL "exit $rc (want $want, '$phrase'), output: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"; fi
}

cases() { # cases ARRAY <<'EOF': a table of `expect` tests, one line each, read before any test runs
          #   NAME | STATUS | PHRASE | COMMAND      (COMMAND: shell words, expanded when the test runs)
          # blank lines and # comments are skipped; plan the group with ${#ARRAY[@]}: the count comes
          # from the table, never from a number kept by hand
    local -n cases_=$1
    local line
    cases_=()
    while IFS= read -r line; do
        [[ -z ${line//[[:space:]]/} || $line =~ ^[[:space:]]*# ]] && continue
        cases_+=("$line")
    done
}

run_cases() { # run_cases ARRAY: every line of a cases table as expect NAME STATUS PHRASE COMMAND
    local -n run_=$1
    local line name want phrase cmd
    for line in "${run_[@]}"; do
        name=${line%% | *} line=${line#* | }
        want=${line%% | *} line=${line#* | }
        phrase=${line%% | *} cmd=${line#* | }
        eval "expect \"\$name\" \"\$want\" \"\$phrase\" $cmd"
    done
}

skip_rest() { # skip_rest GROUP REASON: every planned test of GROUP not yet reported
    group "$1"
    while [ "${reported_count[$1]}" -lt "${planned_count[$1]}" ]; do record "$1 #$((reported_count[$1] + 1))" SKIP "$2"; done
}

needs() { # needs GROUP WHAT COMMAND...: a sanity GROUP (0 points) that runs the student's code runs only
          # when COMMAND, a quick check of that code, succeeds (return 0); else the rest of GROUP is
          # skipped, naming WHAT, and 1 is returned: a student's bug fails only graded tests
    [ -n "${harness_counting:-}" ] && return 0
    local said
    said=$("${@:3}" 2>&1) && return 0
    said=$(head -n 1 <<<"$said")
    skip_rest "$1" "needs $2 to pass first (this sanity group runs your code too)${said:+: $said}"
    return 1
}

fail_rest() { # fail_rest GROUP REASON: every planned test of GROUP not yet reported fails (a group that
             # cannot run where it must, e.g. no Slurm cluster on CI)
    group "$1"
    while [ "${reported_count[$1]}" -lt "${planned_count[$1]}" ]; do record "$1 #$((reported_count[$1] + 1))" FAIL "$2"; done
}

finish() { # the end: plans met? exit status 0 only if nothing failed
    local ok=1 g
    for g in "${!planned_count[@]}"; do
        if [ "${reported_count[$g]}" -ne "${planned_count[$g]}" ]; then
            echo "FAIL  $suite: group '$g' planned ${planned_count[$g]} tests but reported ${reported_count[$g]}"
            ok=0
        fi
    done
    echo "$suite: $passed passed, $failed failed, $skipped skipped"
    [ -n "${TEST_RESULTS:-}" ] && printf 'END\t%s\n' "$suite" >> "$TEST_RESULTS"
    [ $failed -eq 0 ] && [ $ok = 1 ] && exit 0 || exit 1
}
checker_lines() { # checker_lines GROUP NAME MIN COMMAND...: a checker (NAME) that prints one line a check,
                  # 'CHECK<TAB>PASS|FAIL|SKIP<TAB>DETAIL': each line a test of GROUP, planned here, and one
                  # more, "NAME ran", that fails when it died (an exit other than 0 with no FAIL line to say
                  # why) or checked fewer than MIN things, so that a checker that checks nothing fails
    local out rc l check status detail
    local -a lines
    out=$("${@:4}" 2>&1)
    rc=$?
    mapfile -t lines < <(grep -P '^[^\t]+\t(PASS|FAIL|SKIP)\t' <<<"$out")
    plan "$1" $((${#lines[@]} + 1))
    group "$1"
    if [ ${#lines[@]} -ge "$3" ] && { [ $rc -eq 0 ] || grep -qP '^[^\t]+\tFAIL\t' <<<"$out"; }; then
        record "$2 ran" PASS "${#lines[@]} checks"
    else record "$2 ran" FAIL "exit $rc, ${#lines[@]} checks: $(tail -3 <<<"$out")"; fi
    for l in "${lines[@]}"; do
        IFS=$'\t' read -r check status detail <<<"$l"
        record "$check" "$status" "$detail"
    done
}
ran_as_shown() { # ran_as_shown RC OUTPUT: a command the course shows its users worked: exit 0, or, on a machine
                  # without a GPU, it got as far as looking for one (a bad option or a refused configuration fails)
    [ -n "${harness_gpu:-}" ] || { nvidia-smi -L >/dev/null 2>&1 && harness_gpu=1 || harness_gpu=0; }
    [ "$1" -eq 0 ] || { [ "$harness_gpu" = 0 ] && grep -qE "no CUDA device|no NVIDIA driver|NVIDIA driver older" <<<"$2"; }
}
gpu_reason() { # why no GPU test can run here, as it is (harness.c's gpu_available says the same)
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then echo "no CUDA device usable"
    elif [ -e /proc/driver/nvidia/version ]; then echo "no CUDA device"
    else echo "no NVIDIA driver"; fi
}
course_markdown() { # every *.md of the course (run from its root): its own files, not build output
    find . \( -name build -o -name 'build-*' -o -name .venv -o -name .git -o -name node_modules \) -prune -o \
        -name '*.md' -type f -print | sort
}
