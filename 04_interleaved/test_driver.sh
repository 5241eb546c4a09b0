#!/usr/bin/env bash
# test_driver.sh - the stage 04-05 driver cholesky_batched: bad arguments and unsupported sizes
# exit 2 with a clear message (these run everywhere); on a GPU, files in both formats are
# factored and checked, factors are written back and reread, and too large a batch is refused
# with the memory asked and free. Records each test in $TEST_RESULTS like the C harness does.
suite=stage-4-driver
bin=build/04_interleaved/cholesky_batched
gen=build/datasets/gen_dataset
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source common/harness.sh
plan "driver arguments" 10
plan "driver on a GPU" 8
group "driver arguments"

expect() { # expect NAME STATUS PHRASE COMMAND...: exit status and a phrase in the output
    local name=$1 want=$2 phrase=$3
    shift 3
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -eq "$want" ] && grep -q -- "$phrase" <<<"$out"; then record "$name" PASS "exit $rc: $(grep -m1 -- "$phrase" <<<"$out")"
    else record "$name" FAIL "exit $rc (want $want, '$phrase'), output: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"; fi
}

expect "driver: no input" 2 "give either --input" $bin
expect "driver: n = 0" 2 "bad value for --n" $bin --n 0 --batch 4
expect "driver: batch not a number" 2 "bad value for --batch" $bin --n 4 --batch 1x
expect "driver: unknown kernel" 2 "bad value for --kernel" $bin --n 4 --batch 4 --kernel warp
expect "driver: unknown order" 2 "bad value for --order" $bin --n 4 --batch 4 --kernel tiles --order diagonal
expect "driver: n past the limit" 2 "is not supported" $bin --n 5000 --batch 4
expect "driver: tile NB not compiled" 2 "NB = 4, 8, 16 or 32" $bin --n 40 --batch 4 --kernel tiles --nb 12
expect "driver: too many threads" 2 "must be 1..1024" $bin --n 40 --batch 4 --kernel tiles --nb 16 --per-block 5
expect "driver: missing file" 2 "no/such.bin" $bin --input "$tmp/no/such.bin"
printf '2\n3\n1 2 3\n4 5\n' > "$tmp/short.txt"
expect "driver: truncated text file" 2 "short.txt" $bin --input "$tmp/short.txt"

if ! nvidia-smi -L >/dev/null 2>&1; then
    skip_rest "driver on a GPU" "no CUDA device"
else
    group "driver on a GPU"
    $gen --family spd --n 33 --count 1001 --seed 3 --out "$tmp/a.bin" >/dev/null
    expect "driver: binary file in, factors out and reread" 0 "checked 1001 matrices against the float64 reference: ok" \
        $bin --input "$tmp/a.bin" --output "$tmp/L.bin" --check 1001
    expect "driver: the factors file is valid" 0 "1001" build/datasets/dataset_check "$tmp/L.bin"
    $gen --family illcond --n 7 --count 50 --seed 4 --format txt --out "$tmp/b.txt" >/dev/null
    expect "driver: seed text format, chunked" 0 "checked 50 matrices against the float64 reference: ok" \
        $bin --input "$tmp/b.txt" --chunk 8 --check 50 --output "$tmp/L.txt" --format txt
    expect "driver: text in, text out by default" 0 "wrote the factors" $bin --input "$tmp/b.txt" --output "$tmp/L2.txt"
    if head -c 7 "$tmp/L2.txt" | grep -q CHOLBAT; then record "driver: the default output format follows the input" FAIL "binary"
    else expect "driver: the default output format follows the input" 0 "50 matrices of order 7" build/datasets/dataset_check "$tmp/L2.txt"; fi
    $gen --family nonspd --n 20 --count 30 --seed 5 --out "$tmp/c.bin" >/dev/null
    expect "driver: non-SPD file: info reported" 0 "30 of 30 matrices not positive definite" $bin --input "$tmp/c.bin" --check 30
    expect "driver: generated batch, tiles, chunked" 0 "against the float64 reference: ok" \
        $bin --n 45 --batch 5000 --kernel tiles --order right --nb 8 --per-block 6 --chunk 32 --check 20
    expect "driver: too large a batch" 2 "GiB are free" $bin --n 100 --batch 100000000000
fi
finish
