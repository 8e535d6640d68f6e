"""One machine, big data: score a run file too big for memory, a block of whole queries at a time.

:func:`evaluate_file` reads the run file in blocks of about ``chunk_bytes``
(gzip is read as a stream), parses each block as the TREC reader does, holds
back the rows of the block's last query (it may go on in the next block) and
scores the rest like :func:`rankmeter.evaluate`: the qrels, loaded once,
are sliced to the block's queries, the same :class:`~rankmeter.engine.Batch`
is built and the same kernels run. Per-query values are put together at the
end in query order, so the result is the one the whole file gives, to the
last bit. Memory is the qrels, one block and the per-query values: a
100-million-line run needs a few GB instead of tens.

The run file must be grouped by query (each query's lines together, in
any query order), as every run written query by query is. A query met again
after another one is an error that says how to group the file:
``LC_ALL=C sort -s -k1,1 run.txt`` (stable, so each query keeps its line
order, which matters for ties and for ranked lists).
"""
from __future__ import annotations

import gzip
import io
import os
import sys
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .api import Results, compute_all, resolve_measures
from .engine import QUERY_POLICIES, TIE_POLICIES, BatchInfo, build_batch, warn_missing
from .errors import InputError, ParameterError
from .io import as_qrels, read_run
from .tables import Qrels, Run, decode_id

__all__ = ["evaluate_file"]

_EMPTY = "only comments or blank lines"


class _Blocks:
    """Whole lines of a (possibly gzipped) file, about ``size`` bytes at a time, with progress."""

    def __init__(self, source: str | os.PathLike | BinaryIO, size: int):
        if hasattr(source, "read"):
            self.name = str(getattr(source, "name", "<stream>"))
            self.raw = source
            self.total = None
        else:
            self.name = os.fsdecode(source)
            try:
                self.raw = open(source, "rb")
            except FileNotFoundError:
                raise InputError("no such file; check the path", source=self.name) from None
            except IsADirectoryError:
                raise InputError("is a directory; pass the run file inside it", source=self.name) from None
            except OSError as exc:
                raise InputError(f"cannot be read ({exc.strerror or exc})", source=self.name) from None
            self.total = os.fstat(self.raw.fileno()).st_size
        head = self.raw.peek(2)[:2] if hasattr(self.raw, "peek") else b""
        self.stream = gzip.GzipFile(fileobj=self.raw) if head == b"\x1f\x8b" else self.raw
        self.size = size

    def position(self) -> int:
        try:
            return self.raw.tell()
        except (OSError, ValueError):
            return 0

    def __iter__(self):
        rest = b""
        first = True
        while True:
            try:
                data = self.stream.read(self.size)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                raise InputError(f"broken or truncated gzip data ({exc}); re-create the file",
                                 source=self.name) from None
            if first and data[:3] == b"\xef\xbb\xbf":
                data = data[3:]
            first = False
            if not data:
                if rest:
                    yield rest
                return
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end yet: read on
                rest = data
                continue
            rest = data[cut:]
            yield data[:cut]


