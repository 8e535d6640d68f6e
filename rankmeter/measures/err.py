"""Expected reciprocal rank: ``ERR@k`` and ``nERR@k`` (Chapelle et al. 2009).

The user scans down the ranking; the doc at rank i satisfies them with
probability R_i = (2^g_i - 1) / 2^g_max, and after a doc that did not satisfy
they go on with probability ``p``::

    ERR@k = sum_{i<=k} (1/i) * R_i * prod_{j<i} ((1 - R_j) * p)

Grades below the relevance threshold ``rel`` (so unjudged docs and negative
grades) count as 0; a grade above ``max_grade`` counts as ``max_grade`` (so
R_i < 1 always). ``nERR@k`` divides by the ERR@k of the ideal ordering of the
query's judged docs (0 when that is 0). gdeval (TREC Web track) is ERR@k with
``max_grade=4``, ``p=1``.

``max_grade`` left unset means the highest grade of the whole qrels
(MEASURES.md), a qrels-wide need the engine computes once: a query left
out of the mean, or a partition of a large dataset, does not change it.

Examples
--------
>>> import rankmeter
>>> r = rankmeter.evaluate({"q": {"a": 2, "b": 0, "c": 1, "d": 2}}, {"q": ["a", "b", "c"]},
...                        ["ERR@3", "ERR(max_grade=4)@3", "nERR@3"])
>>> {k: round(v, 4) for k, v in r.mean.items()}
{'ERR@3': 0.7708, 'ERR(max_grade=4)@3': 0.2044, 'nERR@3': 0.908}

With g_max = 2: R = 3/4, 0, 1/4, so ERR@3 = 3/4 + 0 + (1/4)(1/4)/3 = 0.7708.
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, Param, level_of, register
from rankmeter.measures.explaining import fmt_number
from rankmeter.engine.batch import Batch
from rankmeter.engine.segments import distinct_sorted


def _grades(rel: np.ndarray, level: int | float, top: int | float) -> np.ndarray:
    """Grades as ERR reads them: < level (and unjudged markers) -> 0, capped at ``top``."""
    return np.where(rel >= max(level, 0), np.minimum(rel, top), 0)


def _max_grade(batch: Batch, m) -> int | float:
    given = m.get("max_grade")
    if given is not None:
        return given
    # MEASURES.md: g_max is the highest grade in the whole qrels, computed once by the engine
    # (the batch may hold only some of the queries: a partition, or those the run answered).
    return batch.needs["qrels_max_grade"]


def _satisfy(grade, top: int):
    """R = (2^g - 1) / 2^top, written so that large grades do not overflow."""
    return np.exp2(np.asarray(grade, dtype=np.float64) - top) - np.exp2(-float(top))


def _err(batch: Batch, grades: np.ndarray, top: int, p: float, k: int | None) -> np.ndarray:
    """ERR over the rankings of ``batch`` with per-rank ``grades`` (already mapped to 0..top).

    Grades are small integers, so the probability of reaching rank i factors
    by grade: p^(i-1) * prod_L (1 - R_L)^(docs of grade L above i). The exact
    integer counts keep this free of the rounding a running product of many
    factors would accumulate.
    """
    rank = batch.rank
    inside = np.ones(len(grades), dtype=bool) if k is None else rank <= k
    reach = np.power(p, rank - 1.0)
    for level in distinct_sorted(grades[inside & (grades > 0)]).tolist():
        is_level = grades == level
        above = batch.segment_cumsum(is_level) - is_level  # docs of this grade strictly above
        # 1 - R_L, exact even when R_L is within an ulp of 1
        miss = (1.0 - np.exp2(float(level - top))) + np.exp2(-float(top))
        reach = reach * np.power(miss, above)
    satisfy = _satisfy(grades, top)
    return batch.per_query_sum(np.where(inside & (grades > 0), satisfy * reach / rank, 0.0))


def _ideal_batch(batch: Batch, grades: np.ndarray) -> Batch:
    """A batch whose rankings are the judged ``grades`` of each query, best first.

    ``judged_rel`` is sorted descending per query and the grade mapping of
    :func:`_grades` never reverses two grades, so ``grades`` is already ideal.
    """
    return Batch(queries=batch.queries, offsets=batch.judged_offsets, rel=grades,
                 judged_offsets=batch.judged_offsets, judged_rel=batch.judged_rel, needs=batch.needs)


def err(batch: Batch, m) -> np.ndarray:
    """ERR@k per query (the whole ranking without a cutoff)."""
    top = _max_grade(batch, m)
    grades = _grades(batch.rel, level_of(batch, m), top)
    return _err(batch, grades, top, m.get("p"), m.cutoff)


def nerr(batch: Batch, m) -> np.ndarray:
    """ERR@k divided by the ERR@k of the best ordering of the query's judged docs; 0 when that is 0."""
    top = _max_grade(batch, m)
    level = level_of(batch, m)
    found = _err(batch, _grades(batch.rel, level, top), top, m.get("p"), m.cutoff)
    judged = _grades(batch.judged_rel, level, top)
    ideal = _err(_ideal_batch(batch, judged), judged, top, m.get("p"), m.cutoff)
    out = np.zeros(batch.nq)
    np.divide(found, ideal, out=out, where=ideal > 0)
    return out


_PARAMS = (
    Param("max_grade", "integer", None, "g_max of R_i = (2^g - 1) / 2^g_max (gdeval: 4); default: the highest grade "
          "in the whole qrels", low=1),
    Param("p", "number", 1.0, "probability of going on after a doc that did not satisfy", low=0.0,
          high=1.0),
)



def _explain_err(batch: Batch, m, label: str) -> ExplainParts:
    """Per rank: R_i, the probability of reaching rank i, and its contribution R_i * reach / i."""
    top = _max_grade(batch, m)
    level = level_of(batch, m)
    k = m.cutoff
    grades = _grades(batch.rel if k is None else batch.rel[:k], level, top)
    satisfy = _satisfy(grades, top) * (grades > 0)
    reach = np.concatenate(([1.0], np.cumprod((1.0 - satisfy) * m.get("p"))[:-1])) if len(grades) else satisfy
    ranks = np.arange(1, len(grades) + 1)
    contribution = satisfy * reach / ranks
    terms = " + ".join(f"{fmt_number(r, 4)}*{fmt_number(c, 4)}/{i}"
                       for r, c, i in zip(reach, satisfy, ranks) if c > 0) or "0"
    err_label = "ERR" if k is None else f"ERR@{k}"
    found = float(contribution.sum())
    formula = [f"{err_label} = {terms} = {found:.4f}   [R_i = (2^g - 1) / 2^{top}, g_max = {top}]"]
    if m.name == "nERR":
        judged = _grades(batch.judged_rel, level, top)
        ideal = float(_err(_ideal_batch(batch, judged), judged, top, m.get("p"), k)[0])
        formula.append(f"{label} = {found:.4f} / {ideal:.4f} (ideal) = {found / ideal if ideal > 0 else 0.0:.4f}")
    return ExplainParts(["R_i", "P(reach i)", "contribution"],
                        [list(row) for row in zip(satisfy, reach, contribution)], formula)


register(Family("ERR", "expected reciprocal rank: sum of (1/i) R_i prod_{j<i} (1 - R_j) p, "
                       "R_i = (2^g - 1) / 2^g_max (Chapelle et al. 2009)", err, params=_PARAMS,
                needs=("qrels_max_grade",), explain=_explain_err))
register(Family("nERR", "ERR@k over the ERR@k of the ideal ordering of the judged docs", nerr, params=_PARAMS,
                needs=("qrels_max_grade",), explain=_explain_err))
