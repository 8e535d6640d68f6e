"""The compiled TREC reader (``rankmeter/io/_trecparse.c``) behind the pure one.

The extension reads run and qrels text in one pass: ids, scores or grades, line numbers and the
engine's doc-id hashes, holding no lock while it scans, so the pieces of a big buffer or file are
read on every core. It accepts a piece only when every line is one the pure reader
(:mod:`rankmeter.io.trec`) reads the same way; for anything else the answer is None and the pure
reader reads the input and names the line of the problem, so both paths give the same tables and
the same errors (``tests/io/test_compiled.py`` sweeps both). Its tables hold numpy columns and
:class:`~rankmeter.engine.ids.Ids` (:class:`~rankmeter.io.canonical.Columns`), so a TREC file goes from bytes
to scores without importing pyarrow.

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

__all__ = ["available", "parse_run", "parse_qrels", "read_file", "FILE_MIN_BYTES"]

_GRADES = {"integer": 0, "truncate": 1, "real": 2}
_KINDS = {"run": 0, "qrels": 1}
#: a buffer at least this big is cut into pieces read on both cores
_PIECE_BYTES = 4 << 20
#: files at least this big are read from disk piece by piece (never held whole); smaller ones in one read
FILE_MIN_BYTES = 16 << 20
#: compressed files at least this big are decompressed as a stream into the reader (their text is bigger)
COMPRESSED_MIN_BYTES = 1 << 20
_HEAD = 1 << 16
#: bytes of a file read and parsed at a time
_BLOCK_BYTES = 8 << 20


def available() -> bool:
    """Whether TREC text goes through the compiled reader (built, and ``RANKMETER_PURE`` not set)."""
    return _trecparse is not None and os.environ.get("RANKMETER_PURE", "") in ("", "0")


def _threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _cut(data: bytes, size: int) -> list:
    """``data`` in pieces of about ``size`` bytes, each ending just after a line feed (the last one
    where the data ends). A line feed always ends a line (LF or CRLF), so lines are never split."""
    view = memoryview(data)
    pieces, at, n = [], 0, len(data)
    while n - at > size:
        cut = data.rfind(b"\n", at, at + size) + 1
        if cut == 0:
            break  # one line longer than a piece, or lines that end with CR alone: the rest in one piece
        pieces.append(view[at:cut])
        at = cut
    pieces.append(view[at:])
    return pieces


def _trim(rows: int) -> None:
    """After a big column was joined and its pieces let go: their pages back to the system, so the next
    column's join does not stack on them (10M judgments: the read peaked at 867 MiB for a 291 MiB table)."""
    if rows > 1 << 20:
        from rankmeter.engine.memory import give_back
        give_back()


