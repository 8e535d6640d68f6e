"""TorchMetrics 1.9's per-query retrieval values, ties broken in TorchMetrics' own order.

TorchMetrics scores one query at a time, after ``torch.sort(indexes)`` of every
candidate it holds, with ``torch.topk`` (MAP, MRR, precision, AUROC, the
precision-recall curve) or ``torch.argsort(descending=True)`` (recall, hit
rate, fall-out, R-precision). Neither is stable on equal scores: on the CPU,
``argsort`` keeps input order up to 16 candidates and not beyond (an
introsort), and ``topk`` picks among equal scores by a partial sort whose
choice depends on the list's length and ``k``. The order of tied candidates,
and so the value of a measure that reads it, is whatever those calls give.

These kernels make the same calls on the same values, so they get the same
order: the queries are grouped by length and each group is one ``[queries,
length]`` batch, on which ``torch.topk`` / ``torch.argsort`` along the last
axis treat every row exactly as the 1-D call on that query does (checked
against TorchMetrics in tests/tensor/test_tensor_torchmetrics_sweep.py). One call per
distinct query length, never one per query. ``ties="input"`` uses a stable
sort instead (equal scores in the order the candidates arrived).

Every kernel takes float32 scores ``P`` and targets ``T`` (int64, or float32
when given as floats) of one group and returns float64 values, one per row.
"""
from __future__ import annotations

import torch

__all__ = ["group_queries", "by_length", "ORDERS"]


def group_queries(indexes, preds, target, ties: str):
    """Candidates grouped by query (ids ascending), as TorchMetrics' ``compute`` groups them.

    Returns ``(preds, target, starts, lengths)``: the candidates in the grouped order and, per query,
    where it starts and how many candidates it holds. ``ties="torchmetrics"`` sorts the ids with
    ``torch.sort`` (not stable: TorchMetrics' own call, so each query's candidates come in its order),
    ``"input"``/``"average"`` with a stable sort.
    """
    if ties == "torchmetrics":
        indexes, order = torch.sort(indexes)
    else:
        indexes, order = torch.sort(indexes, stable=True)
    _, lengths = torch.unique_consecutive(indexes, return_counts=True)
    starts = torch.cumsum(lengths, 0) - lengths
    return preds[order], target[order], starts, lengths


def by_length(starts, lengths):
    """``(length, queries, positions)`` per distinct query length: ``positions`` is ``[queries, length]``."""
    for length in torch.unique(lengths).tolist():
        queries = torch.nonzero(lengths == length).flatten()
        positions = starts[queries, None] + torch.arange(length, device=starts.device)
        yield length, queries, positions


# ---------------------------------------------------------------- orders
def _topk(P, k: int, ties: str):
    """The ``k`` best candidates of each row, best first (``preds.topk(k, sorted=True)``)."""
    if ties == "input":
        return torch.sort(P, dim=-1, descending=True, stable=True).indices[:, :k]
    return P.topk(k, dim=-1, sorted=True).indices


def _argsort(P, k: int | None, ties: str):
    """Every candidate of each row, best first (``torch.argsort(preds, descending=True)``), cut at ``k``."""
    if ties == "input":
        order = torch.sort(P, dim=-1, descending=True, stable=True).indices
    else:
        order = torch.argsort(P, dim=-1, descending=True)
    return order if k is None else order[:, :k]


ORDERS = {"topk": _topk, "argsort": _argsort}


def _positive(P, T):
    """MAP, MRR, precision and recall count a relevant candidate only when its score is above 0."""
    return torch.where(P > 0, T, torch.zeros_like(T))


def _ratio(num, den):
    return torch.where(den != 0, num / torch.where(den != 0, den, torch.ones_like(den)), torch.zeros_like(num))


# ---------------------------------------------------------------- measures, one value per row
def average_precision(P, T, ties, *, top_k=None):
    k = min(top_k or P.shape[1], P.shape[1])
    t = _positive(P, T).gather(1, _topk(P, k, ties)).double()
    hit = (t > 0).double()
    ranks = torch.arange(1, k + 1, dtype=torch.float64, device=P.device)
    ap = _ratio((torch.cumsum(hit, 1) / ranks * hit).sum(1), hit.sum(1))
    return torch.where(t.sum(1) != 0, ap, torch.zeros_like(ap))


def reciprocal_rank(P, T, ties, *, top_k=None):
    k = min(top_k or P.shape[1], P.shape[1])
    t = _positive(P, T).gather(1, _topk(P, k, ties)).double()
    found = t != 0
    first = torch.argmax(found.to(torch.int8), dim=1).double()
    return torch.where(found.any(1) & (t.sum(1) != 0), 1.0 / (first + 1.0), torch.zeros_like(first))


def precision(P, T, ties, *, top_k=None, adaptive_k=False):
    length = P.shape[1]
    k = length if top_k is None or (adaptive_k and top_k > length) else top_k
    relevant = _positive(P, T).gather(1, _topk(P, min(k, length), ties)).double().sum(1)
    return relevant / k


def recall(P, T, ties, *, top_k=None):
    k = P.shape[1] if top_k is None else top_k
    relevant = _positive(P, T).gather(1, _argsort(P, k, ties)).double().sum(1)
    return _ratio(relevant, T.double().sum(1))


def hit_rate(P, T, ties, *, top_k=None):
    k = P.shape[1] if top_k is None else top_k
    return (T.gather(1, _argsort(P, k, ties)).sum(1) > 0).double()


