"""Novelty and diversity measures over subtopic judgments, as the TREC Web track's ndeval computes them.

A diversity qrels judges docs per subtopic (``qid subtopic docno grade``);
a doc with grade >= ``rel`` for a subtopic covers it (judgments are binary,
as in ndeval). S is the number of the query's subtopics that some doc covers;
a query with S = 0 scores 0. The doc at rank i gains, for every subtopic s it
covers, ``(1 - alpha)^c`` where c counts the docs above it covering s:

* ``alpha_DCG@k`` = sum_{i<=k} gain_i / log2(i + 1), over its "ideal ideal"
  S * sum_{j<k} (1 - alpha)^j / log2(j + 2) (ndeval leaves @1 undivided);
* ``ERR_IA@k`` the same with 1 / i in place of 1 / log2(i + 1);
* ``NRBP`` = (1 - (1 - alpha) beta) / S * sum_i gain_i beta^(i-1), whole ranking;
* ``alpha_nDCG@k``, ``nERR_IA@k``, ``nNRBP``: divided by the value of the
  ideal ranking, which ndeval builds greedily (at each rank the judged doc of
  highest gain, ties to the larger docno);
* ``P_IA@k`` = (covering (doc, subtopic) pairs in the top k) / (k S);
* ``StRecall@k`` = (subtopics covered in the top k) / S;
* ``AP_IA`` = the mean over covered subtopics of AP computed per subtopic.

Qrels without subtopics give every query one subtopic.

Examples
--------
>>> import rankmeter
>>> qrels = {"q": {"s1": {"a": 1, "b": 1}, "s2": {"a": 1, "c": 1}}}     # {query: {subtopic: {doc: grade}}}
>>> r = rankmeter.evaluate(qrels, {"q": ["b", "a", "x"]}, ["alpha_nDCG@3", "StRecall@1", "P_IA@2"])
>>> {k: round(v, 4) for k, v in r.mean.items()}
{'alpha_nDCG@3': 0.7587, 'StRecall@1': 0.5, 'P_IA@2': 0.75}
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.batch import Batch
from rankmeter.measures.base import Family, Param, level_of, register

__all__ = ["ideal_gains"]


def _side(batch: Batch):
    if batch.subtopics is None:  # pragma: no cover - the evaluator attaches it for these families
        raise AssertionError("a diversity kernel needs batch.subtopics")
    return batch.subtopics


def _level(batch: Batch, m) -> int:
    return max(level_of(batch, m), 0)


def _covered(batch: Batch, level: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query S (subtopics some judged doc covers) and per subtopic its covering docs."""
    side = _side(batch)
    rel = side.judged_grade >= level
    per_sub = np.bincount(side.judged_sub[rel], minlength=len(side.sub_query))
    subtopics = np.bincount(side.sub_query[per_sub > 0], minlength=batch.nq)
    return subtopics, per_sub


def _units(batch: Batch, level: int) -> np.ndarray:
    """What each subtopic counts for: 1 with equal intents; with ``intents=`` S times its probability
    renormalised over the query's covered subtopics (so the formulas keep ndeval's form)."""
    key = ("subtopic_units", level)
    if key not in batch._cache:
        side = _side(batch)
        subtopics, per_sub = _covered(batch, level)
        if side.sub_weight is None:
            units = np.ones(len(side.sub_query))
        else:
            weight = np.where(per_sub > 0, side.sub_weight, 0.0)
            total = np.bincount(side.sub_query, weights=weight, minlength=batch.nq)[side.sub_query]
            units = np.zeros(len(weight))
            np.divide(weight * subtopics[side.sub_query], total, out=units, where=total > 0)
        batch._cache[key] = units
    return batch._cache[key]


