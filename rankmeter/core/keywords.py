"""The declared options as keyword-only parameters of every public entry point: :func:`takes_options`.

Options are declared once, as the keys of a TypedDict (:class:`~rankmeter.core.options.EvaluationOptions`,
:class:`~rankmeter.stats.params.SignificanceOptions` ...): each key's Python type, and in ``Annotated`` its
default, help and bounds (:func:`~rankmeter.engine.typed_options.option`). An entry point takes them as
``**options: Unpack[EvaluationOptions]`` (PEP 692: type checkers see each option as a typed keyword, a
misspelt one as an unexpected keyword) and :func:`takes_options` makes the declarations into

* the function's signature, as :func:`inspect.signature` and :func:`help` show it: each option a
  keyword-only parameter with its type and default, after the function's own;
* its numpydoc: the line ``%(evaluation_options)s`` in the docstring becomes one entry per option;
* one message for a misspelt keyword (Python's own ``TypeError: unexpected keyword argument`` would not
  say ``did you mean rel?``).

>>> @takes_options()
... def score(run: str, *, depth: int = 10, **options: Unpack[EvaluationOptions]) -> dict:
...     '''Parameters
...     ----------
...     %(evaluation_options)s
...     '''
...     return options
>>> list(inspect.signature(score).parameters)[:4]
['run', 'depth', 'queries', 'rel']
>>> score("r", relevance_level=2)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: unknown option relevance_level; did you mean rel? (options: depth, queries, ...)
"""
from __future__ import annotations

import difflib
import functools
import inspect
import re
import sys
import textwrap
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from rankmeter.core.options import OTHER_NAMES, OPTIONS, EvaluationOptions
from rankmeter.engine.param import Param
from rankmeter.engine.typed_options import declarations
from rankmeter.errors import ParameterError

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:
    from typing_extensions import Unpack
else:  # Python 3.10: the annotations are strings, read by type checkers (which bring typing_extensions)
    try:
        from typing_extensions import Unpack
    except ImportError:
        Unpack = None  # typing.get_type_hints of an entry point then needs typing_extensions installed

__all__ = ["EvaluationOptions", "takes_options", "options_section", "unknown_keywords", "MARKER", "Unpack"]

#: The docstring line that :func:`takes_options` replaces by the options' numpydoc entries.
MARKER = "%(evaluation_options)s"

