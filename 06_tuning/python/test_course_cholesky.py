"""test_course_cholesky.py - the Python binding against torch.linalg.cholesky_ex, cupy and float64.

Prints one line per test, 'GROUP<TAB>NAME<TAB>PASS|FAIL|SKIP<TAB>DETAIL', for test_python.sh to
record; `--count GROUP` prints how many there will be in a group (the plan), without importing
torch. Needs a GPU and torch (test_python.sh skips the groups without them); cupy's test is
skipped without cupy.

Groups: "python binding" (sizes, behaviour of torch.linalg.cholesky_ex, streams, graphs, refusals)
and "python gpu-mode families" (every shape of gpu-mode's Cholesky grid on each matrix family its
problem describes, checked against the float32 error bound), and "python gpu-mode families, precision
high" (the same with precision="high" against gpu-mode's own normwise bound, its residual and forward
error beside the default's; a matrix that is not SPD gets the same info in both precisions), and
"python gpu-mode families, precision medium" (the same for precision="medium" at the shapes from n = 2048).
"""
import sys

NS = [1, 2, 7, 16, 20, 31, 33, 40, 50, 64, 65, 97, 100, 128, 129, 200, 256, 1000]
BATCHES = [1, 3, 1000]
OTHER = ["leading dims (3, 5)", "out of place equals in place, bit for bit", "input left as it was",
         "failing minors: info equals torch's", "NaN matrix: info != 0, the others right",
         "upper=True: U equals torch's, U^T U = A", "check_errors=True raises torch.linalg.LinAlgError as torch does",
         "cholesky() raises, cholesky_ex() does not", "empty batch: empty L and info, as torch",
         "out=: L written there", "refused: float16", "refused: host memory", "refused: transposed view",
         "refused: not square", "refused input left as it was",
         "a side stream: waits for the stream's work, and the stream for it",
         "a CUDA graph captured around the call replays with new matrices",
         "two threads, two streams: the factors of one", "choice() says what runs and why",
         "cupy: agrees with cupy.linalg.cholesky", "1 GiB batch, n = 64: infos 0, sampled matrices against float64",
         "garbage above the diagonal (NaN, unequal): the lower triangle's factor, the input left as it was",
         "upper=True, garbage below the diagonal: the upper triangle's factor, the input left as it was"]
SHAPES = [(4096, 32), (1024, 64), (256, 128), (64, 256), (16, 512), (640, 512), (4, 1024), (60, 1024),
          (2, 2048), (8, 2048), (1, 4096), (2, 4096), (1, 8192), (1, 16384), (1, 32768)]
FAMILIES = ["dense covariance", "planted spectrum 1e5", "diagonal", "damped low rank", "scaled rows and columns",
            "tridiagonal"]
HIGH = "python gpu-mode families, precision high"
MEDIUM = "python gpu-mode families, precision medium"
MEDIUM_SHAPES = [(b, n) for b, n in SHAPES if n >= 2048]  # where the warpgroup bulk runs (Hopper)
F64 = "python float64"
NS64 = [1, 7, 20, 33, 64, 100, 128, 129, 300, 1000]
BATCHES64 = [1, 3, 64]
OTHER64 = ["float64: failing minors equal torch's, a NaN fails as LAPACK's dpotrf says, the other factors right",
           "float64: upper=True, out=(L, info) and cholesky_ex_ (in place) give the same factor",
           "float64: the gradient equals torch's (n = 8, 64, 300)",
           "float64: torch.compile(fullgraph=True) equals the eager call",
           "float64: cupy agrees with cupy.linalg.cholesky",
           "float64: a GP's marginal likelihood trained 5 Adam steps: every loss equals torch's path",
           "float64: choice() says float64, out= of another type refused",
           "float64: views one double into a buffer (in, out, in place): the aligned call's bits",
           "float64: a CUDA graph captured without a warm-up replays the eager bits (n = 50 and 400)",
           "float64: two threads, two streams: the factors of one"]
GROUPS = {"python binding": len(NS) * len(BATCHES) + len(OTHER),
          "python gpu-mode families": len(SHAPES) * len(FAMILIES),
          HIGH: len(SHAPES) * (len(FAMILIES) + 1),
          MEDIUM: len(MEDIUM_SHAPES) * (len(FAMILIES) + 1),
          F64: len(NS64) * len(BATCHES64) + len(OTHER64)}


