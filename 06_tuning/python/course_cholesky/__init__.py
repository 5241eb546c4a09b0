"""course_cholesky - the course's batched Cholesky (stage 06's one door, cholesky_plan.h) for torch and cupy.

    import course_cholesky as cc
    L, info = cc.cholesky_ex(A)       # A: CUDA float32, shape (..., n, n), row-major, n = 1..65536
    L = cc.cholesky(A)                # like torch.linalg.cholesky: raises on a matrix that fails
    info = cc.cholesky_ex_(A)         # in place: A becomes L (zeros above the diagonal)

The signature and behaviour of torch.linalg.cholesky_ex: `upper=True` gives U = L^T (a transposed
view of L, no extra pass), `check_errors=True` raises torch.linalg.LinAlgError (numpy's LinAlgError
for cupy) on the first matrix that is not positive definite, an empty batch gives empty results,
info is int32 of shape A.shape[:-2]: 0, or the order of the first leading minor that is not
positive definite (a NaN fails too), as cuSOLVER reports it. L is written out of place without a
copy of A first. Nothing waits for the GPU (check_errors does, to look); the work runs on the
framework's current stream. A torch tensor gives torch tensors back, a cupy array cupy arrays; any
other CUDA array with __dlpack__ is taken through torch.

One plan per (GPU, n, batch) is made on the first call and kept (`choice` says what it runs).
The library is built by `pip install 06_tuning/python` (into the package) or `make python`
(build/06_tuning/libcourse_cholesky.so); COURSE_CHOLESKY_LIB=FILE names another.
See 06_tuning/python/README.md.
"""
import ctypes
import os
import sys

__all__ = ["cholesky_ex", "cholesky", "cholesky_ex_", "choice", "MAX_N"]

MAX_N = 65536
_HERE = os.path.dirname(os.path.abspath(__file__))
_PLACES = [os.path.join(_HERE, "libcourse_cholesky.so"),  # pip install (non-editable) put it here
           os.path.join(_HERE, "..", "..", "..", "build", "06_tuning", "libcourse_cholesky.so")]  # make python
_lib = None


def _library():
    global _lib
    if _lib is None:
        named = os.environ.get("COURSE_CHOLESKY_LIB")
        found = [os.path.abspath(p) for p in ([named] if named else _PLACES) if os.path.exists(p)]
        if not found:
            raise ImportError(f"course_cholesky: {os.path.abspath(named or _PLACES[-1])} is not built; run "
                              "`make python` in the course's folder, or `pip install 06_tuning/python`")
        lib = ctypes.CDLL(found[0])
        c = ctypes
        lib.course_plan_create.argtypes = [c.c_int, c.c_int, c.c_size_t, c.c_char_p, c.c_size_t,
                                           c.POINTER(c.c_size_t), c.c_char_p, c.c_size_t]
        lib.course_plan_create.restype = c.c_void_p
        lib.course_plan_destroy.argtypes = [c.c_void_p]
        lib.course_plan_destroy.restype = None
        lib.course_execute.argtypes = [c.c_void_p, c.c_int, c.c_void_p, c.c_void_p, c.c_void_p, c.c_void_p,
                                       c.c_void_p, c.c_char_p, c.c_size_t]
        lib.course_execute.restype = c.c_int
        _lib = lib
    return _lib


class _Plan:
    """One C plan: made once per (GPU, n, batch), destroyed with the program."""

    def __init__(self, device, n, batch):
        lib = _library()
        explain, msg, work = ctypes.create_string_buffer(1024), ctypes.create_string_buffer(512), ctypes.c_size_t(0)
        self.handle = lib.course_plan_create(device, n, batch, explain, 1024, ctypes.byref(work), msg, 512)
        if not self.handle:
            raise ValueError(f"course_cholesky: {msg.value.decode()}")
        self.explain, self.work_bytes, self._lib = explain.value.decode(), work.value, lib
        self.execute = lib.course_execute  # looked up once
        self.msg = ctypes.create_string_buffer(512)

    def __del__(self):
        if getattr(self, "handle", None) and not sys.is_finalizing():  # at exit the process frees it all
            self._lib.course_plan_destroy(self.handle)


_plans = {}  # (device, n, batch) -> _Plan


def _plan(device, n, batch):
    p = _plans.get((device, n, batch))
    if p is None:
        p = _plans[(device, n, batch)] = _Plan(device, n, batch)
    return p


