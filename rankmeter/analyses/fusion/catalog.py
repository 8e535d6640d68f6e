"""Every knob of fusion and pooling, declared once: the methods and norms by ranx's names, and one table
of parameters (name, type, valid range, default, help) that :func:`~rankmeter.analyses.fusion.fuse`,
:func:`~rankmeter.analyses.fusion.optimise`, :func:`~rankmeter.analyses.fusion.pooling.pool` validate
with and the command line reads to make its flags (no numpy here, so the CLI lists them fast).

Each bad value gets one message shape, with the valid range::

    rrf k=-1: expected a number in [0, inf)

>>> check_params("rbc", {"phi": 0.5}, runs=2)
{'phi': 0.5}
>>> check_params("rrf", {"k": -1}, runs=2)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: rrf k=-1: expected a number in [0, inf)
>>> parse_param("rrf", "k=60")
('k', 60)
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rankmeter.analyses.parameters import Parameter
from rankmeter.errors import ParameterError

__all__ = ["METHODS", "NORMS", "TIES", "Parameter", "PARAMETERS", "FUSE_OPTIONS", "POOL_PARAMETERS",
           "parameters_of", "check_params", "parse_param", "is_rank_based", "is_trained"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
#: the order of each run's tied docs: trec_eval's (docno descending) or the order given (ranx's, for a
#: run given in rank order)
TIES = ("trec_eval", "input")

_WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
_PROBS = ("posfuse", "probfuse", "segfuse", "slidefuse")

#: Every method parameter, by name (a name means the same in every method that takes it).
PARAMETERS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("k", "number", 60, "RRF's constant: each run adds 1 / (k + rank) (Cormack et al. 2009)",
              low=0, methods=("rrf",)),
    Parameter("phi", "number", 0.8, "RBC's persistence: rank i adds (1 - phi) phi^(i - 1) (Bailey et al. "
              "2017)", low=0, high=1, low_open=True, high_open=True, methods=("rbc",)),
    Parameter("gamma", "number", 1.0, "GMNZ's exponent: sum * (runs retrieving the doc)^gamma (0: CombSUM, "
              "1: CombMNZ)", low=0, methods=("gmnz",)),
    Parameter("sigma", "number", 0.01, "logN_ISR's offset: (sum of 1 / rank^2) * log(runs + sigma)",
              low=0, low_open=True, methods=("logn_isr",)),
    Parameter("weights", "weights", None, "one weight per run, in the runs' order (default: all 1)",
              low=0, methods=_WEIGHTED, optional=True),
    Parameter("w", "integer", 1, "SlideFuse's half window: the mean of probs over ranks i - w .. i + w",
              low=0, methods=("slidefuse",)),
    Parameter("n_segments", "integer", 10, "ProbFuse's number of segments of each list (training)",
              low=1, methods=("probfuse",), training=True),
    Parameter("probs", "table", None, "per run, the probability of a relevant doc at each rank or segment "
              "(trained on judged queries)", low=0, high=1, methods=_PROBS, training=True, optional=True),
    Parameter("log_odds", "table", None, "per run, the log odds of relevance at each rank (trained)",
              methods=("bayesfuse",), training=True, optional=True),
    Parameter("map_scores", "weights", None, "per run, its score on the training queries (MAP by "
              "default; trained)", low=0, methods=("mapfuse",), training=True, optional=True),
)}

#: method -> (parameter defaults, whether it reads ranks instead of scores); trained-only parameters
#: (``n_segments``) are not among the defaults: they choose how the tables are estimated.
_RANK_BASED = {"rrf", "rbc", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet",
               "posfuse", "probfuse", "slidefuse", "bayesfuse", "mapfuse"}
_ORDER = ("sum", "mnz", "gmnz", "anz", "max", "min", "med", "wsum", "wmnz", "rrf", "rbc", "isr", "log_isr",
          "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet", "mixed", "posfuse", "probfuse",
          "segfuse", "slidefuse", "bayesfuse", "mapfuse")
_TRAINED = ("posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse")


def parameters_of(method: str) -> list[Parameter]:
    """The parameters ``method`` takes (training ones included), in table order."""
    return [p for p in PARAMETERS.values() if method in p.methods]


METHODS: dict[str, tuple[dict, bool]] = {
    m: ({p.name: p.default for p in parameters_of(m) if not (p.training and p.kind == "integer")},
        m in _RANK_BASED) for m in _ORDER}


def is_rank_based(method: str) -> bool:
    return METHODS[method][1]


def is_trained(method: str) -> bool:
    return method in _TRAINED


#: The options of fuse() itself, beside the method's parameters.
FUSE_OPTIONS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("method", "choice", "rrf", "fusion method, as ranx names it", choices=_ORDER),
    Parameter("norm", "choice", "min-max", "per-query normalisation before fusing (ranx's; None: raw "
              "scores)", choices=NORMS + (None,)),
    Parameter("ties", "choice", "trec_eval", "order of each run's tied docs for ranks: trec_eval (docno "
              "descending) or input (the order given, as ranx reads a run)", choices=TIES),
    Parameter("step", "number", 0.1, "optimise: grid step of the weights", low=0, high=1, low_open=True),
)}

#: The parameters of pool().
POOL_PARAMETERS: dict[str, Parameter] = {p.name: p for p in (
    Parameter("depth", "integer", None, "depth@k: every doc some run ranks in its top k", low=1, optional=True),
    Parameter("take", "integer", None, "take@N: the N docs of best priority per query", low=1, optional=True),
    Parameter("priority", "choice", "rrf", "take@N priority: rrf, sum (CombSUM of min-max scores) or rbp",
              choices=("rrf", "sum", "rbp")),
    Parameter("p", "number", 0.8, "RBP priority's persistence", low=0, high=1, low_open=True,
              high_open=True),
)}


def check_method(method: Any) -> str:
    return FUSE_OPTIONS["method"].check(method)


def check_params(method: str, params: Mapping | None, *, runs: int | None = None) -> dict:
    """``params`` of ``method`` validated against the table (unknown names refused); defaults not filled in."""
    check_method(method)
    if params is not None and not isinstance(params, Mapping):
        raise ParameterError(f"params={params!r}: expected a dict NAME -> value")
    allowed = {p.name: p for p in parameters_of(method)}
    unknown = sorted(set(params or {}) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) or "no parameters"
        raise ParameterError(f"{method} takes {takes}; not {', '.join(map(str, unknown))}")
    return {name: allowed[name].check(value, method=method, runs=runs) for name, value in (params or {}).items()}


def parse_param(method: str, item: str) -> tuple[str, Any]:
    """One command-line ``NAME=VALUE`` of ``method``, typed and checked (``--param k=60``)."""
    check_method(method)
    name, eq, text = item.partition("=")
    if not eq or not name:
        raise ParameterError(f"--param {item!r}: expected NAME=VALUE, e.g. k=60")
    allowed = {p.name: p for p in parameters_of(method)}
    if name not in allowed:
        raise ParameterError(f"{method} takes {', '.join(allowed) or 'no parameters'}; not {name}")
    return name, allowed[name].parse(text, method=method)
