"""Measures as immutable values, measure families and the one registry.

A :class:`Measure` is a family name, the parameters that differ from the
defaults and an optional cutoff. It prints as ``Name(param=value)@k`` and the
grammar reads that back. A :class:`Family` holds the parameters' specs, the
kernel and how per-query values are summarised. Kernels have one signature::

    kernel(batch: Batch, measure: Measure) -> np.ndarray   # one value per query

and read only the batch (vectorised numpy over all queries at once).
"""
from __future__ import annotations

import re

import difflib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable

import numpy as np

from rankmeter.engine.param import Param, is_bool
from rankmeter.errors import MeasureError, ParameterError
from rankmeter.measures.aggregation import COUNT, FLOAT, MEAN, SUM, TEXT, Aggregation, ValueType

__all__ = ["Param", "coerce", "Family", "Measure", "REGISTRY", "register", "family_of", "COMMON_PARAMS", "level_of",
           "judged_nonrelevant",
           "Aggregation", "ValueType", "MEAN", "SUM", "FLOAT", "COUNT", "TEXT", "ExplainParts"]


def coerce(param: Param, value: Any, family: str) -> Any:
    """``value`` of a measure's parameter checked by its declaration (:meth:`Param.check`), as the grammar
    spells it: ``3.0`` for an integer, ``true``/``false`` or 1/0 for a bool, one number for a list. A bad
    value is a MeasureError naming the measure: ``RBP: parameter p=1 is invalid; expected a number in [0, 1)``.
    """
    if param.kind == "integer" and isinstance(value, (float, np.floating)) and _finite(value) \
            and float(value).is_integer():
        value = int(value)
    elif param.kind == "bool" and not is_bool(value):
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        elif isinstance(value, (int, np.integer)) and value in (0, 1):
            value = bool(value)
    elif param.kind == "numbers" and isinstance(value, (int, float, np.integer, np.floating)) and not is_bool(value):
        value = (value,)
    try:
        if param.kind in ("integer", "grade") and not is_bool(value) and isinstance(value, (int, np.integer)) \
                and abs(int(value)) >= 2 ** 62:  # past what the kernels' int64 arithmetic holds
            raise param._refuse(value)
        return param.check(value)
    except ParameterError as error:
        detail = getattr(error, "detail", "")
        raise MeasureError(f"{family}: parameter {param.name}={_short(value)} is invalid; "
                           f"{detail}expected {param.describe(quote=format_value)}") from None


def _num(x: float) -> str:
    """A bound as people write it: 1 rather than 1.0."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _short(value) -> str:
    """A value for a message, however large."""
    if isinstance(value, int) and abs(value) >= 10 ** 18:
        return f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _finite(value) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:  # an int too large for a double
        return False


#: Parameters every family takes (MEASURES.md section 4, "Common parameters").
COMMON_PARAMS = (
    Param("rel", "grade", None, "relevance threshold: grades >= rel count as relevant (trec_eval -l); "
          "default: evaluate's rel"),
    Param("judged_only", "bool", False, "drop unjudged docs from the ranking and close the gaps (trec_eval -J)"),
)


@dataclass(frozen=True)
class ExplainParts:
    """What a family's explain hook returns for one query: its own per-rank columns and the formula.

    ``per_rank`` has one row of values per explained rank (the top ``cutoff``
    ranks, or all); ``ideal_columns``/``ideal_rows`` show an ideal ranking where
    the measure has one. The value shown beside it is always the kernel's.
    """

    columns: list[str]
    per_rank: list[list[Any]]
    formula: list[str]
    ideal_columns: list[str] = field(default_factory=list)
    ideal_rows: list[list[Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Family:
    """A measure family: name, parameters, cutoff rule, kernel, and its own rules.

    ``aggregation`` and ``value_type`` say how per-query values are summarised
    and typed; ``needs`` names qrels-wide statistics the kernel reads from
    ``batch.needs`` (computed once per qrels, see :mod:`rankmeter.core.needs`);
    ``subtopics`` says the kernel reads ``batch.subtopics``, the (doc, subtopic)
    judgments of diversity qrels (see :mod:`rankmeter.core.subtopics`);
    ``explain``, when given, is ``explain(batch, measure, label) -> ExplainParts``
    for a one-query batch; ``tie_average`` says how it averages over tied docs' orders;
    ``real_grades`` says it is defined on real-valued grades (``grades="real"``).
    """

    name: str
    summary: str
    kernel: Callable = field(repr=False, compare=False)
    params: tuple[Param, ...] = ()
    cutoff: str = "optional"          # "none" | "optional" | "required"
    cutoff_kind: type = int           # int, or float for recall levels
    #: (lowest, highest) a float cutoff may be, both included: IPrec's recall level in [0, 1]
    cutoff_range: tuple[float, float] | None = None
    aggregation: Aggregation = MEAN
    value_type: ValueType = FLOAT
    needs: tuple[str, ...] = ()
    subtopics: bool = False
    explain: Callable | None = field(default=None, repr=False, compare=False)
    #: ``ties="average"``: "kernel" when the kernel itself gives the expected value over the orders of
    #: tied docs (it reads them only through tie-aware batch methods), a callable ``(batch, measure)``
    #: computing it in closed form (McSherry and Najork, ECIR 2008), or None: not supported
    tie_average: Callable | str | None = field(default=None, repr=False, compare=False)
    #: False for families whose definition needs integer grades (the registry sweep scores every
    #: family that says True on real grades against its reference implementation)
    real_grades: bool = True

    @cached_property
    def all_params(self) -> tuple[Param, ...]:
        names = {p.name for p in self.params}
        return self.params + tuple(p for p in COMMON_PARAMS if p.name not in names)

    @cached_property
    def _params_by_name(self) -> dict[str, Param]:
        # Measure.get asks for defaults thousands of times per part when ~100 measures run
        return {p.name: p for p in self.all_params}

    def param(self, name: str) -> Param:
        found = self._params_by_name.get(name)
        if found is not None:
            return found
        valid = [p.name for p in self.all_params]
        close = difflib.get_close_matches(name, valid, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise MeasureError(f"{self.name} has no parameter {name!r}{hint} "
                           f"(its parameters: {', '.join(valid)})")

    def __call__(self, **params: Any) -> "Measure":
        return Measure.of(self.name, params)

    def __matmul__(self, cutoff: int | float) -> "Measure":
        return Measure.of(self.name, {}, cutoff)


REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to the registry (names are unique and case-sensitive)."""
    if family.name in REGISTRY:
        raise AssertionError(f"measure family {family.name} registered twice")
    REGISTRY[family.name] = family
    return family


