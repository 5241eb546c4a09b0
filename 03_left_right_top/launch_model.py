#!/usr/bin/env python3
"""launch_model.py - grid_f64.cu's launches (f64_enqueue) as a list, and a check, without a GPU, that
every two launches touching one tile (one of them writing) are ordered.

A factorization is a few hundred launches on two streams (the chain, the bulk), joined by events,
the chain's kernels linked by programmatic dependent launch (chain_link.cuh). A missing order there
shows on a GPU only now and then (a race), so a change of the schedule is checked here first. Each
launch is a node in three parts: its start, the point past its wait (griddepcontrol.wait), its end.
What orders them:
- stream order: a plain launch starts after the launch before it on its stream has ended;
- a linked launch may start once the launch before it has released it: a linked kernel of the chain
  releases right after its wait (the solve before it: at its start, grid_f64.cu says why); it passes
  its own wait only when the launch before it has ended;
- an event wait: the next launch on that stream starts after the event's launch has ended. Reading
  `--graph`: in a captured graph a linked launch's edge from that launch is programmatic too, so it
  may start once the joined launch has released it (every product releases after its wait, which a
  launch on the bulk's stream meets at once). 06 LIMITS, "The branches of the last trace, timed",
  has the failure on the GPU that this reading explains.
Each launch reads and writes tiles (A(i, j), the inverses), some before its wait (the early part)
and some after. A conflict is ordered when the writer's end comes before the reader's (or the other
writer's) start, for an early access, or its point past the wait otherwise. Two more checks:
every tile is read from the input only where nothing wrote it before (out of place, no copy first),
and every tile below the diagonal gets each column's update exactly once.

The list below mirrors f64_enqueue by hand: a change of that function's launches is a change here.
    python3 03_left_right_top/launch_model.py           every check, as `name<TAB>PASS|FAIL<TAB>detail`
    python3 03_left_right_top/launch_model.py --max-t 20 --plant early-inverse   one planted mistake
The course suite runs it (common/tests/test_launch_model.sh)."""
import argparse
import itertools
import re
import sys

# The mistakes it must find (--plant), each a change a schedule could make:
PLANTS = {
    "potrf-releases-first": "the diagonal task lets the solve start before its own wait",
    "early-inverse": "the solve reads L(k, k)'s inverse before its wait",
    "early-last-column": "the diagonal task reads L(k, k - 1) before its wait",
    "no-rest-wait": "the next panel's columns do not wait for the last panel's bulk",
    "skip-column": "the panel's tasks leave out its first column",
    "split-graph": "the next panel's second column updated on the bulk's stream, joined by an event "
                   "(next/f64-split-panel-start), in a captured graph",
}


def panel_tiles(T, even):
    """grid_f64.cu's panel_tiles(T, vec): tile columns a panel."""
    return 4 if T <= 64 and not even else 8 if T <= 128 else 16 if even else 12


