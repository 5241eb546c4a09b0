#!/usr/bin/env bash
# load_test.sh - make load-test: the batched code under load, on a GPU (minutes; not in make test).
#   1. the driver factors a generated batch that fills the GPU (LOAD_GIB, default 60 GiB, or 85 %
#      of the free memory if less), checked by sampling across the whole batch;
#   2. the stage 05 benchmark times a batch of the same size (its full-GPU mode), every row verified;
#   3. another process holds 60 % of the GPU while the driver factors a batch of 60 % of it: the
#      driver must find what is left and go through in slices, correctly;
#   4. two drivers start at the same moment, each asking for 60 % of the GPU: both must finish
#      with correct results (the one that loses the race for memory slices), or fail with a clear
#      out-of-memory message - never crash or compute wrong factors.
# Sizes past 2^32 elements: any 32-bit index overflow shows up as a wrong sampled matrix.
suite=load-test
drv=${BUILD:-build}/04_interleaved/cholesky_batched
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hold_memory() { # another process holds $1 GiB of the GPU (hold: its pid) until killed
    ${BUILD:-build}/common/tests/gpu_hold "$1" 60 >"$tmp/hold.log" 2>&1 & hold=$!
    for _ in $(seq 60); do grep -q holding "$tmp/hold.log" && break; sleep 1; done
}
two_drivers() { # two drivers started together, each asking for 60 % of the memory (exit codes r1, r2)
    $drv --n 64 --batch $b2 --check 32 >"$tmp/p1.log" 2>&1 & p1=$!
    $drv --n 64 --batch $b2 --check 32 --seed 7 >"$tmp/p2.log" 2>&1 & p2=$!
    wait $p1; r1=$?
    wait $p2; r2=$?
}
load_tests() {
    group "under load"
    free_mib=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits | head -n 1)
    gib=${LOAD_GIB:-60}
    max_gib=$((free_mib * 85 / 100 / 1024))
    [ "$gib" -gt "$max_gib" ] && gib=$max_gib
    n=100
    batch=$((gib * 1024 * 1024 * 1024 / (n * n * 4)))
    echo "load test: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $free_mib MiB free; batches of $gib GiB ($batch matrices of order $n)"

    out=$(setup $drv --n $n --batch $batch --chunk 32 --check 64 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    if [ $rc -eq 0 ] && grep -q "checked 64 matrices against the float64 reference: ok" <<<"$out" && grep -q "0 of $batch matrices not positive definite" <<<"$out"; then
        record "driver: $gib GiB batch, checked by sampling" PASS "$(grep -m1 'end to end' <<<"$out" | sed 's/^ *//')"
    else record "driver: $gib GiB batch, checked by sampling" FAIL "exit $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
    if grep -q "slices of" <<<"$out"; then record "driver: the full batch in one slice" FAIL "$(grep -m1 'slices of' <<<"$out")"
    else record "driver: the full batch in one slice" PASS "no slicing needed: the batch is on the GPU at once"; fi

    out=$(BENCH_NS=$n BENCH_BYTES=$((gib << 30)) BENCH_CSV=$tmp/load.csv setup ${BUILD:-build}/05_chunked/bench_chunked 2>&1); rc=$?
    echo "$out" | sed 's/^/    /'
    rows=$(($(wc -l < "$tmp/load.csv" 2>/dev/null || echo 1) - 1))
    if [ $rc -eq 0 ] && [ "$rows" -gt 0 ] && ! grep -q "NOT VERIFIED" <<<"$out"; then
        record "bench: $gib GiB batch, every row verified" PASS "$rows rows; $(grep -m1 'chunked c=' <<<"$out" | sed 's/  */ /g')"
    else record "bench: $gib GiB batch, every row verified" FAIL "exit $rc, $rows rows: $(grep -m2 -E 'NOT VERIFIED|error|check' <<<"$out" | tr '\n' ' ')"; fi
    [ -n "${LOAD_CSV:-}" ] && cp "$tmp/load.csv" "$LOAD_CSV"

    share=$((free_mib * 60 / 100 / 1024))
    b2=$((share * 1024 * 1024 * 1024 / (64 * 64 * 4)))
    # Another process holds 60 % of the memory: the driver's batch of 60 % must go through in slices.
    setup hold_memory $share
    out=$(setup $drv --n 64 --batch $b2 --check 32 2>&1); rc=$?
    kill $hold 2>/dev/null; wait $hold 2>/dev/null
    echo "  beside a process holding $share GiB:"; echo "$out" | sed 's/^/    /'
    if [ $rc -eq 0 ] && grep -q "against the float64 reference: ok" <<<"$out" && grep -q "slices of" <<<"$out"; then
        record "beside another process: the driver slices what is left" PASS "$(grep -m1 'slices of' <<<"$out" | sed 's/^ *//')"
    else record "beside another process: the driver slices what is left" FAIL "exit $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
    if grep -q holding "$tmp/hold.log"; then record "beside another process: the memory was really held" PASS "$(cat "$tmp/hold.log")"
    else record "beside another process: the memory was really held" FAIL "$(cat "$tmp/hold.log")"; fi

    # Two drivers started together, each asking for 60 % of the memory.
    r1=0 r2=0
    setup two_drivers
    for k in 1 2; do echo "  process $k:"; sed 's/^/    /' "$tmp/p$k.log"; done
    ok() { grep -q "against the float64 reference: ok" "$1"; }
    oom() { grep -qiE "out of GPU memory|GiB are free" "$1"; }
    for k in 1 2; do
        r=$([ $k = 1 ] && echo $r1 || echo $r2)
        name="two drivers at once: process $k finishes correctly or says it is out of memory"
        if { [ "$r" -eq 0 ] && ok "$tmp/p$k.log"; } || { [ "$r" -eq 2 ] && oom "$tmp/p$k.log"; }; then
            record "$name" PASS "exit $r: $(grep -m1 -E 'slices of|out of GPU memory|GiB are free|end to end' "$tmp/p$k.log" | sed 's/^ *//')"
        else record "$name" FAIL "exit $r: $(tail -n 3 "$tmp/p$k.log" | tr '\n' ' ')"; fi
    done
}
plan_from load_tests
if ! nvidia-smi -L >/dev/null 2>&1; then skip_rest "under load" "$(gpu_reason)"; finish; fi
load_tests
finish
