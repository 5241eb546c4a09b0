"""test_door.py - the package as a dependency: what a torch user tries before putting it in a training job.

Prints 'GROUP<TAB>NAME<TAB>PASS|FAIL|SKIP<TAB>DETAIL' lines for test_python.sh, like
test_course_cholesky.py; `--count GROUP` prints the plan without importing torch. Group "python
door": threads on every family auto takes, views a few floats off, a planted CUDA error and out of
memory (an exception, and the next call works), a CUDA graph captured without a warm-up, autograd
against torch's, torch.compile(fullgraph=True), torch.jit.trace, torch's signature (named tuple,
out=(L, info), upper=), the bounded plan cache, several GPUs.
"""
import sys

THREAD_SHAPES = [(4096, 8), (4096, 32), (1024, 64), (256, 128), (1, 20), (4, 300), (2, 1024), (1, 4096)]
OFFSET_SHAPES = [(100, 32), (50, 64), (4, 256), (2, 1024), (1, 4096)]
OFFSETS = [1, 2, 3, 4]
GRAD_NS = [8, 64, 300]
OTHER = ["a planted CUDA error: RuntimeError with its message, the next call works",
         "out of memory: torch.OutOfMemoryError, the next call works",
         "capture without a warm-up, n = 2048: replay equals eager bit for bit",
         "capture without a warm-up, n = 4096: replay equals eager bit for bit",
         "torch.compile(fullgraph=True) of a function calling it",
         "torch.jit.trace: the traced call factors new inputs",
         "a named tuple: .L and .info", "out=(L, info) as torch", "upper=True reads the upper triangle, as torch",
         "cholesky(upper=True, out=X) writes U into X, as torch",
         "the plan cache is bounded; clear_cache empties it",
         "6 threads evicting each other's plans (a cache of one, whole-GPU and batched shapes): no crash, "
         "every factor torch's",
         "precision='high' at 1 x 4096: one TF32 pass, said so, within gpu-mode's bound, not highest's bits",
         "precision='high' at 640 x 512 and 8 x 2048: within gpu-mode's bound, info 0",
         "precision='bogus' raises ValueError; precision='high' on small n runs fp32, said so",
         "precision='medium' at 1 x 4096 (also with rows scaled by 2^-12 .. 2^12) and 4 x 2048: the fp16 bulk "
         "on a Hopper GPU, said so, within gpu-mode's bound, info 0, not high's bits",
         "precision='high' captured in a CUDA graph at 1 x 4096: the second chance (IF node) runs in the "
         "replay for a damped low-rank matrix and not for an SPD one",
         "a tensor on cuda:1 while cuda:0 is current: factored there, current device kept"]
GROUPS = {"python door": len(THREAD_SHAPES) + len(OFFSET_SHAPES) * len(OFFSETS) + len(GRAD_NS) + len(OTHER)}


