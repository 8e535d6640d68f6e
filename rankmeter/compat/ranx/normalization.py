"""ranx's ``ranx.normalization``: each normalisation as a function of a run (``borda_norm`` of all the runs).

Every function returns a new :class:`~rankmeter.compat.ranx.Run` with the run's name, its scores
normalised per query as ranx normalises them (:mod:`rankmeter.fusion.normalisation`
computes them, all queries at once) and its docs in the run's order, not sorted again (as ranx
leaves them; ``min_max_norm(invert=True)`` sorts, as ranx does); the run passed is left as it was.

>>> from rankmeter.compat.ranx import Run
>>> run = Run({"q1": {"a": 3.0, "b": 1.0, "c": 2.0}}, name="bm25")
>>> dict(min_max_norm(run).to_dict()), dict(rank_norm(run)["q1"])
({'q1': {'a': 1.0, 'c': 0.5, 'b': 0.0}}, {'a': 1.0, 'c': 0.6666666666666667, 'b': 0.33333333333333337})
>>> sorted(borda_norm([run, Run({"q1": {"d": 1.0}})])[1]["q1"].items())
[('a', 0.5), ('b', 0.5), ('c', 0.5), ('d', 1.0)]
"""
from __future__ import annotations

import numpy as np

from rankmeter.compat.ranx.data import Run
from rankmeter.compat.ranx.errors import InputTypeError
from rankmeter.errors import ParameterError

__all__ = ["borda_norm", "max_norm", "min_max_norm", "norm_switch", "normalize", "rank_norm", "sum_norm",
           "zmuv_norm"]

_NAMES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}
_NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank")


def normalize(run, norm: str = "min-max") -> Run:
    """ranx's ``normalize``: ``run`` with its scores normalised per query by ``norm``.

    ``norm="borda"`` scores a doc against every run's candidates: use :func:`borda_norm` or
    ``fuse(..., norm="borda")``.
    """
    from rankmeter.fusion.normalisation import normalise
    from rankmeter.compat.ranx.evaluation import as_dict

    norm = _NAMES.get(norm, norm)
    if norm == "borda":
        raise ParameterError("norm='borda' scores a doc against every run's candidates: use borda_norm(runs) or "
                             "fuse(..., norm='borda')")
    if norm not in _NORMS:
        raise ParameterError(f"Normalization method {norm} not supported: ranx's are {', '.join(_NORMS)}, borda")
    data = as_dict(run, "run")
    lengths = np.array([len(docs) for docs in data.values()], dtype=np.int64)
    scores = np.fromiter((float(v) for docs in data.values() for v in docs.values()), np.float64, int(lengths.sum()))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    values = normalise(scores, offsets, norm).tolist()
    normalised = Run(None, getattr(run, "name", None))  # in the run's order, not sorted (as ranx leaves it) ...
    for (q, docs), start, stop in zip(data.items(), offsets[:-1].tolist(), offsets[1:].tolist()):
        normalised._data[q] = dict(zip(docs, values[start:stop]))
    if norm == "min-max-inverted":
        normalised.sort()  # ... but the inverted scores, which ranx sorts
    return normalised


def max_norm(run) -> Run:
    """Each score over the query's highest (ranx's ``max_norm``)."""
    return normalize(run, "max")


def min_max_norm(run, invert: bool = False) -> Run:
    """(score - min) / (max - min) per query; ``invert=True``: (max - score) / (max - min)."""
    return normalize(run, "min-max-inverted" if invert else "min-max")


def rank_norm(run) -> Run:
    """1 - (rank - 1) / n per query (ranx's ``rank_norm``)."""
    return normalize(run, "rank")


def sum_norm(run) -> Run:
    """(score - min) / (sum - n min) per query (ranx's ``sum_norm``)."""
    return normalize(run, "sum")


def zmuv_norm(run) -> Run:
    """(score - mean) / standard deviation per query (ranx's ``zmuv_norm``)."""
    return normalize(run, "zmuv")


def borda_norm(runs: list) -> list[Run]:
    """ranx's ``borda_norm``: per query, m candidates (every run's docs); a run's doc at rank r gets
    1 - (r - 1) / m, a candidate it did not retrieve 0.5 - (n - 1) / (2 m) (n: its docs for the query).

    Ranks are the order each run holds its docs (score descending; tied docs as given).
    """
    from rankmeter.compat.ranx.evaluation import as_dict

    if isinstance(runs, (Run, dict)) or not isinstance(runs, (list, tuple)):
        raise InputTypeError(f"borda_norm: expected a list of ranx Runs; got {type(runs).__name__}")
    data = [as_dict(run, "run") for run in runs]
    out: list[dict] = [{} for _ in runs]
    for q in data[0] if data else ():
        candidates = list(dict.fromkeys(d for run in data for d in run.get(q, {})))
        m = len(candidates)
        for run, normalised in zip(data, out):
            docs = run.get(q, {})
            missing = 0.5 - (len(docs) - 1) / (2 * m) if m else 0.0
            normalised[q] = {d: 1 - i / m for i, d in enumerate(docs)}
            normalised[q].update((d, missing) for d in candidates if d not in docs)
    normalised_runs = []
    for run, normalised in zip(runs, out):  # as ranx leaves them: candidates in their order, not sorted
        normalised_runs.append(Run(None, getattr(run, "name", None)))
        normalised_runs[-1]._data = normalised
    return normalised_runs


def norm_switch(method: str = "min-max"):
    """ranx's ``norm_switch``: the function of a normalisation's name."""
    if method == "borda":
        return borda_norm
    method = _NAMES.get(method, method)
    if method not in _NORMS:
        raise ParameterError(f"Normalization method {method} not supported: ranx's are {', '.join(_NORMS)}, borda")
    return lambda run: normalize(run, method)
