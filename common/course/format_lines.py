#!/usr/bin/env python3
"""format_lines.py FILE... - for each file, one line: the clang-format options that limit it to the
lines outside the solution regions (--lines=A:B ...), or nothing when the file has no region.

The style is checked on the course's own code, not on what a student writes between the markers
(nor on the kit's stubs, several statements to a line), so make format-check and the source
format tests pass these to clang-format --dry-run."""
import sys

from course_kit import BEGIN, END


def outside_regions(lines):
    """The lines outside the regions, less the line just before each BEGIN: clang-format counts the
    whitespace that starts a line as the end of the line before, so a student's `#pragma` as the
    region's first statement (clang-format puts the comments before a directive in column 0) was
    reported at that line, usually the function's `{`."""
    ranges, start, inside = [], 1, False
    for i, line in enumerate(lines, 1):
        if not inside and BEGIN.match(line):
            if i - 1 > start: ranges.append((start, i - 2))
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