def build(T, two_streams, early, even, plant="", updates=None):
    """The launches of one factorization of T tile columns: ('k', stream, linked, name, early reads,
    reads after the wait, writes, tiles read as C, C from the input) | ('rec', stream, event) |
    ('wait', stream, event). `updates` (a dict) collects each tile's column updates."""
    L = []

    def kernel(stream, link, name, pre_r, post_r, post_w, C=(), from_in=False):
        L.append(("k", stream, link, name, frozenset(pre_r), frozenset(post_r), frozenset(post_w), frozenset(C),
                  from_in))

    def updated(tiles, cols):
        if updates is not None:
            for t in tiles:
                updates.setdefault(t, []).extend(cols)

    chain, bulk = "chain", "bulk" if two_streams else "chain"
    rest_pending = False
    P = panel_tiles(T, even)
    split = plant == "split-graph"
    side_waits = {}
    for p0 in range(0, T, P):
        pe = min(T, p0 + P)
        waits_now, side_waits = side_waits, {}
        for k in range(p0, pe):
            for ev, col in waits_now.items():
                if col == k:
                    L.append(("wait", chain, ev))
            q0 = p0 if early else k  # left-looking inside the panel where early, else right-looking
            if plant == "skip-column" and k > p0:
                q0 = p0 + 1
            below, right = T - 1 - k, pe - 1 - k
            pre, post_r, post_w = set(), set(), {("A", k, k), ("INV",)}
            if k > q0:  # its own tile's updates: columns q0 .. k - 2 early, k - 1 after the wait
                pre |= {("A", k, k)} | {("A", k, p) for p in range(q0, k - 1)}
                post_r |= {("A", k, k - 1)}
                if plant == "early-last-column":
                    pre |= {("A", k, k - 1)}
            if not early:
                post_r |= pre
                pre = set()
            post_r |= {("A", k, k)}
            untouched = p0 == 0 and (early or k == 0)
            kernel(chain, True, f"potrf{k}", pre, post_r, post_w, {("A", k, k)}, untouched)
            updated([(k, k)], range(q0, k))
            if below:
                pre = ({("A", i, k) for i in range(k + 1, T)} |
                       {("A", i, p) for i in range(k + 1, T) for p in range(q0, k)} |
                       {("A", k, p) for p in range(q0, k)})
                post_r, post_w = {("INV",)}, {("A", i, k) for i in range(k + 1, T)}
                if plant == "early-inverse":
                    pre |= {("INV",)}
                if not early:
                    post_r |= pre
                    pre = set()
                kernel(chain, True, f"solve{k}", pre, post_r, post_w, post_w, untouched)
                updated([(i, k) for i in range(k + 1, T)], range(q0, k))
            if not early and right:  # the right-looking panel: column k's update of the panel's others
                rw = {("A", i, j) for i in range(k + 1, T) for j in range(k + 1, k + 1 + right) if j <= i}
                kernel(chain, True, f"upd{k}", set(), {("A", i, k) for i in range(k + 1, T)} | rw, rw, rw,
                       p0 == 0 and k == 0)
                updated([(t[1], t[2]) for t in rw], [k])
        if pe == T:
            break
        pe2 = min(T, pe + P)

        def trailing(stream, row0):  # linked on the chain where it is the product (small batches)
            rw = {("A", i, j) for i in range(row0, T) for j in range(row0, i + 1)}
            rd = {("A", i, p) for i in range(row0, T) for p in range(p0, pe)}
            kernel(stream, stream == chain, f"trail{row0}", set(), rd | rw, rw, rw, p0 == 0)
            updated([(t[1], t[2]) for t in rw], range(p0, pe))

        if not two_streams or pe2 == T:  # one stream, or the last panel: the rest after the bulk, on the chain
            if rest_pending:
                L.append(("wait", chain, "rest"))
            rest_pending = False
            trailing(chain, pe)
            continue
        L.append(("rec", chain, "panel"))
        L.append(("wait", bulk, "panel"))
        if rest_pending and plant != "no-rest-wait":
            L.append(("wait", chain, "rest"))

        def columns(stream, link, cols, name):
            w = {("A", i, j) for j in cols for i in range(j, T)}
            r = {("A", i, p) for i in range(min(cols), T) for p in range(p0, pe)}
            kernel(stream, link, name, set(), r | w, w, w, p0 == 0)
            updated([(t[1], t[2]) for t in w], range(p0, pe))

        if split and early and pe2 - pe > 1:  # the branch's order: only column pe on the chain
            columns(chain, True, [pe], f"next{pe}")
            columns(bulk, False, list(range(pe + 1, pe2)), f"side{pe}")
            L.append(("rec", bulk, "side"))
            side_waits["side"] = pe + 1
        else:
            columns(chain, True, list(range(pe, pe2)), f"next{pe}")
        trailing(bulk, pe2)
        L.append(("rec", bulk, "rest"))
        rest_pending = True
    if rest_pending:
        L.append(("wait", chain, "rest"))
    return L


def unordered(L, graph, plant=""):
    """Pairs of launches that touch a tile, one writing, with no order between them."""
    before = {}  # node -> the nodes right before it; a node is (launch index, 's' | 'w' | 'e')

    def edge(u, v):
        before.setdefault(v, set()).add(u)

    def release(i):  # where launch i lets a linked successor start: the solve at its start, every
        name = L[i][3]  # other kernel after its wait (the bulk's update, which never does, at its end)
        if name.startswith("solve") or (plant == "potrf-releases-first" and name.startswith("potrf")):
            return "s"
        return "w"

    last, pending, recorded, kernels = {}, {}, {}, []
    for idx, op in enumerate(L):
        if op[0] == "rec":
            recorded[op[2]] = last.get(op[1])
            continue
        if op[0] == "wait":
            pending.setdefault(op[1], []).append(recorded[op[2]])
            continue
        stream, linked = op[1], op[2]
        kernels.append(idx)
        edge((idx, "s"), (idx, "w"))
        edge((idx, "w"), (idx, "e"))
        for j in pending.pop(stream, []):
            if j is None:
                continue
            if graph and linked:
                edge((j, release(j)), (idx, "s"))
                edge((j, "e"), (idx, "w"))
            else:
                edge((j, "e"), (idx, "s"))
        prev = last.get(stream)
        if prev is not None:
            edge((prev, release(prev) if linked else "e"), (idx, "s"))
            edge((prev, "e"), (idx, "w"))
        last[stream] = idx
    memo = {}

    def ancestors(v):  # depth first, without recursion (the chain is hundreds of launches long)
        stack = [(v, False)]
        while stack:
            x, expanded = stack.pop()
            if x in memo:
                continue
            if expanded:  # every node before x is done (a graph of launches has no cycle)
                memo[x] = set().union(*(memo[u] | {u} for u in before.get(x, ())))
            else:
                stack.append((x, True))
                stack.extend((u, False) for u in before.get(x, ()) if u not in memo)
        return memo[v]

    bad = []
    for a, b in itertools.combinations(kernels, 2):
        A, B = L[a], L[b]
        conflict = (A[6] & (B[4] | B[5] | B[6])) | (B[6] & (A[4] | A[5]))
        if not conflict:
            continue
        start = "s" if conflict & B[4] else "w"
        if (a, "e") not in ancestors((b, start)):
            bad.append(f"{A[3]} / {B[3]} on {sorted(conflict)[0]}")
    return bad


