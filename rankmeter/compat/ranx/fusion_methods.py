"""ranx's ``ranx.fusion`` functions, one per method (``comb_sum(runs)``, ``rrf(runs, k=60)``, ``wsum(runs, weights)``).

Each fuses the runs as given (no normalisation: :func:`~rankmeter.compat.ranx.fuse` normalises
first) with rankmeter's method of the same name and returns the fused
:class:`~rankmeter.compat.ranx.Run` under ranx's default name; the ``*_train`` functions return
the trained tables ranx returns (segment probabilities, log-odds, MAP scores).

>>> from rankmeter.compat.ranx import Run
>>> a, b = Run({"q1": {"d1": 1.0, "d2": 2.0}}), Run({"q1": {"d1": 3.0}})
>>> fused = comb_sum([a, b])
>>> fused.name, dict(fused["q1"])
('comb_sum', {'d1': 4.0, 'd2': 2.0})
>>> dict(rrf([a, b], k=60)["q1"])["d1"] == 1 / 62 + 1 / 61
True
"""
from __future__ import annotations

from rankmeter.compat.ranx.data import Run
from rankmeter.compat.ranx.errors import InputAssertion, InputTypeError, ParameterTypeError
from rankmeter.compat.ranx.evaluation import as_dict

__all__ = ["bayesfuse", "bayesfuse_train", "bordafuse", "comb_anz", "comb_gmnz", "comb_max", "comb_med",
           "comb_min", "comb_mnz", "comb_sum", "condorcet", "fusion_switch", "isr", "log_isr", "logn_isr",
           "mapfuse", "mapfuse_train", "mixed", "posfuse", "posfuse_train", "probfuse", "probfuse_train", "rbc",
           "rrf", "segfuse", "segfuse_train", "slidefuse", "slidefuse_train", "weighted_bordafuse",
           "weighted_condorcet", "wmnz", "wsum"]

#: the name ranx gives a fused run, when it is not the method's
_NAMES = {"sum": "comb_sum", "mnz": "comb_mnz", "gmnz": "comb_gmnz", "anz": "comb_anz", "max": "comb_max",
          "min": "comb_min", "med": "comb_med", "wsum": "weighted_sum", "w_bordafuse": "weighted_bordafuse",
          "w_condorcet": "weighted_condorcet"}
#: the methods that weigh the runs
WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")


def check_same_queries(runs, qrels=None) -> None:
    """Refuse ``runs`` that are not two or more runs over the same queries (and those of ``qrels``, if given)."""
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


def as_ranx_run(fused, name: str, data: list[dict], method: str) -> Run:
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


def fused_run(runs, method: str, norm, params) -> Run:
    """``runs`` fused by :func:`rankmeter.fusion.fuse` (``params`` as ranx takes them), as ranx returns it."""
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
    fused = rankmeter_fuse(data, method=method, norm=norm, params=params, ties="input")
    return as_ranx_run(fused, name, data, method)


def _fuse(runs, method: str, name: str, **params):
    check_same_queries(runs)
    return fused_run(runs, method, None, {**params, "name": name})


def comb_sum(runs, name: str = "comb_sum"):
    """Sum of a doc's scores."""
    return _fuse(runs, "sum", name)


def comb_mnz(runs, name: str = "comb_mnz"):
    """Sum of a doc's scores times the number of runs retrieving it."""
    return _fuse(runs, "mnz", name)


def comb_gmnz(runs, gamma: float, name: str = "comb_gmnz"):
    """Sum of a doc's scores times (runs retrieving it) ** gamma."""
    return _fuse(runs, "gmnz", name, gamma=gamma)


def comb_anz(runs, name: str = "comb_anz"):
    """Mean of a doc's scores over the runs retrieving it."""
    return _fuse(runs, "anz", name)


def comb_max(runs, name: str = "comb_max"):
    """A doc's highest score."""
    return _fuse(runs, "max", name)


def comb_min(runs, name: str = "comb_min"):
    """A doc's lowest score (over the runs retrieving it)."""
    return _fuse(runs, "min", name)


def comb_med(runs, name: str = "comb_med"):
    """A doc's median score (over the runs retrieving it)."""
    return _fuse(runs, "med", name)


def wsum(runs, weights: list, name: str = "weighted_sum"):
    """Weighted sum of a doc's scores."""
    return _fuse(runs, "wsum", name, weights=weights)


def wmnz(runs, weights: list, name: str = "wmnz"):
    """Weighted sum times the number of runs retrieving the doc."""
    return _fuse(runs, "wmnz", name, weights=weights)


def mixed(runs, weights: list, name: str = "mixed"):
    """Weighted sum with ranx's mixed weighting."""
    return _fuse(runs, "mixed", name, weights=weights)


def rrf(runs, k: int = 60, name: str = "rrf"):
    """Reciprocal rank fusion: sum of 1 / (k + rank)."""
    return _fuse(runs, "rrf", name, k=k)


def rbc(runs, phi: float, name: str = "rbc"):
    """Rank-biased centroids: sum of (1 - phi) phi ** (rank - 1)."""
    return _fuse(runs, "rbc", name, phi=phi)


