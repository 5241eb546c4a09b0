"""course_cholesky - the course's batched Cholesky (stage 06's one door, cholesky_plan.h) for torch and cupy.

    import course_cholesky as cc
    L, info = cc.cholesky_ex(A)       # A: CUDA float32 or float64, shape (..., n, n), row-major, n = 1..65536
    res = cc.cholesky_ex(A); res.L, res.info   # a named tuple, as torch's
    L = cc.cholesky(A)                # like torch.linalg.cholesky: raises on a matrix that fails
    info = cc.cholesky_ex_(A)         # in place: A becomes L (zeros above the diagonal)

The signature and behaviour of torch.linalg.cholesky_ex: `upper=True` reads the upper triangle and
gives U (A = U^T U), `out=(L, info)` writes both there (`out=` of cholesky: U when upper),
`check_errors=True` raises torch.linalg.LinAlgError (numpy's LinAlgError for cupy) on the first
matrix that is not positive definite, an empty batch gives empty results, info is int32 of shape
A.shape[:-2]: 0, or the order of the first leading minor that is not positive definite (a NaN fails
too), as cuSOLVER reports it. L is written out of place without a copy of A first. Nothing waits
for the GPU (check_errors does, to look); the work runs on the framework's current stream and on
the tensor's GPU, whichever is current (torch's current device is left as it was). A torch tensor
gives torch tensors back, a cupy array cupy arrays; any other CUDA array with __dlpack__ is taken
through torch.

For torch it is also an operator, torch.ops.course_cholesky.cholesky_ex, with a fake (meta)
implementation and autograd: gradients flow through L as through torch's (the standard backward,
two triangular solves), torch.compile(fullgraph=True) and torch.jit.trace record it. A call that
needs none of them (no gradient asked, not traced or compiled) goes straight to the library.

float64 runs float64 arithmetic throughout (the cyclic kernel in float64 up to n = 128, the whole-GPU
tile tasks on the FP64 tensor cores beyond), with the same signature, info and autograd.

Any contiguous view works, also one that starts a few elements into its buffer (a pointer only
element-aligned: staged through the workspace). A failure of the library (a CUDA error) raises RuntimeError
with its message (torch.OutOfMemoryError when out of memory); the process goes on.

Plans: one per (GPU, n, batch, alignment, precision, dtype), and per host thread for the batched kernels,
made on the first call and kept in a cache of `cache_size()` plans, least recently used first out
(`set_cache_size`, `clear_cache`); `choice` says what a plan runs, its workspace and why. Any number
of threads may call at once; on the whole-GPU path (n > 128 or so) their calls take turns on the GPU.
The library is built by `pip install 06_tuning/python` (into the package) or `make python`
(build/06_tuning/libcourse_cholesky.so); COURSE_CHOLESKY_LIB=FILE names another.
See 06_tuning/python/README.md.
"""
import collections
import ctypes
import os
import sys
import threading

__all__ = ["cholesky_ex", "cholesky", "cholesky_ex_", "choice", "clear_cache", "set_cache_size", "cache_size",
           "CholeskyExResult", "MAX_N"]

MAX_N = 65536
ALIGNMENT = 16  # CHOLESKY_ALIGNMENT: a pointer off it takes an unaligned plan (staged through the workspace)
_STATUS_OUT_OF_MEMORY = 3  # cholesky_status (cholesky_plan.h)
_HERE = os.path.dirname(os.path.abspath(__file__))
_PLACES = [os.path.join(_HERE, "libcourse_cholesky.so"),  # pip install (non-editable) put it here
           os.path.join(_HERE, "..", "..", "..", "build", "06_tuning", "libcourse_cholesky.so")]  # make python
_lib = None

CholeskyExResult = collections.namedtuple("CholeskyExResult", ["L", "info"])
CholeskyExResult.__doc__ = "(L, info) as torch.linalg.cholesky_ex returns them: a named tuple."


