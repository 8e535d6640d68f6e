"""The Arrow paths of the TREC readers: whole-buffer checks, no per-line Python work.

:func:`arrow_columns` tries two layouts. A *regular* file (one kind of
separator, the same number of fields on every data line, no blank or
comment line after the first data line) goes to Arrow's multi-threaded CSV
reader as it is. Otherwise a *normalised* copy is made with whole-buffer
operations (LF line ends, one space between fields, blank and comment lines
dropped and their numbers kept) and parsed the same way. Whatever either
path cannot vouch for makes it return None, and the caller's line-by-line
path judges and names the line: a file is never accepted here that the
line-by-line path would reject, and never read differently.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pyarrow is imported where it is used: TREC text read by the compiled reader never loads it
    import pyarrow as pa

__all__ = ["arrow_columns", "first_data_line", "normalised_layout", "fields_fit", "parse_layout", "FileSpan",
           "delimited_fields", "MAX_ARROW_FIELDS", "BOM"]

_SPACE = b" \t\n\r\x0b\x0c"
#: Arrow's CSV reader builds a column per field: a line of more fields than this (extra run fields are
#: allowed, a 6 MB line may hold 3M of them) goes to the line-by-line path, which splits off only the
#: fields it uses (Arrow's schema of 3M columns took 5.4 GB and aborted with std::bad_alloc)
MAX_ARROW_FIELDS = 64
#: A UTF-8 byte-order mark. Arrow's CSV reader drops one at the start of what it reads; rankmeter drops
#: it only at byte 0 of an input (as an encoding mark), anywhere else it is part of an id, as trec_eval
#: reads the bytes: a buffer or range that would start with one is left to the line-by-line path
BOM = b"\xef\xbb\xbf"
_THREADED_BYTES = 4 << 20
# Arrow's parse blocks: small ones keep its transient buffers small and both cores busy
_BLOCK_BYTES = 4 << 20
_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c", b"   ")
_GRADE_BYTES = np.zeros(256, dtype=bool)
_GRADE_BYTES[list(b"0123456789-")] = True
_REAL_GRADE_BYTES = np.zeros(256, dtype=bool)
_REAL_GRADE_BYTES[list(b"0123456789-+.eE")] = True


@dataclass(frozen=True)
class FileSpan:
    """A laid-out part of a file on disk (``size`` bytes from ``offset`` to the end) for Arrow to read."""

    path: str
    offset: int
    size: int
    newline: bytes = b"\n"   # the byte lines end with (a lone CR in old Mac files)


def first_data_line(data: bytes) -> tuple[int, int, bytes]:
    """(byte offset, number of lines before it, the line) of the first non-blank, non-comment line."""
    pos = skipped = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        cr = data.find(b"\r", pos, end)
        end = cr if cr >= 0 else end
        line = data[pos:end]
        text = line.lstrip(_SPACE)  # the first field, without splitting a line of millions of them
        if text and not text.startswith(b"#"):
            return pos, skipped, line
        pos = end + (2 if data[end:end + 2] == b"\r\n" else 1)
        skipped += 1
    return n, skipped, b""


def arrow_columns(data: bytes, kind: str, *, run_fields: bool = False, grades: str = "integer"):
    """Parse ``data`` with Arrow: (columns, line numbers or None), or None for the slow path.

    First as it is, when it is regular; else (or when that fails) as a
    normalised copy: LF line ends, one space between fields, blank and
    comment lines dropped (their numbers kept aside). None means the slow
    path must decide, and name the line of the problem. ``run_fields=True``
    also keeps a six-field run's rank and tag fields, as columns ``"rank"``
    and ``"tags"`` (for :mod:`rankmeter.analyses.check`).
    """
    layout = _regular_layout(data, kind)
    if layout is not None:
        parsed = parse_layout(*layout, kind, run_fields=run_fields, grades=grades)
        if parsed is not None:
            return parsed or None  # False: the layout is right but a value is bad
    layout = normalised_layout(data, kind)
    if layout is not None:
        return parse_layout(*layout, kind, run_fields=run_fields, grades=grades) or None
    return None


def fields_fit(kind: str, nfields: int) -> bool:
    if kind == "any":
        return True
    return nfields == 4 if kind == "qrels" else nfields >= 6 or nfields in (2, 3)


def _regular_layout(data: bytes, kind: str):
    """(buffer, delimiter, field count, first line number, comment check) of a regular file, or None."""
    import pyarrow as pa
    start, skipped, first = first_data_line(data)
    if not first or first[:1] in b" \t" or first.startswith(BOM):
        return None
    if b"\t" in first:
        delimiter, other = b"\t", b" "
    else:
        delimiter, other = b" ", b"\t"
    nfields = delimited_fields(first, delimiter)
    if nfields is None or not fields_fit(kind, nfields):
        return None
    # Bytes the slow path treats as separators but Arrow would keep inside a field.
    for odd in (other, b"\x0b", b"\x0c"):
        if data.find(odd, start) >= 0:
            return None
    end = len(data)
    while end > start and data[end - 1] in _SPACE:
        end -= 1
    has_hash = data.find(b"#", start) >= 0
    return pa.py_buffer(data).slice(start, end - start), delimiter, nfields, skipped + 1, has_hash


def delimited_fields(line: bytes, delimiter: bytes) -> int | None:
    """The fields of ``line`` split at ``delimiter``; None when one is empty (a run of separators, a leading
    or trailing one) or there are more than :data:`MAX_ARROW_FIELDS` (counted, never split)."""
    nfields = line.count(delimiter) + 1
    if nfields > MAX_ARROW_FIELDS or delimiter * 2 in line or line.startswith(delimiter) or \
            line.endswith(delimiter):
        return None
    return nfields


def normalised_layout(data: bytes, kind: str):
    """The same for a normalised copy of ``data`` (whole-buffer operations only), or None."""
    import pyarrow as pa
    first = first_data_line(data)[2].split(None, MAX_ARROW_FIELDS)
    if not first or kind != "any" and (len(first) > MAX_ARROW_FIELDS or not fields_fit(kind, len(first))
                                       or first[0].startswith(BOM)):
        return None  # the whole-buffer copies of a file that cannot fit are not made (8 bytes a line each)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")  # splitlines' line ends
    if any(odd in data for odd in (b"\t", b"\x0b", b"\x0c")):
        data = data.translate(_TO_SPACE)
    while True:  # runs of spaces -> one space (each pass halves them)
        collapsed = data.replace(b"  ", b" ")
        if len(collapsed) == len(data):
            break
        data = collapsed
    n = len(data)
    if not n:
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(arr == ord("\n"))
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [n]))
    lead = (starts < ends) & (arr[np.minimum(starts, n - 1)] == ord(" "))
    trail = (ends > starts + lead) & (arr[np.maximum(ends - 1, 0)] == ord(" "))
    begin = starts + lead
    drop = begin >= ends - trail
    drop |= arr[np.minimum(begin, n - 1)] == ord("#")
    kept = np.flatnonzero(~drop)
    if not len(kept):
        return None
    if drop.any() or lead.any() or trail.any():
        keep = np.repeat(~drop, ends - starts + 1)[:n]  # a dropped line goes with its line end
        keep[starts[lead]] = False
        keep[ends[trail] - 1] = False
        data = arr[keep].tobytes()
    end = len(data)
    while end and data[end - 1] in _SPACE:
        end -= 1
    first_end = data.find(b"\n", 0, end)
    nfields = data.count(b" ", 0, first_end if first_end >= 0 else end) + 1
    if not fields_fit(kind, nfields):
        return None
    return pa.py_buffer(data).slice(0, end), b" ", nfields, kept + 1, False


def _schema(nfields: int, kind: str) -> tuple[list[str], dict]:
    import pyarrow as pa
    names = [f"c{i}" for i in range(nfields)]
    types = {name: pa.binary() for name in names}
    if kind == "run" and nfields >= 6:
        types["c4"] = pa.float64()
    elif kind == "run" and nfields == 3:
        types["c2"] = pa.float64()
    return names, types


def _csv_options(names: list[str], types: dict, delimiter: bytes, *, threads: bool,
                 block_bytes: int = _BLOCK_BYTES) -> dict:
    import pyarrow.csv as pacsv

    return dict(
        read_options=pacsv.ReadOptions(column_names=names, block_size=block_bytes, use_threads=threads),
        parse_options=pacsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False, double_quote=False,
                                         escape_char=False, newlines_in_values=False, ignore_empty_lines=False),
        # an empty field (a run of separators, a blank line, a leading or trailing separator) becomes a
        # null as Arrow converts it, so checking for empties costs a null count, not a pass over offsets
        convert_options=pacsv.ConvertOptions(column_types=types, null_values=[""], strings_can_be_null=True,
                                             quoted_strings_can_be_null=False),
    )


def checked_fields(table: "pa.Table | pa.RecordBatch") -> bool:
    """No empty field in any column (read as nulls by :func:`_csv_options`): empty fields are runs of
    separators, blank lines or leading/trailing separators, where the field count the slow path sees
    differs, so it must judge."""
    return not any(column.null_count for column in table.columns)


def _read_buffer(buf: pa.Buffer, options: dict) -> "pa.Table | None":
    """Arrow's parse of a whole laid-out buffer, its fields checked; None when it does not fit."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(pa.BufferReader(buf), **options)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None  # another number of fields, a blank line, a score that is no number...
    return table if checked_fields(table) else None


