"""The TREC reader's compiled core (``rankmeter/io/_trecparse.c``): text to columns, on every core.

The extension reads run and qrels text in one pass: ids, scores or grades, line numbers and the
engine's doc-id hashes, holding no lock while it scans, so the pieces of a big buffer or file are
read on every core. A line it cannot read ends the scan with that line's number and bytes
(:class:`Refused`); :mod:`rankmeter.io.trec` names the problem. Its tables hold numpy columns and
:class:`~rankmeter.engine.ids.Ids` (:class:`~rankmeter.io.canonical.Columns`), so a TREC file goes from
bytes to scores without importing pyarrow. ``tests/io/test_compiled.py`` sweeps it against the
line-by-line oracle (``tests/oracles/trec_lines.py``): the same tables, the same errors.
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

import rankmeter.io._trecparse as _trecparse

__all__ = ["parse_run", "parse_qrels", "read_stream", "layout_of", "Refused", "FILE_MIN_BYTES",
           "COMPRESSED_MIN_BYTES", "HEAD_BYTES"]

_GRADES = {"integer": 0, "truncate": 1, "real": 2}
_KINDS = {"run": 0, "qrels": 1, "run-fields": 2}
#: a buffer at least this big is cut into pieces read on both cores
_PIECE_BYTES = 4 << 20
#: the largest piece: its ids' bytes stay within the int32 offsets of one piece
_LARGEST_PIECE = 1 << 30
#: files at least this big are read from disk piece by piece (never held whole); smaller ones in one read
FILE_MIN_BYTES = 16 << 20
#: compressed files at least this big are decompressed as a stream into the reader (their text is bigger)
COMPRESSED_MIN_BYTES = 1 << 20
#: bytes of a big file's text its format is recognised from
HEAD_BYTES = 1 << 16
#: bytes of a file read and parsed at a time
_BLOCK_BYTES = 8 << 20
#: why the extension refused a line (the fourth item of its answer)
REFUSED_LINE, REFUSED_NUL, REFUSED_LONG_ID = 0, 1, 2


class Refused(NamedTuple):
    """A line the extension could not read: its number in the input, its bytes, why, and the layout
    (fields per line: 2, 3 or 6 for runs, 4 for qrels) it was read with."""

    line: int
    text: bytes
    reason: int
    layout: int


def layout_of(first_line: bytes, kind: str) -> int:
    """Fields per line of an input whose first data line is ``first_line``: 4 for qrels; for runs 2
    (``query doc``), 3 (``query doc score``), else 6 (``query Q0 doc rank score tag``, more allowed)."""
    if kind == "qrels":
        return 4
    count = len(first_line.split(None, 3))
    return count if count in (2, 3) else 6


def _threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def _cut(data: bytes, size: int) -> list:
    """``data`` in pieces of about ``size`` bytes, each ending just after a line end (LF, CRLF or a lone
    CR; never between the CR and LF of a CRLF), the last one where the data ends."""
    view = memoryview(data)
    pieces, at, n = [], 0, len(data)
    while n - at > size:
        cut = max(data.rfind(b"\n", at, at + size), data.rfind(b"\r", at, at + size - 1)) + 1
        if cut == 0:
            break  # one line longer than a piece: the rest in one piece
        pieces.append(view[at:cut])
        at = cut
    pieces.append(view[at:])
    return pieces


def _piece_size(n: int) -> int:
    return min(max(_PIECE_BYTES, n // (4 * _threads()) + 1), _LARGEST_PIECE)


def _trim(rows: int) -> None:
    """After a big column was joined and its pieces let go: their pages back to the system, so the next
    column's join does not stack on them (10M judgments: the read peaked at 867 MiB for a 291 MiB table)."""
    if rows > 1 << 20:
        from rankmeter.engine.memory import give_back
        give_back()


def _combine(parsed: list[tuple], kind: str, grades: str, name: str, layout: int):
    """The Run or Qrels of the parsed pieces of one input, in order, or the first line refused
    (:class:`Refused`; ``parsed`` then holds ``(piece, answer)`` pairs), or None when no piece has a row."""
    refusal = _first_refusal(parsed, layout)
    if refusal is not None:
        return refusal
    parsed = [answer for _, answer in parsed]
    layouts = {p[0] for p in parsed if p[1]}
    if not layouts:
        return None  # only comment and blank lines
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
    fields = {}
    if kind == "run-fields" and nfields == 6:
        fields = {"rank": column(13), "tag": column(15)}
    score = joined(6, np.float64) if nfields != 2 else np.zeros(rows, np.float64)  # a ranked list: no scores
    if rows > 1 << 20:  # the two id columns joined at once, on two cores
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(2) as pool:
            query, doc = pool.map(column, (2, 4))
    else:
        query, doc = column(2), column(4)
    data = Columns({"query": query, "doc": doc, "score": score})
    run = Run(data, name, line_numbers, doc_hash=doc_hash, tag=tags[-1] if tags else b"", ranked=nfields == 2)
    return (run, fields) if kind == "run-fields" else run


