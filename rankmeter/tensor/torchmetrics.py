"""TorchMetrics-compatible retrieval metrics: a Lightning module changes one import.

``from torchmetrics.retrieval import RetrievalNormalizedDCG`` becomes
``from rankmeter.tensor.torchmetrics import RetrievalNormalizedDCG``. Every
class of ``torchmetrics.retrieval`` (1.9) is here, with the same constructor
arguments (``empty_target_action``, ``ignore_index``, ``top_k``,
``adaptive_k``, ``aggregation``, ``max_fpr``, ``max_k``, ``min_precision``
and ``torchmetrics.Metric``'s own), the same ``update(preds, target,
indexes)``, the same errors and the same values, equal scores included:
TorchMetrics' ``torch.topk`` / ``torch.argsort`` calls break ties, and these
classes make the same calls (one per distinct query length, not per query).
By default the state is TorchMetrics' (every prediction, grouped into queries
at ``compute()``), so a query's candidates may arrive over several updates.

Two keyword-only additions:

* ``whole_queries=True``: each update holds whole queries (a validation step
  over whole queries does); the per-query values are computed there and the
  state is a sum and a count (one value per query for ``median``/``min``/
  ``max``/a callable), so memory does not grow with the number of
  candidates. ``[queries, candidates]`` rows without ``indexes`` are taken too.
  A query split over updates then counts as several queries: say it only when
  it holds.
* ``ties``: ``"torchmetrics"`` (default), ``"input"`` (equal scores in the
  order they arrived: a stable sort) or ``"average"`` (rankmeter's expected
  value over every order of tied candidates, where it has a closed form).

:class:`RankmeterMetric` takes any measures of :func:`rankmeter.tensor.evaluate`
(bounded state; whole queries per update); its ``compute()`` gives one tensor
for one measure, a dict for several. This module imports torch and
torchmetrics (the ``torch`` extra).
"""
from __future__ import annotations

try:
    import torch
    import torchmetrics
except ImportError as error:  # pragma: no cover - the extra is installed wherever this module is used
    from rankmeter.errors import MissingExtra
    raise MissingExtra(error.name or "torchmetrics", "torchmetrics",
                       "rankmeter.tensor.torchmetrics (TorchMetrics-compatible classes)") from None

import rankmeter.tensor._tm_rows as rows
from rankmeter.tensor._evaluate import evaluate_planned
from rankmeter.tensor._inputs import prepare
from rankmeter.tensor._tm_base import RetrievalBase, aggregate, check_top_k
from rankmeter.tensor.metric import Metric, check_state, unit_interval
from rankmeter.errors import ParameterError

__all__ = ["RankmeterMetric", "RetrievalAUROC", "RetrievalFallOut", "RetrievalHitRate", "RetrievalMAP",
           "RetrievalMRR", "RetrievalNormalizedDCG", "RetrievalPrecision", "RetrievalPrecisionRecallCurve",
           "RetrievalRPrecision", "RetrievalRecall", "RetrievalRecallAtFixedPrecision"]


class RankmeterMetric(torchmetrics.Metric):
    """Means of rankmeter measures over every query seen, as a ``torchmetrics.Metric``.

    Parameters
    ----------
    measures : str or list of str
        As :func:`rankmeter.tensor.evaluate`.
    ties, empty_target_action, positive_scores_only, top_k, ignore_index
        As :func:`rankmeter.tensor.evaluate`.
    **kwargs
        ``torchmetrics.Metric``'s own (``sync_on_compute``, ``process_group``, ...).

    Examples
    --------
    >>> import torch
    >>> metric = RankmeterMetric(["nDCG@2", "AP"])
    >>> metric.update(torch.tensor([[0.9, 0.8, 0.7]]), torch.tensor([[1, 0, 1]]))
    >>> {k: round(float(v), 4) for k, v in metric.compute().items()}
    {'nDCG@2': 0.6131, 'AP': 0.8333}
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    def __init__(self, measures, *, ties: str = "input", empty_target_action: str | None = None,
                 positive_scores_only: bool = False, top_k: int | None = None, ignore_index=None, **kwargs):
        super().__init__(**kwargs)
        checked = Metric(measures, ties=ties, empty_target_action=empty_target_action,
                         positive_scores_only=positive_scores_only, top_k=top_k, ignore_index=ignore_index)
        self._planned, self._options, self.labels = checked._planned, checked._options, checked.labels
        self._single = isinstance(measures, str) and len(self.labels) == 1
        self.add_state("sums", default=torch.zeros(len(self.labels), dtype=torch.float64), dist_reduce_fx="sum")
        self.add_state("counts", default=torch.zeros(len(self.labels), dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, preds: torch.Tensor, target: torch.Tensor, indexes: torch.Tensor | None = None,
               mask: torch.Tensor | None = None) -> None:
        """Add whole queries: ``[queries, candidates]`` rows, or TorchMetrics' flat form with ``indexes``."""
        if indexes is None and preds.ndim == 1:
            raise ParameterError("1-D preds need indexes= (the query of each candidate), as TorchMetrics' "
                                 "retrieval metrics do; or give [queries, candidates] rows")
        options = self._options
        inputs = prepare(preds, target, mask=mask, indexes=indexes, ignore_index=options["ignore_index"],
                         positive_scores_only=options["positive_scores_only"])
        values = self._values(inputs)
        stacked = torch.stack([values[label].to(torch.float64) for label in self.labels])
        defined = ~torch.isnan(stacked)
        self.sums += torch.where(defined, stacked, 0.0).sum(dim=1).to(self.sums.device)
        self.counts += defined.sum(dim=1).to(self.counts)

    def _values(self, inputs) -> dict:
        return evaluate_planned(inputs, self._planned, self._options["ties"])

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """``load_state_dict``: the sums and counts checked against the measures before they are taken."""
        if prefix + "sums" in state_dict or prefix + "counts" in state_dict:
            check_state(state_dict.get(prefix + "sums"), state_dict.get(prefix + "counts"), self.labels,
                        [unit_interval(m) for _, m in self._planned])
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def compute(self):
        means = torch.where(self.counts > 0, self.sums / self.counts.clamp(min=1.0), torch.zeros_like(self.sums))
        if self._single:
            return means[0]
        return {label: means[i] for i, label in enumerate(self.labels)}


