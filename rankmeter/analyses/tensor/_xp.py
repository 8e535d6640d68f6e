"""The few array operations the tensor path needs, for numpy, torch and any array-API library.

The Python array API standard covers almost everything the dense kernels
use; the rest (a stable sort, gathers along an axis, running sums and
products, a running maximum) differs in name between libraries, so each
library gets one small adapter. torch is imported only when the input is a
torch tensor: ``import rankmeter`` never loads it.

>>> import numpy as np
>>> ops = namespace_of(np.array([[3.0, 1.0]]))
>>> ops.name, ops.cumsum(np.array([[1.0, 2.0, 3.0]])).tolist()
('numpy', [[1.0, 3.0, 6.0]])
"""
from __future__ import annotations

from rankmeter.errors import ParameterError

__all__ = ["Ops", "NumpyOps", "TorchOps", "namespace_of", "TORCH_CPU_THROUGH_NUMPY"]

#: Tensors on the CPU are computed through numpy arrays that share their memory (no copy): torch's
#: intra-op threads make each small operation cost milliseconds on a busy machine, numpy's do not. The
#: torch adapter computes tensors on other devices (CUDA); the tests run it on the CPU too.
TORCH_CPU_THROUGH_NUMPY = True


class Ops:
    """Array operations of one library (``xp`` is its namespace: where, log2, sum, ...)."""

    name = "array-api"

    def __init__(self, xp, like=None):
        self.xp = xp
        self.device = getattr(like, "device", None)
        # the widest types the library has (JAX without x64 has neither 64-bit type)
        info = getattr(xp, "__array_namespace_info__", None)
        names = set(info().dtypes()) if info is not None else {"float64", "int64"}
        self.float64 = xp.float64 if "float64" in names else xp.float32
        self.int64 = xp.int64 if "int64" in names else xp.int32

    # ----------------------------------------------------------- creation
    def arange(self, n: int, dtype):
        return self.xp.arange(n, dtype=dtype, device=self.device)

    def zeros(self, shape, dtype):
        return self.xp.zeros(shape, dtype=dtype, device=self.device)

    def full(self, shape, value, dtype):
        return self.xp.full(shape, value, dtype=dtype, device=self.device)

    def astype(self, x, dtype):
        return self.xp.astype(x, dtype)

    # ------------------------------------------------------ along an axis
    def argsort(self, x, axis: int = -1):
        """Ascending, stable: equal keys keep their order."""
        return self.xp.argsort(x, axis=axis, stable=True)

    def sort_descending(self, x, axis: int = -1):
        return self.xp.sort(x, axis=axis, descending=True)

    def take(self, x, idx, axis: int = 1):
        return self.xp.take_along_axis(x, idx, axis=axis)

    def cumsum(self, x, axis: int = 1):
        return self.xp.cumulative_sum(x, axis=axis)

    def cumprod(self, x, axis: int = 1):
        return self.xp.cumulative_prod(x, axis=axis)

    def cummax(self, x, axis: int = 1):
        raise ParameterError("ties='average' needs a running maximum, which the array API standard lacks; "
                             "use ties='input', or numpy or torch arrays")

    def flip(self, x, axis: int = 1):
        return self.xp.flip(x, axis=axis)

    def amin(self, x, axis: int = 1):
        return self.xp.min(x, axis=axis)

    def nonzero(self, x):
        """Positions of the True entries of 1-D ``x``."""
        return self.xp.nonzero(x)[0]

    def amax(self, x, axis: int = 1):
        return self.xp.max(x, axis=axis)

    def concat(self, arrays, axis: int = 1):
        return self.xp.concat(arrays, axis=axis)

    def float32_bits(self, x):
        """The bits of float32 ``x`` as int32 (None: the library cannot reinterpret them)."""
        return None

    def widen_shift(self, x, shift: int):
        """int32 ``x`` as int64, shifted left by ``shift`` bits."""
        return self.astype(x, self.int64) << shift

    def smallest_columns(self, key, k: int, shift: int):
        """Columns of the k smallest ``key`` values of each row, smallest first, where each key is
        distinct and holds its column c in its low bits: ``key = (...) << shift | c``."""
        return self.argsort(key, axis=1)[:, :k]

    def top_values(self, x, k: int):
        """The k largest values of each row, largest first."""
        return self.sort_descending(x, axis=1)[:, :k]

    def is_float(self, x) -> bool:
        return self.xp.isdtype(x.dtype, "real floating")

    def is_bool(self, x) -> bool:
        return self.xp.isdtype(x.dtype, "bool")



