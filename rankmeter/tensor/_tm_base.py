"""The state and the checks shared by the TorchMetrics-compatible classes (rankmeter.tensor.torchmetrics).

:class:`RetrievalBase` keeps what TorchMetrics' ``RetrievalMetric`` keeps by
default: every ``preds``, ``target`` and ``indexes`` (list states, gathered
across processes), grouped into queries at ``compute()``, so one query's
candidates may arrive over several updates. ``whole_queries=True`` asks for
rankmeter's bounded state instead: each update holds whole queries, their
values are computed there, and the state is a sum and a count (``"mean"``) or
one value per query (other aggregations). Arguments and input errors are
TorchMetrics' (``ValueError`` with its messages).
"""
from __future__ import annotations

try:
    import torch
    import torchmetrics
except ImportError as error:  # pragma: no cover - the extra is installed wherever this module is used
    from rankmeter.errors import MissingExtra
    raise MissingExtra(error.name or "torchmetrics", "torchmetrics",
                       "rankmeter.tensor.torchmetrics (TorchMetrics-compatible classes)") from None

from rankmeter.errors import ParameterError
from rankmeter.tensor._tm_rows import by_length, group_queries

__all__ = ["RetrievalBase", "aggregate", "check_inputs", "check_top_k"]

_ACTIONS = ("error", "skip", "neg", "pos")
_AGGREGATIONS = ("mean", "median", "min", "max")
TIES = ("torchmetrics", "input", "average")


def aggregate(values, aggregation, dim=None):
    """Per-query values to one (``dim=None``) or one per column (``dim=0``), as TorchMetrics aggregates."""
    if aggregation == "mean":
        return values.mean() if dim is None else values.mean(dim=dim)
    if aggregation in ("median", "min", "max"):
        reduced = getattr(values, aggregation)() if dim is None else getattr(values, aggregation)(dim=dim).values
        return reduced
    return aggregation(values, dim=dim)


def check_top_k(top_k, name: str = "top_k") -> None:
    if top_k is not None and not (isinstance(top_k, int) and not isinstance(top_k, bool) and top_k > 0):
        raise ValueError(f"`{name}` has to be a positive integer or None")


def check_inputs(indexes, preds, target, *, graded: bool, ignore_index):
    """TorchMetrics' checks of one update, with its messages; returns flat int64 ids, float32 scores and
    int64 (float32 if given as floats) targets, the elements whose target is ``ignore_index`` dropped."""
    if indexes is None:
        raise ValueError("Argument `indexes` cannot be None")
    if indexes.shape != preds.shape or preds.shape != target.shape:
        raise ValueError("`indexes`, `preds` and `target` must be of the same shape")
    if indexes.dtype is not torch.long:
        raise ValueError("`indexes` must be a tensor of long integers")
    if ignore_index is not None:
        keep = target != ignore_index
        indexes, preds, target = indexes[keep], preds[keep], target[keep]
    if not indexes.numel() or not indexes.size():
        raise ValueError("`indexes`, `preds` and `target` must be non-empty and non-scalar tensors")
    if target.dtype not in (torch.bool, torch.long, torch.int) and not torch.is_floating_point(target):
        raise ValueError("`target` must be a tensor of booleans, integers or floats")
    if not preds.is_floating_point():
        raise ValueError("`preds` must be a tensor of floats")
    if not graded and (target.max() > 1 or target.min() < 0):
        raise ValueError("`target` must contain `binary` values")
    target = target.float() if target.is_floating_point() else target.long()
    return indexes.long().flatten(), preds.detach().float().flatten(), target.detach().flatten()


