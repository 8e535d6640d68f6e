"""Each pytrec_eval measure's per-query values: rankmeter's kernels, with trec_eval 9.0.8's arithmetic where
pytrec_eval's bundled trec_eval 9.0.8 differs from trec_eval 10.0.

What differs, all reproduced by default (``trec_eval="9.0.8"``):

* ``iprec_at_recall`` and ``11pt_avg`` turn a recall level p into a count of relevant docs as
  ``(long)(p * R + 0.9)`` (9.0.8) instead of ``lround(p * R)`` (10.0): the levels a query reaches differ
  when p*R is just under a half or a whole (R = 1: 0.1 is one relevant doc in 9.0.8, none in 10.0). On
  trec_eval's own test files 11pt_avg is 0.1958 (9.0.8) against 0.1962 (10.0), 0.1804 against 0.1817 at
  relevance level 2; ``trec_eval="10.0"`` gives 10.0's values. 9.0.8's 11pt_avg walks its levels in the
  order given (an unsorted list changes the value), as 10.0's does.
* A query whose ranking is empty divides 0 by 0 at the levels that need no relevant doc: NaN for
  ``iprec_at_recall_0.00`` (and any level with p*R < 0.1) and for ``11pt_avg`` (10.0 and
  ``trec_eval="10.0"``: 0).
* ``gm_map`` and ``gm_bpref`` per query are log(max(value, 1e-5)), which
  ``compute_aggregated_measure`` turns into the geometric mean.
* ``runid`` and ``relstring`` have no number: 0.0; ``num_q`` is 1.0 per query.
* ``set_F.x`` is (x+1)PR / (xP+R) with x the first number; ``utility`` needs exactly four numbers (which
  pytrec_eval's names can only give as non-negative numbers), else it is 0.0.
"""
from __future__ import annotations

import functools

import numpy as np

from rankmeter.compat.pytrec_eval.names import Item
from rankmeter.measures.trec_eval import uses_level
from rankmeter.measures.base import Measure

__all__ = ["canonical_measures", "values_of", "num_rel", "VERSIONS"]

VERSIONS = ("9.0.8", "10.0")

_SINGLE = {"num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "map": "AP", "Rprec": "Rprec",
           "bpref": "Bpref", "recip_rank": "RR", "infAP": "infAP", "binG": "BinG", "G": "G", "ndcg": "nDCG",
           "ndcg_rel": "nDCGRel", "Rndcg": "RnDCG", "set_P": "P", "set_relative_P": "RelativeP", "set_recall": "R",
           "set_map": "SetAP", "num_nonrel_judged_ret": "NumNonrelJudgedRet", "gm_map": "AP", "gm_bpref": "Bpref"}
_CUT = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "relative_P": "RelativeP",
        "success": "Success"}
_UTILITY = ("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret")
_COUNTS = ("NumRelRet", "NumRet", "NumRel")
MIN_GEO_MEAN = 1e-5  # trec_eval's floor under a value before its log


def _level(m: Measure, level: int) -> Measure:
    return m.with_params(rel=level if uses_level(m) else 1)


@functools.lru_cache(maxsize=1024)
def _needs(item: Item, level: int, version: str) -> tuple[Measure, ...]:
    return tuple(_make_needs(item, level, version))


def _make_needs(item: Item, level: int, version: str) -> list[Measure]:
    """The canonical measures ``item`` is computed from (none: computed from the batch or constant)."""
    name = item.name
    if name in _SINGLE:
        return [_level(Measure.of(_SINGLE[name]), level)]
    if name in _CUT:
        return [_level(Measure.of(_CUT[name], {}, k), level) for k in item.numbers]
    if name == "Rprec_mult":
        return [_level(Measure.of("RprecMult", {"mult": x}), level) for x in item.numbers]
    if name == "utility" and len(item.numbers) == 4:
        return [_level(Measure.of("Utility", dict(zip(_UTILITY, item.numbers))), level)]
    if name == "set_F":
        return [_level(Measure.of(c), level) for c in _COUNTS]
    if name in ("iprec_at_recall", "11pt_avg"):
        return _interpolation_needs(item, level, version)
    return []


