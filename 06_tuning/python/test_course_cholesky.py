"""test_course_cholesky.py - the Python binding against torch.linalg.cholesky_ex, cupy and float64.

Prints one line per test, 'NAME<TAB>PASS|FAIL|SKIP<TAB>DETAIL', for test_python.sh to record;
`--count` prints how many there will be (the plan), without importing torch. Needs a GPU and torch
(test_python.sh skips the group without them); cupy's tests are skipped without cupy.
"""
import sys

NS = [1, 2, 7, 16, 20, 31, 33, 40, 50, 64, 65, 97, 100, 128]
BATCHES = [1, 3, 1000]
OTHER = ["leading dims (3, 5)", "in place equals out of place", "input left as it was",
         "failing minors: info equals torch's", "NaN matrix: info != 0, the others right",
         "refused: float64", "refused: host memory", "refused: transposed view", "refused: n = 129",
         "refused: empty batch", "refused: not square", "refused input left as it was", "check=True raises on info != 0",
         "a side stream: waits for the stream's work, and the stream for it", "cupy: agrees with cupy.linalg.cholesky",
         "1 GiB batch, n = 64: infos 0, sampled matrices against float64"]


def count():
    return len(NS) * len(BATCHES) + len(OTHER)


def main():
    if sys.argv[1:] == ["--count"]:
        print(count())
        return
    import torch
    import course_cholesky as cc

    dev = torch.device("cuda")
    out = []

    def rec(name, ok, detail=""):
        out.append((name, "PASS" if ok else "FAIL", detail))
        print(f"{name}\t{'PASS' if ok else 'FAIL'}\t{detail}".replace("\n", " "), flush=True)

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
        upper = torch.triu(L, 1)
        if int((upper != 0).sum()):
            return False, "nonzeros above the diagonal"
        L64, A64 = L.double(), A.double()
        res = float((L64 @ L64.transpose(-1, -2) - A64).abs().amax() / A64.abs().amax())
        diff = float((L - ref).abs().amax() / ref.abs().amax())
        tol = 1e-5 * n + 1e-5
        return (res <= tol and diff <= 10 * tol and torch.isfinite(L).all().item()), \
            f"residual {res:.2e}, vs torch {diff:.2e} (tolerance {tol:.1e})"

    for n in NS:
        for batch in BATCHES:
            A = spd((batch,), n, 1000 * n + batch)
            L, info = cc.cholesky(A)
            ok, why = agree(A, L, info)
            rec(f"n = {n}, batch = {batch} ({cc.choice(n, batch)})", ok, why)

    A = spd((3, 5), 20, 7)
    L, info = cc.cholesky(A)
    ok, why = agree(A, L, info)
    rec(OTHER[0], ok and tuple(info.shape) == (3, 5) and tuple(L.shape) == (3, 5, 20, 20), why)

    A = spd((50,), 40, 8)
    keep = A.clone()
    L, info = cc.cholesky(A)
    B = A.clone()
    info2 = cc.cholesky_(B)
    rec(OTHER[1], torch.equal(L, B) and torch.equal(info, info2), "bit for bit")
    rec(OTHER[2], torch.equal(A, keep), "cholesky(A) leaves A alone")

    A = spd((64,), 33, 9)
    for m, k in [(0, 0), (5, 16), (17, 32), (40, 31)]:   # a failing leading minor of order k + 1
        A[m, k, k] = -1.0
    L, info = cc.cholesky(A)
    _, rinfo = torch.linalg.cholesky_ex(A)
    rec(OTHER[3], torch.equal(info.cpu(), rinfo.cpu().to(torch.int32)),
        f"ours {info[[0, 5, 17, 40]].tolist()}, torch {rinfo[[0, 5, 17, 40]].tolist()}")

    A = spd((9,), 20, 10)
    A[4, 3, 2] = float("nan")
    A[4, 2, 3] = float("nan")
    L, info = cc.cholesky(A)
    good = [m for m in range(9) if m != 4]
    ok, why = agree(A[good], L[good], info[good])
    rec(OTHER[4], int(info[4]) != 0 and ok, f"info of the NaN matrix {int(info[4])}; {why}")

    A = spd((4,), 20, 11)
    keep = A.clone()

    def refused(name, make, exc):
        try:
            cc.cholesky(make())
            rec(name, False, "accepted")
        except exc as e:
            msg = str(e)
            rec(name, msg.startswith("course_cholesky:") and "\n" not in msg, msg)
        except Exception as e:  # the wrong kind of exception
            rec(name, False, f"{type(e).__name__}: {e}")

    refused(OTHER[5], lambda: A.double(), TypeError)
    refused(OTHER[6], lambda: A.cpu(), ValueError)
    refused(OTHER[7], lambda: A.transpose(-1, -2), ValueError)
    refused(OTHER[8], lambda: torch.eye(129, device=dev).expand(2, 129, 129).contiguous(), ValueError)
    refused(OTHER[9], lambda: torch.empty(0, 20, 20, device=dev), ValueError)
    refused(OTHER[10], lambda: torch.ones(3, 20, 21, device=dev), ValueError)
    rec(OTHER[11], torch.equal(A, keep), "the input after the refusals")
    bad = A.clone()
    bad[1, 0, 0] = -1.0
    try:
        cc.cholesky(bad, check=True)
        rec(OTHER[12], False, "no exception")
    except ValueError as e:
        rec(OTHER[12], True, str(e))

    # The stream test: the input is written on a side stream after a long sleep; the factor is read
    # there right after the call. Without the fences the kernels would read the NaN placeholder.
    src = spd((2000,), 40, 12)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        A = torch.full_like(src, float("nan"))
        torch.cuda._sleep(200_000_000)
        A.copy_(src)
        info = cc.cholesky_(A)
        L = A.clone()
        info_copy = info.clone()
    s.synchronize()
    ok, why = agree(src, L, info_copy)
    rec(OTHER[13], ok, why)

    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is None:
        out.append((OTHER[14], "SKIP", "cupy is not installed"))
        print(f"{OTHER[14]}\tSKIP\tcupy is not installed", flush=True)
    else:
        A = cupy.asarray(spd((100,), 40, 13).cpu().numpy())
        L, info = cc.cholesky(A)
        ref = cupy.linalg.cholesky(A)
        diff = float(cupy.abs(L - ref).max() / cupy.abs(ref).max())
        rec(OTHER[14], isinstance(L, cupy.ndarray) and int((info != 0).sum()) == 0 and diff < 1e-4, f"vs cupy {diff:.2e}")

    n, batch = 64, (1 << 30) // (64 * 64 * 4)
    g = torch.Generator(device="cuda").manual_seed(15)
    A = torch.randn(batch, n, n, device=dev, generator=g) * 0.1
    A = A @ A.transpose(-1, -2) / n + torch.eye(n, device=dev)   # SPD, built in float32 to fit
    pick = [0, 1, batch // 2, batch - 1]
    keep = A[pick].clone()
    info = cc.cholesky_(A)
    nz = int((info != 0).sum())
    ok, why = agree(keep, A[pick], info[pick])
    rec(OTHER[15], nz == 0 and ok, f"{batch} matrices, {nz} infos nonzero; sampled: {why}")


if __name__ == "__main__":
    main()
