"""The bytes of an input: from a path, ``-`` (stdin) or a file object, decompressed and checked.

gzip, bzip2, xz and zstd are recognised by their magic bytes whatever the
file is called, and decompressed as a stream: leading blank space is counted
and dropped as it arrives, so a small archive of gigabytes of newlines is
found empty without ever holding them. Input that is not text at all (empty,
binary, an archive, UTF-16) is refused before any parsing, with a message
that says what the file is and what to do: the first block read is checked
whole, every later one for NUL bytes, control bytes and a line longer than
:data:`LONGEST_LINE`, so a compression bomb, ``/dev/zero`` or
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
import zlib
from contextlib import contextmanager
from typing import BinaryIO, Union

from rankmeter.errors import InputError
from rankmeter.io.guard import (
    BLOCK_BYTES, PARQUET_MAGIC, GuardedStream, check_text, read_block, read_guarded,
)
from rankmeter.io.inputs import open_input, record_input

__all__ = ["load_bytes", "check_text", "open_stream", "compression_of", "first_data_line", "PathOrFile"]

PathOrFile = Union[str, bytes, "os.PathLike[str]", BinaryIO]

#: Bytes of a plain regular file checked before the whole file is read.
HEAD_BYTES = 1 << 16
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


def first_data_line(data: bytes) -> tuple[int, int, bytes]:
    """(byte offset, number of lines before it, the line) of the first non-blank, non-comment line.

    >>> first_data_line(b"# a comment\\n\\nq1 Q0 d1 1 2.5 r\\n")
    (13, 2, b'q1 Q0 d1 1 2.5 r')
    """
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


def _broken(kind: str, exc: BaseException, name: str) -> InputError:
    if isinstance(exc, EOFError):
        return InputError(f"the {kind} data is truncated (the file ends early); re-create or re-download "
                          "the file", source=name)
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InputError(f"broken {kind} data ({detail}); re-create or re-download the file", source=name)


_DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


class _CheckedStream(io.RawIOBase):
    """A decompressing stream whose errors are one-line :class:`InputError` naming the file."""

    def __init__(self, inner: BinaryIO, kind: str, name: str, source: "_Prefixed"):
        self.inner, self.kind, self.name, self.source = inner, kind, name, source

    def compressed_bytes(self) -> int:
        """The compressed bytes read so far (the guard refuses text that expands too many times)."""
        return self.source.consumed

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        try:
            self.inner.close()  # the decompressor, and through it the file
        finally:
            super().close()

    def read(self, size: int = -1) -> bytes:
        try:
            return self.inner.read(size) if size is not None and size >= 0 else self.inner.read()
        except InputError:
            raise
        except _DECOMPRESS_ERRORS as exc:
            raise _broken(self.kind, exc, self.name) from None

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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


def load_bytes(source: PathOrFile) -> tuple[bytes, str]:
    """Read a whole input (path, ``-`` for stdin, or binary file object), decompressed.

    Returns the bytes and a name for messages. gzip, bzip2, xz and zstd are
    recognised by their magic bytes, whatever the file is called; a UTF-8
    byte-order mark is dropped.

    >>> import io
    >>> load_bytes(io.BytesIO(b"q 0 d 1\\n"))
    (b'q 0 d 1\\n', '<stream>')
    """
    name = _name_of(source)
    raw, owned = _open_raw(source, name)
    try:
        with _waiting_note(name, not (owned or name == "<stdin>") or _regular_stream(raw)):
            head = _peek(raw, name)
        kind = compression_of(head)
        if kind is None and _plain_file(raw, owned, name):
            data = _rest(raw, head, name)  # a regular file whose start is text: one read
        elif kind is None:
            data = read_guarded(_Prefixed(head, raw), name)  # a pipe, a device, a file object
        else:
            prefixed = _Prefixed(head, raw)
            stream = _CheckedStream(_decompressing(prefixed, kind), kind, name, prefixed)
            data = read_guarded(stream, name)
    finally:
        if owned:
            raw.close()
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data, name


def _plain_file(raw: BinaryIO, owned: bool, name: str) -> bool:
    """Whether ``raw`` is a regular file rankmeter opened whose first block passed :class:`~rankmeter.io.guard.Guard`'s check.

    Then it is read in one piece (its size is known: no bomb); anything else
    is read in checked blocks.
    """
    if not owned or not _regular_stream(raw):
        return False
    try:
        start = os.pread(raw.fileno(), HEAD_BYTES, 0)
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return False
    if start and not start.isspace() and not start.startswith(PARQUET_MAGIC):
        check_text(start, name)
    return True


def _rest(raw: BinaryIO, head: bytes, name: str) -> bytes:
    """``head`` and the rest of ``raw``: re-read from the start when it can seek (no copy of the whole)."""
    try:
        if len(head) and raw.seekable() and raw.tell() == len(head):
            raw.seek(0)
            return read_block(raw, name)
    except (OSError, ValueError, AttributeError):
        pass
    rest = read_block(raw, name)
    return head + rest if rest else head


def _peek(raw: BinaryIO, name: str) -> bytes:
    """The first bytes (up to 10) of a stream, without losing them."""
    out = b""
    while len(out) < 10:
        chunk = read_block(raw, name, 10 - len(out))
        if not chunk:
            break
        out += chunk
    return out


class _Prefixed(io.RawIOBase):
    """``head`` then the rest of ``raw``: a stream whose first bytes were already read."""

    def __init__(self, head: bytes, raw: BinaryIO, owned: bool = False):
        self.head, self.raw, self.owned = head, raw, owned
        self.consumed = 0  # bytes given out so far

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if self.owned and not self.raw.closed:  # a file we opened: closed with the stream
            self.raw.close()
        super().close()

    def readinto(self, buffer) -> int:
        # the head and then as much of the rest as one read gives: the first block a reader checks is then
        # no shorter than a file's (a control byte among the 10 bytes peeked was 10% of the first block)
        n = 0
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            if n == len(buffer) or self.head:
                self.consumed += n
                return n
        data = self.raw.read(len(buffer) - n)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        data = data or b""
        buffer[n: n + len(data)] = data
        self.consumed += n + len(data)
        return n + len(data)


def open_stream(source: PathOrFile) -> tuple[BinaryIO, str]:
    """A binary stream of the decompressed text of ``source`` and its name, for streamed readers.

    Compression is recognised by magic bytes as in :func:`load_bytes`, and a
    broken or truncated archive raises a one-line :class:`InputError` from
    ``read`` wherever it is met. The caller closes the stream.

    >>> import gzip, io
    >>> stream, name = open_stream(io.BytesIO(gzip.compress(b"q Q0 d 1 2.5 t\\n")))
    >>> stream.read()
    b'q Q0 d 1 2.5 t\\n'
    """
    name = _name_of(source)
    raw, owned = _open_raw(source, name)
    head = _peek(raw, name)
    kind = compression_of(head)
    inner = prefixed = _Prefixed(head, raw, owned)
    if kind is not None:
        inner = _CheckedStream(_decompressing(prefixed, kind), kind, name, prefixed)
    return io.BufferedReader(GuardedStream(inner, name), BLOCK_BYTES), name
