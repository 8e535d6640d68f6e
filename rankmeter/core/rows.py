"""A run's ranked rows as a table: the one source of rank order, joins and tie groups for every analysis.

:func:`ranked` orders a run without judgments (a run check, a recommendation list, a fused run);
:meth:`rankmeter.Evaluator.rows` joins the same order to the judgments under the evaluation options.
Both come from :mod:`rankmeter.core.build` and :mod:`rankmeter.core.order`, the only places a run is
ordered or joined, so an analysis reading these tables ranks exactly what ``evaluate`` scores.

Tie groups are defined here once: the rows of one query with equal scores (a ranked list without
scores has none: every row is its own group). Every count of tie groups (``rankmeter check``,
``rankmeter ties``, the report) is :func:`tie_summary` of one of these tables, over the queries the
table holds: every query of the run for :func:`ranked`, the judged queries the run ranks for
:meth:`~rankmeter.Evaluator.rows`.

>>> t = ranked({"q10": {"a": 1.0}, "q2": {"b": 2.0, "c": 2.0, "d": 1.0}})
>>> t.column("query").to_pylist(), t.column("doc").to_pylist(), t.column("rank").to_pylist()
(['q2', 'q2', 'q2', 'q10'], ['c', 'b', 'd', 'a'], [1, 2, 3, 1])
>>> t.column("tie_size").to_pylist()
[2, 2, 1, 1]
>>> tie_summary(t, cutoffs=(1,))
{'queries': 2, 'groups': 1, 'tied_rows': 2, 'queries_with_ties': 1, 'straddle': {1: 1}}
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ranked", "tie_groups", "tie_summary", "rows_table", "ROW_COLUMNS"]

#: The columns of :meth:`rankmeter.Evaluator.rows`, in order (:func:`ranked` has the first six).
ROW_COLUMNS = ("query", "doc", "rank", "score", "tie_group", "tie_size", "grade", "judged", "relevant")


def _as_text(column) -> pa.Array:
    """Ids as strings (ids that are not UTF-8 keep their bytes through surrogate escapes, as everywhere)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        return column
    try:
        return column.cast(pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        from rankmeter.io.canonical import decode_id
        return pa.array([decode_id(v) for v in column.to_pylist()], pa.string())


def _natural_blocks(names: Sequence[bytes], offsets: np.ndarray) -> np.ndarray:
    """Row permutation moving whole query blocks (``offsets``) into the natural order of their ids."""
    from rankmeter.core.order import natural_order

    perm = natural_order(names)
    counts = np.diff(offsets)[perm]
    if (perm == np.arange(len(perm))).all():
        return np.arange(int(offsets[-1]), dtype=np.int64)
    new_starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    return np.repeat(offsets[:-1][perm] - new_starts, counts) + np.arange(int(counts.sum()), dtype=np.int64)


def _ties(offsets: np.ndarray, score: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per row in rank order: the number of its tie group (0, 1, ... over the table) and the group's size."""
    n = int(offsets[-1])
    new = np.ones(n, dtype=bool)
    if score is not None and n:
        new[1:] = score[1:] != score[:-1]
        new[offsets[1:-1]] = True  # a query's first row starts a group
    group = np.cumsum(new) - 1
    size = np.bincount(group, minlength=int(group[-1]) + 1 if n else 0)[group] if n else np.zeros(0, np.int64)
    return group.astype(np.int64), size.astype(np.int64)


def rows_table(query, doc, offsets: np.ndarray, score: np.ndarray | None, extra: dict | None = None, *,
               as_bytes: bool = False) -> pa.Table:
    """The table of ranked rows whose query blocks stand at ``offsets`` (one id per block in ``query``);
    ids as strings, or as the bytes the engine compares (``as_bytes``)."""
    names = query.to_pylist() if isinstance(query, pa.Array) else list(query)
    order = _natural_blocks(names, offsets)
    counts = np.diff(offsets)
    qidx = np.repeat(np.arange(len(counts)), counts)
    rank = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], counts) + 1
    score_in_order = None if score is None else np.asarray(score, dtype=np.float64)
    group, size = _ties(offsets, score_in_order)
    text = (lambda column: column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column) \
        if as_bytes else _as_text
    query_ids = text(pa.array(names, pa.binary()))
    take = pa.array(order)
    columns = {
        "query": query_ids.take(pa.array(qidx)).take(take),
        "doc": text(doc).take(take),
        "rank": pa.array(rank[order]),
        "score": pa.nulls(len(order), pa.float64()) if score is None else pa.array(score_in_order[order]),
        "tie_group": pa.array(group[order]),
        "tie_size": pa.array(size[order]),
    }
    for name, values in (extra or {}).items():
        columns[name] = values.take(take) if isinstance(values, pa.Array) else pa.array(np.asarray(values)[order])
    # tie groups numbered in table order (natural query order), so a group's number says where it stands
    if len(order):
        g = columns["tie_group"].to_numpy()
        new = np.ones(len(g), dtype=bool)
        new[1:] = g[1:] != g[:-1]
        columns["tie_group"] = pa.array(np.cumsum(new) - 1)
    return pa.table(columns)


