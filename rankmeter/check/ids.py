"""Whether an id seen as a query and as a doc is evidence of a mistake, or of an id space the two share.

MS MARCO numbers its queries and its passages with the same integers (qid 1048585, pid 1048585): in a
7M-line dev run thousands of qids are also pids that some query retrieved, and now and then a query
retrieves the passage that happens to carry its own number. That is chance, not swapped columns, and
not a corpus that holds the queries (BEIR's Quora, CQADupStack, ArguAna: there the query's own doc
ranks at the top of its list). The findings therefore weigh the evidence:

* :func:`shared_space`: both kinds of id are plain decimal integers (one numeric id space);
* :func:`swapped`: columns swapped leave no doubt: then most of a run's rows have a query id as their
  doc, or most of its queries are judged docs and no judged query;
* :func:`self_id_evidence`: queries listing their own id are suspicious when there are far more of
  them than chance gives in the shared space (a row's doc matches its query's number with probability
  about 1 / the span of the doc numbers), or when the own id ranks first in many of them; with ids
  that are not numbers (``q1``, ``doc17``) every such query counts.

Only numpy is used (``rankmeter eval`` runs the self-id part on TREC text without loading pyarrow).

>>> from rankmeter.engine.ids import Ids
>>> integers(Ids.from_list([b"1048585", b"7"])).tolist(), integers(Ids.from_list([b"q1"]))
([1048585, 7], None)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["integers", "shared_space", "swapped", "self_id_evidence", "beyond_chance", "SAMPLE"]

#: ids of a big column looked at to tell whether it is numeric and over which span (evenly spaced rows)
SAMPLE = 100_000
#: at most this many digits: the values stay exact in int64 (and in float64 for the chance estimate)
_DIGITS = 15
_POW10 = 10 ** np.arange(_DIGITS, dtype=np.int64)
#: a share of rows or queries at least this big is swapped columns, never chance
SWAPPED_SHARE = 0.5
#: own ids ranked first in at least this many queries (and this share of those listing them) are no chance
_TOP_MIN, _TOP_SHARE = 3, 0.25


def _sampled(ids):
    """``ids`` itself, or :data:`SAMPLE` of them at evenly spaced rows."""
    n = len(ids)
    return ids if n <= SAMPLE else ids.take(np.linspace(0, n - 1, SAMPLE).astype(np.int64))


def integers(ids) -> np.ndarray | None:
    """The ids (:class:`~rankmeter.engine.ids.Ids`) as int64 when every one is a decimal integer of 1 to 15
    digits, else None (a big column: call it on a sample)."""
    if not len(ids):
        return None
    offsets, values = ids.rebased()
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > _DIGITS or not ((values >= 48) & (values <= 57)).all():
        return None
    ends = np.repeat(offsets[1:] - 1, lengths)              # the last byte of each byte's id
    digits = (values.astype(np.int64) - 48) * _POW10[ends - np.arange(len(values))]
    return np.add.reduceat(digits, offsets[:-1])


def shared_space(query_ids, doc_ids) -> tuple[int, int] | None:
    """The span (lowest, highest) of the doc numbers when queries and docs are both numbered with plain
    integers (a sample of each big column is looked at), else None."""
    queries, docs = integers(_sampled(query_ids)), integers(_sampled(doc_ids))
    if queries is None or docs is None:
        return None
    return int(docs.min()), int(docs.max())


def swapped(rows_with_query_doc: int, rows: int, queries_judged_as_docs: int, queries: int) -> bool:
    """Whether the overlap can only be swapped columns: most rows have a query id as their doc, or most
    queries are judged docs (and no judged query)."""
    return rows_with_query_doc >= SWAPPED_SHARE * max(rows, 1) or \
        queries_judged_as_docs >= SWAPPED_SHARE * max(queries, 1)


def beyond_chance(seen: int, expected: float) -> bool:
    """Whether ``seen`` coincidences are far more than the ``expected`` number chance gives (a Poisson count:
    more than five standard deviations and three above it).

    >>> beyond_chance(2, 0.9), beyond_chance(40, 0.9)
    (False, True)
    """
    return seen > expected + 5 * math.sqrt(expected) + 3


def self_id_evidence(run, own: np.ndarray) -> dict | None:
    """What the rows ``own`` of ``run`` (rows whose doc is their query's own id) show: None when they are what
    chance gives in an id space queries and docs share, else ``{"queries": k, "expected": chance, "top": m}``
    (``m``: queries whose own id ranks first; ``expected`` is 0 for ids that are not numbers)."""
    query_ids = run.ids("query")
    own_queries = query_ids.take(own).to_pylist()
    k = len(set(own_queries))
    if not k:
        return None
    starts = query_ids.starts()                          # blocks of one query (a run is written query by query)
    span = shared_space(query_ids.take(starts), run.ids("doc"))
    if span is None:
        return {"queries": k, "expected": 0.0, "top": None}
    low, high = span
    numbers = integers(query_ids.take(starts))
    sizes = np.diff(np.append(starts, len(query_ids)))
    inside = (numbers >= low) & (numbers <= high)
    # a row's doc is its own query's number with probability ~ 1 / the span of the numbers the docs are drawn from
    expected = float(sizes[inside].sum()) / (high - low + 1)
    if beyond_chance(k, expected):
        return {"queries": k, "expected": expected, "top": None}
    if k < _TOP_MIN or run.ranked:
        return None
    score = np.asarray(run.numbers("score"), dtype=np.float64)
    block = np.searchsorted(starts, own, side="right") - 1
    top = int((score[own] >= np.maximum.reduceat(score, starts)[block]).sum())  # own id first (or tied first)
    if top >= max(_TOP_MIN, _TOP_SHARE * k):
        return {"queries": k, "expected": expected, "top": top}
    return None
