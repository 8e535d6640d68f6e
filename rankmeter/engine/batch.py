"""The per-query batch every measure kernel reads.

A batch holds, for ``nq`` queries in bytewise id order:

* the ranking: ``offsets`` (nq + 1) into flat per-rank arrays, of which
  ``rel`` is the grade of the doc at each rank, with trec_eval's markers
  ``NONPOOL`` (-1, doc absent from the qrels) and ``UNJUDGED`` (-2, in the
  qrels with a negative grade);
* the judgments: ``judged_offsets`` (nq + 1) into ``judged_rel``, every
  qrels grade of the query sorted in descending order (negative grades last).

Kernels use the derived arrays below (computed once per batch and cached);
they are vectorised over all queries at once and never loop in Python.
A batch has no global state and does no I/O, so a partition of a large
dataset can build and score its own batch.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["Batch", "Hits", "NONPOOL", "UNJUDGED"]

NONPOOL = -1
UNJUDGED = -2


@dataclass(frozen=True, eq=False)
class Hits:
    """The relevant docs of a batch, flat, in rank order: query index, rank, relevant so far."""

    q: np.ndarray
    rank: np.ndarray
    seen: np.ndarray
    pos: np.ndarray      # flat position in the batch


@dataclass(eq=False)
class Batch:
    """Columnar ranking and judgments of a set of queries (see module docstring)."""

    queries: list[bytes]
    offsets: np.ndarray
    rel: np.ndarray
    judged_offsets: np.ndarray
    judged_rel: np.ndarray
    #: qrels-wide statistics the families declared they need (name -> value), computed once
    #: from the whole qrels by :mod:`rankmeter.core.needs`, so a part scores as the whole does.
    needs: Mapping[str, Any] = field(default_factory=dict, repr=False)
    #: the (doc, subtopic) judgments of the queries, for the diversity families (``Family.subtopics``)
    subtopics: Any = field(default=None, repr=False)
    #: the queries' codes in the prepared judgments (their bytewise order), for putting parts together
    codes: np.ndarray | None = field(default=None, repr=False)
    #: per-rank doc ids and scores, for explanations; optional for kernels
    docs: list[bytes] | None = field(default=None, repr=False)
    scores: np.ndarray | None = field(default=None, repr=False)
    #: ``ties="average"``: per rank, the number of its group of tied docs (equal scores, one query);
    #: kernels then give the expected value over every order of each group (:meth:`tie_mean`)
    tie_group: np.ndarray | None = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def nq(self) -> int:
        return len(self.offsets) - 1

    # ----------------------------------------------------------- ranking side
    @cached_property
    def num_ret(self) -> np.ndarray:
        """Number of ranked docs per query (int64)."""
        return np.diff(self.offsets)

    @cached_property
    def qidx(self) -> np.ndarray:
        """Query index of each rank position."""
        return np.repeat(np.arange(self.nq), self.num_ret)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each position within its query."""
        return np.arange(len(self.rel)) - self.offsets[self.qidx] + 1

    def is_rel(self, level: int) -> np.ndarray:
        """Boolean per rank: judged with grade >= ``level`` (trec_eval's relevance level)."""
        key = ("is_rel", level)
        if key not in self._cache:
            self._cache[key] = self.rel >= max(level, 0)
        return self._cache[key]

    @cached_property
    def judged_mask(self) -> np.ndarray:
        """Boolean per rank: judged with a grade >= 0."""
        return self.rel >= 0

    @cached_property
    def listed_mask(self) -> np.ndarray:
        """Boolean per rank: listed in the qrels (any grade, negative too)."""
        return self.rel != NONPOOL

    def rel_seen(self, level: int) -> np.ndarray:
        """Relevant docs at or above each rank (segmented cumulative count, int64)."""
        key = ("rel_seen", level)
        if key not in self._cache:
            self._cache[key] = self.segment_cumsum(self.is_rel(level))
        return self._cache[key]

    def segment_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Cumulative sum of ``values`` restarting at every query."""
        total = np.cumsum(values, dtype=np.float64 if values.dtype.kind == "f" else np.int64)
        if len(total) == 0:
            return total
        before = np.concatenate(([0], total))[self.offsets[:-1]]
        return total - np.repeat(before, self.num_ret)

    def per_query_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-rank ``values`` for each query (float64)."""
        return np.bincount(self.qidx, weights=values, minlength=self.nq).astype(np.float64)

    def query_of(self, pos: np.ndarray) -> np.ndarray:
        """Query index of the given rank positions (cheap for a few positions)."""
        if "qidx" in self.__dict__ or len(pos) * 8 > len(self.rel):
            return self.qidx[pos]
        return np.searchsorted(self.offsets, pos, side="right") - 1

    def hits(self, level: int) -> "Hits":
        """Positions of the relevant docs (grade >= ``level``) with their query, rank and count so far."""
        key = ("hits", level)
        if key not in self._cache:
            pos = np.flatnonzero(self.is_rel(level))
            q = self.query_of(pos)
            rank = pos - self.offsets[q] + 1
            first = np.searchsorted(q, np.arange(self.nq))
            seen = np.arange(len(pos)) - first[q] + 1 if len(pos) else np.zeros(0, np.int64)
            self._cache[key] = Hits(q, rank, seen, pos)
        return self._cache[key]

    def count_before(self, marked: np.ndarray, pos: np.ndarray, q: np.ndarray) -> np.ndarray:
        """For flat positions ``pos`` of queries ``q``: how many of the sorted flat positions ``marked``
        lie in the same query strictly above each (sparse: work grows with the marked and asked rows)."""
        return np.searchsorted(marked, pos) - np.searchsorted(marked, self.offsets[q])

    def per_query_count(self, mask: np.ndarray) -> np.ndarray:
        """Number of True per-rank entries for each query (int64)."""
        return np.bincount(self._positions(mask)[1], minlength=self.nq)

    def first_rank(self, mask: np.ndarray) -> np.ndarray:
        """Rank of the first True entry of each query, 0 where there is none."""
        out = np.zeros(self.nq, dtype=np.int64)
        rows = np.flatnonzero(mask)
        if len(rows):
            q = self.query_of(rows)
            first = np.ones(len(rows), dtype=bool)
            first[1:] = q[1:] != q[:-1]
            out[q[first]] = rows[first] - self.offsets[q[first]] + 1
        return out

    def at_rank(self, values: np.ndarray, k: np.ndarray | int, fill=0) -> np.ndarray:
        """Per query, ``values`` at rank ``k`` (1-based); ``fill`` where the query has fewer ranks or k < 1."""
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.nq,))
        ok = (k >= 1) & (k <= self.num_ret)
        out = np.full(self.nq, fill, dtype=np.result_type(values.dtype, np.asarray(fill).dtype))
        out[ok] = values[self.offsets[:-1][ok] + k[ok] - 1]
        return out

    def _positions(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat positions of the True entries of ``mask`` and their query, found once per mask object
        (masks the batch caches, like :meth:`is_rel`, are asked about at many cutoffs)."""
        key = ("positions", id(mask))
        hit = self._cache.get(key)
        if hit is not None and hit[0] is mask:  # the cache holds the mask, so its id is not reused
            return hit[1], hit[2]
        pos = np.flatnonzero(mask)
        q = self.query_of(pos)
        self._cache[key] = (mask, pos, q)
        return pos, q

    def tie_layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per rank: its tied group (0, 1, ... in rank order), the flat position where the group starts
        and the group's size. Every rank is a group of one when ties are not averaged."""
        if "tie_layout" not in self._cache:
            n = len(self.rel)
            if self.tie_group is None or n == 0:
                group = np.arange(n)
            else:
                group = self.tie_group - self.tie_group[0]
                new = np.ones(n, dtype=bool)
                new[1:] = group[1:] != group[:-1]
                group = np.cumsum(new) - 1
            firsts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if n else np.zeros(0, np.int64)
            sizes = np.diff(np.append(firsts, n))
            self._cache["tie_layout"] = (group, firsts[group], sizes[group])
        return self._cache["tie_layout"]

    def tie_mean(self, values: np.ndarray) -> np.ndarray:
        """Per rank, the mean of ``values`` over its tied group: what a rank of the group holds on
        average over every order of the group (``values`` itself when ties are not averaged)."""
        if self.tie_group is None:
            return values
        if len(values) == 0:
            return values.astype(np.float64)
        groups = self.tie_group - self.tie_group[0]
        sums = np.bincount(groups, weights=values.astype(np.float64))
        sizes = np.bincount(groups)
        return (sums / np.maximum(sizes, 1))[groups]

    def count_upto(self, mask: np.ndarray, k: np.ndarray | int) -> np.ndarray:
        """Per query, number of True entries among the first ``k`` ranks (k scalar or per query).

        With tied groups averaged it is the expected number (float) over the groups' orders.
        """
        if self.tie_group is not None:
            limit = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.nq,))
            inside = self.rank <= limit[self.qidx]
            return np.bincount(self.qidx[inside], weights=self.tie_mean(mask)[inside], minlength=self.nq)
        pos, q = self._positions(mask)
        limit = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.nq,))
        inside = pos - self.offsets[q] < limit[q]
        return np.bincount(q[inside], minlength=self.nq)

    # ----------------------------------------------------------- judged side
    @cached_property
    def judged_count(self) -> np.ndarray:
        """Number of qrels entries per query (any grade)."""
        return np.diff(self.judged_offsets)

    @cached_property
    def judged_qidx(self) -> np.ndarray:
        return np.repeat(np.arange(self.nq), self.judged_count)

    def num_rel(self, level: int) -> np.ndarray:
        """R: judged docs with grade >= ``level`` per query (int64)."""
        key = ("num_rel", level)
        if key not in self._cache:
            mask = self.judged_rel >= max(level, 0)
            self._cache[key] = np.bincount(self.judged_qidx[mask], minlength=self.nq)
        return self._cache[key]

    def num_judged_nonrel(self, level: int) -> np.ndarray:
        """Judged docs with 0 <= grade < ``level`` per query."""
        mask = (self.judged_rel >= 0) & (self.judged_rel < level)
        return np.bincount(self.judged_qidx[mask], minlength=self.nq)

    @cached_property
    def max_grade(self) -> np.ndarray:
        """Highest grade judged per query (0 when the query has no non-negative grade)."""
        out = np.zeros(self.nq, dtype=self.judged_rel.dtype)
        has = self.judged_count > 0
        out[has] = np.maximum(self.judged_rel[self.judged_offsets[:-1][has]], 0)
        return out

    def one(self, i: int) -> "Batch":
        """Query ``i`` alone, as a batch of its own (views of this batch's arrays; not for subtopics)."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        jlo, jhi = int(self.judged_offsets[i]), int(self.judged_offsets[i + 1])
        tie = None
        if self.tie_group is not None:
            tie = self.tie_group[lo:hi] - (self.tie_group[lo] if hi > lo else 0)
        return Batch(queries=[self.queries[i]], offsets=np.array([0, hi - lo], np.int64), rel=self.rel[lo:hi],
                     judged_offsets=np.array([0, jhi - jlo], np.int64), judged_rel=self.judged_rel[jlo:jhi],
                     needs=self.needs, codes=None if self.codes is None else self.codes[i:i + 1],
                     docs=None if self.docs is None else self.docs[lo:hi],
                     scores=None if self.scores is None else self.scores[lo:hi], tie_group=tie)

    def judged_only(self) -> "Batch":
        """The same batch with unjudged docs removed from every ranking (trec_eval -J).

        Ranks close up; trec_eval keeps the original tie order, and so does this.
        """
        keep = self.rel >= 0
        counts = np.bincount(self.qidx[keep], minlength=self.nq)
        return Batch(
            queries=self.queries,
            offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            rel=self.rel[keep], judged_offsets=self.judged_offsets, judged_rel=self.judged_rel,
            needs=self.needs, codes=self.codes,
            subtopics=None if self.subtopics is None else self.subtopics.keep(keep),
            docs=None if self.docs is None else [d for d, k in zip(self.docs, keep.tolist()) if k],
            scores=None if self.scores is None else self.scores[keep],
            tie_group=None if self.tie_group is None else self.tie_group[keep],
        )
