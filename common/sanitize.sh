#!/usr/bin/env bash
# sanitize.sh SUITE 'COMMAND' ... - run each command under compute-sanitizer's four tools:
#   memcheck   out-of-bounds and misaligned accesses, leaks of device memory
#   racecheck  shared-memory data races (a missing __syncthreads between a write and a read)
#   synccheck  barriers used wrongly (__syncthreads in divergent code, bad shuffle masks)
#   initcheck  reads of device memory that nothing wrote
# A test per (tool, command) passes when the tool reports nothing and the command succeeds.
# Records go to $TEST_RESULTS like every test (common/harness.sh); make sanitize-stage-N runs it.
suite=$1
shift
source "$(dirname "$0")/harness.sh"
plan sanitizer $((4 * $#))
tools=(memcheck racecheck synccheck initcheck)
SANITIZE_TMP=$(mktemp -d)
export SANITIZE_TMP
trap 'rm -rf "$SANITIZE_TMP"' EXIT
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
if ! nvidia-smi -L >/dev/null 2>&1; then skip_rest sanitizer "$(gpu_reason)"; finish; fi
if [ -z "$cs" ]; then skip_rest sanitizer "compute-sanitizer not found (it comes with the CUDA toolkit)"; finish; fi
group sanitizer
for cmd in "$@"; do
    for tool in "${tools[@]}"; do
        extra=""
        [ "$tool" = memcheck ] && extra="--leak-check full"
        log="$SANITIZE_TMP/log"
        start=$SECONDS
        eval "\"$cs\" --tool $tool --error-exitcode 86 --print-limit 10 $extra $cmd" >"$log" 2>&1
        rc=$?
        summary=$(grep -m1 -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | sed 's/^========= //')
        name="$tool: $(cut -d' ' -f1 <<<"$cmd" | xargs basename)$(cut -s -d' ' -f2- <<<"$cmd" | sed 's/^/ /')"
        if [ $rc -eq 0 ] && grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$log"; then
            record "$name" PASS "$summary ($((SECONDS - start)) s)"
        else
            # the first report names the kernel, the access and the source line (-lineinfo)
            first=$(grep -m3 -E "^========= +(Invalid|Error|Race|Uninitialized|Barrier|Warning|Program hit|Leaked)|at .*\.cuh?:[0-9]+" "$log" | sed 's/^========= *//' | tr '\n' ' ')
            record "$name" FAIL "exit $rc; ${summary:-no summary}; ${first:-$(tail -n 3 "$log" | tr '\n' ' ')}"
            [ -n "${SANITIZE_LOGS:-}" ] && mkdir -p "$SANITIZE_LOGS" && cp "$log" "$SANITIZE_LOGS/$suite-$tool-$(basename "${cmd%% *}").log"
        fi
    done
done
finish
