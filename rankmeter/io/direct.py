"""A large plain TREC file parsed by Arrow straight from disk, never held whole in memory.

The bytes path (:func:`rankmeter.io.arrow_path.arrow_columns`) reads a file
into one Python ``bytes`` and hands Arrow a view of it: peak memory is the
file plus its columns. For a big uncompressed file named by path, this
module instead scans it once in blocks (the same whole-buffer checks the
bytes path makes on a regular layout, block by block), then lets Arrow read
the file itself. Anything the scan cannot vouch for (compression, another
format, comment or blank lines inside, odd separators, a NUL byte, trailing
blank lines...) returns None and the caller reads the bytes as before, so a
file is never read differently here, only with less memory.
"""
from __future__ import annotations

import io
import os

from rankmeter.io.arrow_path import (
    BOM, FileSpan, checked_fields, delimited_fields, first_data_line, fields_fit, parse_layout,
)
from rankmeter.io.detect import detect
from rankmeter.io.inputs import open_input
from rankmeter.io.parquet import is_parquet
from rankmeter.errors import RankmeterError
from rankmeter.io.source import check_text, compression_of

__all__ = ["direct_columns", "read_span", "DIRECT_MIN_BYTES"]

#: files at least this big go the direct way (smaller ones gain nothing from it)
DIRECT_MIN_BYTES = 16 << 20
_BLOCK = 8 << 20
#: Arrow's streamed blocks: small ones keep the allocator's retained memory small (measured: 256 KiB
#: blocks peak near 310 MiB on the 7M-line bench, 2 MiB ones near 470; the time is about the same)
STREAM_BLOCK_BYTES = 512 << 10
_HEAD = 1 << 16
_SPACE = b" \t\n\r\x0b\x0c"


def direct_columns(source, kind: str, format: str, columns, grades: str = "integer") -> tuple | None:
    """``arrow_columns``'s answer for the file ``source`` read by Arrow from disk, or None (read the bytes)."""
    if columns or format not in ("auto", "trec") or not isinstance(source, (str, os.PathLike)):
        return None
    path = os.fsdecode(source)
    if path == "-":
        return None
    try:
        size = os.path.getsize(path)
        if size < DIRECT_MIN_BYTES:
            return None
        with open_input(path, "rb") as fh:
            return _scan(fh, path, size, kind, format, grades)
    except OSError:
        return None  # the bytes path opens it again and names the problem


def _scan(fh, path: str, size: int, kind: str, format: str, grades: str):
    head = fh.read(_HEAD)
    if compression_of(head) is not None or is_parquet(head):
        return None
    skip = 3 if head[:3] == b"\xef\xbb\xbf" else 0
    head = head[skip:]
    try:
        check_text(head, path)
        if detect(head, path, format) != ("trec", False):
            return None
    except RankmeterError:  # not text, or not TREC: the bytes path reports it properly
        return None
    start, skipped, first = first_data_line(head)
    if not first or first[:1] in b" \t" or (head.find(b"\n", start) < 0 and head.find(b"\r", start) < 0) \
            or first.startswith(BOM):
        return None  # the first data line must stand whole in the head; Arrow would drop a BOM starting it
    delimiter, other = (b"\t", b" ") if b"\t" in first else (b" ", b"\t")
    nfields = delimited_fields(first, delimiter)
    if nfields is None or not fields_fit(kind, nfields):
        return None
    # Bytes the slow path treats as separators but Arrow would keep inside a field, and NUL (binary data).
    # Empty fields need no scan: Arrow builds every field and the parse checks them.
    odd = (other, b"\x0b", b"\x0c", b"\x00")
    has_hash = False
    offset = skip + start
    fh.seek(offset)
    tail = b""
    while True:
        block = fh.read(_BLOCK)
        if not block:
            break
        if any(block.find(byte) >= 0 for byte in odd):
            return None
        has_hash = has_hash or b"#" in block
        tail = (tail + block[-8:])[-8:]
    # Arrow reads to the end of the file: allow nothing after the last line but its line end
    stripped = tail.rstrip(_SPACE)
    if not stripped or tail[len(stripped):] not in (b"", b"\n", b"\r\n", b"\r"):
        return None
    span = FileSpan(path, offset, size - offset, b"\n" if b"\n" in head else b"\r")
    return parse_layout(span, delimiter, nfields, skipped + 1, has_hash, kind, grades=grades,
                        read_span=read_span, span_block=STREAM_BLOCK_BYTES)


class _Range(io.RawIOBase):
    """Bytes ``lo`` to ``hi`` of a file, as a stream of their own."""

    def __init__(self, path: str, lo: int, hi: int):
        self._fh = open(path, "rb", buffering=0)
        self._fh.seek(lo)
        self._left = hi - lo

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        view = memoryview(buffer)[: self._left]
        n = self._fh.readinto(view) if len(view) else 0
        self._left -= n
        return n

    def close(self) -> None:
        self._fh.close()
        super().close()


def _line_start_after(path: str, at: int, end: int, newline: bytes) -> int:
    """The first line start at or after byte ``at`` (``end`` when none is left); lines end with ``newline``."""
    with open(path, "rb") as fh:
        fh.seek(at - 1)
        while True:
            piece = fh.read(1 << 16)
            if not piece:
                return end
            cut = piece.find(newline)
            if cut >= 0:
                return min(at - 1 + cut + 1, end)
            at += len(piece)


def _starts_with_bom(path: str, at: int) -> bool:
    with open(path, "rb") as fh:
        fh.seek(at)
        return fh.read(len(BOM)) == BOM


def _read_range(path: str, lo: int, hi: int, options: dict, keep: list[str]):
    """(the ``keep`` columns of lines ``lo``..``hi`` as record batches, the last line's tag), or None."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    batches, tag = [], None
    stream = pa.PythonFile(_Range(path, lo, hi), mode="r")
    try:
        for batch in pacsv.open_csv(stream, **options):
            if not checked_fields(batch):  # every field, the unused ones too, before they are dropped
                return None
            if "c5" in batch.schema.names and batch.num_rows:
                tag = batch.column("c5")[batch.num_rows - 1].as_py()
            batches.append(batch.select(keep))
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None  # another number of fields, a blank line, a score that is no number...
    finally:
        stream.close()
    return batches, tag


def read_span(span: FileSpan, options: dict, keep: list[str], *, parts: int | None = None):
    """(table of the ``keep`` columns, last line's tag) of a laid-out file span, or (None, None).

    The span is cut at line starts into one byte range per core; each is
    streamed through Arrow's CSV reader in blocks, every field checked and
    only the kept columns held, so memory is those columns, not the file or
    its unused fields.
    """
    import pyarrow as pa

    parts = parts or min(2, os.cpu_count() or 1)
    end = span.offset + span.size
    cuts = [span.offset] + [_line_start_after(span.path, span.offset + span.size * k // parts, end, span.newline)
                            for k in range(1, parts)] + [end]
    ranges = [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]
    if any(_starts_with_bom(span.path, lo) for lo, _ in ranges):
        return None, None  # Arrow drops a BOM at the start of a range: an id that starts with one is the bytes path's
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(ranges)) as pool:
        read = list(pool.map(lambda r: _read_range(span.path, *r, options, keep), ranges))
    if any(part is None for part in read):
        return None, None
    batches = [batch for part, _ in read for batch in part]
    if not batches:
        return None, None
    tags = [tag for _, tag in read if tag is not None]
    return pa.Table.from_batches(batches), (tags[-1] if tags else None)
