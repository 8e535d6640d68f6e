"""Checking and shaping the tensor path's inputs: arrays, TorchMetrics' flat form, measures, conventions.

Everything a user passes is validated here, once, before any kernel runs:
``[B, N]`` scores and targets of one library (or TorchMetrics' flat
``preds, target, indexes``), the mask, the per-row judged set
(``num_relevant`` or ``ideal_targets``), the measure names and the
TorchMetrics conventions (``top_k``, ``empty_target_action``,
``ignore_index``, ``positive_scores_only``). The checks that look at values
reduce on the device and bring one boolean to the host.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import rankmeter.tensor._xp as _xp
from rankmeter.tensor._xp import Ops, namespace_of, numpy_ops
from rankmeter.errors import InputError, MeasureError, ParameterError

__all__ = ["Inputs", "prepare", "plan_measures", "SUPPORTED", "supported_text"]

#: Families on a fully judged list, with the parameter values the tensor path takes where it does
#: not take all of them (RBP's table gains and C/W/L quantities read trec_eval's per-query tables).
SUPPORTED: dict[str, dict[str, tuple]] = {
    "P": {}, "R": {}, "F": {}, "F1": {}, "Hits": {}, "Rprec": {}, "AP": {}, "RR": {}, "Success": {},
    "HitRate": {}, "CG": {}, "DCG": {}, "nDCG": {}, "NCG": {}, "ERR": {}, "nERR": {},
    "RBP": {"gain": ("binary", "graded"), "quantity": ("ERG",)}, "AUC": {},
}
_EMPTY_ACTIONS = ("neg", "pos", "skip", "error")


def supported_text() -> str:
    return ", ".join(SUPPORTED)


@dataclass
class Inputs:
    """Validated ``[B, N]`` inputs in the compute dtype, with the judged side of each row.

    ``judged``/``judged_mask`` (``[B, W]``) hold every judged grade of a row: the candidates', plus
    the relevant docs outside the list that ``num_relevant`` / ``ideal_targets`` declare.
    """

    ops: Ops
    scores: Any
    targets: Any
    mask: Any          # real elements
    ranked: Any        # real elements that are ranked (positive_scores_only drops the others)
    judged: Any
    judged_mask: Any
    dtype: Any
    row_ids: Any = None   # the flat form's query ids, one per row (sorted)
    all_ranked: bool = False   # no padding and nothing dropped: every element is ranked
    all_judged: bool = False   # judged_mask is all True (no padding, no declared docs outside the list)
    #: every ranked element scores above every other one (positive_scores_only: the others score <= 0),
    #: so ordering by score alone puts the ranked first
    ranked_outscore_rest: bool = False
    #: torch CPU input computed through numpy views: turns the values back into tensors (no copy)
    wrap: Any = None

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.scores.shape)

    def rows(self, start: int, stop: int) -> "Inputs":
        """The block of rows ``start:stop`` (views)."""
        cut = slice(start, stop)
        return replace(self, scores=self.scores[cut], targets=self.targets[cut], mask=self.mask[cut],
                       ranked=self.ranked[cut], judged=self.judged[cut], judged_mask=self.judged_mask[cut],
                       row_ids=None if self.row_ids is None else self.row_ids[cut], wrap=None)


#: The judged side holds a column per relevant doc a row declares (``num_relevant``): past this many cells in
#: all (or 16 per candidate, if more) a count is refused instead of allocated (1e9 allocated 7.45 GiB)
MAX_DECLARED_CELLS = 1 << 23


def _check_real(value, name: str) -> None:
    """Refuse an array that does not hold real numbers or booleans (complex: NaN passed through the imaginary
    cast; object: any Python value) in one line."""
    if value is None:
        return
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    complex_ = bool(getattr(value, "is_complex", lambda: False)()) if kind is None else kind == "c"
    if complex_ or (kind is not None and kind not in "biuf"):
        raise InputError(f"{name} has dtype {value.dtype}: expected an array of real numbers (or booleans)",
                         source=name)


def _compute_dtype(ops: Ops, scores):
    xp = ops.xp
    if ops.is_float(scores) and scores.dtype == xp.float32:
        return xp.float32
    return ops.float64


def _flat_to_rows(ops: Ops, preds, target, indexes, mask):
    """TorchMetrics' flat ``preds, target, indexes`` as padded ``[queries, longest]`` rows (ids sorted,
    each query's elements in input order); the mask is None when the rows are a reshape (``mask``
    None: every element is real)."""
    xp = ops.xp
    if ops.name not in ("numpy", "torch"):
        raise ParameterError("indexes= (TorchMetrics' flat form) needs numpy or torch arrays; give [rows, "
                             "candidates] arrays with mask= instead")
    for name, value in (("scores", preds), ("targets", target), ("indexes", indexes)):
        if len(value.shape) != 1:
            raise InputError(f"with indexes=, {name} must be 1-D (one element per candidate), got shape "
                             f"{tuple(value.shape)}", source=name)
    if not (preds.shape == target.shape == indexes.shape):
        raise InputError(f"scores, targets and indexes have shapes {tuple(preds.shape)}, {tuple(target.shape)} "
                         f"and {tuple(indexes.shape)}; give one value of each per candidate", source="indexes")
    if ops.is_float(indexes) or ops.is_bool(indexes):
        raise InputError("indexes must be integers (the query id of each candidate)", source="indexes")
    n = int(indexes.shape[0])
    if n == 0:
        raise InputError("no candidates: scores is empty", source="scores")
    reshaped = _equal_queries_in_order(ops, indexes)
    if reshaped is not None:   # the usual case: a reshape, checked in one pass
        rows, width = reshaped
        values = [v if v is None else xp.reshape(v, (rows, width)) for v in (preds, target, mask)]
        return (*values, indexes[::width])
    given_mask = mask
    if mask is None:
        mask = ops.full((n,), True, xp.bool)
    grouped = bool(xp.all(indexes[1:] >= indexes[:-1]))   # queries one after another
    order = None if grouped else ops.argsort(indexes, axis=0)
    ids = indexes if grouped else indexes[order]
    new = ops.concat([ops.full((1,), True, xp.bool), ids[1:] != ids[:-1]], axis=0)
    starts = ops.nonzero(new)
    rows = int(starts.shape[0])
    if n % rows == 0 and bool(xp.all(starts == ops.arange(rows, starts.dtype) * (n // rows))):
        width = n // rows   # every query the same length: the rows are a reshape
        values = [v if grouped or v is None else v[order] for v in (preds, target, given_mask)]
        return (*(v if v is None else xp.reshape(v, (rows, width)) for v in values), ids[starts])
    group = ops.cumsum(ops.astype(new, ops.int64), axis=0) - 1
    column = ops.arange(n, ops.int64) - xp.take(starts, group)
    width = int(ops.amax(column, axis=0)) + 1
    shaped = []
    for value in (preds, target, mask):
        out = ops.zeros((rows, width), value.dtype)
        out[group, column] = value if grouped else value[order]
        shaped.append(out)
    real = ops.zeros((rows, width), xp.bool)
    real[group, column] = True
    return shaped[0], shaped[1], real & shaped[2], ids[starts]


def _equal_queries_in_order(ops: Ops, indexes):
    """(rows, width) when ``indexes`` holds queries of one length one after another, ids ascending;
    else None. The width is read from the first query; one pass over the ids checks the rest (in
    blocks of rows where the library asks for them: no batch-sized temporary)."""
    xp = ops.xp
    n = int(indexes.shape[0])
    head = indexes[:min(n, 4096)]
    change = ops.nonzero(head != head[0])
    width = int(change[0]) if change.shape[0] else (n if n <= 4096 else 0)
    if width == 0 or n % width:
        return None
    rows = n // width
    grid = xp.reshape(indexes, (rows, width))
    ids = grid[:, 0]
    if not (bool(xp.all(ids[1:] > ids[:-1])) and bool(xp.all(grid[:, -1] == ids))):
        return None
    # ids that never decrease and end each row on the id it starts with: every row holds one id
    step = (ops.block_rows(rows, width) or rows) * width
    for start in range(0, n - 1, step):
        stop = min(start + step, n - 1)
        if not bool(xp.all(indexes[start + 1:stop + 1] >= indexes[start:stop])):
            return None
    return rows, width


def prepare(scores, targets, *, mask=None, indexes=None, num_relevant=None, ideal_targets=None,
            ignore_index=None, positive_scores_only: bool = False) -> Inputs:
    """Validate the arrays and build :class:`Inputs` (see :func:`rankmeter.tensor.evaluate`)."""
    for value, name in ((scores, "scores"), (targets, "targets"), (num_relevant, "num_relevant"),
                        (ideal_targets, "ideal_targets"), (indexes, "indexes")):
        _check_real(value, name)
    ops = namespace_of(scores)
    xp = ops.xp
    if type(targets).__module__.split(".")[0] != type(scores).__module__.split(".")[0]:
        raise InputError(f"scores is a {type(scores).__module__} array and targets a {type(targets).__module__} "
                         "one; give both from the same library", source="targets")
    if not isinstance(positive_scores_only, bool):
        raise ParameterError(f"positive_scores_only={positive_scores_only!r}: expected True or False")
    if ignore_index is not None and (isinstance(ignore_index, bool) or not isinstance(ignore_index, (int, float))):
        raise ParameterError(f"ignore_index={ignore_index!r}: expected a target value (a number) or None")
    if mask is not None:
        if type(mask).__module__.split(".")[0] != type(scores).__module__.split(".")[0] or not ops.is_bool(mask):
            raise InputError("mask must be a boolean array of the scores' library (True where an element is "
                             "real, False for padding)", source="mask")
    wrap = None
    if ops.name == "torch":   # measures are not differentiable: no autograd graph (a view, not a copy)
        scores, targets = scores.detach(), targets.detach()
        if scores.device.type == "cpu" and _xp.TORCH_CPU_THROUGH_NUMPY:
            ops, xp, wrap = numpy_ops(), _numpy(), ops.xp.from_numpy
            scores, targets, mask, indexes, num_relevant, ideal_targets = (
                _numpy_view(v) for v in (scores, targets, mask, indexes, num_relevant, ideal_targets))
    row_ids = None
    if indexes is not None:
        scores, targets, mask, row_ids = _flat_to_rows(ops, scores, targets, indexes, mask)
    if len(scores.shape) != 2:
        raise InputError(f"scores has shape {tuple(scores.shape)}: expected [rows, candidates], one ranking "
                         "per row (one list: scores[None, :]; TorchMetrics' flat form: pass indexes=)",
                         source="scores")
    if tuple(targets.shape) != tuple(scores.shape):
        raise InputError(f"targets has shape {tuple(targets.shape)}, scores {tuple(scores.shape)}: give one "
                         "target per score", source="targets")
    if mask is not None and tuple(mask.shape) != tuple(scores.shape):
        raise InputError(f"mask has shape {tuple(mask.shape)}, scores {tuple(scores.shape)}", source="mask")
    dtype = _compute_dtype(ops, scores)
    padded = mask is not None or ignore_index is not None
    real = ops.full(tuple(scores.shape), True, xp.bool) if mask is None else mask
    s = ops.astype(scores, dtype)
    t = ops.astype(targets, dtype)
    if ignore_index is not None:
        real = real & (t != ignore_index)
    if scores.shape[1] == 0:   # rows without candidates: one padding column keeps every reduction defined
        rows = scores.shape[0]
        s, t = ops.zeros((rows, 1), dtype), ops.zeros((rows, 1), dtype)
        real, padded = ops.zeros((rows, 1), xp.bool), True
    # the checks that read values: a minimum is NaN when a value is (one reduction, one scalar to the host)
    check_s = ops.is_float(scores)
    check_t = not ops.is_bool(targets)
    if padded and (check_s or check_t):
        lowest_s = ops.amin(xp.reshape(xp.where(real, s, ops.zeros((), dtype)), (-1,)), axis=0) if check_s else 0.0
        lowest_t = ops.amin(xp.reshape(xp.where(real, t, ops.zeros((), dtype)), (-1,)), axis=0) if check_t else 0.0
    else:
        empty = 0 in tuple(s.shape)
        lowest_s = ops.amin(xp.reshape(s, (-1,)), axis=0) if check_s and not empty else 0.0
        lowest_t = ops.amin(xp.reshape(t, (-1,)), axis=0) if check_t and not empty else 0.0
    if check_s and float(lowest_s) != float(lowest_s):
        raise InputError("scores hold NaN; give every real candidate a number (mask out padding)", source="scores")
    if check_t and not float(lowest_t) >= 0:
        raise InputError("targets hold a negative value or NaN; grades are >= 0 (0 = not relevant); mask "
                         "padding with mask= or drop a label with ignore_index=", source="targets")
    if padded:
        t = xp.where(real, t, ops.zeros((), dtype))
        s = xp.where(real, s, ops.zeros((), dtype))
    if positive_scores_only:
        ranked = real & (s > 0) if padded else s > 0
    else:
        ranked = real
    judged, judged_mask = _judged_side(ops, t, real, num_relevant, ideal_targets, dtype)
    return Inputs(ops, s, t, real, ranked, judged, judged_mask, dtype, row_ids,
                  all_ranked=not padded and not positive_scores_only,
                  all_judged=not padded and judged_mask is real, ranked_outscore_rest=positive_scores_only,
                  wrap=wrap)


def _numpy():
    import numpy
    return numpy


def _numpy_view(value):
    """A CPU tensor as a numpy array sharing its memory (half precision widened: numpy has no bfloat16)."""
    if value is None or not hasattr(value, "detach"):
        return value
    value = value.detach()
    if value.is_floating_point() and value.element_size() < 4:
        value = value.float()
    return value.numpy()


def _judged_side(ops: Ops, t, real, num_relevant, ideal_targets, dtype):
    xp = ops.xp
    rows = t.shape[0]
    if num_relevant is not None and ideal_targets is not None:
        raise ParameterError("give num_relevant or ideal_targets, not both (ideal_targets already counts the "
                             "relevant docs)")
    if num_relevant is not None:
        if tuple(num_relevant.shape) != (rows,):
            raise InputError(f"num_relevant has shape {tuple(num_relevant.shape)}; expected ({rows},): the "
                             "number of relevant docs (grade >= 1) of each row's whole judged set",
                             source="num_relevant")
        given = ops.astype(num_relevant, ops.float64 if ops.is_float(num_relevant) else dtype)
        extra = given - xp.sum(ops.astype(real & (t >= 1), given.dtype), axis=1)
        if bool(xp.any(~(extra >= 0) | (given != xp.floor(given)) | (given == float("inf")))):
            raise InputError("num_relevant is smaller than the relevant candidates of a row, not a whole "
                             "number, or not finite; it counts every relevant doc of the row, listed or not",
                             source="num_relevant")
        most = float(ops.amax(extra, axis=0)) if rows else 0.0
        budget = max(MAX_DECLARED_CELLS, 16 * rows * t.shape[1])
        if most * rows > budget:
            raise InputError(f"num_relevant declares up to {most:.0f} relevant docs beyond a row's candidates; "
                             f"the judged side holds a column for each ({most * rows * 8 / 2**30:.2f} GiB here), "
                             f"so at most {budget // max(rows, 1)} per row are accepted",
                             source="num_relevant")
        width = int(most)
        if width == 0:
            return t, real
        column = ops.astype(ops.arange(width, ops.int64), dtype)[None, :]
        more = column < extra[:, None]
        ones = xp.where(more, ops.full((), 1.0, dtype), ops.zeros((), dtype))
        return ops.concat([t, ones], axis=1), ops.concat([real, more], axis=1)
    if ideal_targets is not None:
        if len(ideal_targets.shape) != 2 or ideal_targets.shape[0] != rows:
            raise InputError(f"ideal_targets has shape {tuple(ideal_targets.shape)}; expected ({rows}, M): the "
                             "grades of each row's relevant docs, listed or not (pad with 0)", source="ideal_targets")
        ideal = ops.astype(ideal_targets, dtype)
        if bool(xp.any((ideal < 0) | xp.isnan(ideal))):
            raise InputError("ideal_targets holds a negative value or NaN", source="ideal_targets")
        listed = xp.sum(ops.astype(real & (t > 0), dtype), axis=1)
        if bool(xp.any(xp.sum(ops.astype(ideal > 0, dtype), axis=1) < listed)):
            raise InputError("ideal_targets lists fewer relevant docs than a row's candidates; it holds every "
                             "relevant doc of the row, listed or not", source="ideal_targets")
        zero = ops.zeros((), dtype)
        return (ops.concat([xp.where(real & (t <= 0), t, zero), ideal], axis=1),
                ops.concat([real & (t <= 0), ideal > 0], axis=1))
    return t, real


def plan_measures(measures, *, top_k=None, empty_target_action=None, ties: str = "input") -> list[tuple[str, Any]]:
    """(label, Measure) of each requested measure, with the call's conventions applied and checked."""
    from rankmeter.core.resolve import resolve_measures

    if ties not in ("input", "average"):
        raise ParameterError(f"ties={ties!r}: expected 'input' (equal scores keep their input order) or "
                             "'average' (the expected value over every order of tied candidates)")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise ParameterError(f"top_k={top_k!r}: expected a positive integer (the cutoff k of every measure) or None")
    if empty_target_action is not None and empty_target_action not in _EMPTY_ACTIONS:
        raise ParameterError(f"empty_target_action={empty_target_action!r}: expected one of "
                             + ", ".join(_EMPTY_ACTIONS))
    planned = []
    for label, m in resolve_measures(measures):
        allowed = SUPPORTED.get(m.name)
        if allowed is None:
            raise MeasureError(f"{label}: the tensor path scores fully judged candidate lists, where {m.name} "
                               f"is not defined or needs unjudged docs or subtopics; supported: {supported_text()}")
        for param, values in allowed.items():
            if m.get(param) not in values:
                raise MeasureError(f"{label}: the tensor path takes {param} in {', '.join(values)} "
                                   f"(got {m.get(param)!r})")
        if top_k is not None:
            if m.family.cutoff == "none":
                raise MeasureError(f"top_k={top_k} with {label}: {m.name} takes no cutoff; score it in a "
                                   "separate call without top_k")
            if m.cutoff is not None:
                raise ParameterError(f"top_k={top_k} and {label}: give the cutoff once, either in the name "
                                     f"({m.name}@k) or as top_k")
            m = m @ top_k
        if empty_target_action is not None and any(p.name == "empty_target_action" for p in m.family.params):
            own = m.get("empty_target_action")
            if own != "neg" and own != empty_target_action:
                raise ParameterError(f"empty_target_action={empty_target_action!r} and {label}: the measure "
                                     f"sets {own!r}; give it once")
            m = m.with_params(empty_target_action=empty_target_action)
        if ties == "average":
            _check_average(label, m)
        planned.append((label, m))
    return planned


def _check_average(label: str, m) -> None:
    if m.family.tie_average is None:
        raise MeasureError(f"{label}: {m.name} has no closed form over the orders of tied scores; "
                           "use ties='input'")
    if m.name == "AP" and m.get("denom") == "hits":
        raise MeasureError(f"{label}: AP(denom=hits) depends on the tied docs' order (no closed form); "
                           "use denom=R or denom=min with ties='average'")
    if m.name == "nDCG" and m.get("ideal") == "topk":
        raise MeasureError(f"{label}: nDCG(ideal=topk) depends on the tied docs' order (no closed form); "
                           "use ideal=qrels or ideal=run with ties='average'")
