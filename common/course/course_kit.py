#!/usr/bin/env python3
"""course_kit.py - the student kit, made from the course's own sources, and the reverse.

A solution region in a source file is

    // BEGIN SOLUTION: <what to write, in one line>
    // stub: <a line of code the kit holds instead>      (zero or more)
    <the reference solution>
    // END SOLUTION

In the kit the region keeps its two marker lines (students write between them, and the grader
takes exactly what is between them), and its content becomes the stub lines, uncommented. The
task text of the BEGIN line stays as the one comment that says what to write.

  course_kit.py kit OUTDIR         write the kit of this repository into OUTDIR (+ OUTDIR.tar.gz)
  course_kit.py check OUTDIR       check a kit written by 'kit': no solution line anywhere in it,
                                   nothing instructor-only, and the solutions put back give the
                                   repository's sources byte for byte
  course_kit.py splice SRC DST OUT [N...]
                                   put the region contents of tree SRC into the regions of tree DST
                                   (only those of stages N..., if given), writing OUT (how grading
                                   takes a submission); prints every change outside the regions
                                   that it ignored
"""
import os
import re
import shutil
import subprocess
import sys
import tarfile

BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION(?::\s*(.*))?$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
STUB = re.compile(r"^\s*// stub: ?(.*)$")

# Never in a kit: the instructors' material and the mutation tests, which hold solution lines, and
# the tests of the grading machinery (make test-grading, test-grade-class), which need them.
INSTRUCTOR_ONLY = (".ci/", "INSTRUCTORS.md", "common/tests/test_grading.sh", "common/tests/test_grade_class.sh",
                   "common/points-grading.tsv", "common/points-grade-class.tsv", "common/course/grade_class.py",
                   "common/course/kit_start.md")
# What the kit's README starts with, and the marks around what only instructors read in a README.
KIT_START = "common/course/kit_start.md"
INSTRUCTORS_PART = re.compile(r"<!-- instructors -->.*?<!-- /instructors -->\n?", re.S)
# The file naming the course's version a kit was made from (the kit has no git history).
VERSION_FILE = "COURSE_VERSION"
# Where each stage's exercise lives.
STAGE_DIRS = {1: "01_serial/", 2: "02_single_tile/", 3: "03_left_right_top/", 4: "04_interleaved/", 5: "05_chunked/", 6: "06_tuning/"}
# Files that may hold regions.
SOURCE_EXT = (".c", ".h", ".cu", ".cuh")


def repo_files(root):
    """The course's files: what git tracks or would track (not ignored), that exist now; in a folder
    that is not the course's git repository (a kit), every file but build output."""
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True)
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(root):
        skip = {".git", ".venv", "build", "node_modules"}
        found = []
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d not in skip and not d.startswith("build-")]
            found += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
        return sorted(found)
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout
    return sorted({f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(root, f))})


def course_version(root):
    """The commit the kit is made from ('6baf6df', '6baf6df-dirty' with changes not committed)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    head = git("rev-parse", "--short", "HEAD").stdout.strip() or "unknown"
    return head + ("" if git("diff", "--quiet", "HEAD").returncode == 0 else "-dirty")


def kit_markdown(root, rel, text):
    """A README as the kit has it: the instructors' parts out; the top README starts with the
    students' getting started, after its title."""
    text = INSTRUCTORS_PART.sub("", text)
    if rel == "README.md":
        title, _, rest = text.partition("\n")
        text = title + "\n\n" + open(os.path.join(root, KIT_START)).read().rstrip("\n") + "\n" + rest
        # The stage map's status is the course's ("done"); in a kit the stages hold stubs to write.
        text = STAGE_ROW.sub(lambda m: m.group(1) + ("yours to write (the kit holds stubs)" if m.group(2)[0] == "0"
                                                     else "provided"), text)
    return text


# A stage map row of the top README: | [`01_serial`](...) | what it teaches | status |
STAGE_ROW = re.compile(r"^(\| \[`(0\d_\w+|common|datasets)`\]\([^)]*\) \|.*\| )[^|]*(?= \|$)", re.M)