def _library():
    global _lib
    if _lib is None:
        named = os.environ.get("COURSE_CHOLESKY_LIB")
        found = [os.path.abspath(p) for p in ([named] if named else _PLACES) if os.path.exists(p)]
        if not found:
            if named:
                raise ImportError(f"course_cholesky: COURSE_CHOLESKY_LIB names {os.path.abspath(named)}, which "
                                  "does not exist")
            raise ImportError(f"course_cholesky: {os.path.abspath(_PLACES[-1])} is not built; run "
                              "`make python` in the course's folder, or `pip install 06_tuning/python`")
        try:
            lib = ctypes.CDLL(found[0])
            lib.course_plan_create, lib.course_tables_dir  # the course's library, not any .so
        except (OSError, AttributeError) as e:
            raise ImportError(f"course_cholesky: {found[0]} is not the course's library "
                              f"(libcourse_cholesky.so from `make python`): {e}") from None
        c = ctypes
        # A pip-installed package carries the tuned tables beside the library: read them from there, not
        # from the course's folder the library was built in (which may be gone). TUNED_TABLE(S) still win.
        tables = os.path.join(_HERE, "tables")
        lib.course_tables_dir.argtypes = [c.c_char_p]
        lib.course_tables_dir.restype = None
        if os.path.isdir(tables):
            lib.course_tables_dir(os.fsencode(tables))
        lib.course_plan_create.argtypes = [c.c_int, c.c_int, c.c_size_t, c.c_int, c.c_int, c.c_int, c.c_char_p,
                                           c.c_size_t, c.POINTER(c.c_size_t), c.POINTER(c.c_int), c.c_char_p,
                                           c.c_size_t]
        lib.course_plan_create.restype = c.c_void_p
        lib.course_plan_destroy.argtypes = [c.c_void_p]
        lib.course_plan_destroy.restype = None
        lib.course_execute.argtypes = [c.c_void_p, c.c_int, c.c_void_p, c.c_void_p, c.c_void_p, c.c_void_p,
                                       c.c_void_p, c.c_int, c.c_char_p, c.c_size_t]
        lib.course_execute.restype = c.c_int
        _lib = lib
    return _lib


# precision=: the whole-GPU updates' arithmetic, the caller's explicit choice (cholesky_plan.h's
# cholesky_precision), never torch's global matmul setting. "highest": fp32-accurate (the default);
# "high": one TF32 product a term where the tensor cores run the updates (n > 128 on large shapes);
# "medium": as "high", with the bulk of the largest matrices' updates in scaled fp16 on a Hopper GPU.
_PRECISIONS = {"highest": 0, "high": 1, "medium": 2}


def _precision(precision):
    p = _PRECISIONS.get(precision) if isinstance(precision, str) else None
    if p is None:
        raise ValueError(f"course_cholesky: precision={precision!r}: 'highest' (fp32-accurate, the default), "
                         "'high' (one TF32 product a term in the large matrices' updates) or 'medium' (as "
                         "'high', the bulk of those updates in scaled fp16 on a Hopper GPU)")
    return p


class _Plan:
    """One C plan: made once per (GPU, n, batch, alignment, precision, dtype, thread), destroyed when the cache
    lets it go."""

    def __init__(self, device, n, batch, unaligned, precision=0, f64=False):
        lib = _library()
        explain, msg = ctypes.create_string_buffer(1536), ctypes.create_string_buffer(512)
        work, status = ctypes.c_size_t(0), ctypes.c_int(0)
        self.handle = lib.course_plan_create(device, n, batch, int(unaligned), int(precision), int(f64), explain,
                                             1536, ctypes.byref(work), ctypes.byref(status), msg, 512)
        if not self.handle:  # a shape or option it cannot take: ValueError; CUDA's failures: RuntimeError
            _raise(status.value, msg.value.decode(), ValueError if status.value == 1 else RuntimeError)
        self.explain, self.work_bytes, self._lib = explain.value.decode(), work.value, lib
        self.execute = lib.course_execute  # looked up once
        self.msg = ctypes.create_string_buffer(512)
        self.device = device
        self.f64 = int(f64)

    def destroy(self):
        if self.handle and not sys.is_finalizing():  # at exit the process frees it all
            # No wait for the GPU first: CUDA frees a stream, an event or an executable graph that
            # still has work in flight when that work completes. A device-wide synchronize here would
            # invalidate another thread's graph capture (the whole-GPU path captures on its streams).
            self._lib.course_plan_destroy(self.handle)
        self.handle = None

    def __del__(self):  # the last reference gone: the cache let it go and no call holds it any more
        if getattr(self, "handle", None):
            self.destroy()


