#!/usr/bin/env bash
# test_cli_conventions.sh - every program of the course follows one set of command-line rules
# (common/cli.h): -h and --help print the usage on stdout and exit 0; an unknown option, a
# missing value or a bad value prints ONE line on stderr (what was wrong, what is allowed) and
# exits 2; --opt=value means --opt value. The programs are every executable the build made that
# is not a test; the parsers run before any GPU is looked for, so this runs everywhere.
suite=cli-conventions
source common/harness.sh
bin=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t progs < <(find "$bin"/0[1-6]_* "$bin"/datasets -maxdepth 1 -type f -perm -u+x ! -name 'test_*' ! -name '*.o' ! -name '*.so' | sort)
# Programs with an option that takes a number, and a value it refuses: "PROGRAM OPTION BAD".
valued=("datasets/gen_dataset --n 0" "03_left_right_top/cholesky_one --n 0" "04_interleaved/cholesky_batched --n 0"
        "06_tuning/cholesky_tuned --batch 0" "06_tuning/tune --ns 0")
plan "CLI conventions" $((5 * ${#progs[@]} + 3 * ${#valued[@]} + 3))
group "CLI conventions"

# run NAME STATUS STREAM PHRASE COMMAND...: the exit status, and the PHRASE on STREAM (out: stdout
# and nothing on stderr; err: exactly one line on stderr and nothing on stdout).
run() {
    local name=$1 want=$2 stream=$3 phrase=$4
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne "$want" ]; then record "$name" FAIL "exit $rc, not $want: $(head -c 200 "$tmp/err")"
    elif [ "$stream" = out ] && { [ -s "$tmp/err" ] || ! grep -qF -- "$phrase" "$tmp/out"; }; then
        record "$name" FAIL "stdout lacks '$phrase' or stderr not empty: $(head -c 200 "$tmp/err")"
    elif [ "$stream" = err ] && { [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] || ! grep -qF -- "$phrase" "$tmp/err"; }; then
        record "$name" FAIL "want one line on stderr with '$phrase'; got $lines lines: $(head -c 200 "$tmp/err")"
    else record "$name" PASS "exit $rc"; fi
}

# twice FILE: the options a --help text describes in more than one place, one a line. An option is
# described by the lines that start with it (after the two-space indent; deeper lines continue the
# line above): those lines must follow each other, and the lines of another entry must not give it
# a value (--opt 1, --opt a|b). The synopsis (the usage line and the lines under it) only lists them.
twice() {
    awk 'FNR == 1 { pass++; cur = "usage"; prev = "" }
         /^  [^ ]/ { cur = match($0, /^  --[a-z][a-z0-9-]*/) ? substr($0, 3, RLENGTH - 2) : "line " FNR }
         pass == 1 { if (cur ~ /^--/) heads[cur] = 1; next }
         /^  [^ ]/ && cur ~ /^--/ { if (cur != prev && seen[cur]) bad[cur] = 1; seen[cur] = 1 }
         /^  [^ ]/ { prev = cur }
         cur != "usage" { rest = $0
             while (match(rest, /--[a-z][a-z0-9-]*[ =]([0-9]|[^ ]*[|])/)) {
                 opt = substr(rest, RSTART, RLENGTH); sub(/[ =].*/, "", opt)
                 if (heads[opt] && opt != cur) bad[opt] = 1
                 rest = substr(rest, RSTART + RLENGTH) } }
         END { for (o in bad) print o }' "$1" "$1" | sort
}

for p in "${progs[@]}"; do
    name=${p#"$bin"/}
    run "$name -h" 0 out "usage: $(basename "$p")" "$p" -h
    run "$name --help" 0 out "usage: $(basename "$p")" "$p" --help
    again=$(twice "$tmp/out" | tr '\n' ' ')
    if [ -z "$again" ]; then record "$name --help describes each option once" PASS "no option in two places"
    else record "$name --help describes each option once" FAIL "described in two places: ${again% }"; fi
    run "$name unknown option" 2 err "unknown option '--no-such-option'" "$p" --no-such-option
    run "$name stray -x" 2 err "unknown option '-x'" "$p" -x
done
for v in "${valued[@]}"; do
    read -r prog opt bad <<<"$v"
    run "$prog $opt $bad" 2 err "bad value for $opt: '$bad' (" "$bin/$prog" "$opt" "$bad"
    run "$prog $opt=$bad" 2 err "bad value for $opt: '$bad' (" "$bin/$prog" "$opt=$bad"
    run "$prog $opt without a value" 2 err "$opt needs a value" "$bin/$prog" "$opt"
done

# --opt=value is --opt value: the same bytes.
"$bin/datasets/gen_dataset" --n 5 --count 3 --seed 9 --out "$tmp/a.bin" >/dev/null 2>&1
run "gen_dataset --opt=value runs" 0 out "" "$bin/datasets/gen_dataset" --n=5 --count=3 --seed=9 --out="$tmp/b.bin"
if cmp -s "$tmp/a.bin" "$tmp/b.bin"; then record "--opt=value writes what --opt value writes" PASS "same bytes"
else record "--opt=value writes what --opt value writes" FAIL "the files differ"; fi
# The usage of the stage 06 driver names, per option, the kernels that read it, and says no more.
"$bin/06_tuning/cholesky_tuned" --help >"$tmp/help" 2>&1
if grep -q "tiles only" "$tmp/help"; then record "cholesky_tuned usage consistent" FAIL "says '--order tiles only'"
elif grep -qE -- "--order .*read by:.*tiles.*thread|--order .*read by:.*thread.*tiles" "$tmp/help"; then
    record "cholesky_tuned usage consistent" PASS "--order read by thread and tiles"
else record "cholesky_tuned usage consistent" FAIL "no '--order ... read by: thread tiles' line"; fi
finish
