"""Whether input is text at all, checked as it arrives: a bomb or a device is refused after one block.

:func:`check_text` refuses a whole input that is empty or not text (binary, an archive, UTF-16).
:func:`read_text` reads an opened input's text (its raw bytes, or their decompressor:
:mod:`rankmeter.io.compression`) whole through those checks; :class:`Text` is that checked stream. A big
file the source left open after its head is read through here once, by its reader: whole after all
(:func:`read_rest`), or block after block as it is parsed (:func:`text_blocks`).

:class:`Guard` checks a stream block by block as it is read: the first block with text as
:func:`check_text` checks a whole file (the same verdict: every check looks at the start, or finds
the first NUL), every later block for a NUL byte, more than 1% control bytes in its first 64 KiB,
and a line longer than :data:`LONGEST_LINE`. Memory then stays that of a block whatever the
expanded size of a compression bomb, ``/dev/zero`` or ``/dev/urandom``.

>>> import io
>>> read_guarded(io.BytesIO(b"\\n\\nq 0 d 1\\n"), "<stream>")
b'\\n\\nq 0 d 1\\n'
>>> read_guarded(io.BytesIO(b"q 0 d 1\\n" + bytes(100)), "<stream>")
Traceback (most recent call last):
  ...
rankmeter.errors.InputError: <stream>:2: binary data (a NUL byte), not a text file of qrels or a run; check that this is the right file
"""
from __future__ import annotations

import io
from typing import BinaryIO

import numpy as np

from rankmeter.errors import InputError
from rankmeter.io.compression import DECOMPRESS_ERRORS, broken

__all__ = ["read_text", "read_rest", "text_blocks", "check_text", "Guard", "Text", "read_guarded", "first_nul",
           "line_breaks", "LONGEST_LINE", "PARQUET_MAGIC", "BLOCK_BYTES", "HEAD_BYTES"]

#: Bytes read at a time from a stream (decompressed bytes for a compressed one).
BLOCK_BYTES = 16 << 20
#: Bytes of a plain regular file checked before the whole file is read.
HEAD_BYTES = 1 << 16
#: A line longer than this is in no qrels or run: such input is refused as it streams in.
LONGEST_LINE = 64 << 20
#: Text that expands more than this many times from its compressed bytes is refused as a compression bomb
#: (once :data:`BOMB_MIN_BYTES` of text have come): TREC runs and qrels expand 4-30 times (xz of
#: sequential synthetic ids: 85), a 468 KB xz of one-letter lines 6,500 times (3-6 GB if held whole),
#: repeated lines in gzip at level 1 160-230 times. Memory is then at most this many times the input's size
MAX_EXPANSION = 100
#: Text bytes held before the expansion is judged: smaller inputs are never refused for it
BOMB_MIN_BYTES = 64 << 20
#: A Parquet file starts (and ends) with these bytes: binary, not checked as text.
PARQUET_MAGIC = b"PAR1"

# Signatures of files that are not text: (start, must also contain, what it is, what to do).
# The second part keeps a text file whose first id merely starts like one ("PK.. 0 d 1").
_MAGIC = (
    (b"PK\x03\x04", b"", "a zip archive", "unzip it and pass the text file inside"),
    (b"7z\xbc\xaf\x27\x1c", b"", "a 7-zip archive", "extract the text file inside"),
    (b"\xff\xfe", b"\x00", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"\xfe\xff", b"\x00", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"%PDF-", b" obj", "a PDF document", "pass the TREC text file instead"),
)
# Control bytes that never occur in text (whitespace \t \n \v \f \r excluded).
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[[*range(1, 9), *range(14, 32), 127]] = True

def _read_block(stream: BinaryIO, name: str, size: int = -1) -> bytes:
    """Up to ``size`` bytes of one of the streams here (bytes already: a user's file object is read through
    :class:`~rankmeter.io.compression.Counted`), an error reading it one line naming the file."""
    try:
        return bytes(stream.read(size))
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"cannot be read ({exc})", source=name) from None