def _combine(parsed: list[tuple], kind: str, grades: str, name: str):
    """The Run or Qrels of the parsed pieces of one input, in order; None when any piece was refused or
    the pieces disagree on the layout (the pure reader then reads the whole input)."""
    if any(p is None for p in parsed):
        return None
    layouts = {p[0] for p in parsed if p[1]}
    if len(layouts) != 1:
        return None  # no row at all, or a layout that changes: the pure reader names the problem
    nfields = layouts.pop()
    from rankmeter.engine.ids import Ids
    from rankmeter.engine.keys import HASH_NAME, _idops
    from rankmeter.io.canonical import Columns, Qrels, Run, qrels_columns

    lines, first_line, gapped = [], 1, False  # every piece counts its lines, those without rows too
    for p in parsed:
        if p[1]:
            lines.append(np.frombuffer(p[7], np.int64) + (first_line - 1) if p[7] is not None
                         else np.arange(first_line, first_line + p[1], dtype=np.int64))
        gapped |= p[7] is not None or p[1] != p[12]
        first_line += p[12]
    line_numbers = np.concatenate(lines) if gapped else None
    del lines
    parsed = [list(p) for p in parsed if p[1]]
    rows = sum(p[1] for p in parsed)

    def column(first: int) -> Ids:
        """The id column at ``first`` of every piece as one :class:`Ids`, each piece let go once placed, so the
        peak is the pieces and one column (Arrow's join kept its freed blocks: 10M judgments peaked at
        960 MiB); int64 offsets past 2 GiB of bytes. The compiled kernels place a piece in one pass; a single
        piece (a block of the streamed executor) is taken as it is."""
        if len(parsed) == 1:
            return Ids(np.frombuffer(parsed[0][first], np.int32), np.frombuffer(parsed[0][first + 1], np.uint8))
        size = sum(len(p[first + 1]) for p in parsed)
        wide = size > np.iinfo(np.int32).max
        offsets = np.zeros(rows + 1, np.int64 if wide else np.int32)
        values = np.empty(size, np.uint8)
        row = at = 0
        for p in parsed:
            _idops.place(offsets, wide, values, row, at, p[first], p[first + 1])
            row, at = row + p[1], at + len(p[first + 1])
            p[first] = p[first + 1] = None
        _trim(rows)
        return Ids(offsets, values)

    def joined(index: int, dtype) -> np.ndarray:
        """The fixed-width column at ``index`` of every piece as one array, each piece let go once copied."""
        out = np.concatenate([np.frombuffer(p[index], dtype) for p in parsed]) if len(parsed) > 1 else \
            np.frombuffer(parsed[0][index], dtype)
        for p in parsed:
            p[index] = None
        _trim(len(out))
        return out

    doc_hash = joined(9, np.uint64)
    if getattr(_trecparse, "HASH", None) != HASH_NAME:
        doc_hash = None  # an extension built with another hash (keys.HASH_NAME): the engine hashes the docs itself
    if kind == "qrels":
        rel = joined(6, np.float64 if grades == "real" else np.int64)
        data = qrels_columns(column(2), column(4), rel, column(10))
        return Qrels(data, name, line_numbers, doc_hash=doc_hash)
    tags = [p[8] for p in parsed if p[8] is not None]
    score = joined(6, np.float64) if nfields != 2 else np.zeros(rows, np.float64)  # a ranked list: no scores
    if rows > 1 << 20:  # the two id columns joined at once, on two cores
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(2) as pool:
            query, doc = pool.map(column, (2, 4))
    else:
        query, doc = column(2), column(4)
    data = Columns({"query": query, "doc": doc, "score": score})
    return Run(data, name, line_numbers, doc_hash=doc_hash, tag=tags[-1] if tags else b"", ranked=nfields == 2)


def _parse_all(pieces: list, kind: str, grades: str) -> list[tuple]:
    code, grade = _KINDS[kind], _GRADES[grades]
    if len(pieces) == 1:
        return [_trecparse.parse(pieces[0], code, grade)]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(_threads()) as pool:
        return list(pool.map(lambda piece: _trecparse.parse(piece, code, grade), pieces))


def _parsed_ahead(data: bytes, kind: str, grades: str):
    """The parse of ``data`` the command line made while it imported (:mod:`rankmeter.cli.ahead`), or None:
    only for the very same bytes, kind and grade policy (it is then what parsing ``data`` as one piece gives)."""
    ahead = getattr(_trecparse, "ahead", None)
    if ahead is None or grades != "integer" or len(data) > _PIECE_BYTES:
        return None
    thread, done = ahead
    thread.join()
    for i, (parsed_data, parsed) in enumerate(done.get(kind, ())):
        if len(parsed_data) == len(data) and parsed_data == data:
            del done[kind][i]  # used once: its memory goes with the reader's
            return parsed
    return None


