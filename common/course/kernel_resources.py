#!/usr/bin/env python3
"""kernel_resources.py - what each kernel instance costs the GPU, from ptxas -v (make sass).

Reads the .res files that `make sass` writes (nvcc -Xptxas -v of one .cu file, same flags as the
build, for SASS_ARCH) and prints one row per kernel instance: registers a thread, bytes spilled to
local memory (stores/loads), static shared memory, stack. A spill in a hot loop, or registers
that leave too few blocks on an SM, show here before any profiler runs. With --kernel REGEX only
the instances whose name matches; with --sass DIR and cuobjdump on the PATH, their SASS is written
there too (one file per instance), from the build's own objects.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+)'")
PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def parse(path):
    """The kernels of one .res file: dicts with file, name, arch, regs, spill_st, spill_ld, smem, stack."""
    rows, cur = [], None
    for line in open(path, errors="replace"):
        m = ENTRY.search(line)
        if m:
            cur = {"res": path, "name": m.group(1), "arch": m.group(2), "regs": 0, "spill_st": 0, "spill_ld": 0, "smem": 0, "stack": 0}
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = PROPS.search(line)
        if m:
            cur["stack"], cur["spill_st"], cur["spill_ld"] = (int(g) for g in m.groups())
        m = USED.search(line)
        if m:
            cur["regs"] = int(m.group(1))
            cur["smem"] = int(m.group(2) or 0)
    return rows


def short(name, width=70):
    name = re.sub(r"\(.*\)$", "", name)  # the parameter list says nothing the template arguments do not
    return name if len(name) <= width else name[: width - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("res", nargs="+", help="the .res files (ptxas -v output) make sass wrote")
    ap.add_argument("--kernel", help="only the instances whose (demangled) name matches this regex")
    ap.add_argument("--csv", help="also write the rows to this CSV")
    ap.add_argument("--sass", help="write the SASS of the matching instances into this folder (needs cuobjdump and --kernel)")
    ap.add_argument("--build", default="build", help="the build folder whose objects hold the SASS (default build)")
    a = ap.parse_args()
    rows = [r for p in a.res for r in parse(p)]
    names = demangle(sorted({r["name"] for r in rows}))
    for r in rows:
        r["kernel"] = names[r["name"]]
        r["file"] = re.sub(r"^.*?/(?=(0\d_|common/))", "", os.path.splitext(os.path.splitext(r["res"])[0])[0]) + ".cu"
    if a.kernel:
        rx = re.compile(a.kernel)
        rows = [r for r in rows if rx.search(r["kernel"]) or rx.search(r["name"])]
    if not rows:
        print("kernel_resources: no kernel instance" + (f" matches '{a.kernel}'" if a.kernel else " found"), file=sys.stderr)
        return 1
    rows.sort(key=lambda r: (r["file"], r["kernel"]))
    print(f"{'file':34} {'kernel instance':70} {'arch':6} {'regs':>4} {'spill st/ld B':>13} {'smem B':>7} {'stack':>5}")
    for r in rows:
        spill = f"{r['spill_st']}/{r['spill_ld']}" if r["spill_st"] or r["spill_ld"] else "-"
        print(f"{r['file']:34} {short(r['kernel']):70} {r['arch']:6} {r['regs']:4d} {spill:>13} {r['smem']:7d} {r['stack']:5d}")
    spilling = sum(1 for r in rows if r["spill_st"] or r["spill_ld"])
    print(f"{len(rows)} kernel instances, {spilling} spill to local memory")
    if a.csv:
        os.makedirs(os.path.dirname(a.csv) or ".", exist_ok=True)
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "kernel", "arch", "registers", "spill_store_bytes", "spill_load_bytes", "smem_bytes", "stack_bytes"])
            for r in rows:
                w.writerow([r["file"], r["kernel"], r["arch"], r["regs"], r["spill_st"], r["spill_ld"], r["smem"], r["stack"]])
    if a.sass:
        if not a.kernel:
            print("kernel_resources: --sass needs --kernel (one file per matching instance)", file=sys.stderr)
            return 2
        tool = shutil.which("cuobjdump")
        if not tool:
            print("kernel_resources: no cuobjdump on the PATH: the table above only (the GPU machines' toolkit has it)")
            return 0
        os.makedirs(a.sass, exist_ok=True)
        for r in rows:
            obj = os.path.join(a.build, os.path.splitext(r["file"])[0] + ".o")
            out = os.path.join(a.sass, re.sub(r"[^A-Za-z0-9_.-]+", "_", short(r["kernel"], 120)) + ".sass")
            dump = subprocess.run([tool, "-sass", "-fun", r["name"], obj], capture_output=True, text=True)
            open(out, "w").write(dump.stdout or dump.stderr)
            print(f"SASS of {short(r['kernel'])}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
