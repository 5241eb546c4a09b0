#!/usr/bin/env python3
"""solution_policy.py TREE STAGE - what a graded solution may not do, checked before its tests run.

A student's solution regions are compiled into the same programs as the tests that judge them, so
code in a region could write the test records itself, replace a library function the harness calls,
start a process that outlives the grading, call the checker's own reference, or compile differently
under the sanitizer that checks it (a student's audit found each of these earning points). make grade
(grade.py) runs this on each graded stage after building it and before its tests; a stage with a
finding scores 0, with the finding in its report. Checked:
  * in the regions' text: an #include by a path (another file of the grading machine, e.g. the
    instructor's reference), a test of which sanitizer compiles the file (__SANITIZE_*,
    __has_feature), .incbin, a raw syscall; in header regions also token pasting (##), since their
    code lands in the tests' own objects, whose symbols are not checked;
  * in the object compiled from each .c/.cu file with regions (the symbols the compiler emitted,
    whatever macros built them): calls that reach files, the environment, other processes, the
    dynamic loader or memory protection; symbols of the course's checkers, oracles and harness and of
    the libraries that would do the work (cuSOLVER, cuBLAS, LAPACK); a global definition of a name
    that a shared library of the stage's programs or another course object defines (interposition);
    and a syscall instruction in its host code.
It is a policy, not a sandbox: the solution still shares the tests' process, so code that finds the
harness's state or its records buffer in memory and writes there directly is not caught (a second
audit did that by walking the stack); only running the solution in a process of its own closes that
(INSTRUCTORS.md). Exit 0: nothing found; 1: findings, one line each; 2: bad arguments.
"""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import course_kit  # noqa: E402

# Calls a solution never needs: files, raw writes, the environment, processes, the loader, memory maps.
FORBIDDEN = set("""
getenv secure_getenv setenv putenv unsetenv clearenv environ __environ _environ
fopen fopen64 freopen freopen64 fdopen open open64 __open_2 __open64_2 openat openat64 __openat_2 __openat64_2
creat creat64 tmpfile tmpfile64 mkstemp mkstemp64 mkostemp opendir truncate ftruncate remove rename renameat
renameat2 unlink unlinkat link linkat symlink mkdir chmod chdir fchdir
write pwrite pwrite64 writev pwritev dprintf vdprintf __dprintf_chk __vdprintf_chk sendfile copy_file_range
dup dup2 dup3 fcntl ioctl socket connect bind sendto sendmsg
fork vfork clone clone3 __clone execve execv execvp execvpe execl execlp execle fexecve system popen
posix_spawn posix_spawnp daemon setsid setpgid setpgrp kill killpg ptrace prctl
dlopen dlmopen dlsym dlvsym dladdr dlinfo dl_iterate_phdr
mmap mmap64 mprotect pkey_mprotect mremap process_vm_writev process_vm_readv
syscall readlink readlinkat close close_range closefrom fcloseall pipe pipe2
fprintf vfprintf fputs fputc putc fwrite fflush fputs_unlocked fputc_unlocked putc_unlocked fwrite_unlocked
fflush_unlocked __fprintf_chk __vfprintf_chk setvbuf setbuf fileno stdout stderr stdin
spotrf_ dpotrf_ spotf2_ dpotf2_ spotrf dpotrf
""".split())
# glibc exports most calls twice, the second time as __name (__write, __open, __fork): a name with two
# leading underscores is refused unless it is one of the compiler's and runtimes' own helpers.
RUNTIME_HELPERS = re.compile(r"^__(stack_chk_fail|assert_fail|printf_chk|memcpy_chk|memset_chk|memmove_chk|"
                             r"errno_location|isoc99_\w+|cuda\w*|cxa_\w+|gxx_personality_v0|dso_handle|"
                             r"fatbinwrap\w*|nv\w*|device_stub\w*|powi\w*|mul\w*|div\w*|udiv\w*|umod\w*|"
                             r"mod\w*|fix\w*|float\w*|extend\w*|trunc\w*|sqrt\w*|fma\w*|builtin\w*|"
                             r"gcc_personality_v0|popcount\w*|clz\w*|ctz\w*)$")
FORBIDDEN_PREFIXES = ("cusolver", "cublas", "magma", "LAPACKE_", "_IO_", "__libc_", "_dl_",
                      "ref_", "oracle_", "harness_", "check_")
