#!/usr/bin/env python3
"""fuzz_cli.py BUILD_DIR FILES_DIR SECONDS [SEED] - random command lines for every CLI of the course.
fuzz_cli.py --programs BUILD_DIR - the programs it runs, one path a line (what make fuzz builds).

Each run picks a program and 0..6 arguments from a dictionary of options and values (good, bad,
huge, empty, missing; half of them joined as --opt=value) and of files (FILES_DIR: the fuzz corpus
as plain files), and runs it in a
scratch directory under a time limit. Every run must end with exit status 0 (it worked) or 2 (it
refused, with a message on stderr), within the limit, with no sanitizer report (make SAN=1). The
first failure is printed with its command line, which reproduces it. Seeded: same seed, same runs.
"""
import os
import random
import subprocess
import sys
import tempfile
import time

OPTS = {
    "datasets/gen_dataset": ["--family", "--n", "--count", "--seed", "--kappa", "--fail-at", "--format", "--out", "--help", "--bogus"],
    "datasets/dataset_check": ["--allow-nonfinite", "--help", "-x", "FILE", "FILE"],
    "datasets/hp3_study": ["1", "0", "-5", "abc", "--help", "3"],
    "04_interleaved/cholesky_batched": ["--input", "--n", "--batch", "--family", "--seed", "--kappa", "--kernel", "--order",
                                       "--nb", "--per-block", "--unroll", "--chunk", "--check", "--output", "--format",
                                       "--info", "--max-gpu-memory", "--gpus", "--help", "--what"],
    "03_left_right_top/cholesky_one": ["--n", "--input", "--family", "--seed", "--mode", "--output", "--help", "-h", "--nb",
                                       "FILE"],
    "06_tuning/cholesky_tuned": ["--input", "--n", "--batch", "--kernel", "--order", "--threads", "--per-block", "--unroll",
                                 "--chunk", "--nb", "--check", "--help", "-h", "--thr"],
    "01_serial/bench_serial": ["--help", "0", "-1", "1048576", "99999999999999999999", "x", "1 2"],
    "04_interleaved/bench_interleaved": ["--help", "extra"],
}
VALUES = ["0", "1", "2", "7", "33", "-1", "65537", "1e3", "12abc", "", " ", "99999999999999999999", "0x10", "nan", "inf",
          "spd", "illcond", "nonspd", "hp3", "wishart", "bin", "txt", "binary", "left", "right", "top", "thread", "tiles",
          "256M", "1G", "1000", "12X", "-3M", "1e300", "4", "8", "32", "1024", "stream", "graph", "lookahead", "all", "0,0", "1,", "0,,1"]


def argv_for(prog, rng, files, scratch):
    args = []
    for _ in range(rng.randint(0, 6)):
        opt = rng.choice(OPTS[prog])
        if opt == "FILE":
            args.append(rng.choice(files))
            continue
        args.append(opt)
        if opt.startswith("--") and opt not in ("--help", "--allow-nonfinite") and rng.random() < 0.9:
            if opt in ("--input",):
                args.append(rng.choice(files))
            elif opt in ("--out", "--output", "--info"):
                args.append(rng.choice([os.path.join(scratch, "o.bin"), os.path.join(scratch, "new/dir/o.txt"),
                                        os.path.join(files[0], "x"), "/dev/full"]))
            elif opt == "--count":
                args.append(rng.choice(["1", "3", "0", "-2", "x", "1099511627776", "99999999999999999999"]))
            elif opt == "--n":
                args.append(rng.choice(["1", "2", "7", "33", "0", "65537", "x", "-4"]))
            else:
                args.append(rng.choice(VALUES))
    # Half the time an option and its value are written as one word, --opt=value (getopt_long).
    joined, a = [], 0
    while a < len(args):
        if (args[a].startswith("--") and a + 1 < len(args) and not args[a + 1].startswith("-") and rng.random() < 0.5):
            joined.append(args[a] + "=" + args[a + 1])
            a += 2
        else:
            joined.append(args[a])
            a += 1
    return joined


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--programs":
        print("\n".join(os.path.join(sys.argv[2], prog) for prog in sorted(OPTS)))
        return 0
    build, files_dir, seconds = os.path.abspath(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    missing = [prog for prog in sorted(OPTS) if not os.access(os.path.join(build, prog), os.X_OK)]
    if missing:
        print(f"fuzz_cli: not built in {sys.argv[1]}: {', '.join(missing)} (make fuzz builds them)")
        return 1
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    files = sorted(os.path.join(files_dir, f) for f in os.listdir(files_dir))
    runs, end = 0, time.time() + seconds
    with tempfile.TemporaryDirectory() as scratch:
        while time.time() < end:
            prog = rng.choice(sorted(OPTS))
            cmd = [os.path.join(build, prog)] + argv_for(prog, rng, files, scratch)
            try:
                p = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True, errors="replace", timeout=60)
            except subprocess.TimeoutExpired:
                print("FAILED (hang, > 60 s):", " ".join(repr(a) for a in cmd))
                return 1
            out = p.stdout + p.stderr
            bad = None
            if "Sanitizer" in out or "runtime error:" in out:
                bad = "sanitizer report"
            elif p.returncode not in (0, 2):
                bad = f"exit status {p.returncode}"
            elif p.returncode == 2 and not p.stderr.strip():
                bad = "exit 2 without a message on stderr"
            elif p.returncode == 2 and len(p.stderr.strip().splitlines()) > 1 and "no GPU" not in p.stderr:
                bad = "exit 2 with more than one line on stderr (common/cli.h: one line, what and what is allowed)"
            if bad:
                print(f"FAILED ({bad}):", " ".join(repr(a) for a in cmd))
                print("\n".join(out.splitlines()[-15:]))
                return 1
            runs += 1
    print(f"fuzz_cli: {runs} command lines (seed {sys.argv[4] if len(sys.argv) > 4 else 1}): every one exited 0 or 2, "
          "no sanitizer report, no hang")
    return 0


if __name__ == "__main__":
    sys.exit(main())
