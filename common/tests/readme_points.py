"""readme_points.py - every point a README promises is the grader's (points.tsv, grade.py's PERF).

Prints one line per check, 'NAME<TAB>PASS|FAIL|SKIP<TAB>DETAIL', for test_readme_points.sh to record.
Run from the course's root. The checks:
  - each points.tsv's header total '# Stage NN points (T)' is the sum of its weights;
  - in each stage README, every 'N points' belongs to the group named last before it in the same
    sentence and equals its weight; with no group named it must be 0 (sanity) or the stage's
    total; 'N performance points' equal grade.py's performance weight of the stage;
  - each stage README states the points of every group that has some;
  - the top README's points table: each stage's total, and each 'group W' of its list;
  - INSTRUCTORS.md's totals: 'stage N T' per stage, the grand total, and the performance points;
  - every group a suite's script or C test plans by name has a row in that suite's points file
    (a group missing from it fails the suite: cheaper to learn here than after test-grading's builds).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "course"))
from grade import PERF, POINTS  # noqa: E402
from grading_common import read_points  # noqa: E402

NUMBER = r"(?<![\d.])(\d+(?:\.\d+)?)"
results = []


def check(name, ok, detail):
    results.append((name, "PASS" if ok else "FAIL", detail))


def fmt(x):
    return f"{x:g}"


def plain(text):
    """Markdown emphasis and code marks out, whitespace folded: names compare as the reader reads them."""
    return re.sub(r"\s+", " ", re.sub(r"[*`]", "", text))


def last_group(context, groups):
    """The group whose name ends last in context (the longest of those ending there), or None."""
    best, best_end = None, -1
    low = context.lower()
    for g in groups:
        for m in re.finditer(r"(?<![\w-])" + r"\s+".join(map(re.escape, g.lower().split())) + r"(?![\w-])", low):
            if m.end() > best_end or (m.end() == best_end and len(g) > len(best)):
                best, best_end = g, m.end()
    return best


def sentence_before(text, pos):
    """The text from the start of the sentence (or list item) that holds pos, up to pos."""
    start = 0
    for m in re.finditer(r"\.\s|:\s*\n|\n\s*\n|\n\s*(?:-|\d+\.)\s", text[:pos]):
        start = m.end()
    return text[start:pos]


def stage_readme(stage, path, groups, total):
    folded = re.sub(r"[*`]", "", open(path).read())  # emphasis out, lines kept (they are quoted)
    stated = set()
    for m in re.finditer(NUMBER + r" (performance )?points?\b", folded):
        n = float(m.group(1))
        line = folded.count("\n", 0, m.start()) + 1
        name = f"{path}:{line}: '{m.group(0)}'"
        if m.group(2):
            want = PERF.get(stage, (0,))[0]
            check(name, n == want, f"grade.py gives stage {stage} {fmt(want)} performance points")
            continue
        g = last_group(sentence_before(folded, m.start()), groups)
        if g is None:
            check(name, n == 0 or n == total,
                  f"no group named before it: only 0 (sanity) or the stage's total {fmt(total)} may stand alone")
        else:
            stated.add(g)
            w = groups[g][0]
            check(name, n == w, f"group '{g}' is worth {fmt(w)} in points.tsv")
    for g, (w, _) in groups.items():
        if w > 0:
            check(f"{path}: states '{g}'", g in stated, f"points.tsv gives '{g}' {fmt(w)} points; the README must say so")


def top_table(stages):
    text = open("README.md").read()
    for stage, (path, groups, total) in stages.items():
        row = re.search(r"^\| stage-%d \| (\d+) \| (.*) \|$" % stage, text, re.M)
        if not row:
            check(f"README.md: stage-{stage} row", False, "the points table has no row for this stage")
            continue
        check(f"README.md: stage-{stage} total", float(row.group(1)) == total,
              f"points.tsv sums to {fmt(total)}")
        named = set()
        for item in plain(row.group(2)).split(","):
            m = re.search(NUMBER + r"\s*$", item)
            if not m:
                continue
            g = last_group(item, groups)
            named.add(g)
            ok = g is not None and float(m.group(1)) == groups[g][0]
            check(f"README.md: stage-{stage} '{item.strip()}'", ok,
                  f"points.tsv gives '{g}' {fmt(groups[g][0])}" if g else "names no group of points.tsv")
        for g, (w, _) in groups.items():
            if w > 0:
                check(f"README.md: stage-{stage} lists '{g}'", g in named, f"'{g}' is worth {fmt(w)}")


def instructors(stages):
    if not os.path.exists("INSTRUCTORS.md"):  # a student's kit has none (course_kit.py)
        for name in [f"INSTRUCTORS.md: stage {s} total" for s in stages] + ["INSTRUCTORS.md: grand total",
                                                                           "INSTRUCTORS.md: performance points"]:
            results.append((name, "SKIP", "no INSTRUCTORS.md here (a student's kit)"))
        return
    text = plain(open("INSTRUCTORS.md").read())
    m = re.search(r"Total: (.*?)= (\d+)", text)
    if not m:
        check("INSTRUCTORS.md: totals", False, "no 'Total: ... = N' sentence")
        return
    said = {int(s): float(t) for s, t in re.findall(r"stage (\d) " + NUMBER, m.group(1))}
    for stage, (_, _, total) in stages.items():
        check(f"INSTRUCTORS.md: stage {stage} total", said.get(stage) == total,
              f"says {fmt(said[stage]) if stage in said else 'nothing'}, points.tsv sums to {fmt(total)}")
    grand = sum(t for _, _, t in stages.values())
    check("INSTRUCTORS.md: grand total", float(m.group(2)) == grand, f"points.tsv files sum to {fmt(grand)}")
    perf = re.search(r"(\d+) performance points in make grade \(([^)]*)\)", text)
    want = {s: w for s, (w, *_) in PERF.items()}
    got = {int(s): float(w) for s, w in re.findall(r"stage (\d): " + NUMBER, perf.group(2))} if perf else {}
    check("INSTRUCTORS.md: performance points", perf is not None and got == want
          and float(perf.group(1)) == sum(want.values()), f"grade.py's PERF: {want}")


def make_text():
    """The course's make files, continuation lines joined."""
    files = ["Makefile", "common/stage.mk"] + sorted(
        os.path.join(d, "stage.mk") for d in os.listdir(".") if os.path.isfile(os.path.join(d, "stage.mk")) and d != "common")
    return "\n".join(open(f).read().replace("\\\n", " ") for f in files)


