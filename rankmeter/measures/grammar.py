"""Read and print measure names: ``Name(param=value, ...)@cutoff``.

A small hand-written recursive-descent parser (no ``eval``, no ``ast``)::

    measure := NAME [ "(" [ param { "," param } ] ")" ] [ "@" NUMBER ]
    param   := NAME "=" value
    value   := NUMBER | NAME | STRING | "{" [ NUMBER ":" NUMBER { "," ... } ] "}"
             | "[" [ value { "," value } ] "]"

:func:`format_measure` prints the canonical form that :func:`parse_measure`
reads back to an equal :class:`Measure`.

>>> str(parse_measure("nDCG@10"))
'nDCG@10'
>>> str(parse_measure("AP( rel = 2 )@100"))
'AP(rel=2)@100'
"""
from __future__ import annotations

import math
import re
from typing import Any

from rankmeter.errors import MeasureError
from rankmeter.measures.base import Measure, format_measure  # noqa: F401 - format_measure is public here too

__all__ = ["parse_measure", "format_measure"]

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"[^"]*"|'[^']*')
  | (?P<punct>[()@=,{}\[\]:])
""", re.VERBOSE | re.ASCII)  # ASCII: digits are 0-9 only (not other scripts' digits)

#: more digits than a 64-bit integer holds is never a meaningful cutoff or parameter
_MAX_DIGITS = 18


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise MeasureError(f"cannot read measure {text!r}: unexpected {text[pos]!r} at position {pos + 1}")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), pos))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


def _integer_cutoff(name: str) -> bool:
    """Whether a family's cutoff is a rank (written as a whole number) rather than a recall level."""
    from rankmeter.measures.base import REGISTRY
    family = REGISTRY.get(name)
    return family is not None and family.cutoff_kind is int


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i]

    def take(self, kind: str | None = None, value: str | None = None) -> str:
        tk, tv, pos = self.toks[self.i]
        if (kind and tk != kind) or (value and tv != value):
            want = value or kind
            got = tv or "the end"
            raise MeasureError(f"cannot read measure {self.text!r}: expected {want} at position {pos + 1}, "
                               f"found {got!r} (form: Name(param=value, ...)@cutoff)")
        self.i += 1
        return tv

    def number(self, *, integer: bool = False) -> int | float:
        pos = self.peek()[2]
        text = self.take("number")
        if re.fullmatch(r"[+-]?[0-9]+", text):
            if len(text.lstrip("+-")) > _MAX_DIGITS:
                raise MeasureError(f"cannot read measure {self.text[:40]!r}...: the number at position {pos + 1} "
                                   f"has {len(text)} digits; numbers here have at most {_MAX_DIGITS}")
            return int(text)
        if integer:
            raise MeasureError(f"cannot read measure {self.text!r}: the cutoff at position {pos + 1} must be "
                               f"a positive integer written as a whole number such as 10, not {text!r}")
        value = float(text)
        if not math.isfinite(value):
            raise MeasureError(f"cannot read measure {self.text!r}: {text!r} at position {pos + 1} is not a "
                               "finite number")
        return value

    def value(self) -> Any:
        kind, text, _ = self.peek()
        if kind == "number":
            return self.number()
        if kind == "name":
            self.take()
            return {"true": True, "false": False}.get(text.lower(), text)
        if kind == "string":
            self.take()
            return text[1:-1]
        if text == "{":
            self.take()
            pairs = {}
            while self.peek()[1] != "}":
                key = self.number()
                self.take("punct", ":")
                pairs[key] = self.number()
                if self.peek()[1] != "}":
                    self.take("punct", ",")
            self.take("punct", "}")
            return pairs
        if text == "[":
            self.take()
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] != "]":
                    self.take("punct", ",")
            self.take("punct", "]")
            return items
        return self.take("value")

    def measure(self) -> Measure:
        name = self.take("name")
        params: dict[str, Any] = {}
        if self.peek()[1] == "(":
            self.take()
            while self.peek()[1] != ")":
                key = self.take("name")
                self.take("punct", "=")
                if key in params:
                    raise MeasureError(f"{self.text!r}: parameter {key} given twice")
                params[key] = self.value()
                if self.peek()[1] != ")":
                    self.take("punct", ",")
            self.take("punct", ")")
        cutoff = None
        if self.peek()[1] == "@":
            self.take()
            cutoff = self.number(integer=_integer_cutoff(name))
        self.take("end")
        return Measure.of(name, params, cutoff)


def parse_measure(text: str | Measure) -> Measure:
    """Parse a canonical measure name such as ``nDCG(gain=exp)@10``."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise MeasureError(f"a measure is a name such as 'nDCG@10' or a Measure, not {type(text).__name__}")
    return _Parser(text).measure()