def fall_out(P, T, ties, *, top_k=None):
    k = P.shape[1] if top_k is None else top_k
    negative = 1 - T
    return _ratio(negative.gather(1, _argsort(P, k, ties)).double().sum(1), negative.double().sum(1))


def r_precision(P, T, ties):
    relevant = T.sum(1, keepdim=True)
    ordered = T.gather(1, _argsort(P, None, ties)).double()
    cut = torch.arange(P.shape[1], device=P.device)[None, :] < relevant
    return _ratio((ordered * cut).sum(1), relevant[:, 0].double())


def normalized_dcg(P, T, ties, *, top_k=None):
    """Linear gains, log2 discount, the gains of equal scores averaged over their ranks (scikit-learn's
    ``ndcg_score``, which TorchMetrics translates): no order of ties enters, whatever ``ties``."""
    length = P.shape[1]
    k = length if top_k is None else top_k
    discount = 1.0 / torch.log2(torch.arange(length, dtype=torch.float64, device=P.device) + 2.0)
    discount[k:] = 0.0
    cumulative = torch.cumsum(discount, 0)
    scores, order = torch.sort(P, dim=1, descending=True, stable=True)
    gains = T.double().gather(1, order)
    ends = torch.ones_like(scores, dtype=torch.bool)
    ends[:, :-1] = scores[:, 1:] != scores[:, :-1]
    group = torch.cumsum(torch.cat([torch.zeros_like(ends[:, :1]), ends[:, :-1]], 1).long(), 1)
    rows = torch.arange(P.shape[0], device=P.device)[:, None].expand_as(group)
    flat = (rows * length + group).flatten()
    size = P.shape[0] * length
    total = torch.zeros(size, dtype=torch.float64, device=P.device).index_add_(0, flat, gains.flatten())
    count = torch.zeros(size, dtype=torch.float64, device=P.device).index_add_(
        0, flat, torch.ones_like(gains).flatten())
    # a tied group spanning ranks a..b gets its mean gain times the discounts of a..b
    last = torch.where(ends, cumulative.expand_as(gains), torch.zeros_like(gains))
    first = torch.where(torch.cat([torch.ones_like(ends[:, :1]), ends[:, :-1]], 1),
                        torch.cat([torch.zeros_like(gains[:, :1]), cumulative[None, :-1].expand(len(P), -1)], 1),
                        torch.zeros_like(gains))
    span = torch.zeros(size, dtype=torch.float64, device=P.device).index_add_(0, flat, (last - first).flatten())
    dcg = (_ratio(total, count) * span).view(len(P), length).sum(1)
    ideal = (torch.sort(T.double(), dim=1, descending=True).values * discount).sum(1)
    return _ratio(dcg, ideal)


def auroc(P, T, ties, *, top_k=None, max_fpr=None):
    """Area under the ROC curve of each row's top k (``binary_auroc`` on them: scores outside [0, 1]
    through a sigmoid first; with ``max_fpr``, the partial area up to it, McClish-standardised)."""
    length = P.shape[1]
    k = min(top_k or length, length)
    chosen = _topk(P, k, ties)
    t, p = T.gather(1, chosen), P.gather(1, chosen)
    both = (t == 0).any(1) & (t == 1).any(1)
    outside = ((p < 0) | (p > 1)).any(1, keepdim=True)
    p = torch.where(outside, torch.sigmoid(p), p)
    p, order = torch.sort(p, dim=1, descending=True, stable=True)
    positive = (t.gather(1, order) == 1).double()
    tps, fps = torch.cumsum(positive, 1), torch.cumsum(1.0 - positive, 1)
    y1, x1 = _ratio(tps, tps[:, -1:]), _ratio(fps, fps[:, -1:])
    ends = torch.ones_like(p, dtype=torch.bool)
    ends[:, :-1] = p[:, 1:] != p[:, :-1]
    # the previous point of the curve: the last end before each position (the curve only rises)
    zero = torch.zeros_like(x1[:, :1])
    x0 = torch.cat([zero, torch.cummax(torch.where(ends, x1, 0.0), 1).values[:, :-1]], 1)
    y0 = torch.cat([zero, torch.cummax(torch.where(ends, y1, 0.0), 1).values[:, :-1]], 1)
    limit = 1.0 if max_fpr is None or max_fpr == 1 else float(max_fpr)
    reach = torch.clamp(torch.minimum(x1, torch.full_like(x1, limit)) - x0, min=0.0)
    y_end = y0 + (y1 - y0) * _ratio(reach, x1 - x0)
    area = torch.where(ends & (x0 < limit), reach * (y0 + torch.where(x1 <= limit, y1, y_end)) / 2, 0.0).sum(1)
    if limit != 1.0:
        low = 0.5 * limit ** 2
        area = 0.5 * (1 + (area - low) / (limit - low))
    return torch.where(both, area, torch.zeros_like(area))


def precision_recall_curve(P, T, ties, *, max_k: int, adaptive_k=False):
    """Precision and recall at k = 1 .. ``max_k`` of each row, ``[rows, max_k]`` each."""
    length = P.shape[1]
    relevant = T.gather(1, _topk(P, min(max_k, length), ties)).double()
    if max_k > length:
        relevant = torch.cat([relevant, relevant.new_zeros(len(P), max_k - length)], 1)
    relevant = torch.cumsum(relevant, 1)
    ks = torch.arange(1, max_k + 1, dtype=torch.float64, device=P.device)
    if adaptive_k and max_k > length:
        ks = torch.clamp(ks, max=float(length))
    return relevant / ks, _ratio(relevant, T.double().sum(1, keepdim=True))
