"""The streamed executor: a run file too big for memory, scored a block of whole queries at a time.

:func:`evaluate_streamed` reads the run file in blocks of about
``chunk_bytes`` (gzip is read as a stream; :mod:`.blocks` ends each block
where its last query's lines begin), parses each block as the TREC reader
does, holds back the rows of a last query that may go on in the next block
and hands the rest to :meth:`Evaluator.score
<rankmeter.core.Evaluator.score>` on a pool of threads (Arrow's parser and
numpy release the GIL, so both cores work); :meth:`~rankmeter.core.Evaluator.finish`
puts the parts together in query order, so the result is the one the whole
file gives, to the last bit. Memory is the qrels, the blocks in flight and the
per-query values: a 100-million-line run needs a few GB instead of tens.
Errors name the line in the whole file.

The run file must be grouped by query (each query's lines together, in
any query order), as every run written query by query is. A query met again
after another one is an error that says how to group the file:
``LC_ALL=C sort -s -k1,1 run.txt`` (stable, so each query keeps its line
order, which matters for ties and for ranked lists).
"""
from __future__ import annotations

import os
import stat
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from rankmeter.errors import InputError, ParameterError
from rankmeter.io.guard import line_breaks
from rankmeter.io.source import check_text, compression_of, first_data_line
from rankmeter.io.trec import run_from_block
from rankmeter.core.results import Results
from rankmeter.io.canonical import Columns, Run, decode_id
from rankmeter.engine.ids import Ids
from rankmeter.executors.blocks import Blocks
from rankmeter.executors.progress import Progress

__all__ = ["evaluate_streamed", "STREAM_CHUNK_BYTES"]

#: bytes of the file per block. Measured on 20M lines of the 100M bench (1M-query qrels): 2 MiB 6.3 s /
#: 927 MiB peak, 8 MiB 4.7 s / 984 MiB, 32 MiB 5.6 s / 1234 MiB: small blocks stay in the CPU caches
#: and fewer rows are in flight; below ~4 MiB the per-block costs win
STREAM_CHUNK_BYTES = 8 << 20


def _parse(block: bytes, name: str, line0: int) -> tuple[Run | None, int]:
    """One block of whole lines as a Run (errors name the line in the whole file), and its line count."""
    if not first_data_line(block)[2]:
        return None, line_breaks(block)  # only comments or blank lines: nothing to score in this block
    try:
        # the compiled reader straight on the block, after the checks every text input gets
        check_text(block, name)
        run = run_from_block(block, name)
    except InputError as exc:
        lines = None if exc.line is None else [line0 + n for n in ([exc.line] if isinstance(exc.line, int)
                                                                    else exc.line)]
        raise InputError(exc.message, source=name, line=lines, hint=exc.hint) from None
    if run.lines is None and _one_line_per_row(block):
        count = len(run)  # no blank or comment line anywhere: counting the line ends would cost a pass
        lines = np.arange(line0 + 1, line0 + count + 1, dtype=np.int64)
    else:
        count = line_breaks(block)  # LF, CR and CRLF end lines, as the readers number them
        lines = (run.lines if run.lines is not None else np.arange(1, len(run) + 1, dtype=np.int64)) + line0
    return Run(run.data, name, lines, tag=run.tag, ranked=run.ranked, doc_hash=run.doc_hash), count


def _one_line_per_row(block: bytes) -> bool:
    """Whether a block whose rows are its lines from the first (``run.lines is None``) has no line after
    its last row: it ends with one LF after a field, and has no CR (which would end lines too)."""
    return block.endswith(b"\n") and block[-2:-1] not in (b"", b"\n", b" ", b"\t", b"\x0b", b"\x0c") \
        and b"\r" not in block


class UngroupedRun(InputError):
    """A run file whose queries' lines are not together: it cannot be scored in blocks."""


#: executor="auto" streams a plain TREC run file at least this big; below it reads the file whole. Reading
#: whole is about 10% faster below a gigabyte but holds ~1.45x the file in memory; past a gigabyte that is
#: what a laptop has, while streaming holds blocks of the file and the qrels (under a gigabyte on a 3.5 GB
#: run) and catches up, then wins, on time too (bench/bench_big.py --whole measures both side by side).
STREAM_AUTO_BYTES = 1 << 30


