"""The evaluation options as keyword-only parameters of every public entry point that scores runs.

Each option is declared once: :data:`~rankmeter.core.options.OPTIONS` (the one parameter table) gives its
rule, default and help; :class:`EvaluationOptions` gives its Python type. An entry point takes them as
``**options: Unpack[EvaluationOptions]`` (PEP 692: type checkers see each option as a typed keyword, a
misspelt one as an unexpected keyword) and :func:`takes_options` makes both into

* the function's signature, as :func:`inspect.signature` and :func:`help` show it: each option a
  keyword-only parameter with its type and default, after the function's own;
* its numpydoc: the line ``%(evaluation_options)s`` in the docstring becomes one entry per option;
* one message for a misspelt keyword, as :func:`rankmeter.evaluate` gives it (Python's own
  ``TypeError: unexpected keyword argument`` would not say ``did you mean rel?``).

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
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar

from rankmeter.core.options import _OTHER_NAMES, OPTIONS
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


class EvaluationOptions(TypedDict, total=False):
    """The Python type of each evaluation option (what :data:`~rankmeter.core.options.OPTIONS` checks);
    the tests hold its keys to that table."""

    queries: Literal["both", "qrels"]
    rel: float
    judged_only: bool
    max_docs: int | None
    ties: Literal["trec_eval", "input", "average", "best", "worst"]
    positive_scores_only: bool
    ignore_self: bool
    grades: Literal["integer", "truncate", "real"]
    truncate_grades: bool
    columns: Mapping[str, str] | Mapping[str, int] | None
    intents: Mapping[str, Mapping[str, float]] | None
    input_format: Literal["auto", "trec", "csv", "tsv", "parquet", "jsonl"]
    executor: Literal["auto", "memory", "streamed", "spark"]
    threads: int | None
    chunk_bytes: int | None
    progress: bool | None
    partitions: int | None


def _annotation(name: str) -> str:
    hint = EvaluationOptions.__annotations__[name]
    return str(getattr(hint, "__forward_arg__", hint))  # the written type, as a signature under PEP 563 shows it


_TYPES = {"bool": "bool", "integer": "int", "grade": "int or float", "mapping": "dict", "intents": "dict"}


def options_section(indent: int = 4, *, without: Iterable[str] = ()) -> str:
    """The evaluation options as numpydoc entries of a Parameters section (type, default, help)."""
    lines = []
    for name, p in OPTIONS.items():
        if name in without:
            continue
        if p.kind == "choice":
            kind = "{" + ", ".join(f'"{c}"' for c in p.choices) + "}" + f', default "{p.default}"'
        else:
            kind = _TYPES[p.kind] + (", optional" if p.default is None else f", default {p.default!r}")
        text = p.help[0].upper() + p.help[1:] + "."
        lines.append(f"{name} : {kind}")
        lines += textwrap.wrap(text, 100, initial_indent="    ", subsequent_indent="    ")
    return textwrap.indent("\n".join(lines), " " * indent).lstrip()


def unknown_keywords(unknown: Iterable[str], own: Iterable[str] = (), *, without: Iterable[str] = ()) -> ParameterError:
    """The error for keywords a function does not take: the closest name of each, as
    :func:`~rankmeter.core.options.validate_options` names it (``relevance_level``: did you mean rel?)."""
    unknown, own = sorted(unknown), list(own)
    known = [*own, *(name for name in OPTIONS if name not in set(without))]
    hints = [[_OTHER_NAMES[u]] if u in _OTHER_NAMES else difflib.get_close_matches(u, known, n=1) for u in unknown]
    hint = "; did you mean " + ", ".join(h[0] for h in hints if h) + "?" if any(hints) else ""
    return ParameterError(f"unknown option {', '.join(unknown)}{hint} (options: {', '.join(known)})")


def _decorate(func: Callable[..., Any], doc_owner: Any, in_memory: bool,
              without: tuple[str, ...] = ()) -> Callable[..., Any]:
    signature = inspect.signature(func)  # through validate_params' wrapper to the function itself
    params = list(signature.parameters.values())
    var = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    if len(var) != 1 or "Unpack[EvaluationOptions]" not in str(var[0].annotation):
        raise TypeError(f"{func.__qualname__}: takes_options needs **options: Unpack[EvaluationOptions]")
    own = [p for p in params if p is not var[0]]
    if {p.name for p in own} & (OPTIONS.keys() - set(without)):
        raise TypeError(f"{func.__qualname__}: an own parameter named as an evaluation option")
    doc = doc_owner.__doc__ or ""
    if MARKER not in doc:
        raise TypeError(f"{doc_owner.__qualname__}: its docstring has no {MARKER} line for the options")
    indent = len(doc[:doc.index(MARKER)].rpartition("\n")[2])
    doc_owner.__doc__ = doc.replace(MARKER, options_section(indent, without=without))
    keywords = [p.name for p in own if p.kind is inspect.Parameter.KEYWORD_ONLY]
    known = {p.name for p in own} | (OPTIONS.keys() - set(without))

    @functools.wraps(func)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if not kwargs.keys() <= known:
            if kwargs.keys() & set(without):
                raise ParameterError(f"{func.__name__} sets {', '.join(sorted(kwargs.keys() & set(without)))} itself "
                                     "(that is what it varies or fixes); leave it out")
            raise unknown_keywords(kwargs.keys() - known, keywords, without=without)
        if in_memory and kwargs.get("executor") in ("streamed", "spark"):
            raise ParameterError(f"executor={kwargs['executor']!r}: {func.__name__} scores each run in memory "
                                 f"('auto' or 'memory'); for the {kwargs['executor']} executor call "
                                 "rankmeter.evaluate on each run")
        return func(*args, **kwargs)

    checked.__signature__ = signature.replace(parameters=own + [  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=_annotation(name))
        for name, p in OPTIONS.items() if name not in without])
    return checked


def takes_options(*, in_memory: bool = False, without: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Decorator: the evaluation options as real keyword-only parameters of a function (or of a class's
    ``__init__``, its class docstring holding the ``%(evaluation_options)s`` line), see the module docstring.

    ``in_memory``: the function scores each run in memory, so ``executor="streamed"`` or ``"spark"`` is
    refused (with the way to those executors) rather than ignored.
    ``without``: options the function sets itself (:func:`~rankmeter.tie_report` varies ``ties``): not in its
    signature, and refused with that reason rather than overridden in silence; or that it takes as a keyword of
    its own with other values (:func:`~rankmeter.fuse`'s ``ties``, its own parameter with its own choices).
    """
    if set(without) - OPTIONS.keys():
        raise TypeError(f"takes_options: no evaluation option {sorted(set(without) - OPTIONS.keys())}")

    def decorate(obj: F) -> F:
        if isinstance(obj, type):
            obj.__init__ = _decorate(obj.__init__, obj, in_memory, without)  # type: ignore[misc]
            return obj
        return _decorate(obj, obj, in_memory, without)  # type: ignore[return-value]
    return decorate