def line_breaks(data: bytes) -> int:
    """Line breaks as ``bytes.splitlines`` counts them (LF, CR, CRLF)."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


class Guard:
    """Checks of a stream's blocks as they arrive: hostile input is refused after one block.

    The first block with text is checked as :func:`check_text` checks a whole
    file (the same verdict: every check it makes looks at the start, or finds
    the first NUL); every block after it for a NUL byte, more than 1% control
    bytes in its first 64 KiB, and a line longer than :data:`LONGEST_LINE`.
    """

    def __init__(self, name: str, compressed=None):
        self.name = name
        self.compressed = compressed  # the compressed bytes read so far (a callable), for a compressed input
        self.text_bytes = 0     # bytes of text (after the leading blank space) passed so far
        self.checked_head = False
        self.parquet = False
        self.lines = 0          # line breaks in the blocks before this one
        self.line_bytes = 0     # bytes since the last line break

    def __call__(self, block: bytes) -> None:
        if self.parquet:
            return
        if not self.checked_head:
            if block.isspace():
                self.lines += line_breaks(block)
                return
            if self.lines == 0 and block.startswith(PARQUET_MAGIC):
                self.parquet = True  # binary by design: Parquet's reader checks it
                return
            check_text(block, self.name, first_line=self.lines + 1)
            self.checked_head = True
        else:
            nul = block.find(b"\x00")
            if nul >= 0:
                raise InputError("binary data (a NUL byte), not a text file of qrels or a run; check that this "
                                 "is the right file", source=self.name,
                                 line=self.lines + line_breaks(block[:nul]) + 1)
            _refuse_control(block, self.name, self.lines)
        first = _first_break(block)
        if first >= 0 and self.line_bytes + first <= LONGEST_LINE:
            self.line_bytes = len(block) - _last_break(block) - 1  # blocks are shorter than the limit
            self.lines += line_breaks(block)
        else:
            self.line_bytes += len(block) if first < 0 else first
            if self.line_bytes > LONGEST_LINE:
                raise InputError(f"line {self.lines + 1} is longer than {LONGEST_LINE >> 20} MiB: not a text file "
                                 "of qrels or a run; check that this is the right file", source=self.name)
        self._judge_expansion(len(block))

    def _judge_expansion(self, size: int) -> None:
        """Refuse text expanding more than :data:`MAX_EXPANSION` times (past :data:`BOMB_MIN_BYTES`)."""
        self.text_bytes += size
        if (self.compressed is not None and self.text_bytes > BOMB_MIN_BYTES
                and self.text_bytes > MAX_EXPANSION * max(self.compressed(), 1)):
            raise InputError(f"the compressed data expands more than {MAX_EXPANSION} times ({self.compressed()} "
                             f"bytes to over {self.text_bytes >> 20} MiB of text so far): a compression bomb, not "
                             "qrels or a run; check that this is the right file", source=self.name)


def _first_break(block: bytes) -> int:
    found = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
    return min(found) if found else -1


def _last_break(block: bytes) -> int:
    return max(block.rfind(b"\n"), block.rfind(b"\r"))


def read_guarded(stream: BinaryIO, name: str) -> bytes:
    """All of a stream (decompressing, a pipe, a device) in blocks, each checked as it arrives.

    Leading blank space is only counted, never held; blank lines come back as
    LFs so that line numbers stay those of the file.
    """
    guard = Guard(name, getattr(stream, "compressed_bytes", None))
    blank_lines = 0
    pending_cr = False
    blocks: list[bytes] = []
    while True:
        block = _read_block(stream, name, BLOCK_BYTES)
        if not block:
            break
        if not blocks:
            if pending_cr and block.startswith(b"\n"):
                blank_lines -= 1  # a CRLF cut between two blocks is one line break
            if block.isspace():
                blank_lines += line_breaks(block)
                pending_cr = block.endswith(b"\r")
                continue
            if blank_lines > LONGEST_LINE:  # held as LFs below: refused rather than materialised
                raise InputError(f"{blank_lines} blank lines before the first text: not a file of qrels "
                                 "or a run; check that this is the right file", source=name)
            guard.lines = blank_lines
        guard(block)
        blocks.append(block)
    if not blocks:
        return b""  # blank throughout: the caller reports an empty file
    if blank_lines:
        blocks.insert(0, b"\n" * blank_lines)
    return blocks[0] if len(blocks) == 1 else b"".join(blocks)


def _refuse_control(data: bytes, name: str, lines_before: int = 0) -> None:
    sample = np.frombuffer(data, dtype=np.uint8, count=min(len(data), 1 << 16))
    control = _CONTROL[sample]
    if control.sum() * 100 > len(sample):  # over 1%: no text file looks like this
        first = int(np.argmax(control))
        raise InputError(f"binary data (control byte 0x{sample[first]:02x} and many more), not a text "
                         "file of qrels or a run; check that this is the right file",
                         source=name, line=lines_before + data.count(b"\n", 0, first) + 1)

class Text(io.RawIOBase):
    """The text of an input as it streams in: ``head`` (text already read) then ``inner`` (a decompressor or
    the raw bytes), a broken archive a one-line :class:`InputError` naming the file, every block passing
    :class:`Guard`. The one stream every reader of text reads (closing it closes ``inner``)."""

    def __init__(self, inner: BinaryIO, name: str, *, kind: str | None = None, compressed=None, head: bytes = b"",
                 under=None):
        self.inner, self.kind, self.head, self.under = inner, kind, head, under  # under: closed with it too
        self.guard = Guard(name, compressed)

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        try:
            self.inner.close()  # a decompressor does not close the file it reads
            if self.under is not None:
                self.under.close()
        finally:
            super().close()

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all that is left for -1), checked: the block itself, never a copy of it."""
        if self.closed:
            return b""
        if self.head:
            whole = size is None or size < 0
            data, self.head = (self.head, b"") if whole else (self.head[:size], self.head[size:])
        else:
            try:
                data = bytes(self.inner.read(size) if size is not None and size >= 0 else self.inner.read())
            except DECOMPRESS_ERRORS as exc:
                raise broken(self.kind, exc, self.guard.name) from None
        if data:
            self.guard(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def read_text(inner: BinaryIO, name: str, *, kind: str | None = None, compressed=None, plain: bool = False,
              head: bytes = b"", check: bool = True) -> bytes:
    """The whole text of an input (``head`` then ``inner``), a UTF-8 byte-order mark at its start dropped
    (``head`` has none), and checked as text (``check``; never a Parquet file's bytes): a plain regular file
    (``plain``: its size is known, no bomb) in one read from its start, ``head`` ignored; anything else in
    blocks, each checked as it arrives (:func:`read_guarded`)."""
    if not plain:
        data = read_guarded(Text(inner, name, kind=kind, compressed=compressed, head=head), name)
    else:  # its first block checked before the whole of it is read (a 10 GB binary file), then one read
        import os
        try:
            start = os.pread(inner.fileno(), HEAD_BYTES, 0)
            inner.seek(0)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot be read ({exc})", source=name) from None
        if start and not start.isspace() and not start.startswith(PARQUET_MAGIC):
            check_text(start, name)
        data = _read_block(inner, name)
    if not head and data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if check and not (len(data) >= 12 and data[:4] == PARQUET_MAGIC and data[-4:] == PARQUET_MAGIC):
        check_text(data, name)
    return data


def first_nul(raw: BinaryIO, name: str) -> None:
    """Refuse a regular file holding a NUL byte anywhere, naming its line, as :func:`check_text` refuses a
    whole text (read from the start with ``os.pread``, a block at a time)."""
    import os
    fd, at, lines = raw.fileno(), 0, 0
    while True:
        block = os.pread(fd, BLOCK_BYTES, at)
        if not block:
            return
        nul = block.find(b"\x00")
        if nul >= 0:
            raise InputError("binary data (a NUL byte), not a text file of qrels or a run; check that this "
                             "is the right file", source=name, line=lines + block.count(b"\n", 0, nul) + 1)
        lines += block.count(b"\n")
        at += len(block)


def check_text(data: bytes, name: str, *, first_line: int = 1) -> None:
    """Refuse empty input and input that is not text at all (every text reader runs this).

    ``first_line`` is the line number of ``data``'s first line in its file
    (a block read after blank lines).
    """
    if not data or data.isspace():
        raise InputError("the file is empty; expected qrels or run lines", source=name)
    for magic, also, what, todo in _MAGIC:
        if data.startswith(magic) and also in data[:4096]:
            raise InputError(f"this is {what}, not a text file of qrels or a run; {todo}", source=name)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        head = data[:512]
        for zeros, other in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
            if zeros.count(0) * 2 > len(zeros) and other.count(0) == 0:
                raise InputError("looks like UTF-16 text (every other byte is NUL); save it as UTF-8 "
                                 "or ASCII", source=name)
        raise InputError("binary data (a NUL byte), not a text file of qrels or a run; check that this "
                         "is the right file", source=name, line=line + first_line - 1)
    _refuse_control(data, name, first_line - 1)


def read_rest(src, *, check: bool = True) -> bytes:
    """The whole text of a big file the source left open after its head (a
    :class:`~rankmeter.io.source.Source` whose format has no streaming reader), read after all and checked as
    :func:`read_text` checks any input: a plain one in one read from its start, a compressed one block by block,
    its head first. The source's stream and file are closed."""
    try:
        if src.kind is None:
            return read_text(src.raw, src.name, plain=True, check=check)
        return read_text(src.stream, src.name, kind=src.kind, compressed=src.compressed, head=src.head, check=check)
    finally:
        src.stream.close()
        src.raw.close()


def text_blocks(src, size: int):
    """The text of a big file the source left open after its head (a :class:`~rankmeter.io.source.Source`), its
    head then blocks of up to ``size`` bytes, each checked before it is given: a compressed file's by
    :class:`Guard` (a bomb, a NUL byte or a line of gigabytes refused after one block), a plain one's head as
    :func:`check_text` checks a file read whole and every block for a NUL byte (named at its line, as in a file
    read whole). A text blank throughout is refused as empty at its end.

    A generator, so that a reader pulls block after block from one place; the source's stream and file are
    closed at the end of the text or when the generator is closed."""
    name, plain = src.name, src.kind is None
    if plain:
        def read() -> bytes:
            return _read_block(src.stream, name, size)
    else:
        text = Text(src.stream, name, kind=src.kind, compressed=src.compressed, head=src.head)
        def read() -> bytes:
            return text.read(size)
    seen_text = False
    try:
        if plain and src.head[:HEAD_BYTES].strip():
            check_text(src.head[:HEAD_BYTES], name)  # the sample the whole-file check looks at
        block = src.head if plain else read()
        while block:
            if plain and b"\x00" in block:
                first_nul(src.raw, name)  # raises, naming the first NUL's line in the file
            seen_text = seen_text or not block.isspace()
            yield block
            block = read()
        if not seen_text:
            check_text(b"", name)  # blank throughout: the file is empty
    finally:
        src.stream.close()
        src.raw.close()
