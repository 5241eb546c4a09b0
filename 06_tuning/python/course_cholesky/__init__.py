"""course_cholesky - the course's batched Cholesky (stage 06's `--kernel auto`) for torch and cupy.

    import course_cholesky as cc
    L, info = cc.cholesky(A)          # A: CUDA float32, shape (..., n, n), row-major, n = 1..128
    info = cc.cholesky_(A)            # in place: A becomes L (zeros above the diagonal)

Like torch.linalg.cholesky_ex: L is lower triangular, info[...] is 0 or the order of the first
leading minor that is not positive definite (a NaN fails too), as cuSOLVER reports it; a failed
matrix's L is unspecified. Nothing waits for the GPU (check=True does, to raise on a nonzero info).
The work runs in the order of the framework's current stream. A torch tensor gives torch tensors
back, a cupy array cupy arrays; any other CUDA array with __dlpack__ is taken through torch.

The library is build/06_tuning/libcourse_cholesky.so (`make python`); COURSE_CHOLESKY_LIB=FILE
names another. See 06_tuning/python/README.md.
"""
import ctypes
import os

__all__ = ["cholesky", "cholesky_", "choice", "MAX_N"]

MAX_N = 128
_HERE = os.path.dirname(os.path.abspath(__file__))
_DEFAULT_LIB = os.path.join(_HERE, "..", "..", "..", "build", "06_tuning", "libcourse_cholesky.so")
_lib = None


def _library():
    global _lib
    if _lib is None:
        path = os.path.abspath(os.environ.get("COURSE_CHOLESKY_LIB") or _DEFAULT_LIB)
        if not os.path.exists(path):
            raise ImportError(f"course_cholesky: {path} is not built; run `make python` in the course's folder")
        lib = ctypes.CDLL(path)
        c = ctypes
        lib.course_choose.argtypes = [c.c_int, c.c_int, c.c_size_t, c.c_char_p, c.c_size_t, c.POINTER(c.c_size_t),
                                      c.c_char_p, c.c_size_t]
        lib.course_potrf_rowmajor.argtypes = [c.c_int, c.c_void_p, c.c_int, c.c_size_t, c.c_void_p, c.c_void_p,
                                              c.c_void_p, c.c_char_p, c.c_size_t]
        lib.course_choose.restype = lib.course_potrf_rowmajor.restype = c.c_int
        _lib = lib
    return _lib


_plans = {}  # (n, batch, device) -> _plan's answer: the table does not change while a program runs


def _plan(n, batch, device=0):
    """(auto's configuration in words, scratch bytes it needs); ValueError when refused."""
    key = (n, batch, device)
    if key not in _plans:
        desc, msg, scratch = ctypes.create_string_buffer(128), ctypes.create_string_buffer(512), ctypes.c_size_t(0)
        if _library().course_choose(device, n, batch, desc, 128, ctypes.byref(scratch), msg, 512) != 0:
            raise ValueError(f"course_cholesky: {msg.value.decode()}")
        _plans[key] = desc.value.decode(), scratch.value
    return _plans[key]


def choice(n, batch, device=0):
    """What `--kernel auto` runs for `batch` row-major matrices of order n on GPU `device`."""
    return _plan(n, batch, device)[0]


class _Torch:
    """The torch side: checks, allocation, the current stream."""

    def __init__(self, torch):
        self.t = torch

    def accepts(self, a):
        return isinstance(a, self.t.Tensor)

    def check(self, a):
        t = self.t
        if a.dtype != t.float32:
            raise TypeError(f"course_cholesky: float32 only, not {a.dtype}")
        if not a.is_cuda:
            raise ValueError("course_cholesky: the tensor is in host memory; move it to the GPU (.cuda())")
        if not a.is_contiguous():
            raise ValueError("course_cholesky: the tensor is not contiguous (transposed or strided); "
                             "pass A.contiguous() (a copy) or the matrices as they are stored")
        return tuple(a.shape), a.device.index

    def ptr(self, a):
        return a.data_ptr()

    def stream(self, a):
        raw = getattr(self.t._C, "_cuda_getCurrentRawStream", None)  # the handle alone, no Stream object
        return raw(a.device.index) if raw else self.t.cuda.current_stream(a.device).cuda_stream

    def copy(self, a):
        return a.clone(memory_format=self.t.contiguous_format)

    def info(self, a, shape):
        return self.t.empty(shape, dtype=self.t.int32, device=a.device)

    def scratch(self, a, nbytes):
        return self.t.empty(nbytes // 4, dtype=self.t.float32, device=a.device)

    def any_nonzero(self, x):
        return bool((x != 0).any().item())


class _Cupy:
    def __init__(self, cp):
        self.cp = cp

    def accepts(self, a):
        return isinstance(a, self.cp.ndarray)

    def check(self, a):
        if a.dtype != self.cp.float32:
            raise TypeError(f"course_cholesky: float32 only, not {a.dtype}")
        if not a.flags.c_contiguous:
            raise ValueError("course_cholesky: the array is not C-contiguous (transposed or strided); "
                             "pass cupy.ascontiguousarray(A) (a copy) or the matrices as they are stored")
        return tuple(a.shape), a.device.id

    def ptr(self, a):
        return a.data.ptr

    def stream(self, a):
        return self.cp.cuda.get_current_stream().ptr

    def copy(self, a):
        return a.copy(order="C")

    def info(self, a, shape):
        return self.cp.empty(shape, dtype=self.cp.int32)

    def scratch(self, a, nbytes):
        return self.cp.empty(nbytes // 4, dtype=self.cp.float32)

    def any_nonzero(self, x):
        return bool((x != 0).any())


_sides = {}  # the adapters, made once


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


def cholesky_(A, *, check=False):
    """Factor A (..., n, n) in place: A becomes L. Returns info (shape A.shape[:-2], int32)."""
    side, A = _side(A)
    shape, device = side.check(A)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"course_cholesky: square matrices of shape (..., n, n), not {shape}")
    n, batch = shape[-1], 1
    for d in shape[:-2]:
        batch *= d
    if batch == 0:
        raise ValueError(f"course_cholesky: an empty batch (shape {shape})")
    if not 1 <= n <= MAX_N:
        raise ValueError(f"course_cholesky: n = {n}: this library takes n = 1..{MAX_N} "
                         "(larger matrices: torch.linalg.cholesky, or stage 03's whole-GPU Cholesky)")
    _, nbytes = _plan(n, batch, device)
    info = side.info(A, shape[:-2])
    scratch = side.scratch(A, nbytes) if nbytes else None
    msg = ctypes.create_string_buffer(512)
    rc = _library().course_potrf_rowmajor(device, side.ptr(A), n, batch, side.ptr(info),
                                          side.ptr(scratch) if scratch is not None else None, side.stream(A), msg, 512)
    if rc != 0:
        raise RuntimeError(f"course_cholesky: {msg.value.decode()}")
    if check and side.any_nonzero(info):
        raise ValueError("course_cholesky: a matrix is not positive definite (info != 0)")
    return info


def cholesky(A, *, check=False):
    """L, info for A (..., n, n), like torch.linalg.cholesky_ex; A is left as it is (L is a copy of A
    factored in place: the only copy of the call)."""
    side, A = _side(A)
    side.check(A)
    L = side.copy(A)
    return L, cholesky_(L, check=check)