def ranked(run, *, ties: str = "trec_eval", columns=None, input_format: str = "auto",
           as_bytes: bool = False, duplicates: str = "refuse") -> pa.Table:
    """Every row of ``run`` in rank order, without judgments: query, doc, rank, score, tie_group, tie_size.

    Queries in natural order (q2 before q10); within a query, the engine's order
    (:func:`rankmeter.core.order.rank_order`: score descending, then docno descending, or the given order
    under ``ties="input"`` and for ranked lists without scores). ``ties`` takes the evaluation options'
    values; ``"average"``, ``"best"`` and ``"worst"`` need grades, so without judgments they rank as
    ``"trec_eval"`` does (use :meth:`rankmeter.Evaluator.rows` for them). ``as_bytes``: ids as the bytes
    the engine compares (binary columns), not strings. A doc listed twice for a query is refused (InputError
    naming both lines), as evaluation refuses it; ``duplicates="keep"`` ranks every row (what a run check
    reporting the duplicates looks at).
    """
    from rankmeter.core.build import byte_ordered_queries, check_unique
    from rankmeter.core.order import rank_order
    from rankmeter.engine.segments import segment_offsets
    from rankmeter.io import as_run

    run = as_run(run, columns=columns, input_format=input_format)
    if duplicates != "keep":
        check_unique(run)  # a doc listed twice for a query is refused, as scoring the run would refuse it
    names, code = byte_ordered_queries(run)
    docs = run.ids("doc")
    score = None if run.ranked else run.numbers("score")
    order = rank_order(code, None if ties == "input" else score, docs)
    offsets = segment_offsets(np.bincount(code, minlength=len(names)))
    return rows_table(names.arrow(), docs.take(order).arrow(), offsets,
                      None if score is None else score[order], as_bytes=as_bytes)


def _query_index(rows: pa.Table) -> tuple[np.ndarray, list[str]]:
    """Per row, the index of its query block (the table holds each query's rows together), and the ids."""
    query = rows.column("query").combine_chunks()
    n = len(query)
    if n == 0:
        return np.zeros(0, np.int64), []
    new = np.ones(n, dtype=bool)
    new[1:] = pc.not_equal(query.slice(1), query.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    return np.cumsum(new) - 1, query.filter(pa.array(new)).to_pylist()


def tie_groups(rows: pa.Table, *, cutoffs: Sequence[int] = (10, 100, 1000)) -> list[dict]:
    """Per query of a table of ranked rows, its groups of two or more tied rows: how many
    (``tied_groups``), the largest, the rows in them (``tied_docs``), and the cut-offs k they straddle
    (a group starting at or above rank k and ending below it: the tie order decides what rank k keeps).

    >>> tie_groups(ranked({"q": {"a": 1.0, "b": 1.0, "c": 0.5}, "r": {"d": 1.0}}), cutoffs=(1, 2))
    [{'query': 'q', 'tied_groups': 1, 'largest': 2, 'tied_docs': 2, 'straddles': [1]}, \
{'query': 'r', 'tied_groups': 0, 'largest': 0, 'tied_docs': 0, 'straddles': []}]
    """
    qidx, names = _query_index(rows)
    group = rows.column("tie_group").to_numpy()
    size = rows.column("tie_size").to_numpy()
    rank = rows.column("rank").to_numpy()
    head = np.ones(len(group), dtype=bool)
    head[1:] = group[1:] != group[:-1]
    head &= size > 1
    q, first, sizes = qidx[head], rank[head], size[head]
    nq = len(names)
    count = np.bincount(q, minlength=nq)
    largest = np.zeros(nq, np.int64)
    np.maximum.at(largest, q, sizes)
    docs = np.bincount(q, weights=sizes, minlength=nq).astype(np.int64)
    across = {int(k): np.bincount(q, weights=(first <= k) & (first + sizes - 1 > k), minlength=nq) > 0
              for k in cutoffs}
    return [{"query": name, "tied_groups": int(count[i]), "largest": int(largest[i]), "tied_docs": int(docs[i]),
             "straddles": [k for k, hit in across.items() if hit[i]]} for i, name in enumerate(names)]


def tie_summary(rows: pa.Table, *, cutoffs: Sequence[int] = (10, 100, 1000)) -> dict:
    """Tie groups of a table of ranked rows (:func:`ranked`, :meth:`rankmeter.Evaluator.rows`), over the
    ``queries`` it holds: ``groups`` of two or more tied rows, ``tied_rows`` in them, ``queries_with_ties``,
    and ``straddle[k]``: the groups that straddle cut-off k (see :func:`tie_groups`)."""
    group = rows.column("tie_group").to_numpy()
    size = rows.column("tie_size").to_numpy()
    rank = rows.column("rank").to_numpy()
    qidx, names = _query_index(rows)
    head = np.ones(len(group), dtype=bool)
    head[1:] = group[1:] != group[:-1]
    head &= size > 1
    start, end = rank[head], rank[head] + size[head] - 1
    return {"queries": len(names), "groups": int(head.sum()), "tied_rows": int(size[head].sum()),
            "queries_with_ties": int(len(np.unique(qidx[head]))),
            "straddle": {int(k): int(((start <= k) & (end > k)).sum()) for k in cutoffs}}
