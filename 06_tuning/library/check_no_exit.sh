#!/usr/bin/env bash
# check_no_exit.sh [--no-env] MAP ARCHIVE... - fails (exit 1) when an object the linker put into
# stage 06's library references exit, abort, _exit or quick_exit (nothing reachable from the door may
# end the caller's process: cholesky_plan.h), or longjmp and its kin (a failure is a value returned
# to the door, never a jump past the frames that hold memory). --no-env (the installed library, make lib): getenv and
# secure_getenv too, since its choices are plan options. MAP is the link map (-Xlinker -Map): its
# "LOAD" lines name the objects given, its archive lines the members taken from the archives. The
# CUDA runtime (the static libcudart, linked in) is NVIDIA's and not checked here.
banned='exit|abort|_exit|quick_exit|longjmp|_longjmp|siglongjmp|__longjmp_chk|setjmp|_setjmp|__sigsetjmp'
[ "$1" = --no-env ] && banned="$banned|getenv|secure_getenv" && shift
map=$1
shift
objs=$(awk '$1 == "LOAD" && $2 ~ /\.o$/ && $2 !~ /^\/(usr|tmp)\/|cuda|crt/ {print $2}' "$map" | sort -u)
members=$(grep -oE '[^ (]*libcommon\.a\([^)]*\.o\)' "$map" | sed -E 's/.*\((.*)\)/\1/' | sort -u)
bad=0
for o in $objs; do
    if nm -u "$o" | grep -qwE "$banned"; then
        echo "check_no_exit: $o references $(nm -u "$o" | grep -owE "$banned" | sort -u | tr '\n' ' ')" >&2
        bad=1
    fi
done
for a in "$@"; do
    for m in $members; do
        if ar p "$a" "$m" > /tmp/check_no_exit.$$.o 2> /dev/null && nm -u /tmp/check_no_exit.$$.o | grep -qwE "$banned"; then
            echo "check_no_exit: $a($m) references $(nm -u /tmp/check_no_exit.$$.o | grep -owE "$banned" | sort -u | tr '\n' ' ')" >&2
            bad=1
        fi
    done
done
rm -f /tmp/check_no_exit.$$.o
[ $bad = 0 ] && echo "check_no_exit: $(echo $objs $members | wc -w) objects of the library, none references ${banned//|/, }"
exit $bad
