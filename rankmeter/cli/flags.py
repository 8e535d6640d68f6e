"""Command-line flags made from the parameters' declarations (:class:`rankmeter.engine.param.Param`).

A command names the parameters it takes: the shared ones by name (:data:`rankmeter.core.params.PARAMS`), its
own as the declarations beside the code that owns them (the analysis module, or the command module for a
knob of the command only). :func:`add` makes each one's flag, type, default, choices and help from its
declaration (an older flag of a renamed parameter is still read, and not shown), and a bad value is refused
while the arguments are read, in one line that names the flag and what is valid::

    rankmeter: error: argument --alpha: 5: expected a number in (0, 1)

:func:`keywords` gives the parsed values back as the keywords the Python functions take.
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from typing import Any

from rankmeter.fusion.catalog import FUSE_OPTIONS  # the declarations only: no numpy
from rankmeter.core.options import OPTIONS
from rankmeter.core.params import PARAMS, Param
from rankmeter.errors import ParameterError
from rankmeter.stats.params import SIGNIFICANCE

__all__ = ["Parser", "plain_help", "add", "declared", "keywords", "evaluation", "write_json", "EVALUATION", "READING",
           "EVALUATION_FUSING", "READING_FUSING"]

#: What only the command line needs of the evaluation options (each declared once, in
#: rankmeter.core.options.EvaluationOptions): a flag's metavar, an older flag still read, the options offered
#: to Python callers only, and the executor's flags (which only the commands that stream take). An option not
#: named here is the flag --name-with-dashes, and every command that scores runs offers it.
OPTION_FLAGS: dict[str, dict[str, Any]] = {
    "max_docs": {"metavar": "N"},
    "columns": {"metavar": "ROLE=NAME,..."},
    "input_format": {"deprecated": ("--format-in",)},
    "intents": {"cli": False},
    "executor": {"group": "executor"},
    **{name: {"group": "executor", "cli": False} for name in ("threads", "chunk_bytes", "progress", "partitions")},
}


def option_flags(options: Mapping[str, Param]) -> dict[str, Param]:
    """The evaluation options as the command line offers them: each declaration with its fields of
    :data:`OPTION_FLAGS`."""
    return {name: param.but(**{"group": "evaluation", **OPTION_FLAGS.get(name, {})}) for name, param in options.items()}


def scoring_flags(flagged: Mapping[str, Param]) -> tuple[str, ...]:
    """The options every command that scores runs offers: those of the evaluation group offered as flags."""
    return tuple(name for name, param in flagged.items() if param.group == "evaluation" and param.cli)


#: The declarations a command names by their name: the shared parameters, the significance knobs and the
#: evaluation options with their command-line fields.
SHARED: dict[str, Param] = {**PARAMS, **SIGNIFICANCE, **option_flags(OPTIONS)}
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


def add(parser: argparse.ArgumentParser, *specs: str | Param) -> None:
    """Add the flags of ``specs`` (parameter names, or parameters narrowed with :meth:`Param.but`).

    The flag is ``--`` + the name with dashes (the Python keyword it feeds: tests/test_names.py); a switch
    whose default is True is ``--no-`` + the name, and sets it to False."""
    for spec in specs:
        param = SHARED[spec] if isinstance(spec, str) else spec
        if not param.cli:
            continue
        help_text = param.help
        if param.positional:
            many = "+" if param.required else "*"
            parser.add_argument(param.name, nargs=many if param.kind == "paths" else None,
                                metavar=param.metavar or param.name.upper(), help=help_text).param = param
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
        elif param.kind == "numbers":  # --top-k 1 3, or --top-k 1 --top-k 3
            kwargs.update(action="extend", nargs="+", type=_converter(param), metavar=param.metavar or "X")
        elif param.repeat:
            kwargs.update(action="append", type=_converter(param), metavar=param.metavar or "N")
        else:
            kwargs["type"] = _converter(param)
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
        parser.add_argument(*names, **kwargs).param = param  # what the flag was made from (the name sweep)
        for old in param.deprecated:  # the older flag still works, and is not shown
            parser.add_argument(old, **{**kwargs, "help": argparse.SUPPRESS, "required": False})


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
