"""Plain references of the trec_eval families :mod:`reference.measures` does not hold.

Written from trec_eval 10.0's m_*.c loops, one query at a time, no numpy,
with the same signature ``f(qrels, ranking, params) -> value`` (see
:mod:`reference.measures`). ``params`` holds the family's parameters as the
Measure has them (defaults filled in), ``k`` the cutoff and ``rel`` the level.
"""
from __future__ import annotations

import math

from .measures import _is_rel, _num_rel, _prepare, _threshold, _top

__all__ = ["REFERENCE"]


def _lround(x: float) -> int:
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _flags(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    return ranking, [_is_rel(g, t) for _, g in ranking], _num_rel(qrels, t)


def set_ap(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    hits = sum(rel)
    return hits * hits / (len(rel) * R) if rel and R else 0.0


def relative_p(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    k = params.get("k")
    if not R:
        return 0.0
    if k:
        return sum(rel[:k]) / min(k, R)
    return sum(rel) / min(len(rel), R) if rel else 0.0


def rprec_mult(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    k = int(params["mult"] * R + 0.9)
    return sum(rel[:k]) / k if k else 0.0


def _iprec_levels(rel: list, R: int, levels) -> float:
    hits, ret = sum(rel), len(rel)
    total = 0.0
    for x in sorted(levels)[::-1]:
        need = _lround(x * R)
        if need > hits or ret == 0:
            continue
        best, seen, value = 0.0, hits, None
        for i in range(ret, 0, -1):     # walk up from the bottom of the ranking
            best = max(best, seen / i)
            if rel[i - 1]:
                if seen == need:
                    value = best
                seen -= 1
            if seen == 0 and value is None:
                value = best            # need <= 0: the best precision anywhere
        total += value if value is not None else best
    return total / len(levels)


def iprec(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    return _iprec_levels(rel, R, [params["k"]])


def iprec_avg(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    return _iprec_levels(rel, R, list(params["recalls"]))


def utility(qrels, ranking, params):
    ranking, rel, R = _flags(qrels, ranking, params)
    hits, ret = sum(rel), len(rel)
    a, b, c, d, n = (params[key] for key in ("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret", "num_docs"))
    return a * hits + b * (ret - hits) + c * (R - hits) + d * (n + hits - ret - R)


def _counts(kind):
    def count(qrels, ranking, params):
        ranking, rel, R = _flags(qrels, ranking, params)
        t = _threshold(params)
        return {"NumQ": 1, "NumRet": len(rel), "NumRel": R, "NumRelRet": sum(rel),
                "NumNonrelJudgedRet": sum(1 for _, g in ranking if g is not None and 0 <= g < t)}[kind]
    return count


def infap(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    level = _threshold(params)
    R = _num_rel(qrels, level)
    total, rel, nonrel, unj = 0.0, 0, 0, 0
    for j, (_, g) in enumerate(ranking):
        if g is None:
            continue
        if g < 0:
            unj += 1
        elif g < level:
            nonrel += 1
        else:
            if j == 0:
                total += 1
            else:
                total += 1 / (j + 1) + (j / (j + 1)) * ((rel + nonrel + unj) / j) * \
                    ((rel + 1e-5) / (rel + nonrel + 2e-5))
            rel += 1
    return total / R if R else 0.0


# ------------------------------------------------------------------ the gain family (trec_eval's tables)
def _gmap(params) -> dict:
    gain = params.get("gain", "linear")
    return {} if isinstance(gain, str) else dict(gain)


def _gain(grade, gmap: dict) -> float:
    g = -1 if grade is None else (-2 if grade < 0 else grade)
    if g in gmap:
        return gmap[g]
    return float(g) if g > 0 else 0.0


def _levels(qrels) -> list[int]:
    grades = [g for g in qrels.values() if g >= 0]
    counts = [0] * (max(grades) + 1 if grades else 0)
    for g in grades:
        counts[g] += 1
    return counts


def _ideal(qrels, gmap) -> list[float]:
    gains = []
    for level, n in enumerate(_levels(qrels)):
        gains += [gmap.get(level, float(level))] * n
    return sorted((g for g in gains if g > 0), reverse=True)


def ndcg_rel(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    gmap = _gmap(params)
    ideal = _ideal(qrels, gmap)
    if not ideal:
        return 0.0
    total, dcg, found = 0.0, 0.0, 0
    for i, (_, g) in enumerate(ranking):
        gain = _gain(g, gmap)
        dcg += gain / math.log2(i + 2)
        if gain > 0:
            total += dcg / sum(x / math.log2(j + 2) for j, x in enumerate(ideal[:i + 1]))
            found += 1
    total += (len(ideal) - found) * dcg / sum(x / math.log2(j + 2) for j, x in enumerate(ideal))
    return total / len(ideal) if total > 0 else 0.0


def r_ndcg(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    gmap = _gmap(params)
    level = _threshold(params)
    if sum(n for lv, n in enumerate(_levels(qrels)) if lv >= level) == 0:
        return 0.0
    ideal = _ideal(qrels, gmap)
    npos = len(ideal)
    dcg = [0.0]
    for i, (_, g) in enumerate(ranking):
        dcg.append(dcg[-1] + _gain(g, gmap) / math.log2(i + 2))
    idcg = [0.0]
    for j, x in enumerate(ideal):
        idcg.append(idcg[-1] + x / math.log2(j + 2))
    points = [dcg[min(j, len(ranking))] / idcg[j] for j in range(1, npos + 1)
              if j == npos or ideal[j] != ideal[j - 1]]
    if npos and len(ranking) > npos + 1:
        points.append(dcg[-1] / idcg[-1])
    return sum(points) / len(points) if points else 0.0


def g_measure(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    gmap = _gmap(params)
    ideal = _ideal(qrels, gmap)
    cost = got = total = 0.0
    for i, (_, g) in enumerate(ranking):
        gain = _gain(g, gmap)
        got += gain
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if gain != 0:
            total += gain / math.log2(2 + cost - got)
    s = sum(ideal)
    return total / s if s > 0 else 0.0


def bin_g(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    level = _threshold(params)
    R = _num_rel(qrels, level)
    total, nonrel = 0.0, 0
    for _, g in ranking:
        if _is_rel(g, level):
            total += 1 / math.log2(2 + nonrel)
        else:
            nonrel += 1
    return total / R if total else 0.0


def unjudged(qrels, ranking, params):
    """Unjudged in the top k / k; without k, unjudged retrieved / retrieved."""
    ranking = _prepare(ranking, params)
    k = params["k"]
    found = sum(1 for _, g in _top(ranking, params) if g is None or g < 0)
    if k is None:
        return found / len(ranking) if ranking else 0.0
    return found / k


def relstring(qrels, ranking, params):
    ranking = _prepare(ranking, params)
    return "".join("-" if g is None else "." if g < 0 else ">" if g > 9 else str(g)
                   for _, g in _top(ranking, params))


REFERENCE = {
    "SetAP": set_ap, "RelativeP": relative_p, "RprecMult": rprec_mult, "IPrec": iprec, "IPrecAvg": iprec_avg,
    "Utility": utility, "infAP": infap, "nDCGRel": ndcg_rel, "RnDCG": r_ndcg, "G": g_measure, "BinG": bin_g,
    "Unjudged": unjudged, "RelString": relstring,
    **{kind: _counts(kind) for kind in ("NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet")},
}