class RetrievalBase(torchmetrics.Metric):
    """TorchMetrics' ``RetrievalMetric``: per-query values aggregated over the queries (see module docstring).

    Subclasses give ``_rows(P, T)``: one float64 value per row of a ``[queries, length]`` group.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    #: TorchMetrics' graded targets (nDCG) instead of binary ones
    graded = False
    #: a query is "empty" when it has no relevant candidate (fall-out: no non-relevant one)
    empty_when = "no positive"
    #: the rankmeter measure of ties="average" (None: no closed form over the orders of ties)
    average_measure = None

    def __init__(self, empty_target_action: str = "neg", ignore_index=None, aggregation="mean", *,
                 ties: str = "torchmetrics", whole_queries: bool = False, curve: int = 0, **kwargs):
        super().__init__(**kwargs)
        if empty_target_action not in _ACTIONS:
            raise ValueError(f"Argument `empty_target_action` received a wrong value `{empty_target_action}`.")
        self.empty_target_action = empty_target_action
        if ignore_index is not None and not isinstance(ignore_index, int):
            raise ValueError("Argument `ignore_index` must be an integer or None.")
        self.ignore_index = ignore_index
        if not (callable(aggregation) or (isinstance(aggregation, str) and aggregation in _AGGREGATIONS)):
            raise ValueError("Argument `aggregation` must be one of `mean`, `median`, `min`, `max` or a custom "
                             f"callable function which takes tensor of values, but got {aggregation}.")
        self.aggregation = aggregation
        if ties not in TIES:
            raise ParameterError(f"ties={ties!r}: expected 'torchmetrics' (TorchMetrics' own order of equal scores, "
                                 "the default), 'input' (equal scores in the order they arrived) or 'average' "
                                 "(the expected value over every order of tied candidates)")
        if not isinstance(whole_queries, bool):
            raise ParameterError(f"whole_queries={whole_queries!r}: expected True or False")
        self.ties, self.whole_queries = ties, whole_queries
        if whole_queries:
            if aggregation == "mean":
                self.add_state("sums", default=torch.zeros(curve if curve else (), dtype=torch.float64),
                               dist_reduce_fx="sum")
                self.add_state("counts", default=torch.zeros((), dtype=torch.float64), dist_reduce_fx="sum")
            else:
                self.add_state("values", default=[], dist_reduce_fx="cat")
        else:
            self.add_state("indexes", default=[], dist_reduce_fx=None)
            self.add_state("preds", default=[], dist_reduce_fx=None)
            self.add_state("target", default=[], dist_reduce_fx=None)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """``load_state_dict``: a bounded state's sum and count checked before they are taken."""
        if self.whole_queries and self.aggregation == "mean" and (prefix + "sums" in state_dict
                                                                   or prefix + "counts" in state_dict):
            from rankmeter.tensor.metric import check_state
            check_state(state_dict.get(prefix + "sums"), state_dict.get(prefix + "counts"), [type(self).__name__],
                        [not self.graded], shape=tuple(self._defaults["sums"].shape))
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def _check_average(self) -> None:
        if self.ties == "average" and self.average_measure is None:
            raise ParameterError(f"ties='average' with {type(self).__name__}: no closed form over the orders of "
                                 "tied scores here; use ties='torchmetrics' or 'input'")

    # ---------------------------------------------------------------- update
    def update(self, preds, target, indexes=None, mask=None) -> None:
        """Add candidates: TorchMetrics' ``preds, target, indexes`` (any shape, flattened); with
        ``whole_queries=True`` also ``[queries, candidates]`` rows without ``indexes`` (``mask``: False
        for padding)."""
        if self.whole_queries and indexes is None and preds.ndim == 2:   # [queries, candidates] rows
            indexes = torch.arange(preds.shape[0], device=preds.device)[:, None].expand_as(preds)
        if mask is not None:
            if not self.whole_queries or mask.shape != preds.shape or mask.dtype != torch.bool:
                raise ParameterError("mask= (bool, the shape of preds; False for padding) goes with "
                                     "whole_queries=True rows; TorchMetrics' flat form has no padding")
            indexes, preds, target = indexes[mask], preds[mask], target[mask]
        indexes, preds, target = check_inputs(indexes, preds, target, graded=self.graded,
                                              ignore_index=self.ignore_index)
        if not self.whole_queries:
            self.indexes.append(indexes)
            self.preds.append(preds)
            self.target.append(target)
            return
        values = self._query_values(indexes, preds, target)
        if self.aggregation == "mean":
            kept = values[~torch.isnan(values).reshape(len(values), -1).any(1)]
            self.sums += kept.sum(0).to(self.sums)
            self.counts += len(kept)
        else:
            self.values.append(values.float())

    # ---------------------------------------------------------------- values
    def _empty(self, T):
        if self.empty_when == "no negative":
            return (1 - T).sum(1) == 0
        return T.sum(1) == 0

    def _query_values(self, indexes, preds, target):
        """One value (a row of values for a curve) per query in id order; NaN where skipped."""
        P, T, starts, lengths = group_queries(indexes, preds, target, self.ties)
        out = None
        for length, queries, positions in by_length(starts, lengths):
            rows_p, rows_t = P[positions], T[positions]
            values = self._average_rows(rows_p, rows_t) if self.ties == "average" else self._rows(rows_p, rows_t)
            empty = self._empty(rows_t)
            if bool(empty.any()):
                if self.empty_target_action == "error":
                    kind = "negative" if self.empty_when == "no negative" else "positive"
                    raise ValueError(f"`compute` method was provided with a query with no {kind} target.")
                fill = {"pos": 1.0, "neg": 0.0, "skip": float("nan")}[self.empty_target_action]
                mask = empty if values.ndim == 1 else empty[:, None]
                values = torch.where(mask, torch.full_like(values, fill), values)
            if out is None:
                out = values.new_empty((len(lengths), *values.shape[1:]))
            out[queries] = values
        return out

    def _average_rows(self, P, T):
        from rankmeter.tensor._evaluate import evaluate
        name, options = self.average_measure
        value = evaluate(P.double(), T.double(), name, ties="average", **options)[name]
        return torch.nan_to_num(value.double(), nan=0.0)

    # ---------------------------------------------------------------- compute
    def _gathered(self):
        if not self.indexes:
            raise ValueError("No samples to concatenate")
        cat = torchmetrics.utilities.dim_zero_cat
        return cat(self.indexes), cat(self.preds), cat(self.target)

    def _all_values(self):
        """Every query's value (rows of a curve), the skipped ones left out, in the scores' dtype."""
        if self.whole_queries:
            if not self.values:
                raise ValueError("No samples to concatenate")
            values = torchmetrics.utilities.dim_zero_cat(self.values)
            dtype = torch.float32
        else:
            indexes, preds, target = self._gathered()
            values = self._query_values(indexes, preds, target)
            dtype = preds.dtype
        keep = ~torch.isnan(values).reshape(len(values), -1).any(1)
        return values[keep].to(dtype), dtype

    def compute(self):
        if self.whole_queries and self.aggregation == "mean":
            if self._update_count == 0:
                raise ValueError("No samples to concatenate")
            mean = self.sums / self.counts if float(self.counts) > 0 else torch.zeros_like(self.sums)
            return mean.float()
        values, dtype = self._all_values()
        if len(values) == 0:
            return torch.tensor(0.0, dtype=dtype)
        return aggregate(values, self.aggregation)
