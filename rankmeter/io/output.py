"""Writing files safely: never over an input, never half a file, one clear message when it cannot.

:func:`output_file` checks the target before any work is spent on it and
writes to a temporary file beside it, synced to the disk and renamed into
place only when the writing finished (the folder synced after the rename):
an error, Ctrl-C, SIGTERM or SIGHUP leaves no partial output (the CLI's signal handlers call :func:`remove_partial_outputs`), and an
existing file stays as it was. Only a regular file is ever replaced: a
symbolic link is written through (its target replaced atomically, the link
kept), and a device, a FIFO or an open descriptor of this process
(``/dev/stdout``, ``/dev/fd/3``, ``/proc/self/fd/1``) is written directly,
every write checked. A FIFO that nobody reads yet gets a note on stderr
("waiting for a reader") and is then waited for, as a shell redirection would.
:func:`printable` escapes control characters (and bidirectional overrides) in
text taken from the data before it reaches a terminal.

>>> printable("run\\x1b]0;pwned\\x07")
'run\\\\x1b]0;pwned\\\\x07'
"""
from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rankmeter.errors import ParameterError, RankmeterError, printable  # noqa: F401 - printable: public here too
from rankmeter.io.inputs import recorded_as

__all__ = ["OutputError", "OutputIsInput", "check_output", "output_file", "printable", "remove_partial_outputs",
           "sync_folder"]

#: temporary files being written now (removed by remove_partial_outputs when a signal ends the process)
_PARTIAL: set[str] = set()
_PARTIAL_LOCK = threading.Lock()
#: a path naming an open descriptor of a process (after /dev/fd and /proc/self are resolved)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FD_PATH = re.compile(r"/proc/(\d+)(?:/task/\d+)?/fd/(\d+)")


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


def remove_partial_outputs() -> None:
    """Delete every temporary output file being written (a signal is ending the process)."""
    for temp in list(_PARTIAL):
        try:
            os.unlink(temp)
        except OSError:
            pass


def _resolve(target: Path) -> tuple[Path, int | None]:
    """The file a write to ``target`` reaches: symbolic links followed one by one, and the descriptor
    when the path names one of this process's open descriptors (``/dev/stdout`` -> 1), else None."""
    path = os.path.abspath(target)
    for _ in range(40):
        path = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        found = _FD_PATH.fullmatch(path)
        if found and int(found.group(1)) == os.getpid():
            return Path(path), int(found.group(2))
        if not os.path.islink(path):
            return Path(path), None
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    raise OutputError(f"{printable(target)}: too many levels of symbolic links; name the file itself")


def _kind(path: Path) -> str:
    """"missing", "regular", "fifo" or "other" (a device, a socket) for the file ``path`` reaches."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "other"
    return "regular" if stat.S_ISREG(mode) else "fifo" if stat.S_ISFIFO(mode) else "other"


def check_output(path, *, inputs: Iterable[object] = (), suffixes: tuple[str, ...] = ()) -> Path:
    """Refuse a target that names an input, a folder, a missing folder, an unwritable place or a wrong suffix.

    The inputs refused are those given and every file a rankmeter reader has
    opened in this process (:mod:`rankmeter.io.inputs`), by path, symbolic
    link or hard link: :class:`OutputIsInput`, a :class:`ParameterError`.
    A symbolic link is checked as the file it points to.
    """
    target = Path(os.fsdecode(path))
    _clash(target, inputs)
    if target.is_dir():
        raise OutputError(f"{target}: is a folder; name a file inside it")
    if suffixes and target.suffix.lower() not in suffixes:
        raise OutputError(f"{target}: the file name must end in {' or '.join(suffixes)}")
    final, fd = _resolve(target)
    if fd is not None:
        return target  # an open descriptor: written through it, each write checked
    through = f" (a link to {printable(final)})" if os.path.islink(target) else ""
    if _kind(final) not in ("missing", "regular"):  # a device or a FIFO: written directly, never replaced
        if not os.access(final, os.W_OK):
            raise OutputError(f"{target}{through}: not writable (permission denied); choose another place")
        return target
    folder = final.parent
    if not folder.is_dir():
        raise OutputError(f"{target}{through}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (final.exists() and not os.access(final, os.W_OK)):
        raise OutputError(f"{target}{through}: not writable (permission denied); choose another place")
    return target


def _new_temporary(final: Path) -> tuple[int, str]:
    """A new temporary file beside ``final``, recorded *before* it exists: a signal handler that runs at
    any moment (Python runs them between any two steps of the main thread) finds every one to remove."""
    while True:
        temp = os.path.join(final.parent, f".{final.name}.{secrets.token_hex(8)}.part")
        with _PARTIAL_LOCK:
            _PARTIAL.add(temp)
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o600), temp
        except FileExistsError:  # another's (64 random bits alike): never ours to remove
            with _PARTIAL_LOCK:
                _PARTIAL.discard(temp)
        except BaseException:
            _remove(temp)  # Ctrl-C just after it was made
            raise


def _remove(temp: str) -> None:
    try:
        os.unlink(temp)
    except OSError:
        pass
    with _PARTIAL_LOCK:
        _PARTIAL.discard(temp)


def _open_fifo(path: Path) -> int:
    """Open a FIFO for writing; when nobody reads it yet, say so on stderr and wait for a reader."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | _CLOEXEC)
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
            raise
        if sys.stderr is not None:
            print(f"rankmeter: waiting for a reader of {printable(path)} (a FIFO nothing reads from yet; "
                  "Ctrl-C to stop)", file=sys.stderr, flush=True)
        return os.open(path, os.O_WRONLY | _CLOEXEC)
    os.set_blocking(fd, True)  # a reader is there: writes wait for it as usual
    return fd


