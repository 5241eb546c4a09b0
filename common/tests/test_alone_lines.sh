#!/usr/bin/env bash
# test_alone_lines.sh - every CUDA source of the course (*.cu, *.cuh) says in its header how to build
# and run its kernel alone: a line "Alone: make TARGET [&& COMMAND]". Each line is tried: make must
# know the target (make -n), and the command runs with the GPU hidden (CUDA_VISIBLE_DEVICES=""), so it
# must get as far as looking for the GPU: a bad option or a refused configuration fails, on every
# machine alike, and nothing here runs a kernel (this suite needs no student's answer). A program not
# built yet (make test-common alone builds only this suite's programs; make test builds them all)
# is a SKIP. The files are found from the course's folder (never git).
suite=alone-lines
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t files < <(find . \( -name build -o -name 'build-*' -o -name .venv -o -name .git \) -prune -o \
    \( -name '*.cu' -o -name '*.cuh' \) -type f -print | sed 's|^\./||' | sort)
[ ${#files[@]} -ge 20 ] || { echo "FAIL  $suite: found only ${#files[@]} CUDA sources (run from the course's folder)"; exit 1; }
plan "kernel files run alone" ${#files[@]}
group "kernel files run alone"
harness_gpu=0 # ran_as_shown: the GPU is hidden from the commands
for f in "${files[@]}"; do
    line=$(head -n 60 "$f" | grep -m1 -oE 'Alone: make .*' | sed -E 's|\s*\*/.*$||')
    if [ -z "$line" ]; then record "$f" FAIL "no 'Alone: make TARGET [&& COMMAND]' line in its header"; continue; fi
    targets=$(sed -E 's/^Alone: make ([^&]*).*/\1/' <<<"$line")
    command=$(grep -oE '&&.*' <<<"$line" | sed -E 's/^&&\s*//')
    # SAN=1 from make SAN=1 test would send make to build-san/: the lines name build/, the default build
    if ! env -u MAKEFLAGS -u MFLAGS -u SAN -u BUILD make -n --no-print-directory $targets >/dev/null 2>"$tmp/err"; then
        record "$f" FAIL "make $targets: $(tr '\n' ' ' <"$tmp/err" | cut -c1-200)"; continue
    fi
    if [ -z "$command" ]; then record "$f" PASS "make $targets"; continue; fi
    program=$(grep -oE '(^|\s)build/[^ ]+' <<<"$command" | head -n 1 | tr -d ' ')
    if [ -n "$program" ] && [ ! -x "$program" ]; then record "$f" SKIP "$program is not built (make test builds it)"; continue; fi
    # the command as a user types it; its own test records and CSV rows go nowhere
    out=$(env -u TEST_RESULTS CUDA_VISIBLE_DEVICES= BENCH_CSV="$tmp/bench.csv" timeout 120 bash -c "$command" 2>&1)
    rc=$?
    if ran_as_shown $rc "$out"; then record "$f" PASS "$command: exit $rc, up to the GPU"
    else record "$f" FAIL "$command: exit $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"; fi
done
finish