F = TypeVar("F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=None)
def _declared(typed: type) -> tuple[dict[str, Param], dict[str, Any]]:
    """The declarations of a TypedDict of options, and each key's type as a signature shows it."""
    return declarations(typed), typing.get_type_hints(typed)


_TYPES = {"bool": "bool", "integer": "int", "number": "float", "grade": "int or float", "mapping": "dict",
          "intents": "dict"}


def options_section(indent: int = 4, *, without: Iterable[str] = (),
                    declared: Mapping[str, Param] | None = None) -> str:
    """The options (by default the evaluation options) as numpydoc entries of a Parameters section (type,
    default, help), made from their declarations."""
    lines = []
    for name, p in (OPTIONS if declared is None else declared).items():
        if name in without:
            continue
        if p.kind == "choice":
            kind = "{" + ", ".join(f'"{c}"' for c in p.choices) + "}" + f', default "{p.default}"'
        elif p.default is None:
            kind = _TYPES[p.kind] + ", optional"
        else:
            kind = _TYPES[p.kind] + (" or None" if p.optional else "") + f", default {p.default!r}"
        text = p.help[0].upper() + p.help[1:] + "."
        lines.append(f"{name} : {kind}")
        lines += textwrap.wrap(text, 100, initial_indent="    ", subsequent_indent="    ")
    return textwrap.indent("\n".join(lines), " " * indent).lstrip()


def unknown_keywords(unknown: Iterable[str], own: Iterable[str] = (), *, without: Iterable[str] = (),
                     declared: Iterable[str] | None = None) -> ParameterError:
    """The error for keywords a function does not take: the closest name of each, as
    :func:`~rankmeter.core.options.validate_options` names it (``relevance_level``: did you mean rel?)."""
    unknown, own = sorted(unknown), list(own)
    known = [*own, *(name for name in (OPTIONS if declared is None else declared) if name not in set(without))]
    hints = [[OTHER_NAMES[u]] if u in OTHER_NAMES else difflib.get_close_matches(u, known, n=1) for u in unknown]
    hint = "; did you mean " + ", ".join(h[0] for h in hints if h) + "?" if any(hints) else ""
    return ParameterError(f"unknown option {', '.join(unknown)}{hint} (options: {', '.join(known)})")


def _unpacked(func: Callable[..., Any], var: inspect.Parameter) -> type:
    """The TypedDict of ``**options: Unpack[X]``: X (read from the annotation, written or a string)."""
    annotation = var.annotation
    if isinstance(annotation, str):
        found = re.fullmatch(r"(?:typing\.)?Unpack\[([\w.]+)\]", annotation.strip())
        typed = functools.reduce(getattr, found.group(1).split(".")[1:],
                                 func.__globals__.get(found.group(1).split(".")[0])) if found else None
    else:
        typed = next(iter(typing.get_args(annotation)), None)
    if not typing.is_typeddict(typed):
        raise TypeError(f"{func.__qualname__}: takes_options needs **options: Unpack[a TypedDict of options]")
    return typed  # type: ignore[return-value]


def _decorate(func: Callable[..., Any], doc_owner: Any, in_memory: bool,
              without: tuple[str, ...] = ()) -> Callable[..., Any]:
    signature = inspect.signature(func)  # through validate_params' wrapper to the function itself
    params = list(signature.parameters.values())
    var = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    if len(var) != 1:
        raise TypeError(f"{func.__qualname__}: takes_options needs **options: Unpack[a TypedDict of options]")
    declared, types = _declared(_unpacked(inspect.unwrap(func), var[0]))
    if set(without) - declared.keys():
        raise TypeError(f"{func.__qualname__}: no option {sorted(set(without) - declared.keys())} to leave out")
    offered = {name: p for name, p in declared.items() if name not in without}
    own = [p for p in params if p is not var[0]]
    if {p.name for p in own} & offered.keys():
        raise TypeError(f"{func.__qualname__}: an own parameter named as one of its options")
    doc = doc_owner.__doc__ or ""
    if MARKER not in doc:
        raise TypeError(f"{doc_owner.__qualname__}: its docstring has no {MARKER} line for the options")
    indent = len(doc[:doc.index(MARKER)].rpartition("\n")[2])
    doc_owner.__doc__ = doc.replace(MARKER, options_section(indent, declared=offered))
    keywords = [p.name for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
    known = {p.name for p in own} | offered.keys()

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if not kwargs.keys() <= known:
            if kwargs.keys() & set(without):
                raise ParameterError(f"{func.__name__} sets {', '.join(sorted(kwargs.keys() & set(without)))} itself "
                                     "(that is what it varies or fixes); leave it out")
            raise unknown_keywords(kwargs.keys() - known, keywords, declared=offered)
        if in_memory and kwargs.get("executor") in ("streamed", "spark"):
            raise ParameterError(f"executor={kwargs['executor']!r}: {func.__name__} scores each run in memory "
                                 f"('auto' or 'memory'); for the {kwargs['executor']} executor call "
                                 "rankmeter.evaluate on each run")
        return func(*args, **kwargs)

    checked.__signature__ = signature.replace(parameters=own + [  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=types[name])
        for name, p in offered.items()])
    checked.options = offered  # type: ignore[attr-defined]  # the declarations of its options (docs, CLI)
    # its declared keywords besides the evaluation options (the significance knobs ...), as validate_params keeps them
    checked.params = {**getattr(func, "params", {}),  # type: ignore[attr-defined]
                      **{name: p for name, p in offered.items() if name not in OPTIONS}}
    return checked


def takes_options(*, in_memory: bool = False, without: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Decorator: the options of ``**options: Unpack[X]`` (X a TypedDict of declared options, such as
    :class:`EvaluationOptions`) as real keyword-only parameters of a function (or of a class's ``__init__``,
    its class docstring holding the ``%(evaluation_options)s`` line), see the module docstring.

    ``in_memory``: the function scores each run in memory, so ``executor="streamed"`` or ``"spark"`` is
    refused (with the way to those executors) rather than ignored.
    ``without``: options the function sets itself (:func:`~rankmeter.tie_report` varies ``ties``): not in its
    signature, and refused with that reason rather than overridden in silence; or that it takes as a keyword of
    its own with other values (:func:`~rankmeter.fuse`'s ``ties``, its own parameter with its own choices).
    """
    def decorate(obj: F) -> F:
        if isinstance(obj, type):
            obj.__init__ = _decorate(obj.__init__, obj, in_memory, without)  # type: ignore[misc]
            return obj
        return _decorate(obj, obj, in_memory, without)  # type: ignore[return-value]
    return decorate