def planned_groups(script):
    """Group names a test script or C test source plans literally (names built at run time are not seen)."""
    text = open(script).read()
    if script.endswith(".sh"):  # plan GROUP N, or `group GROUP` in a function that plan_from counts
        found = re.findall(r'^\s*(?:plan|group)\s+(?:"([^"]+)"|([\w-]+))(?:\s|$)', text, re.M)
        return list(dict.fromkeys(found))
    return [(g, "") for g in re.findall(r'harness_plan\(\s*&?\w+,\s*"([^"]+)"', text)]


def suite_groups():
    """Each suite's scripts (from the make files) against its points file."""
    text = make_text()
    for name, value in re.findall(r"^(\w+)\s*:=\s*([^\s$]+)\s*$", text, re.M):  # plain variables, e.g. GRADING_POINTS
        text = text.replace(f"$({name})", value)
    pairs = []  # (points file, command text)
    for m in re.finditer(r"^SUITE_CMDS_([\w-]+)\s*:=(.*)$", text, re.M):
        p = re.search(r"^SUITE_POINTS_" + re.escape(m.group(1)) + r"\s*:=\s*(\S+)", text, re.M)
        if p:
            pairs.append((p.group(1), m.group(2), os.path.dirname(p.group(1))))
    for line in text.splitlines():
        p = re.search(r"--points\s+(\S+)", line)
        if p and "bash " in line and "$(" not in p.group(1):
            pairs.append((p.group(1), line, "common"))
    seen = 0
    in_kit = os.path.exists("COURSE_VERSION")  # a student kit: the instructors' suites are left out
    for tsv, cmds, folder in pairs:
        if in_kit and not os.path.exists(tsv):
            continue
        groups = read_points(tsv)
        sources = re.findall(r"bash\s+([\w./-]+\.sh)", cmds)
        for binary in re.findall(r"\$\(\w+\)/(?:[\w/]+/)?(test_\w+)", cmds):
            sources += [os.path.join(folder, binary + ext) for ext in (".c", ".cu") if os.path.isfile(os.path.join(folder, binary + ext))]
        for src in sources:
            for quoted, bare in planned_groups(src):
                name = quoted or bare
                seen += 1
                check(f"{src}: group '{name}' in {tsv}", name in groups,
                      "has a row" if name in groups else "no row: the suite would fail it")
    check("planned groups found in the make files' suites", seen >= 20, f"{seen} literal plans")


def main():
    stages = {}
    for stage, tsv in sorted(POINTS.items()):
        groups = read_points(tsv)
        total = sum(w for w, _ in groups.values())
        head = re.search(r"points \((\d+)\)", open(tsv).readline())
        check(f"{tsv}: header total", head is not None and float(head.group(1)) == total,
              f"the weights sum to {fmt(total)}")
        readme = os.path.join(os.path.dirname(tsv), "README.md")
        stages[stage] = (readme, groups, total)
        stage_readme(stage, readme, groups, total)
    top_table(stages)
    instructors(stages)
    suite_groups()
    for r in results:
        print("\t".join(x.replace("\t", " ").replace("\n", " ") for x in r))


if __name__ == "__main__":
    main()