def parse_layout(buf: "pa.Buffer | FileSpan", delimiter: bytes, nfields: int, first_line, has_hash: bool, kind: str,
                 *, run_fields: bool = False, grades: str = "integer", read_span=None, span_block: int = 0):
    """Arrow's parse of a laid-out buffer, checked with whole-array operations.

    ``grades`` is the qrels' grade policy: ``"real"`` reads float64 grades. A :class:`FileSpan` is read
    by ``read_span`` in Arrow blocks of ``span_block`` bytes (:func:`rankmeter.io.direct.read_span`, which
    passes itself: this module stays below the direct reader).

    Returns (columns, line numbers or None); None when the layout is not
    what it seemed (another layout, or the slow path, must judge); False
    when the layout is right but a value is not (only the slow path can
    name its line).
    """
    import pyarrow as pa
    names, types = _schema(nfields, kind)
    used = (0, 1) if nfields == 2 else (0, 1, 2, 3) if kind == "qrels" else (0, 1, 2) if nfields == 3 else (0, 2, 4)
    tag = None
    if isinstance(buf, FileSpan):
        # a run keeps small blocks (its unused fields are dropped block by block); qrels keep every
        # field anyway, and Arrow parses larger blocks faster (a 10M-line qrels: 1.4 -> 0.5 s)
        block = span_block if kind == "run" else 4 * span_block
        options = _csv_options(names, types, delimiter, threads=False, block_bytes=block)
        table, tag = read_span(buf, options, [names[i] for i in used])
    else:
        table = _read_buffer(buf, _csv_options(names, types, delimiter, threads=buf.size > _THREADED_BYTES))
    if table is None:
        return None
    if kind == "run" and nfields >= 6 and tag is None:
        tag = table.column("c5")[-1].as_py()  # trec_eval keeps the last line's tag
    if isinstance(first_line, np.ndarray) and len(first_line) != table.num_rows:
        return None
    cols = {i: table.column(names[i]) for i in used}
    if run_fields and kind == "run" and nfields >= 6 and not isinstance(buf, FileSpan):
        cols["rank"], cols["tags"] = table.column("c3"), table.column("c5")
    num_rows = table.num_rows
    del table
    if kind == "qrels":  # small: one chunk each. A run's columns stay in Arrow's blocks (joining them
        for i in list(cols):  # would copy a big file's columns); one column at a time keeps the peak low
            cols[i] = cols[i].combine_chunks()
    if has_hash and any(_starts_with_hash(chunk) for chunk in pa.chunked_array(cols[0]).chunks):
        return None  # comment lines after the first data line
    if kind == "qrels":
        cols[3] = _fast_grades(cols[3]) if grades != "real" else _real_grades(cols[3])
        if cols[3] is None:
            return False
    elif nfields == 3:
        if not np.isfinite(cols[2].to_numpy(zero_copy_only=False)).all():
            return False
    elif nfields >= 6:
        if not np.isfinite(cols[4].to_numpy(zero_copy_only=False)).all():
            return False
        cols[5] = tag
    if isinstance(first_line, np.ndarray):
        lines = first_line.astype(np.int64)
    else:
        lines = None if first_line == 1 else np.arange(first_line, first_line + num_rows, dtype=np.int64)
    return cols, lines