def isr(runs, name: str = "isr"):
    """Inverse square rank: (runs retrieving the doc) x sum of 1 / rank ** 2."""
    return _fuse(runs, "isr", name)


def log_isr(runs, name: str = "log_isr"):
    """log(runs retrieving the doc) x sum of 1 / rank ** 2."""
    return _fuse(runs, "log_isr", name)


def logn_isr(runs, sigma: float = 0.01, name: str = "logn_isr"):
    """log(runs retrieving the doc + sigma) x sum of 1 / rank ** 2."""
    return _fuse(runs, "logn_isr", name, sigma=sigma)


def bordafuse(runs, name: str = "bordafuse"):
    """Borda count over every run's candidates."""
    return _fuse(runs, "bordafuse", name)


def weighted_bordafuse(runs, weights: list, name: str = "weighted_bordafuse"):
    """Weighted Borda count."""
    return _fuse(runs, "w_bordafuse", name, weights=weights)


def condorcet(runs, name: str = "condorcet"):
    """Condorcet fusion: docs ordered by pairwise majority."""
    return _fuse(runs, "condorcet", name)


def weighted_condorcet(runs, weights: list, name: str = "weighted_condorcet"):
    """Weighted Condorcet fusion."""
    return _fuse(runs, "w_condorcet", name, weights=weights)


def probfuse(runs, probs: list, name: str = "probfuse"):
    """ProbFuse with each run's segment probabilities (:func:`probfuse_train`)."""
    return _fuse(runs, "probfuse", name, probs=probs)


def posfuse(runs, probs: list, name: str = "posfuse"):
    """PosFuse with each run's rank probabilities (:func:`posfuse_train`)."""
    return _fuse(runs, "posfuse", name, probs=probs)


def segfuse(runs, probs: list, name: str = "segfuse"):
    """SegFuse with each run's segment probabilities (:func:`segfuse_train`)."""
    return _fuse(runs, "segfuse", name, probs=probs)


def slidefuse(runs, probs: list, w: int, name: str = "slidefuse"):
    """SlideFuse with each run's rank probabilities (:func:`slidefuse_train`) over a window of ``w``."""
    return _fuse(runs, "slidefuse", name, probs=probs, w=w)


def bayesfuse(runs, log_odds: list, name: str = "bayesfuse"):
    """BayesFuse with each run's log-odds (:func:`bayesfuse_train`)."""
    return _fuse(runs, "bayesfuse", name, log_odds=log_odds)


def mapfuse(runs, map_scores: list, name: str = "mapfuse"):
    """MAPFuse with each run's MAP (:func:`mapfuse_train`)."""
    return _fuse(runs, "mapfuse", name, map_scores=map_scores)


def _train(qrels, runs, method: str, **options) -> list:
    from rankmeter.fusion.trained import train
    # each run ranked in the order it holds (ranx's, ties included), as ranx's hit lists read it
    return next(iter(train(as_dict(qrels, "qrels"), [as_dict(run, "run") for run in runs], method, ties="input",
                           **options).values()))


def probfuse_train(qrels, runs, n_segments: int) -> list:
    """Each run's probability of a relevant doc per segment of its ranking."""
    return _train(qrels, runs, "probfuse", n_segments=n_segments)


def posfuse_train(qrels, runs) -> list:
    """Each run's probability of a relevant doc per rank."""
    return _train(qrels, runs, "posfuse")


def segfuse_train(qrels, runs) -> list:
    """Each run's probability of a relevant doc per SegFuse segment."""
    return _train(qrels, runs, "segfuse")


def slidefuse_train(qrels, runs) -> list:
    """Each run's probability of a relevant doc per rank (SlideFuse)."""
    return _train(qrels, runs, "slidefuse")


def bayesfuse_train(qrels, runs) -> list:
    """Each run's log-odds of relevance per rank segment."""
    return _train(qrels, runs, "bayesfuse")


def mapfuse_train(qrels, runs) -> list:
    """Each run's MAP on the training queries."""
    return _train(qrels, runs, "mapfuse")


_SWITCH = {"bayesfuse": bayesfuse, "bordafuse": bordafuse, "anz": comb_anz, "gmnz": comb_gmnz, "max": comb_max,
           "med": comb_med, "min": comb_min, "mnz": comb_mnz, "sum": comb_sum, "condorcet": condorcet, "isr": isr,
           "log_isr": log_isr, "logn_isr": logn_isr, "mapfuse": mapfuse, "mixed": mixed, "posfuse": posfuse,
           "probfuse": probfuse, "rbc": rbc, "rrf": rrf, "segfuse": segfuse, "slidefuse": slidefuse,
           "w_bordafuse": weighted_bordafuse, "w_condorcet": weighted_condorcet, "wmnz": wmnz, "wsum": wsum}


def fusion_switch(method: str):
    """ranx's ``fusion_switch``: the function of a method's name (``"sum"`` -> :func:`comb_sum`)."""
    from rankmeter.errors import ParameterError
    if method not in _SWITCH:
        raise ParameterError(f"Fusion method {method} not supported: ranx's are {', '.join(_SWITCH)}")
    return _SWITCH[method]
