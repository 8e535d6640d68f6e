"""The fusion step shared by ranx's ``fuse``, ``optimize_fusion`` and the per-method functions of
``ranx.fusion`` (:mod:`rankmeter.compat.ranx.fusion_methods`): the runs checked as ranx checks them, fused by
:func:`rankmeter.fusion.fuse`, and handed back as the :class:`~rankmeter.compat.ranx.data.Run` ranx returns."""
from __future__ import annotations

from rankmeter.compat.ranx.data import Run
from rankmeter.compat.ranx.errors import InputAssertion, InputTypeError, ParameterTypeError
from rankmeter.compat.ranx.evaluation import as_dict

__all__ = ["METHOD_LABELS", "TRAINING_ONLY", "WEIGHTED", "check_same_queries", "fused"]

#: the name ranx gives a fused run, when it is not the method's
_NAMES = {"sum": "comb_sum", "mnz": "comb_mnz", "gmnz": "comb_gmnz", "anz": "comb_anz", "max": "comb_max",
          "min": "comb_min", "med": "comb_med", "wsum": "weighted_sum", "w_bordafuse": "weighted_bordafuse",
          "w_condorcet": "weighted_condorcet"}
WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
TRAINING_ONLY = ("bayesfuse", "mapfuse", "posfuse", "segfuse")
#: ranx's optimisation report labels
METHOD_LABELS = {"logn_isr": ("LogN_ISR", "Sigma"), "gmnz": ("GMNZ", "Gamma"), "mixed": ("Mixed", "Weights"),
                  "probfuse": ("ProbFuse", "# Segments"), "rbc": ("RBC", "phi"), "rrf": ("RRF", "k"),
                  "slidefuse": ("SlideFuse", "w"), "w_bordafuse": ("Weighted BordaFuse", "Weights"),
                  "w_condorcet": ("Weighted Condorcet", "Weights"), "wmnz": ("WMNZ", "Weights"),
                  "wsum": ("Weighted SUM", "Weights")}


def check_same_queries(runs, qrels=None) -> None:
    """ranx's checks on the runs of a fusion: a list of two or more, the same queries (and the qrels')."""
    if isinstance(runs, (Run, dict)) or not hasattr(runs, "__len__"):
        raise InputTypeError(f"runs: expected a list of ranx Runs; got {type(runs).__name__}")
    if len(runs) < 2:
        raise InputAssertion("Only one run provided: fusion needs two or more")
    for i, run in enumerate(runs):
        if set(as_dict(run, "run")) != set(as_dict(runs[0], "run")):
            raise InputAssertion(f"Runs 0 and {i} query ids do not match")
        if qrels is not None and set(as_dict(run, "run")) != set(as_dict(qrels, "qrels")):
            raise InputAssertion(f"Run {i} and Qrels query ids do not match")


#: the methods whose fused run ranx returns unsorted (it sorts it when it is scored); the others it sorts
_UNSORTED = ("condorcet", "w_condorcet")


def _from_rankmeter(fused, name: str, data: list[dict], method: str) -> Run:
    """The fused run as ranx leaves it: every query of the inputs (empty where no run retrieved anything), each
    query's docs in the order they first appear in the runs, then sorted as ranx sorts it (ties included)."""
    from rankmeter.io.canonical import decode_id
    table = fused.table
    scores: dict = {}
    for q, d, s in zip(table.column("query").to_pylist(), table.column("doc").to_pylist(),
                       table.column("score").to_pylist()):
        scores.setdefault(decode_id(q), {})[decode_id(d)] = s
    out: dict = {}
    for q in dict.fromkeys(q for run in data for q in run):
        got = scores.get(str(q), {})
        out[str(q)] = {d: got[d] for d in dict.fromkeys(str(d) for run in data for d in run.get(q, ())) if d in got}
    run = Run(None, name)
    run._data, run.sorted = out, False
    if method not in _UNSORTED:
        run.sort()
    return run


#: each method's parameters ranx requires (its functions take them without a default)
_REQUIRED = {**{m: "weights" for m in WEIGHTED}, "gmnz": "gamma", "rbc": "phi", "probfuse": "probs",
             "posfuse": "probs", "segfuse": "probs", "slidefuse": "probs", "bayesfuse": "log_odds",
             "mapfuse": "map_scores"}


def fused(runs, method: str, norm, params) -> Run:
    """``runs`` fused by ``method`` after ``norm`` (``params``: the method's, ``name`` among them)."""
    from rankmeter.fusion import fuse as rankmeter_fuse
    from rankmeter.compat.ranx.normalization import normalize
    params = dict(params or {})
    name = params.pop("name", _NAMES.get(method, method))
    norm = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}.get(norm, norm)
    needed = [p for p in (_REQUIRED.get(method), "w" if method == "slidefuse" else None) if p and p not in params]
    if needed:
        raise ParameterTypeError(f"{method}: missing the required parameter {needed[0]!r} (params={{{needed[0]!r}: "
                                 "...}}, as ranx requires it)")
    data = [as_dict(run, "run") for run in runs]  # in the order each holds (ranx's methods do not sort them)
    if norm in ("min-max-inverted", "min_max_inverted"):
        # ranx ranks the inverted scores; rankmeter.fuse reads ranks (rank-based methods, segfuse) before the norm
        data, norm = [normalize(run, norm)._data for run in data], None
    result = rankmeter_fuse(data, method=method, norm=norm, params=params, ties="input")
    return _from_rankmeter(result, name, data, method)