def first_touch(L, T):
    """A launch reads a tile from the input only where nothing wrote it before, else from the output;
    every tile of the lower triangle is written."""
    written, bad = set(), []
    for op in L:
        if op[0] != "k":
            continue
        for t in op[7]:
            if op[8] and t in written:
                bad.append(f"{op[3]} reads {t} from the input after a write")
            if not op[8] and t not in written:
                bad.append(f"{op[3]} reads {t} from the output before any write")
        written |= op[6]
    missing = sorted({("A", i, j) for i in range(T) for j in range(i + 1)} - written)
    return bad + ([f"{missing[0]} never written"] if missing else [])


def once_each(T, two_streams, early, even, plant):
    """Every tile below the diagonal gets each column's update exactly once."""
    updates = {}
    build(T, two_streams, early, even, plant, updates)
    bad = [f"A({i}, {j}): columns {sorted(updates.get((i, j), []))}" for i in range(T) for j in range(i + 1)
           if sorted(updates.get((i, j), [])) != list(range(j))]
    return bad[:2]


def problems(T, two_streams, early, even, graph, plant=""):
    L = build(T, two_streams, early, even, plant)
    return unordered(L, graph, plant)[:2] + first_touch(L, T)[:2] + once_each(T, two_streams, early, even, plant)


def shapes(max_t):
    """T = 1 .. 40, and where the panel width changes (64, 128) up to max_t."""
    return sorted({t for t in range(1, min(40, max_t) + 1)} | {t for t in (63, 64, 65, 127, 128, 129, 139) if t <= max_t})


def sweep(max_t, graph, plant=""):
    """The first problem found over every shape and configuration, or None."""
    for T in shapes(max_t):
        for two_streams, early, even in itertools.product((False, True), repeat=3):
            p = problems(T, two_streams, early, even, graph, plant)
            if p:
                return f"T = {T}, {'two streams' if two_streams else 'one stream'}, " \
                       f"{'early' if early else 'not early'}, {'even' if even else 'odd'} n: {p[0]}"
    return None


def rule_matches(path):
    """grid_f64.cu's panel_tiles is the rule modelled here."""
    try:
        src = open(path).read()
    except OSError as e:
        return f"{path}: {e.strerror}"
    m = re.search(r"static int panel_tiles\(int T, bool vec\) \{ return ([^;]*); \}", src)
    want = "T <= 64 && !vec ? 4 : T <= 128 ? 8 : vec ? 16 : 12"
    if not m:
        return "panel_tiles(T, vec) not found"
    return None if m.group(1) == want else f"panel_tiles returns {m.group(1)}, the model {want}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-t", type=int, default=139, help="largest T, tile columns (default 139)")
    ap.add_argument("--plant", choices=sorted(PLANTS), help="check one planted mistake only")
    a = ap.parse_args()
    if a.plant:
        for graph in (False, True):
            print(f"{'graph' if graph else 'eager'}: {sweep(a.max_t, graph, a.plant) or 'nothing found'}")
        return 0
    checks = []
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    r = rule_matches(f"{here}/grid_f64.cu")
    checks.append(("the panel widths are grid_f64.cu's", r))
    for graph in (False, True):
        Ts = shapes(a.max_t)
        span = f"T = 1..{Ts[-1]}" if len(Ts) == Ts[-1] else f"T = 1..{min(40, Ts[-1])} and {', '.join(map(str, Ts[40:]))}"
        checks.append((f"grid_f64's launches ordered ({'captured graph' if graph else 'eager'}, {span})",
                       sweep(a.max_t, graph)))
    for name, what in PLANTS.items():  # found (T <= 24) in the reading where the GPU shows it
        graph = name == "split-graph"
        found = sweep(24, graph, name)
        checks.append((f"finds a planted mistake: {what}", None if found else "not found"))
        if graph:  # and missed by the eager reading, as the first model missed it
            eager = sweep(24, False, name)
            checks.append(("the eager reading misses the split's race (why the GPU found it first)",
                           None if not eager else f"found: {eager}"))
    failed = 0
    for name, problem in checks:
        print(f"{name}\t{'FAIL' if problem else 'PASS'}\t{problem or ''}")
        failed += bool(problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
