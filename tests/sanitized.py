"""A C extension of rankmeter built with AddressSanitizer and UndefinedBehaviorSanitizer, and a script run
against it in a child process (any overflow or undefined behaviour aborts the child).

Tests import it as ``from sanitized import run_sanitized`` (tests/ is on sys.path).
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_sanitized(source: Path, tmp_path: Path, script: str, *args: str) -> subprocess.CompletedProcess:
    """Build ``source`` (a C file of rankmeter/) with both sanitizers into ``tmp_path``, then run ``script``
    with ``module`` loaded from that build (``args`` on its command line)."""
    runtime = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    assert os.path.isabs(runtime), "gcc's libasan is needed for the sanitizer build"
    target = tmp_path / (source.stem + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-fno-omit-frame-pointer", f"-I{sysconfig.get_paths()['include']}",
                    f"-I{ROOT / 'rankmeter' / 'engine'}", str(source), "-o", str(target)], check=True)
    loader = (
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location({source.stem!r}, {str(target)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n")
    env = dict(os.environ, LD_PRELOAD=runtime, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    return subprocess.run([sys.executable, "-c", loader + script, *args], env=env, capture_output=True, text=True,
                          timeout=600)
