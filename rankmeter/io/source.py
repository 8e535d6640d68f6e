"""The bytes of an input: from a path, ``-`` (stdin) or a file object, un-gzipped and checked.

Gzip is recognised by its magic bytes whatever the file is called. Input
that is not text at all (empty, binary, another compression or archive
format, UTF-16) is refused here, before any parsing, with a message that
says what the file is and what to do.
"""
from __future__ import annotations

import gzip
import os
import sys
import zlib
from typing import BinaryIO, Union

import numpy as np

from ..errors import InputError

__all__ = ["load_bytes", "check_text", "PathOrFile"]

PathOrFile = Union[str, bytes, "os.PathLike[str]", BinaryIO]

# Signatures of files that are not text: (start, must also contain, what it is, what to do).
# The second part keeps a text file whose first id merely starts like one ("PAR1 0 d 1").
_MAGIC = (
    (b"PK\x03\x04", b"", "a zip archive", "unzip it and pass the text file inside"),
    (b"BZh", b"1AY&SY", "bzip2-compressed", "decompress it first (bunzip2), or re-compress it with gzip"),
    (b"\xfd7zXZ\x00", b"", "xz-compressed", "decompress it first (unxz), or re-compress it with gzip"),
    (b"\x28\xb5\x2f\xfd", b"", "zstd-compressed", "decompress it first (unzstd), or re-compress it with gzip"),
    (b"7z\xbc\xaf\x27\x1c", b"", "a 7-zip archive", "extract the text file inside"),
    (b"PAR1", b"\x00", "a Parquet file", "load it with pandas/polars and pass the DataFrame"),
    (b"\xff\xfe", b"\x00", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"\xfe\xff", b"\x00", "UTF-16 text", "save it as UTF-8 or ASCII"),
    (b"%PDF-", b" obj", "a PDF document", "pass the TREC text file instead"),
)
# Control bytes that never occur in text (whitespace \t \n \v \f \r excluded).
_CONTROL = np.zeros(256, dtype=bool)
_CONTROL[[*range(1, 9), *range(14, 32), 127]] = True


def load_bytes(source: PathOrFile) -> tuple[bytes, str]:
    """Read a whole input (path, ``-`` for stdin, or binary file object), un-gzipped.

    Returns the bytes and a name for messages. Gzip is recognised by its
    magic bytes, whatever the file is called; a UTF-8 byte-order mark is dropped.
    """
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        try:
            data = source.read()
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot be read ({exc})", source=name) from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InputError(f"read() returned a {type(data).__name__}; pass a binary file object",
                             source=name)
        data = bytes(data)
    else:
        try:
            name = os.fsdecode(source)
        except TypeError:
            raise InputError(f"cannot read from a {type(source).__name__}; pass a path, '-' for "
                             "standard input, or a binary file object") from None
        if name == "-":
            name = "<stdin>"
            if sys.stdin is None:
                raise InputError("there is no standard input to read; pass a file name", source=name)
            stream = getattr(sys.stdin, "buffer", sys.stdin)
            data = stream.read()
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogateescape")
        elif isinstance(source, str) and ("\n" in source or len(source) > 4096):
            raise InputError("got text, not a file name; pass the path of the file, or the text "
                             "as io.BytesIO(text.encode())", source="<str>")
        else:
            try:
                with open(source, "rb") as fh:
                    data = fh.read()
            except FileNotFoundError:
                raise InputError("no such file; check the path", source=name) from None
            except IsADirectoryError:
                raise InputError("is a directory; pass the qrels or run file inside it", source=name) from None
            except PermissionError:
                raise InputError("permission denied; check the file's permissions", source=name) from None
            except OSError as exc:
                raise InputError(f"cannot be read ({exc.strerror or exc})", source=name) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise InputError("the gzip data is truncated (the file ends early); re-create or "
                             "re-download the file", source=name) from None
        except (OSError, zlib.error) as exc:
            raise InputError(f"broken gzip data ({exc}); re-create or re-download the file",
                             source=name) from None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    return data, name


def check_text(data: bytes, name: str) -> None:
    """Refuse empty input and input that is not text at all (both paths run this)."""
    if not data or data.isspace():
        raise InputError("the file is empty; expected TREC lines", source=name)
    for magic, also, what, todo in _MAGIC:
        if data.startswith(magic) and also in data[:4096]:
            raise InputError(f"this is {what}, not a TREC text file; {todo}", source=name)
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        head = data[:512]
        for zeros, other in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
            if zeros.count(0) * 2 > len(zeros) and other.count(0) == 0:
                raise InputError("looks like UTF-16 text (every other byte is NUL); save it as UTF-8 "
                                 "or ASCII", source=name)
        raise InputError("binary data (a NUL byte), not a TREC text file; check that this is the "
                         "right file", source=name, line=line)
    sample = np.frombuffer(data, dtype=np.uint8, count=min(len(data), 1 << 16))
    control = _CONTROL[sample]
    if control.sum() * 100 > len(sample):  # over 1%: no text file looks like this
        first = int(np.argmax(control))
        raise InputError(f"binary data (control byte 0x{sample[first]:02x} and many more), not a TREC "
                         "text file; check that this is the right file",
                         source=name, line=data.count(b"\n", 0, first) + 1)
