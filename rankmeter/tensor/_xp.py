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

__all__ = ["Ops", "NumpyOps", "TorchOps", "namespace_of", "numpy_ops", "TORCH_CPU_THROUGH_NUMPY"]

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

    def rank_keys(self, scores, unranked, shift: int):
        """Distinct int64 keys of float32 ``scores``, smallest for the best score: the bits of -score
        (0.0 - score: -0.0 becomes +0.0) as an int32 that orders as the floats do (negative floats
        count down), shifted left by ``shift`` bits above each element's column, so equal scores keep
        their input order. ``unranked`` (or None) elements get the largest keys. None: the library
        cannot reinterpret float bits."""
        bits = self.float32_bits(0.0 - scores)
        if bits is None:
            return None
        best_first = bits ^ ((bits >> 31) & 0x7FFFFFFF)
        if unranked is not None:
            best_first = self.xp.where(unranked, self.full((), 2 ** 31 - 1, self.xp.int32), best_first)
        column = self.arange(scores.shape[1], self.int64)[None, :]
        return (self.astype(best_first, self.int64) << shift) | column

    def zero_unless(self, x, keep):
        """``x`` where ``keep``, else 0 (+0.0)."""
        return self.xp.where(keep, x, self.zeros((), x.dtype))

    def count(self, mask, dtype):
        """Per row, the True entries of ``mask``, as ``dtype``."""
        return self.xp.sum(self.astype(mask, dtype), axis=1)

    def masked_max(self, x, keep):
        """Per row, the largest ``x`` where ``keep`` (-inf where none is kept); float ``x`` without NaN."""
        return self.amax(self.xp.where(keep, x, self.full((), float("-inf"), x.dtype)), axis=1)

    def smallest_columns(self, key, k: int, shift: int):
        """Columns of the k smallest ``key`` values of each row, smallest first, where each key is
        distinct and holds its column c in its low bits: ``key = (...) << shift | c``."""
        return self.argsort(key, axis=1)[:, :k]

    def top_values(self, x, k: int):
        """The k largest values of each row, largest first."""
        return self.sort_descending(x, axis=1)[:, :k]

    def block_rows(self, rows: int, width: int) -> int | None:
        """Rows per block when the dense form should run a batch in blocks of rows (None: all at once)."""
        return None

    def is_float(self, x) -> bool:
        return self.xp.isdtype(x.dtype, "real floating")

    def is_bool(self, x) -> bool:
        return self.xp.isdtype(x.dtype, "bool")



#: Elements per block of rows in the numpy route (see ``NumpyOps.block_rows``).
BLOCK_ELEMENTS = 2 ** 17


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
        if axis != 1 or x.ndim != 2 or idx.shape[0] != x.shape[0]:
            return self.xp.take_along_axis(x, idx, axis=axis)
        # one gather from the flat array: take_along_axis costs twice as much on [8000, 100]
        rows, width = x.shape
        return self.xp.take(x.reshape(-1), idx + self.xp.arange(0, rows * width, width)[:, None])

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

    def rank_keys(self, scores, unranked, shift):
        # Ops.rank_keys in place, one new array per type: the same keys at a third of the allocations
        np = self.xp
        best_first = np.subtract(np.float32(0.0), scores).view(np.int32)   # a new array
        flip = best_first >> 31
        flip &= 0x7FFFFFFF
        best_first ^= flip
        if unranked is not None:
            # np.where branches on each element (3 ms on a random [8000, 100] mask); a maximum does not:
            # unranked -> 0 ^ MAX = MAX, ranked -> -1 ^ MAX = MIN
            floor = unranked.astype(np.int32)
            floor -= 1
            floor ^= 2 ** 31 - 1
            np.maximum(best_first, floor, out=best_first)
        keys = np.left_shift(best_first, shift, dtype=np.int64)
        keys |= np.arange(scores.shape[1], dtype=np.int64)[None, :]
        return keys

    def zero_unless(self, x, keep):
        # np.where branches on each element; a product of the bits by 0 or 1 does not (and keeps inf)
        bits = {4: self.xp.int32, 8: self.xp.int64}.get(x.dtype.itemsize)
        if bits is None or x.dtype.kind != "f":
            return self.xp.where(keep, x, self.xp.zeros((), x.dtype))
        return self.xp.multiply(x.view(bits), keep, dtype=bits).view(x.dtype)

    def count(self, mask, dtype):
        return self.xp.count_nonzero(mask, axis=1).astype(dtype)

    def masked_max(self, x, keep):
        # np.where branches on each element; min(x, +inf) = x and min(x, -inf) = -inf do not
        bound = keep.astype(x.dtype)
        bound -= 0.5
        bound *= self.xp.inf
        return self.xp.minimum(x, bound, out=bound).max(axis=1)

    def smallest_columns(self, key, k, shift):
        return _columns_by_numpy(key, k, shift)

    def top_values(self, x, k):
        width = x.shape[1]
        if k < width and width > SORT_WHOLE_UP_TO:
            x = self.xp.partition(x, width - k, axis=1)[:, width - k:]
        return self.xp.sort(x, axis=1)[:, :-k - 1:-1]

    def block_rows(self, rows, width):
        # blocks of about BLOCK_ELEMENTS: each of their temporaries fits the cache and reuses the memory
        # the last block freed (one [8000, 100] batch in one piece faults ~4000 fresh pages in per update)
        blocks = -(-rows * width // BLOCK_ELEMENTS)
        return -(-rows // blocks) if blocks > 1 else None

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

    def count(self, mask, dtype):
        return mask.sum(dim=1, dtype=dtype)

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


#: Rows up to this wide are sorted whole even for their top k: numpy's vectorised sorts (AVX-512 here)
#: beat a partition on short rows ([8000, 100]: 1.9 ms against 2.2 for a partition and a sort of k)
SORT_WHOLE_UP_TO = 256


def _columns_by_numpy(key, k: int, shift: int):
    """``Ops.smallest_columns`` on a numpy array: sort the keys themselves, in place (cheaper than an
    argsort), and read each one's column back from its last digits."""
    import numpy as np
    if k < key.shape[1] and key.shape[1] > SORT_WHOLE_UP_TO:
        key = np.partition(key, k - 1, axis=1)[:, :k]
    key.sort(axis=1)
    return key[:, :k] & ((1 << shift) - 1)


_ADAPTERS: dict = {}   # numpy's and torch's per device: building one reads the library's dtypes (0.4 ms)


def numpy_ops() -> NumpyOps:
    if "numpy" not in _ADAPTERS:
        _ADAPTERS["numpy"] = NumpyOps()
    return _ADAPTERS["numpy"]


def namespace_of(x) -> Ops:
    """The adapter for the library of array ``x`` (numpy, torch, or one with ``__array_namespace__``)."""
    module = type(x).__module__.split(".")[0]
    if module == "numpy":
        return numpy_ops()
    if module == "torch":
        key = ("torch", x.device)
        if key not in _ADAPTERS:
            _ADAPTERS[key] = TorchOps(x)
        return _ADAPTERS[key]
    get = getattr(x, "__array_namespace__", None)
    if get is None:
        raise ParameterError(f"scores of type {type(x).__name__}: expected a [rows, candidates] array of numpy, "
                             "torch or a library following the Python array API standard (CuPy, JAX)")
    return Ops(get(), x)
