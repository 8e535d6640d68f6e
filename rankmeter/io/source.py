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

import io
import os
import stat
import sys
import threading
from typing import BinaryIO, Union

from rankmeter.errors import InputError
from rankmeter.io.compression import DECOMPRESS_ERRORS, Counted, broken, compression_of, opened, undone
from rankmeter.io.guard import BLOCK_BYTES, HEAD_BYTES, PARQUET_MAGIC, Text, check_text, read_text
from rankmeter.io.inputs import open_input, record_input
from rankmeter.io.lines import first_data_line, sniff_head

__all__ = ["Source", "read_source", "read_file", "load_bytes", "check_text", "open_stream", "compression_of",
           "first_data_line", "PathOrFile"]

PathOrFile = Union[str, bytes, "os.PathLike[str]", BinaryIO]

#: Seconds without data from a pipe or terminal before the "waiting" note.
WAIT_NOTE_SECONDS = 1.0

def _waiting_note(name: str, regular: bool) -> threading.Timer | None:
    """The started timer of a note on stderr, printed if a pipe or terminal gives nothing within a second
    (cancelled once the first bytes came: :func:`_taken`, and in :meth:`Source.open` after it)."""
    if regular or sys.stderr is None:
        return None
    def note() -> None:
        print(f"rankmeter: waiting for input from {name} (nothing written to it yet; Ctrl-C to stop)",
              file=sys.stderr, flush=True)
    timer = threading.Timer(WAIT_NOTE_SECONDS, note)
    timer.daemon = True
    timer.start()
    return timer


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


def _stdin() -> BinaryIO:
    if sys.stdin is None:
        raise InputError("there is no standard input to read; pass a file name", source="<stdin>")
    return getattr(sys.stdin, "buffer", sys.stdin)


def _open_raw(source: PathOrFile, name: str) -> tuple[BinaryIO, bool]:
    """(binary stream, whether rankmeter opened it and must close it); a file is recorded as an input
    (:mod:`rankmeter.io.inputs`, one call: opened and recorded, or recorded)."""
    if hasattr(source, "read") or name == "<stdin>":
        stream = source if hasattr(source, "read") else _stdin()
        record_input(stream, getattr(source, "name", None) if stream is source else None)
        return stream, False
    try:
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
    """One input, opened once: what it is called, whether and how it is compressed, its text, and its first
    lines.

    :meth:`open` opens a path, ``-`` (stdin) or a binary file object and records a file as an input (no output
    may be written over it: :mod:`rankmeter.io.inputs`); then :func:`rankmeter.io.compression.opened` looks at
    its first bytes once (gzip, bzip2, xz and zstd are recognised by their magic bytes whatever the file is
    called) and undoes its compression, and :func:`rankmeter.io.guard.read_text` reads its text with every
    block checked as it arrives (not text, a compression bomb, a line of gigabytes); a UTF-8 byte-order mark
    at byte 0 is dropped; and :func:`rankmeter.io.lines.sniff_head` finds its first data lines (``sniffed``),
    which the format registry recognises it by. Each of those modules is visited once. Then either ``text``
    holds the whole text, or -- a big regular file, when the caller asks (``defer_plain``/``defer_compressed``:
    the sizes from which a reader streams it) -- ``head`` holds its first bytes (``sample``: the first
    ``sample_bytes`` of them, what its format is recognised from) and ``stream`` the rest (the decompressor,
    or the plain file positioned after ``head``; ``compressed``: the compressed bytes read so far, a
    callable). Its text is then checked by the one reader that reads it, as it reads it
    (:func:`rankmeter.io.guard.text_blocks` for a reader that parses it block by block,
    :func:`rankmeter.io.guard.read_rest` for one that needs it whole): the guard is visited once, by the
    module that reads the text.

    >>> import io
    >>> src = Source.open(io.BytesIO(b"\\xef\\xbb\\xbfq 0 d 1\\n"))
    >>> src.text, src.name, src.deferred, src.sniffed.first
    (b'q 0 d 1\\n', '<stream>', False, (0, 0, b'q 0 d 1'))
    """

    def __init__(self, name: str, text: bytes | None, *, head: bytes = b"", stream=None, kind: str | None = None,
                 raw=None, compressed=None, sample_bytes: int | None = None):
        self.name, self.text, self.kind, self.stream, self.compressed = name, text, kind, stream, compressed
        self.head = text if text is not None else head
        self.sample = self.head if sample_bytes is None else self.head[:sample_bytes]
        self.raw = raw  # a deferred file's own descriptor (a decompressor does not close the file it reads)
        self.deferred = text is None
        self.sniffed = sniff_head(self.head)

    @classmethod
    def open_big(cls, path, plain: int, compressed: int, head_bytes: int = HEAD_BYTES + 3,
                 sample_bytes: int | None = None) -> "Source | None":
        """The regular file ``path`` left open after its first ``head_bytes`` of text when it has ``plain`` bytes
        or more (``compressed`` for a compressed one), else None (see :meth:`open`)."""
        return _deferred(os.fsdecode(path), plain, compressed, head_bytes, sample_bytes)

    def close(self) -> None:
        """Close what a deferred input holds open (a reader that streams it closes it when done)."""
        for held in (self.stream, self.raw):
            if held is not None:
                held.close()

    @classmethod
    def open(cls, source: PathOrFile, *, check: bool = True, defer_plain: int | None = None,
             defer_compressed: int | None = None, head_bytes: int = HEAD_BYTES + 3,
             sample_bytes: int | None = None) -> "Source":
        """The input ``source`` opened, checked (``check``: its whole text as text, not for a Parquet file)
        and read whole, or deferred (see the class)."""
        name = _name_of(source)
        if hasattr(source, "read"):
            note = None  # a file object: it is the caller's to feed
        else:
            note = _waiting_note(name, _regular_stream(_stdin()) if name == "<stdin>" else _is_regular(source))
        held = None
        try:
            raw, owned = _open_raw(source, name)
            try:
                size = _regular_size(raw) if owned else None
                held = _taken(raw, name, size, check=check, note=note, plain=defer_plain,
                              compressed=defer_compressed, head_bytes=head_bytes)
            finally:
                if owned and (held is None or held[2] is None):
                    raw.close()
        finally:
            if note is not None:
                note.cancel()
        text, kind, opened = held
        if opened is not None:
            stream, head, compressed = opened
            return cls(name, None, head=head, stream=stream, kind=kind, raw=raw, compressed=compressed,
                       sample_bytes=sample_bytes)
        return cls(name, text, kind=kind)