def _ranked(batch: Batch, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The covering entries of the ranking: position, subtopic, docs above covering the same subtopic."""
    side = _side(batch)
    keep = side.ranked_grade >= level
    pos, sub = side.ranked_pos[keep], side.ranked_sub[keep]
    order = np.lexsort((pos, sub))
    idx = np.arange(len(order))
    start = np.ones(len(order), bool)
    start[1:] = sub[order][1:] != sub[order][:-1]
    before = np.empty(len(order), np.int64)
    before[order] = idx - np.maximum.accumulate(np.where(start, idx, 0))
    return pos, sub, before


def _gain(batch: Batch, level: int, alpha: float) -> np.ndarray:
    """Novelty gain of each rank: sum over the subtopics its doc covers of (1 - alpha)^(covered above)."""
    pos, sub, before = _ranked(batch, level)
    weight = np.power(1.0 - alpha, before)
    if _side(batch).sub_weight is not None:
        weight = weight * _units(batch, level)[sub]
    return np.bincount(pos, weights=weight, minlength=len(batch.rel))


def _discount(rank) -> np.ndarray:
    return np.log(2.0) / np.log(np.asarray(rank, np.float64) + 1.0)  # ndeval's discount(), 1 at rank 1


def _doc_classes(side, doc: np.ndarray, sub: np.ndarray, nq: int):
    """Group a query's candidate docs by the set of subtopics they cover.

    Docs of one class always have the same gain, so the greedy ideal only
    chooses among classes, each offering its docs in docno order. Returns per
    class: query, size, its docs' candidate indices (ascending = larger docno
    first) at ``members[start:start + size]``, and its subtopics as
    (class, subtopic) entry pairs.
    """
    first_entry = np.flatnonzero(np.diff(doc, prepend=-1))
    cand_query = side.doc_query[doc[first_entry]]
    local = sub - np.searchsorted(side.sub_query, side.sub_query[sub])  # subtopic number within its query
    if len(local) and local.max() < 63:
        key = np.bitwise_or.reduceat(np.left_shift(np.uint64(1), local.astype(np.uint64)), first_entry)
    else:  # many subtopics: every doc its own class
        key = np.arange(len(first_entry), dtype=np.uint64)
    members = np.lexsort((np.arange(len(first_entry)), key, cand_query))
    new = np.ones(len(members), bool)
    new[1:] = (cand_query[members][1:] != cand_query[members][:-1]) | (key[members][1:] != key[members][:-1])
    start = np.flatnonzero(new)
    size = np.diff(np.append(start, len(members)))
    rep = members[start]
    ends = np.append(first_entry[1:], len(doc))
    n_each = ends[rep] - first_entry[rep]
    entry_class = np.repeat(np.arange(len(start)), n_each)
    entry_sub = sub[np.repeat(first_entry[rep], n_each) + np.arange(int(n_each.sum())) - np.repeat(
        np.cumsum(n_each) - n_each, n_each)]
    return cand_query[rep], size, members, start, entry_class, entry_sub


def ideal_gains(batch: Batch, level: int, alpha: float, depth: int | None) -> np.ndarray:
    """Gains of ndeval's greedy ideal ranking per query, shape (nq, depth); the whole ranking when None.

    At each rank the judged doc of highest gain given the docs placed above,
    ties to the larger docno (ndeval's ``idealResult``). One step per rank, all
    queries at once, choosing among classes of interchangeable docs.
    """
    key = ("ideal_gains", level, alpha, depth)
    if key in batch._cache:
        return batch._cache[key]
    side = _side(batch)
    rel = side.judged_grade >= level
    doc, sub = side.judged_doc[rel], side.judged_sub[rel]
    query, size, members, start, entry_class, entry_sub = _doc_classes(side, doc, sub, batch.nq)
    units = None if side.sub_weight is None else _units(batch, level)
    per_query = np.bincount(query, weights=size, minlength=batch.nq).astype(np.int64)
    most = int(per_query.max(initial=0))
    out = np.zeros((batch.nq, most if depth is None else depth))
    has = np.flatnonzero(np.bincount(query, minlength=batch.nq))
    qstart = np.searchsorted(query, has)  # classes stand grouped by query
    count = np.zeros(len(side.sub_query), np.int64)
    taken = np.zeros(len(size), np.int64)
    for step in range(min(out.shape[1], most)):
        left = taken < size
        gain = np.power(1.0 - alpha, count[entry_sub])
        score = np.bincount(entry_class, weights=gain if units is None else gain * units[entry_sub],
                            minlength=len(size))
        score[~left] = -np.inf
        best = np.full(batch.nq, -np.inf)
        best[has] = np.maximum.reduceat(score, qstart)
        # among the best classes of a query, the one whose next doc has the larger docno
        nxt = np.where(left & (score == best[query]), members[start + np.minimum(taken, size - 1)], len(members))
        lowest = np.full(batch.nq, len(members))
        lowest[has] = np.minimum.reduceat(nxt, qstart)
        chosen = np.flatnonzero(nxt == np.where(lowest < len(members), lowest, -1)[query])
        out[query[chosen], step] = score[chosen]
        taken[chosen] += 1
        picked = np.zeros(len(size), bool)
        picked[chosen] = True
        count += np.bincount(entry_sub[picked[entry_class]], minlength=len(count))
    batch._cache[key] = out
    return out


def _ideal_ideal(subtopics: np.ndarray, alpha: float, k: int, discount) -> np.ndarray:
    """ndeval's "ideal ideal" normaliser: every subtopic covered at every rank; none at k = 1."""
    if k == 1:
        return np.ones(len(subtopics))
    ranks = np.arange(1, k + 1)
    return subtopics * float(np.sum(np.power(1.0 - alpha, ranks - 1.0) * discount(ranks)))


def _weighted(gains: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row sum of gains * weights, the same for a row whatever the other rows (a matrix product is not)."""
    return (gains * weights).sum(axis=1)


def _top_sum(batch: Batch, values: np.ndarray, k: int) -> np.ndarray:
    return batch.per_query_sum(np.where(batch.rank <= k, values, 0.0))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cascade(discount):
    def raw(batch: Batch, m) -> np.ndarray:
        level, alpha, k = _level(batch, m), m.get("alpha"), m.cutoff
        return _top_sum(batch, _gain(batch, level, alpha) * discount(batch.rank), k)

    def plain(batch: Batch, m) -> np.ndarray:
        subtopics, _ = _covered(batch, _level(batch, m))
        return _ratio(raw(batch, m), _ideal_ideal(subtopics, m.get("alpha"), m.cutoff, discount) * (subtopics > 0))

    def normalised(batch: Batch, m) -> np.ndarray:
        ideal = ideal_gains(batch, _level(batch, m), m.get("alpha"), m.cutoff)
        return _ratio(raw(batch, m), _weighted(ideal, discount(np.arange(1, m.cutoff + 1))))
    return plain, normalised


alpha_dcg, alpha_ndcg = _cascade(_discount)
err_ia, nerr_ia = _cascade(lambda rank: 1.0 / np.asarray(rank, np.float64))


def _nrbp_raw(batch: Batch, m) -> np.ndarray:
    gain = _gain(batch, _level(batch, m), m.get("alpha"))
    return batch.per_query_sum(gain * np.power(m.get("beta"), batch.rank - 1.0))


def nrbp(batch: Batch, m) -> np.ndarray:
    """NRBP, whole ranking."""
    subtopics, _ = _covered(batch, _level(batch, m))
    scale = 1.0 - (1.0 - m.get("alpha")) * m.get("beta")
    return _ratio(_nrbp_raw(batch, m) * scale, subtopics.astype(np.float64))


def nnrbp(batch: Batch, m) -> np.ndarray:
    """NRBP over the NRBP of the greedy ideal ranking of all judged docs."""
    ideal = ideal_gains(batch, _level(batch, m), m.get("alpha"), None)
    return _ratio(_nrbp_raw(batch, m), _weighted(ideal, np.power(m.get("beta"), np.arange(ideal.shape[1], dtype=np.float64))))


def p_ia(batch: Batch, m) -> np.ndarray:
    """Covering (doc, subtopic) pairs in the top k over k S (a short ranking still divides by k)."""
    level, k = _level(batch, m), m.cutoff
    subtopics, _ = _covered(batch, level)
    pos, sub, _ = _ranked(batch, level)
    pairs = np.bincount(pos, weights=_units(batch, level)[sub], minlength=len(batch.rel))
    return _ratio(_top_sum(batch, pairs, k),
                  k * subtopics.astype(np.float64))


def strecall(batch: Batch, m) -> np.ndarray:
    """Subtopics covered in the top k over S."""
    level, k = _level(batch, m), m.cutoff
    subtopics, _ = _covered(batch, level)
    pos, sub, before = _ranked(batch, level)
    new = before == 0
    first = np.bincount(pos[new], weights=_units(batch, level)[sub[new]], minlength=len(batch.rel))
    return _ratio(_top_sum(batch, first, k), subtopics.astype(np.float64))


def ap_ia(batch: Batch, m) -> np.ndarray:
    """Mean over covered subtopics of the subtopic's AP (precision at its covering docs over its docs)."""
    level = _level(batch, m)
    subtopics, per_sub = _covered(batch, level)
    pos, sub, before = _ranked(batch, level)
    precision = (before + 1.0) / batch.rank[pos]
    inside = np.ones(len(pos), bool) if m.cutoff is None else batch.rank[pos] <= m.cutoff
    per_subtopic = np.bincount(sub[inside], weights=precision[inside], minlength=len(per_sub))
    mean = _ratio(per_subtopic, per_sub.astype(np.float64)) * _units(batch, level)
    side = _side(batch)
    return _ratio(np.bincount(side.sub_query, weights=mean, minlength=batch.nq), subtopics.astype(np.float64))


_ALPHA = Param("alpha", "number", 0.5, "redundancy intolerance: a doc gains (1 - alpha)^c for a subtopic c docs "
               "above it already covered (ndeval -alpha)", low=0.0, high=1.0)
_BETA = Param("beta", "number", 0.5, "patience: rank i is weighted beta^(i-1) (ndeval -beta)",
              low=0.0, high=1.0)


def _family(name: str, summary: str, kernel, params=(), cutoff="required") -> None:
    register(Family(name, summary, kernel, params=params, cutoff=cutoff, subtopics=True))


_family("alpha_DCG", "alpha-DCG@k over its ideal-ideal value S sum_{j<k} (1-alpha)^j / log2(j+2) "
        "(Clarke et al. 2008; ndeval)", alpha_dcg, (_ALPHA,))
_family("alpha_nDCG", "alpha-DCG@k over that of ndeval's greedy ideal ranking (Clarke et al. 2008)",
        alpha_ndcg, (_ALPHA,))
_family("ERR_IA", "intent-aware ERR@k with satisfaction alpha, over its ideal-ideal value "
        "(Chapelle et al. 2009; ndeval)", err_ia, (_ALPHA,))
_family("nERR_IA", "ERR_IA@k over that of ndeval's greedy ideal ranking", nerr_ia, (_ALPHA,))
_family("NRBP", "novelty- and rank-biased precision (Clarke et al. 2009; ndeval)", nrbp, (_ALPHA, _BETA), "none")
_family("nNRBP", "NRBP over that of ndeval's greedy ideal ranking", nnrbp, (_ALPHA, _BETA), "none")
_family("P_IA", "intent-aware precision@k: covering (doc, subtopic) pairs in the top k over k S", p_ia)
_family("StRecall", "subtopic recall@k: subtopics covered in the top k over S (Zhai et al. 2003)", strecall)
_family("AP_IA", "intent-aware AP: mean over covered subtopics of AP per subtopic (ndeval's MAP-IA)", ap_ia,
        cutoff="optional")
