"""Per-query score normalisation, as ranx defines each (names as ranx spells them).

Every function takes the scores of one run as a flat array with per-query
segment offsets (rows in rank order within each query) and returns the
normalised scores, vectorised over all queries:

* ``min-max``: (s - min) / max(max - min, 1e-9); ``min-max-inverted``: (max - s) / the same;
* ``max``: s / max(max, 1e-9);
* ``sum``: (s - min) / max(sum - n min, 1e-9);
* ``zmuv``: (s - mean) / max(std, 1e-9) (population std);
* ``rank``: 1 - (rank - 1) / n;
* ``borda`` (over all the runs' docs of a query, m candidates): 1 - (rank - 1) / m for a
  retrieved doc, 0.5 - (n - 1) / (2 m) for a candidate the run did not retrieve.
"""
from __future__ import annotations

import numpy as np

from rankmeter.fusion.catalog import NORMS
from rankmeter.engine.param import Param, validate_params

__all__ = ["NORMS", "normalise"]

#: the norms of one run alone (``borda`` scores each doc among every run's docs: :func:`~.methods.fuse` does it)
NORM = Param("norm", "choice", help="per-query normalisation of one run's scores",
             choices=tuple(n for n in NORMS if n != "borda"))


def _segment(values: np.ndarray, offsets: np.ndarray, reducer) -> np.ndarray:
    """Per-query reduction repeated over the query's rows (empty queries allowed)."""
    counts = np.diff(offsets)
    out = np.zeros(len(counts))
    full = counts > 0
    if full.any():
        out[full] = reducer.reduceat(values, offsets[:-1][full])
    return np.repeat(out, counts)


@validate_params(NORM)
def normalise(scores: np.ndarray, offsets: np.ndarray, norm: str) -> np.ndarray:
    """``scores`` (rank order within each query of ``offsets``) normalised per query by ``norm``."""
    scores = np.asarray(scores, dtype=np.float64)
    counts = np.diff(offsets)
    if norm == "rank":
        rank0 = np.arange(len(scores)) - np.repeat(offsets[:-1], counts)
        return 1.0 - rank0 / np.repeat(np.maximum(counts, 1), counts)
    low = _segment(scores, offsets, np.minimum)
    high = _segment(scores, offsets, np.maximum)
    if norm == "min-max":
        return (scores - low) / np.maximum(high - low, 1e-9)
    if norm == "min-max-inverted":
        return (high - scores) / np.maximum(high - low, 1e-9)
    if norm == "max":
        return scores / np.maximum(high, 1e-9)
    n = np.repeat(counts, counts).astype(np.float64)
    total = _segment(scores, offsets, np.add)
    if norm == "sum":
        return (scores - low) / np.maximum(total - low * n, 1e-9)
    mean = total / np.maximum(n, 1)
    spread = np.sqrt(_segment((scores - mean) ** 2, offsets, np.add) / np.maximum(n, 1))
    return (scores - mean) / np.maximum(spread, 1e-9)