def _regular_size(raw) -> int | None:
    """The size of the regular file ``raw``, or None (a pipe, a device, cannot tell)."""
    try:
        status = os.fstat(raw.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _taken(raw: BinaryIO, name: str, size: int | None, *, check: bool = True, note=None, plain: int | None = None,
           compressed: int | None = None, head_bytes: int = HEAD_BYTES + 3, whole: bool = True):
    """``(text, compression, None)`` of the opened input ``raw``: its first bytes looked at once and its
    compression undone (:func:`rankmeter.io.compression.opened`), then its text read and checked
    (:func:`rankmeter.io.guard.read_text`); ``size``: a regular file's size (None: a pipe, a device, a file
    object), a plain one read in one piece after its first block passed the check.

    A regular file of ``plain`` bytes or more (``compressed`` for a compressed one; Parquet never) is left open
    after its first ``head_bytes`` of text instead, unchecked (its reader checks it as it reads it): ``(None,
    compression, (stream, head, compressed bytes read so far))``. ``whole=False``: None where the file would be
    read whole."""
    try:
        kind, stream, consumed, magic = opened(raw, name, regular=size is not None)
    finally:
        if note is not None:
            note.cancel()  # the first bytes came
    binary = magic.startswith(PARQUET_MAGIC)
    least = None if plain is None or size is None or binary else (plain if kind is None else compressed or plain)
    defer = least is not None and size >= least
    if not (defer or whole):
        return None
    if defer:
        return None, kind, (stream, _head(stream, head_bytes, name, kind), consumed)
    try:
        text = read_text(stream, name, kind=kind, compressed=consumed, plain=size is not None and kind is None,
                         check=check)
    finally:
        if isinstance(stream, Counted):
            stream.close()  # here, not by the collector wherever it runs (it closes ``raw`` only if owned: not here)
    return text, kind, None


def _head(stream: BinaryIO, size: int, name: str, kind: str | None) -> bytes:
    """The first ``size`` bytes of the text of ``stream`` (fewer at its end), a UTF-8 byte-order mark dropped."""
    try:
        head = bytes(stream.read(size))
    except DECOMPRESS_ERRORS as exc:
        raise broken(kind, exc, name) from None
    return head[3:] if head[:3] == b"\xef\xbb\xbf" else head


def _deferred(name: str, plain: int, compressed: int | None, head_bytes: int,
              sample_bytes: int | None = None) -> Source | None:
    """A regular file of ``plain`` bytes or more (``compressed`` for a compressed one) opened with its first
    ``head_bytes`` of text read, or None: read it whole (smaller, Parquet)."""
    try:
        status = os.stat(name)
        if not stat.S_ISREG(status.st_mode) or status.st_size < min(plain, compressed or plain):
            return None
        raw = open_input(name, "rb", buffering=0)
    except (OSError, ValueError):
        return None
    try:
        held = _taken(raw, name, status.st_size, plain=plain, compressed=compressed, head_bytes=head_bytes,
                      whole=False)
    except BaseException:
        raw.close()
        raise
    if held is None:
        raw.close()
        return None
    _, kind, (stream, head, compressed) = held
    return Source(name, None, head=head, stream=stream, kind=kind, raw=raw, compressed=compressed,
                  sample_bytes=sample_bytes)


def read_source(source: PathOrFile, kind: str, format: str = "auto", *, columns=None, grades: str = "integer"):
    """The Qrels or Run of a path, ``-`` or binary file object: opened once, then handed to the format registry.

    The input is opened once (:class:`Source`: opened, recorded, peeked at, decompressed, checked and its first
    lines found, in one visit) and handed to :func:`rankmeter.io.formats.dispatch`, which recognises its format
    from what the source found and calls its reader once. A big file named by path, when a format that parses a
    file as it streams in may be its format (:data:`~rankmeter.io.formats.STREAMED`) and no ``columns=`` that a
    file of its format's own layout could use are given, is left open after its first bytes; anything else is
    read whole."""
    from rankmeter.io.columns import Borrowed
    from rankmeter.io.compiled import COMPRESSED_MIN_BYTES, FILE_MIN_BYTES, HEAD_BYTES
    from rankmeter.io.formats import STREAMED, dispatch
    own_layout = not columns or isinstance(columns, Borrowed)  # no columns= a file of the format's own layout uses
    defer = own_layout and (format == "auto" or format in STREAMED)
    src = Source.open(source, check=format != "parquet", head_bytes=HEAD_BYTES + 3,
                      defer_plain=FILE_MIN_BYTES if defer else None, defer_compressed=COMPRESSED_MIN_BYTES,
                      sample_bytes=HEAD_BYTES)
    return dispatch(src, kind, format, columns=columns, grades=grades)


def read_file(source, kind: str, grades: str = "integer"):
    """The Run or Qrels of a big TREC file named by path, plain or compressed, read a block at a time and
    parsed on every core (:func:`~rankmeter.io.compiled.read_stream`), the first line refused (``Refused``), or
    None when the file is read whole instead (not a regular file, small, another format, not text, a broken
    archive: reading it whole names the problem)."""
    if not isinstance(source, (str, os.PathLike)) or os.fsdecode(source) == "-":
        return None
    from rankmeter.errors import RankmeterError
    from rankmeter.io.compiled import COMPRESSED_MIN_BYTES, FILE_MIN_BYTES, HEAD_BYTES, read_stream
    from rankmeter.io.formats import sniff
    src = Source.open_big(os.fsdecode(source), FILE_MIN_BYTES, COMPRESSED_MIN_BYTES, HEAD_BYTES + 3, HEAD_BYTES)
    if src is None:
        return None
    try:
        if sniff(src.sample, src.name, src.sniffed) != ("trec", False):
            src.close()
            return None
        return read_stream(src, kind, grades, src.sniffed.first)
    except (RankmeterError, OSError):
        return None


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
    kind, inner = undone(counted, counted.peek_start(10))
    text = Text(inner, name, kind=kind, compressed=counted.compressed_bytes if kind else None,
                under=counted if kind else None)
    return io.BufferedReader(text, BLOCK_BYTES), name