def family_of(name: str) -> Family:
    """The family called ``name``; an unknown name lists the closest valid ones."""
    try:
        return REGISTRY[name]
    except KeyError:
        pass
    lowered = {n.lower(): n for n in REGISTRY}
    close = difflib.get_close_matches(name, list(REGISTRY), n=4, cutoff=0.5)
    if name.lower() in lowered and lowered[name.lower()] not in close:
        close.insert(0, lowered[name.lower()])
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise MeasureError(f"unknown measure {name!r}{hint} (`rankmeter measures` lists them all)")


@dataclass(frozen=True)
class Measure:
    """A measure: family name, non-default parameters (sorted) and cutoff.

    Build with :meth:`of`, the grammar (``rankmeter.parse_measure``), or the
    family objects: ``nDCG(gain="exp")@10``.
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None

    @classmethod
    def of(cls, name: str, params: dict[str, Any] | None = None, cutoff: int | float | None = None) -> "Measure":
        fam = family_of(name)
        canon = {}
        for key, value in (params or {}).items():
            spec = fam.param(key)
            value = coerce(spec, value, fam.name)
            if value != spec.default:
                canon[key] = value
        if cutoff is not None:
            if fam.cutoff == "none":
                raise MeasureError(f"{fam.name} takes no cutoff (got @{cutoff})")
            if fam.cutoff_kind is int:
                if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float, np.integer, np.floating)) \
                        or not _finite(cutoff) or float(cutoff) != int(cutoff) or not 1 <= int(cutoff) < 2 ** 62:
                    raise MeasureError(f"{fam.name}@{_short(cutoff)}: the cutoff must be a positive integer")
                cutoff = int(cutoff)
            else:
                if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float, np.integer, np.floating)) \
                        or not _finite(cutoff):
                    raise MeasureError(f"{fam.name}@{_short(cutoff)}: the cutoff must be a finite number")
                given, cutoff = cutoff, float(cutoff)
                if fam.cutoff_range is not None and not fam.cutoff_range[0] <= cutoff <= fam.cutoff_range[1]:
                    low, high = fam.cutoff_range
                    raise MeasureError(f"{fam.name}@{_short(given)}: the cutoff must be in [{_num(low)}, "
                                       f"{_num(high)}] (a recall level)")
        elif fam.cutoff == "required":
            raise MeasureError(f"{fam.name} needs a cutoff, e.g. {fam.name}@10")
        order = [p.name for p in fam.all_params]
        return cls(fam.name, tuple(sorted(canon.items(), key=lambda kv: order.index(kv[0]))), cutoff)

    @property
    def family(self) -> Family:
        return REGISTRY[self.name]

    def get(self, name: str) -> Any:
        """Value of parameter ``name``, the family default when not set."""
        for key, value in self.params:
            if key == name:
                return value
        return self.family.param(name).default

    def with_params(self, **params: Any) -> "Measure":
        merged = dict(self.params)
        merged.update(params)
        return Measure.of(self.name, merged, self.cutoff)

    def __call__(self, **params: Any) -> "Measure":
        return self.with_params(**params)

    def __matmul__(self, cutoff: int | float) -> "Measure":
        return replace(Measure.of(self.name, dict(self.params), cutoff))

    def summarize(self, values: np.ndarray) -> Any:
        """The summary over queries of this measure's per-query ``values``."""
        value_type = self.family.value_type
        if value_type is COUNT and np.asarray(values).dtype.kind == "f":
            value_type = FLOAT  # expected counts (ties="average") stay fractional
        return self.family.aggregation.reduce(values, value_type)

    def __str__(self) -> str:
        return format_measure(self)

    def __repr__(self) -> str:
        return str(self)


def level_of(batch, m: Measure) -> int | float:
    """The relevance threshold a kernel uses: the measure's ``rel`` (evaluate fills it in), else 1."""
    rel = m.get("rel")
    return 1 if rel is None else rel


def judged_nonrelevant(batch, level: int | float) -> np.ndarray:
    """Sorted flat positions of the ranks judged with 0 <= grade < ``level`` (Bpref, infAP and
    NumNonrelJudgedRet ask for them): found among the judged ranks, which are few, once per batch."""
    key = ("judged_nonrelevant", level)
    if key not in batch._cache:
        judged = np.flatnonzero(batch.judged_mask)
        batch._cache[key] = judged[batch.rel[judged] < level]
    return batch._cache[key]


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, str):
        return value if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value) else f'"{value}"'
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    raise AssertionError(value)  # pragma: no cover


def format_measure(measure: Measure) -> str:
    """The canonical name of ``measure``."""
    out = measure.name
    if measure.params:
        out += "(" + ", ".join(f"{k}={format_value(v)}" for k, v in measure.params) + ")"
    if measure.cutoff is not None:
        out += "@" + format_value(measure.cutoff)
    return out
