"""TorchMetrics' model: its conventions as ``rankmeter diff`` switches them, and the order torch gives tied scores.

TorchMetrics (1.x) sees only the retrieved docs of each query (the ideal of nDCG over them), counts a
relevant doc in MAP/MRR/P/R only with a score > 0, divides AP by the relevant docs it found, averages
every query it is given (one without a relevant doc scores 0), holds scores as torch's default float32
(``torch.tensor`` of Python floats: two scores equal in single precision tie), and orders tied scores as torch's own
``topk`` (MAP, MRR, P) or ``argsort`` (recall) leaves them; nDCG averages over tied orders. Its class and
function names: :data:`NAMES`. The drop-in is :mod:`rankmeter.tensor.torchmetrics`.
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "NAMES", "ranked", "torch_call"]

#: TorchMetrics retrieval classes that compute a rankmeter family
NAMES = {"AP": "RetrievalMAP", "nDCG": "RetrievalNormalizedDCG", "P": "RetrievalPrecision",
         "R": "RetrievalRecall", "RR": "RetrievalMRR", "HitRate": "RetrievalHitRate",
         "FallOut": "RetrievalFallOut", "RecallAtFixedPrecision": "RetrievalRecallAtFixedPrecision",
         "Rprec": "RetrievalRPrecision", "AUC": "RetrievalAUROC"}


def torch_call(measure) -> tuple[str, int | None]:
    """``(call, k)`` of the torch call TorchMetrics orders ``measure``'s docs with."""
    return ("argsort" if measure.family.name == "R" else "topk"), measure.cutoff


def ranked(docs: dict, call: str, k) -> dict:
    """``docs`` in the order TorchMetrics' ``preds.topk(min(k, n), sorted=True)`` or
    ``torch.argsort(preds, descending=True)`` gives their float32 scores (the docs past k: a stable sort)."""
    import torch
    names, scores = list(docs), torch.tensor(list(docs.values()), dtype=torch.float32)
    if call == "argsort":
        first = torch.argsort(scores, descending=True).tolist()
    else:
        first = scores.topk(min(k or len(names), len(names)), sorted=True).indices.tolist()
    taken = set(first)
    rest = sorted((i for i in range(len(names)) if i not in taken), key=lambda i: -docs[names[i]])
    return {names[i]: docs[names[i]] for i in first + rest}


_FAMILIES = ("nDCG", "AP", "RR", "P", "R")
CONVENTION = Convention(
    "torchmetrics", scores="float32", ties="torchmetrics", positive_scores=True, ap_denominator="hits", ideal_pool="retrieved",
    unjudged_query="zero", families=_FAMILIES, overrides=(("nDCG", {"ties": "average", "positive_scores": False}),),
    note="only the retrieved docs are seen (ideal over them); nDCG ties averaged; MAP/MRR/P/R count a relevant doc "
         "only with a score > 0 and order tied scores as torch.topk (MAP, MRR, P) or torch.argsort (R) leaves "
         "them: the functional metrics called per query")