def parse(text, path="?"):
    """Split a file into ('text', lines) and ('region', begin_line, content_lines, end_line)."""
    parts, lines, i = [], text.splitlines(keepends=True), 0
    plain = []
    while i < len(lines):
        m = BEGIN.match(lines[i].rstrip("\n"))
        if not m:
            if "BEGIN SOLUTION" in lines[i] and lines[i].lstrip().startswith("//"):
                raise SystemExit(f"{path}:{i + 1}: malformed marker: {lines[i].strip()}")
            if END.match(lines[i].rstrip("\n")):
                raise SystemExit(f"{path}:{i + 1}: END SOLUTION without BEGIN")
            plain.append(lines[i])
            i += 1
            continue
        if not m.group(2):
            raise SystemExit(f"{path}:{i + 1}: a region must say what to write: '// BEGIN SOLUTION: <task>'")
        parts.append(("text", plain))
        plain = []
        begin, content, i = lines[i], [], i + 1
        while i < len(lines) and not END.match(lines[i].rstrip("\n")):
            if BEGIN.match(lines[i].rstrip("\n")):
                raise SystemExit(f"{path}:{i + 1}: nested BEGIN SOLUTION")
            content.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}: BEGIN SOLUTION without END")
        parts.append(("region", begin, content, lines[i]))
        i += 1
    parts.append(("text", plain))
    return parts


def regions(parts):
    return [p for p in parts if p[0] == "region"]


def join(parts):
    out = []
    for p in parts:
        out += p[1] if p[0] == "text" else [p[1], *p[2], p[3]]
    return "".join(out)


def stub_of(begin, content):
    indent = BEGIN.match(begin.rstrip("\n")).group(1)
    return [indent + STUB.match(l.rstrip("\n")).group(1) + "\n" for l in content if STUB.match(l.rstrip("\n"))]


def solution_lines(content):
    return [l for l in content if not STUB.match(l.rstrip("\n"))]


def make_kit(root, outdir):
    if os.path.exists(outdir):
        shutil.rmtree(outdir)
    count = 0
    for f in repo_files(root):
        if f.startswith(INSTRUCTOR_ONLY):
            continue
        src, dst = os.path.join(root, f), os.path.join(outdir, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if f.endswith(SOURCE_EXT):
            parts = parse(open(src).read(), f)
            kit = [p if p[0] == "text" else ("region", p[1], stub_of(p[1], p[2]), p[3]) for p in parts]
            count += len(regions(parts))
            with open(dst, "w") as out:
                out.write(join(kit))
            shutil.copymode(src, dst)
        elif f.endswith(".md"):
            with open(dst, "w") as out:
                out.write(kit_markdown(root, f, open(src).read()))
        else:
            shutil.copy2(src, dst)
    with open(os.path.join(outdir, VERSION_FILE), "w") as out:
        out.write(f"{course_version(root)}\nthe version of the course this student kit was made from\n")
    with tarfile.open(outdir.rstrip("/") + ".tar.gz", "w:gz") as t:
        t.add(outdir, arcname=os.path.basename(outdir.rstrip("/")))
    print(f"student kit: {outdir} and {outdir.rstrip('/')}.tar.gz ({count} solution regions replaced by stubs)")


def splice(src_root, dst_root, out_root, quiet=False, only=None):
    """out = dst with every region's content taken from src (only in files under the folders of
    `only`, when given). Returns the ignored changes."""
    if os.path.abspath(out_root) != os.path.abspath(dst_root):
        if os.path.exists(out_root):
            shutil.rmtree(out_root)
        shutil.copytree(dst_root, out_root, symlinks=True, ignore=shutil.ignore_patterns(".git", "build", ".venv"))
    ignored = []
    for dirpath, _, files in os.walk(out_root):
        for name in files:
            if not name.endswith(SOURCE_EXT):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, out_root)
            if only is not None and not rel.startswith(tuple(only)):
                continue
            mine = parse(open(path).read(), rel)
            if not regions(mine):
                continue
            theirs_path = os.path.join(src_root, rel)
            if not os.path.exists(theirs_path):
                ignored.append(f"{rel}: missing from the submission (stubs kept)")
                continue
            theirs = parse(open(theirs_path).read(), "submission/" + rel)
            if len(regions(theirs)) != len(regions(mine)):
                ignored.append(f"{rel}: the submission has {len(regions(theirs))} solution regions, the course "
                               f"{len(regions(mine))}: regions not taken (stubs kept)")
                continue
            it = iter(regions(theirs))
            merged = [p if p[0] == "text" else ("region", p[1], next(it)[2], p[3]) for p in mine]
            outside_mine = [p[1] for p in mine if p[0] == "text"]
            outside_theirs = [p[1] for p in theirs if p[0] == "text"]
            if outside_mine != outside_theirs:
                ignored.append(f"{rel}: changed outside the solution regions (those changes are ignored)")
            with open(path, "w") as out:
                out.write(join(merged))
    if not quiet:
        for x in ignored:
            print(f"note: {x}")
    return ignored