def _raise(status, message, default=RuntimeError):
    """The library's failure as Python's: out of memory as torch's error where torch is loaded."""
    if status == _STATUS_OUT_OF_MEMORY:
        torch = sys.modules.get("torch")
        error = getattr(torch, "OutOfMemoryError", None) if torch else None
        raise (error or MemoryError)(f"course_cholesky: {message}")
    raise default(f"course_cholesky: {message}")


# The plan cache: (device, n, batch, unaligned, precision, thread) -> _Plan, least recently used first out. A plan
# of the whole-GPU path holds streams and graphs (a few handles; its memory is the caller's workspace).
_plans = collections.OrderedDict()
_plans_lock = threading.Lock()
_capacity = 64


def cache_size():
    """How many plans the cache keeps (default 64)."""
    return _capacity


def set_cache_size(plans):
    """Keep at most `plans` plans (>= 1); the least recently used go first."""
    global _capacity
    if int(plans) < 1:
        raise ValueError("course_cholesky: the cache keeps at least one plan")
    _capacity = int(plans)
    _evict()


def clear_cache():
    """Destroy every plan (each is made again on its next call)."""
    _evict(0)


# Plans evicted while a CUDA graph was being captured: destroying a whole-GPU plan's streams and
# graphs inside a capture invalidates it (torch's capture mode is "global"), so they are kept until
# the next eviction outside a capture.
_deferred = []


def _capturing():
    """Is the current stream of torch or cupy (whichever is loaded) being captured into a graph?"""
    try:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized() and torch.cuda.is_current_stream_capturing():
            return True
        cupy = sys.modules.get("cupy")
        return bool(cupy is not None and cupy.cuda.get_current_stream().is_capturing())
    except Exception:  # no GPU, an old version: nothing is being captured that we could break
        return False


def _evict(keep=None):
    keep = _capacity if keep is None else keep
    gone = []
    with _plans_lock:
        while len(_plans) > keep:
            gone.append(_plans.popitem(last=False)[1])
        if gone or _deferred:
            if _capturing():
                _deferred.extend(gone)
                gone = []
            else:
                gone.extend(_deferred)
                _deferred.clear()
    # Not destroyed here: another thread may have taken one of them from the cache a moment ago
    # (_plan takes no lock) and be executing it. Dropped, each plan is destroyed when its last
    # reference goes (_Plan.__del__): at once when nobody holds it, else when that call returns.
    del gone


def _plan(device, n, batch, unaligned=False, precision=0, f64=False):
    """The plan of this shape: the thread's own for the batched kernels; one for all threads on the
    whole-GPU path, whose executes the library takes one at a time on the plan's own streams (two of
    them running at once on one GPU gave a wrong factor with the warpgroup MMA: see the README)."""
    shared = (device, n, batch, unaligned, precision, f64, None)
    p = _plans.get(shared)  # one dict lookup under the GIL: the hot path takes no lock
    if p is None:
        shared = (device, n, batch, unaligned, precision, f64, threading.get_ident())
        p = _plans.get(shared)
    if p is not None:
        try:
            _plans.move_to_end(shared)
        except KeyError:  # evicted by another thread meanwhile: our reference keeps it whole for this call
            pass
        return p
    own = shared
    shared = (device, n, batch, unaligned, precision, f64, None)
    p = _Plan(device, n, batch, unaligned, precision, f64)
    with _plans_lock:
        key = shared if "whole GPU" in p.explain else own
        if key in _plans:  # another thread made it meanwhile
            p.destroy()
            return _plans[key]
        _plans[key] = p
    if len(_plans) > _capacity:
        _evict()
    return p


def choice(n, batch, device=0, precision="highest", dtype="float32"):
    """What the course runs for `batch` row-major matrices of order n (dtype "float32" or "float64") on GPU
    `device`, and why (one line)."""
    if str(dtype).split(".")[-1] not in ("float32", "float64"):
        raise ValueError(f"course_cholesky: dtype={dtype!r}: 'float32' or 'float64'")
    return _plan(device, n, batch, False, _precision(precision), str(dtype).endswith("float64")).explain


