"""Command-line flags made from the parameters' declarations (:class:`rankmeter.engine.param.Param`).

A declaration says what a parameter accepts, its default and its help; how it is spelled on the command line
is said here only, by :class:`Flag`: a flag of another spelling (``--as``), a short flag (``-m``), a metavar,
a positional input, a keyword offered to Python callers only. For the parameters declared outside cli/ these
fields are :data:`FLAGS`, by parameter name (a name not there is ``--name-with-dashes``); a command's own
parameter is declared in its command module with :func:`declare` (the Param and its flag's fields in one
call).

A command names the parameters it takes: the shared ones by name (:data:`SHARED`: the parameters of
:data:`rankmeter.core.params.PARAMS`, the significance knobs and the evaluation options), its own as the
declarations beside the code that owns them (the analysis module, or the command module for a knob of the
command only). :func:`add` makes each one's flag, type, default, choices and help (an older flag of a renamed
parameter is still read, and not shown), and a bad value is refused while the arguments are read, in one line
that names the flag and what is valid::

    rankmeter: error: argument --alpha: 5: expected a number in (0, 1)

:func:`keywords` gives the parsed values back as the keywords the Python functions take.

>>> flag("measure").long_flag, flag("measure").short, flag("measure").param.kind
('--measure', '-m', 'strings')
>>> flag("max_docs").metavar, flag("judged_only").long_flag
('N', '--judged-only')
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from rankmeter.fusion.catalog import FUSE_OPTIONS  # the declarations only: no numpy
from rankmeter.core.options import OPTIONS
from rankmeter.core.params import PARAMS, Param
from rankmeter.engine.param import UNSET
from rankmeter.errors import ParameterError
from rankmeter.stats.params import SIGNIFICANCE

__all__ = ["Flag", "FLAGS", "flag", "declare", "Parser", "plain_help", "add", "declared", "keywords", "evaluation",
           "write_json", "SHARED", "EVALUATION", "READING", "EVALUATION_FUSING", "READING_FUSING"]


@dataclass(frozen=True)
class Flag:
    """A declared parameter as the command line offers it: the declaration (:class:`Param`: kind, bounds,
    default, help) and what only the command line needs, which the engine never sees.

    ``flag``: the long flag when it is not ``--`` + the name with dashes (``--as``, ``-n``); ``short``
    (``-m``); ``metavar``; ``positional``; ``offered``: False for a keyword offered to Python callers only;
    ``repeat``: a flag of a numeric kind given several times, its values as a list (``-k 5 -k 10``);
    ``deprecated``: older flags still read, not shown in the help; ``group``: ``"evaluation"`` for the options
    every command that scores runs offers (:data:`EVALUATION`). Every other attribute is the declaration's.
    """

    param: Param
    flag: str | None = None
    short: str | None = None
    metavar: str | None = None
    positional: bool = False
    offered: bool = True
    repeat: bool = False
    deprecated: tuple = ()
    group: str = ""

    def __getattr__(self, name: str) -> Any:  # the declaration's kind, bounds, default, help, check ...
        if name == "param":  # not set yet (copy, pickle)
            raise AttributeError(name)
        return getattr(self.param, name)

    @property
    def long_flag(self) -> str:
        return self.flag or "--" + self.param.name.replace("_", "-")

    def but(self, **changes: Any) -> "Flag":
        """This flag with ``changes``: the command-line fields changed here, the others in the declaration."""
        own = {k: changes.pop(k) for k in list(changes) if k in _FLAG_FIELDS}
        return replace(self, param=self.param.but(**changes) if changes else self.param, **own)


_FLAG_FIELDS = {f.name for f in fields(Flag)} - {"param"}

#: What only the command line needs of the parameters declared outside cli/ (the shared ones of
#: rankmeter.core.params, the evaluation options, each product's own), by parameter name: a flag of another
#: spelling, a short flag, a metavar, a positional input, a repeatable value, an older flag still read, a keyword
#: offered to Python callers only. A name not here is the flag --name-with-dashes. A command that offers a
#: parameter otherwise says so where it adds it (a Flag of its own, or .but(...) of the shared one).
FLAGS: dict[str, dict[str, Any]] = {
    # inputs and outputs (rankmeter.core.params)
    "qrels": {"positional": True}, "runs": {"positional": True}, "run": {"positional": True},
    "measure": {"short": "-m", "metavar": "MEASURE"}, "query": {"short": "-Q"}, "baseline": {"metavar": "RUN"},
    "decimals": {"metavar": "N"}, "output": {"short": "-o"}, "per_query": {"short": "-q"},
    "k": {"short": "-k", "metavar": "K"},
    # the evaluation options (rankmeter.core.options): those every command that scores runs offers, and
    # the executor's, which only the commands that stream take
    **{name: {"group": "evaluation"} for name in OPTIONS},
    "max_docs": {"group": "evaluation", "metavar": "N"},
    "columns": {"group": "evaluation", "metavar": "ROLE=NAME,..."},
    "input_format": {"group": "evaluation", "deprecated": ("--format-in",)},
    "intents": {"group": "evaluation", "offered": False},
    "executor": {"group": "executor"},
    **{name: {"group": "executor", "offered": False} for name in ("threads", "chunk_bytes", "progress", "partitions")},
    # each product's own
    "rbp_p": {"deprecated": ("--p",)}, "cutoff": {"short": "-k", "metavar": "K", "repeat": True},  # check
    "profile": {"metavar": "NAME"},  # compat.profiles
    "allow": {"metavar": "CHANGE"},  # gate
    "n": {"flag": "-n", "metavar": "N"},  # io.runs
    **{name: {"metavar": "N"} for name in ("budget", "samples", "concurrency", "max_tokens", "max_response_bytes",
                                          "max_samples", "max_calls", "max_ranks")},
    "design": {"metavar": "FILE"}, "draws": {"deprecated": ("--samples",)},  # judges
    "sampled": {"metavar": "SAMPLES", "deprecated": ("--labels", "--samples")}, "top_k": {"metavar": "K"},
    "api_key_env": {"metavar": "NAME"}, "price_in": {"metavar": "X"}, "price_out": {"metavar": "Y"},
    "time_limit": {"metavar": "SECONDS"},
    "resamples": {"deprecated": ("--permutations",)},  # leaderboard
    "size": {"metavar": "N", "repeat": True},  # meta
    "measures": {"flag": "--measure", "short": "-m", "metavar": "MEASURE"},  # recsys
    "max_explained": {"metavar": "N", "deprecated": ("--explain-queries",)}, "beyond_k": {"metavar": "K"},  # report
    "pair": {"metavar": "RUN"},
    # keywords offered to Python callers only
    **{name: {"offered": False} for name in ("most", "ddof", "variant", "recalls", "lower_is_better")},
}


def flag(spec: "str | Param | Flag", **changes: Any) -> Flag:
    """The flag of ``spec`` (a parameter's name among the shared ones, a declaration, or a Flag already), its
    command-line fields from :data:`FLAGS` (for a declaration given by name or object), then ``changes``."""
    if isinstance(spec, Flag):
        return spec.but(**changes) if changes else spec
    param = SHARED_PARAMS[spec] if isinstance(spec, str) else spec
    return Flag(param, **{**FLAGS.get(param.name, {}), **changes})


def declare(name: str, kind: str, default: Any = None, help: str = "", **more: Any) -> Flag:
    """A parameter of one command only, declared in its command module: the :class:`Param` and its flag's
    fields in one call (``declare("top", "integer", 10, "...", low=1, metavar="N")``)."""
    own = {k: more.pop(k) for k in list(more) if k in _FLAG_FIELDS}
    return Flag(Param(name, kind, default, help, **more), **own)


def option_flags(options: Mapping[str, Param]) -> dict[str, Flag]:
    """The evaluation options as the command line offers them: each declaration with its fields of
    :data:`FLAGS` (an option not there is a flag of the evaluation group, --name-with-dashes)."""
    return {name: Flag(param, **FLAGS.get(name, {"group": "evaluation"})) for name, param in options.items()}


def scoring_flags(flagged: Mapping[str, Flag]) -> tuple[str, ...]:
    """The options every command that scores runs offers: those of the evaluation group offered as flags."""
    return tuple(name for name, f in flagged.items() if f.group == "evaluation" and f.offered)


SHARED_PARAMS: dict[str, Param] = {**PARAMS, **SIGNIFICANCE}
#: The declarations a command names by their name, as flags: the shared parameters, the significance knobs and
#: the evaluation options with their command-line fields.
SHARED: dict[str, Flag] = {**{name: flag(p) for name, p in SHARED_PARAMS.items()}, **option_flags(OPTIONS)}
#: The evaluation options every command that scores runs takes.
EVALUATION = scoring_flags(option_flags(OPTIONS))
#: The options of every command that reads runs without scoring them (the rank order and the reader).
READING = ("ties", "columns", "input_format")
#: Fusion and pooling rank each input run themselves: the tied docs in trec_eval's order or as given (fuse's
#: ties=, declared beside it)
_FUSING_TIES = FUSE_OPTIONS["ties"]
EVALUATION_FUSING = tuple(_FUSING_TIES if name == "ties" else name for name in EVALUATION)
READING_FUSING = (_FUSING_TIES, "columns", "input_format")


#: a Sphinx role (``:mod:`rankmeter.io```, ``:func:`~rankmeter.evaluate```) or a ``literal``
_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``")


def plain_help(text: str) -> str:
    """Help text without reStructuredText markup: a role becomes its target (``~`` keeps the last name,
    ``title <target>`` the title), a ``literal`` its text.

    >>> plain_help("see :mod:`rankmeter.check`, :func:`~rankmeter.io.read_run` and ``--dedupe``")
    'see rankmeter.check, read_run and --dedupe'
    """
    def role(match):
        content = match.group(1)
        if content.endswith(">") and "<" in content:  # :class:`title <target>`: the title
            return content[:content.index("<")].strip()
        return content[1:].rsplit(".", 1)[-1] if content.startswith("~") else content
    return _LITERAL.sub(r"\1", _ROLE.sub(role, text))


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as ParameterError: one line and exit status 2, like every error.

    Every command's help (descriptions from docstrings, flags' help from the parameter table) is
    formatted here, without reStructuredText markup (:func:`plain_help`).
    """

    def error(self, message: str):  # noqa: D102 - argparse's hook
        raise ParameterError(f"{self.prog}: {message}")

    def format_help(self) -> str:  # noqa: D102 - argparse's hook: the one place help text is made
        return plain_help(super().format_help())

    def format_usage(self) -> str:  # noqa: D102
        return plain_help(super().format_usage())


def _converter(param: Param):
    def convert(text: str) -> Any:
        try:
            return param.parse(text)
        except ParameterError:
            raise argparse.ArgumentTypeError(f"{text!r}: expected {param.expected}") from None
    convert.__name__ = param.kind
    convert.param = param  # what the flag was made from (the parameter sweep reads it)
    return convert


def add(parser: argparse.ArgumentParser, *specs: str | Param | Flag, owner: Any = ()) -> None:
    """Add the flags of ``specs``: parameter names (:data:`SHARED`), declarations (their command-line fields
    from :data:`FLAGS`) or :class:`Flag` objects.

    ``owner``: the function (or functions, the first that has it) whose keywords the flags feed: a flag's default
    (and so its help) is that function's, from its signature (``func.params``, filled in by
    :func:`~rankmeter.engine.param.validate_params`). A declaration whose function holds its default
    (:data:`~rankmeter.engine.param.UNSET`) needs one.

    The flag is ``--`` + the name with dashes (the Python keyword it feeds: tests/test_names.py); a switch
    whose default is True is ``--no-`` + the name, and sets it to False. Each argparse action keeps the
    declaration it was made from as ``param`` (the help, the docs and the parameter sweep read it)."""
    owners = owner if isinstance(owner, (tuple, list)) else (owner,)
    for spec in specs:
        param = SHARED[spec] if isinstance(spec, str) else flag(spec)
        if not param.offered:
            continue
        if (owners and not param.positional) or param.default is UNSET:
            param = _with_owners_default(param, owners)
        help_text = param.help
        if param.positional:
            many = "+" if param.required else "*"
            parser.add_argument(param.name, nargs=many if param.kind == "paths" else None,
                                metavar=param.metavar or param.name.upper(), help=help_text).param = param.param
            continue
        names = [param.long_flag] + ([param.short] if param.short else [])
        if param.long_flag.startswith("-") and not param.long_flag.startswith("--"):
            names = [param.long_flag]
        kwargs: dict[str, Any] = {"dest": param.name, "help": help_text}
        if param.kind == "bool" and param.default is True:  # on unless switched off: --no-NAME
            names = ["--no-" + param.long_flag[2:]]
            kwargs["action"] = "store_false"
        elif param.kind == "bool":
            kwargs["action"] = "store_true"
        elif param.kind == "paths":  # --nuggets A B, or --nuggets A --nuggets B
            kwargs.update(action="extend", nargs="+", metavar=param.metavar or param.name.upper())
        elif param.kind == "strings":
            kwargs.update(action="append", metavar=param.metavar or param.name.upper())
            if param.choices:
                kwargs.update(choices=param.choices)
                help_text = kwargs["help"] = f"{help_text} (one of {', '.join(param.choices)})"
            if param.name == "pair":
                kwargs.update(action="store", nargs=2, metavar=("BASELINE", "SYSTEM"))
        elif param.kind == "numbers":  # --top-k 1 3, or --top-k 1 --top-k 3; not given: None (argparse would
            # extend a default list with the values given), the function's default applies
            kwargs.update(action="extend", nargs="+", type=_converter(param.param), metavar=param.metavar or "X")
            if param.default not in (None, UNSET):
                help_text = kwargs["help"] = f"{help_text} (default {' '.join(map(str, param.default))})"
        elif param.repeat:
            kwargs.update(action="append", type=_converter(param.param), metavar=param.metavar or "N")
        else:
            kwargs["type"] = _converter(param.param)
            kwargs["default"] = param.default
            if param.kind == "choice":
                kwargs["metavar"] = "{" + ",".join(param.choices) + "}"
                help_text += f" (default {param.default})" if param.default is not None else ""
            elif param.default is not None:
                help_text += f" (default {param.default})"
            kwargs["help"] = help_text
            if param.metavar:
                kwargs["metavar"] = param.metavar
        if param.required:
            kwargs["required"] = True
        parser.add_argument(*names, **kwargs).param = param.param  # what the flag was made from (the name sweep)
        for old in param.deprecated:  # the older flag still works, and is not shown
            parser.add_argument(old, **{**kwargs, "help": argparse.SUPPRESS, "required": False})


def _with_owners_default(param: Flag, owners) -> Flag:
    """``param`` with the default of the first owner's signature that takes it (as it is, if none does and it
    has a default of its own)."""
    for func in owners:
        own = getattr(func, "params", {}).get(param.name)
        if own is not None and own.default is not UNSET:
            return param.but(default=own.default)
    if param.default is not UNSET:
        return param
    if param.required or param.positional:
        return param.but(default=None)
    raise AssertionError(f"flag {param.long_flag}: its default is its function's: add(..., owner=that function)")


def declared(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(command path, flag, declaration)`` of every flag made from a declaration, in ``parser`` and each of
    its commands and kinds (``("meta", "swap-rate")``): what the help, the docs and the parameter sweep read."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from declared(sub, path + (name,))
        param = getattr(getattr(action, "type", None), "param", None)
        if action.option_strings and isinstance(param, Param) and action.help is not argparse.SUPPRESS:
            yield path, action.option_strings[0], param


def emit(args: argparse.Namespace, data: dict, lines: list[str]) -> int:
    """A command's result: ``data`` as JSON under ``--format json``, else ``lines`` as text; exit status 0."""
    import sys
    if args.format == "json":
        write_json(data)
    else:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def write_json(obj, out=None) -> None:
    """Every command's JSON output: valid JSON always (RFC 8259 has no NaN or Infinity), a value that
    cannot be computed written ``null`` by the one rule of rankmeter.core.results (plain_value)."""
    import json
    import sys

    from rankmeter.core.results import plain_value

    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return plain_value(value) if isinstance(value, float) or type(value).__module__ == "numpy" else value
    out = out or sys.stdout
    json.dump(plain(obj), out, indent=2, allow_nan=False)
    out.write("\n")


def keywords(args: argparse.Namespace, names) -> dict[str, Any]:
    """The values of parameters ``names`` the namespace holds, as Python keywords."""
    return {name: getattr(args, name) for name in names if hasattr(args, name)}


def evaluation(args: argparse.Namespace) -> dict[str, Any]:
    """The evaluation options the namespace holds."""
    return keywords(args, OPTIONS)
