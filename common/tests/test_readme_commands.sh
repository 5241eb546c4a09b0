#!/usr/bin/env bash
# test_readme_commands.sh - every program command a README shows (a line of a code block that
# starts with build/, or "$ build/") runs as shown. It runs in a scratch folder where build/ is
# the course's; an input file the command names and the scratch folder lacks is generated first
# (a small valid dataset), so what is tested is the command line itself. With a GPU the command
# must exit 0; without one it must exit 0 or complain only about the missing GPU. A command that
# ran and found its factor wrong is skipped: the factors are the graded groups' business.
suite=readme-commands
root=$PWD
bin=${BUILD:-build}
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$root/$bin" "$tmp/build"
# The course's own READMEs, found from its folder (never through git: the course may sit inside
# another repository, untracked, or in no repository at all).
mapfile -t mds < <(course_markdown)
mapfile -t cmds < <(grep -hE '^\s*(\$ )?build/' "${mds[@]}" | sed -E 's/^\s*(\$ )?//; s/\s+#.*$//' | sort -u)
plan "README commands" ${#cmds[@]}
group "README commands"
for cmd in "${cmds[@]}"; do
    read -ra argv <<<"$cmd"
    # Inputs: the value after --input, or dataset_check's file argument.
    for ((i = 1; i < ${#argv[@]}; i++)); do
        f=
        [ "${argv[i - 1]}" = --input ] && f=${argv[i]}
        [[ ${argv[0]} == */dataset_check && ${argv[i]} != -* ]] && f=${argv[i]}
        if [ -n "$f" ] && [ ! -e "$tmp/$f" ]; then
            mkdir -p "$tmp/$(dirname "$f")"
            fmt=bin; [[ $f == *.txt ]] && fmt=txt
            count=3; [[ ${argv[0]} == */cholesky_one ]] && count=1      # the one-matrix driver
            "$root/$bin/datasets/gen_dataset" --n 8 --count $count --format $fmt --out "$tmp/$f" >/dev/null 2>&1
        fi
    done
    # TEST_RESULTS is this suite's: a test program shown in a README (test_plan) keeps its records to itself.
    out=$(cd "$tmp" && env -u TEST_RESULTS timeout 600 "${argv[@]}" 2>&1)
    rc=$?
    if ran_as_shown $rc "$out"; then
        record "$cmd" PASS "exit $rc"
    elif [ $rc -eq 1 ] && grep -qE "CHECK FAILED|\): WRONG|result check after timing" <<<"$out"; then
        # It ran as shown and checked its factor, which is wrong: a stage's code (a student's, whose
        # graded groups fail for it), not this command line.
        record "$cmd" SKIP "needs the stage's code to factor right first (its graded groups): the command ran, its check failed"
    else
        record "$cmd" FAIL "exit $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"
    fi
done
finish
