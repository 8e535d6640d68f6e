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

from rankmeter.errors import ParameterError, RankmeterError, printable  # noqa: F401 - printable: public here too
from rankmeter.io.inputs import recorded_as

__all__ = ["OutputError", "OutputIsInput", "check_output", "output_file", "printable"]

#: bidirectional controls: shown escaped, never obeyed by a terminal


class OutputError(RankmeterError, OSError):
    """An output file cannot be written: the message says which file, why, and what to do."""


class OutputIsInput(OutputError, ParameterError):
    """The output named is one of the inputs (the same path, a link to it or a hard link): never written."""


def _same_file(a: Path, b: object) -> bool:
    if not isinstance(b, (str, bytes, os.PathLike)) or os.fsdecode(b) == "-":
        return False
    try:
        return a.exists() and Path(os.fsdecode(b)).exists() and os.path.samefile(a, os.fsdecode(b))
    except OSError:
        return False


def _clash(target: Path, inputs: Iterable[object]) -> None:
    """Raise :class:`OutputIsInput` when ``target`` is a given input or any file this process has read."""
    for given in inputs:
        if _same_file(target, given) or (isinstance(given, (str, os.PathLike))
                                         and os.path.abspath(os.fsdecode(given)) == os.path.abspath(target)):
            raise OutputIsInput(f"output {printable(target)} is one of the inputs ({printable(os.fsdecode(given))}); "
                                "choose another output file name (nothing was written)")
    read = recorded_as(target)
    if read is not None:
        raise OutputIsInput(f"output {printable(target)} is one of the inputs ({printable(read)}"
                            f"{'' if os.path.abspath(target) == read else ', through a link'}); choose another "
                            "output file name (nothing was written)")


def check_output(path, *, inputs: Iterable[object] = (), suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse a target that names an input, a folder, a missing folder, an unwritable place or a wrong suffix.

    The inputs refused are those given and every file a rankmeter reader has
    opened in this process (:mod:`rankmeter.io.inputs`), by path, symbolic
    link or hard link: :class:`OutputIsInput`, a :class:`ParameterError`.
    """
    target = Path(os.fsdecode(path))
    _clash(target, inputs)
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
    inputs = list(inputs)
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
        inputs = [p for p in inputs if isinstance(p, (str, os.PathLike))]
        _clash(target, inputs)  # again: an input read while the output was being made is safe too
        os.replace(temp, target)
    except OSError as exc:
        raise OutputError(f"{target}: cannot be written ({exc.strerror or exc}); nothing was written") from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
