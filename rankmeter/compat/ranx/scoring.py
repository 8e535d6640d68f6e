"""Each ranx metric's values per query, from rankmeter's evaluator (what ``evaluate`` and the kernels share).

A leaf of the drop-in: :mod:`~rankmeter.compat.ranx.evaluation` (dicts, Qrels and Runs) and
:mod:`~rankmeter.compat.ranx.kernels` (typed lists) both score through :func:`scores_of`.
"""
from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from rankmeter.compat.ranx.metric_names import measures_for, measures_of, split_metric

__all__ = ["options", "scores_of"]

#: The drop-in's deliberate differences, each with ranx's behaviour a setting away. ``"bpref"``:
#: ``"trec_eval"`` (default) gives a query without a judged non-relevant doc trec_eval's bpref
#: (relevant retrieved / relevant); ``"ranx"`` gives ranx's 0 / 0 = NaN (when a relevant doc is retrieved).
options = {"bpref": "trec_eval"}


def scores_of(judged: "pa.Table", ranked: "pa.Table", queries: list[str], metrics: list,
              grades: list[int]) -> dict:
    """Each ranx metric's values for ``queries`` (in that order); a query without judgments scores 0.

    A metric is a name (``"ndcg@10-l2"``) or one already split (``("ndcg", 10, 2)``).
    """
    from rankmeter.core.evaluator import Evaluator

    parts = {m: measures_for(m, grades) if isinstance(m, str) else measures_of(*m, grades) for m in metrics}
    wanted = list(dict.fromkeys(measure for part in parts.values() for _, measure in part))
    values = {m: np.zeros(len(queries)) for m in metrics}
    if not wanted or not len(judged):
        return values
    with warnings.catch_warnings():  # ranx scores an empty ranking 0 without a word
        warnings.filterwarnings("ignore", r".*judged queries have no results")
        # ranked in the order the run holds its docs: ranx's, ties included (rankmeter.compat.ranx.ties)
        results = Evaluator(judged, wanted, queries="qrels", ties="input").evaluate(ranked)
    position = {q: i for i, q in enumerate(results.queries)}
    found = np.array([q in position for q in queries], dtype=bool)
    order = np.array([position[q] for q in queries if q in position], dtype=np.int64)
    for metric, part in parts.items():
        for weight, measure in part:
            values[metric][found] += weight * np.asarray(results.values(measure), dtype=np.float64)[order]
    if options["bpref"] == "ranx":
        _ranx_bpref(values, judged, ranked, queries, metrics)
    return values


def _ranx_bpref(values: dict, judged, ranked, queries: list[str], metrics: list) -> None:
    """ranx's bpref of a query whose judged docs are all relevant: 0 / 0 = NaN once a relevant doc is retrieved."""
    import pyarrow.compute as pc
    for metric in metrics:
        base, _, level = split_metric(metric) if isinstance(metric, str) else metric
        if base != "bpref":
            continue
        nonrelevant = pc.less(judged.column("rel"), level)
        counts = judged.append_column("n", nonrelevant).group_by("query").aggregate([("n", "sum")])
        without = set(pc.filter(counts.column("query"), pc.equal(counts.column("n_sum"), 0)).to_pylist())
        rel = judged.filter(pc.greater_equal(judged.column("rel"), level))
        found = ranked.join(rel, keys=["query", "doc"], join_type="inner")
        retrieved = set(found.column("query").to_pylist())
        odd = np.array([q in without and q in retrieved for q in queries], dtype=bool)
        values[metric][odd] = np.nan
