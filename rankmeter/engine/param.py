"""One vocabulary for parameters: :class:`Param` declares a knob once, :func:`validate_params` checks it.

A declaration says what a parameter accepts (its kind, its bounds or choices) and its help text, and nothing
else: a function's default is written once, in its signature, as scikit-learn's are (:func:`validate_params`
reads it from there). Only a parameter without a signature of its own (a key of a TypedDict of options, a
measure's parameter, a command's own flag) declares its default. The same declaration validates a Python
keyword (:meth:`Param.check`, or every declared keyword of a function at once with :func:`validate_params`),
parses a command-line value
(:meth:`Param.parse`; the flag itself is made in :mod:`rankmeter.cli.flags`, which alone knows flags and
metavars), writes the help and the docs (:attr:`Param.expected`) and checks a measure's parameters
(:mod:`rankmeter.measures.base`). A bad value gets one message shape::

    alpha=5: expected a number in (0, 1)

Options that many entry points take are the keys of a TypedDict (:mod:`rankmeter.engine.typed_options`).

Bounds are an interval, as scikit-learn's ``Interval``: ``low``/``high`` with ``low_open``/``high_open``;
the words a numeric parameter also takes (``max_grade=qrels``) and the values of a ``choice`` are
``choices``, as scikit-learn's ``StrOptions``.

>>> Param("alpha", "number", 0.05, low=0, high=1, low_open=True, high_open=True).check(5)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: alpha=5: expected a number in (0, 1)
"""
from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any, Callable, TypeVar

from rankmeter.errors import ParameterError

__all__ = ["Param", "KINDS", "UNSET", "SEED", "is_bool", "validate_params"]

_INF = math.inf


class _Unset:
    """The default of a declaration that has none of its own: its function's signature gives it."""

    def __repr__(self) -> str:
        return "<the function's default>"

    def __reduce__(self):  # one object, also after a copy or a pickle
        return "UNSET"


#: A declaration's default when its function's signature holds it (filled in by :func:`validate_params`).
UNSET = _Unset()

#: Every kind a parameter can be, and what it accepts.
KINDS = {
    "integer": "an integer", "number": "a finite real", "grade": "an integer, or a finite real relevance threshold",
    "bool": "True or False", "choice": "one of ``choices``", "string": "a non-empty string", "path": "a file path",
    "paths": "one or more file paths", "strings": "strings (a repeatable flag)",
    "numbers": "one or more finite reals, each in the bounds", "mapping": "role=name pairs",
    "intents": "{query: {subtopic: probability}}", "gains": "a map {grade: gain}",
    "choice_or_gains": "one of ``choices`` or a map {grade: gain}",
}
_NUMERIC = ("integer", "number", "grade", "numbers")

F = TypeVar("F", bound=Callable[..., Any])