def _average(name: str, top_k=None, positive: bool = False):
    """``ties="average"``: the rankmeter measure of a class (and its options) for rankmeter.tensor.evaluate."""
    return name, dict(top_k=top_k, positive_scores_only=positive, empty_target_action="neg")


class RetrievalMAP(RetrievalBase):
    """TorchMetrics' MAP: precision averaged over the relevant docs found in the top k (``torch.topk``);
    a relevant doc counts only when its score is above 0."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        if top_k is not None and not (isinstance(top_k, int) and top_k > 0):
            raise ValueError(f"Argument ``top_k`` has to be a positive integer or None, but got {top_k}")
        self.top_k = top_k
        self._check_average()

    def _rows(self, P, T):
        return rows.average_precision(P, T, self.ties, top_k=self.top_k)


class RetrievalMRR(RetrievalBase):
    """TorchMetrics' MRR: 1 / rank of the first relevant doc (scored above 0) in the top k (``torch.topk``)."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        if top_k is not None and not (isinstance(top_k, int) and top_k > 0):
            raise ValueError(f"Argument ``top_k`` has to be a positive integer or None, but got {top_k}")
        self.top_k = top_k
        self.average_measure = _average("RR", top_k, positive=True)

    def _rows(self, P, T):
        return rows.reciprocal_rank(P, T, self.ties, top_k=self.top_k)


class RetrievalPrecision(RetrievalBase):
    """TorchMetrics' precision: relevant docs (scored above 0) in the top k (``torch.topk``) / k; without
    ``top_k`` (or with ``adaptive_k`` and k above the query's length), k is the query's length."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 adaptive_k: bool = False, aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        if not isinstance(adaptive_k, bool):
            raise ValueError("`adaptive_k` has to be a boolean")
        self.top_k, self.adaptive_k = top_k, adaptive_k
        if top_k is not None and not adaptive_k:
            self.average_measure = _average("P", top_k, positive=True)
        self._check_average()

    def _rows(self, P, T):
        return rows.precision(P, T, self.ties, top_k=self.top_k, adaptive_k=self.adaptive_k)


class RetrievalRecall(RetrievalBase):
    """TorchMetrics' recall: relevant docs (scored above 0) in the top k (``torch.argsort``) / relevant docs."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        self.top_k = top_k
        self.average_measure = _average("R", top_k, positive=True)

    def _rows(self, P, T):
        return rows.recall(P, T, self.ties, top_k=self.top_k)


class RetrievalHitRate(RetrievalBase):
    """TorchMetrics' hit rate: 1 if a relevant doc is in the top k (``torch.argsort``), else 0."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        self.top_k = top_k
        self._check_average()

    def _rows(self, P, T):
        return rows.hit_rate(P, T, self.ties, top_k=self.top_k)


class RetrievalFallOut(RetrievalBase):
    """TorchMetrics' fall-out: non-relevant docs in the top k (``torch.argsort``) / non-relevant docs. A query
    without a non-relevant doc is the "empty" one, and ``empty_target_action`` defaults to ``pos``."""

    higher_is_better = False
    empty_when = "no negative"

    def __init__(self, empty_target_action: str = "pos", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        self.top_k = top_k
        self._check_average()

    def _rows(self, P, T):
        return rows.fall_out(P, T, self.ties, top_k=self.top_k)


class RetrievalRPrecision(RetrievalBase):
    """TorchMetrics' R-precision: relevant docs in the top R (``torch.argsort``) / R, R the relevant docs."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, aggregation="mean",
                 **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        self.average_measure = _average("Rprec")

    def _rows(self, P, T):
        return rows.r_precision(P, T, self.ties)


