"""One knob of a command: :class:`Param`, what it accepts and how a bad value is refused.

:mod:`rankmeter.core.params` declares every parameter with it (:data:`~rankmeter.core.params.PARAMS`);
:meth:`Param.check` validates a Python keyword and :meth:`Param.parse` a command-line value, a bad value of
either getting the one message shape the table's docstring shows.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any

from rankmeter.errors import ParameterError

__all__ = ["Param", "is_bool"]

_INF = math.inf


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
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass(frozen=True)
class Param:
    """One knob (see :mod:`rankmeter.core.params`).

    ``kind`` is one of ``integer``, ``number`` (a finite real), ``grade`` (an integer, or a finite real
    used as a relevance threshold), ``bool``, ``choice``, ``string``, ``path``, ``paths`` (one or more),
    ``strings`` (a repeatable flag), ``numbers`` (a list of finite reals in the range) and ``mapping``
    (``role=name`` pairs). ``optional``: None is accepted (and is the default).
    """

    name: str
    kind: str
    default: Any = None
    help: str = ""
    group: str = "output"
    low: float = -_INF
    high: float = _INF
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    optional: bool = False
    flag: str | None = None        # the long flag when it is not --name-with-dashes
    short: str | None = None       # e.g. "-m"
    metavar: str | None = None
    positional: bool = False
    required: bool = False
    cli: bool = True               # offered as a flag (some keywords are for Python callers only)

    @property
    def long_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def expected(self) -> str:
        """What the parameter accepts, as messages and help say it."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind in ("integer", "number", "numbers", "grade"):
            left = "(" if self.low_open or self.low == -_INF else "["
            right = ")" if self.high_open or self.high == _INF else "]"
            what = {"integer": "an integer", "number": "a number", "numbers": "numbers, each",
                    "grade": "a relevance threshold: a number"}[self.kind]
            if self.low == -_INF and self.high == _INF:
                text = {"integer": "an integer", "number": "a finite number", "numbers": "finite numbers",
                        "grade": "a relevance threshold: a finite number (grades >= rel are relevant)"}[self.kind]
            else:
                text = f"{what} in {left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
            return text + (" or None" if self.optional else "")
        return {"intents": "a dict {query: {subtopic: probability}} of finite non-negative numbers",
                "bool": "True or False", "string": "a string", "path": "a file path", "paths": "file paths",
                "strings": "strings",
                "mapping": "role=name pairs (or role=position, counted from 0, for files without a header line), "
                           "e.g. query=user,doc=item or query=0,doc=1,rank=2"}[self.kind]

    def _refuse(self, value: Any, detail: str = "") -> ParameterError:
        shown = value if not isinstance(value, str) or len(value) < 80 else value[:77] + "..."
        return ParameterError(f"{self.name}={shown!r}: {detail}expected {self.expected}")

    def _in_range(self, v: float) -> bool:
        above = v > self.low if self.low_open else v >= self.low
        below = v < self.high if self.high_open else v <= self.high
        return above and below

    def _number(self, value: Any, *, integer: bool) -> int | float:
        if is_bool(value) or not isinstance(value, Real):
            raise self._refuse(value)
        if integer and not isinstance(value, Integral):
            if isinstance(value, float) and value.is_integer() and self.kind == "grade":
                pass
            else:
                raise self._refuse(value)
        v = float(value)
        if math.isnan(v) or math.isinf(v) or not self._in_range(v):
            raise self._refuse(value)
        return int(value) if isinstance(value, Integral) or (self.kind == "grade" and v.is_integer()) else v

    def check(self, value: Any) -> Any:
        """``value`` validated and normalised (Python ints and floats, tuples); ParameterError if not."""
        if value is None and (self.optional or self.default is None and not self.required):
            return None
        kind = self.kind
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
        if kind in ("paths", "strings", "numbers"):
            if isinstance(value, (str, bytes)) and kind != "numbers":
                value = [value]
            if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
                raise self._refuse(value)
            items = list(value)
            if kind == "numbers":
                return tuple(float(self._number(v, integer=False)) for v in items)
            return items
        raise AssertionError(kind)

    def parse(self, text: str) -> Any:
        """A command-line value in this parameter's type, then checked (the message names the keyword;
        the CLI puts the flag in its place)."""
        kind = self.kind
        if kind in ("integer", "number", "grade", "numbers"):
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