class _Progress:
    """A rich progress bar on stderr (bytes of the file read, queries scored), or nothing."""

    def __init__(self, enabled: bool | None, name: str, total: int | None):
        if enabled is None:
            enabled = sys.stderr is not None and sys.stderr.isatty()
        self.bar = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
        except ImportError:
            return  # progress is a nicety: without rich, work quietly
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(),
                            TextColumn("{task.fields[queries]:,} queries"), TimeElapsedColumn(),
                            TimeRemainingColumn(), console=Console(file=sys.stderr), transient=False)
        self.task = self.bar.add_task(os.path.basename(name), total=total, queries=0)
        self.bar.start()

    def update(self, done: int, queries: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, queries=queries)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _starts(query: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """First row of every block of equal consecutive ids."""
    n = len(query)
    if n == 0:
        return np.zeros(0, np.int64)
    change = pc.not_equal(query.slice(1), query.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    return np.concatenate(([0], np.flatnonzero(change) + 1))


class _QrelsIndex:
    """The qrels sorted by query once, so a block's judgments are a few slices."""

    def __init__(self, qrels: Qrels):
        table = qrels.table
        self.max_grade = max(int(pc.max(table.column("rel")).as_py() or 0), 0) if len(table) else 0
        order = pc.sort_indices(table, sort_keys=[("query", "ascending")])
        self.table = table.take(order)
        lines = qrels.lines if qrels.lines is not None else np.arange(1, len(table) + 1, dtype=np.int64)
        self.lines = lines[order.to_numpy()]  # for messages about a judgment
        query = self.table.column("query")
        starts = _starts(query)
        self.ids = query.take(pa.array(starts)).combine_chunks() if len(starts) else pa.array([], pa.binary())
        self.bounds = np.append(starts, len(self.table))
        self.seen = np.zeros(len(self.ids), dtype=bool)
        self.source = qrels.source
        self.origin = qrels.origin

    def slice(self, queries: pa.Array) -> Qrels:
        """The judgments of ``queries`` (marking them as met)."""
        hit = np.flatnonzero(pc.is_in(self.ids, value_set=queries).to_numpy(zero_copy_only=False))
        self.seen[hit] = True
        rows = self._rows(hit)
        return Qrels(self.table.take(pa.array(rows)), self.source, self.lines[rows], origin=self.origin)

    def unseen(self) -> tuple[np.ndarray, pa.Table]:
        """Query indices never met in the run, and their judgments."""
        miss = np.flatnonzero(~self.seen)
        return miss, self.table.take(pa.array(self._rows(miss)))

    def _rows(self, which: np.ndarray) -> np.ndarray:
        lo, hi = self.bounds[which], self.bounds[which + 1]
        counts = hi - lo
        return np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())


def _parse(block: bytes, name: str, line0: int) -> Run | None:
    """One block of whole lines as a Run; errors name the line in the whole file."""
    try:
        run = read_run(io.BytesIO(block))
    except InputError as exc:
        text = str(exc)
        if _EMPTY in text or "the file is empty" in text:
            return None
        message = text.split(": ", 1)[1] if exc.source and text.startswith(exc.source) else text
        if exc.line is not None:
            lines = [exc.line] if isinstance(exc.line, int) else list(exc.line)
            raise InputError(message, source=name, line=[line0 + n for n in lines]) from None
        raise InputError(message, source=name) from None
    lines = run.lines if run.lines is not None else np.arange(1, len(run) + 1, dtype=np.int64)
    return Run(run.table, name, lines + line0, tag=run.tag, ranked=run.ranked)


def _ungrouped(name: str, query: bytes, line: int | None) -> InputError:
    return InputError(f"query {decode_id(query)} appears again after other queries; scoring in chunks needs "
                      "each query's lines together: group the file by query first, e.g. "
                      "LC_ALL=C sort -s -k1,1 run.txt > grouped.txt (stable: ties keep their order)",
                      source=name, line=line)


def evaluate_file(qrels, run, measures, *, queries: str = "both", rel: int = 1, judged_only: bool = False,
                  max_docs: int | None = None, ties: str = "trec_eval", chunk_bytes: int = 32 << 20,
                  threads: int | None = None, progress: bool | None = None) -> Results:
    """Score a TREC run file block by block; the same results as :func:`rankmeter.evaluate`.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments, loaded whole (they are usually far smaller than the run).
    run : path or binary file object
        A TREC run file (gzip allowed), grouped by query.
    measures, queries, rel, judged_only, max_docs, ties
        As for :func:`rankmeter.evaluate`.
    chunk_bytes : int, default 32 MiB
        Bytes of the file read at a time; memory grows with it (about 8x per
        chunk in flight).
    threads : int, optional
        Chunks scored at once while the next one is read (default: 2, or 1
        on a one-core machine). Arrow's parser and numpy release the GIL.
    progress : bool, optional
        Show a progress bar on stderr (needs rich); default: when stderr is a terminal.

    Returns
    -------
    Results

    Raises
    ------
    InputError
        For the same problems as :func:`rankmeter.read_run` (naming the line
        in the whole file), and when a query's lines are not together.
    """
    if isinstance(rel, bool) or not isinstance(rel, (int, np.integer)):
        raise ParameterError(f"rel={rel!r}: expected an integer relevance threshold")
    if queries not in QUERY_POLICIES:
        raise ParameterError(f"queries={queries!r}: expected one of {QUERY_POLICIES}")
    if ties not in TIE_POLICIES:
        raise ParameterError(f"ties={ties!r}: expected one of {TIE_POLICIES}")
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, (int, np.integer)) or chunk_bytes < 1:
        raise ParameterError(f"chunk_bytes={chunk_bytes!r}: expected a positive number of bytes")
    if threads is None:
        threads = min(2, os.cpu_count() or 1)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ParameterError(f"threads={threads!r}: expected a positive number of threads")
    names = resolve_measures(measures)
    unique = list(dict.fromkeys(m for _, m in names))
    index = _QrelsIndex(as_qrels(qrels))
    options = dict(queries=queries, max_docs=max_docs, ties=ties, qrels_max_grade=index.max_grade)

    blocks = _Blocks(run, int(chunk_bytes))
    bar = _Progress(progress, blocks.name, blocks.total)
    done_ids: list[pa.Array] = []   # query ids met so far, one array per chunk
    parts: list[tuple[list[bytes], dict]] = []
    pending: deque[Future] = deque()
    held: Run | None = None
    ranked = None
    tag = b""
    line0 = 0

    def score(qrels_part: Qrels, run_part: Run):
        batch, _ = build_batch(qrels_part, run_part, **options)
        return batch.queries, compute_all(batch, unique, rel=int(rel), judged_only=judged_only)

    def collect(limit: int) -> None:
        while len(pending) > limit:  # bounds the chunks in memory
            parts.append(pending.popleft().result())
        bar.update(blocks.position(), sum(len(q) for q, _ in parts))

    pool = ThreadPoolExecutor(max_workers=int(threads))
    try:
        for block in blocks:
            parsed = _parse(block, blocks.name, line0)
            line0 += block.count(b"\n")
            if parsed is None:
                continue
            if ranked is not None and parsed.ranked != ranked:
                raise InputError("the file mixes scored lines (6 fields) and ranked lines (2 fields)",
                                 source=blocks.name, line=int(parsed.line_of(0)))
            ranked, tag = parsed.ranked, parsed.tag or tag
            if held is not None:
                parsed = Run(pa.concat_tables([held.table, parsed.table]), blocks.name,
                             np.concatenate([held.lines, parsed.lines]), tag=tag, ranked=ranked)
            held, ready = _whole_queries(parsed, index, done_ids, last=False)
            if ready is not None:
                pending.append(pool.submit(score, *ready))
                collect(int(threads) - 1)
        if held is not None:
            _, ready = _whole_queries(held, index, done_ids, last=True)
            pending.append(pool.submit(score, *ready))
        collect(0)
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)
        bar.close()
        if not hasattr(run, "read"):
            blocks.raw.close()

    missing, judged = index.unseen()
    missing_ids = index.ids.take(pa.array(missing, pa.int64())).to_pylist()
    if queries == "qrels" and len(missing):  # judged queries the run never answered: empty rankings
        empty = Run(pa.table({"query": pa.array([], pa.binary()), "doc": pa.array([], pa.binary()),
                              "score": pa.array([], pa.float64())}), blocks.name)
        batch, _ = build_batch(Qrels(judged, index.source), empty, **options)
        parts.append((batch.queries, compute_all(batch, unique, rel=int(rel), judged_only=judged_only)))
    warn_missing(BatchInfo(missing_from_run=tuple(missing_ids), only_in_run=()), queries)

    all_queries = [q for qs, _ in parts for q in qs]
    order = sorted(range(len(all_queries)), key=all_queries.__getitem__)
    values = {}
    for m in unique:
        chunks = [v[m] for _, v in parts]
        joined = np.concatenate(chunks) if chunks else np.zeros(0)
        values[m] = joined[np.asarray(order, dtype=np.int64)] if len(order) else joined
    return Results([all_queries[i] for i in order], names, values, run_name=decode_id(tag) or blocks.name)