def main():
    if sys.argv[1:2] == ["--count"]:
        print(GROUPS[sys.argv[2]])
        return
    import torch
    import course_cholesky as cc

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    group = "python binding"

    def rec(name, ok, detail="", status=None):
        status = status or ("PASS" if ok else "FAIL")
        print(f"{group}\t{name}\t{status}\t{detail}".replace("\n", " "), flush=True)

    def spd(shape, n, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        b = torch.randn(*shape, n, n, device=dev, dtype=torch.float64, generator=g)
        a = b @ b.transpose(-1, -2) / n + torch.eye(n, device=dev, dtype=torch.float64)
        return a.float().contiguous()

    def agree(A, L, info):
        """(ok, detail): infos 0, zeros above the diagonal, residual and difference from torch's factor."""
        ref, rinfo = torch.linalg.cholesky_ex(A)
        n = A.shape[-1]
        if int((info != 0).sum()) or int((rinfo != 0).sum()):
            return False, f"infos: ours {int((info != 0).sum())} nonzero, torch's {int((rinfo != 0).sum())}"
        if int((torch.triu(L, 1) != 0).sum()):
            return False, "nonzeros above the diagonal"
        L64, A64 = L.double(), A.double()
        res = float((L64 @ L64.transpose(-1, -2) - A64).abs().amax() / A64.abs().amax())
        diff = float((L - ref).abs().amax() / ref.abs().amax())
        tol = 1e-5 * n + 1e-5
        return (res <= tol and diff <= 10 * tol and torch.isfinite(L).all().item()), \
            f"residual {res:.2e}, vs torch {diff:.2e} (tolerance {tol:.1e})"

    for n in NS:
        for batch in BATCHES:
            if n >= 1000 and batch == 1000:
                batch = 30  # 1000 matrices of n = 1000 would be 4 GB of float64 checks for nothing more
            A = spd((batch,), n, 1000 * n + batch)
            L, info = cc.cholesky_ex(A)
            ok, why = agree(A, L, info)
            rec(f"n = {n}, batch = {batch}", ok, f"{why}; {cc.choice(n, batch)}")

    def garbage(A, above):
        """A copy of A with NaN (even matrices) or 2 a_ji + 1 (odd) in the strict upper (above) or lower
        triangle: LAPACK, cuSOLVER and torch read only the other one, and so must we."""
        G = A.clone()
        mask = torch.ones(A.shape[-2:], dtype=torch.bool, device=A.device)
        mask = torch.triu(mask, 1) if above else torch.tril(mask, -1)
        junk = 2 * A.transpose(-1, -2) + 1
        junk[0::2] = float("nan")
        G[..., mask] = junk[..., mask]
        return G

    def bits(x):
        return x.contiguous().view(torch.int32)  # NaN compares unequal; its bits do not

    results = []
    for n in (1, 20, 33, 64, 100, 129, 300, 1000):  # the families and the whole-GPU path
        A = spd((6 if n < 1000 else 2,), n, 40 + n)
        for above in (True, False):
            G = garbage(A, above)
            keep = bits(G).clone()
            L, info = cc.cholesky_ex(G, upper=not above)
            if above:
                ok, why = agree(A, L, info)
            else:
                Ut, _ = torch.linalg.cholesky_ex(A, upper=True)
                d = float((L - Ut).abs().amax() / Ut.abs().amax())
                ok = d < 1e-4 * n and int((info != 0).sum()) == 0 and bool(torch.isfinite(L).all())
                why = f"vs torch {d:.1e}, infos nonzero {int((info != 0).sum())}"
            results.append((above, n, ok and torch.equal(bits(G), keep), why))
    for above, index in ((True, 21), (False, 22)):
        bad = [f"n = {n}: {why}" for a, n, ok, why in results if a == above and not ok]
        rec(OTHER[index], not bad, "; ".join(bad) or "n = 1, 20, 33, 64, 100, 129, 300, 1000")

    A = spd((3, 5), 20, 7)
    L, info = cc.cholesky_ex(A)
    ok, why = agree(A, L, info)
    rec(OTHER[0], ok and tuple(info.shape) == (3, 5) and tuple(L.shape) == (3, 5, 20, 20), why)

    for n in (40, 100, 300):  # register kernels, and the whole-GPU path (padded)
        A = spd((50,), n, 8)
        keep = A.clone()
        L, info = cc.cholesky_ex(A)
        B = A.clone()
        info2 = cc.cholesky_ex_(B)
        if not (torch.equal(L, B) and torch.equal(info, info2)):
            break
    rec(OTHER[1], torch.equal(L, B) and torch.equal(info, info2), f"n = 40, 100, 300 (up to n = {n})")
    rec(OTHER[2], torch.equal(A, keep), "cholesky_ex(A) leaves A alone")

    A = spd((64,), 33, 9)
    for m, k in [(0, 0), (5, 16), (17, 32), (40, 31)]:   # a failing leading minor of order k + 1
        A[m, k, k] = -1.0
    L, info = cc.cholesky_ex(A)
    _, rinfo = torch.linalg.cholesky_ex(A)
    rec(OTHER[3], torch.equal(info.cpu(), rinfo.cpu().to(torch.int32)) and info.dtype == rinfo.dtype,
        f"ours {info[[0, 5, 17, 40]].tolist()} {info.dtype}, torch {rinfo[[0, 5, 17, 40]].tolist()} {rinfo.dtype}")

    A = spd((9,), 20, 10)
    A[4, 3, 2] = float("nan")
    A[4, 2, 3] = float("nan")
    L, info = cc.cholesky_ex(A)
    good = [m for m in range(9) if m != 4]
    ok, why = agree(A[good], L[good], info[good])
    rec(OTHER[4], int(info[4]) != 0 and ok, f"info of the NaN matrix {int(info[4])}; {why}")

    A = spd((7,), 50, 16)
    U, info = cc.cholesky_ex(A, upper=True)
    Ut, _ = torch.linalg.cholesky_ex(A, upper=True)
    res = float((U.double().transpose(-1, -2) @ U.double() - A.double()).abs().amax() / A.abs().amax())
    rec(OTHER[5], float((U - Ut).abs().amax()) < 1e-4 and res < 1e-5, f"vs torch {float((U - Ut).abs().amax()):.1e}, "
        f"residual {res:.1e}")

    bad = spd((6,), 20, 11)
    bad[3, 2, 2] = -1.0
    try:
        torch.linalg.cholesky_ex(bad, check_errors=True)
        theirs = "no exception"
    except torch.linalg.LinAlgError as e:
        theirs = str(e)
    try:
        cc.cholesky_ex(bad, check_errors=True)
        rec(OTHER[6], False, "no exception")
    except torch.linalg.LinAlgError as e:
        mine = str(e)
        rec(OTHER[6], mine.split(": ", 1)[1] == theirs.split(": ", 1)[1], f"ours: {mine} | torch: {theirs}")
    try:
        cc.cholesky(bad)
        rec(OTHER[7], False, "cholesky() did not raise")
    except torch.linalg.LinAlgError:
        _, info = cc.cholesky_ex(bad)
        rec(OTHER[7], int(info[3]) == 3 and int((info != 0).sum()) == 1, f"infos {info.tolist()}")

    empty = torch.empty(0, 20, 20, device=dev)
    L, info = cc.cholesky_ex(empty)
    Lt, it = torch.linalg.cholesky_ex(empty)
    rec(OTHER[8], L.shape == Lt.shape and info.shape == it.shape and info.dtype == it.dtype,
        f"L {tuple(L.shape)}, info {tuple(info.shape)} {info.dtype}")

    A = spd((5,), 30, 17)
    out = torch.full_like(A, float("nan"))
    L, info = cc.cholesky_ex(A, out=out)
    ok, why = agree(A, out, info)
    rec(OTHER[9], ok and L.data_ptr() == out.data_ptr(), why)

    A = spd((4,), 20, 11)
    keep = A.clone()

    def refused(name, make, exc):
        try:
            cc.cholesky_ex(make())
            rec(name, False, "accepted")
        except exc as e:
            msg = str(e)
            rec(name, msg.startswith("course_cholesky:") and "\n" not in msg, msg)
        except Exception as e:  # the wrong kind of exception
            rec(name, False, f"{type(e).__name__}: {e}")

    refused(OTHER[10], lambda: A.half(), TypeError)
    refused(OTHER[11], lambda: A.cpu(), ValueError)
    refused(OTHER[12], lambda: A.transpose(-1, -2), ValueError)
    refused(OTHER[13], lambda: torch.ones(3, 20, 21, device=dev), ValueError)
    rec(OTHER[14], torch.equal(A, keep), "the input after the refusals")

    # The stream test: the input is written on a side stream after a long sleep; the factor is read
    # there right after the call. Run anywhere else, the kernels would read the NaN placeholder.
    for n in (40, 300):
        src = spd((200,), n, 12)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            A = torch.full_like(src, float("nan"))
            torch.cuda._sleep(200_000_000)
            A.copy_(src)
            L, info = cc.cholesky_ex(A)
            L2 = L.clone()
            info_copy = info.clone()
        s.synchronize()
        ok, why = agree(src, L2, info_copy)
        if not ok:
            break
    rec(OTHER[15], ok, f"n = {n}: {why}")

    # A CUDA graph: captured once (after a warm-up call, as torch asks), replayed on new matrices.
    results = []
    for n, batch in ((40, 512), (100, 64), (300, 4), (512, 2)):
        static_in = spd((batch,), n, 20)
        static_out = torch.empty_like(static_in)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            static_info = cc.cholesky_ex(static_in, out=static_out)[1]
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_info = cc.cholesky_ex(static_in, out=static_out)[1]
        fresh = spd((batch,), n, 21)
        static_in.copy_(fresh)
        static_out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ok, why = agree(fresh, static_out, static_info)
        results.append(ok)
        if not ok:
            break
    rec(OTHER[16], all(results), f"n = {n}, batch = {batch}: {why}")

    # Two host threads, each with its own stream, at once (ctypes lets them run): one GPU's factors.
    import threading
    inputs = {n: spd((300,), n, 22) for n in (50, 400)}
    want = {n: cc.cholesky_ex(a)[0] for n, a in inputs.items()}
    got, errors = {}, []

    def worker(n):
        try:
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                for _ in range(5):
                    got[n] = cc.cholesky_ex(inputs[n])[0]
            s.synchronize()
        except Exception as e:  # reported below
            errors.append(repr(e))
    threads = [threading.Thread(target=worker, args=(n,)) for n in inputs]
    [t.start() for t in threads]
    [t.join() for t in threads]
    same = not errors and all(torch.equal(got[n], want[n]) for n in inputs)
    rec(OTHER[17], same, "; ".join(errors) or "bit for bit, n = 50 and 400")

    why = cc.choice(1024, 60)
    rec(OTHER[18], "whole GPU" in why and "workspace" in why, why)

    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is None:
        rec(OTHER[19], False, "cupy is not installed", "SKIP")
    else:
        A = cupy.asarray(spd((100,), 40, 13).cpu().numpy())
        L, info = cc.cholesky_ex(A)
        ref = cupy.linalg.cholesky(A)
        diff = float(cupy.abs(L - ref).max() / cupy.abs(ref).max())
        rec(OTHER[19], isinstance(L, cupy.ndarray) and int((info != 0).sum()) == 0 and diff < 1e-4, f"vs cupy {diff:.2e}")

    n, batch = 64, (1 << 30) // (64 * 64 * 4)
    g = torch.Generator(device="cuda").manual_seed(15)
    A = torch.randn(batch, n, n, device=dev, generator=g) * 0.1
    A = A @ A.transpose(-1, -2) / n + torch.eye(n, device=dev)   # SPD, built in float32 to fit
    pick = [0, 1, batch // 2, batch - 1]
    keep = A[pick].clone()
    info = cc.cholesky_ex_(A)
    nz = int((info != 0).sum())
    ok, why = agree(keep, A[pick], info[pick])
    rec(OTHER[20], nz == 0 and ok, f"{batch} matrices, {nz} infos nonzero; sampled: {why}")
    del A
    torch.cuda.empty_cache()

    group = "python gpu-mode families"
    families(torch, cc, dev, rec)
    group = HIGH
    families_high(torch, cc, rec)
    group = MEDIUM
    families_high(torch, cc, rec, "medium", MEDIUM_SHAPES)
    group = F64
    float64_tests(torch, cc, rec)


def float64_tests(torch, cc, rec):
    """float64 through every path: against torch's float64 factor (relative difference near 1e-13), infos,
    upper/out/in place, the gradient, torch.compile, cupy, and a GP trained a few steps."""
    dev = torch.device("cuda")

    def spd64(shape, n, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        b = torch.randn(*shape, n, n, device=dev, dtype=torch.float64, generator=g)
        return (b @ b.transpose(-1, -2) / n + torch.eye(n, device=dev, dtype=torch.float64)).contiguous()

    def rel(a, b):
        return float((a - b).abs().amax() / b.abs().amax().clamp_min(1e-300))

    for n in NS64:
        for batch in BATCHES64:
            name = f"float64 n = {n}, batch = {batch}"
            try:
                A = spd64((batch,), n, 3000 * n + batch)
                L, info = cc.cholesky_ex(A)
                Lt, it = torch.linalg.cholesky_ex(A)
                d = rel(L, Lt)
                ok = L.dtype == torch.float64 and int((info != 0).sum()) == 0 and d <= 1e-12 and \
                    int((torch.triu(L, 1) != 0).sum()) == 0
                rec(name, ok, f"vs torch's float64 factor {d:.1e} (bound 1e-12); {cc.choice(n, batch, dtype='float64')}")
            except Exception as e:
                rec(name, False, f"{type(e).__name__}: {e}")

    def other(k, fn):
        try:
            ok, why = fn()
            rec(OTHER64[k], ok, why)
        except Exception as e:
            rec(OTHER64[k], False, f"{type(e).__name__}: {e}")

    def failing():
        bad = []
        for n in (1, 33, 100, 300):
            A = spd64((6,), n, 77 + n)
            A[1, n // 2, n // 2] = -1.0
            A[3, n - 1, 0] = float("nan")
            L, info = cc.cholesky_ex(A)
            Lt, it = torch.linalg.cholesky_ex(A)
            good = [0, 2, 4, 5]
            d = rel(L[good], Lt[good])
            # the NaN (in the last row) fails at the last pivot, as LAPACK's dpotrf says; torch's
            # cuSOLVER path reports a NaN pivot as info 0 (the float32 path's "NaN matrix" test)
            want = it.clone()
            want[3] = n
            if not torch.equal(info.cpu(), want.cpu()) or d > 1e-12:
                bad.append(f"n = {n}: infos {info.tolist()} torch {it.tolist()}, the others {d:.1e}")
        return not bad, "; ".join(bad) or "n = 1, 33, 100, 300: infos equal torch's (the NaN matrix: n, LAPACK's), " \
            "the others within 1e-12"

    def variants():
        bad = []
        for n in (20, 128, 300):
            A = spd64((3,), n, 5 + n)
            L = cc.cholesky(A)
            U = cc.cholesky(A, upper=True)
            outL, outi = torch.empty_like(A), torch.empty(3, dtype=torch.int32, device=dev)
            cc.cholesky_ex(A, out=(outL, outi))
            B = A.clone()
            info = cc.cholesky_ex_(B)
            if not (torch.equal(U, L.mT) and torch.equal(outL, L) and torch.equal(B, L) and int(info.abs().sum()) == 0):
                bad.append(f"n = {n}")
        return not bad, "differs at " + ", ".join(bad) if bad else "n = 20, 128, 300: bit for bit"

    def gradient():
        worst, parts = 0.0, []
        for n in (8, 64, 300):
            A = spd64((3,), n, 11 + n)
            W = torch.randn(3, n, n, device=dev, dtype=torch.float64)
            X = A.clone().requires_grad_(True)
            (cc.cholesky(X) * W).sum().backward()
            Y = A.clone().requires_grad_(True)
            (torch.linalg.cholesky(Y) * W).sum().backward()
            d = rel(X.grad, Y.grad)
            worst = max(worst, d)
            parts.append(f"n = {n}: {d:.1e}")
        return worst <= 1e-10, "; ".join(parts) + " (bound 1e-10)"

    def compiled():
        A = spd64((4,), 50, 3)
        f = torch.compile(lambda X: cc.cholesky_ex(X).L * 2.0, fullgraph=True)
        got, want = f(A), cc.cholesky_ex(A).L * 2.0
        return torch.equal(got, want) and got.dtype == torch.float64, "fullgraph compile, float64 in and out"

    def with_cupy():
        try:
            import cupy
        except ImportError:
            return None, "cupy is not installed"
        A = cupy.asarray(spd64((5,), 70, 9))
        L, info = cc.cholesky_ex(A)
        ref = cupy.linalg.cholesky(A)
        d = float(cupy.abs(L - ref).max() / cupy.abs(ref).max())
        return isinstance(L, cupy.ndarray) and L.dtype == cupy.float64 and d < 1e-12, f"vs cupy {d:.1e}"

    def gp_training():
        g = torch.Generator(device="cuda").manual_seed(2017)
        D, n = 64, 50
        x = torch.rand(D, n, 1, device=dev, dtype=torch.float64, generator=g) * 10
        y = torch.sin(x[..., 0]) + 0.1 * torch.randn(D, n, device=dev, dtype=torch.float64, generator=g)
        d2 = torch.cdist(x, x).square()
        eye = torch.eye(n, device=dev, dtype=torch.float64)

        def train(chol):
            log_l = torch.zeros(D, device=dev, dtype=torch.float64, requires_grad=True)
            log_s = torch.full((D,), -1.0, device=dev, dtype=torch.float64, requires_grad=True)
            opt = torch.optim.Adam([log_l, log_s], lr=0.05)
            losses = []
            for _ in range(5):
                opt.zero_grad()
                K = torch.exp(-0.5 * d2 / torch.exp(log_l)[:, None, None] ** 2) + torch.exp(2 * log_s)[:, None, None] * eye
                L = chol(K)
                z = torch.linalg.solve_triangular(L, y[..., None], upper=False)
                nll = 0.5 * z.square().sum() + torch.log(torch.diagonal(L, dim1=-2, dim2=-1)).sum()
                nll.backward()
                opt.step()
                losses.append(float(nll.detach()))
            return losses, log_l.detach()

        mine, lm = train(cc.cholesky)
        theirs, lt = train(torch.linalg.cholesky)
        d = max(abs(a - b) / abs(b) for a, b in zip(mine, theirs))
        return d <= 1e-10 and rel(lm, lt) <= 1e-8, f"losses {mine[0]:.6f} -> {mine[-1]:.6f}, torch's {theirs[-1]:.6f}; " \
            f"largest relative difference {d:.1e}; length scales {rel(lm, lt):.1e}"

    def said():
        ex = cc.choice(64, 100, dtype="float64")
        A = spd64((2,), 10, 1)
        try:
            cc.cholesky_ex(A, out=(torch.empty(2, 10, 10, device=dev), torch.empty(2, dtype=torch.int32, device=dev)))
            refused = "not refused"
        except TypeError as e:
            refused = str(e)
        return "float64" in ex and "float32" in refused, f"{ex}; out=: {refused}"

    other(0, failing)
    other(1, variants)
    other(2, gradient)
    other(3, compiled)
    try:
        ok, why = with_cupy()
        rec(OTHER64[4], bool(ok), why, None if ok is not None else "SKIP")
    except Exception as e:
        rec(OTHER64[4], False, f"{type(e).__name__}: {e}")
    def views():
        A = spd64((7,), 60, 21)
        want = cc.cholesky_ex(A)
        buf = torch.empty(A.numel() + 2, dtype=torch.float64, device=dev)
        view = buf[1:1 + A.numel()].view(A.shape)  # 8 bytes past a 16-byte boundary
        view.copy_(A)
        got = cc.cholesky_ex(view)
        out = torch.empty(A.numel() + 1, dtype=torch.float64, device=dev)[1:].view(A.shape)
        cc.cholesky_ex(A, out=(out, torch.empty(7, dtype=torch.int32, device=dev)))
        info = cc.cholesky_ex_(view)
        ok = torch.equal(got.L, want.L) and torch.equal(out, want.L) and torch.equal(view, want.L) and \
            int(info.abs().sum()) == 0
        return ok, "in, out and in place one double off: " + ("the same bits" if ok else "different")

    def graph():
        bad = []
        cc.clear_cache()  # the capture makes its plans (no warm-up)
        for n, batch in ((50, 300), (400, 3)):
            A, B = spd64((batch,), n, n), spd64((batch,), n, n + 1)
            static = A.clone()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                L, info = cc.cholesky_ex(static)
            static.copy_(B)
            g.replay()
            torch.cuda.synchronize()
            if not torch.equal(L, cc.cholesky_ex(B).L):
                bad.append(f"n = {n}")
        return not bad, "replays differ at " + ", ".join(bad) if bad else "replays equal eager calls bit for bit"

    def threads():
        import threading
        A = [spd64((40,), 64, 50 + k) for k in range(2)]
        want = [cc.cholesky_ex(a).L for a in A]
        got, errors = [None, None], []

        def work(k):
            try:
                s = torch.cuda.Stream()
                with torch.cuda.stream(s):
                    for _ in range(50):
                        got[k] = cc.cholesky_ex(A[k]).L
                s.synchronize()
            except Exception as e:
                errors.append(repr(e))
        ts = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        ok = not errors and all(torch.equal(got[k], want[k]) for k in range(2))
        return ok, "; ".join(errors) or ("50 calls each, the factors of one thread" if ok else "factors differ")

    other(5, gp_training)
    other(6, said)
    other(7, views)
    other(8, graph)
    other(9, threads)
    torch.cuda.empty_cache()


def family_batch(torch, family, batch, n, seed):
    """`batch` SPD matrices of order n of one family, float32; built in float64 up to n = 2048."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = torch.float64 if n <= 2048 else torch.float32
    dev = torch.device("cuda")

    def rnd(*shape):
        return torch.randn(*shape, device=dev, dtype=dt, generator=g)

    eye = torch.eye(n, device=dev, dtype=dt)
    if family == "dense covariance":
        m = n + n // 4 + 8
        x = rnd(batch, n, m)
        a = x @ x.transpose(-1, -2) / m + 1e-3 * eye
    elif family == "planted spectrum 1e5":  # Q diag(1 .. 1e-5) Q^T, Q two Householder reflections
        a = torch.diag_embed(torch.logspace(0, -5, n, device=dev, dtype=dt)).expand(batch, n, n).clone()
        for _ in range(2):
            u = rnd(batch, n, 1)
            u = u / u.norm(dim=1, keepdim=True)
            au = a @ u
            a = a - 2 * au @ u.transpose(-1, -2) - 2 * u @ au.transpose(-1, -2) \
                + 4 * (u.transpose(-1, -2) @ au) * (u @ u.transpose(-1, -2))
    elif family == "diagonal":
        a = torch.diag_embed(torch.rand(batch, n, device=dev, dtype=dt, generator=g) * 1.5 + 0.5)
    elif family == "damped low rank":
        x = rnd(batch, n, 8)
        a = x @ x.transpose(-1, -2) / 8 + 1e-2 * eye
    elif family == "scaled rows and columns":
        m = n + n // 4 + 8
        x = rnd(batch, n, m)
        s = 10 ** (torch.rand(batch, n, 1, device=dev, dtype=dt, generator=g) * 4 - 2)
        a = s * (x @ x.transpose(-1, -2) / m + eye) * s.transpose(-1, -2)
    else:  # tridiagonal: 2 on the diagonal, -1 beside it
        a = (2 * eye - torch.diag(torch.ones(n - 1, device=dev, dtype=dt), 1)
             - torch.diag(torch.ones(n - 1, device=dev, dtype=dt), -1)).expand(batch, n, n).clone()
    a = (a + a.transpose(-1, -2)) / 2
    return a.float().contiguous()


def bound_check(torch, A, L, info, rows=None):
    """(ok, detail): infos 0, L lower with a positive diagonal, and |A - L L^T|ij <= 20 gamma_{n+1} (|L||L^T|)ij
    (Higham, Theorem 10.3, float32) on every entry, or on `rows` sampled rows of each matrix."""
    n = A.shape[-1]
    if int((info != 0).sum()):
        return False, f"{int((info != 0).sum())} infos nonzero"
    if not bool(torch.isfinite(L).all()):
        return False, "not finite"
    if bool((torch.triu(L, 1) != 0).any()):
        return False, "nonzeros above the diagonal"
    if not bool((torch.diagonal(L, dim1=-2, dim2=-1) > 0).all()):
        return False, "a diagonal entry <= 0"
    u = 2.0 ** -24
    gamma = (n + 1) * u / (1 - (n + 1) * u)
    worst = 0.0
    for b in range(A.shape[0]) if rows else [None]:
        if b is None:
            L64, A64 = L.double(), A.double()
            err = (A64 - L64 @ L64.transpose(-1, -2)).abs()
            scale = L64.abs() @ L64.abs().transpose(-1, -2)
        else:
            idx = torch.randperm(n, device=L.device)[:rows]
            L64 = L[b].double()
            li = L64[idx]
            err = (A[b][idx].double() - li @ L64.transpose(0, 1)).abs()
            scale = li.abs() @ L64.abs().transpose(0, 1)
        worst = max(worst, float((err / scale.clamp_min(1e-300)).amax()) / gamma)
    return worst <= 20, f"worst |A - LL^T| / (gamma |L||L^T|) = {worst:.3f} (at most 20)"


def families(torch, cc, dev, rec):
    for batch, n in SHAPES:
        for k, family in enumerate(FAMILIES):
            name = f"{batch} x {n}^2, {family}"
            try:
                A = family_batch(torch, family, batch, n, 100 * n + k)
                L, info = cc.cholesky_ex(A)
                ok, why = bound_check(torch, A, L, info, rows=None if batch * n * n <= (1 << 22) else 32)
                rec(name, ok, f"{why}; {cc.choice(n, batch)}")
                del A, L, info
            except Exception as e:  # out of memory, say: this test fails, the next ones run
                rec(name, False, f"{type(e).__name__}: {e}")
            torch.cuda.empty_cache()


def normwise_and_forward(torch, A, L, Lref):
    """Per matrix, in float64 and in column blocks (one 32768^2 matrix in float64 is 8.6 GB):
    (||A - L L^T||_1 / ||A||_1, ||L - Lref||_F / ||Lref||_F), the worst over the batch."""
    worst_r = worst_f = 0.0
    step = max(1, (1 << 27) // (A.shape[-1] * A.shape[-1]))  # matrices at once: 1 GiB of float64
    for b0 in range(0, A.shape[0], step):
        a, l, lr = A[b0:b0 + step], L[b0:b0 + step], Lref[b0:b0 + step]
        n = a.shape[-1]
        l64 = l.double()
        colsum_r = torch.zeros(a.shape[0], n, device=a.device, dtype=torch.float64)
        colsum_a = torch.zeros_like(colsum_r)
        diff2 = torch.zeros(a.shape[0], device=a.device, dtype=torch.float64)
        ref2 = torch.zeros_like(diff2)
        for c0 in range(0, n, 4096):
            c1 = min(n, c0 + 4096)
            a_blk = a[:, :, c0:c1].double()
            colsum_r[:, c0:c1] = (a_blk - l64 @ l64[:, c0:c1, :].mT).abs().sum(-2)
            colsum_a[:, c0:c1] = a_blk.abs().sum(-2)
            lr_blk = lr[:, :, c0:c1]
            diff2 += ((l64[:, :, c0:c1] - lr_blk) ** 2).sum((-2, -1))
            ref2 += (lr_blk ** 2).sum((-2, -1))
        worst_r = max(worst_r, float((colsum_r.amax(-1) / colsum_a.amax(-1)).amax()))
        worst_f = max(worst_f, float((diff2.sqrt() / ref2.sqrt()).amax()))
        del l64, colsum_r, colsum_a
    return worst_r, worst_f


def reference_factor(torch, A):
    """The float64 factor of each matrix (one at a time past 1 GiB of float64)."""
    if A.numel() * 8 <= (1 << 30):
        return torch.linalg.cholesky(A.double())
    return torch.stack([torch.linalg.cholesky(a.double()) for a in A]) if A.shape[0] > 1 else \
        torch.linalg.cholesky(A[0].double()).unsqueeze(0)


def families_high(torch, cc, rec, precision="high", shapes=SHAPES):
    """precision="high" (or "medium") on every shape and family: gpu-mode's check ||A - L L^T||_1 <= 20 n eps
    ||A||_1 (eps = 2^-23), both precisions' residual and forward error reported; then, per shape, one matrix
    made indefinite at its middle row: the same info (its minor n/2 + 1) in both precisions. Medium on a
    Hopper GPU must say that its fp16 bulk ran (elsewhere it is high's arithmetic, and says so)."""
    eps = 1.1920929e-07
    hopper = torch.cuda.get_device_capability() == (9, 0)
    runs = {"high": "precision high: one TF32 product",
            "medium": "precision medium: the warpgroup bulk in fp16" if hopper else "high's arithmetic"}[precision]
    for batch, n in shapes:
        bound = 20 * n * eps
        for k, family in enumerate(FAMILIES):
            name = f"{batch} x {n}^2, {family}"
            try:
                A = family_batch(torch, family, batch, n, 100 * n + k)
                hi = cc.cholesky_ex(A, precision=precision)
                ok = not bool((hi.info != 0).any())
                Lref = reference_factor(torch, A)
                r_hi, f_hi = normwise_and_forward(torch, A, hi.L, Lref)
                hst = cc.cholesky_ex(A)
                ok &= not bool((hst.info != 0).any())
                r_hst, f_hst = normwise_and_forward(torch, A, hst.L, Lref)
                ok &= r_hi <= bound
                said = runs in cc.choice(n, batch, precision=precision)
                if precision == "medium":  # where high runs TF32 (not fp32: 2 x 2048), medium's bulk is fp16
                    ok &= said == ("precision high: one TF32" in cc.choice(n, batch, precision="high"))
                how = "fp32 arithmetic (this shape)"
                if said:  # the same bits as highest: TF32 met a pivot <= 0 and the second chance refactored
                    how = ("TF32 products" if precision == "high" else "fp16 bulk" if hopper else "TF32 products") + \
                        ("; second chance: highest's factor" if torch.equal(hi.L, hst.L) else "")
                rec(name, ok, f"residual {precision} {r_hi:.2e} ({r_hi / bound:.1e} of the bound {bound:.2e}), "
                    f"highest {r_hst:.2e}; forward error {precision} {f_hi:.2e}, highest {f_hst:.2e}; {how}")
                del A, hi, hst, Lref
            except Exception as e:  # out of memory, say: this test fails, the next ones run
                rec(name, False, f"{type(e).__name__}: {e}")
            torch.cuda.empty_cache()
        name = f"{batch} x {n}^2, not SPD at row n/2: info n/2 + 1 in both precisions"
        try:
            A = family_batch(torch, "dense covariance", batch, n, 7 * n)
            m, h = batch // 2, n // 2
            A[m, h, h] = -1.0
            infos = [cc.cholesky_ex(A, precision=p).info for p in (precision, "highest")]
            want = torch.zeros(batch, dtype=infos[0].dtype, device=A.device)
            want[m] = h + 1
            ok = all(torch.equal(i, want) for i in infos)
            rec(name, ok, f"matrix {m}: info {precision} {int(infos[0][m])}, highest {int(infos[1][m])} (want {h + 1}); "
                f"the others {'0' if ok else 'see above'}")
            del A
        except Exception as e:
            rec(name, False, f"{type(e).__name__}: {e}")
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
