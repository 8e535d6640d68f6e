"""The bytes of an input: from a path, ``-`` (stdin) or a file object, decompressed and checked.

:class:`Source` is the one object that opens an input, records it, peeks at its first bytes,
decompresses it and has it checked (:mod:`rankmeter.io.guard`), once; the format registry
(:mod:`rankmeter.io.formats`) then recognises its format once and calls one reader.
:func:`load_bytes` and :func:`open_stream` are the same opening for readers of other files.

gzip, bzip2, xz and zstd are recognised by their magic bytes whatever the
file is called, and decompressed as a stream: leading blank space is counted
and dropped as it arrives, so a small archive of gigabytes of newlines is
found empty without ever holding them. Input that is not text at all (empty,
binary, an archive, UTF-16) is refused before any parsing, with a message
that says what the file is and what to do: the first block read is checked
whole, every later one for NUL bytes, control bytes and a line longer than
:data:`~rankmeter.io.guard.LONGEST_LINE`, so a compression bomb, ``/dev/zero`` or
``/dev/urandom`` is refused after one block (memory stays that of a block,
whatever the expanded size). A plain regular file is read in one piece after
its first block passed the same check.

A path that is not a regular file (a named pipe, a terminal) may block until
something writes to it; after a second without data a note on stderr says
rankmeter is waiting, instead of hanging silently. Pipes are accepted rather
than refused because ``<(zcat run.gz)`` and ``mkfifo`` are everyday habits.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import sys
import threading
from contextlib import contextmanager
from typing import BinaryIO, Union

from rankmeter.errors import InputError
from rankmeter.io.lines import first_data_line
from rankmeter.io.guard import (
    BLOCK_BYTES, DECOMPRESS_ERRORS, HEAD_BYTES, PARQUET_MAGIC, Counted, Text, check_text, read_text,
)
from rankmeter.io.inputs import open_input, record_input

__all__ = ["Source", "load_bytes", "check_text", "open_stream", "compression_of", "first_data_line", "PathOrFile"]

PathOrFile = Union[str, bytes, "os.PathLike[str]", BinaryIO]

#: Seconds without data from a pipe or terminal before the "waiting" note.
WAIT_NOTE_SECONDS = 1.0

_COMPRESSIONS = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")
_SPACE = b" \t\n\r\x0b\x0c"
_BOM = b"\xef\xbb\xbf"


def compression_of(head: bytes) -> str | None:
    """The compression whose magic bytes ``head`` starts with, or None.

    >>> compression_of(b"\\x1f\\x8b\\x08"), compression_of(b"301 0 d 1")
    ('gzip', None)
    """
    for magic, kind in _COMPRESSIONS:
        # bzip2: "BZh", a block size digit, then a block or end-of-stream magic (not a text id "BZh9");
        # a file that ends within that magic is a truncated archive, not a line of text
        if head.startswith(magic) and (kind != "bz2" or head[3:4].isdigit() and (
                head[4:10] in _BZ2_BLOCKS or len(head) < 10 and any(b.startswith(head[4:]) for b in _BZ2_BLOCKS))):
            return kind
    return None


def _zstd_reader(raw: BinaryIO) -> BinaryIO:
    import pyarrow as pa
    if pa.Codec.is_available("zstd"):
        return pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), "zstd")
    try:
        import zstandard
    except ImportError:
        raise ImportError('reading zstd needs pyarrow built with zstd or the zstandard package: '
                          'pip install zstandard') from None
    return zstandard.ZstdDecompressor().stream_reader(raw)


def _decompressing(raw: BinaryIO, kind: str) -> BinaryIO:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bz2":
        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    return _zstd_reader(raw)


@contextmanager
def _waiting_note(name: str, regular: bool):
    """Print a note on stderr if a pipe or terminal gives nothing within a second."""
    if regular or sys.stderr is None:
        yield
        return
    def note() -> None:
        print(f"rankmeter: waiting for input from {name} (nothing written to it yet; Ctrl-C to stop)",
              file=sys.stderr, flush=True)
    timer = threading.Timer(WAIT_NOTE_SECONDS, note)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _is_regular(fd_or_path) -> bool:
    try:
        return stat.S_ISREG(os.stat(fd_or_path).st_mode)
    except (OSError, ValueError):
        return True  # cannot tell: say nothing


def _regular_stream(raw: BinaryIO) -> bool:
    try:
        return _is_regular(raw.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return True


def _name_of(source: PathOrFile) -> str:
    if hasattr(source, "read"):
        return str(getattr(source, "name", "<stream>"))
    try:
        name = os.fsdecode(source)
    except TypeError:
        raise InputError(f"cannot read from a {type(source).__name__}; pass a path, '-' for "
                         "standard input, or a binary file object") from None
    if name == "-":
        return "<stdin>"
    if isinstance(source, str) and ("\n" in source or len(source) > 4096):
        raise InputError("got text, not a file name; pass the path of the file, or the text "
                         "as io.BytesIO(text.encode())", source="<str>")
    return name


def _open_raw(source: PathOrFile, name: str) -> tuple[BinaryIO, bool]:
    """(binary stream, whether rankmeter opened it and must close it); a file is recorded as an input."""
    if hasattr(source, "read"):
        record_input(source, getattr(source, "name", None))
        return source, False
    if name == "<stdin>":
        if sys.stdin is None:
            raise InputError("there is no standard input to read; pass a file name", source=name)
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        record_input(stdin)
        return stdin, False
    try:
        with _waiting_note(name, _is_regular(source)):
            # unbuffered: the whole read is one allocation
            return open_input(source, "rb", buffering=0), True
    except FileNotFoundError:
        raise InputError("no such file; check the path", source=name) from None
    except IsADirectoryError:
        raise InputError("is a directory; pass the qrels or run file inside it", source=name) from None
    except PermissionError:
        raise InputError("permission denied; check the file's permissions", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or exc})", source=name) from None


class Source:
    """One input, opened once: what it is called, whether and how it is compressed, and its text.

    :meth:`open` opens a path, ``-`` (stdin) or a binary file object, records a file as an input (no output
    may be written over it), peeks at its first bytes (gzip, bzip2, xz and zstd are recognised by their
    magic bytes whatever the file is called), decompresses it and has every block checked as it arrives
    (:mod:`rankmeter.io.guard`: not text, a compression bomb, a line of gigabytes); a UTF-8 byte-order
    mark at byte 0 is dropped. Then either ``text`` holds the whole text, or -- a big regular file, when
    the caller asks (``defer_plain``/``defer_compressed``: the sizes from which a reader streams it) --
    ``head`` holds its first bytes for the format to be recognised from, and ``stream`` the rest
    (the decompressor or the file, positioned after ``head``; ``compressed``: the compressed bytes
    read so far), for a reader that parses it block by block (:func:`rankmeter.io.compiled.read_stream`).

    >>> import io
    >>> src = Source.open(io.BytesIO(b"\\xef\\xbb\\xbfq 0 d 1\\n"))
    >>> src.text, src.name, src.deferred
    (b'q 0 d 1\\n', '<stream>', False)
    """

    def __init__(self, name: str, text: bytes | None, *, head: bytes = b"", stream=None, kind: str | None = None,
                 compressed=None, raw=None):
        self.name, self.text, self.kind, self.stream, self.compressed = name, text, kind, stream, compressed
        self.head = text if text is not None else head
        self.raw = raw  # a deferred file's own descriptor (a decompressor does not close the file it reads)
        self.deferred = text is None

    @classmethod
    def open_big(cls, path, plain: int, compressed: int, head_bytes: int = HEAD_BYTES + 3) -> "Source | None":
        """The regular file ``path`` left open after its first ``head_bytes`` of text when it has ``plain`` bytes
        or more (``compressed`` for a compressed one), else None (see :meth:`open`)."""
        return _deferred(os.fsdecode(path), plain, compressed, head_bytes)

    def close(self) -> None:
        """Close what a deferred input holds open (a reader that streams it closes it when done)."""
        for held in (self.stream, self.raw):
            if held is not None:
                held.close()

    @classmethod
    def open(cls, source: PathOrFile, *, check: bool = True, defer_plain: int | None = None,
             defer_compressed: int | None = None, head_bytes: int = HEAD_BYTES + 3) -> "Source":
        """The input ``source`` opened, checked (``check``: its whole text as text, not for a Parquet file)
        and read whole, or deferred (see the class)."""
        name = _name_of(source)
        if defer_plain is not None and isinstance(source, (str, os.PathLike)) and name != "<stdin>":
            deferred = _deferred(name, defer_plain, defer_compressed, head_bytes)
            if deferred is not None:
                return deferred
        raw, owned = _open_raw(source, name)
        try:
            counted = Counted(raw, name)
            with _waiting_note(name, not (owned or name == "<stdin>") or _regular_stream(raw)):
                kind = compression_of(counted.peek_start(10))
            if kind is None and owned and _regular_stream(raw):
                text = read_text(raw, name, plain=True, check=check)  # a regular file: its size is known, no bomb
            elif kind is None:
                text = read_text(counted, name, check=check)  # a pipe, a device, a file object: checked blocks
            else:
                text = read_text(_decompressing(counted, kind), name, kind=kind, compressed=counted.compressed_bytes,
                                 check=check)
        finally:
            if owned:
                raw.close()
        return cls(name, text, kind=kind)


def _deferred(name: str, plain: int, compressed: int | None, head_bytes: int) -> Source | None:
    """A regular file of ``plain`` bytes or more (``compressed`` for a compressed one) opened with its first
    ``head_bytes`` of text read, or None: read it whole (smaller, Parquet, or an archive whose start cannot be
    read -- reading it whole names the problem)."""
    try:
        status = os.stat(name)
        if not stat.S_ISREG(status.st_mode) or status.st_size < min(plain, compressed or plain):
            return None
        raw = open_input(name, "rb", buffering=0)
    except (OSError, ValueError):
        return None
    stream = raw
    try:
        magic = os.pread(raw.fileno(), 10, 0)
        kind = compression_of(magic)
        if magic.startswith(PARQUET_MAGIC) or status.st_size < (plain if kind is None else compressed or plain):
            raw.close()
            return None
        stream = raw if kind is None else _decompressing(raw, kind)
        head = _read_full(stream, head_bytes)
    except (*DECOMPRESS_ERRORS, ImportError):
        stream.close()
        raw.close()
        return None
    head = head[3:] if head[:3] == _BOM else head
    return Source(name, None, head=head, stream=stream, kind=kind, compressed=raw.tell if kind else None, raw=raw)


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


def load_bytes(source: PathOrFile) -> tuple[bytes, str]:
    """Read a whole input (path, ``-`` for stdin, or binary file object), decompressed and checked
    (:class:`Source`). Returns the bytes and a name for messages.

    >>> import io
    >>> load_bytes(io.BytesIO(b"q 0 d 1\\n"))
    (b'q 0 d 1\\n', '<stream>')
    """
    src = Source.open(source, check=False)
    return src.text, src.name


def open_stream(source: PathOrFile) -> tuple[BinaryIO, str]:
    """A binary stream of the decompressed text of ``source`` and its name, for streamed readers.

    Compression is recognised by magic bytes as in :class:`Source`, every block is checked as it arrives,
    and a broken or truncated archive raises a one-line :class:`InputError` from ``read`` wherever it is
    met. The caller closes the stream.

    >>> import gzip, io
    >>> stream, name = open_stream(io.BytesIO(gzip.compress(b"q Q0 d 1 2.5 t\\n")))
    >>> stream.read()
    b'q Q0 d 1 2.5 t\\n'
    """
    name = _name_of(source)
    raw, owned = _open_raw(source, name)
    counted = Counted(raw, name, owned=owned)
    kind = compression_of(counted.peek_start(10))
    inner = counted if kind is None else _decompressing(counted, kind)
    text = Text(inner, name, kind=kind, compressed=counted.compressed_bytes if kind else None,
                under=counted if kind else None)
    return io.BufferedReader(text, BLOCK_BYTES), name
