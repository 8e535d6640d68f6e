"""gzip, bzip2, xz and zstd: recognised by their magic bytes whatever the file is called, and undone as a stream.

:func:`undone` is what the readers of an input call, once: the compression its first bytes name and the
stream of its text (the decompressor over the raw bytes, or those bytes themselves). A decompressor reads
only what its reader asks for, so the text is checked block by block as it arrives
(:mod:`rankmeter.io.guard`, which makes broken or truncated data one line naming the file).
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zlib
from typing import BinaryIO

from rankmeter.errors import InputError

__all__ = ["opened", "compression_of", "decompressing", "undone", "broken", "Counted", "as_bytes", "read_block",
           "DECOMPRESS_ERRORS", "MAGIC_BYTES"]

_COMPRESSIONS = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")
#: the bytes of an input's start that :func:`compression_of` looks at
MAGIC_BYTES = 10
#: what a decompressor raises on broken data
DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


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


def decompressing(raw: BinaryIO, kind: str) -> BinaryIO:
    """The decompressor of ``kind`` reading ``raw`` (nothing is read yet)."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bz2":
        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    return _zstd_reader(raw)


def opened(raw: BinaryIO, name: str, *, regular: bool) -> tuple[str | None, BinaryIO, object, bytes]:
    """``(compression, the stream of the text, the compressed bytes read so far (a callable) or None, the first
    bytes)`` of the opened input ``raw``, its first bytes looked at once: read where they are in a regular file
    (``regular``), else peeked and put back (:class:`Counted`: a pipe, a device, a file object). Nothing of the
    text is read yet."""
    if regular:
        magic = os.pread(raw.fileno(), MAGIC_BYTES, 0)
        kind, stream = (None, raw) if magic.startswith(b"PAR1") else undone(raw, magic)  # Parquet: binary
        return kind, stream, raw.tell if kind else None, magic
    counted = Counted(raw, name)
    magic = counted.peek_start(MAGIC_BYTES)
    kind, stream = undone(counted, magic)
    return kind, stream, counted.compressed_bytes if kind else None, magic


def broken(kind: str | None, exc: BaseException, name: str) -> InputError:
    """The one-line error for compressed data a decompressor could not read (``kind`` None: a plain input that
    could not be read)."""
    if isinstance(exc, InputError):
        return exc
    if kind is None:
        return InputError(f"cannot be read ({exc})", source=name)
    if isinstance(exc, EOFError):
        return InputError(f"the {kind} data is truncated (the file ends early); re-create or re-download "
                          "the file", source=name)
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InputError(f"broken {kind} data ({detail}); re-create or re-download the file", source=name)


def as_bytes(data, name: str) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InputError(f"read() returned a {type(data).__name__}; pass a binary file object", source=name)
    return bytes(data)


def read_block(stream: BinaryIO, name: str, size: int = -1) -> bytes:
    try:
        return as_bytes(stream.read(size), name)
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"cannot be read ({exc})", source=name) from None


class Counted(io.RawIOBase):
    """The raw bytes of an input as a decompressor reads them: bytes peeked first put back, text a file object
    returns made bytes, and the bytes given out counted (the guard refuses text that expands too many times)."""

    def __init__(self, raw: BinaryIO, name: str, *, owned: bool = False):
        self.raw, self.name, self.owned = raw, name, owned   # owned: a file rankmeter opened, closed with this
        self.head = b""
        self.consumed = 0

    def close(self) -> None:
        if self.owned and not self.raw.closed:
            self.raw.close()
        super().close()

    def peek_start(self, size: int) -> bytes:
        """The first ``size`` bytes (fewer at the end), read and put back: the next read gives them again."""
        while len(self.head) < size:
            chunk = read_block(self.raw, self.name, size - len(self.head))
            if not chunk:
                break
            self.head += chunk
        return self.head[:size]

    def compressed_bytes(self) -> int:
        return self.consumed

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        # the peeked head and then as much of the rest as one read gives: the first block a reader checks is
        # then no shorter than a file's (a control byte among the 10 bytes peeked was 10% of the first block)
        n = 0
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            if n == len(buffer) or self.head:
                self.consumed += n
                return n
        data = as_bytes(self.raw.read(len(buffer) - n), self.name) if len(buffer) > n else b""
        buffer[n: n + len(data)] = data
        self.consumed += n + len(data)
        return n + len(data)


def undone(raw: BinaryIO, magic: bytes) -> tuple[str | None, BinaryIO]:
    """(compression, the stream of the text) of ``raw``, whose first bytes are ``magic``: a decompressor
    over ``raw``, or ``raw`` itself when ``magic`` names no compression.

    >>> import gzip, io
    >>> kind, text = undone(io.BytesIO(gzip.compress(b"q 0 d 1\\n")), b"\\x1f\\x8b\\x08")
    >>> kind, text.read()
    ('gzip', b'q 0 d 1\\n')
    """
    kind = compression_of(magic)
    return kind, raw if kind is None else decompressing(raw, kind)
