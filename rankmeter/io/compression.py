"""gzip, bzip2, xz and zstd: recognised by their magic bytes whatever the file is called, and undone as a stream.

:func:`undone` is what the readers of an input call, once: the compression its first bytes name and the
stream of its text (the decompressor over the raw bytes, or those bytes themselves). A decompressor reads
only what its reader asks for, so the text is checked block by block as it arrives
(:mod:`rankmeter.io.guard`); broken or truncated data is one line (:func:`broken`) naming the file.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from typing import BinaryIO

from rankmeter.errors import InputError

__all__ = ["compression_of", "decompressing", "undone", "broken", "DECOMPRESS_ERRORS", "MAGIC_BYTES"]

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


def broken(kind: str, exc: BaseException, name: str) -> InputError:
    """The one-line error for compressed data a decompressor could not read."""
    if isinstance(exc, EOFError):
        return InputError(f"the {kind} data is truncated (the file ends early); re-create or re-download "
                          "the file", source=name)
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return InputError(f"broken {kind} data ({detail}); re-create or re-download the file", source=name)
