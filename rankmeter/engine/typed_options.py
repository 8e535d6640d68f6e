"""Options that many entry points take, declared as the keys of a TypedDict.

A key is ``Annotated[type, option(default, help, bounds)]`` (:func:`option`), or ``Annotated[type, PARAM]`` for
a declaration shared with functions that validate it (:data:`~rankmeter.engine.param.SEED`): the type is what
type checkers read, and :func:`declarations` makes each key's :class:`~rankmeter.engine.param.Param` (its kind
and choices read from the type: a ``Literal`` is a choice, ``X | None`` optional). A function taking
``**options: Unpack[X]`` has no signature of its own for them, so here, and only here, the default is the
declaration's (:mod:`rankmeter.core.keywords` makes the signature from it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from rankmeter.engine.param import UNSET, Param

__all__ = ["Option", "option", "declarations"]


@dataclass(frozen=True)
class Option:
    """A parameter declared as one key of a TypedDict, ``Annotated[its type, option(default, help, ...)]``:
    the key is its name, the type what type checkers read; :func:`declarations` makes the :class:`Param`."""

    default: Any
    help: str
    kind: str | None
    constraint: tuple


def option(default: Any, help: str, *, kind: str | None = None, **constraint: Any) -> Any:
    """One key of a TypedDict of options: its default, its help, and what :class:`Param` takes beyond its type
    (bounds, a kind the type does not say: ``grade``, ``mapping``). Typed ``Any`` so that type checkers read
    ``Annotated[T, option(...)]`` as ``T``."""
    return Option(default, help, kind, tuple(sorted(constraint.items())))


_KIND_OF_TYPE = {bool: "bool", int: "integer", float: "number", str: "string"}


def _kind(name: str, hint: Any) -> tuple[str, dict[str, Any]]:
    """The Param kind (and choices, optional) a type says: Literal -> choice, bool, int, float, X | None."""
    args = get_args(hint)
    optional = type(None) in args and get_origin(hint) is not Literal
    if optional:
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else Union[tuple(rest)]
    more: dict[str, Any] = {"optional": True} if optional else {}
    if get_origin(hint) is Literal:
        return "choice", {**more, "choices": get_args(hint)}
    if hint in _KIND_OF_TYPE:
        return _KIND_OF_TYPE[hint], more
    raise AssertionError(f"option {name}: no kind for the type {hint!r}; give kind=")


def declarations(typed: type) -> dict[str, Param]:
    """The :class:`Param` of each key of a TypedDict declared with :func:`option` (or with a Param itself:
    ``Annotated[int | None, SEED]``), in the TypedDict's order (a base's keys first).

    >>> from typing import TypedDict
    >>> class Knobs(TypedDict, total=False):
    ...     alpha: Annotated[float, option(0.05, "significance level", low=0, high=1, low_open=True)]
    ...     test: Annotated[Literal["t", "wilcoxon"], option("t", "the paired test")]
    >>> knobs = declarations(Knobs)
    >>> knobs["test"].check("z")
    Traceback (most recent call last):
    ...
    rankmeter.errors.ParameterError: test='z': expected one of 't', 'wilcoxon'
    >>> knobs["alpha"].default, knobs["alpha"].kind
    (0.05, 'number')
    """
    out: dict[str, Param] = {}
    for name, hint in get_type_hints(typed, include_extras=True).items():
        if get_origin(hint) is not Annotated:
            raise AssertionError(f"{typed.__name__}.{name}: declare it as Annotated[type, option(...)]")
        own, *extras = get_args(hint)
        declared = [e for e in extras if isinstance(e, (Option, Param))]
        if len(declared) != 1:
            raise AssertionError(f"{typed.__name__}.{name}: one option(...) or Param per key")
        found = declared[0]
        if isinstance(found, Param):
            if found.name != name:
                raise AssertionError(f"{typed.__name__}.{name}: the Param is named {found.name!r}")
            if found.default is UNSET:  # no signature to hold it: the key's declaration does
                raise AssertionError(f"{typed.__name__}.{name}: the Param needs its default")
            out[name] = found
            continue
        kind, more = _kind(name, own) if found.kind is None else (found.kind, {})
        if found.kind is not None and type(None) in get_args(own):
            more["optional"] = True
        out[name] = Param(name, kind, found.default, found.help, **{**more, **dict(found.constraint)})
    return out
