"""What a field of a structured file holds, declared once by its reader and checked one way.

The kinds (:class:`Record`, :class:`ListOf`, :class:`Num`, ...) check a value already parsed (by
:mod:`rankmeter.io.structured`, or a dict given in Python): nothing is coerced (the string ``"0.5"`` is not a
number, ``"yes"`` is not a boolean, ``true`` is not the integer 1), ``NaN`` and ``Infinity`` are refused
wherever a number is expected unless the field says it allows them (``Num(finite=False)``), and a bad field is
an :class:`~rankmeter.errors.InputError` naming the file (and line, in JSON Lines), the field as a JSON path
(``measures[0].canonical``), what it must hold and what it holds.

>>> check({"margin": 2}, Record({"margin": Num(low=0, high=1)}), source="cfg.json")
Traceback (most recent call last):
...
rankmeter.errors.InputError: cfg.json: field margin: expected a number in [0, 1], got 2
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from rankmeter.errors import InputError, shown_repr

__all__ = ["check", "field_error", "describe", "Schema", "Str", "Int", "Num", "Bool", "Nullable", "ListOf",
           "Tuple", "MapOf", "Record", "Anything", "Id", "MAX_DEPTH", "MAX_INTEGER_DIGITS", "HugeInteger"]

#: the deepest nesting of lists and objects read (rankmeter's own files nest 4 deep)
MAX_DEPTH = 32
#: integers with more digits than this are not read as numbers (int("9" * 5000) costs quadratic time)
MAX_INTEGER_DIGITS = 40
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class HugeInteger:
    """An integer literal too long to be any count or id rankmeter reads: kept as its digit count only."""

    def __init__(self, digits: int):
        self.digits = digits


def _path(at: tuple) -> str:
    out = ""
    for part in at:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += ("." if out else "") + part
        else:
            out += "[" + json.dumps(part if len(part) <= 60 else part[:60] + "...") + "]"
    return out or "(the whole file)"


def describe(value: Any) -> str:
    """What a JSON value is, for a message: ``the string '0.5'``, ``true``, ``NaN``, ``an object``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, HugeInteger):
        return f"an integer of {value.digits} digits"
    if isinstance(value, int):
        return str(value) if abs(value) < 10 ** 20 else f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity") if math.isinf(value) \
            else repr(value)
    if isinstance(value, str):
        return "the string " + shown_repr(value)
    if isinstance(value, list):
        return f"a list of {len(value)}" if value else "an empty list"
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    return type(value).__name__


def field_error(source: str, at, expected: str, value: Any = None, *, hint: str | None = None,
                got: bool = True, line: int | None = None) -> InputError:
    """The one message shape of a bad field: ``FILE[:LINE]: field PATH: expected WHAT, got WHAT``."""
    where = at if isinstance(at, str) else _path(tuple(at))
    tail = f", got {describe(value)}" if got else ""
    return InputError(f"field {where}: expected {expected}{tail}", source=source, hint=hint, line=line)


class _Context:
    __slots__ = ("source", "hint", "depth", "line")

    def __init__(self, source: str, hint: str | None, depth: int, line: int | None = None):
        self.source, self.hint, self.depth, self.line = source, hint, depth, line

    def refuse(self, at: tuple, expected: str, value: Any) -> InputError:
        return field_error(self.source, at, expected, value, hint=self.hint, line=self.line)

    def error(self, at: tuple, expected: str) -> InputError:
        return field_error(self.source, at, expected, got=False, hint=self.hint, line=self.line)


def bounds(low, high) -> str:
    if low is None and high is None:
        return ""
    left = "-inf" if low is None else _num(low)
    right = "inf" if high is None else _num(high)
    return f" in [{left}, {right}]"


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else repr(float(x))


class Schema:
    """What a field holds. :meth:`check` returns the value (as read, or converted where said) or raises."""

    def describe(self) -> str:  # pragma: no cover - each kind says
        raise NotImplementedError

    def check(self, value: Any, at: tuple, ctx: _Context) -> Any:  # pragma: no cover
        raise NotImplementedError


