#!/usr/bin/env bash
# test_driver.sh - the stage 06 driver cholesky_tuned (stage 04's driver with the kernel family and
# --kernel auto): arguments that do not apply are refused (everywhere); on a GPU, --kernel auto
# factors files and generated batches from the tuned table and says which entry it used, and the
# new kernels can be named by hand. Records each test in $TEST_RESULTS like the C harness does.
suite=stage-6-driver
bin=${BUILD:-build}/06_tuning/cholesky_tuned
gen=${BUILD:-build}/datasets/gen_dataset
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source common/harness.sh
# The argument checks run everywhere (no GPU needed): one line each, NAME | STATUS | PHRASE | COMMAND.
cases argument_checks <<'EOF'
tuned driver: --help names auto and rows | 0 | auto|tiles|thread|rows | $bin --help
tuned driver: --help names the staged kernel | 0 | --kernel staged | $bin --help
tuned driver: auto with --nb refused | 2 | pick a configuration by hand | $bin --n 20 --batch 4 --nb 4
tuned driver: --threads with the thread kernel refused | 2 | does not apply | $bin --n 20 --batch 4 --kernel thread --threads 8
tuned driver: rows, threads not compiled for n | 2 | compiled in for n = 100 | $bin --n 100 --batch 4 --kernel rows --threads 8
tuned driver: staged kernel past its n | 2 | the staged kernel takes 1 <= n <= 24 | $bin --n 30 --batch 4 --kernel staged
tuned driver: staged kernel on a chunked layout | 2 | bad value for --chunk: '4' (the staged kernel reads row-major | $bin --n 7 --batch 4 --kernel staged --chunk 4
tuned driver: unreadable table | 2 | tuned table | env TUNED_TABLE=$tmp/none.tsv $bin --n 20 --batch 4
tuned driver: --explain says what auto takes | 0 | n = 37, 1000 row-major matrices: .* tuned for n = 37 | $bin --n 37 --batch 1000 --explain
tuned driver: --explain of a converting kernel by hand | 0 | converted to chunked (chunk 32) and back in the workspace | $bin --n 50 --batch 2001 --kernel cyclic --threads 16 --per-block 2 --chunk 32 --explain
tuned driver: a cyclic variant not compiled refused | 2 | variant (unroll) 2 is not compiled for n = 100 | $bin --n 100 --batch 4 --kernel cyclic --threads 64 --unroll 2
tuned driver: --precision names its two values | 2 | bad value for --precision: 'fast' (highest, high or medium) | $bin --n 20 --batch 4 --precision fast
tuned driver: --help says what precision high gives up | 0 | one TF32 product a term | $bin --help
tuned driver: --precision high on small n explained as fp32 | 0 | precision high asked: fp32 arithmetic runs | $bin --n 64 --batch 100 --precision high --explain
EOF
argument_tests() {
    group "driver"
    run_cases argument_checks
}
gpu_tests() { # on a GPU; auto takes your kernels too: only when they factor a small batch right
    group "driver"
    needs "driver" "your kernels" ${BUILD:-build}/06_tuning/test_student_kernels || return 0
    expect "tuned driver: auto on a generated batch, 1 GiB class" 0 "checked 8 matrices against the float64 reference: ok" \
        $bin --n 100 --batch 26844
    expect "tuned driver: auto says which entry it used" 0 "--kernel auto: .*tuned for n = 37" $bin --n 37 --batch 1000
    setup $gen --family spd --n 45 --count 1500 --seed 3 --out "$tmp/a.bin" >/dev/null
    expect "tuned driver: auto on a binary file, factors reread" 0 "checked 1500 matrices against the float64 reference: ok" \
        $bin --input "$tmp/a.bin" --output "$tmp/L.bin" --check 1500
    expect "tuned driver: its factors read back" 0 "1500 matrices of order 45" ${BUILD:-build}/datasets/dataset_check "$tmp/L.bin"
    setup $gen --family nonspd --n 70 --count 300 --seed 5 --format txt --out "$tmp/ns.txt" >/dev/null
    expect "tuned driver: auto flags non-SPD matrices of a text file" 0 "checked 300 matrices against the float64 reference: ok" \
        $bin --input "$tmp/ns.txt" --check 300 --info "$tmp/info.txt"
    expect "tuned driver: rows kernel by hand, steps written out" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 33 --batch 5000 --kernel rows --threads 16 --per-block 4 --unroll 0 --chunk 4 --check 64
    expect "tuned driver: rows kernel by hand, loop, odd chunk" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 97 --batch 777 --kernel rows --threads 64 --per-block 1 --unroll 1 --chunk 7 --check 64
    expect "tuned driver: thread kernel top-looking by hand" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 40 --batch 3001 --kernel thread --order top --nb 4 --chunk 64 --check 64
    expect "tuned driver: auto in slices" 0 "slices of" $bin --n 64 --batch 100000 --max-gpu-memory 256M
    expect "tuned driver: auto on row-major data needs no conversion" 0 "row-major (chunk = 1: no conversion)" $bin --n 100 --batch 2000
    expect "tuned driver: the README's rows example, its defaults" 0 "checked 8 matrices against the float64 reference: ok" \
        $bin --n 64 --batch 4096 --kernel rows --threads 32 --per-block 2 --chunk 2
    expect "tuned driver: cyclic kernel by hand, row-major in slices" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 113 --batch 3001 --kernel cyclic --threads 64 --check 64 --max-gpu-memory 64M
    setup $gen --family nonspd --n 90 --count 500 --seed 9 --out "$tmp/ns90.bin" >/dev/null
    expect "tuned driver: cyclic kernel on a file, non-SPD flagged, row-major in place" 0 "checked 500 matrices against the float64 reference: ok" \
        $bin --input "$tmp/ns90.bin" --kernel cyclic --threads 256 --check 500 --output "$tmp/L90.bin"
    expect "tuned driver: auto past the kernels' n (n = 200)" 0 "checked 8 matrices against the float64 reference: ok" \
        $bin --n 200 --batch 500
    expect "tuned driver: --precision high, one TF32 pass, checked normwise" 0 "checked 2 matrices (precision high) by ||A - L L^T||_1 / ||A||_1 of every 64th row: ok" \
        $bin --n 2048 --batch 8 --precision high --check 2
    expect "tuned driver: --precision high says so" 0 "precision high: one TF32 product a term" $bin --n 2048 --batch 8 --precision high --explain
    expect "tuned driver: a converting layout uses the tiled converter" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 50 --batch 2001 --kernel cyclic --threads 16 --per-block 2 --chunk 32 --check 64
    expect "tuned driver: two workers on one GPU, auto in slices, a plan each" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 50 --batch 40001 --check 64 --gpus 0,0 --max-gpu-memory 64M
    expect "tuned driver: a cyclic variant by hand (steps written out, a row slot less)" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 50 --batch 5001 --kernel cyclic --threads 32 --unroll 6 --check 64
    expect "tuned driver: the plan says the cyclic variant the rules took" 0 "plan: .*cyclic T=64 x1 \(loop\|unrolled\|capped\)" \
        $bin --n 100 --batch 3001 --kernel cyclic --threads 64 --check 8
    expect "tuned driver: --explain of the whole-GPU path" 0 "whole GPU: .* schedule" $bin --n 1024 --batch 60 --explain
    expect "tuned driver: staged kernel by hand, in slices (starts not 16-byte aligned)" 0 "checked 64 matrices against the float64 reference: ok" \
        $bin --n 7 --batch 300001 --kernel staged --per-block 128 --check 64 --max-gpu-memory 16M
}
plan_from argument_tests gpu_tests
argument_tests
if ! nvidia-smi -L >/dev/null 2>&1; then
    skip_rest "driver" "$(gpu_reason)"
else
    gpu_tests
fi
finish
