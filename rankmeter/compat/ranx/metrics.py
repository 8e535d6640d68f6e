"""ranx's metric names (``ndcg@10``, ``map@100-l2``, ``rbp.95``) read as rankmeter measures, and ``evaluate``.

ranx 0.3 computes every metric from the docs whose grade is >= the level ``-lN``
(default 1): a doc below it counts as not relevant and gains nothing, and
negative grades are just low grades (bpref counts them as judged non-relevant).
Each name becomes the rankmeter measures that give ranx's value per query:

==================  ============================================================
ranx                rankmeter
==================  ============================================================
``hits@k``          ``Hits(rel=N)@k``
``hit_rate@k``      ``HitRate(rel=N)@k`` (Success)
``precision@k``     ``P(rel=N)@k``
``recall@k``        ``R(rel=N)@k``
``f1@k``            ``F1(rel=N)@k``
``r-precision``     ``Rprec(rel=N)``
``mrr@k``           ``RR(rel=N)@k``
``map@k``           ``AP(rel=N)@k``
``bpref``           ``Bpref(rel=N)``
``dcg@k``           ``DCG(gain={g: g if g >= N else 0})@k`` (Järvelin: gain = grade)
``dcg_burges@k``    ``DCG(gain={g: 2^g - 1 if g >= N else 0})@k`` (Burges)
``ndcg@k``          ``nDCG`` with the ``dcg`` gains: ideal of the judged docs, cut at k
``ndcg_burges@k``   ``nDCG`` with the ``dcg_burges`` gains
``rbp.P``           ``(1 - p) sum_i g_i p^(i-1)`` with g = the grade (>= N):
                    ``N * RBP(p=0.P, rel=N) + sum_{t>N} RBP(p=0.P, rel=t)``
==================  ============================================================

A gain map lists the grades of the qrels, so :func:`measures_for` takes them.
No cutoff (``k = 0`` in ranx, also written ``ndcg@0``) means the whole ranking.

ranx's metric functions themselves (``ranx.metrics.ndcg(qrels, run, k, rel_lvl)`` on lists of
``[doc id, value]`` arrays) are here too, from :mod:`rankmeter.compat.ranx.kernels`.
"""
from __future__ import annotations

from rankmeter.compat.ranx.metric_names import METRICS, grades_of, measures_for, measures_of, split_metric

__all__ = ["METRICS", "grades_of", "measures_for", "measures_of", "split_metric",
           # ranx.metrics' functions on typed lists (rankmeter.compat.ranx.kernels), loaded on first use
           "average_precision", "bpref", "dcg", "dcg_burges", "f1", "get_hit_lists", "hit_rate", "hits", "ndcg",
           "ndcg_burges", "precision", "r_precision", "rank_biased_precision", "recall", "reciprocal_rank",
           "metric_switch"]


def __getattr__(name: str):  # ranx.metrics' kernels: `from rankmeter.compat.ranx.metrics import ndcg` as from ranx
    if name in __all__:
        import rankmeter.compat.ranx.kernels as kernels
        return getattr(kernels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