class Str(Schema):
    """A string (UTF-8 encodable); ``choices``: one of them; ``nonempty``; ``max_length`` characters."""

    def __init__(self, choices=None, *, nonempty: bool = False, max_length: int | None = None,
                 pattern: str | None = None, what: str | None = None):
        self.choices = tuple(choices) if choices is not None else None
        self.nonempty, self.max_length = nonempty, max_length
        self.pattern = re.compile(pattern) if pattern else None
        self.what = what

    def describe(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(json.dumps(c) for c in self.choices)
        return self.what or ("a non-empty string" if self.nonempty else "a string")

    def check(self, value, at, ctx):
        if not isinstance(value, str) or self.choices is not None and value not in self.choices \
                or self.nonempty and not value or self.max_length is not None and len(value) > self.max_length \
                or self.pattern is not None and not self.pattern.fullmatch(value):
            raise ctx.refuse(at, self.describe(), value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ctx.refuse(at, "a string of Unicode characters (not a lone surrogate \\ud800-\\udfff)",
                             value) from None
        return value


class Id(Schema):
    """A query or doc id: a non-empty string, or a JSON integer (TREC's numbers) read as its digits; never a
    boolean, a real or null.

    >>> check([7, "d1"], ListOf(Id()), source="f.json")
    ['7', 'd1']
    """

    def describe(self) -> str:
        return "an id (a non-empty string, or an integer)"

    def check(self, value, at, ctx):
        if type(value) is int and -2 ** 63 <= value < 2 ** 64:
            return str(value)
        if isinstance(value, str) and value:
            return Str().check(value, at, ctx)
        raise ctx.refuse(at, self.describe(), value)


class Int(Schema):
    """An integer (never a boolean, never 1.0) in ``[low, high]``."""

    def __init__(self, low: int | None = None, high: int | None = None, *, choices=None):
        self.low, self.high = low, high
        self.choices = tuple(choices) if choices is not None else None

    def describe(self) -> str:
        if self.choices is not None:
            return "the integer " + " or ".join(map(str, self.choices))
        return "an integer" + bounds(self.low, self.high)

    def check(self, value, at, ctx):
        if type(value) is not int or self.low is not None and value < self.low \
                or self.high is not None and value > self.high \
                or self.choices is not None and value not in self.choices:
            raise ctx.refuse(at, self.describe(), value)
        return value


class Num(Schema):
    """A number (an integer or a real, never a boolean or a string) in ``[low, high]``; finite unless
    ``finite=False`` (then ``NaN`` and ``Infinity`` are read too)."""

    def __init__(self, low: float | None = None, high: float | None = None, *, finite: bool = True):
        self.low, self.high, self.finite = low, high, finite

    def describe(self) -> str:
        base = "a number" if self.finite else "a number, NaN or Infinity"
        return base + bounds(self.low, self.high)

    def check(self, value, at, ctx):
        if type(value) is int:
            number = float(value) if abs(value) < 2 ** 1023 else math.inf
        elif type(value) is float:
            number = value
        else:
            raise ctx.refuse(at, self.describe(), value)
        if math.isnan(number) or math.isinf(number):
            if self.finite:
                raise ctx.refuse(at, self.describe(), value)
            return value
        if self.low is not None and number < self.low or self.high is not None and number > self.high:
            raise ctx.refuse(at, self.describe(), value)
        return value


class Bool(Schema):
    """``true`` or ``false`` (not ``"yes"``, not 1)."""

    def describe(self) -> str:
        return "true or false"

    def check(self, value, at, ctx):
        if type(value) is not bool:
            raise ctx.refuse(at, self.describe(), value)
        return value


class Nullable(Schema):
    """``null`` or what ``inner`` accepts."""

    def __init__(self, inner: Schema):
        self.inner = inner

    def describe(self) -> str:
        return self.inner.describe() + " or null"

    def check(self, value, at, ctx):
        if value is None:
            return None
        try:
            return self.inner.check(value, at, ctx)
        except InputError:
            if at and isinstance(value, (list, dict)):
                raise   # the inner field's own message says more
            raise ctx.refuse(at, self.describe(), value) from None


class ListOf(Schema):
    """A list of ``item`` with ``min_items``..``max_items`` entries; ``unique``: no entry twice."""

    def __init__(self, item: Schema, *, min_items: int = 0, max_items: int | None = None, unique: bool = False):
        self.item, self.min_items, self.max_items, self.unique = item, min_items, max_items, unique

    def describe(self) -> str:
        if self.max_items is not None:
            size = f" of {self.min_items} to {self.max_items}"
        else:
            size = f" of at least {self.min_items}" if self.min_items else ""
        return f"a list{size}, each entry {self.item.describe()}"

    def check(self, value, at, ctx):
        if not isinstance(value, list) or len(value) < self.min_items \
                or self.max_items is not None and len(value) > self.max_items:
            raise ctx.refuse(at, self.describe(), value)
        out = [self.item.check(v, (*at, i), ctx) for i, v in enumerate(value)]
        if self.unique:
            seen: set = set()
            for i, v in enumerate(out):
                key = json.dumps(v) if isinstance(v, (list, dict)) else v
                if key in seen:
                    raise ctx.refuse((*at, i), "an entry not given before in the list (each once)", v)
                seen.add(key)
        return out


class Tuple(Schema):
    """A list of exactly these entries, in this order (``["q1", 3]``)."""

    def __init__(self, *items: Schema):
        self.items = items

    def describe(self) -> str:
        return "[" + ", ".join(i.describe() for i in self.items) + "]"

    def check(self, value, at, ctx):
        if not isinstance(value, list) or len(value) != len(self.items):
            raise ctx.refuse(at, self.describe(), value)
        return [s.check(v, (*at, i), ctx) for i, (s, v) in enumerate(zip(self.items, value))]


class MapOf(Schema):
    """An object whose keys ``key`` accepts (any string by default) and whose values are ``value``."""

    def __init__(self, value: Schema, *, key: Str | None = None, min_items: int = 0):
        self.value, self.key, self.min_items = value, key or Str(), min_items

    def describe(self) -> str:
        return f"an object, each value {self.value.describe()}"

    def check(self, value, at, ctx):
        if not isinstance(value, dict) or len(value) < self.min_items:
            raise ctx.refuse(at, self.describe() + (" (not empty)" if self.min_items else ""), value)
        out = {}
        for k, v in value.items():
            self.key.check(k, (*at, k), ctx)
            out[k] = self.value.check(v, (*at, k), ctx)
        return out


class Record(Schema):
    """An object with the ``required`` fields and any of the ``optional`` ones, each with its schema.

    ``extra``: the schema of fields not named (default :class:`Anything`: read and bounded, kept as they
    are, so files may gain fields); ``None`` refuses them.
    """

    def __init__(self, required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None, *,
                 extra: Schema | None = None, closed: bool = False, what: str = "an object"):
        self.required, self.optional = dict(required), dict(optional or {})
        self.extra = None if closed else (extra or Anything())
        self.what = what

    def describe(self) -> str:
        return self.what + (" with " + ", ".join(self.required) if self.required else "")

    def check(self, value, at, ctx):
        if not isinstance(value, dict):
            raise ctx.refuse(at, self.describe(), value)
        missing = [k for k in self.required if k not in value]
        if missing:
            raise ctx.error((*at, missing[0]), self.required[missing[0]].describe() + " (the field is missing)")
        out = {}
        for k, v in value.items():
            schema = self.required.get(k) or self.optional.get(k) or self.extra
            if schema is None:
                known = ", ".join([*self.required, *self.optional])
                raise ctx.error((*at, k), f"no such field here (the fields are {known})")
            out[k] = schema.check(v, (*at, k), ctx)
        return out


class Anything(Schema):
    """Any JSON value nested at most the file's depth bound, with finite numbers unless ``finite=False``."""

    def __init__(self, *, finite: bool = True):
        self.finite = finite

    def describe(self) -> str:
        return "a JSON value" + (" with finite numbers" if self.finite else "")

    def check(self, value, at, ctx):
        stack = [(value, at, len(at))]
        while stack:
            item, where, depth = stack.pop()
            if isinstance(item, (list, dict)):
                if depth >= ctx.depth:
                    raise ctx.error(where, f"at most {ctx.depth} levels of nested lists and objects")
                children = item.items() if isinstance(item, dict) else enumerate(item)
                stack.extend((v, (*where, k), depth + 1) for k, v in children)
            elif isinstance(item, HugeInteger) or self.finite and isinstance(item, float) and not math.isfinite(item):
                raise ctx.refuse(where, "a finite number" if isinstance(item, float) else "a number of at most "
                                 f"{MAX_INTEGER_DIGITS} digits", item)
        return value


def check(value: Any, schema: Schema, *, source: str, hint: str | None = None, max_depth: int = MAX_DEPTH,
          at: tuple = (), line: int | None = None) -> Any:
    """``value`` (already parsed, or a dict given in Python) checked against ``schema``: the value (converted
    where the schema converts, e.g. :class:`~rankmeter.io.arrays.Numbers`), or an InputError naming ``source`` (and ``line``) and
    the field (``at``: where ``value`` sits in its file, as keys and list positions)."""
    return schema.check(value, tuple(at), _Context(source, hint, max_depth, line))