class NumpyOps(Ops):
    name = "numpy"

    def __init__(self, like=None):
        import numpy as np
        super().__init__(np, like)
        self.device = None

    def arange(self, n, dtype):
        return self.xp.arange(n, dtype=dtype)

    def zeros(self, shape, dtype):
        return self.xp.zeros(shape, dtype=dtype)

    def full(self, shape, value, dtype):
        return self.xp.full(shape, value, dtype=dtype)

    def astype(self, x, dtype):
        return x.astype(dtype, copy=False)

    def argsort(self, x, axis=-1):
        return self.xp.argsort(x, axis=axis, kind="stable")

    def sort_descending(self, x, axis=-1):
        return self.xp.flip(self.xp.sort(x, axis=axis), axis=axis)

    def take(self, x, idx, axis=1):
        return self.xp.take_along_axis(x, idx, axis=axis)

    def cumsum(self, x, axis=1):
        return self.xp.cumsum(x, axis=axis)

    def cumprod(self, x, axis=1):
        return self.xp.cumprod(x, axis=axis)

    def cummax(self, x, axis=1):
        return self.xp.maximum.accumulate(x, axis=axis)

    def concat(self, arrays, axis=1):
        return self.xp.concatenate(arrays, axis=axis)

    def float32_bits(self, x):
        return x.view(self.xp.int32)

    def widen_shift(self, x, shift):
        return self.xp.left_shift(x, shift, dtype=self.xp.int64)   # one pass: the cast within the shift

    def smallest_columns(self, key, k, shift):
        return _columns_by_numpy(key, k, shift)

    def top_values(self, x, k):
        if k < x.shape[1]:
            x = -self.xp.partition(-x, k - 1, axis=1)[:, :k]
        return self.xp.flip(self.xp.sort(x, axis=1), axis=1)

    def is_float(self, x):
        return x.dtype.kind == "f"

    def is_bool(self, x):
        return x.dtype.kind == "b"


class TorchOps(Ops):
    """torch on its device (CUDA; CPU tensors go through numpy unless ``TORCH_CPU_THROUGH_NUMPY`` is off)."""

    name = "torch"

    def __init__(self, like):
        import torch
        super().__init__(torch, like)

    def astype(self, x, dtype):
        return x.to(dtype)

    def argsort(self, x, axis=-1):
        return self.xp.argsort(x, dim=axis, stable=True)

    def sort_descending(self, x, axis=-1):
        return self.xp.sort(x, dim=axis, descending=True).values

    def take(self, x, idx, axis=1):
        return self.xp.gather(x, axis, idx)

    def cumsum(self, x, axis=1):
        return self.xp.cumsum(x, dim=axis)

    def cumprod(self, x, axis=1):
        return self.xp.cumprod(x, dim=axis)

    def cummax(self, x, axis=1):
        return self.xp.cummax(x, dim=axis).values

    def flip(self, x, axis=1):
        return self.xp.flip(x, dims=(axis,))

    def amin(self, x, axis=1):
        return self.xp.amin(x, dim=axis)

    def nonzero(self, x):
        return self.xp.nonzero(x, as_tuple=True)[0]

    def amax(self, x, axis=1):
        return self.xp.amax(x, dim=axis)

    def concat(self, arrays, axis=1):
        return self.xp.cat(arrays, dim=axis)

    def float32_bits(self, x):
        return x.view(self.xp.int32)

    def smallest_columns(self, key, k, shift):
        if k == key.shape[1]:
            return self.xp.sort(key, dim=1).values & ((1 << shift) - 1)
        return self.xp.topk(key, k, dim=1, largest=False).values & ((1 << shift) - 1)

    def top_values(self, x, k):
        if k >= x.shape[1]:
            return self.sort_descending(x, axis=1)
        return self.xp.topk(x, k, dim=1).values

    def is_float(self, x):
        return x.dtype.is_floating_point

    def is_bool(self, x):
        return x.dtype == self.xp.bool


def _columns_by_numpy(key, k: int, shift: int):
    """``Ops.smallest_columns`` on a numpy array: sort the keys themselves (cheaper than an argsort) and
    read each one's column back from its last digits."""
    import numpy as np
    if k < key.shape[1]:
        key = np.partition(key, k - 1, axis=1)[:, :k]
        key.sort(axis=1)
    else:
        key = np.sort(key, axis=1)
    return key & ((1 << shift) - 1)


def namespace_of(x) -> Ops:
    """The adapter for the library of array ``x`` (numpy, torch, or one with ``__array_namespace__``)."""
    module = type(x).__module__.split(".")[0]
    if module == "numpy":
        return NumpyOps(x)
    if module == "torch":
        return TorchOps(x)
    get = getattr(x, "__array_namespace__", None)
    if get is None:
        raise ParameterError(f"scores of type {type(x).__name__}: expected a [rows, candidates] array of numpy, "
                             "torch or a library following the Python array API standard (CuPy, JAX)")
    return Ops(get(), x)