def _open_direct(final: Path, fd: int | None, kind: str) -> int:
    if fd is not None:  # /dev/stdout and the like: the very descriptor (its offset, its O_APPEND)
        if fd in (1, 2):
            stream = sys.stdout if fd == 1 else sys.stderr
            try:
                stream.flush()  # what was printed before comes first
            except (AttributeError, OSError, ValueError):
                pass
        return os.dup(fd)
    if kind == "fifo":
        return _open_fifo(final)
    return os.open(final, os.O_WRONLY | _CLOEXEC)  # a device: never created, never truncated


def sync_folder(folder) -> None:
    """fsync a folder, so that a file just renamed or made in it is still there after a power loss.

    A file system that cannot sync a folder (EINVAL, ENOTSUP: some network and FUSE file systems) is let
    be; any other failure is an :class:`OutputError`.
    """
    if os.name == "nt":  # no folder descriptors; NTFS journals the rename itself
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError as exc:
        raise OutputError(f"{printable(folder)}: cannot be synced ({exc.strerror or exc})") from None
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EROFS):
            raise OutputError(f"{printable(folder)}: the rename into it may not survive a power loss (fsync of "
                              f"the folder failed: {exc.strerror or exc})") from None
    finally:
        os.close(fd)


@contextmanager
def output_file(path, *, inputs: Iterable[object] = (), suffixes: tuple[str, ...] = (),
                mode: str = "w", replace: bool = True) -> Iterator:
    """Open ``path`` for writing through a temporary file renamed into place on success.

    Durable: the temporary file's data is flushed and fsynced before the rename, and the folder is fsynced
    after it, so a power loss leaves the old file or the new one, never an empty or half one.
    ``replace=False``: never over an existing file (an :class:`OutputError` if ``path`` exists when the
    writing is done).

    A symbolic link is written through: the file it points to is replaced
    (atomically, the link kept). Character devices (``/dev/full``, ``/dev/null``),
    FIFOs and this process's open descriptors (``/dev/stdout``) are written
    directly; a write error there (a full disk) is an :class:`OutputError` too.
    """
    inputs = list(inputs)
    target = check_output(path, inputs=inputs, suffixes=suffixes)
    kwargs = {} if "b" in mode else {"encoding": "utf-8", "newline": ""}
    final, fd = _resolve(target)
    kind = _kind(final)
    if fd is not None or kind not in ("missing", "regular"):
        try:
            with open(_open_direct(final, fd, kind), mode, **kwargs) as fh:
                yield fh
        except OSError as exc:
            raise OutputError(f"{target}: cannot be written ({exc.strerror or exc})") from None
        return
    temp = None
    try:
        if kind == "regular":  # a file replaced keeps its permissions
            bits = stat.S_IMODE(os.stat(final).st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            bits = 0o666 & ~umask  # as a plain open() would have made it
        fd, temp = _new_temporary(final)
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.chmod(temp, bits)
            os.fsync(fh.fileno())  # the data on the disk before the name points at it
        inputs = [p for p in inputs if isinstance(p, (str, os.PathLike))]
        _clash(target, inputs)  # again: an input read while the output was being made is safe too
        if replace:
            os.replace(temp, final)
        else:
            try:
                os.link(temp, final)   # fails when the name exists: never over another's file
            except FileExistsError:
                raise OutputError(f"{target}: exists already; nothing was written") from None
            except OSError as exc:     # no hard links here (FAT, some FUSE file systems)
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS) or final.exists():
                    raise
                os.replace(temp, final)
            else:
                os.unlink(temp)
        with _PARTIAL_LOCK:
            _PARTIAL.discard(temp)
        sync_folder(final.parent)  # the rename itself durable
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"{target}: cannot be written ({exc.strerror or exc}); nothing was written") from None
    finally:
        if temp is not None and temp in _PARTIAL:
            _remove(temp)
