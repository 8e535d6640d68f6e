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

__all__ = ["canonical_measures", "values_of", "num_rel", "Interpolated", "VERSIONS"]

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
    return []


def num_rel(level: int) -> Measure:
    return Measure.of("NumRel", {"rel": level})


def canonical_measures(items: list[Item], level: int, version: str) -> list[Measure]:
    """Every canonical measure the items need, each once (the relevant count for interpolated precision on
    empty rankings)."""
    needed = [m for item in items for m in _needs(item, level, version)]
    if any(item.name in ("iprec_at_recall", "11pt_avg") for item in items):
        needed.append(num_rel(level))
    return list(dict.fromkeys(needed))


def _counts_9(levels, num_rel: np.ndarray) -> list[np.ndarray]:
    """trec_eval 9.0.8's count of relevant docs for each recall level: (long)(p * R + 0.9)."""
    return [np.floor(p * num_rel + 0.9) for p in levels]


def _counts_10(levels, num_rel: np.ndarray) -> list[np.ndarray]:
    """trec_eval 10.0's: lround(p * R)."""
    from rankmeter.measures.iprec import trec_lround
    return [trec_lround(p * num_rel).astype(np.float64) for p in levels]


class Interpolated:
    """Interpolated precision at the c-th relevant retrieved doc of each query, for any counts c.

    :meth:`of_batch` reads it from a batch; :meth:`empty` is that of empty rankings, which need only
    the number of relevant docs. ``final`` is the value trec_eval gives the levels no relevant doc is
    needed for: the maximum precision of the ranking, NaN (9.0.8) or 0 (10.0) when it is empty.
    """

    def __init__(self, num_rel, found, first, interpolated, final):
        self.num_rel, self.found, self.first, self.interpolated, self.final = num_rel, found, first, interpolated, final

    @classmethod
    def of_batch(cls, view, level: int, version: str) -> "Interpolated":
        from rankmeter.measures.iprec import interpolated_at_hits
        hits, interpolated = interpolated_at_hits(view, level)
        first = np.searchsorted(hits.q, np.arange(view.nq))
        found = np.diff(np.append(first, len(hits.q)))
        final = np.zeros(view.nq)
        some = found > 0
        final[some] = interpolated[first[some]]
        if version == "9.0.8":
            final[view.num_ret == 0] = np.nan
        return cls(view.num_rel(level).astype(np.float64), found, first, interpolated, final)

    @classmethod
    def empty(cls, num_rel: np.ndarray, version: str) -> "Interpolated":
        n = len(num_rel)
        zeros = np.zeros(n, np.int64)
        return cls(num_rel.astype(np.float64), zeros, zeros, np.zeros(0),
                   np.full(n, np.nan if version == "9.0.8" else 0.0))

    def at(self, counts: np.ndarray) -> np.ndarray:
        """The interpolated precision at ``counts`` relevant docs (0 past those retrieved; ``final`` below 1)."""
        nth = np.maximum(counts, 1).astype(np.int64)
        ok = nth <= self.found
        value = np.zeros(len(self.found))
        value[ok] = self.interpolated[self.first[ok] + nth[ok] - 1]
        low = counts < 1
        value[low] = self.final[low]
        return value


def _counts(levels, interp: Interpolated, version: str) -> list[np.ndarray]:
    return (_counts_9 if version == "9.0.8" else _counts_10)(levels, interp.num_rel)


def _eleven_point(interp: Interpolated, item: Item, version: str) -> np.ndarray:
    """trec_eval 11pt_avg of pytrec_eval's version: the counts of relevant docs as that version rounds them,
    walked as m_11pt_avg.c walks them (:func:`~rankmeter.measures.iprec.eleven_point_walk`)."""
    from rankmeter.measures.iprec import eleven_point_walk
    counts = _counts(item.numbers, interp, version)
    return eleven_point_walk(counts, [interp.at(c) for c in counts], interp.found, interp.final)


def values_of(items: list[Item], computed: dict[Measure, np.ndarray], interp, nq: int, level: int,
              version: str) -> list[np.ndarray]:
    """One per-query array per label of every item, in label order (``interp``: a callable giving the
    :class:`Interpolated` of the queries, asked only when an item needs it)."""
    out: list[np.ndarray] = []
    interp = functools.lru_cache(maxsize=None)(interp)  # made once, when first asked
    for item in items:
        name = item.name
        if name == "iprec_at_recall":
            out.extend(interp().at(c) for c in _counts(item.numbers, interp(), version))
            continue
        if name == "11pt_avg":
            out.append(_eleven_point(interp(), item, version))
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