def streams_by_itself(run, options) -> bool:
    """Whether executor="auto" streams ``run``: a plain (uncompressed) regular TREC text file of at least
    :data:`STREAM_AUTO_BYTES`, read with the TREC reader (no other format, no named columns)."""
    if options.executor != "auto" or options.columns or options.input_format not in ("auto", "trec"):
        return False
    if not isinstance(run, (str, os.PathLike)) or os.fsdecode(run) == "-":
        return False
    try:
        status = os.stat(run)
        if not stat.S_ISREG(status.st_mode) or status.st_size < STREAM_AUTO_BYTES:
            return False
        with open(run, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return False
    return compression_of(head) is None and not head.startswith(b"PAR1")


def evaluate_auto(evaluator, run):
    """``executor="auto"`` for a run that is not a Spark frame: streamed when :func:`streams_by_itself`,
    else in memory; a big file whose queries are not grouped is read whole after all (with a warning)."""
    if streams_by_itself(run, evaluator.options):
        try:
            return evaluate_streamed(evaluator, run)
        except UngroupedRun:
            import warnings
            warnings.warn(f"{os.fsdecode(run)}: its queries' lines are not together, so it is read whole in "
                          "memory (group it by query to score it in bounded memory)", stacklevel=2)
    return evaluator.evaluate(run)


def _ungrouped(name: str, query: bytes, line: int | None) -> InputError:
    return UngroupedRun(f"query {decode_id(query)} appears again after other queries; scoring in chunks needs "
                      "each query's lines together: group the file by query first, e.g. "
                      "LC_ALL=C sort -s -k1,1 run.txt > grouped.txt (stable: ties keep their order)",
                      source=name, line=line)


def evaluate_streamed(evaluator, run) -> Results:
    """Score the TREC run file ``run`` (a path or binary file object, grouped by query) block by block.

    The values are those of :meth:`Evaluator.evaluate <rankmeter.core.Evaluator.evaluate>`;
    ``evaluator.options`` gives ``chunk_bytes`` (default 8 MiB: memory grows
    with it, about 8x per block in flight), ``threads`` (blocks scored at once
    while the next is read; default 2, or 1 on a one-core machine) and
    ``progress`` (a bar on stderr; default when stderr is a terminal).

    Raises
    ------
    InputError
        For the same problems as :func:`rankmeter.read_run` (naming the line
        in the whole file), and when a query's lines are not together.
    """
    options = evaluator.options
    if options.input_format not in ("auto", "trec") or options.columns:
        given = (f"input_format={options.input_format!r}" if options.input_format not in ("auto", "trec")
                 else f"columns={dict(options.columns)!r}")
        raise ParameterError(f"the streamed executor reads TREC run text only; {given} cannot be honoured: use "
                             "executor='memory' for tables (CSV, TSV, Parquet, JSON Lines, named columns)")
    if not isinstance(run, (str, bytes, os.PathLike)) and not hasattr(run, "read"):
        raise InputError("the streamed executor reads a run file: pass its path (or executor='memory' for "
                         f"a {type(run).__name__})")
    threads = options.threads or min(2, os.cpu_count() or 1)
    blocks = Blocks(run, options.chunk_bytes or STREAM_CHUNK_BYTES)
    bar = Progress(blocks.total, os.path.basename(blocks.name), enabled=options.progress, bytes_=True,
                   transient=False, count_label="queries")
    done_ids = _SeenQueries()       # query ids met so far
    parts = []
    pending: deque[Future] = deque()
    held: Run | None = None
    ranked = None
    tag = b""
    line0 = 0
    scored = 0
    ranks = [True]  # every part's scores are 1, 2, 3 ... per query so far (ranks read as scores: warned at the end)

    def collect(limit: int) -> None:
        nonlocal scored
        while len(pending) > limit:  # bounds the blocks in memory
            parts.append(pending.popleft().result())
            scored += len(parts[-1].codes)
        bar.update(completed=blocks.position(), count=scored)

    pool = ThreadPoolExecutor(max_workers=int(threads))
    try:
        for block, carried in blocks:
            parsed, count = _parse(block, blocks.name, line0)
            line0 += count
            if parsed is None:
                continue
            if ranked is not None and parsed.ranked != ranked:
                raise InputError("the file mixes scored lines (6 fields) and ranked lines (2 fields)",
                                 source=blocks.name, line=int(parsed.line_of(0)))
            ranked, tag = parsed.ranked, parsed.tag or tag
            if held is not None:
                hashes = None if held.doc_hash is None or parsed.doc_hash is None else \
                    np.concatenate([held.doc_hash, parsed.doc_hash])
                parsed = Run(_joined(held, parsed), blocks.name,
                             np.concatenate([held.lines, parsed.lines]), tag=tag, ranked=ranked, doc_hash=hashes)
            # the block was cut where the next query's lines begin, and its last query is not that one: it is
            # whole (else its last query may go on in the next block: held back)
            whole = carried is not None and parsed.ids("query")[len(parsed) - 1] != carried
            held, ready = _whole_queries(parsed, done_ids, last=whole)
            if ready is not None:
                _looks_like_ranks(ready, ranks)
                pending.append(pool.submit(evaluator.score, ready))
                collect(int(threads) - 1)
        if held is not None:
            _, ready = _whole_queries(held, done_ids, last=True)
            _looks_like_ranks(ready, ranks)
            pending.append(pool.submit(evaluator.score, ready))
        collect(0)
    finally:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=True)
        bar.close()
        if not hasattr(run, "read"):
            blocks.close()
    if ranked is None:
        raise InputError("the file is empty (only comments or blank lines); pass a run file with "
                         "'query Q0 doc rank score tag' lines", source=blocks.name)
    if ranks[0]:  # MS MARCO's qid pid rank read as query doc score: every ranking reversed
        import warnings
        from rankmeter.io.columns import RANKS_AS_SCORES
        warnings.warn(f"{blocks.name}: {RANKS_AS_SCORES}", stacklevel=3)
    return evaluator.finish(parts, run_name=decode_id(tag) or blocks.name)


