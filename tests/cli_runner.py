"""The one way tests run the ``rankmeter`` command: in process (fast) or as a child process.

Tests take the ``cli`` / ``cli_subprocess`` fixtures of tests/conftest.py; a module-level helper
that needs a runner imports it from here (``from cli_runner import run_cli_in_process``; tests/
is on sys.path). A command that refuses for a missing optional package becomes a visible skip.
"""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from optional_packages import PIP_NAMES, install_hint, installed, top_level

@dataclass
class CliResult:
    """What one ``rankmeter`` command did: exit code, standard output and error (text and bytes).

    ``stdout`` / ``stderr`` / ``returncode`` read as on subprocess.CompletedProcess: text, or
    bytes when the runner was called with ``text=False``.
    """
    code: int
    out: str
    err: str
    stdout_bytes: bytes = b""
    stderr_bytes: bytes = b""
    text: bool = True

    @property
    def returncode(self) -> int:
        return self.code

    @property
    def stdout(self):
        return self.out if self.text else self.stdout_bytes

    @property
    def stderr(self):
        return self.err if self.text else self.stderr_bytes


_NEEDS_EXTRA = re.compile(r"No module named '([\w.]+)'|needs ([\w.]+): pip install")


def _skip_if_missing_extra(result: CliResult) -> CliResult:
    """A command that refused for a missing optional package (exit 2, the CLI's message) is a visible skip."""
    if result.code == 2:
        match = _NEEDS_EXTRA.search(result.err)
        if match:
            name = match.group(1) or match.group(2)
            if top_level(name) in PIP_NAMES and not installed(name):
                pytest.skip(f"needs {top_level(name)}, not installed ({install_hint(name)}): the CLI said {result.err.strip()}")
    return result


def _argv(args) -> list[str]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]


def run_cli_in_process(*args, stdin: bytes | str | None = None, cwd=None, text: bool = True) -> CliResult:
    """``rankmeter ARGS`` through ``rankmeter.cli.app.main`` in this process (its streams and folder given back)."""
    from rankmeter.cli.app import main

    argv = _argv(args)
    stdin_bytes = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
    out_buffer, err_buffer = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_buffer, encoding="utf-8", newline="", write_through=True)
    err = io.TextIOWrapper(err_buffer, encoding="utf-8", newline="", write_through=True)
    fake_in = io.TextIOWrapper(io.BytesIO(stdin_bytes), encoding="utf-8", newline="")
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_cwd = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = fake_in, out, err
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out.flush()
        err.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
    stdout_bytes, stderr_bytes = out_buffer.getvalue(), err_buffer.getvalue()
    result = CliResult(code if code is not None else 0, stdout_bytes.decode("utf-8", "replace"),
                       stderr_bytes.decode("utf-8", "replace"), stdout_bytes, stderr_bytes, text)
    return _skip_if_missing_extra(result)


def run_cli_subprocess(*args, stdin: bytes | str | None = None, cwd=None, env=None, timeout: float = 300,
                       text: bool = True) -> CliResult:
    """``python -m rankmeter ARGS`` in a child process: for exit paths, signals, the console entry point."""
    argv = _argv(args)
    stdin_bytes = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([sys.executable, "-m", "rankmeter", *argv], input=stdin_bytes, capture_output=True,
                          cwd=cwd, env=env, timeout=timeout)
    result = CliResult(done.returncode, done.stdout.decode("utf-8", "replace"),
                       done.stderr.decode("utf-8", "replace"), done.stdout, done.stderr, text)
    return _skip_if_missing_extra(result)
