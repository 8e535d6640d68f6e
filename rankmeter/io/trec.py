"""TREC text formats: qrels (``query iter doc rel``) and runs (``query Q0 doc rank score tag``).

Two paths produce the same tables. The fast path hands a regular file (one
kind of separator, no comments, nothing odd) to Arrow's multi-threaded CSV
reader. Anything else, and any file the fast path finds a problem in, goes
through the line-by-line path, which accepts any mix of spaces and tabs,
``#`` comment lines, blank lines and CRLF, and names the file and line of the
first problem it meets.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import sys
import zlib
from typing import BinaryIO, Union

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..tables import Qrels, Run, decode_id

__all__ = ["read_qrels", "read_run", "load_bytes"]

PathOrFile = Union[str, "os.PathLike[str]", BinaryIO]

_INT = re.compile(rb"[+-]?[0-9]+")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def load_bytes(source: PathOrFile) -> tuple[bytes, str]:
    """Read a whole input (path, ``-`` for stdin, or binary file object), un-gzipped.

    Returns the bytes and a name for messages.
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", "<stream>")
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        name = os.fspath(source)
        if name == "-":
            name, data = "<stdin>", sys.stdin.buffer.read()
        else:
            try:
                with open(name, "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:
                raise InputError("no such file; check the path", source=name) from None
            except IsADirectoryError:
                raise InputError("is a directory, not a file", source=name) from None
            except OSError as exc:
                raise InputError(f"cannot be read ({exc.strerror})", source=name) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"broken gzip data ({exc}); re-create or re-download the file",
                             source=str(name)) from None
    return data, str(name)


def _check_text(data: bytes, name: str) -> None:
    if not data.strip():
        raise InputError("the file is empty; expected TREC lines", source=name)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError("binary data (a NUL byte), not a TREC text file",
                         source=name, line=data.count(b"\n", 0, nul) + 1)


# ---------------------------------------------------------------- fast path

def _arrow_columns(data: bytes, nfields: int, types: dict[int, pa.DataType]):
    """Parse ``data`` with Arrow when it is regular; None when the slow path must decide."""
    import pyarrow.csv as pacsv

    first = data[: data.find(b"\n")] if b"\n" in data else data
    first = first.rstrip(b"\r")
    if b"\t" in first and b" " not in first:
        delimiter = "\t"
    elif b" " in first and b"\t" not in first:
        delimiter = " "
    else:
        return None
    if first[:1] in (b"#", b" ", b"\t"):
        return None
    names = [f"c{i}" for i in range(nfields)]
    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types={names[i]: t for i, t in types.items()},
                include_columns=[names[i] for i in sorted(types)],
                null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None
    cols = {}
    for i in sorted(types):
        col = table.column(names[i]).combine_chunks()
        if col.null_count:
            return None
        if pa.types.is_binary(col.type):
            offsets = np.frombuffer(col.buffers()[1], dtype=np.int32)[col.offset: col.offset + len(col) + 1]
            if len(col) and (np.diff(offsets) == 0).any():
                return None  # an empty field: runs of separators
        cols[i] = col
    first_col = cols[min(cols)]
    if len(first_col):
        values = np.frombuffer(first_col.buffers()[2] or b"", dtype=np.uint8)
        offsets = np.frombuffer(first_col.buffers()[1], dtype=np.int32)[first_col.offset: first_col.offset + len(first_col)]
        if len(values) and (values[offsets] == ord("#")).any():
            return None  # comment lines
    return cols


# ---------------------------------------------------------------- slow path

