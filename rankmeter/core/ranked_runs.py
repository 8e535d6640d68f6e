"""A run in the core's rank order: re-ranked, cut to its first k docs per query, written with its ranks.

Rank order is always the engine's (score descending, docno descending; a ranked list keeps its order), so
a written run ranks as rankmeter and trec_eval score it. The other run-file utilities (filter, re-tag,
merge, sample) and the writer itself are :mod:`rankmeter.io.runs`'s.

>>> r = cut({"q1": {"a": 0.1, "b": 0.9, "c": 0.5}, "q2": {"x": 1.0}}, 2)
>>> [(q.decode(), d.decode()) for q, d in zip(r.table.column("query").to_pylist(), r.table.column("doc").to_pylist())]
[('q1', 'b'), ('q1', 'c'), ('q2', 'x')]
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmeter.core.build import ranked_rows
from rankmeter.core.params import PARAMS
from rankmeter.engine.groups import query_starts
from rankmeter.engine.param import validate_params
from rankmeter.io import as_run
from rankmeter.io.canonical import Run
from rankmeter.io.runs import write_rows

__all__ = ["rerank", "cut", "write_run"]


@validate_params(PARAMS["ties"])
def rerank(run, *, ties: str = "trec_eval") -> Run:
    """The run's rows in rank order (queries in bytewise order; tied docs by ``ties``: trec_eval's
    docno descending, or ``"input"``: the order given)."""
    run = as_run(run)
    return Run(run.table.take(pa.array(ranked_rows(run, ties=ties))), run.source, origin=run.origin, tag=run.tag,
               ranked=run.ranked)


@validate_params(PARAMS["k"])
def cut(run, k: int, *, ties: str = "trec_eval") -> Run:
    """Each query's first ``k`` docs, in rank order (``ties`` as :func:`rerank`)."""
    ranked = rerank(run, ties=ties)
    starts = query_starts(ranked.table.column("query"))
    counts = np.diff(np.append(starts, len(ranked)))
    position = np.arange(len(ranked)) - np.repeat(starts, counts)
    keep = np.flatnonzero(position < k)
    return Run(ranked.table.take(pa.array(keep)), ranked.source, tag=ranked.tag, ranked=ranked.ranked)


def write_run(run, path, *, inputs=(), format: str | None = None) -> None:
    """Write ``run`` in rank order as TREC (ranks renumbered), Parquet or JSON Lines, by ``format`` or suffix
    (:func:`rankmeter.io.runs.write_rows`); ``inputs``: files never written over."""
    write_rows(rerank(run), path, inputs=inputs, format=format)