def _first_refusal(parsed: list[tuple], layout: int) -> Refused | None:
    """The first line refused in ``(piece, answer)`` pairs, numbered in the whole input."""
    lines_before = 0
    for piece, answer in parsed:
        if len(answer) == 4:
            line, start, end, reason = answer
            return Refused(lines_before + line, bytes(piece[start:end]), reason, layout)
        lines_before += answer[12]
    return None


def _parse_all(pieces: list, kind: str, grades: str, layout: int) -> list[tuple]:
    """``(piece, answer)`` of every piece, parsed on every core."""
    code, grade = _KINDS[kind], _GRADES[grades]
    layout = 0 if kind == "qrels" else layout  # qrels have one layout
    if len(pieces) == 1:
        return [(pieces[0], _trecparse.parse(pieces[0], code, grade, layout))]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(_threads()) as pool:
        return list(zip(pieces, pool.map(lambda piece: _trecparse.parse(piece, code, grade, layout), pieces)))


def parse_run(data: bytes, name: str, layout: int = 0, *, one_piece: bool = False, fields: bool = False,
              first_line: bytes | None = None):
    """The :class:`~rankmeter.io.canonical.Run` of TREC run text read with ``layout`` (:func:`layout_of`;
    0: the first row decides), the first line refused (:class:`Refused`), or None when it has no row.

    ``one_piece``: parse it on this thread as one piece, whose columns become the Run's without a copy (the
    streamed executor's blocks: the other core scores the previous ones meanwhile). ``fields``: (Run, the
    rank and tag fields of a six-field run as :class:`~rankmeter.engine.ids.Ids`) instead. ``first_line``: the
    first data line, whose layout is read (instead of ``layout``)."""
    if first_line is not None:
        layout = layout_of(first_line, "run")
    kind = "run-fields" if fields else "run"
    pieces = [data] if one_piece else _cut(data, _piece_size(len(data)))
    return _combine(_parse_all(pieces, kind, "integer", layout), kind, "integer", name, layout)


def parse_qrels(data: bytes, name: str, grades: str):
    """The :class:`~rankmeter.io.canonical.Qrels` of TREC qrels text, the first line refused
    (:class:`Refused`), or None when it has no row."""
    pieces = _cut(data, _piece_size(len(data)))
    return _combine(_parse_all(pieces, "qrels", grades, 4), "qrels", grades, name, 4)


def read_stream(src, kind: str, grades: str, first: tuple):
    """The Run or Qrels of a :class:`~rankmeter.io.source.Source` left open after its head (a big TREC file),
    parsed block by block on every core as it streams in (the text is never held whole: memory is its
    columns and the blocks in flight); ``first`` is its first data line. The blocks come checked
    (:func:`rankmeter.io.guard.text_blocks`: a compressed file's bomb or NUL byte refused after one block, a
    plain one's head checked as text and every block for a NUL byte, as a file read whole is). A line refused
    (:class:`Refused`) is returned after the rest of the file has passed those checks, so that they come
    before the line's own problem, as for a file read whole; None: no row at all."""
    from rankmeter.io.guard import text_blocks

    layout = layout_of(first[2], kind)
    blocks = text_blocks(src, _BLOCK_BYTES)  # closes the source at the end of its text
    try:
        parsed = _parse_stream(blocks, kind, grades, layout)
    except BaseException:
        blocks.close()
        src.close()  # a generator never started holds nothing: the source's own file is closed here
        raise
    held = [parsed]
    del parsed  # _combine is the list's only holder: it lets each piece go once its columns are joined
    return _combine(held.pop(), kind, grades, src.name, layout)


def _parse_stream(blocks, kind: str, grades: str, layout: int) -> list:
    """``(piece, answer)`` of the text given in ``blocks``, cut after line ends, parsed on every core; up to the
    first piece refused, the rest of the blocks then pulled unparsed (they are checked as they come)."""
    from concurrent.futures import ThreadPoolExecutor

    code, grade = _KINDS[kind], _GRADES[grades]
    layout = 0 if kind == "qrels" else layout
    parsed, futures = [], []
    carry, refused = b"", False
    with ThreadPoolExecutor(_threads()) as pool:
        for more in blocks:
            if refused:
                continue
            block = carry + more if carry else more
            # after the last line end (a CR at the very end may be the first half of a CRLF)
            end = max(block.rfind(b"\n"), block.rfind(b"\r", 0, len(block) - 1)) + 1
            carry = block[end:]
            if end == 0:  # no line end yet: read on
                continue
            piece = memoryview(block)[:end]
            futures.append((piece, pool.submit(_trecparse.parse, piece, code, grade, layout)))
            while len(futures) > 2 * _threads() and not refused:  # bounds the blocks in flight
                refused = _collect(parsed, *futures.pop(0))
        if carry and not refused:  # the last line, however it ends
            futures.append((memoryview(carry), pool.submit(_trecparse.parse, memoryview(carry), code, grade, layout)))
        for piece, future in futures:
            if refused or _collect(parsed, piece, future):
                refused = True
                future.cancel()
    return parsed


def _collect(parsed: list, piece, future) -> bool:
    """Append a block's ``(piece, answer)``, its text let go unless it was refused; True when refused."""
    answer = future.result()
    refused = len(answer) == 4
    parsed.append((piece if refused else None, answer))
    return refused
