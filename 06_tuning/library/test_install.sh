#!/usr/bin/env bash
# test_install.sh - the library as an outside project meets it: `make install PREFIX=<tmp>` (this
# build's architecture, its objects reused), then what was installed (the header alone in C and
# C++, the SONAME, the shared library's and the archive's exported symbols against the header's
# functions), then the example project (library/example/) built outside the tree with pkg-config,
# with CMake and statically, and run: with a GPU it factors 1024 x 64^2 and 1 x 4096^2 and checks
# them (also built with a plain gcc line, where the tools are missing); without one it prints the library's no-device status and exits 77, as its README says.
suite=library-install
source common/harness.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
read -r sm cuda_home < <(make --no-print-directory -s print-lib-build 2> /dev/null)
gpu=0
nvidia-smi -L > /dev/null 2>&1 && gpu=1

ok() { "$@" > /dev/null 2>&1 && echo PASS || echo FAIL; }

installed_tests() {
    group "library install"
    setup bash -c "make --no-print-directory install PREFIX='$prefix' LIB_ARCHS='$sm' > '$tmp/install.log' 2>&1"
    record "make install PREFIX=dir: header, libraries, pkg-config and CMake files" \
        $([ -f $prefix/include/course_cholesky/cholesky_plan.h ] && [ -L $prefix/lib/libcourse_cholesky.so.1 ] &&
            [ -L $prefix/lib/libcourse_cholesky.so ] && [ -f $prefix/lib/libcourse_cholesky.a ] &&
            [ -f $prefix/lib/pkgconfig/course_cholesky.pc ] &&
            [ -f $prefix/lib/cmake/CourseCholesky/CourseCholeskyConfig.cmake ] && echo PASS || echo FAIL) \
        "$(tail -n 3 $tmp/install.log 2> /dev/null | tr '\n' ' ')"
    local soname
    soname=$(readelf -d $prefix/lib/libcourse_cholesky.so 2> /dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
    record "the shared library's SONAME is libcourse_cholesky.so.1" $([ "$soname" = libcourse_cholesky.so.1 ] && echo PASS || echo FAIL) "SONAME: ${soname:-none}"
    # The public API: every function the header declares, and nothing else.
    local api exported archived
    api=$(sed -nE 's/^[a-z_ ]+[ *](cholesky_[a-z0-9_]+)\(.*/\1/p' 06_tuning/library/cholesky_plan.h | sort -u | tr '\n' ' ')
    exported=$(nm -D --defined-only $prefix/lib/libcourse_cholesky.so 2> /dev/null | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | grep -v '^COURSE_CHOLESKY_' | sort -u | tr '\n' ' ')
    record "the shared library exports the header's functions and nothing else" $([ -n "$api" ] && [ "$api" = "$exported" ] && echo PASS || echo FAIL) "header: $api; exported: ${exported:0:300}"
    # (DW.ref.*: the C++ unwind tables' hidden comdat, kept global for static libstdc++: library.mk)
    archived=$(nm -g --defined-only $prefix/lib/libcourse_cholesky.a 2> /dev/null | awk 'NF == 3 {print $3}' | grep -v '^DW\.ref\.' | sort -u | tr '\n' ' ')
    record "the static archive's global symbols are the header's functions" $([ -n "$api" ] && [ "$api" = "$archived" ] && echo PASS || echo FAIL) "archive: ${archived:0:300}"
    # The Python package's library (make python): its ctypes layer and the test hook, nothing else.
    local want_py got_py
    want_py=$(sed -nE 's/^ +([a-z_]+);$/\1/p' 06_tuning/python/course_cholesky.map | sort -u | tr '\n' ' ')
    got_py=$(nm -D --defined-only ${BUILD:-build}/06_tuning/libcourse_cholesky.so 2> /dev/null | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u | tr '\n' ' ')
    record "the Python package's library exports its ctypes layer and nothing else" $([ -n "$want_py" ] && [ "$want_py" = "$got_py" ] && echo PASS || echo FAIL) "map: $want_py; exported: ${got_py:0:300}"
    # An installed copy reads the tables compiled in: no path to the tables here or to make tune's.
    local paths
    paths=$(strings $prefix/lib/libcourse_cholesky.so 2> /dev/null | grep -E "^$PWD/(06_tuning/tables|build)" | sort -u | tr '\n' ' ')
    record "the installed library names no folder of the source tree's tables or of the build" $([ -f $prefix/lib/libcourse_cholesky.so ] && [ -z "$paths" ] && echo PASS || echo FAIL) "${paths:-none}"
    local cflags="-I$prefix/include -I$cuda_home/include"
    record "the installed header alone compiles as C11" $(ok bash -c "echo '#include <course_cholesky/cholesky_plan.h>' | gcc -std=c11 -Wall -Werror $cflags -x c -c - -o /dev/null") ""
    record "the installed header alone compiles as C++11" $(ok bash -c "echo '#include <course_cholesky/cholesky_plan.h>
cholesky_options o = CHOLESKY_OPTIONS_INIT;' | g++ -std=c++11 -Wall -Werror $cflags -x c++ -c - -o /dev/null") ""
}

# Each build of the example: built (or skipped when its tool is missing), then run at both shapes.
example_tests() {
    local how=$1 tool=$2 build=$3 bin=$4
    group "library example"
    if ! command -v "$tool" > /dev/null 2>&1; then
        for t in built "1024 x 64^2" "1 x 4096^2"; do record "example ($how): $t" SKIP "$tool is not installed"; done
        return 0
    fi
    setup bash -c "( $build ) > '$tmp/$how.log' 2>&1"
    record "example ($how): built outside the tree" $([ -x "$bin" ] && echo PASS || echo FAIL) "$(tail -n 3 $tmp/$how.log 2> /dev/null | tr '\n' ' ')"
    if [ "$how" = "pkg-config, static" ]; then
        local needed
        needed=$(readelf -d "$bin" 2> /dev/null | grep -o 'libcourse_cholesky[^]]*' | tr '\n' ' ')
        record "example ($how): the archive inside it, no libcourse_cholesky.so needed" $([ -x "$bin" ] && [ -z "$needed" ] && echo PASS || echo FAIL) "NEEDED: ${needed:-none}"
    fi
    local shape out rc
    for shape in "64 1024" "4096 1"; do
        if [ -x "$bin" ]; then out=$("$bin" $shape 2>&1); rc=$?; else out="not built"; rc=-1; fi
        if [ $gpu = 1 ]; then
            record "example ($how): ${shape#* } x ${shape% *}^2 factored and checked" $([ $rc = 0 ] && grep -q ': right$' <<< "$out" && echo PASS || echo FAIL) "exit $rc: $(tail -n 1 <<< "$out")"
        else
            record "example ($how): ${shape#* } x ${shape% *}^2 without a GPU: the no-device status, exit 77" $([ $rc = 77 ] && grep -q 'no device: no NVIDIA GPU / driver' <<< "$out" && echo PASS || echo FAIL) "exit $rc: $(tail -n 1 <<< "$out")"
        fi
    done
}

ex=06_tuning/library/example
pc_build="cp -r $ex $tmp/pc && PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C $tmp/pc example"
static_build="cp -r $ex $tmp/static && PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -C $tmp/static example-static"
plain_build="mkdir -p $tmp/cc && gcc -O2 -Wall -I$prefix/include -I$cuda_home/include $ex/example.c -o $tmp/cc/example -L$prefix/lib -lcourse_cholesky -L$cuda_home/lib64 -lcudart -lm -Wl,-rpath,$prefix/lib -Wl,-rpath,$cuda_home/lib64"
cmake_build="cp -r $ex $tmp/cm && cmake -S $tmp/cm -B $tmp/cm/build -DCMAKE_PREFIX_PATH=$prefix && cmake --build $tmp/cm/build"
all_tests() {
    installed_tests
    example_tests pkg-config pkg-config "$pc_build" $tmp/pc/example
    example_tests "pkg-config, static" pkg-config "$static_build" $tmp/static/example-static
    example_tests cmake cmake "$cmake_build" $tmp/cm/build/example
    example_tests "plain gcc" gcc "$plain_build" $tmp/cc/example
}
plan_from all_tests
installed_tests
if [ $gpu = 1 ] && ! what=$(${BUILD:-build}/06_tuning/test_student_kernels); then
    skip_rest "library example" "needs $what to pass first (the library runs your kernels too)"
else
    example_tests pkg-config pkg-config "$pc_build" $tmp/pc/example
    example_tests "pkg-config, static" pkg-config "$static_build" $tmp/static/example-static
    example_tests cmake cmake "$cmake_build" $tmp/cm/build/example
    example_tests "plain gcc" gcc "$plain_build" $tmp/cc/example
fi
finish