def check_kit(root, kit):
    problems = []
    files = repo_files(root)
    kit_files = []
    for dirpath, _, names in os.walk(kit):
        kit_files += [os.path.relpath(os.path.join(dirpath, n), kit) for n in names]
    for f in kit_files:
        if f.startswith(INSTRUCTOR_ONLY) or f == ".git" or f.startswith(".git/"):
            problems.append(f"instructor-only file in the kit: {f}")
    # Secret lines: solution lines that appear nowhere outside the regions of the sources.
    public, secret = set(), set()
    for f in files:
        if f.startswith(INSTRUCTOR_ONLY):
            continue
        try:
            text = open(os.path.join(root, f)).read()
        except UnicodeDecodeError:
            continue
        parts = parse(text, f) if f.endswith(SOURCE_EXT) else [("text", text.splitlines(True))]
        for p in parts:
            if p[0] == "text":
                public.update(l.strip() for l in p[1])
            else:
                secret.update(l.strip() for l in solution_lines(p[2]))
    secret = {s for s in secret - public if len(s) >= 8 and not s.startswith(("//", "/*", "#pragma"))}
    for f in kit_files:
        try:
            lines = {l.strip() for l in open(os.path.join(kit, f)).read().splitlines()}
        except UnicodeDecodeError:
            continue
        for s in sorted(secret & lines):
            problems.append(f"solution line in the kit: {f}: {s}")
    # What a student reads names nothing the kit lacks: every relative link of a README resolves, and
    # no README names an instructors' file (the Makefile's instructors' targets are not in a kit's).
    names = [x.rstrip("/") for x in INSTRUCTOR_ONLY]
    for f in kit_files:
        if not f.endswith(".md"):
            continue
        text = open(os.path.join(kit, f), errors="replace").read()
        for name in names:
            if name in text:
                problems.append(f"{f} names {name}, which the kit lacks")
        if f.endswith(".md"):
            for link in re.findall(r"\]\(([^)\s]+)\)", text):
                path = link.split("#")[0]
                if not path or re.match(r"^[a-z]+:", path):
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(kit, os.path.dirname(f), path))):
                    problems.append(f"{f}: the link ({link}) leads nowhere in the kit")
    # Reverse: the solutions put back give the sources byte for byte.
    back = kit.rstrip("/") + "-restored"
    splice(root, kit, back, quiet=True)
    for f in files:
        if f.startswith(INSTRUCTOR_ONLY) or f.endswith(".md"):  # READMEs are the kit's own (kit_markdown)
            continue
        a, b = os.path.join(root, f), os.path.join(back, f)
        if not os.path.exists(b) or open(a, "rb").read() != open(b, "rb").read():
            problems.append(f"restoring the solutions does not give back {f}")
    shutil.rmtree(back)
    for p in problems:
        print(f"FAIL  kit: {p}")
    print(f"kit check: {len(secret)} solution lines searched for in {len(kit_files)} files; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


def main(argv):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    if len(argv) == 2 and argv[0] == "kit":
        make_kit(root, argv[1])
        return 0
    if len(argv) == 2 and argv[0] == "check":
        return check_kit(root, argv[1])
    if len(argv) >= 4 and argv[0] == "splice":
        splice(argv[1], argv[2], argv[3], only=[STAGE_DIRS[int(n)] for n in argv[4:]] or None)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
