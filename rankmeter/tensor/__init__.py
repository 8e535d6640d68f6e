"""Measures inside the training loop: ``[B, N]`` arrays of any array library in, trec_eval's numbers out.

* :func:`evaluate` gives per-row values of measures over a batch of ranked
  lists (scores and graded targets, optional padding mask), in the input's
  own library and on its device;
* :class:`Metric` accumulates them over batches as sums and counts per
  measure (never the predictions), merges and reduces across processes;
* :mod:`rankmeter.tensor.torchmetrics` holds TorchMetrics-compatible classes
  (``RetrievalNormalizedDCG``, ``RetrievalMAP`` ...), so a Lightning module
  changes one import.

numpy rows are scored by the families' own kernels; other libraries (torch,
CuPy, JAX) by the array-API form of the same formulas. torch is imported only
when given torch tensors. See docs/training.md.

>>> import numpy as np
>>> from rankmeter.tensor import evaluate
>>> evaluate(np.array([[0.2, 0.9, 0.4]]), np.array([[1, 0, 0]]), "RR")["RR"].tolist()
[0.3333333333333333]
"""
from __future__ import annotations

from rankmeter.tensor._evaluate import evaluate
from rankmeter.tensor._inputs import SUPPORTED
from rankmeter.tensor.metric import Metric

__all__ = ["evaluate", "Metric", "SUPPORTED"]