def _looks_like_ranks(part: Run, state: list) -> None:
    """Keep ``state[0]`` True while every part's scores are ranks (one cheap test a part, none once False)."""
    if state[0]:
        from rankmeter.io.columns import scores_look_like_ranks
        state[0] = scores_look_like_ranks(part)


def _joined(held: Run, parsed: Run):
    """The rows of ``held`` then ``parsed`` (the held-back query and the next block)."""
    if isinstance(held.data, Columns) and isinstance(parsed.data, Columns):
        return Columns({name: Ids.concat([column, parsed.data.columns[name]]) if isinstance(column, Ids)
                        else np.concatenate([column, parsed.data.columns[name]])
                        for name, column in held.data.columns.items()})
    import pyarrow as pa
    return pa.concat_tables([held.table, parsed.table])


def _whole_queries(run: Run, done_ids: "_SeenQueries", *, last: bool):
    """Split off the rows of ``run``'s last query unless ``last``; check grouping.

    Returns (rows held back or None, the rows of whole queries or None).
    """
    starts = run.ids("query").starts()
    held = None
    if not last:
        if len(starts) < 2:
            return run, None  # one query so far: it may go on
        cut = int(starts[-1])
        hashes = run.doc_hash
        held = Run(run.data.slice(cut, len(run) - cut), run.source, run.lines[cut:], tag=run.tag, ranked=run.ranked,
                   doc_hash=None if hashes is None else hashes[cut:])
        run = Run(run.data.slice(0, cut), run.source, run.lines[:cut], tag=run.tag, ranked=run.ranked,
                  doc_hash=None if hashes is None else hashes[:cut])
        starts = starts[:-1]
    heads = run.ids("query").take(starts)
    distinct, codes = heads.encode()
    if len(distinct) != len(heads):  # a query in two places within this block: the first one named
        twice = int(np.flatnonzero(np.bincount(codes) > 1)[0])
        where = np.flatnonzero(codes == twice)[1]
        raise _ungrouped(run.source, distinct[twice], int(run.line_of(int(starts[where]))))
    again = done_ids.repeated(heads)
    if again is not None:
        raise _ungrouped(run.source, heads[again], int(run.line_of(int(starts[again]))))
    return held, run


class _SeenQueries:
    """The query ids of the blocks so far, asked whether a new block's ids were met before.

    Ids are kept as 64-bit hashes in sorted runs whose sizes at least double from one to the next
    (two runs of similar size are merged), so each block costs a few binary searches, not a hash table
    of every id so far: asking anew per block made a 1M-query file cost seconds (quadratic). A hash
    hit is confirmed on the ids themselves, so a collision can never report a query that was not there.
    """

    def __init__(self):
        self.ids: list[Ids] = []
        self.levels: list[np.ndarray] = []

    def repeated(self, heads: Ids) -> int | None:
        """Index of the first of ``heads`` (distinct ids) seen in an earlier call, else None; then remember them."""
        if len(heads) == 0:
            return None
        hashes = heads.hashes()
        hit = np.zeros(len(heads), dtype=bool)
        for level in self.levels:
            at = np.minimum(np.searchsorted(level, hashes), len(level) - 1)
            hit |= level[at] == hashes
        if hit.any():  # confirmed on the ids themselves: numbered exactly, earlier ids first
            rows = np.flatnonzero(hit)
            seen = Ids.concat(self.ids)
            _, code = Ids.concat([seen, heads.take(rows)]).encode()
            confirmed = rows[np.isin(code[len(seen):], code[:len(seen)])]
            if len(confirmed):
                return int(confirmed[0])
        self.ids.append(heads)
        self.levels.append(np.sort(hashes))
        while len(self.levels) > 1 and len(self.levels[-2]) <= 2 * len(self.levels[-1]):
            top = self.levels.pop()
            self.levels[-1] = np.sort(np.concatenate((self.levels[-1], top)))
        return None