class _Torch:
    """The torch side: checks, allocation, the current stream, torch's error."""

    def __init__(self, torch):
        self.t = torch
        self.raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the handle alone, no Stream object
        self.error = getattr(torch.linalg, "LinAlgError", RuntimeError)
        self.f32, self.f64, self.i32 = torch.float32, torch.float64, torch.int32

    def check(self, a):
        if a.dtype is not self.f32 and a.dtype is not self.f64:
            raise TypeError(f"course_cholesky: float32 or float64, not {a.dtype}")
        device = a.get_device()  # an int, -1 for host memory (a.device.index makes an object: slower)
        if device < 0:
            raise ValueError("course_cholesky: the tensor is in host memory; move it to the GPU (.cuda())")
        if not a.is_contiguous():
            raise ValueError("course_cholesky: the tensor is not contiguous (transposed or strided); "
                             "pass A.contiguous() (a copy) or the matrices as they are stored")
        return a.shape, device

    def ptr(self, a):
        return a.data_ptr()

    def wide(self, a):
        return a.dtype is self.f64

    def stream(self, device):
        return self.raw_stream(device) if self.raw_stream else self.t.cuda.current_stream(device).cuda_stream

    def empty_like(self, a):
        return self.t.empty_like(a)  # a is contiguous: so is this

    def info(self, a, shape, zero=False):
        return a.new_zeros(shape, dtype=self.i32) if zero else a.new_empty(shape, dtype=self.i32)

    def scratch(self, a, nbytes):
        return a.new_empty(nbytes, dtype=self.t.uint8)

    def transpose(self, a):
        return a.transpose(-2, -1)

    def contiguous(self, a):
        return a.contiguous()

    def copy(self, dst, src):
        dst.copy_(src)

    def first_failure(self, info):
        """(flat index, info) of the first failed matrix, or None (waits for the GPU)."""
        flat = info.reshape(-1)
        bad = (flat != 0).nonzero()
        return None if bad.shape[0] == 0 else (int(bad[0, 0]), int(flat[bad[0, 0]]))


class _Cupy:
    def __init__(self, cp):
        self.cp = cp
        import numpy
        self.error = numpy.linalg.LinAlgError

    def check(self, a):
        if a.dtype != self.cp.float32 and a.dtype != self.cp.float64:
            raise TypeError(f"course_cholesky: float32 or float64, not {a.dtype}")
        if not a.flags.c_contiguous:
            raise ValueError("course_cholesky: the array is not C-contiguous (transposed or strided); "
                             "pass cupy.ascontiguousarray(A) (a copy) or the matrices as they are stored")
        return a.shape, a.device.id

    def ptr(self, a):
        return a.data.ptr

    def wide(self, a):
        return a.dtype == self.cp.float64

    def stream(self, device):
        return self.cp.cuda.get_current_stream().ptr

    def empty_like(self, a):
        return self.cp.empty_like(a, order="C")

    def info(self, a, shape, zero=False):
        return (self.cp.zeros if zero else self.cp.empty)(shape, dtype=self.cp.int32)

    def scratch(self, a, nbytes):
        return self.cp.empty(nbytes, dtype=self.cp.uint8)

    def transpose(self, a):
        return a.swapaxes(-2, -1)

    def contiguous(self, a):
        return self.cp.ascontiguousarray(a)

    def copy(self, dst, src):
        dst[...] = src

    def first_failure(self, info):
        flat = info.reshape(-1)
        bad = self.cp.flatnonzero(flat)
        return None if bad.size == 0 else (int(bad[0]), int(flat[int(bad[0])]))


_sides = {}  # type -> adapter, made once


def _side(a):
    """The framework adapter for a, and a itself (a DLPack array becomes a torch tensor, no copy)."""
    side = _sides.get(type(a))
    if side is not None:
        return side, a
    try:
        import torch
        if isinstance(a, torch.Tensor):
            return _sides.setdefault(type(a), _Torch(torch)), a
    except ImportError:
        torch = None
    if type(a).__module__.startswith("cupy"):
        import cupy
        return _sides.setdefault(type(a), _Cupy(cupy)), a
    if hasattr(a, "__dlpack__") and torch is not None:
        return _Torch(torch), torch.from_dlpack(a)
    if hasattr(a, "__cuda_array_interface__"):
        try:
            import cupy
        except ImportError:
            raise TypeError(f"course_cholesky: a {type(a).__name__} (__cuda_array_interface__) needs cupy or "
                            "torch installed to be read") from None
        return _Cupy(cupy), cupy.asarray(a)
    raise TypeError(f"course_cholesky: a torch tensor, a cupy array or a CUDA array with __dlpack__, "
                    f"not {type(a).__name__}")