def _split_lines(data: bytes, name: str, nfields: int, exact: bool, what: str):
    """Yield (line_number, fields) of every non-blank, non-comment line, checking the count."""
    for number, raw in enumerate(data.split(b"\n"), 1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < nfields or (exact and len(fields) > nfields):
            need = f"exactly {nfields}" if exact else f"at least {nfields}"
            raise InputError(f"{len(fields)} fields where a {what} line has {need} "
                             f"({'query iter doc rel' if what == 'qrels' else 'query Q0 doc rank score tag'})",
                             source=name, line=number)
        yield number, fields


def _binary(values: list[bytes]) -> pa.Array:
    return pa.array(values, type=pa.binary())


# ---------------------------------------------------------------- public readers

def read_qrels(source: PathOrFile, *, truncate_grades: bool = False) -> Qrels:
    """Read TREC qrels: ``query iter doc rel`` per line, exactly four fields.

    Parameters
    ----------
    source : path, ``"-"`` or binary file object
        The file; gzip is detected by its magic bytes.
    truncate_grades : bool, default False
        trec_eval reads grades with ``atol``, so ``1.7`` silently becomes 1.
        By default such a grade is an error; True truncates like trec_eval.

    Returns
    -------
    Qrels
    """
    data, name = load_bytes(source)
    _check_text(data, name)
    cols = _arrow_columns(data, 4, {0: pa.binary(), 2: pa.binary(), 3: pa.int64()})
    if cols is not None:
        table = pa.table({"query": cols[0], "doc": cols[2], "rel": cols[3]})
        return Qrels(table, name)
    queries, docs, rels, lines = [], [], [], []
    for number, fields in _split_lines(data, name, 4, True, "qrels"):
        grade = fields[3]
        if _INT.fullmatch(grade):
            value = int(grade)
        elif truncate_grades and _FLOAT.fullmatch(grade):
            value = int(float(grade))
        else:
            raise InputError(f"grade {decode_id(grade)!r} is not an integer (trec_eval would "
                             "silently truncate it; pass truncate_grades=True to do the same)",
                             source=name, line=number)
        queries.append(fields[0])
        docs.append(fields[2])
        rels.append(value)
        lines.append(number)
    if not queries:
        raise InputError("no judgments: only comments or blank lines", source=name)
    table = pa.table({"query": _binary(queries), "doc": _binary(docs),
                      "rel": pa.array(rels, type=pa.int64())})
    return Qrels(table, name, np.asarray(lines, dtype=np.int64))


def read_run(source: PathOrFile) -> Run:
    """Read a TREC run: ``query Q0 doc rank score tag`` per line (extra fields ignored).

    The rank column is ignored; documents are ordered by score (see
    :func:`rankmeter.engine.build_batch`). A file of two fields per line,
    ``query doc``, is a ranked list without scores: its line order is the
    ranking.

    Parameters
    ----------
    source : path, ``"-"`` or binary file object

    Returns
    -------
    Run
    """
    data, name = load_bytes(source)
    _check_text(data, name)
    cols = _arrow_columns(data, 6, {0: pa.binary(), 2: pa.binary(), 4: pa.float64(), 5: pa.binary()})
    if cols is not None:
        scores = cols[4].to_numpy(zero_copy_only=False)
        if np.isfinite(scores).all():
            table = pa.table({"query": cols[0], "doc": cols[2], "score": cols[4]})
            return Run(table, name, tag=cols[5][-1].as_py())
    first = next(_first_fields(data), None)
    if first is not None and len(first) == 2:
        return _read_ranked(data, name)
    queries, docs, scores, lines = [], [], [], []
    tag = b""
    for number, fields in _split_lines(data, name, 6, False, "run"):
        text = fields[4]
        value = float(text) if _FLOAT.fullmatch(text) else None
        if value is None or not np.isfinite(value):
            raise InputError(f"score {decode_id(text)!r} is not a finite number", source=name, line=number)
        queries.append(fields[0])
        docs.append(fields[2])
        scores.append(value)
        lines.append(number)
        tag = fields[5]
    if not queries:
        raise InputError("no results: only comments or blank lines", source=name)
    table = pa.table({"query": _binary(queries), "doc": _binary(docs),
                      "score": pa.array(scores, type=pa.float64())})
    return Run(table, name, np.asarray(lines, dtype=np.int64), tag=tag)


def _first_fields(data: bytes):
    for raw in data.split(b"\n", 50):
        fields = raw.split()
        if fields and not fields[0].startswith(b"#"):
            yield fields


def _read_ranked(data: bytes, name: str) -> Run:
    """``query doc`` per line; the line order within a query is the ranking."""
    queries, docs, lines = [], [], []
    for number, fields in _split_lines(data, name, 2, True, "ranked-list"):
        queries.append(fields[0])
        docs.append(fields[1])
        lines.append(number)
    table = pa.table({"query": _binary(queries), "doc": _binary(docs),
                      "score": pa.array(np.zeros(len(queries)), type=pa.float64())})
    return Run(table, name, np.asarray(lines, dtype=np.int64), tag=b"", ranked=True)