def _whole_queries(run: Run, index: _QrelsIndex, done_ids: list, *, last: bool):
    """Split off the rows of ``run``'s last query unless ``last``; check grouping.

    Returns (rows held back or None, (qrels of the whole queries, their run rows) or None).
    """
    query = run.table.column("query")
    starts = _starts(query)
    held = None
    if not last:
        if len(starts) < 2:
            return run, None  # one query so far: it may go on
        cut = int(starts[-1])
        held = Run(run.table.slice(cut), run.source, run.lines[cut:], tag=run.tag, ranked=run.ranked)
        run = Run(run.table.slice(0, cut), run.source, run.lines[:cut], tag=run.tag, ranked=run.ranked)
        starts = starts[:-1]
        query = run.table.column("query")
    heads = query.take(pa.array(starts)).combine_chunks()
    if len(pc.unique(heads)) != len(heads):  # a query in two places within this block
        counts = pc.value_counts(heads)
        twice = counts.filter(pc.greater(counts.field("counts"), 1)).field("values")[0].as_py()
        where = np.flatnonzero(pc.equal(heads, twice).to_numpy(zero_copy_only=False))[1]
        raise _ungrouped(run.source, twice, int(run.line_of(int(starts[where]))))
    if done_ids:
        again = pc.is_in(heads, value_set=pa.concat_arrays(done_ids)).to_numpy(zero_copy_only=False)
        if again.any():
            first = int(np.flatnonzero(again)[0])
            raise _ungrouped(run.source, heads[first].as_py(), int(run.line_of(int(starts[first]))))
    done_ids.append(heads)
    return held, (index.slice(heads), run)
