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

import numpy as np
import pyarrow as pa

__all__ = ["arrow_columns", "first_data_line", "normalised_layout"]

_SPACE = b" \t\n\r\x0b\x0c"
_THREADED_BYTES = 4 << 20
_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c", b"   ")
_GRADE_BYTES = np.zeros(256, dtype=bool)
_GRADE_BYTES[list(b"0123456789-")] = True


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


def arrow_columns(data: bytes, kind: str):
    """Parse ``data`` with Arrow: (columns, line numbers or None), or None for the slow path.

    First as it is, when it is regular; else (or when that fails) as a
    normalised copy: LF line ends, one space between fields, blank and
    comment lines dropped (their numbers kept aside). None means the slow
    path must decide, and name the line of the problem.
    """
    layout = _regular_layout(data, kind)
    if layout is not None:
        parsed = _parse(*layout, kind)
        if parsed is not None:
            return parsed or None  # False: the layout is right but a value is bad
    layout = normalised_layout(data, kind)
    if layout is not None:
        return _parse(*layout, kind) or None
    return None


def _fields_fit(kind: str, nfields: int) -> bool:
    if kind == "any":
        return True
    return nfields == 4 if kind == "qrels" else nfields >= 6 or nfields in (2, 3)


def _regular_layout(data: bytes, kind: str):
    """(buffer, delimiter, field count, first line number, comment check) of a regular file, or None."""
    start, skipped, first = first_data_line(data)
    if not first or first[:1] in b" \t":
        return None
    if b"\t" in first:
        delimiter, other = b"\t", b" "
    else:
        delimiter, other = b" ", b"\t"
    fields = first.split(delimiter)
    if not _fields_fit(kind, len(fields)) or b"" in fields:
        return None
    nfields = len(fields)
    # Bytes the slow path treats as separators but Arrow would keep inside a field.
    for odd in (other, b"\x0b", b"\x0c"):
        if data.find(odd, start) >= 0:
            return None
    end = len(data)
    while end > start and data[end - 1] in _SPACE:
        end -= 1
    has_hash = data.find(b"#", start) >= 0
    return pa.py_buffer(data).slice(start, end - start), delimiter, nfields, skipped + 1, has_hash


def normalised_layout(data: bytes, kind: str):
    """The same for a normalised copy of ``data`` (whole-buffer operations only), or None."""
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
    nfields = len(data[: first_end if first_end >= 0 else end].split(b" "))
    if not _fields_fit(kind, nfields):
        return None
    return pa.py_buffer(data).slice(0, end), b" ", nfields, kept + 1, False


def _parse(buf: pa.Buffer, delimiter: bytes, nfields: int, first_line, has_hash: bool, kind: str):
    """Arrow's parse of a laid-out buffer, checked with whole-array operations.

    Returns (columns, line numbers or None); None when the layout is not
    what it seemed (another layout, or the slow path, must judge); False
    when the layout is right but a value is not (only the slow path can
    name its line).
    """
    import pyarrow.csv as pacsv

    names = [f"c{i}" for i in range(nfields)]
    types = {name: pa.binary() for name in names}
    if kind == "run" and nfields >= 6:
        types["c4"] = pa.float64()
    elif kind == "run" and nfields == 3:
        types["c2"] = pa.float64()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(buf),
            # Threads pay off only on big inputs (and a small read then starts no thread pool).
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24,
                                           use_threads=buf.size > _THREADED_BYTES),
            parse_options=pacsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False,
                                              double_quote=False, escape_char=False,
                                              newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None  # another number of fields, a blank line, a score that is no number...
    if isinstance(first_line, np.ndarray) and len(first_line) != table.num_rows:
        return None
    # Empty fields are runs of separators, blank lines or leading/trailing separators:
    # the field count the slow path sees differs, so let it judge.
    if any(table.column(name).null_count for name in names):
        return None
    if any(_empty_field(table.column(name)) for name, t in types.items() if t == pa.binary()):
        return None
    used = (0, 1) if nfields == 2 else (0, 2, 3) if kind == "qrels" else (0, 1, 2) if nfields == 3 else (0, 2, 4)
    cols = {i: table.column(names[i]).combine_chunks() for i in used}
    if has_hash and len(cols[0]):  # comment lines after the first data line
        qcol = cols[0]
        values = np.frombuffer(qcol.buffers()[2], dtype=np.uint8)
        offsets = np.frombuffer(qcol.buffers()[1], dtype=np.int32)[qcol.offset: qcol.offset + len(qcol)]
        if (values[offsets] == ord("#")).any():
            return None
    if kind == "qrels":
        cols[3] = _fast_grades(cols[3])
        if cols[3] is None:
            return False
    elif nfields == 3:
        if not np.isfinite(cols[2].to_numpy(zero_copy_only=False)).all():
            return False
    elif nfields >= 6:
        if not np.isfinite(cols[4].to_numpy(zero_copy_only=False)).all():
            return False
        cols[3] = table.column("c3")  # the rank field: only rankmeter check reads it
        cols[5] = table.column("c5")  # the run tag: evaluation reads its last value, check all of them
    if isinstance(first_line, np.ndarray):
        lines = first_line.astype(np.int64)
    else:
        lines = None if first_line == 1 else np.arange(first_line, first_line + table.num_rows, dtype=np.int64)
    return cols, lines


def _fast_grades(col: pa.Array) -> pa.Array | None:
    """Grades as int64 when every field is a plain decimal integer, else None."""
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
