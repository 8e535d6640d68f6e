"""``check --dedupe``: a run without its duplicate docs, every kept line exactly as it was.

A doc listed twice for a query makes trec_eval abort and rankmeter refuse. :func:`kept_rows` picks
the line to keep of each (query, doc): the first, or the one with the highest score (the first of
those on a tie). Ids are compared exactly, byte for byte: they are numbered by
:meth:`rankmeter.engine.ids.Ids.encode`, whose hash groups are confirmed on the bytes, so two ids
whose hashes collide are never taken for one.

:func:`write_deduped` writes the input file without the dropped lines: every other line is copied
byte for byte (its rank, score, tag, spacing, comments and header line as they were), so the result
is the input minus the duplicates, not a rewritten run. Parquet files keep every column of the kept
rows. A compressed input is written decompressed, and without a UTF-8 byte-order mark.

>>> run = {"q": {"a": 1.0}}
>>> len(dedupe(run))
1
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import InputError
from rankmeter.io import as_run
from rankmeter.io.canonical import Run

__all__ = ["dedupe", "kept_rows", "write_deduped", "Deduped", "KEEP"]

#: Which line of a duplicated (query, doc) stays (``rankmeter check --dedupe KEEP``).
KEEP = Param("keep", "choice", help="the line kept of each duplicated (query, doc): the first, or the one with "
             "the highest score", choices=("first", "max"))


@validate_params(KEEP)
def kept_rows(run: Run, keep: str = "first") -> np.ndarray:
    """The rows of ``run`` kept by :func:`dedupe`, in their order (each (query, doc) once, ids compared exactly)."""
    n = len(run)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    query = run.ids("query").encode()[1].astype(np.int64)
    docs, doc = run.ids("doc").encode()
    key = query * len(docs) + doc.astype(np.int64)  # exact: one number per distinct (query, doc) bytes
    rows = np.arange(n)
    if keep == "max" and not run.ranked:
        order = np.lexsort((rows, -run.numbers("score"), key))
    else:
        order = np.lexsort((rows, key))
    first = np.ones(n, dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    return np.sort(order[first])


@validate_params(KEEP)
def dedupe(run, *, keep: str = "first") -> Run:
    """The run with each (query, doc) once: the first line, or the line with the highest score."""
    run = as_run(run)
    kept = kept_rows(run, keep=keep)
    if len(kept) == len(run):
        return run
    import pyarrow as pa
    lines = None if run.lines is None else run.lines[kept]
    if run.lines is None and run.origin == "file":
        lines = kept + 1  # row i was line i + 1: the kept rows keep their lines
    return Run(run.table.take(pa.array(kept)), run.source, lines, origin=run.origin, tag=run.tag, ranked=run.ranked)


@dataclass
class Deduped:
    """What :func:`write_deduped` did: the lines (or Parquet rows) it left out, and how many it kept."""

    source: str
    output: str
    removed: list[int]
    kept: int

    def summary(self, keep: str) -> str:
        shown = ", ".join(map(str, self.removed[:5])) + (" ..." if len(self.removed) > 5 else "")
        unit = "rows" if self.output.endswith(".parquet") or self.source.endswith(".parquet") else "lines"
        one = unit[:-1] if len(self.removed) == 1 else unit
        counted = " counted from 0" if unit == "rows" else ""
        what = (f"{len(self.removed)} duplicate {one} left out ({one} {shown}{counted})" if self.removed
                else "no duplicates: a copy")
        return (f"--dedupe {keep}: wrote {self.output}: {self.source} with {what}; the {self.kept} kept {unit} "
                "are copied as they were (ranks, scores, tags)")


@validate_params(KEEP)
def write_deduped(source, output, *, keep: str = "first", columns=None, input_format: str = "auto",
                  inputs=()) -> Deduped:
    """Write the run file ``source`` without its duplicates (see the module docstring) to ``output``."""
    from rankmeter.io.output import output_file
    from rankmeter.io.parquet import is_parquet
    from rankmeter.io.source import load_bytes

    if isinstance(source, (str, bytes, os.PathLike)) and os.fsdecode(source) != "-":
        run = as_run(source, columns=columns, input_format=input_format)
        data, name = load_bytes(source)
    else:  # standard input or a stream: read once
        import io
        data, name = load_bytes(source)
        held = io.BytesIO(data)
        held.name = name
        run = as_run(held, columns=columns, input_format=input_format)
    kept = kept_rows(run, keep=keep)
    drop = np.ones(len(run), dtype=bool)
    drop[kept] = False
    if is_parquet(data):
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pq.read_table(pa.BufferReader(data))
        with output_file(output, inputs=inputs, mode="wb") as out:
            pq.write_table(table.take(pa.array(kept)), out)
        return Deduped(name, os.fsdecode(output), np.flatnonzero(drop).tolist(), len(kept))  # rows from 0
    if run.origin != "file":
        raise InputError("--dedupe copies the kept lines as they are, which this file's format has no lines for; "
                         "convert it to TREC text, CSV/TSV, JSON Lines or Parquet first", source=name)
    rows = np.arange(len(run))
    lines = run.lines if run.lines is not None else rows + 1
    removed = np.sort(lines[drop]).astype(np.int64)
    with output_file(output, inputs=inputs, mode="wb") as out:
        out.write(_without_lines(data, removed))
    return Deduped(name, os.fsdecode(output), removed.tolist(), len(kept))


def _without_lines(data: bytes, removed: np.ndarray) -> bytes:
    """``data`` without its lines numbered ``removed`` (1-based, ``\\n``-ended), every other byte kept."""
    if not len(removed):
        return data
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == ord("\n")) + 1  # end (exclusive) of each line
    starts = np.concatenate(([0], ends))
    if len(ends) == 0 or ends[-1] != len(data):
        ends = np.append(ends, len(data))  # a last line without its newline
    index = removed - 1
    keep = np.ones(len(ends), dtype=bool)
    keep[index] = False
    # whole kept stretches, copied as slices: no Python work per line
    change = np.flatnonzero(np.diff(np.concatenate(([0], keep.astype(np.int8), [0]))))
    pieces = [data[starts[a]:ends[b - 1]] for a, b in zip(change[::2], change[1::2])]
    return b"".join(pieces)
