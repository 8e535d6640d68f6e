"""A declared parameter: its type, valid range, default and help, with the one check and message shape
every analysis uses (``name=value: expected <what, with the range>``). The fusion and pooling table
(:mod:`rankmeter.analyses.fusion.catalog`) and the meta-evaluation table
(:mod:`rankmeter.analyses.meta.parameters`) are made of these; a command line can build its flags from
them (:meth:`Parameter.parse` reads a flag's text).

>>> alpha = Parameter("alpha", "number", 0.05, "significance level", low=0, high=1, low_open=True, high_open=True)
>>> alpha.check(0.01)
0.01
>>> alpha.check(5)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: alpha=5: expected a number in (0, 1)
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from rankmeter.errors import ParameterError

__all__ = ["Parameter"]

_INF = math.inf


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


@dataclass(frozen=True)
class Parameter:
    """One parameter: its type (``number``, ``integer``, ``weights`` one number per run, ``table`` one list
    of numbers per run, ``choice``), the valid range of each number, its default and its help text.
    ``methods`` lists the fusion methods taking it (empty: not a method parameter)."""

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
    optional: bool = False      # None is accepted (and means the default or "not given")

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
        return f"{what} in {bounds}" + (" or None" if self.optional and self.kind in ("number", "integer") else "")

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
        if value is None and self.optional:
            return None
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
