"""The compiled TREC reader (``rankmeter/io/_trecparse.c``) behind the pure one.

The extension reads run and qrels text in one pass: ids, scores or grades, line numbers and the
engine's doc-id hashes, on either core (it holds no lock while it scans). It accepts a buffer only
when every line is one the pure reader (:mod:`rankmeter.io.trec`) reads the same way; for anything
else it answers None and the pure reader reads the buffer and names the line of the problem, so
both paths give the same tables and the same errors (``tests/io/test_compiled.py`` sweeps both).

The extension is optional: ``pip install`` builds it when a C compiler is there; without it, or with
the environment variable ``RANKMETER_PURE=1``, every file takes the pure path.
"""
from __future__ import annotations

import os

import numpy as np

try:
    from rankmeter.io import _trecparse
except ImportError:  # no compiler at install time: the pure path reads everything
    _trecparse = None

__all__ = ["available", "parse_run", "parse_qrels", "hash_ids"]

_GRADES = {"integer": 0, "truncate": 1, "real": 2}


def available() -> bool:
    """Whether TREC text goes through the compiled reader (built, and ``RANKMETER_PURE`` not set)."""
    return _trecparse is not None and os.environ.get("RANKMETER_PURE", "") in ("", "0")


def _binary(pa, rows: int, offsets: bytes, values: bytes):
    return pa.Array.from_buffers(pa.binary(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(values)])


def parse_run(data: bytes, name: str):
    """The :class:`~rankmeter.io.canonical.Run` of TREC run text, or None for the pure reader to read."""
    if not available():
        return None
    parsed = _trecparse.parse(data, 0, 0)
    if parsed is None:
        return None
    import pyarrow as pa

    from rankmeter.io.canonical import Run

    nfields, rows, q_off, q_val, d_off, d_val, numbers, lines, tag, hashes, _, _ = parsed
    query, doc = _binary(pa, rows, q_off, q_val), _binary(pa, rows, d_off, d_val)
    score = pa.array(np.frombuffer(numbers, np.float64)) if nfields != 2 else pa.array(np.zeros(rows))
    table = pa.table({"query": query, "doc": doc, "score": score})
    return Run(table, name, None if lines is None else np.frombuffer(lines, np.int64),
               doc_hash=np.frombuffer(hashes, np.uint64), tag=tag or b"", ranked=nfields == 2)


def parse_qrels(data: bytes, name: str, grades: str):
    """The :class:`~rankmeter.io.canonical.Qrels` of TREC qrels text, or None for the pure reader."""
    if not available():
        return None
    parsed = _trecparse.parse(data, 1, _GRADES[grades])
    if parsed is None:
        return None
    import pyarrow as pa

    from rankmeter.io.canonical import Qrels, qrels_table

    _, rows, q_off, q_val, d_off, d_val, numbers, lines, _, hashes, s_off, s_val = parsed
    rel = pa.array(np.frombuffer(numbers, np.float64 if grades == "real" else np.int64))
    table = qrels_table(_binary(pa, rows, q_off, q_val), _binary(pa, rows, d_off, d_val), rel,
                        _binary(pa, rows, s_off, s_val))
    return Qrels(table, name, None if lines is None else np.frombuffer(lines, np.int64),
                 doc_hash=np.frombuffer(hashes, np.uint64))


def hash_ids(offsets: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """:func:`rankmeter.core.keys.id_hash` computed by the extension, or None without it."""
    if not available():
        return None
    return np.frombuffer(_trecparse.hash_ids(np.ascontiguousarray(offsets, np.int64), values), np.uint64)
