"""ranx's metric functions (``ranx.metrics.ndcg(qrels, run, k, rel_lvl)`` ...) on its low-level inputs.

ranx's scripts and its own tests call these on lists (numba typed lists, Python lists or a 3-D
array) of per-query ``(n, 2)`` arrays: ``[doc id, grade]`` rows for the qrels and ``[doc id,
score]`` rows for the run, the run's rows already in rank order (the i-th run array goes with the
i-th qrels array). Each function returns one value per query, computed by rankmeter's measures
exactly as :func:`~rankmeter.compat.ranx.evaluate` computes the metric of the same name: the rows
are ranked in the order given (as ranx's kernels take them, whatever their scores), doc ids are
matched exactly (ranx compares its float ids; so does this), a negative grade is a judged
non-relevant doc, and a doc listed twice in one query's array keeps its first row.

>>> import numpy as np
>>> qrels = [np.array([[1, 1], [4, 1], [5, 2]])]
>>> run = [np.array([[1, 0.9], [2, 0.8], [5, 0.7]])]
>>> hits(qrels, run, 2), ndcg(qrels, run).round(4), get_hit_lists(qrels, run)[0]
(array([1.]), array([0.7602]), array([1., 0., 1.]))
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmeter.compat.ranx.errors import InputTypeError, MeasureAssertion
from rankmeter.compat.ranx.metric_names import split_metric
from rankmeter.compat.ranx.scoring import scores_of
from rankmeter.errors import InputError, MeasureError

__all__ = ["average_precision", "bpref", "dcg", "dcg_burges", "f1", "get_hit_lists", "hit_rate", "hits", "ndcg",
           "ndcg_burges", "precision", "r_precision", "rank_biased_precision", "recall", "reciprocal_rank",
           "metric_switch", "typed_tables", "typed_values"]


def _stack(data, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows per query, all rows as one (n, 2) float array) of a list of per-query arrays or a 3-D array."""
    if isinstance(data, np.ndarray) and data.ndim == 3 and data.shape[-1] >= 2:
        return np.full(data.shape[0], data.shape[1], dtype=np.int64), data.reshape(-1, data.shape[-1])[:, :2]
    if isinstance(data, (dict, str, bytes)) or not hasattr(data, "__len__"):
        raise InputTypeError(f"{what}: expected a list of per-query [doc id, value] arrays (ranx's typed lists) or "
                             f"a ranx {what.capitalize()}; got {type(data).__name__}")
    try:
        arrays = [np.asarray(a, dtype=np.float64) for a in data]
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{what}: each query's rows must be numbers [doc id, value] ({exc})") from None
    arrays = [a.reshape(0, 2) if a.size == 0 else a for a in arrays]
    bad = [i for i, a in enumerate(arrays) if a.ndim != 2 or a.shape[1] < 2]
    if bad:
        raise InputTypeError(f"{what}: query {bad[0]}'s array has shape {arrays[bad[0]].shape}; each query is an "
                             "(n, 2) array of [doc id, value] rows")
    lengths = np.array([len(a) for a in arrays], dtype=np.int64)
    rows = np.concatenate([a[:, :2] for a in arrays]) if arrays else np.empty((0, 2))
    return lengths, rows


def _bits(values: np.ndarray) -> np.ndarray:
    """Float doc ids as exact integers (their bits; -0.0 read as 0.0, as ranx's == reads it)."""
    return np.ascontiguousarray(values + 0.0).view(np.int64)


