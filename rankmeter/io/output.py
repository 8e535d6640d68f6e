"""Writing files safely: never over an input, never half a file, one clear message when it cannot.

:func:`output_file` checks the target before any work is spent on it and
writes to a temporary file beside it, renamed into place only when the
writing finished: an error or Ctrl-C leaves no partial output, and an
existing file stays as it was. :func:`printable` escapes control characters
(and bidirectional overrides) in text taken from the data before it reaches a
terminal.

>>> printable("run\\x1b]0;pwned\\x07")
'run\\\\x1b]0;pwned\\\\x07'
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rankmeter.errors import RankmeterError

__all__ = ["OutputError", "check_output", "output_file", "printable"]

#: bidirectional controls: shown escaped, never obeyed by a terminal
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class OutputError(RankmeterError, OSError):
    """An output file cannot be written: the message says which file, why, and what to do."""


def printable(text: object) -> str:
    """``text`` with control and bidirectional characters escaped (``\\x1b``, ``\\u202e``)."""
    text = str(text)
    if text.isprintable() and not (_BIDI & set(text)):
        return text
    return "".join(c if c.isprintable() and c not in _BIDI else repr(c)[1:-1] for c in text)


def _same_file(a: Path, b: object) -> bool:
    if not isinstance(b, (str, bytes, os.PathLike)) or os.fsdecode(b) == "-":
        return False
    try:
        return a.exists() and Path(os.fsdecode(b)).exists() and os.path.samefile(a, os.fsdecode(b))
    except OSError:
        return False


def check_output(path, *, inputs: Iterable[object] = (), suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse a target that names an input, a folder, a missing folder, an unwritable place or a wrong suffix."""
    target = Path(os.fsdecode(path))
    for given in inputs:
        if _same_file(target, given) or (isinstance(given, (str, os.PathLike))
                                         and os.path.abspath(os.fsdecode(given)) == os.path.abspath(target)):
            raise OutputError(f"{target}: that is one of the inputs; choose another output file name")
    if target.is_dir():
        raise OutputError(f"{target}: is a folder; name a file inside it")
    if suffixes and target.suffix.lower() not in suffixes:
        raise OutputError(f"{target}: the file name must end in {' or '.join(suffixes)}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{target}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OutputError(f"{target}: not writable (permission denied); choose another place")
    return target


@contextmanager
def output_file(path, *, inputs: Iterable[object] = (), suffixes: tuple[str, ...] = (),
                mode: str = "w") -> Iterator:
    """Open ``path`` for writing through a temporary file renamed into place on success.

    Character devices (``/dev/stdout``, ``/dev/full``) are written directly;
    a write error there (a full disk) is an :class:`OutputError` too.
    """
    target = check_output(path, inputs=inputs, suffixes=suffixes)
    kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
    if target.exists() and not target.is_file():  # a device or a FIFO: no rename possible
        try:
            with open(target, mode, **kwargs) as fh:
                yield fh
        except OSError as exc:
            raise OutputError(f"{target}: cannot be written ({exc.strerror or exc})") from None
        return
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent or ".")
    try:
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # as a plain open() would have made it
        os.replace(temp, target)
    except OSError as exc:
        raise OutputError(f"{target}: cannot be written ({exc.strerror or exc}); nothing was written") from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
