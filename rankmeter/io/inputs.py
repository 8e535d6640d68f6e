"""Every file this process has read, in one place: what the guarded writer never writes over.

Each reader that opens a file (:mod:`rankmeter.io.source`, :mod:`rankmeter.io.compiled`, and any
other code through :func:`open_input`) records it here: its device and inode (so that a
symbolic link or a hard link to it is recognised too) and its resolved path.
:func:`rankmeter.io.output.check_output` refuses any target that is one of them, whether or
not the command passed its inputs along: no command can forget one.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "qrels.txt")
>>> with open(path, "w") as fh:
...     _ = fh.write("q 0 d 1\\n")
>>> with open_input(path) as fh:
...     _ = fh.read()
>>> os.link(path, os.path.join(folder, "other-name"))
>>> recorded_as(os.path.join(folder, "other-name")) == os.path.realpath(path)
True
"""
from __future__ import annotations

import io
import os
import stat
import threading

__all__ = ["record_input", "recorded_as", "recorded_inputs", "open_input", "forget_inputs"]

_LOCK = threading.Lock()
#: (st_dev, st_ino) -> the resolved path the file was read under
_BY_INODE: dict[tuple[int, int], str] = {}
#: resolved paths read (a file since replaced under the same name is still that input)
_BY_PATH: set[str] = set()


def _key(status: os.stat_result) -> tuple[int, int] | None:
    """Device and inode of a regular file (a pipe or a terminal is no file to overwrite)."""
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _path_of_descriptor(fd: int) -> str | None:
    """The file an open descriptor reads (standard input redirected from a file), where the system says."""
    try:
        found = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return found if os.path.isabs(found) and os.path.exists(found) else None


def record_input(opened, path=None) -> None:
    """Note a file read as an input: ``opened`` is an open file object, a file descriptor or a path.

    ``path`` names it when ``opened`` is a file object or descriptor. Nothing
    happens for what is not a regular file (standard input from a pipe,
    ``/dev/zero``) or cannot be looked at.
    """
    try:
        fd = opened if isinstance(opened, int) else opened.fileno() if hasattr(opened, "fileno") else None
        if fd is not None:
            status = os.fstat(fd)
            if not isinstance(path, (str, bytes, os.PathLike)) or os.fsdecode(path) == "-":
                path = _path_of_descriptor(fd)
        else:
            status = os.stat(opened)
            path = opened if path is None else path
    except (OSError, ValueError, AttributeError, TypeError, io.UnsupportedOperation):
        return
    key = _key(status)
    if key is None:
        return
    resolved = os.path.realpath(os.fsdecode(path)) if isinstance(path, (str, bytes, os.PathLike)) else None
    with _LOCK:
        # the newest name: an inode met before may belong to a file since deleted whose number the
        # system gave to this one (the old name no longer finds it)
        if resolved or key not in _BY_INODE:
            _BY_INODE[key] = resolved or f"<input {key[1]}>"
        if resolved:
            _BY_PATH.add(resolved)


def recorded_as(target) -> str | None:
    """The recorded input ``target`` is (same path, a link to it, or a hard link), or None."""
    try:
        name = os.fsdecode(target)
    except TypeError:
        return None
    resolved = os.path.realpath(name)
    with _LOCK:
        if resolved in _BY_PATH:
            return resolved
        if not _BY_INODE:
            return None
        try:
            key = _key(os.stat(name))
        except (OSError, ValueError):
            return None
        found = _BY_INODE.get(key) if key is not None else None
    if found is None:
        return None
    try:  # the input is still there under its name: not an inode the system has since reused
        return found if _key(os.stat(found)) == key else None
    except (OSError, ValueError):
        return None


def recorded_inputs() -> list[str]:
    """The resolved paths of the files read so far, in the order first read."""
    with _LOCK:
        return list(dict.fromkeys(_BY_INODE.values()))


def forget_inputs() -> None:
    """Forget every recorded input (a long-lived process starting a new, unrelated job; tests)."""
    with _LOCK:
        _BY_INODE.clear()
        _BY_PATH.clear()


def open_input(path, mode: str = "rb", **kwargs):
    """``open(path, mode)`` for reading, recording the file as an input (see :func:`record_input`)."""
    if any(c in mode for c in "wax+"):
        raise ValueError(f"open_input opens files for reading; got mode={mode!r}")
    fh = open(path, mode, **kwargs)
    record_input(fh, path)
    return fh