def main():
    if sys.argv[1:2] == ["--count"]:
        print(GROUPS[sys.argv[2]])
        return
    import threading
    import torch
    import course_cholesky as cc

    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    group = "python door"

    def rec(name, ok, detail="", status=None):
        status = status or ("PASS" if ok else "FAIL")
        print(f"{group}\t{name}\t{status}\t{detail}".replace("\n", " "), flush=True)

    def spd(batch, n, seed, dtype=torch.float32):
        g = torch.Generator(device="cuda").manual_seed(seed)
        b = torch.randn(batch, n, n, device=dev, dtype=torch.float64, generator=g)
        return (b @ b.transpose(-1, -2) / n + torch.eye(n, device=dev, dtype=torch.float64)).to(dtype).contiguous()

    def family(n, batch):
        return cc.choice(n, batch).split(": ", 1)[1].split(",")[0]

    # 8 threads x 200 calls on one shape, each on a stream of its own: every result equals one thread's.
    for batch, n in THREAD_SHAPES:
        A = spd(batch, n, n + batch)
        want = cc.cholesky_ex(A)
        torch.cuda.synchronize()
        bad, errors = [], []

        def worker(t):
            try:
                s = torch.cuda.Stream()
                with torch.cuda.stream(s):
                    for r in range(200):
                        L, info = cc.cholesky_ex(A)
                        if r % 50 == 49 or r == 199:
                            s.synchronize()
                            if not (torch.equal(L, want.L) and torch.equal(info, want.info)):
                                bad.append((t, r))
                s.synchronize()
            except Exception as e:  # reported below
                errors.append(repr(e))
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        rec(f"8 threads x 200 calls, {batch} x {n}: one thread's bits", not bad and not errors,
            "; ".join(errors[:2]) or (f"differ at (thread, call) {bad[:4]}" if bad else family(n, batch)))

    # Views that start 1, 2, 3 floats into a buffer (4-byte aligned only), and 4 (16 bytes): in and out.
    for batch, n in OFFSET_SHAPES:
        A = spd(batch, n, 3 * n + batch)
        want = cc.cholesky_ex(A)
        for off in OFFSETS:
            try:
                buf_in = torch.empty(off + A.numel(), device=dev)
                buf_out = torch.full((off + A.numel(),), float("nan"), device=dev)
                Ain = buf_in[off:].view(A.shape)
                Ain.copy_(A)
                Lv = buf_out[off:].view(A.shape)
                info = torch.empty(batch, dtype=torch.int32, device=dev)
                res = cc.cholesky_ex(Ain, out=(Lv, info))
                ok = torch.equal(Lv, want.L) and torch.equal(info, want.info) and torch.equal(Ain, A) \
                    and res.L.data_ptr() == Lv.data_ptr()
                inplace = buf_in[off:].view(A.shape)
                cc.cholesky_ex_(inplace)
                ok = ok and torch.equal(inplace, want.L)
                detail = f"offset {4 * off} bytes; " + ("bit for bit the aligned call's" if ok else "differs")
            except Exception as e:
                ok, detail = False, f"{type(e).__name__}: {e}"
            rec(f"a view {off} float(s) in, {batch} x {n}, out= and in place", ok, detail)

    # Gradients through L: the same loss through torch's factor and ours.
    for n in GRAD_NS:
        A64 = spd(3, n, 40 + n, torch.float64)
        W = torch.randn(3, n, n, device=dev, dtype=torch.float64).float()
        grads = []
        for f in (lambda X: torch.linalg.cholesky_ex(X).L, lambda X: cc.cholesky_ex(X).L):
            X = A64.float().requires_grad_()
            (f(X) * W).sum().backward()
            grads.append(X.grad)
        err = float((grads[0] - grads[1]).abs().amax() / grads[0].abs().amax())
        rec(f"autograd, n = {n}: the gradient equals torch's", err < 2e-3 and grads[1].isfinite().all().item(),
            f"max difference / max |grad| {err:.1e}")

    k = 0
    # A planted CUDA error: the library's status as an exception; the process and the next call go on.
    try:
        A = spd(4, 300, 5)
        want = cc.cholesky_ex(A)
        key_plan = cc._plan(0, 300, 4)
        cc._library().cholesky_plan_plant_error.argtypes = [cc.ctypes.c_void_p, cc.ctypes.c_int]
        cc._library().cholesky_plan_plant_error(key_plan.handle, 1)
        try:
            cc.cholesky_ex(A)
            rec(OTHER[k], False, "no exception")
        except RuntimeError as e:
            again = cc.cholesky_ex(A)
            torch.cuda.synchronize()
            ok = "CUDA error" in str(e) and torch.equal(again.L, want.L)
            rec(OTHER[k], ok, f"{e} | then: {'the same factor' if ok else 'a different factor'}")
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {e}")
    k += 1

    # Out of memory: the workspace does not fit (the memory is nearly all taken); then it does.
    try:
        A = spd(100, 1000, 6)
        cc.clear_cache()
        torch.cuda.empty_cache()
        free = torch.cuda.mem_get_info()[0]
        filler = torch.empty(max(free - (96 << 20), 0), dtype=torch.uint8, device=dev)
        try:
            cc.cholesky_ex(A)
            rec(OTHER[k], False, "no exception (the workspace fitted)")
        except torch.OutOfMemoryError as e:
            del filler
            torch.cuda.empty_cache()
            L, info = cc.cholesky_ex(A)
            ref = torch.linalg.cholesky_ex(A).L
            ok = int((info != 0).sum()) == 0 and float((L - ref).abs().amax()) < 1e-3
            rec(OTHER[k], ok, f"{str(e)[:120]} | then: infos {int((info != 0).sum())} nonzero")
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {e}")
    finally:
        filler = None
        torch.cuda.empty_cache()
    k += 1

    # A CUDA graph captured around the first call of a shape (no plan yet, no warm-up).
    for n in (2048, 4096):
        try:
            cc.clear_cache()
            A = spd(1, n, 7 + n)
            out = torch.empty_like(A)
            info = torch.empty(1, dtype=torch.int32, device=dev)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                cc.cholesky_ex(A, out=(out, info))
            out.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            eager = cc.cholesky_ex(A)
            ok = torch.equal(out, eager.L) and torch.equal(info, eager.info)
            rec(OTHER[k], ok, f"{'equal' if ok else 'differ'}; {cc.choice(n, 1)[:160]}")
        except Exception as e:
            rec(OTHER[k], False, f"{type(e).__name__}: {e}")
        k += 1

    try:
        @torch.compile(fullgraph=True)
        def f(X):
            return cc.cholesky_ex(X).L.sum(-1) * 2
        A = spd(8, 40, 8)
        got = f(A)
        ok = torch.allclose(got, cc.cholesky_ex(A).L.sum(-1) * 2)
        A2 = spd(8, 40, 9)
        ok = ok and torch.allclose(f(A2), cc.cholesky_ex(A2).L.sum(-1) * 2)
        rec(OTHER[k], ok, "compiled, two inputs")
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {str(e)[:300]}")
    k += 1

    try:
        A, A2 = spd(8, 40, 10), spd(8, 40, 11)
        traced = torch.jit.trace(lambda X: cc.cholesky_ex(X).L * 1.0, (A,), check_trace=False)
        ok = torch.equal(traced(A2), cc.cholesky_ex(A2).L) and "course_cholesky" in str(traced.graph)
        rec(OTHER[k], ok, "the op is in the traced graph" if ok else str(traced.graph)[:200])
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {str(e)[:300]}")
    k += 1

    A = spd(5, 30, 12)
    res = cc.cholesky_ex(A)
    rec(OTHER[k], res.L is res[0] and res.info is res[1] and type(res).__name__ == "CholeskyExResult",
        f"{type(res).__name__}(L, info)")
    k += 1
    Lo, io = torch.full_like(A, float("nan")), torch.full((5,), 7, dtype=torch.int32, device=dev)
    r = cc.cholesky_ex(A, out=(Lo, io))
    Lt, it = torch.linalg.cholesky_ex(A)
    rec(OTHER[k], r.L is Lo and r.info is io and float((Lo - Lt).abs().amax()) < 1e-4 and torch.equal(io, it),
        "L and info written into the given tensors, which come back")
    k += 1
    # Upper: only A's upper triangle is SPD-consistent; its lower triangle is garbage.
    B = A.triu() + torch.randn_like(A).tril(-1) * 100
    U, iu = cc.cholesky_ex(B, upper=True)
    Ut, _ = torch.linalg.cholesky_ex(B, upper=True)
    err = float((U - Ut).abs().amax())
    rec(OTHER[k], err < 1e-4 and int((iu != 0).sum()) == 0, f"max |U - torch's U| {err:.1e}")
    k += 1
    X = torch.full_like(A, float("nan"))
    R = cc.cholesky(B, upper=True, out=X)
    err = float((X - Ut).abs().amax())
    rec(OTHER[k], R is X and err < 1e-4, f"max |X - torch's U| {err:.1e}")
    k += 1

    cc.clear_cache()
    cc.set_cache_size(2)
    for n in (10, 11, 12):
        cc.cholesky_ex(spd(2, n, n))
    kept = len(cc._plans)
    cc.clear_cache()
    cc.set_cache_size(64)
    rec(OTHER[k], kept == 2 and len(cc._plans) == 0, f"{kept} plans kept of 3 shapes at size 2; 0 after clear_cache")
    k += 1

    # A plan evicted while another thread runs it must stay whole until that call returns, and letting
    # it go must not disturb another thread's graph capture (a device-wide synchronize there did: the
    # process died of a segmentation fault in 3 runs of 3, H100). In a process of its own, so that a
    # crash is this test's failure and not every later test's.
    churn = (
        "import sys, threading, torch\n"
        "import course_cholesky as cc\n"
        "cc.set_cache_size(1)\n"
        "torch.linalg.cholesky(torch.eye(4, device='cuda'))\n"
        "bad = []\n"
        "def work(t):\n"
        "    g = torch.Generator(device='cuda').manual_seed(t)\n"
        "    s = torch.cuda.Stream()\n"
        "    with torch.cuda.stream(s):\n"
        "        for i in range(60):\n"
        "            n, b = [(32, 100 + t), (128, 5 + t), (512, 2), (1024, 1)][(i + t) % 4]\n"
        "            X = torch.randn(b, n, n, device='cuda', generator=g)\n"
        "            A = X @ X.mT / n + torch.eye(n, device='cuda')\n"
        "            try:\n"
        "                L, info = cc.cholesky_ex(A)\n"
        "                if int(info.abs().sum()) or float((L - torch.linalg.cholesky(A)).abs().max()) > 1e-3:\n"
        "                    bad.append((t, i))\n"
        "            except Exception as e:\n"
        "                bad.append(repr(e))\n"
        "    s.synchronize()\n"
        "th = [threading.Thread(target=work, args=(t,)) for t in range(6)]\n"
        "[x.start() for x in th]; [x.join() for x in th]\n"
        "print('calls 360, wrong or raised', len(bad), bad[:2])\n"
        "sys.exit(1 if bad else 0)\n")
    import os
    import subprocess
    try:
        run = subprocess.run([sys.executable, "-c", churn], capture_output=True, text=True, timeout=300,
                             env=dict(os.environ))
        said = (run.stdout.strip().splitlines() or [""])[-1]
        rec(OTHER[k], run.returncode == 0, f"exit {run.returncode}: {said[:200]} {run.stderr.strip()[-200:]}")
    except subprocess.TimeoutExpired:
        rec(OTHER[k], False, "no answer in 300 s")
    k += 1

    # precision="high": gpu-mode's normwise check, ||A - L L^T||_1 <= 20 n eps ||A||_1, in float64.
    def normwise(A, L):
        A64, L64 = A.double(), L.double()
        R = A64 - L64 @ L64.mT
        return float((R.abs().sum(-2).amax(-1) / A64.abs().sum(-2).amax(-1)).amax())

    for shapes in ([(1, 4096)], [(640, 512), (8, 2048)]):
        try:
            ok, notes = True, []
            for batch, n in shapes:
                A = spd(batch, n, 17 + n)
                hi, hst = cc.cholesky_ex(A, precision="high"), cc.cholesky_ex(A)
                r_hi, r_hst = normwise(A, hi.L), normwise(A, hst.L)
                bound = 20 * n * 1.1920929e-07
                said = "precision high: one TF32 product" in cc.choice(n, batch, precision="high")
                ok &= bool((hi.info == 0).all()) and r_hi <= bound and said
                if batch == 1:
                    ok &= not torch.equal(hi.L, hst.L)
                notes.append(f"{batch} x {n}: residual high {r_hi:.2e}, highest {r_hst:.2e}, bound {bound:.2e}, "
                             f"explained {said}")
            rec(OTHER[k], ok, "; ".join(notes))
        except Exception as e:
            rec(OTHER[k], False, f"{type(e).__name__}: {e}")
        k += 1
    try:
        raised = ""
        try:
            cc.cholesky_ex(spd(2, 8, 1), precision="bogus")
        except ValueError as e:
            raised = str(e)
        small = cc.choice(64, 100, precision="high")
        L = cc.cholesky_ex(spd(100, 64, 2), precision="high").L
        ok = "precision='bogus'" in raised and "fp32 arithmetic runs" in small and \
            torch.allclose(L, torch.linalg.cholesky(spd(100, 64, 2)), atol=1e-4)
        rec(OTHER[k], ok, f"{raised[:80]}; {small[-140:]}")
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {e}")
    k += 1
    try:  # precision="medium": fp16 products on Hopper's warpgroup bulk, rows scaled by powers of two
        hopper = torch.cuda.get_device_capability() == (9, 0)
        ok, notes = True, []
        for batch, n, scaled in ((1, 4096, False), (1, 4096, True), (4, 2048, False)):
            A = spd(batch, n, 23 + n)
            if scaled:  # D A D: SPD, rows far outside fp16's range unless scaled
                d = torch.exp2(torch.arange(n, device=dev) * 37 % 25 - 12.0)
                A = (d[:, None] * A * d[None, :]).contiguous()
            med, high = cc.cholesky_ex(A, precision="medium"), cc.cholesky_ex(A, precision="high")
            r = normwise(A, med.L)
            bound = 20 * n * 1.1920929e-07
            said = cc.choice(n, batch, precision="medium")
            said_ok = ("the warpgroup bulk in fp16" in said) if hopper else ("high's arithmetic" in said)
            ok &= bool((med.info == 0).all()) and r <= bound and said_ok and (not hopper or not torch.equal(med.L, high.L))
            notes.append(f"{batch} x {n}{' scaled' if scaled else ''}: residual {r:.2e} (bound {bound:.2e}), "
                         f"explained {said_ok}")
        rec(OTHER[k], ok, "; ".join(notes))
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {e}")
    k += 1

    # precision="high" inside the caller's capture: the IF node goes into their graph. A damped low-rank
    # matrix (x x^T / 8 + 0.01 I: TF32 meets a pivot <= 0) must come out as highest's factor, bit for
    # bit; a generator-like SPD one as TF32's own (not highest's bits). Same graph, two inputs.
    try:
        cc.clear_cache()
        n = 4096
        g0 = torch.Generator(device="cuda").manual_seed(66)
        x = torch.randn(1, n, 8, device=dev, dtype=torch.float64, generator=g0)
        damped = (x @ x.mT / 8 + 1e-2 * torch.eye(n, device=dev, dtype=torch.float64)).float().contiguous()
        easy = spd(1, n, 67)
        A = easy.clone()
        out = torch.empty_like(A)
        info = torch.empty(1, dtype=torch.int32, device=dev)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            cc.cholesky_ex(A, out=(out, info), precision="high")
        notes, ok = [], True
        for name, M, second in (("damped low rank", damped, True), ("spd", easy, False)):
            A.copy_(M)
            out.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            hst = cc.cholesky_ex(M)
            same = torch.equal(out, hst.L)
            ok &= int(info[0]) == 0 and same == second
            notes.append(f"{name}: info {int(info[0])}, {'highest' if same else 'TF32'}'s factor")
        rec(OTHER[k], ok, "; ".join(notes))
    except Exception as e:
        rec(OTHER[k], False, f"{type(e).__name__}: {e}")
    k += 1

    if torch.cuda.device_count() < 2:
        rec(OTHER[k], False, "one GPU here", "SKIP")
    else:
        torch.cuda.set_device(0)
        A1 = spd(4, 300, 13).to("cuda:1")
        L1 = cc.cholesky_ex(A1).L
        ref = torch.linalg.cholesky_ex(A1).L
        ok = L1.device.index == 1 and torch.cuda.current_device() == 0 and float((L1 - ref).abs().amax()) < 1e-3
        rec(OTHER[k], ok, f"L on {L1.device}, current device {torch.cuda.current_device()}")


if __name__ == "__main__":
    main()