FORBIDDEN_PARTS = ("ofstream", "basic_fstream", "basic_filebuf")  # C++ file streams, mangled
# Course objects whose symbols are the judges: the checks, the oracles, the harness, the tests.
JUDGES = re.compile(r"(^|/)(checks|cusolver_oracle|harness|oracle[^/]*|test_[^/]*|sanitize_[^/]*|bench_[^/]*)\.o$")
# Debug output goes to printf, puts or putchar: the stream objects and the calls that take a FILE* are
# refused above, since a FILE* found in memory (the harness's records) would take them too.
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]*)[>"]', re.M)
WHICH_BUILD = re.compile(r"__SANITIZE_|__has_feature|__has_include|__PIE__|__pie__|__PIC__|__pic__|"
                         r"__OPTIMIZE|__NO_INLINE__|__FAST_MATH__|__OPTIMIZE_SIZE__")
# A region stays where it stands: inside its function, or (at file scope) whole definitions. A region
# that closes the braces around it could put anything at file scope (includes, constructors, a
# replacement for a library function). Digraphs and trigraphs count as the braces they spell.
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\?\?<|\?\?>|<%|%>|[{}]', re.S)


def braces_escape(text):
    """True when the region closes a brace it did not open."""
    depth = 0
    for t in TOKENS.findall(text):
        if t in ("{", "<%", "??<"):
            depth += 1
        elif t in ("}", "%>", "??>"):
            depth -= 1
            if depth < 0:
                return True
    return False


def region_texts(path):
    parts = course_kit.parse(open(path, errors="replace").read(), path)
    return ["".join(p[2]) for p in course_kit.regions(parts)]


def source_problems(rel, texts):
    found = []
    header = rel.endswith((".h", ".cuh", ".hpp"))
    for text in texts:
        for kind, name in INCLUDE.findall(text):
            if "/" in name or "\\" in name or ".." in name:
                found.append(f'{rel}: a solution region includes a file by its path ({kind}{name}): not allowed')
        if WHICH_BUILD.search(text):
            found.append(f"{rel}: a solution region asks which build compiles it ({WHICH_BUILD.search(text).group(0)}):"
                         " the sanitizers must check the code that is graded")
        if ".incbin" in text or re.search(r"\bsyscall\b|\bsysenter\b|int\s+\$?0x80", text):
            found.append(f"{rel}: a solution region embeds a file or makes a raw system call: not allowed")
        if braces_escape(text):
            found.append(f"{rel}: a solution region closes a brace it did not open (it must stay inside its "
                         "function, or define whole functions): not allowed")
        if header and "##" in text:
            found.append(f"{rel}: a solution region in a header pastes tokens (##): not allowed in headers")
    return found


def nm(args, path):
    r = subprocess.run(["nm", *args, path], capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else []


def undefined(obj):
    return {l.split()[-1] for l in nm(["-u"], obj) if l.strip()}


def defined_globals(obj, weak=True):
    """Global names the object defines; weak=False leaves out weak definitions (C++'s inline functions
    and templates are weak in every object that uses them)."""
    out = set()
    for l in nm(["-g", "--defined-only"], obj):
        f = l.split()
        if len(f) >= 3 and f[1] not in ("U", "w", "v") and (weak or f[1] not in ("W", "V")):
            out.add(f[2])
    return out


def shared_library_symbols(tree, stage_dir):
    """Names the shared libraries of the stage's programs define (ldd of one of them)."""
    names = set()
    for prog in sorted(glob.glob(os.path.join(tree, "build", stage_dir, "*"))):
        if os.path.isfile(prog) and os.access(prog, os.X_OK) and not prog.endswith((".so", ".o", ".d", ".a")):
            r = subprocess.run(["ldd", prog], capture_output=True, text=True)
            libs = re.findall(r"=>\s*(/\S+)", r.stdout)
            for lib in libs:
                for l in nm(["-D", "--defined-only"], lib):
                    f = l.split()
                    if len(f) >= 3:
                        names.add(f[2].split("@")[0])
            if libs:
                break
    return names


def course_objects(tree):
    objs = glob.glob(os.path.join(tree, "build", "**", "*.o"), recursive=True)
    return [o for o in objs if "/test-results/" not in o]


def object_problems(tree, rel, obj, others, judges, libs):
    found = []
    for name in sorted(undefined(obj)):
        base = name.split("@")[0]
        if (base in FORBIDDEN or base.startswith(FORBIDDEN_PREFIXES) or any(p in base for p in FORBIDDEN_PARTS)
                or base in judges or (base.startswith("__") and not RUNTIME_HELPERS.match(base))):
            found.append(f"{rel}: the solution calls {base}, which a solution may not use (files, the environment, "
                         "processes, the loader, or the course's checkers and the libraries that do the work)")
    strong = defined_globals(obj, weak=False)
    for name in sorted(defined_globals(obj)):
        # weak C++ names are the templates and inline functions every user of them instantiates
        # (std::string's members, which libstdc++ also exports); a weak C name still interposes
        if (name in libs and (name in strong or not name.startswith("_Z"))) or (name in strong and name in others):
            found.append(f"{rel}: the solution defines {name}, a name that a library or the course already defines "
                         "(it would replace theirs): rename it or make it static")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True).stdout
    if re.search(r"\s(syscall|sysenter)\b|\sint\s+\$0x80", dis):
        found.append(f"{rel}: the compiled solution makes a raw system call: not allowed")
    return found


def check(tree, stage):
    stage_dir = course_kit.STAGE_DIRS[stage].rstrip("/")
    found, compiled = [], []
    for path in sorted(glob.glob(os.path.join(tree, stage_dir, "*"))):
        rel = os.path.relpath(path, tree)
        if not path.endswith(course_kit.SOURCE_EXT) or not os.path.isfile(path):
            continue
        texts = region_texts(path)
        if not texts:
            continue
        found += source_problems(rel, texts)
        obj = os.path.join(tree, "build", os.path.splitext(rel)[0] + ".o")
        if rel.endswith((".c", ".cu")) and os.path.exists(obj):
            compiled.append((rel, obj))
    if compiled:
        objs = course_objects(tree)
        # the same sources compiled again elsewhere (the ThreadSanitizer build, the library's objects)
        same = tuple("/" + os.path.basename(os.path.splitext(rel)[0]) + ".o" for rel, _ in compiled)
        others, judges = set(), set()
        for o in objs:
            if o.endswith(same):
                continue
            others |= defined_globals(o, weak=False)
            if JUDGES.search(o):
                judges |= defined_globals(o)
        libs = shared_library_symbols(tree, stage_dir)
        for rel, obj in compiled:
            found += object_problems(tree, rel, obj, others, judges, libs)
    return found


def main(argv):
    if len(argv) != 3 or not argv[2].isdigit() or int(argv[2]) not in course_kit.STAGE_DIRS:
        print("usage: solution_policy.py TREE STAGE (a built course tree, a stage 1..6)", file=sys.stderr)
        return 2
    found = check(os.path.abspath(argv[1]), int(argv[2]))
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