class RetrievalNormalizedDCG(RetrievalBase):
    """TorchMetrics' nDCG: graded targets as linear gains, log2 discount, the gains of tied scores averaged
    (scikit-learn's ``ndcg_score``), so no order of ties enters."""

    graded = True

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        self.top_k = top_k
        self.average_measure = _average("nDCG", top_k)

    def _rows(self, P, T):
        return rows.normalized_dcg(P, T, self.ties, top_k=self.top_k)

    def _average_rows(self, P, T):
        return self._rows(P, T)   # TorchMetrics' nDCG already is the average over the orders of ties


class RetrievalAUROC(RetrievalBase):
    """TorchMetrics' AUROC of each query's top k (``torch.topk``), partial up to ``max_fpr`` (McClish)."""

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 max_fpr: float | None = None, aggregation="mean", **kwargs):
        super().__init__(empty_target_action, ignore_index, aggregation, **kwargs)
        check_top_k(top_k)
        if max_fpr is not None and not (isinstance(max_fpr, float) and 0 < max_fpr <= 1):
            raise ValueError(f"Arguments `max_fpr` should be a float in range (0, 1], but got: {max_fpr}")
        self.top_k, self.max_fpr = top_k, max_fpr
        self._check_average()

    def _rows(self, P, T):
        return rows.auroc(P, T, self.ties, top_k=self.top_k, max_fpr=self.max_fpr)


class RetrievalPrecisionRecallCurve(RetrievalBase):
    """TorchMetrics' precision-recall curve: precision and recall at k = 1 .. ``max_k`` (``torch.topk``),
    aggregated over the queries at each k; ``compute()`` gives ``(precision, recall, top_k)``.

    ``max_k=None`` is the longest query's length (all the data's: ``whole_queries=True`` needs ``max_k``).
    """

    def __init__(self, max_k: int | None = None, adaptive_k: bool = False, empty_target_action: str = "neg",
                 ignore_index: int | None = None, aggregation="mean", **kwargs):
        check_top_k(max_k, "max_k")
        if kwargs.get("whole_queries") and max_k is None:
            raise ParameterError("whole_queries=True with max_k=None: the curve's length is the longest query of "
                                 "all the data, unknown at an update; give max_k")
        super().__init__(empty_target_action, ignore_index, aggregation, curve=2 * (max_k or 0), **kwargs)
        if not isinstance(adaptive_k, bool):
            raise ValueError("`adaptive_k` has to be a boolean")
        self.max_k, self.adaptive_k = max_k, adaptive_k
        self._curve_k = max_k
        self._check_average()

    def _rows(self, P, T):
        precision, recall = rows.precision_recall_curve(P, T, self.ties, max_k=self._curve_k,
                                                        adaptive_k=self.adaptive_k)
        return torch.cat([precision, recall], 1)

    def _query_values(self, indexes, preds, target):
        if self.max_k is None:
            self._curve_k = int(torch.unique(indexes, return_counts=True)[1].max())
        return super()._query_values(indexes, preds, target)

    def compute(self):
        if self.whole_queries and self.aggregation == "mean":
            if self._update_count == 0:
                raise ValueError("No samples to concatenate")
            curves = (self.sums / self.counts if float(self.counts) > 0 else torch.zeros_like(self.sums)).float()
            device = curves.device
        else:
            values, dtype = self._all_values()
            device = values.device
            curves = aggregate(values, self.aggregation, dim=0) if len(values) else \
                torch.zeros(2 * self._curve_k, dtype=dtype, device=device)
        k = self._curve_k
        return curves[:k], curves[k:], torch.arange(1, k + 1, device=device)


class RetrievalRecallAtFixedPrecision(RetrievalPrecisionRecallCurve):
    """TorchMetrics' recall at fixed precision: the highest recall of the (aggregated) curve where precision is
    at least ``min_precision``, and its k (the largest k of that recall); ``compute()`` gives ``(recall, k)``."""

    higher_is_better = True

    def __init__(self, min_precision: float = 0.0, max_k: int | None = None, adaptive_k: bool = False,
                 empty_target_action: str = "neg", ignore_index: int | None = None, **kwargs):
        super().__init__(max_k=max_k, adaptive_k=adaptive_k, empty_target_action=empty_target_action,
                         ignore_index=ignore_index, **kwargs)
        if not (isinstance(min_precision, float) and 0.0 <= min_precision <= 1.0):
            raise ValueError("`min_precision` has to be a positive float between 0 and 1")
        self.min_precision = min_precision

    def compute(self):
        precision, recall, top_k = super().compute()
        allowed = precision >= self.min_precision
        if not bool(allowed.any()):
            return torch.tensor(0.0, device=recall.device, dtype=recall.dtype), torch.tensor(len(top_k))
        best = recall[allowed].max()
        if best == 0.0:
            return best, torch.tensor(len(top_k), device=top_k.device, dtype=top_k.dtype)
        return best, top_k[allowed & (recall == best)].max()
