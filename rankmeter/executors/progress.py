"""One progress bar for long work: rich on a terminal, nothing otherwise.

Used by the streamed executor (bytes of a file read, queries scored) and by
the resampling tests of :func:`rankmeter.compare` (permutations done). A bar
is drawn only when asked for, or by default when stderr is a terminal and
rich is installed; nothing is ever written to a non-terminal.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Progress", "progress_bar"]


class Progress:
    """A bar of ``total`` units (None: unknown) labelled ``label``; :meth:`update` moves it."""

    def __init__(self, total: int | None, label: str, *, enabled: bool | None = None, bytes_: bool = False,
                 transient: bool = True, stream=None, count_label: str | None = None):
        stream = sys.stderr if stream is None else stream
        if enabled is None:
            try:
                enabled = stream is not None and stream.isatty()
            except (AttributeError, ValueError):
                enabled = False
        self._bar = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import (BarColumn, DownloadColumn, Progress as RichProgress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
        except ImportError:
            return  # a bar is a nicety: without rich, work quietly
        columns = [TextColumn("[bold]{task.description}"), BarColumn(),
                   DownloadColumn() if bytes_ else TextColumn("{task.completed}/{task.total}")]
        if count_label:
            columns.append(TextColumn("{task.fields[count]:,} " + count_label))
        columns += [TimeElapsedColumn(), TimeRemainingColumn()]
        self._bar = RichProgress(*columns, console=Console(file=stream), transient=transient)
        self._task = self._bar.add_task(label, total=total, count=0)
        self._bar.start()

    def update(self, *, completed: int | None = None, advance: int = 0, count: int | None = None) -> None:
        if self._bar is None:
            return
        fields = {} if count is None else {"count": count}
        if completed is not None:
            self._bar.update(self._task, completed=completed, **fields)
        else:
            self._bar.update(self._task, advance=advance, **fields)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


#: numbers drawn or summed (about a second of work) before a resampling bar is worth showing
LARGE = 2e8


@contextmanager
def progress_bar(total: int, *, work: float, label: str, stream=None) -> Iterator:
    """Yield ``advance(n)`` moving a bar of ``total`` steps, or None when no bar is shown (little ``work``)."""
    bar = Progress(total, label, stream=stream) if work >= LARGE and total > 0 else None
    if bar is None or bar._bar is None:
        yield None
        return
    try:
        yield lambda n: bar.update(advance=n)
    finally:
        bar.close()
