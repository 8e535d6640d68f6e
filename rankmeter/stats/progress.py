"""A progress bar for long resampling loops: rich on a terminal, nothing otherwise."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["progress_bar", "LARGE"]

LARGE = 2e8  # numbers drawn or summed (about a second of work) before a bar is worth showing


@contextmanager
def progress_bar(total: int, *, work: float, label: str, stream=None) -> Iterator[Callable[[int], None] | None]:
    """Yield ``advance(n)`` that moves a bar of ``total`` steps, or None when no bar is shown.

    A bar is shown only when ``work`` is at least :data:`LARGE`, ``stream``
    (default ``sys.stderr``) is a terminal and rich is installed; it is
    removed when the work is done. Nothing is ever written to a non-terminal.
    """
    stream = sys.stderr if stream is None else stream
    try:
        show = work >= LARGE and total > 0 and stream.isatty()
    except (AttributeError, ValueError):
        show = False
    if show:
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
        except ImportError:
            show = False
    if not show:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