def is_bool(value: Any) -> bool:
    """A bool, numpy's included (without importing numpy: the CLI starts faster)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _is_intents(value: Any) -> bool:
    """{query: {subtopic: probability}} with finite non-negative numbers."""
    if not isinstance(value, Mapping):
        return False
    for weights in value.values():
        if not isinstance(weights, Mapping):
            return False
        for w in weights.values():
            if is_bool(w) or not isinstance(w, Real) and type(w).__module__ != "numpy":
                return False
            try:
                if not 0.0 <= float(w) < _INF:
                    return False
            except (TypeError, ValueError):
                return False
    return True


def _fmt(x: float) -> str:
    if x == _INF:
        return "inf"
    if x == -_INF:
        return "-inf"
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


@dataclass(frozen=True)
class Param:
    """One parameter: its name (the Python keyword), what it accepts, its default and its help.

    ``default`` is :data:`UNSET` for a keyword of a function: the function's signature holds it, and
    :func:`validate_params` keeps the declaration with that default on the function (``func.params``).

    ``kind`` is one of :data:`KINDS`. Numeric kinds (``integer``, ``number``, ``grade``, ``numbers``)
    take values in the interval ``low``..``high`` (``low_open``/``high_open``: the bound itself
    excluded), and also the words in ``choices`` when given (``max_grade`` is an integer or ``qrels``).
    ``optional``: None is accepted (and is the default). ``required``: None is refused (a keyword without
    a default). How a parameter is spelled on the command line (its flag, metavar, a short or older flag)
    is the command line's business: :class:`rankmeter.cli.flags.Flag`.
    """

    name: str
    kind: str
    default: Any = UNSET
    help: str = ""
    low: float = -_INF
    high: float = _INF
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    optional: bool = False
    required: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise AssertionError(f"parameter {self.name}: unknown kind {self.kind!r}")

    @property
    def expected(self) -> str:
        """What the parameter accepts, as messages, help and docs say it."""
        return self.describe()

    def interval(self) -> str:
        """The bounds as an interval, ``[0, 1)``; "" when unbounded."""
        if self.low == -_INF and self.high == _INF:
            return ""
        left = "(" if self.low_open or self.low == -_INF else "["
        right = ")" if self.high_open or self.high == _INF else "]"
        return f"{left}{_fmt(self.low)}, {_fmt(self.high)}{right}"

    def describe(self, quote: Callable[[Any], str] = repr) -> str:
        """What the parameter accepts, choices written with ``quote`` (``str`` for the measure grammar,
        where ``denom=R`` is written without quotes)."""
        kind = self.kind
        words = ", ".join(quote(c) for c in self.choices)
        if kind == "choice":
            return "one of " + words
        if kind == "strings" and self.choices:
            return "some of " + words
        if kind == "choice_or_gains":
            return f"one of {words} or a map {{grade: gain}}"
        if kind in _NUMERIC:
            span = self.interval()
            if not span:
                text = {"integer": "an integer", "number": "a finite number", "numbers": "finite numbers",
                        "grade": "a relevance threshold: a finite number (grades >= rel are relevant)"}[kind]
            else:
                what = {"integer": "an integer", "number": "a number", "numbers": "numbers, each",
                        "grade": "a relevance threshold: a number"}[kind]
                text = f"{what} in {span}"
            text += f" or {words}" if self.choices else ""
            return text + (" or None" if self.optional else "")
        return {"intents": "a dict {query: {subtopic: probability}} of finite non-negative numbers",
                "bool": f"{quote(True)} or {quote(False)}", "string": "a string", "path": "a file path",
                "paths": "file paths", "strings": "strings",
                "gains": "a map {grade: gain} of integer grades to finite gains, e.g. {1: 1, 2: 3}",
                "mapping": "role=name pairs (or role=position, counted from 0, for files without a header line), "
                           "e.g. query=user,doc=item or query=0,doc=1,rank=2"}[kind]

    def _refuse(self, value: Any, detail: str = "") -> ParameterError:
        shown = value if not isinstance(value, str) or len(value) < 80 else value[:77] + "..."
        try:
            shown = repr(shown)
        except ValueError:  # an int too long for repr
            shown = f"<an integer of about {int(value.bit_length() * 0.30103)} digits>"
        error = ParameterError(f"{self.name}={shown}: {detail}expected {self.expected}")
        error.detail = detail  # what a caller with its own message shape (a measure's) needs
        return error

    def _in_range(self, v: float) -> bool:
        above = v > self.low if self.low_open else v >= self.low
        below = v < self.high if self.high_open else v <= self.high
        return above and below

    def _number(self, value: Any, *, integer: bool) -> int | float:
        if is_bool(value) or not isinstance(value, Real):
            raise self._refuse(value)
        if integer and not isinstance(value, Integral):
            if not (isinstance(value, float) and value.is_integer() and self.kind == "grade"):
                raise self._refuse(value)
        try:
            v = float(value)
        except OverflowError:  # an int too large for a double
            raise self._refuse(value) from None
        if math.isnan(v) or math.isinf(v) or not self._in_range(v):
            raise self._refuse(value)
        return int(value) if isinstance(value, Integral) or (self.kind == "grade" and v.is_integer()) else v

    def check(self, value: Any) -> Any:
        """``value`` validated and normalised (Python ints and floats, tuples); ParameterError if not."""
        if value is None and (self.optional or (self.default is None or self.default is UNSET) and not self.required):
            return None
        kind = self.kind
        if kind == "choice_or_gains":
            kind = "gains" if isinstance(value, (Mapping, tuple, list)) else "choice"
        if self.choices and kind in _NUMERIC and isinstance(value, str) and value in self.choices:
            return value
        if kind == "choice":
            if is_bool(value) or value not in self.choices:
                raise self._refuse(value)
            return value
        if kind == "integer":
            return self._number(value, integer=True)
        if kind == "number":
            return float(self._number(value, integer=False))
        if kind == "grade":
            return self._number(value, integer=False)
        if kind == "bool":
            if not is_bool(value):
                raise self._refuse(value)
            return bool(value)
        if kind in ("string", "path"):
            import os
            if kind == "path" and isinstance(value, os.PathLike):
                return value
            if not isinstance(value, str) or not value:
                raise self._refuse(value)
            return value
        if kind == "mapping":  # role -> column name, or position (a non-negative int) of a headerless file
            if not isinstance(value, Mapping) or not all(
                    isinstance(k, str) and (isinstance(v, str) and v or isinstance(v, Integral) and not is_bool(v)
                                            and v >= 0) for k, v in value.items()):
                raise self._refuse(value)
            return {k: v if isinstance(v, str) else int(v) for k, v in value.items()}
        if kind == "intents":
            if not _is_intents(value):
                raise self._refuse(value)
            return value
        if kind == "gains":
            return self._gains(value)
        if kind in ("paths", "strings", "numbers"):
            if isinstance(value, (str, bytes)) and kind != "numbers":
                value = [value]
            if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
                raise self._refuse(value)
            items = list(value)
            if kind == "numbers":
                if not items:
                    raise self._refuse(value, "at least one; ")
                return tuple(float(self._number(v, integer=False)) for v in items)
            for item in items if self.choices else ():
                if item not in self.choices:
                    raise self._refuse(item)
            return items
        raise AssertionError(kind)

    def _gains(self, value: Any) -> tuple:
        """A map grade -> gain as sorted (int grade, float gain) pairs; sums of such gains stay finite."""
        items = value.items() if isinstance(value, Mapping) else value
        try:
            pairs = tuple(sorted((int(k), float(v)) for k, v in items))
        except (TypeError, ValueError, OverflowError):
            raise self._refuse(value) from None
        if any(not abs(v) <= 1e150 for _, v in pairs):
            raise self._refuse(value, "finite gains between -1e150 and 1e150; ")
        if len({k for k, _ in pairs}) != len(pairs):
            raise self._refuse(value, "each grade once; ")
        return pairs

    def parse(self, text: str) -> Any:
        """A command-line value in this parameter's type, then checked (the message names the keyword;
        the CLI puts the flag in its place)."""
        kind = self.kind
        if kind in _NUMERIC:
            if text in self.choices:
                return text
            try:
                value: Any = int(text)
            except ValueError:
                try:
                    value = float(text)
                except ValueError:
                    raise self._refuse(text) from None
            if kind == "integer" and isinstance(value, float):
                raise self._refuse(text)
            if kind == "numbers":
                return float(self._number(value, integer=False))
            return self.check(value)
        if kind == "mapping":
            pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
            if not pairs or any(len(p) != 2 or not p[0].strip() or not p[1].strip() for p in pairs):
                raise self._refuse(text)
            # a number is a position (query=0,doc=1,rank=2), as columns={"query": 0, ...} in Python
            return {role.strip(): int(name) if name.strip().isdigit() else name.strip() for role, name in pairs}
        if kind in ("string", "path", "paths", "strings") and not text:
            raise self._refuse(text)
        return self.check(text) if kind == "choice" else text

    def but(self, **changes: Any) -> "Param":
        """This parameter as one command offers it: the same name and meaning, e.g. other choices."""
        return replace(self, **changes)


def validate_params(*declared: Param) -> Callable[[F], F]:
    """Decorator: the declared keyword arguments of a function checked (and normalised) on every call.

    Each declaration names a parameter of the function (a name that is not one is refused when the module
    is imported); its default is the signature's, written there only (a declaration shared with a TypedDict
    of options holds the default of that TypedDict's key, which is not this function's). Where the function
    has no default, None is refused too. Arguments left at their default are not checked. The declarations, each with its
    default from the signature, stay on the function as ``params`` (for the CLI and the docs).

    >>> @validate_params(Param("alpha", "number", help="significance level", low=0, high=1, low_open=True,
    ...                        high_open=True))
    ... def level(*, alpha: float = 0.05) -> float:
    ...     return alpha
    >>> level(alpha=1)
    Traceback (most recent call last):
    ...
    rankmeter.errors.ParameterError: alpha=1: expected a number in (0, 1)
    >>> level.params["alpha"].default
    0.05
    """
    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        by_name = {}
        for param in declared:
            own = signature.parameters.get(param.name)
            if own is None:
                raise TypeError(f"{func.__qualname__} has no parameter {param.name!r} to validate")
            if own.default is inspect.Parameter.empty:  # the function has no default: None is no value
                param = replace(param, optional=False, required=True)
            else:  # the signature's: a shared declaration's own default is its TypedDict key's
                param = replace(param, default=own.default)
            by_name[param.name] = param

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if args or any(name in by_name for name in kwargs):
                bound = signature.bind(*args, **kwargs)
                arguments = bound.arguments
                for name in by_name.keys() & arguments.keys():
                    arguments[name] = by_name[name].check(arguments[name])
                return func(*bound.args, **bound.kwargs)
            return func(**kwargs)

        checked.params = {**getattr(func, "params", {}), **by_name}  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]
    return decorate


#: a random generator's seed (tests, resampling, sampling a run's queries): declared once for every owner
SEED = Param("seed", "integer", 0, "random seed (Python: None draws a fresh one)", low=0, high=2 ** 32 - 1,
             optional=True)
