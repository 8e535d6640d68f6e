"""TREC text formats: qrels (``query iter doc rel``) and runs (``query Q0 doc rank score tag``).

Two paths produce the same tables. The fast path hands a regular file (one
kind of separator, the same number of fields on every line, no comment or
blank line after the first data line) to Arrow's multi-threaded CSV reader
and checks the result with whole-array operations only. Anything else, and
any file the fast path finds a problem in, goes through the line-by-line
path, which accepts any mix of spaces and tabs, ``#`` comment lines, blank
lines and CR/CRLF line ends, and names the file and line of the first
problem it meets. The fast path never accepts a file the slow path rejects:
every check it skips is one whose failure sends the file down the slow path.

Lines are split as ``bytes.splitlines`` does (LF, CRLF or a lone CR ends a
line) and fields as ``bytes.split`` does (runs of ASCII whitespace, like
trec_eval's ``isspace``). Ids stay bytes, so any 8-bit encoding works.
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

PathOrFile = Union[str, bytes, "os.PathLike[str]", BinaryIO]

_INT = re.compile(rb"[+-]?[0-9]+")
_INT_PREFIX = re.compile(rb"[+-]?[0-9]*")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT64 = 2 ** 63
_SPACE = b" \t\n\r\x0b\x0c"
_LAYOUT = {"qrels": "query iter doc rel", "run": "query Q0 doc rank score tag", "ranked-list": "query doc"}

# Signatures of files that are not text: (magic bytes, what it is, what to do).
_MAGIC = (
    (b"PK\x03\x04", "a zip archive", "unzip it and pass the text file inside"),
    (b"BZh", "bzip2-compressed", "decompress it first (bunzip2), or re-compress it with gzip"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first (unxz), or re-compress it with gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first (unzstd), or re-compress it with gzip"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive", "extract the text file inside"),
    (b"PAR1", "a Parquet file", "load it with pandas/polars and pass the DataFrame"),
    (b"\xff\xfe", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"\xfe\xff", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"%PDF", "a PDF document", "pass the TREC text file instead"),
)
# Control bytes that never occur in text (whitespace \t \n \v \f \r excluded).
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[[*range(1, 9), *range(14, 32), 127]] = True
_GRADE_BYTES = np.zeros(256, dtype=bool)
_GRADE_BYTES[list(b"0123456789-")] = True


def load_bytes(source: PathOrFile) -> tuple[bytes, str]:
    """Read a whole input (path, ``-`` for stdin, or binary file object), un-gzipped.

    Returns the bytes and a name for messages. Gzip is recognised by its
    magic bytes, whatever the file is called; a UTF-8 byte-order mark is dropped.
    """
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        try:
            data = source.read()
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot be read ({exc})", source=name) from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InputError(f"read() returned a {type(data).__name__}; pass a binary file object",
                             source=name)
        data = bytes(data)
    else:
        name = os.fsdecode(source)
        if name == "-":
            name = "<stdin>"
            if sys.stdin is None:
                raise InputError("there is no standard input to read; pass a file name", source=name)
            stream = getattr(sys.stdin, "buffer", sys.stdin)
            data = stream.read()
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogateescape")
        elif isinstance(source, str) and ("\n" in source or len(source) > 4096):
            raise InputError("got text, not a file name; pass the path of the file, or the text "
                             "as io.BytesIO(text.encode())", source="<str>")
        else:
            try:
                with open(source, "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:
                raise InputError("no such file; check the path", source=name) from None
            except IsADirectoryError:
                raise InputError("is a directory; pass the qrels or run file inside it", source=name) from None
            except PermissionError:
                raise InputError("permission denied; check the file's permissions", source=name) from None
            except OSError as exc:
                raise InputError(f"cannot be read ({exc.strerror or exc})", source=name) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise InputError("the gzip data is truncated (the file ends early); re-create or "
                             "re-download the file", source=name) from None
        except (OSError, zlib.error) as exc:
            raise InputError(f"broken gzip data ({exc}); re-create or re-download the file",
                             source=name) from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data, name


def _check_text(data: bytes, name: str) -> None:
    """Refuse empty input and input that is not text at all (both paths run this)."""
    if not data or data.isspace():
        raise InputError("the file is empty; expected TREC lines", source=name)
    for magic, what, todo in _MAGIC:
        if data.startswith(magic):
            raise InputError(f"this is {what}, not a TREC text file; {todo}", source=name)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        head = data[:512]
        for zeros, other in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
            if zeros.count(0) * 2 > len(zeros) and other.count(0) == 0:
                raise InputError("looks like UTF-16 text (every other byte is NUL); save it as UTF-8 "
                                 "or ASCII", source=name)
        raise InputError("binary data (a NUL byte), not a TREC text file; check that this is the "
                         "right file", source=name, line=line)
    sample = np.frombuffer(data, dtype=np.uint8, count=min(len(data), 1 << 16))
    control = _CONTROL[sample]
    if control.sum() * 100 > len(sample):  # over 1%: no text file looks like this
        first = int(np.argmax(control))
        raise InputError(f"binary data (control byte 0x{sample[first]:02x} and many more), not a TREC "
                         "text file; check that this is the right file",
                         source=name, line=data.count(b"\n", 0, first) + 1)


def _excerpt(raw: bytes) -> str:
    text = decode_id(raw.strip())
    return repr(text if len(text) <= 60 else text[:57] + "...")


# ---------------------------------------------------------------- fast path

def _first_data_line(data: bytes) -> tuple[int, int, bytes]:
    """(byte offset, number of lines before it, the line) of the first non-blank, non-comment line."""
    pos = skipped = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        cr = data.find(b"\r", pos, end)
        end = cr if cr >= 0 else end
        line = data[pos:end]
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return pos, skipped, line
        pos = end + (2 if data[end:end + 2] == b"\r\n" else 1)
        skipped += 1
    return n, skipped, b""


def _empty_field(col: pa.ChunkedArray) -> bool:
    for chunk in col.chunks:
        off = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset: chunk.offset + len(chunk) + 1]
        if len(chunk) and (off[1:] == off[:-1]).any():
            return True
    return False


def _arrow_columns(data: bytes, kind: str):
    """Parse a regular ``data`` with Arrow: (columns, line numbers or None), or None.

    None means "not regular or not valid": the slow path decides and reports.
    """
    import pyarrow.csv as pacsv

    start, skipped, first = _first_data_line(data)
    if not first or first[:1] in b" \t":
        return None
    if b"\t" in first:
        delimiter, other = b"\t", b" "
    else:
        delimiter, other = b" ", b"\t"
    nfields = len(first.split(delimiter))
    if kind == "qrels" and nfields != 4 or kind == "run" and nfields < 6 and nfields != 2:
        return None
    # Bytes the slow path treats as separators but Arrow would keep inside a field.
    for odd in (other, b"\x0b", b"\x0c"):
        if data.find(odd, start) >= 0:
            return None
    end = len(data)
    while end > start and data[end - 1] in _SPACE:
        end -= 1
    names = [f"c{i}" for i in range(nfields)]
    types = {name: pa.binary() for name in names}
    if kind == "run" and nfields >= 6:
        types["c4"] = pa.float64()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(data).slice(start, end - start)),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None
    # Empty fields are runs of separators, blank lines or leading/trailing separators:
    # the field count the slow path sees differs, so let it judge.
    if any(table.column(name).null_count for name in names):
        return None
    if any(_empty_field(table.column(name)) for name, t in types.items() if t == pa.binary()):
        return None
    used = (0, 1) if nfields == 2 else (0, 2, 3) if kind == "qrels" else (0, 2, 4)
    cols = {i: table.column(names[i]).combine_chunks() for i in used}
    if kind == "run" and nfields >= 6:
        cols[5] = table.column("c5")  # only its last value is used: the run tag
    if data.find(b"#", start) >= 0 and len(cols[0]):  # comment lines after the first data line
        qcol = cols[0]
        values = np.frombuffer(qcol.buffers()[2], dtype=np.uint8)
        offsets = np.frombuffer(qcol.buffers()[1], dtype=np.int32)[qcol.offset: qcol.offset + len(qcol)]
        if (values[offsets] == ord("#")).any():
            return None
    lines = None if skipped == 0 else np.arange(skipped + 1, skipped + 1 + table.num_rows, dtype=np.int64)
    return cols, lines


def _fast_grades(col: pa.Array) -> pa.Array | None:
    """Grades as int64 when every field is a plain decimal integer, else None."""
    values = np.frombuffer(col.buffers()[2], dtype=np.uint8)
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32)[col.offset: col.offset + len(col) + 1]
    values = values[offsets[0]: offsets[-1]]
    if not _GRADE_BYTES[values].all():
        return None  # '+', '.', hex digits, ...: the slow path decides
    minus = np.flatnonzero(values == ord("-"))
    if len(minus):
        starts = offsets[:-1] - offsets[0]
        if not np.isin(minus, starts).all():
            return None
    try:
        return col.cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a lone '-', or out of the int64 range


# ---------------------------------------------------------------- slow path

def _split_lines(data: bytes, name: str, nfields: int, exact: bool, what: str):
    """Yield (line_number, fields) of every non-blank, non-comment line, checking the count."""
    for number, raw in enumerate(data.splitlines(), 1):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < nfields or (exact and len(fields) > nfields):
            need = f"exactly {nfields}" if exact else f"at least {nfields}"
            raise InputError(f"{len(fields)} field{'s' * (len(fields) != 1)} where a {what} line has "
                             f"{need} ({_LAYOUT[what]}): {_excerpt(raw)}; {_hint(what, fields)}",
                             source=name, line=number)
        yield number, fields


def _hint(what: str, fields: list[bytes]) -> str:
    if len(fields) == 1 and (b"," in fields[0] or b";" in fields[0]):
        return "this looks comma-separated; TREC files separate fields with spaces or tabs"
    if what == "qrels" and len(fields) >= 6:
        return "this looks like a run line; check the argument order (qrels first, then the run)"
    if what == "run" and len(fields) == 4:
        return "this looks like a qrels line; check the argument order (qrels first, then the run)"
    return "fix or remove the line"


def _binary(values: list[bytes]) -> pa.Array:
    return pa.array(values, type=pa.binary())


def _slow_grade(grade: bytes, truncate: bool, name: str, number: int) -> int:
    if _INT.fullmatch(grade):
        value = int(grade)
    elif truncate and _FLOAT.fullmatch(grade):
        digits = _INT_PREFIX.match(grade).group()  # C atol: the leading integer part
        value = int(digits) if digits.strip(b"+-") else 0
    elif _FLOAT.fullmatch(grade):
        raise InputError(f"grade {decode_id(grade)!r} is not an integer (trec_eval would silently "
                         "truncate it toward zero; fix the grade, or pass truncate_grades=True "
                         "to do the same)", source=name, line=number)
    else:
        raise InputError(f"grade {decode_id(grade)!r} is not an integer (field 4 of query iter doc rel); "
                         "grades are integers such as 0, 1, 2", source=name, line=number)
    if not -_INT64 <= value < _INT64:
        raise InputError(f"grade {decode_id(grade)} is out of range; grades are small integers",
                         source=name, line=number)
    return value


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

    Raises
    ------
    InputError
        Naming the file and line of the first problem.
    """
    data, name = load_bytes(source)
    _check_text(data, name)
    parsed = _arrow_columns(data, "qrels")
    if parsed is not None:
        cols, lines = parsed
        grades = _fast_grades(cols[3])
        if grades is not None:
            table = pa.table({"query": cols[0], "doc": cols[2], "rel": grades})
            return Qrels(table, name, lines)
    queries, docs, rels, lines = [], [], [], []
    for number, fields in _split_lines(data, name, 4, True, "qrels"):
        rels.append(_slow_grade(fields[3], truncate_grades, name, number))
        queries.append(fields[0])
        docs.append(fields[2])
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

    Raises
    ------
    InputError
        Naming the file and line of the first problem.
    """
    data, name = load_bytes(source)
    _check_text(data, name)
    parsed = _arrow_columns(data, "run")
    if parsed is not None:
        cols, lines = parsed
        if len(cols) == 2:
            return _ranked(cols[0], cols[1], name, lines)
        scores = cols[4].to_numpy(zero_copy_only=False)
        if np.isfinite(scores).all():
            table = pa.table({"query": cols[0], "doc": cols[2], "score": cols[4]})
            return Run(table, name, lines, tag=cols[5][-1].as_py())
    first = _first_data_line(data)[2].split()
    if len(first) == 2:
        queries, docs, lines = [], [], []
        for number, fields in _split_lines(data, name, 2, True, "ranked-list"):
            queries.append(fields[0])
            docs.append(fields[1])
            lines.append(number)
        return _ranked(_binary(queries), _binary(docs), name, np.asarray(lines, dtype=np.int64))
    queries, docs, scores, lines = [], [], [], []
    tag = b""
    for number, fields in _split_lines(data, name, 6, False, "run"):
        text = fields[4]
        value = float(text) if _FLOAT.fullmatch(text) else None
        if value is None or not np.isfinite(value):
            raise InputError(f"score {decode_id(text)!r} is not a finite number (field 5 of "
                             f"{_LAYOUT['run']}); fix the score", source=name, line=number)
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


def _ranked(queries: pa.Array, docs: pa.Array, name: str, lines: np.ndarray | None) -> Run:
    """``query doc`` per line; the line order within a query is the ranking."""
    table = pa.table({"query": queries, "doc": docs,
                      "score": pa.array(np.zeros(len(queries)), type=pa.float64())})
    return Run(table, name, lines, tag=b"", ranked=True)
