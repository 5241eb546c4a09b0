#!/usr/bin/env bash
# test_driver.sh - the stage 04-05 driver cholesky_batched: bad arguments and unsupported sizes
# exit 2 with a clear message (these run everywhere); on a GPU, files in both formats are
# factored and checked, factors are written back and reread, and too large a batch is refused
# with the memory asked and free. Records each test in $TEST_RESULTS like the C harness does.
suite=stage-4-driver
bin=${BUILD:-build}/04_interleaved/cholesky_batched
gen=${BUILD:-build}/datasets/gen_dataset
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source common/harness.sh
# The argument checks run everywhere (no GPU needed): one line each, NAME | STATUS | PHRASE | COMMAND.
printf '2\n3\n1 2 3\n4 5\n' > "$tmp/short.txt"
printf '1\n2\n4 1\n1 3\n' > "$tmp/one.txt"
cases argument_checks <<'EOF'
driver: no input | 2 | give either --input | $bin
driver: n = 0 | 2 | bad value for --n | $bin --n 0 --batch 4
driver: batch not a number | 2 | bad value for --batch | $bin --n 4 --batch 1x
driver: unknown kernel | 2 | bad value for --kernel | $bin --n 4 --batch 4 --kernel warp
driver: unknown order | 2 | bad value for --order | $bin --n 4 --batch 4 --kernel tiles --order diagonal
driver: n past the limit | 2 | is not supported | $bin --n 5000 --batch 4
driver: tile NB not compiled | 2 | NB = 4, 8, 16 or 32 | $bin --n 40 --batch 4 --kernel tiles --nb 12
driver: too many threads | 2 | must be 1..1024 | $bin --n 40 --batch 4 --kernel tiles --nb 16 --per-block 5
driver: missing file | 2 | no/such.bin | $bin --input "$tmp/no/such.bin"
driver: truncated text file | 2 | short.txt | $bin --input "$tmp/short.txt"
# Options that do not apply are refused, not ignored (issue 9).
driver: --seed with --input | 2 | describe a generated batch | $bin --input "$tmp/one.txt" --seed 3
driver: --kappa without illcond | 2 | only to --family illcond | $bin --n 4 --batch 4 --kappa 100
driver: --format without --output | 2 | only to --output | $bin --n 4 --batch 4 --format txt
driver: --order with the thread kernel | 2 | only to --kernel tiles | $bin --n 4 --batch 4 --order top
driver: --unroll with the tile kernel | 2 | only to --kernel thread | $bin --n 4 --batch 4 --kernel tiles --unroll 2
driver: bad --max-gpu-memory | 2 | bad value for --max-gpu-memory | $bin --n 4 --batch 4 --max-gpu-memory 12X
driver: --max-gpu-memory below 1 MiB | 2 | bad value for --max-gpu-memory | $bin --n 4 --batch 4 --max-gpu-memory 1000
driver: --help exits 0 | 0 | usage: cholesky_batched | $bin --help
driver: --gpus 0 (a count) | 2 | bad value for --gpus | $bin --n 4 --batch 4 --gpus 0
driver: --gpus list with a gap | 2 | bad value for --gpus | $bin --n 4 --batch 4 --gpus 0,,1
EOF
kernels_work() { # your tile and thread kernels on a small mixed file, against float64: the driver's tests need both
    $gen --family nonspd --n 33 --count 60 --seed 8 --out "$tmp/probe.bin" >/dev/null 2>&1 || return 1
    $bin --input "$tmp/probe.bin" --kernel tiles --check 60 2>&1 | grep -q "against the float64 reference: ok" &&
        $bin --input "$tmp/probe.bin" --kernel thread --check 60 2>&1 | grep -q "against the float64 reference: ok"
}
gpu_tests() { # on a GPU
    group "driver on a GPU"
    needs "driver on a GPU" "your tile and thread kernels ('tile kernel', 'thread-per-matrix kernel')" kernels_work || return 0
    setup $gen --family spd --n 33 --count 1001 --seed 3 --out "$tmp/a.bin" >/dev/null
    expect "driver: binary file in, factors out and reread" 0 "checked 1001 matrices against the float64 reference: ok" \
        $bin --input "$tmp/a.bin" --output "$tmp/L.bin" --check 1001
    expect "driver: the factors file is valid" 0 "1001" ${BUILD:-build}/datasets/dataset_check "$tmp/L.bin"
    setup $gen --family illcond --n 7 --count 50 --seed 4 --format txt --out "$tmp/b.txt" >/dev/null
    expect "driver: seed text format, chunked" 0 "checked 50 matrices against the float64 reference: ok" \
        $bin --input "$tmp/b.txt" --chunk 8 --check 50 --output "$tmp/L.txt" --format txt
    expect "driver: text in, text out by default" 0 "wrote the factors" $bin --input "$tmp/b.txt" --output "$tmp/L2.txt"
    if head -c 7 "$tmp/L2.txt" | grep -q CHOLBAT; then record "driver: the default output format follows the input" FAIL "binary"
    else expect "driver: the default output format follows the input" 0 "50 matrices of order 7" ${BUILD:-build}/datasets/dataset_check "$tmp/L2.txt"; fi
    expect "driver: the tile kernel with its defaults (NB 8, 8 per block; no --chunk)" 0 \
        "checked 8 matrices against the float64 reference: ok" $bin --n 32 --batch 1000 --kernel tiles
    setup $gen --family nonspd --n 20 --count 30 --seed 5 --out "$tmp/c.bin" >/dev/null
    expect "driver: non-SPD file: info reported" 0 "30 of 30 matrices not positive definite" $bin --input "$tmp/c.bin" --check 30
    expect "driver: generated batch, tiles, chunked" 0 "against the float64 reference: ok" \
        $bin --n 45 --batch 5000 --kernel tiles --order right --nb 8 --per-block 6 --chunk 32 --check 20
    expect "driver: --max-gpu-memory above what is free" 2 "GiB are free" $bin --n 100 --batch 1000 --max-gpu-memory 100000G

    # Real data: NaN and non-SPD matrices are factored and flagged by info, not refused.
    printf '5\n2\n4 1\n1 3\n1 nan\nnan 1\n1 2\n2 1\nnan 0\n0 1\n-1 0\n0 1\n' > "$tmp/mixed.txt"
    expect "driver: NaN and non-SPD matrices factored" 0 "4 of 5 matrices not positive definite (2 hold NaN or Inf)" \
        $bin --input "$tmp/mixed.txt" --check 5 --info "$tmp/info/mixed.txt" --output "$tmp/Lmixed.txt"
    got=$(tr '\n' ' ' < "$tmp/info/mixed.txt" 2>/dev/null)
    record "driver: --info holds every info" $([ "$got" = "0 2 2 1 1 " ] && echo PASS || echo FAIL) "infos: '$got' (want 0 2 2 1 1)"
    expect "driver: factors of failed matrices read back" 0 "5 matrices of order 2; 1 SPD, 4 not" ${BUILD:-build}/datasets/dataset_check "$tmp/Lmixed.txt"
    setup $gen --family nonspd --n 31 --count 3000 --seed 6 --out "$tmp/ns.bin" >/dev/null
    expect "driver: infos of a non-SPD file, tile kernel" 0 "checked 300 matrices against the float64 reference: ok" \
        $bin --input "$tmp/ns.bin" --kernel tiles --nb 8 --chunk 7 --check 300 --info "$tmp/ns-info.txt"
    want=$(${BUILD:-build}/datasets/dataset_check "$tmp/ns.bin" | grep -o "[0-9]* not")
    got=$(grep -vc '^0$' "$tmp/ns-info.txt")
    record "driver: --info agrees with the float64 reference" $([ "$want" = "$got not" ] && echo PASS || echo FAIL) "nonzero infos $got, reference: $want"

    # Batches larger than the GPU budget go through in slices (4x and more), checked and bit-identical.
    expect "driver: generated 4 GiB batch in 256 MiB slices" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 64 --batch 262144 --chunk 32 --check 64 --max-gpu-memory 256M
    grep -q "slices of" <<<"$out" && record "driver: the generated batch was sliced" PASS "$(grep -m1 'slices of' <<<"$out")" \
        || record "driver: the generated batch was sliced" FAIL "no slices line"
    setup $gen --family spd --n 50 --count 107374 --seed 9 --out "$tmp/big.bin" >/dev/null
    expect "driver: 1 GiB file in 64 MiB slices" 0 "checked 1000 matrices against the float64 reference: ok" \
        $bin --input "$tmp/big.bin" --chunk 32 --check 1000 --max-gpu-memory 64M --output "$tmp/Lsliced.bin"
    echo "$out" | sed 's/^/    /' > "$tmp/sliced.log"
    grep -q "slices of" <<<"$out" && record "driver: the file was sliced, copies overlapped" PASS "$(grep -m1 'slices of' <<<"$out"); $(grep -m1 'overlap' <<<"$out" | sed 's/^ *//')" \
        || record "driver: the file was sliced, copies overlapped" FAIL "no slices line"
    setup $bin --input "$tmp/big.bin" --chunk 32 --check 0 --output "$tmp/Lwhole.bin" >/dev/null 2>&1
    cmp -s "$tmp/Lsliced.bin" "$tmp/Lwhole.bin"
    record "driver: sliced factors equal one-slice factors" $([ $? -eq 0 ] && echo PASS || echo FAIL) "cmp of the two factors files"
    [ -n "$DRIVER_LOG" ] && cp "$tmp/sliced.log" "$DRIVER_LOG"

    # Several GPUs: slices round-robin over the workers. Two workers on GPU 0 test the split on any
    # machine; the factors must be those of one GPU, bit for bit.
    expect "driver: two workers, a file in slices" 0 "checked 1000 matrices against the float64 reference: ok" \
        $bin --input "$tmp/big.bin" --chunk 32 --check 1000 --gpus 0,0 --output "$tmp/Ltwo.bin"
    grep -q "GPU 0: .* matrices in .* slices" <<<"$out" && record "driver: each worker reports its share" PASS "$(grep -m1 'GPU 0:' <<<"$out" | sed 's/^ *//')" \
        || record "driver: each worker reports its share" FAIL "no per-GPU line"
    cmp -s "$tmp/Ltwo.bin" "$tmp/Lwhole.bin"
    record "driver: two workers' factors equal one GPU's" $([ $? -eq 0 ] && echo PASS || echo FAIL) "cmp of the two factors files"
    expect "driver: three workers, generated, 16 MiB each" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 33 --batch 40001 --chunk 7 --check 64 --gpus 0,0,0 --max-gpu-memory 16M --info "$tmp/three-info.txt"
    expect "driver: --gpus names a GPU that is not there" 2 "there is no GPU 63" $bin --n 4 --batch 4 --gpus 0,63
}
plan "driver arguments" ${#argument_checks[@]}
plan_from gpu_tests
group "driver arguments"
run_cases argument_checks

if ! nvidia-smi -L >/dev/null 2>&1; then
    skip_rest "driver on a GPU" "$(gpu_reason)"
else
    gpu_tests
fi
finish