def choice(n, batch, device=0):
    """What the course runs for `batch` row-major matrices of order n on GPU `device`, and why (one line)."""
    return _plan(device, n, batch).explain


class _Torch:
    """The torch side: checks, allocation, the current stream, torch's error."""

    def __init__(self, torch):
        self.t = torch
        self.raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the handle alone, no Stream object
        self.error = getattr(torch.linalg, "LinAlgError", RuntimeError)
        self.f32, self.i32 = torch.float32, torch.int32

    def check(self, a):
        if a.dtype is not self.f32:
            raise TypeError(f"course_cholesky: float32 only, not {a.dtype}")
        device = a.get_device()  # an int, -1 for host memory (a.device.index makes an object: slower)
        if device < 0:
            raise ValueError("course_cholesky: the tensor is in host memory; move it to the GPU (.cuda())")
        if not a.is_contiguous():
            raise ValueError("course_cholesky: the tensor is not contiguous (transposed or strided); "
                             "pass A.contiguous() (a copy) or the matrices as they are stored")
        return a.shape, device

    def ptr(self, a):
        return a.data_ptr()

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
        if a.dtype != self.cp.float32:
            raise TypeError(f"course_cholesky: float32 only, not {a.dtype}")
        if not a.flags.c_contiguous:
            raise ValueError("course_cholesky: the array is not C-contiguous (transposed or strided); "
                             "pass cupy.ascontiguousarray(A) (a copy) or the matrices as they are stored")
        return a.shape, a.device.id

    def ptr(self, a):
        return a.data.ptr

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
        import cupy
        return _Cupy(cupy), cupy.asarray(a)
    raise TypeError(f"course_cholesky: a torch tensor, a cupy array or a CUDA array with __dlpack__, "
                    f"not {type(a).__name__}")


def _factor(A, out, check_errors, name):
    """Factor A into out (may be A); returns (side, out, info)."""
    side, A = _side(A)
    shape, device = side.check(A)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"course_cholesky: square matrices of shape (..., n, n), not {tuple(shape)}")
    n = shape[-1]
    batch = 1
    for d in shape[:-2]:
        batch *= d
    if out is None:
        out = side.empty_like(A)
    elif out is not A:
        if tuple(side.check(out)[0]) != tuple(shape):
            raise ValueError(f"course_cholesky: out has shape {tuple(side.check(out)[0])}, A {tuple(shape)}")
    if batch == 0 or n == 0:  # as torch: empty results, nothing to run
        return side, out, side.info(A, shape[:-2], zero=True)
    if n > MAX_N:
        raise ValueError(f"course_cholesky: n = {n}: this library takes n = 1..{MAX_N}")
    plan = _plans.get((device, n, batch)) or _plan(device, n, batch)
    info = side.info(A, shape[:-2])
    work = side.scratch(A, plan.work_bytes) if plan.work_bytes else None
    if plan.execute(plan.handle, device, side.ptr(A), side.ptr(out), side.ptr(info),
                    side.ptr(work) if work is not None else None, side.stream(device), plan.msg, 512) != 0:
        raise RuntimeError(f"course_cholesky: {plan.msg.value.decode()}")
    if check_errors:
        bad = side.first_failure(info)
        if bad is not None:
            where = f"(Batch element {bad[0]}): " if len(shape) > 2 else ""
            raise side.error(f"{name}: {where}The factorization could not be completed because the input is not "
                             f"positive-definite (the leading minor of order {bad[1]} is not positive-definite).")
    return side, out, info


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info) for A (..., n, n), as torch.linalg.cholesky_ex; A is left as it was (out: where L goes)."""
    side, L, info = _factor(A, out, check_errors, "course_cholesky.cholesky_ex")
    return (side.transpose(L) if upper else L), info


def cholesky(A, *, upper=False, out=None):
    """L for A (..., n, n), as torch.linalg.cholesky: raises on a matrix that is not positive definite."""
    side, L, _ = _factor(A, out, True, "course_cholesky.cholesky")
    return side.transpose(L) if upper else L


def cholesky_ex_(A, *, check_errors=False):
    """Factor A (..., n, n) in place: A becomes L. Returns info (shape A.shape[:-2], int32)."""
    side, A = _side(A)
    return _factor(A, A, check_errors, "course_cholesky.cholesky_ex_")[2]
