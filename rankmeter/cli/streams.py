"""The command's standard streams: every byte written to standard output checked, standard error optional.

A write to a descriptor may write less than asked (a disk that fills up, a file-size limit) and say so
only in its count; Python's unbuffered standard output (``python -u``, ``PYTHONUNBUFFERED``) drops the
rest silently. :func:`guard_standard_streams` puts standard output behind :class:`Descriptor`, which
writes every byte or raises the error (``ENOSPC``, ``EFBIG``), so a full disk is one line and exit 2,
never a result cut short with exit 0. A standard stream that is closed at start (``>&-``, ``2>&-``)
gets a placeholder descriptor, so that no file rankmeter opens later becomes descriptor 1 or 2, and
``print`` never falls back from a missing standard error to standard output.

Nothing here imports numpy: the console entry calls it before the package loads.
"""
from __future__ import annotations

import errno
import io
import os
import select
import sys

__all__ = ["Descriptor", "checked_stdout", "guard_standard_streams", "write_all", "discard", "Tolerant"]


class Descriptor(io.RawIOBase):
    """A descriptor written whole or not at all: a short write is continued, an error raised.

    The descriptor stays open when this object is closed (it belongs to the process).
    """

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                n = os.write(self._fd, view[done:])
            except BlockingIOError:  # someone made the descriptor non-blocking: wait until it takes more
                select.select([], [self._fd], [])
                continue
            if n == 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            done += n
        return done


def write_all(stream, data) -> None:
    """Write ``data`` to ``stream`` whole: a raw stream's short writes are continued, never ignored."""
    view = memoryview(data).cast("B") if not isinstance(data, str) else data
    done = 0
    while done < len(view):
        n = stream.write(view[done:] if done else view)
        if n is None:  # a non-blocking raw stream that took nothing yet
            select.select([], [stream], [])
            continue
        if n == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done += n


def checked_stdout(stream) -> io.TextIOWrapper:
    """A text stream on ``stream``'s descriptor, with its encoding, whose every write is checked."""
    buffered = io.BufferedWriter(Descriptor(stream.fileno()), buffer_size=1 << 16)
    return io.TextIOWrapper(buffered, encoding=stream.encoding, errors=stream.errors,
                            line_buffering=bool(getattr(stream, "line_buffering", False)))


def discard():
    """A text stream that takes everything and keeps nothing (standard error when it is closed)."""
    return open(os.devnull, "w", encoding="utf-8")


class Tolerant:
    """Standard error as messages need it: a message that cannot be written (``2>/dev/full``, a closed
    terminal) is dropped, never an error that changes what the command did or its exit status."""

    def __init__(self, inner):
        self._inner = inner

    def write(self, text):
        try:
            return self._inner.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        try:
            self._inner.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _fill_closed(fd: int, flags: int) -> None:
    """Put a placeholder on ``fd`` when it is closed: /dev/null opened so that using it fails as on a
    closed descriptor (writes to a read-only one: EBADF), and no file opened later lands on it."""
    try:
        os.fstat(fd)
        return
    except OSError:
        pass
    try:
        placeholder = os.open(os.devnull, flags)
    except OSError:
        return
    if placeholder != fd:
        os.dup2(placeholder, fd, inheritable=False)
        os.close(placeholder)


def guard_standard_streams() -> None:
    """Called once by the console entry: standard output checked, closed standard streams made safe."""
    for fd, flags in ((0, os.O_WRONLY), (1, os.O_RDONLY), (2, os.O_RDONLY)):
        _fill_closed(fd, flags)
    if sys.stderr is None:  # started with 2>&-: messages go nowhere, never into standard output
        sys.stderr = discard()
    if not isinstance(sys.stderr, Tolerant):
        sys.stderr = Tolerant(sys.stderr)
    stdout = sys.stdout
    if stdout is None:
        return  # started with >&-: the CLI reports a write to it as an error (app._ClosedOutput)
    try:
        stdout.flush()
        fd = stdout.fileno()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return
    if fd == 1:  # the original stays as sys.__stdout__: never collected, so descriptor 1 is never closed
        sys.stdout = checked_stdout(stdout)
