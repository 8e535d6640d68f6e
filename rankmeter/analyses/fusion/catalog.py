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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from rankmeter.errors import ParameterError

__all__ = ["METHODS", "NORMS", "TIES", "FusionParameter", "PARAMETERS", "FUSE_OPTIONS", "POOL_PARAMETERS",
           "parameters_of", "check_params", "parse_param", "is_rank_based", "is_trained"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
#: the order of each run's tied docs: trec_eval's (docno descending) or the order given (ranx's, for a
#: run given in rank order)
TIES = ("trec_eval", "input")

_INF = math.inf


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


@dataclass(frozen=True)
class FusionParameter:
    """One parameter: its type (``number``, ``integer``, ``weights`` one number per run, ``table`` one list
    of numbers per run, ``choice``), the valid range of each number, its default and its help text."""

    name: str
    kind: str
    default: Any
    help: str
    low: float = -_INF
    high: float = _INF
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    methods: tuple[str, ...] = ()
    training: bool = False      # estimated from judged queries, or chooses how they are (not a CLI flag)

    @property
    def expected(self) -> str:
        """What the parameter accepts, as the messages and the CLI help say it."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        left = "(" if self.low_open or self.low == -_INF else "["
        right = ")" if self.high_open or self.high == _INF else "]"
        bounds = f"{left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        what = {"number": "a number", "integer": "an integer", "weights": "one number per run, each",
                "table": "one list of numbers per run, each number"}[self.kind]
        return f"{what} in {bounds}"

    def _number_ok(self, value: Any, integer: bool) -> bool:
        if _is_bool(value) or not isinstance(value, Real):
            return False
        if integer and not isinstance(value, Integral):
            return False
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            return False
        above = v > self.low if self.low_open else v >= self.low
        below = v < self.high if self.high_open else v <= self.high
        return above and below

    def check(self, value: Any, *, method: str = "", runs: int | None = None) -> Any:
        """``value`` validated (numbers as Python ints/floats, sequences as tuples); ParameterError if not."""
        where = f"{method} {self.name}" if method else self.name
        if self.kind == "choice":
            if value not in self.choices or _is_bool(value):
                raise ParameterError(f"{where}={value!r}: expected {self.expected}")
            return value
        if self.kind in ("number", "integer"):
            if not self._number_ok(value, self.kind == "integer"):
                raise ParameterError(f"{where}={value!r}: expected {self.expected}")
            return int(value) if isinstance(value, Integral) else float(value)
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and not hasattr(value, "tolist"):
            raise ParameterError(f"{where}={value!r}: expected {self.expected}")
        items = list(value.tolist() if hasattr(value, "tolist") else value)
        if runs is not None and len(items) != runs:
            raise ParameterError(f"{where}: {len(items)} given for {runs} runs; expected {self.expected}")
        if self.kind == "weights":
            bad = [v for v in items if not self._number_ok(v, False)]
            if bad:
                raise ParameterError(f"{where}={_short(items)}: {bad[0]!r} is not valid; expected {self.expected}")
            return tuple(float(v) for v in items)
        out = []
        for r, row in enumerate(items):
            if isinstance(row, (str, bytes)) or not (isinstance(row, Sequence) or hasattr(row, "tolist")):
                raise ParameterError(f"{where}[{r}]={row!r}: expected {self.expected}")
            numbers = list(row.tolist() if hasattr(row, "tolist") else row)
            bad = [v for v in numbers if not self._number_ok(v, False)]
            if bad:
                raise ParameterError(f"{where}[{r}]: {bad[0]!r} is not valid; expected {self.expected}")
            out.append(tuple(float(v) for v in numbers))
        return tuple(out)

    def parse(self, text: str, *, method: str = "") -> Any:
        """A command-line value (``k=60``'s ``60``) in this parameter's type, then checked."""
        where = f"{method} {self.name}" if method else self.name
        if self.kind == "choice":
            return self.check(text, method=method)
        if self.kind not in ("number", "integer"):
            raise ParameterError(f"{where}: give it as {self.cli_hint}, not as NAME=VALUE")
        try:
            value: Any = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                raise ParameterError(f"{where}={text!r}: expected {self.expected}") from None
        if self.kind == "integer" and isinstance(value, float):
            raise ParameterError(f"{where}={text!r}: expected {self.expected}")
        return self.check(value, method=method)

    @property
    def cli_hint(self) -> str:
        return "--weights W1 W2 ..." if self.kind == "weights" else "training judgments (--qrels)"


def _fmt(x: float) -> str:
    if x in (_INF, -_INF):
        return "inf" if x > 0 else "-inf"
    return str(int(x)) if float(x).is_integer() else repr(x)


def _short(items: list) -> str:
    return repr(items) if len(items) <= 6 else repr(items[:6])[:-1] + ", ...]"


_WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
_PROBS = ("posfuse", "probfuse", "segfuse", "slidefuse")

#: Every method parameter, by name (a name means the same in every method that takes it).
PARAMETERS: dict[str, FusionParameter] = {p.name: p for p in (
    FusionParameter("k", "number", 60, "RRF's constant: each run adds 1 / (k + rank) (Cormack et al. 2009)",
                    low=0, methods=("rrf",)),
    FusionParameter("phi", "number", 0.8, "RBC's persistence: rank i adds (1 - phi) phi^(i - 1) (Bailey et al. "
                    "2017)", low=0, high=1, low_open=True, high_open=True, methods=("rbc",)),
    FusionParameter("gamma", "number", 1.0, "GMNZ's exponent: sum * (runs retrieving the doc)^gamma (0: CombSUM, "
                    "1: CombMNZ)", low=0, methods=("gmnz",)),
    FusionParameter("sigma", "number", 0.01, "logN_ISR's offset: (sum of 1 / rank^2) * log(runs + sigma)",
                    low=0, low_open=True, methods=("logn_isr",)),
    FusionParameter("weights", "weights", None, "one weight per run, in the runs' order (default: all 1)",
                    low=0, methods=_WEIGHTED),
    FusionParameter("w", "integer", 1, "SlideFuse's half window: the mean of probs over ranks i - w .. i + w",
                    low=0, methods=("slidefuse",)),
    FusionParameter("n_segments", "integer", 10, "ProbFuse's number of segments of each list (training)",
                    low=1, methods=("probfuse",), training=True),
    FusionParameter("probs", "table", None, "per run, the probability of a relevant doc at each rank or segment "
                    "(trained on judged queries)", low=0, high=1, methods=_PROBS, training=True),
    FusionParameter("log_odds", "table", None, "per run, the log odds of relevance at each rank (trained)",
                    methods=("bayesfuse",), training=True),
    FusionParameter("map_scores", "weights", None, "per run, its score on the training queries (MAP by "
                    "default; trained)", low=0, methods=("mapfuse",), training=True),
)}

#: method -> (parameter defaults, whether it reads ranks instead of scores); trained-only parameters
#: (``n_segments``) are not among the defaults: they choose how the tables are estimated.
_RANK_BASED = {"rrf", "rbc", "isr", "log_isr", "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet",
               "posfuse", "probfuse", "slidefuse", "bayesfuse", "mapfuse"}
_ORDER = ("sum", "mnz", "gmnz", "anz", "max", "min", "med", "wsum", "wmnz", "rrf", "rbc", "isr", "log_isr",
          "logn_isr", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet", "mixed", "posfuse", "probfuse",
          "segfuse", "slidefuse", "bayesfuse", "mapfuse")
_TRAINED = ("posfuse", "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse")


def parameters_of(method: str) -> list[FusionParameter]:
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
FUSE_OPTIONS: dict[str, FusionParameter] = {p.name: p for p in (
    FusionParameter("method", "choice", "rrf", "fusion method, as ranx names it", choices=_ORDER),
    FusionParameter("norm", "choice", "min-max", "per-query normalisation before fusing (ranx's; None: raw "
                    "scores)", choices=NORMS + (None,)),
    FusionParameter("ties", "choice", "trec_eval", "order of each run's tied docs for ranks: trec_eval (docno "
                    "descending) or input (the order given, as ranx reads a run)", choices=TIES),
    FusionParameter("step", "number", 0.1, "optimise: grid step of the weights", low=0, high=1, low_open=True),
)}

#: The parameters of pool().
POOL_PARAMETERS: dict[str, FusionParameter] = {p.name: p for p in (
    FusionParameter("depth", "integer", None, "depth@k: every doc some run ranks in its top k", low=1),
    FusionParameter("take", "integer", None, "take@N: the N docs of best priority per query", low=1),
    FusionParameter("priority", "choice", "rrf", "take@N priority: rrf, sum (CombSUM of min-max scores) or rbp",
                    choices=("rrf", "sum", "rbp")),
    FusionParameter("p", "number", 0.8, "RBP priority's persistence", low=0, high=1, low_open=True,
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
    return {name: (None if value is None and allowed[name].default is None
                   else allowed[name].check(value, method=method, runs=runs))
            for name, value in (params or {}).items()}


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
