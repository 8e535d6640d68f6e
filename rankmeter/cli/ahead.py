"""Parsing the TREC files of a command line while Python imports numpy and rankmeter.

``rankmeter trec_eval QRELS RUN`` and ``rankmeter eval QRELS RUN ...`` name their files on the command line.
Before the imports (numpy alone takes ~60 ms of CPU, more than parsing a 100k-line run), :func:`start` reads
the regular files named there of up to :data:`AHEAD_BYTES` and parses them with the compiled reader on a
thread; the parse holds no lock, so it runs on another core meanwhile. The reader
(:mod:`rankmeter.io.compiled`) takes a parse made ahead only for the very bytes it reads itself (same kind,
integer grades, equal bytes); anything else -- a file changed since, a wrong guess of which file is which -- is
parsed again as usual, so the results cannot differ. Nothing here imports numpy or writes anything; the
parses wait on the reader module itself (``_trecparse.ahead``), where the reader looks for them.
"""
from __future__ import annotations

import os
import stat
import sys
import threading

__all__ = ["start", "AHEAD_BYTES"]

#: the largest file parsed ahead: one piece of the compiled reader (bigger files are parsed in pieces on
#: every core, where the imports' time no longer matters)
AHEAD_BYTES = 4 << 20
_KINDS = {"run": 0, "qrels": 1}


def _small_file(word: str) -> bool:
    try:
        status = os.stat(word)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(status.st_mode) and 0 < status.st_size <= AHEAD_BYTES


def _jobs(argv: list[str]) -> list[tuple[str, str]]:
    """(kind, path) of the files a trec_eval or eval command line names, as far as its words tell."""
    words = argv[1:]
    command = next((w for w in words if not w.startswith("-")), None)
    if command not in ("trec_eval", "eval"):
        return []
    files = [w for w in words[words.index(command) + 1:] if not w.startswith("-") and _small_file(w)]
    if command == "trec_eval":  # trec_eval [options] QRELS RUN
        return list(zip(("qrels", "run"), files[-2:])) if len(files) >= 2 else []
    return [("qrels", files[0])] + [("run", f) for f in files[1:]] if files else []


def _reader():
    """The compiled reader's module, loaded from its file (importing ``rankmeter.io`` would import numpy)."""
    name = "rankmeter.io._trecparse"
    if name in sys.modules:
        return sys.modules[name]
    import importlib.machinery
    import importlib.util

    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "io")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, "_trecparse" + suffix)
        if os.path.exists(path):
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except ImportError:  # a broken build: the package's own import says so later
                return None
            sys.modules[name] = module  # the package's own import of it finds this one
            return module
    return None


def _parse(reader, jobs: list[tuple[str, str]], done: dict) -> None:
    for kind, path in jobs:
        try:
            with open(path, "rb", buffering=0) as handle:
                data = handle.read(AHEAD_BYTES + 1)
        except OSError:
            continue
        if data[:3] == b"\xef\xbb\xbf":
            data = data[3:]  # as the readers drop it
        if 0 < len(data) <= AHEAD_BYTES:
            done.setdefault(kind, []).append((data, reader.parse(data, _KINDS[kind], 0)))


def start(argv: list[str]) -> None:
    """Parse the files ``argv`` names on another thread (the compiled path only, small files only)."""
    if os.environ.get("RANKMETER_PURE", "") not in ("", "0"):
        return
    jobs = _jobs(argv)
    reader = _reader() if jobs else None
    if reader is None:
        return
    done: dict[str, list] = {}
    thread = threading.Thread(target=_parse, args=(reader, jobs, done), name="rankmeter-ahead", daemon=True)
    thread.start()
    reader.ahead = (thread, done)