def _starts_with_hash(chunk: pa.Array) -> bool:
    values = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset: chunk.offset + len(chunk)]
    return bool(len(offsets)) and bool((values[offsets] == ord("#")).any())


def _real_grades(col: pa.Array) -> pa.Array | None:
    """Grades as float64 when every field is a finite decimal number, else None (the slow path names it)."""
    import pyarrow as pa
    values = np.frombuffer(col.buffers()[2], dtype=np.uint8)
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32)[col.offset: col.offset + len(col) + 1]
    if not _REAL_GRADE_BYTES[values[offsets[0]: offsets[-1]]].all():
        return None  # 'nan', 'inf', hex ...: the slow path decides
    try:
        out = col.cast(pa.string()).cast(pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return out if np.isfinite(out.to_numpy(zero_copy_only=False)).all() else None


def _fast_grades(col: pa.Array) -> pa.Array | None:
    """Grades as int64 when every field is a plain decimal integer, else None."""
    import pyarrow as pa
    values = np.frombuffer(col.buffers()[2], dtype=np.uint8)
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32)[col.offset: col.offset + len(col) + 1]
    values = values[offsets[0]: offsets[-1]]
    if not _GRADE_BYTES[values].all():
        return None  # '+', '.', hex digits, ...: the slow path decides
    minus = np.flatnonzero(values == ord("-"))
    if len(minus) and not np.isin(minus, offsets[:-1] - offsets[0]).all():
        return None
    try:
        return col.cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a lone '-', or out of the int64 range
