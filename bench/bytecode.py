"""Byte-compile rankmeter before timing whole processes, as ``pip install`` does for an installed package.

An editable install writes no ``.pyc`` files where ``PYTHONDONTWRITEBYTECODE`` is set (it is on the
project's machine), and every process would then compile ~60 modules from source: about 0.1 s of
start-up no installed copy pays. The bench scripts call :func:`compile_rankmeter` first.
"""
from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_rankmeter() -> None:
    spec = importlib.util.find_spec("rankmeter")
    if spec is not None and spec.origin:
        compileall.compile_dir(str(Path(spec.origin).parent), quiet=1)
