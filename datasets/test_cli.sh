#!/usr/bin/env bash
# test_cli.sh BINDIR - the dataset command-line tools: bad arguments and bad files exit with
# status 2 and a clear message, the same seed gives the same bytes, text and binary agree.
# Records each test in $TEST_RESULTS like the C harness does.
bin=$1
here=$(pwd)
suite=datasets-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../common/harness.sh"

expect_exit2() { # expect_exit2 NAME PHRASE COMMAND...
    local name=$1 phrase=$2
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$phrase" <<<"$out"; then record "$name" PASS "exit 2: $(head -n 1 <<<"$out")"
    else record "$name" FAIL "exit $rc, output: $(head -n 1 <<<"$out")"; fi
}

touch "$tmp/afile"
# Bad arguments: one line each, NAME | STATUS | PHRASE | COMMAND.
cases argument_checks <<'EOF'
gen: n = 0 | 2 | bad value for --n | "$bin/gen_dataset" --n 0 --out "$tmp/x.bin"
gen: n negative | 2 | bad value for --n | "$bin/gen_dataset" --n -4 --out "$tmp/x.bin"
gen: count = 0 | 2 | bad value for --count | "$bin/gen_dataset" --count 0 --out "$tmp/x.bin"
gen: count not a number | 2 | bad value for --count | "$bin/gen_dataset" --count 12abc --out "$tmp/x.bin"
gen: unknown family | 2 | bad value for --family | "$bin/gen_dataset" --family wishart --out "$tmp/x.bin"
gen: unknown option | 2 | unknown option | "$bin/gen_dataset" --size 3
gen: missing value | 2 | needs a value | "$bin/gen_dataset" --n
gen: fail-at beyond n | 2 | larger than n | "$bin/gen_dataset" --family nonspd --n 4 --fail-at 9 --out "$tmp/x.bin"
gen: unwritable output | 2 | is not a directory | "$bin/gen_dataset" --n 4 --count 2 --out "$tmp/afile/x.bin"
gen: --kappa without illcond | 2 | applies only to --family illcond | "$bin/gen_dataset" --kappa 10 --out "$tmp/x.bin"
gen: --fail-at without nonspd | 2 | applies only to --family nonspd | "$bin/gen_dataset" --family illcond --fail-at 3 --out "$tmp/x.bin"
gen: a petabyte | 2 | at most 1 PiB | "$bin/gen_dataset" --n 65536 --count 1099511627776 --out "$tmp/x.bin"
gen: more than the disk holds | 2 | its filesystem has | "$bin/gen_dataset" --n 2 --count 1099511627776 --out "$tmp/x.bin"
EOF
plan "dataset CLI" $((${#argument_checks[@]} + 22))   # the table, and the tests below it
group "dataset CLI"
run_cases argument_checks
out=$(cd "$tmp" && mkdir fresh && cd fresh && "$here/$bin/gen_dataset" --n 3 --count 2 2>&1) && [ -f "$tmp/fresh/datasets/data/spd_n3_c2_s2017.bin" ]
record "gen: default output directory created" $([ $? -eq 0 ] && echo PASS || echo FAIL) "$out"
out=$("$bin/gen_dataset" --n 3 --count 2 --out "$tmp/new/sub/x.txt" --format txt 2>&1) && [ -f "$tmp/new/sub/x.txt" ]
record "gen: output directories created" $([ $? -eq 0 ] && echo PASS || echo FAIL) "$out"
if [ -w /dev/full ]; then
    expect_exit2 "gen: disk full" "write error" "$bin/gen_dataset" --n 64 --count 5000 --out /dev/full
else record "gen: disk full" SKIP "no /dev/full"; fi
for prog in gen_dataset dataset_check hp3_study; do
    out=$("$bin/$prog" --help 2>&1); rc=$?
    record "$prog --help exits 0" $([ $rc -eq 0 ] && grep -q usage <<<"$out" && echo PASS || echo FAIL) "exit $rc: $(head -n 1 <<<"$out")"
done

# Determinism, and text == binary.
"$bin/gen_dataset" --family illcond --n 17 --count 300 --seed 5 --out "$tmp/a.bin" >/dev/null
"$bin/gen_dataset" --family illcond --n 17 --count 300 --seed 5 --out "$tmp/b.bin" >/dev/null
"$bin/gen_dataset" --family illcond --n 17 --count 300 --seed 6 --out "$tmp/c.bin" >/dev/null
cmp -s "$tmp/a.bin" "$tmp/b.bin" && ! cmp -s "$tmp/a.bin" "$tmp/c.bin"
record "gen: same seed same bytes" $([ $? -eq 0 ] && echo PASS || echo FAIL) "seed 5 twice identical, seed 6 differs"
"$bin/gen_dataset" --n 100 --count 700 --seed 5 --out "$tmp/big.bin" >/dev/null
size=$(stat -c %s "$tmp/big.bin")
record "gen: file size matches header" $([ "$size" = $((32 + 700 * 100 * 100 * 4)) ] && echo PASS || echo FAIL) "$size bytes"
"$bin/gen_dataset" --n 64 --count 4500 --seed 8 --out "$tmp/slabs.bin" >/dev/null   # 4500*64*64*4 = 74 MB: two slabs
"$bin/gen_dataset" --n 64 --count 4500 --seed 8 --format txt --out "$tmp/slabs.txt" >/dev/null
a=$("$bin/dataset_check" "$tmp/slabs.bin" | sed 's/^[^:]*://')
b=$("$bin/dataset_check" "$tmp/slabs.txt" | sed 's/^[^:]*://')
record "gen: slabbed binary equals text" $([ -n "$a" ] && [ "$a" = "$b" ] && echo PASS || echo FAIL) "$a"
out=$("$bin/gen_dataset" --family nonspd --n 12 --count 10 --fail-at 5 --out "$tmp/ns.bin" >/dev/null && "$bin/dataset_check" "$tmp/ns.bin")
record "check: nonspd fails at the planted minor" $(grep -q "0 SPD, 10 not (first: matrix 0, info 5)" <<<"$out" && echo PASS || echo FAIL) "$out"

# Bad files through the checker CLI.
printf 'CHOLBAT\0\1\0\0\0\1\0\0\0' > "$tmp/short.bin"
expect_exit2 "check: truncated header" "truncated header" "$bin/dataset_check" "$tmp/short.bin"
head -c 1000 "$tmp/a.bin" > "$tmp/trunc.bin"
expect_exit2 "check: truncated data" "truncated" "$bin/dataset_check" "$tmp/trunc.bin"
{ printf 'NOTMAGIC'; tail -c +9 "$tmp/a.bin"; } > "$tmp/magic.bin"
expect_exit2 "check: wrong magic" "wrong magic" "$bin/dataset_check" "$tmp/magic.bin"
printf '2\n2\n1 0\n0 1\n1 0\n0 one\n' > "$tmp/alpha.txt"
expect_exit2 "check: non-numeric text" "'one' is not a number" "$bin/dataset_check" "$tmp/alpha.txt"
printf '2\n2\n1 0\n0 1\n1 0\n' > "$tmp/missing.txt"
expect_exit2 "check: missing text values" "missing values" "$bin/dataset_check" "$tmp/missing.txt"
printf '1\n2\n1 inf\ninf 1\n' > "$tmp/inf.txt"
expect_exit2 "check: Inf in text" "is Inf" "$bin/dataset_check" "$tmp/inf.txt"
expect_exit2 "check: missing file" "cannot open" "$bin/dataset_check" "$tmp/nope.bin"
expect_exit2 "check: no argument" "usage" "$bin/dataset_check"
expect_exit2 "check: a directory" "is a directory" "$bin/dataset_check" "$tmp"
printf '3\n2\n1 0\n0 1\n1 0\n0 1\n' > "$tmp/misread.txt"
expect_exit2 "check: 3 matrices announced, 2 given" "expected 12 values, found 8" "$bin/dataset_check" "$tmp/misread.txt"
out=$("$bin/dataset_check" --allow-nonfinite "$tmp/inf.txt" 2>&1)
record "check: --allow-nonfinite counts them" $(grep -q "0 SPD, 1 not (first: matrix 0, info 2); 1 hold NaN or Inf" <<<"$out" && echo PASS || echo FAIL) "$out"
# The message names the file.
expect_exit2 "check: message names the file" "$tmp/magic.bin" "$bin/dataset_check" "$tmp/magic.bin"

finish