def parse_run(data: bytes, name: str, *, one_piece: bool = False):
    """The :class:`~rankmeter.io.canonical.Run` of TREC run text, or None for the pure reader to read.

    ``one_piece``: parse it on this thread as one piece, whose columns become the Run's without a copy (the
    streamed executor's blocks: the other core scores the previous ones meanwhile)."""
    if not available():
        return None
    ahead = _parsed_ahead(data, "run", "integer")
    if ahead is not None:
        return _combine([ahead], "run", "integer", name)
    pieces = [data] if one_piece else _cut(data, max(_PIECE_BYTES, len(data) // (4 * _threads()) + 1))
    return _combine(_parse_all(pieces, "run", "integer"), "run", "integer", name)


def parse_qrels(data: bytes, name: str, grades: str):
    """The :class:`~rankmeter.io.canonical.Qrels` of TREC qrels text, or None for the pure reader."""
    if not available():
        return None
    ahead = _parsed_ahead(data, "qrels", grades)
    if ahead is not None:
        return _combine([ahead], "qrels", grades, name)
    pieces = _cut(data, max(_PIECE_BYTES, len(data) // (4 * _threads()) + 1))
    return _combine(_parse_all(pieces, "qrels", grades), "qrels", grades, name)


def read_file(source, kind: str, grades: str = "integer"):
    """The Run or Qrels of a big TREC file named by path, plain or compressed, read a block at a time and
    parsed on every core (the text is never held whole: memory is its columns and the blocks in flight), or
    None for the other readers (not a regular file, small, another format, or a block refused)."""
    if not available() or not isinstance(source, (str, os.PathLike)) or os.fsdecode(source) == "-":
        return None
    from rankmeter.errors import RankmeterError
    from rankmeter.io.detect import detect
    from rankmeter.io.inputs import open_input
    from rankmeter.io.parquet import is_parquet
    from rankmeter.io.source import check_text, compression_of, open_stream

    name = os.fsdecode(source)
    try:
        import stat
        status = os.stat(name)
        if not stat.S_ISREG(status.st_mode) or status.st_size < COMPRESSED_MIN_BYTES:
            return None
        with open_input(name, "rb") as fh:  # recorded: no output may be written over it
            magic = fh.read(8)
        compressed = compression_of(magic) is not None
        if is_parquet(magic) or (not compressed and status.st_size < FILE_MIN_BYTES):
            return None
        # a compressed file is decompressed as a stream (guarded: a bomb is refused after one block)
        stream = open_stream(name)[0] if compressed else open_input(name, "rb", buffering=0)
    except (RankmeterError, OSError, ValueError):
        return None  # the other readers open it again and name the problem
    with stream:
        try:
            head = _read_full(stream, _HEAD + 3)
            bom = 3 if head[:3] == b"\xef\xbb\xbf" else 0
            check_text(head[bom:bom + _HEAD], name)  # the sample the whole-file check looks at
            if detect(head[bom:bom + _HEAD], name, "auto") != ("trec", False):
                return None
            return _combine(_parse_stream(stream, head[bom:], kind, grades), kind, grades, name)
        except (RankmeterError, OSError):
            return None  # not text, not TREC, a broken archive: the other readers say so, at the right line


def _read_full(stream, size: int) -> bytes:
    """Up to ``size`` bytes of ``stream`` (a raw stream may return fewer before its end)."""
    parts, got = [], 0
    while got < size:
        part = stream.read(size - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _parse_stream(stream, first: bytes, kind: str, grades: str) -> list:
    """The parsed pieces of ``first`` and the rest of ``stream``, cut after line feeds, on every core; a
    refused piece makes the list hold None (the whole input then goes to the pure reader)."""
    from concurrent.futures import ThreadPoolExecutor

    code, grade = _KINDS[kind], _GRADES[grades]
    size = _BLOCK_BYTES
    parsed, futures = [], []
    carry = first
    with ThreadPoolExecutor(_threads()) as pool:
        eof = False
        while not eof:
            more = _read_full(stream, size)
            eof = not more
            block = carry + more if carry else more
            if not block:
                break
            end = len(block) if eof else block.rfind(b"\n") + 1  # at the end: the last line, however it ends
            if end == 0:  # no line feed yet: read on
                carry = block
                continue
            carry = block[end:]
            futures.append(pool.submit(_trecparse.parse, memoryview(block)[:end], code, grade))
            while len(futures) > 2 * _threads():  # bounds the blocks in flight
                parsed.append(futures.pop(0).result())
                if parsed[-1] is None:
                    return [None]
        parsed.extend(f.result() for f in futures)
    return parsed