def _first_rows(lengths: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(query of each row, row positions kept): a doc listed twice in a query keeps its first row."""
    query = np.repeat(np.arange(len(lengths)), lengths)
    if not len(rows):
        return query, np.arange(0)
    _, first = np.unique(np.stack([query, _bits(rows[:, 0])]), axis=1, return_index=True)
    return query, np.sort(first)


def typed_tables(qrels, run) -> tuple[pa.Table, pa.Table, list[int], int]:
    """The judgments and ranking tables of ranx's low-level inputs, their grades, and the number of queries.

    A run ranks its rows in the order given; query i is named ``"i"``.
    """
    judged_lengths, judged = _stack(qrels, "qrels")
    ranked_lengths, ranked = _stack(run, "run")
    if len(ranked_lengths) < len(judged_lengths):
        raise InputError(f"qrels hold {len(judged_lengths)} queries and the run {len(ranked_lengths)}: the i-th "
                         "run array is scored against the i-th qrels array", source="<run>")
    ranked_lengths = ranked_lengths[:len(judged_lengths)]
    ranked = ranked[:int(ranked_lengths.sum())]
    grades = judged[:, 1]
    if not np.all(np.isfinite(grades)) or np.any(grades != np.round(grades)):
        raise InputError("grades must be whole numbers (ranx's qrels hold integers)", source="<qrels>")
    grades = np.maximum(grades, 0).astype(np.int64)  # a negative grade: judged, not relevant (as ranx reads it)
    n = len(judged_lengths)
    starts = np.cumsum(ranked_lengths) - ranked_lengths
    position = np.arange(len(ranked)) - np.repeat(starts, ranked_lengths)
    judged_query, keep = _first_rows(judged_lengths, judged)
    judged_table = pa.table({"query": pa.array(judged_query[keep]).cast(pa.string()),
                             "doc": pa.array(_bits(judged[keep, 0])).cast(pa.string()), "rel": pa.array(grades[keep])})
    ranked_query, keep = _first_rows(ranked_lengths, ranked)
    ranked_table = pa.table({"query": pa.array(ranked_query[keep]).cast(pa.string()),
                             "doc": pa.array(_bits(ranked[keep, 0])).cast(pa.string()),
                             "score": pa.array(-position[keep].astype(np.float64))})
    return judged_table, ranked_table, sorted(set(grades.tolist())), n


def _metric(base: str, qrels, run, k, rel_lvl: int) -> np.ndarray:
    if base != "rbp" and k < 0:
        raise MeasureAssertion(f"k={k}: k must be greater or equal to 0 (0: the whole ranking)")
    if base == "rbp" and not 0 < k < 1:
        raise MeasureError(f"p={k}: RBP's persistence is between 0 and 1, e.g. 0.95")
    if base in ("ndcg", "ndcg_burges"):  # ranx: the run's DCG over the DCG of the qrels rows in their given order
        ideal = _metric(base[1:], qrels, qrels, k, rel_lvl)
        return _metric(base[1:], qrels, run, k, rel_lvl) / np.where(ideal == 0.0, 1.0, ideal)
    judged, ranked, grades, n = typed_tables(qrels, run)
    key = (base, k, int(rel_lvl))
    return scores_of(judged, ranked, [str(i) for i in range(n)], [key], grades)[key]


def typed_values(qrels, run, metrics: list[str]) -> dict[str, np.ndarray]:
    """ranx's ``evaluate`` on typed lists: each metric name's values per query, from the functions here."""
    out = {}
    for metric in metrics:
        base, k, level = split_metric(metric)
        out[metric] = _metric(base, qrels, run, k, level)
    return out


def _kernel(base: str, doc: str):
    def kernel(qrels, run, k: int = 0, rel_lvl: int = 1) -> np.ndarray:
        return _metric(base, qrels, run, int(k), rel_lvl)
    kernel.__name__ = kernel.__qualname__ = {"mrr": "reciprocal_rank", "map": "average_precision",
                                             "r-precision": "r_precision"}.get(base, base)
    kernel.__doc__ = f"""ranx's ``{kernel.__name__}`` per query: {doc} (top ``k``; ``k=0``: all), grades >= ``rel_lvl`` relevant."""
    return kernel


hits = _kernel("hits", "relevant docs retrieved")
hit_rate = _kernel("hit_rate", "1 if a relevant doc is retrieved")
precision = _kernel("precision", "precision")
recall = _kernel("recall", "recall")
f1 = _kernel("f1", "F1 of precision and recall")
r_precision = _kernel("r-precision", "precision at R, the number of relevant docs (k is ignored)")
reciprocal_rank = _kernel("mrr", "1 / the rank of the first relevant doc")
average_precision = _kernel("map", "average precision")
bpref = _kernel("bpref", "bpref (k is ignored)")
dcg = _kernel("dcg", "DCG with the grade as gain")
dcg_burges = _kernel("dcg_burges", "DCG with gain 2^grade - 1")
ndcg = _kernel("ndcg", "nDCG with the grade as gain")
ndcg_burges = _kernel("ndcg_burges", "nDCG with gain 2^grade - 1")


def rank_biased_precision(qrels, run, p: float, rel_lvl: int = 1) -> np.ndarray:
    """ranx's ``rank_biased_precision`` per query: RBP with persistence ``p`` and the grade as gain."""
    return _metric("rbp", qrels, run, float(p), rel_lvl)


def get_hit_lists(qrels, run, k: int = 0, rel_lvl: int = 1) -> list[np.ndarray]:
    """Per query, 1.0 where the doc at that rank (of the top ``k``; ``k=0``: all) has a grade >= ``rel_lvl``."""
    if k < 0:
        raise MeasureAssertion(f"k={k}: k must be greater or equal to 0 (0: the whole ranking)")
    judged_lengths, judged = _stack(qrels, "qrels")
    ranked_lengths, ranked = _stack(run, "run")
    n = len(judged_lengths)
    if len(ranked_lengths) < n:
        raise InputError(f"qrels hold {n} queries and the run {len(ranked_lengths)}", source="<run>")
    ranked_lengths = ranked_lengths[:n]
    ranked = ranked[:int(ranked_lengths.sum())]
    relevant = judged[:, 1] >= rel_lvl
    docs, codes = np.unique(np.concatenate([judged[relevant, 0], ranked[:, 0]]) + 0.0, return_inverse=True)
    width = max(len(docs), 1)
    keys = np.repeat(np.arange(n), judged_lengths)[relevant] * width + codes[:int(relevant.sum())]
    ranked_keys = np.repeat(np.arange(n), ranked_lengths) * width + codes[int(relevant.sum()):]
    hit = np.isin(ranked_keys, keys).astype(np.float64)
    starts = np.cumsum(ranked_lengths) - ranked_lengths
    kept = ranked_lengths if k == 0 else np.minimum(ranked_lengths, k)
    position = np.arange(len(ranked)) - np.repeat(starts, ranked_lengths)
    hit = hit[position < np.repeat(kept, ranked_lengths)]
    return np.split(hit, np.cumsum(kept)[:-1]) if n else []


_SWITCH = {"hits": hits, "hit_rate": hit_rate, "precision": precision, "recall": recall, "f1": f1,
           "r-precision": r_precision, "mrr": reciprocal_rank, "map": average_precision, "dcg": dcg,
           "dcg_burges": dcg_burges, "ndcg": ndcg, "ndcg_burges": ndcg_burges, "bpref": bpref,
           "rbp": rank_biased_precision}


def metric_switch(metric: str):
    """ranx's ``metric_switch``: the function of a metric's base name (``"ndcg"`` -> :func:`ndcg`)."""
    if metric not in _SWITCH:
        raise MeasureError(f"Metric {metric} not supported; ranx's metrics are {', '.join(_SWITCH)}")
    return _SWITCH[metric]