def _run(side, A, out, info, n, batch, device, precision):
    """One execute of the library: A into out (contiguous, float32 or float64, same shape and type), info (int32)."""
    pa, po = side.ptr(A), side.ptr(out)
    plan = _plan(device, n, batch, bool((pa | po) % ALIGNMENT), precision, side.wide(A))
    work = side.scratch(A, plan.work_bytes) if plan.work_bytes else None
    status = plan.execute(plan.handle, device, pa, po, side.ptr(info), side.ptr(work) if work is not None else None,
                          side.stream(device), plan.f64, plan.msg, 512)
    if status != 0:
        _raise(status, plan.msg.value.decode())


def _factor(side, A, out, check_errors, name, precision=0):
    """Factor A (checked, contiguous) into out (may be A; None: a new array); returns (out, info)."""
    shape, device = side.check(A)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"course_cholesky: square matrices of shape (..., n, n), not {tuple(shape)}")
    n = shape[-1]
    if out is None:
        out = side.empty_like(A)
    elif out is not A:
        if tuple(side.check(out)[0]) != tuple(shape):
            raise ValueError(f"course_cholesky: out has shape {tuple(side.check(out)[0])}, A {tuple(shape)}")
        if out.dtype != A.dtype:
            raise TypeError(f"course_cholesky: out is {out.dtype}, A {A.dtype}")
    if n > MAX_N:
        raise ValueError(f"course_cholesky: n = {n}: this library takes n = 1..{MAX_N}")
    batch = 1
    for d in shape[:-2]:
        batch *= d
    if n == 0 or batch == 0:  # as torch: empty results, nothing to run
        return out, side.info(A, shape[:-2], zero=True)
    info = side.info(A, shape[:-2])
    _run(side, A, out, info, n, batch, device, precision)
    if check_errors:
        _check(side, info, len(shape) > 2, name)
    return out, info


def _check(side, info, batched, name):
    bad = side.first_failure(info)
    if bad is not None:
        where = f"(Batch element {bad[0]}): " if batched else ""
        raise side.error(f"{name}: {where}The factorization could not be completed because the input is not "
                         f"positive-definite (the leading minor of order {bad[1]} is not positive-definite).")


# ---- the torch operator: autograd, torch.compile, torch.jit.trace --------------------------------
_op = None


def _torch_op():
    """torch.ops.course_cholesky.cholesky_ex, registered on first use (L, info = op(A), A's lower triangle)."""
    global _op
    if _op is not None:
        return _op
    import torch

    @torch.library.custom_op("course_cholesky::cholesky_ex", mutates_args=(), device_types="cuda")
    def op(A: torch.Tensor, precision: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        side, A = _side(A)
        L, info = _factor(side, A.contiguous(), None, False, "course_cholesky.cholesky_ex", precision)
        return L, info

    @op.register_fake
    def _(A, precision=0):
        return torch.empty_like(A, memory_format=torch.contiguous_format), \
            A.new_empty(A.shape[:-2], dtype=torch.int32)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output[0])
        ctx.mark_non_differentiable(output[1])

    def backward(ctx, gL, ginfo):
        # torch's cholesky_backward (Murray, arXiv:1602.07527): gA = L^-T Phi(L^T gL) L^-1, Phi the
        # lower triangle with its diagonal halved, made symmetric; only the lower triangle of A is read.
        (L,) = ctx.saved_tensors
        if gL is None:
            return None, None
        gA = (L.mT @ gL).tril()
        gA = 0.5 * (gA + gA.tril(-1).mT)
        gA = torch.linalg.solve_triangular(L.mT, gA, upper=True, left=True)
        gA = torch.linalg.solve_triangular(L, gA, upper=False, left=False)
        return gA, None

    op.register_autograd(backward, setup_context=setup_context)
    _op = op
    return op


def _needs_op(torch, A):
    """The operator where torch must see the call: a gradient asked for, compiling, or tracing (compiling
    before tracing: dynamo reads it as a constant and never reaches the tracer's question)."""
    return (A.requires_grad and torch.is_grad_enabled()) or torch.compiler.is_compiling() or torch.jit.is_tracing()


