"""Each row's candidates in rank order, and what the array-API formulas read from them, on any device.

Rank ``i`` is column ``i - 1``; a row's ranked candidates come first (best
score first, equal scores in input order) and ``valid`` marks them. Only the
ranks the measures read are sorted: down to the deepest cutoff (one rank
more under ``ties="average"``, which shows whether a tied group crosses it),
every rank when a measure has no cutoff. ``judged`` is 0 outside
``judged_mask`` and ``g`` is 0 past the ranked candidates (see _inputs.py),
so a grade >= a positive level is always a real, ranked one.
"""
from __future__ import annotations

import math
from functools import cached_property

from rankmeter.tensor._inputs import Inputs
from rankmeter.errors import MeasureError

__all__ = ["Ranked"]


class Ranked:
    """The candidates of every row in rank order, and what the formulas read from them."""

    def __init__(self, inputs: Inputs, ties: str, depth: int | None = None, *, batch: Inputs | None = None):
        """``inputs``: the rows to rank; ``batch``: the whole batch they are a block of (its highest grade
        is ``qrels_top``)."""
        ops = inputs.ops
        self.batch = inputs if batch is None else batch
        self.ops, self.xp, self.dtype, self.ties, self.inputs = ops, ops.xp, inputs.dtype, ties, inputs
        width = inputs.shape[1]
        if depth is not None and ties == "average":
            depth += 1
        self.depth = width if depth is None else min(depth, width)
        self.rows = inputs.shape[0]
        self.zero = ops.zeros((), self.dtype)
        self.judged, self.judged_mask = inputs.judged, inputs.judged_mask
        self._cache: dict = {}

    # the ranking is sorted on first use: a plan of RR, Success and HitRate alone never sorts
    @cached_property
    def order(self):
        order = self._order(self.inputs, self.depth)
        if self.ties == "average" and self.depth < self.inputs.shape[1] and self._tie_crosses_depth(order):
            # some group's mean reads ranks past the sorted ones: sort every rank, as without a cutoff
            order = self._order(self.inputs, self.inputs.shape[1])
        return order

    @cached_property
    def width(self) -> int:
        """The ranks sorted (columns of ``order``, ``g``, ``valid``)."""
        return int(self.order.shape[1])

    @cached_property
    def rank(self):
        return self.ops.astype(self.ops.arange(self.width, self.ops.int64), self.dtype)[None, :] + 1.0

    def _tie_crosses_depth(self, order) -> bool:
        """Whether a row's last two sorted ranks are both ranked and tie: their group may go on past them."""
        depth = order.shape[1]
        last_two = self.ops.take(self.inputs.scores, order[:, depth - 2:])
        crossing = (last_two[:, 0] == last_two[:, 1]) & (self.n_ret >= depth)
        return bool(self.xp.any(crossing))

    @cached_property
    def n_ret(self):
        if self.inputs.all_ranked:
            return self.ops.full((self.rows,), float(self.inputs.shape[1]), self.dtype)
        return self.ops.count(self.inputs.ranked, self.dtype)

    @cached_property
    def valid(self):
        if self.inputs.all_ranked:
            return self.ops.full((self.rows, self.width), True, self.xp.bool)
        return self.rank <= self.n_ret[:, None]   # ranked candidates come first

    @cached_property
    def g(self):
        """Grades in rank order, 0 past the ranked candidates (zeroed before the gather: no ``valid``)."""
        targets = self.inputs.targets
        if not self.inputs.all_ranked:
            targets = self.ops.zero_unless(targets, self.inputs.ranked)
        return self.ops.take(targets, self.order)

    @cached_property
    def sorted_scores(self):
        return self.ops.take(self.inputs.scores, self.order)

    def first_relevant_rank(self, level):
        """Per row, the rank of the first relevant candidate (inf without one), found without sorting:
        1 + the ranked candidates scored above the best-scored relevant one + those scored as high that
        come before the first such relevant one in input order (counted only in batches where a row
        has several ranked candidates at that score)."""
        key = ("first", level)
        if key not in self._cache:
            ops, xp, inputs = self.ops, self.xp, self.inputs
            scores, ranked = inputs.scores, None if inputs.all_ranked else inputs.ranked
            relevant = inputs.targets >= max(level, 0)
            if ranked is not None:
                relevant = relevant & ranked
            best = ops.masked_max(scores, relevant)[:, None]
            above, level_with = scores > best, scores == best
            if ranked is not None:
                above, level_with = above & ranked, level_with & ranked
            rank = ops.count(above, self.dtype) + 1.0
            if bool(xp.any(ops.count(level_with, self.dtype) > 1)):
                column = ops.arange(inputs.shape[1], ops.int64)[None, :]
                outside = ops.full((), inputs.shape[1], ops.int64)
                first = ops.amin(xp.where(relevant & level_with, column, outside), axis=1)[:, None]
                rank = rank + ops.count(level_with & (column < first), self.dtype)
            found = xp.any(relevant, axis=1)
            self._cache[key] = xp.where(found, rank, ops.full((), math.inf, self.dtype))
        return self._cache[key]

    def _order(self, inputs: Inputs, depth: int):
        """Columns of each row's top ``depth`` ranks: ranked candidates by score, best first, equal scores
        in input order, then the others."""
        ops, xp = self.ops, self.xp
        width = inputs.shape[1]
        by_score_alone = inputs.all_ranked or inputs.ranked_outscore_rest
        if inputs.scores.dtype == xp.float32 and width < 2 ** 30:
            # distinct integer keys, best first: an unstable sort or a top-k of them is then exact
            shift = max(int(width - 1).bit_length(), 1)
            keys = ops.rank_keys(inputs.scores, None if by_score_alone else ~inputs.ranked, shift)
            if keys is not None:
                return ops.smallest_columns(keys, depth, shift)
        order = ops.argsort(-inputs.scores, axis=1)
        if not by_score_alone and not bool(xp.all(inputs.ranked)):   # padding after every ranked one
            ranked_first = ops.take(inputs.ranked, order)
            order = ops.take(order, ops.argsort(ops.astype(~ranked_first, xp.int8), axis=1))
        return order[:, :depth]

    # ------------------------------------------------------------- helpers
    def f(self, x):
        return self.ops.astype(x, self.dtype)

    def div(self, num, den):
        """num / den where den > 0, else 0 (the kernels' ``np.divide(..., where=den > 0)``)."""
        xp = self.xp
        ok = den > 0
        return xp.where(ok, num / xp.where(ok, den, self.f(xp.ones_like(den))), self.zero)

    def upto(self, x, k):
        """Columns of the top ``k`` ranks (all without a cutoff)."""
        return x if k is None else x[:, :k]

    def is_rel(self, level):
        key = ("is_rel", level)
        if key not in self._cache:
            self._cache[key] = self.g >= level if level > 0 else self.valid & (self.g >= 0)
        return self._cache[key]

    def num_rel(self, level):
        key = ("num_rel", level)
        if key not in self._cache:
            relevant = self.judged >= level if level > 0 else self.judged_mask & (self.judged >= 0)
            self._cache[key] = self.ops.count(relevant, self.dtype)
        return self._cache[key]

    def num_judged_nonrel(self, level):
        return self.xp.sum(self.f(self.judged_mask & (self.judged < level)), axis=1)

    def count_upto(self, mask, k=None):
        """Per row, True entries in the top k (expected count over tie orders when averaged)."""
        if self.ties != "average":
            return self.ops.count(self.upto(mask, k), self.dtype)
        return self.xp.sum(self.tie_mean(self.f(mask), k), axis=1)

    def count_upto_rows(self, mask, k_per_row):
        inside = self.rank <= k_per_row[:, None]
        return self.xp.sum(self.xp.where(inside, self.tie_mean(self.f(mask)), self.zero), axis=1)

    # ---------------------------------------------------------------- ties
    @cached_property
    def tie_start(self):
        return self._tie_layout()[0]

    @cached_property
    def tie_end(self):
        return self._tie_layout()[1]

    @cached_property
    def tie_size(self):
        return self.f(self.tie_end - self.tie_start + 1)

    @cached_property
    def any_tie(self) -> bool:
        """Whether two ranked candidates of a row tie among the sorted ranks (else every group is one)."""
        return self.ties == "average" and not bool(self.xp.all(self._group_starts()))

    def _group_starts(self):
        """Per rank, whether it starts a tied group (equal scores among the ranked)."""
        if "group_starts" not in self._cache:
            ops, xp, sorted_scores = self.ops, self.xp, self.sorted_scores
            col = ops.arange(self.width, ops.int64)[None, :]
            n = ops.astype(self.n_ret, ops.int64)[:, None]
            head = ops.full((self.rows, 1), True, xp.bool)
            self._cache["group_starts"] = \
                ops.concat([head, sorted_scores[:, 1:] != sorted_scores[:, :-1]], axis=1) | (col == n)
        return self._cache["group_starts"]

    def _tie_layout(self):
        """Per rank: first and last column of its tied group (equal scores among the ranked)."""
        if "tie_layout" in self._cache:
            return self._cache["tie_layout"]
        ops, xp = self.ops, self.xp
        col = ops.arange(self.width, ops.int64)[None, :]
        if not self.any_tie:   # every group is one rank
            start = xp.broadcast_to(col, (self.rows, self.width))
            self._cache["tie_layout"] = start, start
            return start, start
        new = self._group_starts()
        head = ops.full((self.rows, 1), True, xp.bool)
        start = ops.cummax(xp.where(new, col, -1), axis=1)
        last = ops.concat([new[:, 1:], head], axis=1)
        flipped = ops.flip(xp.where(last, self.width - 1 - col, -1), axis=1)
        end = self.width - 1 - ops.flip(ops.cummax(flipped, axis=1), axis=1)
        self._cache["tie_layout"] = start, end
        return start, end

    def tie_mean(self, values, k=None):
        """Per rank of the top ``k`` (every rank without a cutoff), the mean of ``values`` over its tied
        group (``Batch.tie_mean``); a group may reach past rank k."""
        if self.ties != "average" or not self.any_tie:
            return self.upto(values, k)
        total = self.ops.cumsum(values)
        take, start, end = self.ops.take, self.upto(self.tie_start, k), self.upto(self.tie_end, k)
        return (take(total, end) - take(total, start) + take(values, start)) / self.upto(self.tie_size, k)

    # --------------------------------------------------------------- gains
    def gains(self, grades, spec, mask):
        """``dcg.gain_values``: linear, exp (2^g - 1) or a map overriding listed grades; 0 outside ``mask``,
        where ``grades`` are already 0 (and every grade is >= 0: linear and exp gains need no mask)."""
        xp = self.xp
        if spec == "exp":
            return xp.exp2(grades) - 1.0
        if isinstance(spec, str):
            return grades
        out = grades
        for grade, gain in spec:
            out = xp.where(grades == grade, self.ops.full((), gain, self.dtype), out)
        return xp.where(mask, out, self.zero)

    def discount(self, ranks, kind: str, base: float):
        """``dcg._denominators``: log_b(i + 1), or for jk 1 below rank b and log_b(i) after."""
        xp = self.xp
        if base <= 1.0:
            raise MeasureError(f"log_base={base!r}: the base of the discount's logarithm must be > 1")

        def log(x):
            return xp.log2(x) if base == 2.0 else xp.log(x) / math.log(base)
        if kind == "jk":
            one = self.f(xp.ones_like(ranks))
            return xp.where(ranks < base, one, log(xp.maximum(ranks, one)))
        return log(ranks + 1.0)

    def ideal_gains(self, m):
        """Positive gains of the ideal ranking, best first (``dcg._ideal_list``)."""
        spec, ideal = m.get("gain"), m.get("ideal")
        key = ("ideal", spec if isinstance(spec, str) else tuple(spec), ideal, m.cutoff)
        if key not in self._cache:
            if ideal == "qrels":
                gains = self.gains(self.judged, spec, self.judged_mask)
            else:
                gains = self.upto(self.gains(self.g, spec, self.valid), m.cutoff if ideal == "topk" else None)
            if not isinstance(spec, str):   # a map may give a grade a negative gain
                gains = self.xp.where(gains > 0, gains, self.zero)
            k = gains.shape[1] if m.cutoff is None else min(m.cutoff, gains.shape[1])
            self._cache[key] = self.ops.top_values(gains, k)
        return self._cache[key]

    def qrels_top(self):
        """The highest judged grade of the batch, at least 0 (``needs.qrels_max_grade``), on the device."""
        xp, batch = self.xp, self.batch
        return xp.max(xp.where(batch.judged_mask, batch.judged, self.zero))
