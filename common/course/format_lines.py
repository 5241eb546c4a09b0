#!/usr/bin/env python3
"""format_lines.py FILE... - for each file, one line: the clang-format options that limit it to the
lines outside the solution regions (--lines=A:B ...), or nothing when the file has no region.

The style is checked on the course's own code, not on what a student writes between the markers
(nor on the kit's stubs, several statements to a line), so make format-check and the source
format tests pass these to clang-format --dry-run."""
import sys

from course_kit import BEGIN, END


def outside_regions(lines):
    ranges, start, inside = [], 1, False
    for i, line in enumerate(lines, 1):
        if not inside and BEGIN.match(line):
            if i > start: ranges.append((start, i - 1))
            inside = True
        elif inside and END.match(line):
            start, inside = i + 1, False
    if not inside and start <= len(lines): ranges.append((start, len(lines)))
    return ranges


def main(argv):
    for path in argv:
        lines = open(path).read().split("\n")
        if any(BEGIN.match(l) for l in lines):
            print(" ".join(f"--lines={a}:{b}" for a, b in outside_regions(lines)) or "--lines=1:1")
        else:
            print("")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
