"""trec_eval's run order for its other relevance formats (``-R prefs|qrels_prefs|qrels_jg``).

Those formats' measures (:mod:`rankmeter.measures.trec_eval.prefs`,
:mod:`rankmeter.measures.trec_eval.judgment_groups`) read each query's ranked documents, which the
core's one ranking gives (:func:`rankmeter.core.rows.ranked`), with trec_eval's tie order for each format.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmeter.core.rows import ranked

__all__ = ["ranked_docs"]


def ranked_docs(run, *, max_docs: int | None, ties_descending: bool) -> dict[bytes, np.ndarray]:
    """Each query's documents in the engine's rank order (:func:`rankmeter.core.rows.ranked`), cut to
    ``max_docs``.

    Ties: form_res_rels_jg.c (qrels_jg) orders them by docno descending like the qrels path (the
    engine's order); form_prefs_counts.c (prefs) by docno ASCENDING (its comp_sim_docno compares p1 to
    p2): each tied group of the engine's order read backwards.
    """
    rows = ranked(run, as_bytes=True)
    if rows.num_rows == 0:
        return {}
    position = np.arange(rows.num_rows)
    if not ties_descending:
        group = rows.column("tie_group").to_numpy()
        size = rows.column("tie_size").to_numpy()
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])[group]
        position = 2 * first + size - 1 - position  # the group's rows in reverse
    rank = rows.column("rank").to_numpy()
    keep = rank <= max(max_docs, 0) if max_docs is not None else np.ones(len(rank), dtype=bool)
    query = np.array(rows.column("query").to_pylist(), dtype=object).astype(bytes)[keep]
    doc = np.array(rows.column("doc").take(pa.array(position)).to_pylist(), dtype=object).astype(bytes)[keep]
    starts = np.flatnonzero(rank[keep] == 1)
    ends = np.r_[starts[1:], len(doc)]
    out = {q: doc[:0] for q in rows.column("query").unique().to_pylist()}  # -M 0 keeps every query, empty
    out.update({bytes(query[s]): doc[s:e] for s, e in zip(starts.tolist(), ends.tolist())})
    return out