def _ex(A, upper, check_errors, out, name, precision=0):
    """(L or U, info), written into out (an array, or a pair for cholesky_ex) when given."""
    side, A = _side(A)
    side.check(A)  # dtype, device, contiguity: one clear exception on every path (the operator's included)
    L_out, info_out = (out if isinstance(out, (tuple, list)) else (out, None)) if out is not None else (None, None)
    if L_out is not None and getattr(L_out, "dtype", A.dtype) != A.dtype:  # as torch: out= takes A's type only
        raise TypeError(f"course_cholesky: out is {L_out.dtype}, A {A.dtype}")
    src = side.transpose(A) if upper else A  # upper: the upper triangle is the lower one of A^T
    torch = getattr(side, "t", None)
    if torch is not None and _needs_op(torch, A):
        L, info = _torch_op()(src, precision)
        if check_errors:
            _check(side, info, A.dim() > 2, name)
    else:
        if upper:  # the transposed view is copied (as torch reads the upper triangle); a strided A was refused
            src = side.contiguous(src)
        # L straight into out when it can take it (lower, contiguous, the right type and shape)
        direct = L_out if (L_out is not None and not upper and _fits(side, L_out, A)) else None
        L, info = _factor(side, src, direct, check_errors, name, precision)
    R = side.transpose(L) if upper else L
    if L_out is not None and R is not L_out:
        if torch is not None and tuple(L_out.shape) != tuple(R.shape) and L_out.numel() == 0:
            L_out.resize_(R.shape)
        side.copy(L_out, R)
        R = L_out
    if info_out is not None:
        if torch is not None and tuple(info_out.shape) != tuple(info.shape) and info_out.numel() == 0:
            info_out.resize_(info.shape)
        side.copy(info_out, info)
        info = info_out
    return R, info


def _fits(side, out, A):
    try:
        return tuple(side.check(out)[0]) == tuple(A.shape) and out.dtype == A.dtype
    except (TypeError, ValueError):
        return False


def cholesky_ex(A, *, upper=False, check_errors=False, out=None, precision="highest"):
    """(L, info) for A (..., n, n), as torch.linalg.cholesky_ex: a named tuple (.L, .info); A is left as it
    was. upper=True: U from A's upper triangle. out=(L, info): written there and returned.
    precision="high": one TF32 product a term in the large matrices' updates (faster, not fp32-accurate);
    where TF32 meets a pivot <= 0 the batch is factored again fp32-accurately, on the GPU, so info is
    the fp32-accurate one (cholesky_ex_, in place, has no copy of A for that: its info may be TF32's).
    precision="medium": as "high", with the bulk of the largest matrices' updates in fp16 (each row
    scaled by a power of two) on a Hopper GPU: the same bound, faster there; high's arithmetic elsewhere."""
    p = _PRECISIONS.get(precision) if precision.__class__ is str else None
    if p is None:
        p = _precision(precision)  # raises
    if out is None and not upper:  # the common call, with as few Python steps as it takes
        side, A = _side(A)
        torch = getattr(side, "t", None)
        if torch is None or not _needs_op(torch, A):
            return _tuple_new(CholeskyExResult,
                              _factor(side, A, None, check_errors, "course_cholesky.cholesky_ex", p))
    return _tuple_new(CholeskyExResult, _ex(A, upper, check_errors, out, "course_cholesky.cholesky_ex", p))


_tuple_new = tuple.__new__  # CholeskyExResult(L, info) without namedtuple's Python-level __new__


def cholesky(A, *, upper=False, out=None, precision="highest"):
    """L (U when upper) for A (..., n, n), as torch.linalg.cholesky: raises on a matrix that is not positive
    definite; out=: written there. precision: as cholesky_ex."""
    return _ex(A, upper, True, out, "course_cholesky.cholesky", _precision(precision))[0]


def cholesky_ex_(A, *, check_errors=False, precision="highest"):
    """Factor A (..., n, n) in place: A becomes L. Returns info (shape A.shape[:-2], int32). precision: as
    cholesky_ex."""
    side, A = _side(A)
    torch = getattr(side, "t", None)
    if torch is not None and A.requires_grad and torch.is_grad_enabled():
        raise RuntimeError("course_cholesky: cholesky_ex_ writes over A, which requires grad; use cholesky_ex")
    return _factor(side, A, A, check_errors, "course_cholesky.cholesky_ex_", _precision(precision))[1]
