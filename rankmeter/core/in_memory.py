"""A whole run in memory, scored in query-aligned parts on every core (:meth:`Evaluator.evaluate`).

It is the core's own way to score a run it holds: the streamed and Spark executors
(:mod:`rankmeter.executors`) cut a run the core cannot hold, and call the same
:meth:`~rankmeter.core.evaluator.Evaluator.score` and :meth:`~rankmeter.core.evaluator.Evaluator.finish`.
A large run grouped by query (each query's rows together, as every run
written query by query is) is cut at query boundaries into one part per
thread; Arrow and numpy release the GIL, so both cores work. A run that is
small, or not grouped, is one part. The values are the same either way.
"""
from __future__ import annotations

import os

import numpy as np

from rankmeter.core.build import query_starts
from rankmeter.core.results import Results
from rankmeter.engine.segments import distinct_sorted
from rankmeter.io.canonical import Run

__all__ = ["evaluate_in_memory", "query_aligned_slices"]

#: rows below which a run is scored as one part
PARALLEL_ROWS = 1_500_000
#: rows per part of a big run: a part's working arrays (~25 of 8 bytes a row) stay near 50 MB
PART_ROWS = 250_000


def query_aligned_slices(run: Run, parts: int) -> list[Run] | None:
    """``run`` cut into about ``parts`` slices of whole queries, or None when it is not grouped by query."""
    query = run.ids("query")
    starts = query_starts(query)
    if len(query.take(starts).encode()[0]) != len(starts):
        return None
    n = len(run)
    wanted = np.arange(1, parts) * n // parts
    cuts = distinct_sorted(np.concatenate(([0], starts[np.searchsorted(starts, wanted)
                                                   .clip(max=len(starts) - 1)], [n])))
    out = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        lines = None if run.lines is None else run.lines[lo:hi]
        hashes = None if run.doc_hash is None else run.doc_hash[lo:hi]  # the compiled reader's, kept
        out.append(Run(run.data.slice(int(lo), int(hi - lo)), run.source, lines, origin=run.origin,
                       tag=run.tag, ranked=run.ranked, doc_hash=hashes))
    return out


def evaluate_in_memory(evaluator, run, *, warn: bool = True, check_common: bool = True) -> Results:
    """Score ``run`` (any run input) with ``evaluator``; the same values however it is cut."""
    from rankmeter.io import as_run

    run = as_run(run, columns=evaluator.options.columns, input_format=evaluator.options.input_format)
    threads = evaluator.options.threads or min(2, os.cpu_count() or 1)
    pieces = None
    if threads > 1 and len(run) >= PARALLEL_ROWS:
        pieces = query_aligned_slices(run, max(threads * 2, -(-len(run) // PART_ROWS)))
    if pieces is None or len(pieces) < 2:
        parts = [evaluator.score(run)]
    else:
        from concurrent.futures import ThreadPoolExecutor  # only big runs use threads

        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(evaluator.score, pieces))
    if warn:  # MS MARCO's qid pid rank read as query doc score: every ranking reversed (said once scored)
        from rankmeter.io.columns import warn_if_ranks
        warn_if_ranks(run)
    return evaluator.finish(parts, run_name=run.name or run.source, warn=warn, check_common=check_common,
                            source=run.source)
