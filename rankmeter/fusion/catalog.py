"""Every knob of fusion and pooling, declared once: the methods and norms by ranx's names, and one table
of the methods' parameters (name, type, valid range, default, help) that :func:`~rankmeter.fusion.fuse`,
:func:`~rankmeter.fusion.optimise` and :func:`~rankmeter.fusion.pooling.pool` validate
with and the command line reads (``--param NAME=VALUE``). Each entry is a :class:`rankmeter.engine.param.Param`
(the one vocabulary's type, check and message shape) that also says which methods take it; the
options of ``fuse`` and ``pool`` themselves (``method``, ``norm``, ``ties``, ``depth`` ...) are declared
here too (:data:`FUSE_OPTIONS`, :data:`POOL_PARAMETERS`), and ``rankmeter fuse`` and ``rankmeter pool`` make
their flags from them. No numpy here.

Each bad value gets one message shape, with the valid range::

    rrf k=-1: expected a number in [0, inf)

>>> check_params("rbc", {"phi": 0.5}, runs=2)
{'phi': 0.5}
>>> check_params("rrf", {"k": -1}, runs=2)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: rrf k=-1: expected a number in [0, inf)
>>> parse_param("rrf", "k=60")
('k', 60.0)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rankmeter.core.params import PARAMS, Param
from rankmeter.errors import ParameterError

__all__ = ["METHODS", "NORMS", "TIES", "FusionParam", "PARAMETERS", "FUSE_OPTIONS", "POOL_PARAMETERS",
           "parameters_of", "check_params", "parse_param", "is_rank_based", "is_trained"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
#: the order of each run's tied docs: trec_eval's (docno descending) or the order given (ranx's, for a
#: run given in rank order)
TIES = ("trec_eval", "input")


@dataclass(frozen=True)
class FusionParam(Param):
    """A method's parameter: a :class:`~rankmeter.engine.param.Param` with the methods taking it, whether it
    is trained on judged queries (or chooses how), and ``per_run``: ``"numbers"`` for one number per run
    (``weights``), ``"lists"`` for one list of numbers per run (``probs``), each number in the range."""

    methods: tuple[str, ...] = ()
    training: bool = False
    per_run: str = ""

    @property
    def expected(self) -> str:
        if not self.per_run:
            return super().expected
        each = replace(self, kind="number", optional=False, per_run="").expected.replace("a number", "each")
        return ("one number per run, " if self.per_run == "numbers" else "one list of numbers per run, ") + each

    def named(self, method: str) -> "FusionParam":
        """The same parameter, its messages naming ``method`` (``rrf k=-1: ...``)."""
        return replace(self, name=f"{method} {self.name}") if method else self

    def check(self, value: Any, *, method: str = "", runs: int | None = None) -> Any:
        spec = self.named(method)
        if not self.per_run:
            return Param.check(spec, value)
        if value is None and self.optional:
            return None
        if isinstance(value, (str, bytes)) or not (isinstance(value, Sequence) or hasattr(value, "tolist")):
            raise spec._refuse(value)
        items = list(value.tolist() if hasattr(value, "tolist") else value)
        if runs is not None and len(items) != runs:
            raise spec._refuse(value, f"{len(items)} given for {runs} runs; ")
        number = replace(self, kind="number", optional=False, per_run="")
        if self.per_run == "numbers":
            return tuple(self._each(spec, number, items, v) for v in items)
        out = []
        for row in items:
            if isinstance(row, (str, bytes)) or not (isinstance(row, Sequence) or hasattr(row, "tolist")):
                raise spec._refuse(value, f"{row!r} is not a list; ")
            row = list(row.tolist() if hasattr(row, "tolist") else row)
            out.append(tuple(self._each(spec, number, value, v) for v in row))
        return tuple(out)

    @staticmethod
    def _each(spec: Param, number: Param, whole: Any, v: Any) -> float:
        try:
            return Param.check(number, v)
        except ParameterError:
            raise spec._refuse(_short(whole), f"{v!r} is not valid; ") from None


def _short(value: Any) -> Any:
    items = list(value) if isinstance(value, (list, tuple)) else value
    return items if not isinstance(items, list) or len(items) <= 6 else items[:6] + ["..."]


def _fusion(name, kind, default, help, **more) -> FusionParam:
    return FusionParam(name, kind, default, help, **more)


_WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
_PROBS = ("posfuse", "probfuse", "segfuse", "slidefuse")

#: Every method parameter, by name (a name means the same in every method that takes it).
PARAMETERS: dict[str, FusionParam] = {p.name: p for p in (
    _fusion("k", "number", 60, "RRF's constant: each run adds 1 / (k + rank) (Cormack et al. 2009)",
            low=0, methods=("rrf",)),
    _fusion("phi", "number", 0.8, "RBC's persistence: rank i adds (1 - phi) phi^(i - 1) (Bailey et al. "
            "2017)", low=0, high=1, low_open=True, high_open=True, methods=("rbc",)),
    _fusion("gamma", "number", 1.0, "GMNZ's exponent: sum * (runs retrieving the doc)^gamma (0: CombSUM, "
            "1: CombMNZ)", low=0, methods=("gmnz",)),
    _fusion("sigma", "number", 0.01, "logN_ISR's offset: (sum of 1 / rank^2) * log(runs + sigma)",
            low=0, low_open=True, methods=("logn_isr",)),
    _fusion("weights", "numbers", None, "one weight per run, in the runs' order (default: all 1)",
            low=0, methods=_WEIGHTED, optional=True, per_run="numbers"),
    _fusion("w", "integer", 1, "SlideFuse's half window: the mean of probs over ranks i - w .. i + w",
            low=0, methods=("slidefuse",)),
    _fusion("n_segments", "integer", 10, "ProbFuse's number of segments of each list (training)",
            low=1, methods=("probfuse",), training=True),
    _fusion("probs", "numbers", None, "per run, the probability of a relevant doc at each rank or segment "
            "(trained on judged queries)", low=0, high=1, methods=_PROBS, training=True, optional=True,
            per_run="lists"),
    _fusion("log_odds", "numbers", None, "per run, the log odds of relevance at each rank (trained)",
            methods=("bayesfuse",), training=True, optional=True, per_run="lists"),
    _fusion("map_scores", "numbers", None, "per run, its score on the training queries (MAP by "
            "default; trained)", low=0, methods=("mapfuse",), training=True, optional=True,
            per_run="numbers"),
)}

#: method -> (parameter defaults, whether it reads ranks instead of scores); trained-only parameters
#: (``n_segments``) are not among the defaults: they choose how the tables are estimated.
_RANK_BASED = {"rrf", "rbc", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet",
               "posfuse", "probfuse", "slidefuse", "bayesfuse", "mapfuse"}
_ORDER = ("sum", "mnz", "gmnz", "anz", "max", "min", "med", "wsum", "wmnz", "rrf", "rbc", "isr", "log_isr",
          "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet", "mixed", "posfuse", "probfuse",
          "segfuse", "slidefuse", "bayesfuse", "mapfuse")
_TRAINED = ("posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse")


def parameters_of(method: str) -> list[FusionParam]:
    """The parameters ``method`` takes (training ones included), in table order."""
    return [p for p in PARAMETERS.values() if method in p.methods]


METHODS: dict[str, tuple[dict, bool]] = {
    m: ({p.name: p.default for p in parameters_of(m) if not (p.training and p.kind == "integer")},
        m in _RANK_BASED) for m in _ORDER}


def is_rank_based(method: str) -> bool:
    return METHODS[method][1]


def is_trained(method: str) -> bool:
    return method in _TRAINED


#: The options of fuse() itself, beside the method's parameters (``rankmeter fuse``'s flags too).
FUSE_OPTIONS: dict[str, Param] = {p.name: p for p in (
    Param("method", "choice", help="fusion method, as ranx names it", choices=_ORDER),
    Param("norm", "choice", help="per-query normalisation of each run's scores before fusing (none, or None "
          "in Python: raw scores)", choices=NORMS + ("none",), optional=True),
    PARAMS["ties"].but(choices=TIES, help="order of each input run's tied docs: trec_eval (docno descending) or "
                                          "input (the order given, as ranx reads a run)"),
    Param("step", "number", help="optimise: grid step of the weights", low=0, high=1, low_open=True),
    Param("tag", "string", help="the fused run's tag (default: the method)", optional=True),
)}

#: The parameters of pool() (``rankmeter pool``'s flags too).
POOL_PARAMETERS: dict[str, Param] = {p.name: p for p in (
    Param("depth", "integer", help="depth@k: every doc some run ranks in its top k", low=1,
          optional=True),
    Param("take", "integer", help="take@N: the N docs of best priority per query", low=1, optional=True),
    Param("priority", "choice", help="take@N priority", choices=("rrf", "sum", "rbp")),
    Param("p", "number", help="take@N rbp priority's persistence", low=0, high=1, low_open=True,
          high_open=True),
)}


def check_method(method: Any) -> str:
    return FUSE_OPTIONS["method"].check(method)


def check_params(method: str, params: Mapping | None, *, runs: int | None = None) -> dict:
    """``params`` of ``method`` validated against the table (unknown names refused); defaults not filled in."""
    check_method(method)
    if params is not None and not isinstance(params, Mapping):
        raise ParameterError(f"params={params!r}: expected a dict NAME -> value")
    allowed = _allowed(method, params or {})
    return {name: allowed[name].check(value, method=method, runs=runs) for name, value in (params or {}).items()}


def _allowed(method: str, names) -> dict[str, FusionParam]:
    """The parameters of ``method`` by name; ParameterError naming them if ``names`` holds another."""
    allowed = {p.name: p for p in parameters_of(method)}
    unknown = sorted(set(names) - set(allowed), key=str)
    if unknown:
        takes = ", ".join(allowed) or "no parameters"
        raise ParameterError(f"{method} takes {takes}; not {', '.join(map(str, unknown))}")
    return allowed


def parse_param(method: str, item: str) -> tuple[str, Any]:
    """One command-line ``NAME=VALUE`` of ``method``, typed and checked (``--param k=60``)."""
    check_method(method)
    name, eq, text = item.partition("=")
    if not eq or not name:
        raise ParameterError(f"--param {item!r}: expected NAME=VALUE, e.g. k=60")
    return name, _allowed(method, [name])[name].named(method).parse(text)