def num_rel(level: int) -> Measure:
    return Measure.of("NumRel", {"rel": level})


def canonical_measures(items: list[Item], level: int, version: str) -> list[Measure]:
    """Every canonical measure the items need, each once."""
    return list(dict.fromkeys(m for item in items for m in _needs(item, level, version)))


def _rounding(version: str) -> str:
    """The IPrec rounding of a recall level each version of trec_eval has (measures.iprec)."""
    return "trec_eval_9" if version == "9.0.8" else "lround"


def _iprec(recall_level: float, level: int, version: str) -> Measure:
    return Measure.of("IPrec", {"rel": level, "rounding": _rounding(version)}, recall_level)


def _interpolation_needs(item: Item, level: int, version: str) -> list[Measure]:
    """What ``iprec_at_recall`` and ``11pt_avg`` are read from: IPrec at each level (at 0 too: the value
    of the levels needing no relevant doc), the relevant count, the relevant retrieved (11pt_avg's walk)
    and the ranking's length (9.0.8's NaN on an empty ranking)."""
    out = [_iprec(p, level, version) for p in item.numbers] + [num_rel(level)]
    if item.name == "11pt_avg":
        out += [_iprec(0.0, level, version), _level(Measure.of("NumRelRet"), level)]
    if version == "9.0.8":
        out.append(_level(Measure.of("NumRet"), level))
    return out


def _at(p: float, computed: dict[Measure, np.ndarray], level: int, version: str) -> tuple[np.ndarray, np.ndarray]:
    """(count of relevant docs, interpolated precision) at recall level ``p``: the IPrec values, NaN where
    9.0.8 divides 0 by 0 (a level needing no relevant doc on a ranking with nothing retrieved)."""
    from rankmeter.measures.iprec import relevant_count
    counts = relevant_count(p, computed[num_rel(level)], _rounding(version)).astype(np.float64)
    value = computed[_iprec(p, level, version)].astype(np.float64)
    if version == "9.0.8":
        value = np.where((counts < 1) & (computed[_level(Measure.of("NumRet"), level)] == 0), np.nan, value)
    return counts, value


def _eleven_point(computed: dict[Measure, np.ndarray], item: Item, level: int, version: str) -> np.ndarray:
    """trec_eval 11pt_avg of pytrec_eval's version: the counts of relevant docs as that version rounds them,
    walked as m_11pt_avg.c walks them (:func:`~rankmeter.measures.iprec.eleven_point_walk`)."""
    from rankmeter.measures.iprec import eleven_point_walk
    levels = [_at(p, computed, level, version) for p in item.numbers]
    _, final = _at(0.0, computed, level, version)
    found = computed[_level(Measure.of("NumRelRet"), level)]
    return eleven_point_walk([c for c, _ in levels], [v for _, v in levels], found, final)


def values_of(items: list[Item], computed: dict[Measure, np.ndarray], nq: int, level: int,
              version: str) -> list[np.ndarray]:
    """One per-query array per label of every item, in label order, from the per-query values of the
    canonical measures (:func:`canonical_measures`)."""
    out: list[np.ndarray] = []
    for item in items:
        name = item.name
        if name == "iprec_at_recall":
            out.extend(_at(p, computed, level, version)[1] for p in item.numbers)
            continue
        if name == "11pt_avg":
            out.append(_eleven_point(computed, item, level, version))
            continue
        needed = [computed[m].astype(np.float64) for m in _needs(item, level, version)]
        if name in ("gm_map", "gm_bpref"):
            out.append(np.log(np.maximum(needed[0], MIN_GEO_MEAN)))
        elif name == "set_F":
            rel_ret, ret, rel = needed
            x = item.numbers[0]
            with np.errstate(invalid="ignore", divide="ignore"):
                p, r = rel_ret / ret, rel_ret / rel
                out.append(np.where(rel_ret > 0, (x + 1.0) * p * r / (x * p + r), 0.0))
        elif name == "num_q":
            out.append(np.ones(nq))
        elif not needed:  # runid, relstring, a utility without four numbers
            out.append(np.zeros(nq))
        else:
            out.extend(needed)
    return out
