"""TorchMetrics-compatible retrieval metrics: a Lightning module changes one import.

``from torchmetrics.retrieval import RetrievalNormalizedDCG`` becomes
``from rankmeter.tensor.torchmetrics import RetrievalNormalizedDCG``: the
same constructor arguments (``top_k``, ``empty_target_action``,
``ignore_index``), the same ``update(preds, target, indexes=...)`` and the
same values, with two differences that are the point of the swap:

* the state is two numbers per measure (a sum and a count, reduced with
  ``dist_reduce_fx="sum"``), never the predictions, so memory does not grow
  with the number of batches and a multi-process mean is the mean over every
  query of every process;
* each query's candidates come in one ``update`` (the per-query values are
  computed there), either as ``[queries, candidates]`` rows (``mask`` for
  padding) or in the flat form with ``indexes``.

:class:`RankmeterMetric` takes any measures of :func:`rankmeter.tensor.evaluate`;
its ``compute()`` gives one tensor for one measure, a dict for several.
This module imports torch and torchmetrics (the ``torch`` extra).
"""
from __future__ import annotations

try:
    import torch
    import torchmetrics
except ImportError as error:  # pragma: no cover - the extra is installed wherever this module is used
    from rankmeter.errors import MissingExtra
    raise MissingExtra(error.name or "torchmetrics", "torchmetrics",
                       "rankmeter.tensor.torchmetrics (TorchMetrics-compatible classes)") from None

from rankmeter.tensor._evaluate import evaluate_planned
from rankmeter.tensor._inputs import prepare
from rankmeter.tensor.metric import Metric
from rankmeter.errors import MeasureError, ParameterError

__all__ = ["RankmeterMetric", "RetrievalNormalizedDCG", "RetrievalMAP", "RetrievalMRR", "RetrievalPrecision",
           "RetrievalRecall", "RetrievalHitRate"]


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

    def compute(self):
        means = torch.where(self.counts > 0, self.sums / self.counts.clamp(min=1.0), torch.zeros_like(self.sums))
        if self._single:
            return means[0]
        return {label: means[i] for i, label in enumerate(self.labels)}


class _OneMeasure(RankmeterMetric):
    """A TorchMetrics retrieval class's constructor over one rankmeter measure.

    TorchMetrics 1.9's MAP, MRR, precision and recall count a relevant doc only when its score is
    above 0 (``torch.where(preds > 0, target, 0)`` in their functionals): below every positive score
    it adds nothing to those measures, so they are rankmeter's with ``positive_scores_only=True``.
    """

    measure = ""
    ties = "input"
    positive_scores_only = False

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 aggregation: str = "mean", **kwargs):
        if aggregation != "mean":
            raise ParameterError(f"aggregation={aggregation!r}: only the mean over queries is a sum and a count; "
                                 "use torchmetrics for median, min or max")
        super().__init__(self._measure(top_k), ties=self.ties, empty_target_action=empty_target_action,
                         top_k=top_k, ignore_index=ignore_index, positive_scores_only=self.positive_scores_only,
                         **kwargs)
        self._top_k, self._action = top_k, empty_target_action

    def _measure(self, top_k):
        return self.measure


class RetrievalNormalizedDCG(_OneMeasure):
    """TorchMetrics' nDCG: linear gains, log2 discount, tied scores averaged (as scikit-learn's ndcg_score)."""

    measure, ties = "nDCG", "average"


class RetrievalMAP(_OneMeasure):
    """TorchMetrics' MAP: precision averaged over the relevant docs found (in the top k), AP(denom=hits)."""

    measure, positive_scores_only = "AP(denom=hits)", True


class RetrievalMRR(_OneMeasure):
    measure, positive_scores_only = "RR", True


class RetrievalPrecision(_OneMeasure):
    """TorchMetrics' precision: relevant docs in the top k / k; without ``top_k``, over every candidate."""

    measure, positive_scores_only = "P", True

    def _measure(self, top_k):
        return "P" if top_k is not None else "Hits"

    def _values(self, inputs) -> dict:
        values = super()._values(inputs)
        if self._top_k is not None:
            return values
        # relevant ranked / candidates (ranked or not): TorchMetrics' top_k = the query's length
        hits = values[self.labels[0]]
        mask = torch.as_tensor(inputs.mask, device=hits.device)    # a view of numpy's arrays on the CPU
        targets = torch.as_tensor(inputs.targets, device=hits.device)
        candidates = mask.sum(dim=1).to(hits.dtype)
        empty = (mask & (targets >= 1)).sum(dim=1) == 0
        precision = hits / candidates.clamp(min=1.0)
        if self._action == "error" and bool(empty.any()):
            raise MeasureError(f"{int(empty.sum())} queries have no relevant doc and empty_target_action=error "
                               "refuses them; use neg (0), pos (1) or skip")
        fill = {"neg": 0.0, "pos": 1.0, "skip": float("nan")}.get(self._action, 0.0)
        return {self.labels[0]: torch.where(empty, torch.full_like(precision, fill), precision)}

    def __init__(self, empty_target_action: str = "neg", ignore_index: int | None = None, top_k: int | None = None,
                 adaptive_k: bool = False, aggregation: str = "mean", **kwargs):
        if adaptive_k:
            raise ParameterError("adaptive_k=True divides by min(k, candidates); rankmeter's P@k divides by k "
                                 "(trec_eval); use RelativeP through rankmeter.evaluate, or adaptive_k=False")
        super().__init__(empty_target_action, ignore_index, top_k, aggregation, **kwargs)


class RetrievalRecall(_OneMeasure):
    measure, positive_scores_only = "R", True


class RetrievalHitRate(_OneMeasure):
    measure = "HitRate"
