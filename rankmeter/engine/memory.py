"""Handing freed memory back to the operating system after a big allocation-heavy step.

Arrow's allocator (mimalloc or jemalloc) keeps freed pages for reuse, and so does glibc's malloc,
which numpy uses: once a big array has been freed, glibc raises its mmap threshold (up to 32 MB) and
serves later arrays of that size from a heap it does not shrink. Reading a 10M-line qrels thus left
~840 MiB resident for a 290 MiB table; giving the freed pages back brings it to ~400 MiB
(measured on the 100M-line bench). Called after preparing big qrels, never on a hot path.
"""
from __future__ import annotations

import sys

__all__ = ["give_back"]

_TRIM = None


def _malloc_trim():
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            import ctypes
            try:
                _TRIM = ctypes.CDLL(None).malloc_trim  # the process's own symbols: glibc's, where it is glibc
            except (OSError, AttributeError):  # musl and other C libraries without malloc_trim
                _TRIM = False
    return _TRIM


def give_back() -> None:
    """Return the freed pages of Arrow's pool (when pyarrow is loaded) and of the C heap to the operating system."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:  # the compiled text path never loads it: nothing of Arrow's to give back then
        pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim:
        trim(0)
