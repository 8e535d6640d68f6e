"""Plain, slow references of the diversity measures, written from ndeval.c's loops (TREC Web track, v4.5).

Same signature as :mod:`reference.measures`: ``f(qrels, ranking, params)`` for
one query, where a judgment is either a grade (one subtopic) or a dict
``{subtopic: grade}``; ``ranking`` is ``[(doc, judgment or None), ...]``;
``params["intents"]``, when given, is ``{subtopic: probability}`` for the query.
"""
from __future__ import annotations

import math

__all__ = ["REFERENCE", "subtopic_sets"]


def _subtopics(judgment) -> dict:
    if judgment is None:
        return {}
    return dict(judgment) if isinstance(judgment, dict) else {"0": judgment}


def subtopic_sets(qrels: dict, level: int) -> dict:
    """doc -> set of subtopics it covers (grade >= level)."""
    return {doc: {s for s, g in _subtopics(j).items() if g >= level} for doc, j in qrels.items()}


def _level(params) -> int:
    rel = params.get("rel")
    return max(1 if rel is None else rel, 0)


def _run(qrels, ranking, params) -> list[set]:
    """Covered subtopic sets in rank order (judged_only drops docs the qrels lack or grade negatively)."""
    level = _level(params)
    out = []
    for doc, judgment in ranking:
        if params.get("judged_only") and (judgment is None or max(_subtopics(judgment).values()) < 0):
            continue
        out.append({s for s, g in _subtopics(judgment).items() if g >= level})
    return out


def _actual(qrels, params) -> set:
    return set().union(*subtopic_sets(qrels, _level(params)).values()) if qrels else set()


def _units(qrels, params) -> dict:
    """What each covered subtopic counts for: 1, or S * its probability over the covered ones' total."""
    actual = _actual(qrels, params)
    intents = params.get("intents")
    if intents is None:
        return {s: 1.0 for s in actual}
    total = sum(intents.get(s, 0.0) for s in actual)
    return {s: len(actual) * intents.get(s, 0.0) / total if total > 0 else 0.0 for s in actual}


def _gains(sets: list[set], alpha: float, units: dict) -> list[float]:
    seen: dict = {}
    gains = []
    for covered in sets:
        gain = 0.0
        for s in sorted(covered):
            gain += units[s] * (1.0 - alpha) ** seen.get(s, 0)
            seen[s] = seen.get(s, 0) + 1
        gains.append(gain)
    return gains


def _ideal(qrels, params) -> list[set]:
    """ndeval's greedy ideal: highest gain first, ties to the larger docno (compared as bytes)."""
    alpha = params.get("alpha", 0.5)
    left = subtopic_sets(qrels, _level(params))
    seen: dict = {}
    out = []
    while left:
        units = _units(qrels, params)
        best = max(left, key=lambda d: (sum(units[s] * (1.0 - alpha) ** seen.get(s, 0) for s in sorted(left[d])),
                                        d.encode()))
        for s in left[best]:
            seen[s] = seen.get(s, 0) + 1
        out.append(left.pop(best))
    return out


def _discount(kind: str, i: int) -> float:
    return math.log(2.0) / math.log(i + 1.0) if kind == "dcg" else 1.0 / i


def _cascade(qrels, sets, params, kind) -> float:
    gains = _gains(sets, params.get("alpha", 0.5), _units(qrels, params))
    return sum(g * _discount(kind, i) for i, g in enumerate(gains[:params["k"]], 1))


def _plain(kind):
    def f(qrels, ranking, params) -> float:
        subtopics = len(_actual(qrels, params))
        if subtopics == 0:
            return 0.0
        raw = _cascade(qrels, _run(qrels, ranking, params), params, kind)
        if params["k"] == 1:  # ndeval divides from rank 2 on
            return raw
        alpha = params.get("alpha", 0.5)
        return raw / sum(subtopics * (1.0 - alpha) ** (i - 1) * _discount(kind, i) for i in range(1, params["k"] + 1))
    return f


def _normalised(kind):
    def f(qrels, ranking, params) -> float:
        ideal = _cascade(qrels, _ideal(qrels, params), params, kind)
        return _cascade(qrels, _run(qrels, ranking, params), params, kind) / ideal if ideal > 0 else 0.0
    return f


def _nrbp_raw(qrels, sets, params) -> float:
    beta = params.get("beta", 0.5)
    return sum(g * beta ** i for i, g in enumerate(_gains(sets, params.get("alpha", 0.5), _units(qrels, params))))


def nrbp(qrels, ranking, params) -> float:
    subtopics = len(_actual(qrels, params))
    if subtopics == 0:
        return 0.0
    scale = 1.0 - (1.0 - params.get("alpha", 0.5)) * params.get("beta", 0.5)
    return _nrbp_raw(qrels, _run(qrels, ranking, params), params) * scale / subtopics


def nnrbp(qrels, ranking, params) -> float:
    ideal = _nrbp_raw(qrels, _ideal(qrels, params), params)
    return _nrbp_raw(qrels, _run(qrels, ranking, params), params) / ideal if ideal > 0 else 0.0


def p_ia(qrels, ranking, params) -> float:
    subtopics = len(_actual(qrels, params))
    k = params["k"]
    units = _units(qrels, params)
    return sum(units[s] for c in _run(qrels, ranking, params)[:k] for s in c) / (k * subtopics) if subtopics else 0.0


def strecall(qrels, ranking, params) -> float:
    actual = _actual(qrels, params)
    covered = set().union(*_run(qrels, ranking, params)[:params["k"]])
    units = _units(qrels, params)
    return sum(units[s] for s in covered) / len(actual) if actual else 0.0


def ap_ia(qrels, ranking, params) -> float:
    sets = subtopic_sets(qrels, _level(params))
    actual = _actual(qrels, params)
    if not actual:
        return 0.0
    run = _run(qrels, ranking, params)
    if params.get("k") is not None:
        run = run[:params["k"]]
    total = 0.0
    for s in actual:
        found, ap = 0, 0.0
        for i, covered in enumerate(run, 1):
            if s in covered:
                found += 1
                ap += found / i
        total += _units(qrels, params)[s] * ap / sum(1 for c in sets.values() if s in c)
    return total / len(actual)


REFERENCE = {
    "alpha_DCG": _plain("dcg"), "alpha_nDCG": _normalised("dcg"), "ERR_IA": _plain("err"),
    "nERR_IA": _normalised("err"), "NRBP": nrbp, "nNRBP": nnrbp, "P_IA": p_ia, "StRecall": strecall,
    "AP_IA": ap_ia,
}
