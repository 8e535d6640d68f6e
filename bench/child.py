"""One child process timed as a whole: wall seconds and its own peak resident memory.

Every bench script measures tools this way, side by side: ``os.wait4`` gives this child's own rusage
(``RUSAGE_CHILDREN`` would give the largest of all children so far); its output goes to temporary
files, so a chatty child never blocks on a full pipe.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Child:
    status: int | None   # exit code; None when it was stopped after the timeout
    wall: float          # seconds
    peak_mib: float      # peak resident memory (ru_maxrss)
    stdout: str
    stderr: str
    cpu: float = 0.0     # user + system seconds of the child (less sensitive to a loaded machine than wall)


def run_child(argv: list[str], *, timeout: float | None = None, memory_gb: float | None = None) -> Child:
    """Run ``argv`` to its end (or kill it after ``timeout`` seconds); ``memory_gb`` caps its address
    space, so a tool that runs out of memory fails alone instead of waking the machine's OOM killer."""
    def cap():
        import resource
        limit = int(memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, preexec_fn=cap if memory_gb else None)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer is not None:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        stopped = timer is not None and not timer.is_alive() and wall >= timeout
        if timer is not None:
            timer.cancel()
        out.seek(0)
        err.seek(0)
        return Child(None if stopped else os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024,
                     out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                     usage.ru_utime + usage.ru_stime)
