#!/usr/bin/env bash
# test_driver.sh - the stage 03 driver cholesky_one: bad arguments and bad files exit 2 with a
# clear message (these run everywhere: the input is checked before the GPU is looked for); on a GPU, generated and file matrices are factored and checked, a
# non-SPD matrix reports its failing minor, and the factor written to a file reads back.
suite=stage-3-driver
bin=${BUILD:-build}/03_left_right_top/cholesky_one
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source common/harness.sh
# The argument checks run everywhere (no GPU needed): one line each, NAME | STATUS | PHRASE | COMMAND.
printf '2\n3\n1 0 0\n0 1 0\n0 0 1\n1 0 0\n0 1 0\n0 0 1\n' > "$tmp/two.txt"
printf '3\n1 2\n' > "$tmp/short.txt"
cases argument_checks <<'EOF'
one: no input | 2 | exactly one of --n and --input | $bin
one: both inputs | 2 | exactly one of --n and --input | $bin --n 4 --input "$tmp/a.txt"
one: n = 0 | 2 | bad value for --n: '0' | $bin --n 0
one: --n=70000 | 2 | bad value for --n: '70000' | $bin --n=70000
one: unknown mode | 2 | block, stream, graph, lookahead, pairs or quads | $bin --n 4 --mode=fast
one: unknown math | 2 | fp32, tf32x3, f16x3, tf32 or f16 | $bin --n 4 --math=tf64
one: unknown option | 2 | unknown option '--nb' | $bin --n 4 --nb 8
one: a file of two matrices | 2 | holds 2 matrices | $bin --input "$tmp/two.txt"
one: a truncated file | 2 | short.txt | $bin --input "$tmp/short.txt"
one: --help exits 0 | 0 | usage: cholesky_one | $bin --help
EOF
schedule_works() { # your schedule (grid_schedule.c) in every mode, against float64: the sanity groups below need it
    local m
    for m in stream graph lookahead pairs quads; do
        $bin --n 700 --mode $m 2>&1 | grep -q "check (float64 reference): ok" || { echo "mode $m at n = 700"; return 1; }
    done
}
gpu_tests() { # on a GPU
    group "whole GPU"
    expect "one: n = 1000 generated" 0 "check (float64 reference): ok" $bin --n 1000
    expect "one: n = 3000 graph mode" 0 "check (cuSOLVER's info, sampled residual): ok" $bin --n 3000 --mode graph
    expect "one: nonspd reports its minor" 0 "info [1-9]" $bin --n 200 --family nonspd --seed 5
    group "right-looking" # up to n = 32 the driver runs part 1's right-looking kernel
    expect "one: n = 20 in one block" 0 "mode block: info 0" $bin --n 20
    printf '3\n4 2 0\n2 5 1\n0 1 3\n' > "$tmp/one.txt"
    expect "one: seed-format text file" 0 "check (float64 reference): ok" $bin --input "$tmp/one.txt" --output "$tmp/L.txt"
    # L of [[4 2 0] [2 5 1] [0 1 3]]: rows (2), (1 2), (0 0.5 sqrt(2.75)).
    python3 - "$tmp/L.txt" <<'PY'
import sys
v = [float(x) for x in open(sys.argv[1]).read().split()[2:]]
want = [2, 0, 0, 1, 2, 0, 0, 0.5, 2.75 ** 0.5]
sys.exit(0 if len(v) == 9 and all(abs(a - b) < 1e-6 for a, b in zip(v, want)) else 1)
PY
    record "one: the written factor" $([ $? -eq 0 ] && echo PASS || echo FAIL) "L.txt (want L as computed by hand): $(tr '\n' ' ' < "$tmp/L.txt" 2>/dev/null | cut -c1-200)"
    group "whole GPU tensor cores"     # 1 GiB: the largest matrix the tests factor, both maths
    if needs "whole GPU tensor cores" "your schedule ('whole GPU')" schedule_works; then
        expect "one: n = 16384 tf32x3" 0 "check (cuSOLVER's info, sampled residual): ok" $bin --n 16384 --math tf32x3
        expect "one: n = 16384 fp32" 0 "check (cuSOLVER's info, sampled residual): ok" $bin --n 16384 --math fp32
    fi
    # Hopper's warpgroup update (grid_wgmma.cuh): on compute capability 9.0 the tf32x3 bulk updates
    # of n >= 2048 run on it, and its factors are checked; on any other GPU the mma.sync update runs.
    group "whole GPU warpgroup MMA"
    # (each group skips on its own: a return here would leave the next group's tests unreported)
    needs "whole GPU warpgroup MMA" "your schedule ('whole GPU')" schedule_works && warpgroup_tests
    group "whole GPU precision high"
    needs "whole GPU precision high" "your schedule ('whole GPU')" schedule_works || return 0
    expect "one: --math tf32 runs one TF32 pass" 0 "tf32 updates" $bin --n 2048 --mode pairs --math tf32
    expect "one: --math tf32, held to gpu-mode's normwise residual" 0 "bound 20 n eps = [0-9.e-]*): ok" $bin --n 2048 --mode pairs --math tf32
    expect "one: --math tf32 reports a failing minor as cuSOLVER" 0 "check (cuSOLVER's info [1-9][0-9]*): ok" $bin --n 1500 --family nonspd --seed 5 --math tf32
}
warpgroup_tests() {
    local cc hopper=0 wg="tf32x3 updates (warpgroup MMA); "
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')
    [ "$cc" = "9.0" ] && hopper=1
    if [ $hopper = 1 ]; then
        expect "one: n = 2048 warpgroup update, float64 check" 0 "$wg.*" $bin --n 2048 --mode pairs --math tf32x3
        expect "one: n = 2048 warpgroup update, its factor" 0 "check (float64 reference): ok" $bin --n 2048 --mode pairs --math tf32x3
        expect "one: n = 8192 warpgroup update, quads" 0 "check (cuSOLVER's info, sampled residual): ok" $bin --n 8192 --math tf32x3
    else
        expect "one: off Hopper the mma.sync update runs (compute capability $cc)" 0 "tf32x3 updates; " $bin --n 2000 --mode pairs --math tf32x3
        expect "one: off Hopper, its factor" 0 "check (float64 reference): ok" $bin --n 2000 --mode pairs --math tf32x3
        expect "one: off Hopper, quads" 0 "check (cuSOLVER's info, sampled residual): ok" $bin --n 8192 --math tf32x3
    fi
    expect "one: GRID_WGMMA=0 runs the mma.sync update" 0 "tf32x3 updates; " env GRID_WGMMA=0 $bin --n 2048 --mode pairs --math tf32x3
}
plan "whole GPU argument checks" ${#argument_checks[@]}
plan_from gpu_tests
group "whole GPU argument checks"
run_cases argument_checks

if ! nvidia-smi -L >/dev/null 2>&1; then
    skip_rest "whole GPU" "$(gpu_reason)"
    skip_rest "right-looking" "$(gpu_reason)"
    skip_rest "whole GPU tensor cores" "$(gpu_reason)"
    skip_rest "whole GPU warpgroup MMA" "$(gpu_reason)"
    skip_rest "whole GPU precision high" "$(gpu_reason)"
else
    gpu_tests
fi
finish
