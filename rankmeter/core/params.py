"""The parameters many commands and functions share, declared once: :data:`PARAMS`.

The inputs, the evaluation options (:mod:`rankmeter.core.options`) and the output options are used across
commands (the significance tests' knobs: :mod:`rankmeter.stats.params`); a parameter of one command or one
analysis is declared beside its code (``rankmeter.meta.params``, ``rankmeter.fusion.catalog``,
``rankmeter.cli.plot`` ...) with the same :class:`~rankmeter.engine.param.Param`. Each parameter has a name
(the Python keyword; the flag is ``--`` + the name with dashes), a type, the valid range or choices, a default
and a help text. The command line builds every flag from the declarations (:mod:`rankmeter.cli.flags`, which
alone adds what only a flag needs: a short flag, a metavar, a positional input), and the Python functions
validate their keywords with them (:func:`~rankmeter.engine.param.validate_params`,
:func:`check`), so a name means the same wherever it appears and every bad value gets one message shape,
with what is valid::

    decimals=-1: expected an integer in [0, 17]

On the command line the same message names the flag: ``--decimals -1: expected an integer in [0, 17]``.

>>> check("k", 10)
10
>>> check("decimals", -1)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: decimals=-1: expected an integer in [0, 17]
>>> PARAMS["seed"].parse("-3")
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: seed=-3: expected an integer in [0, 4294967295] or None
"""
from __future__ import annotations

from typing import Any

from rankmeter.core.options import OPTIONS
from rankmeter.engine.param import SEED, Param, is_bool
from rankmeter.errors import ParameterError

__all__ = ["Param", "PARAMS", "check", "validate", "is_bool"]


PARAMS: dict[str, Param] = {**{p.name: p for p in (
    # inputs
    Param("qrels", "path", None, help="the judgments: a qrels file in any input format (- for standard input)",
          required=True),
    Param("runs", "paths", None, help="run files in any input format", required=True),
    Param("run", "path", None, help="a run file in any input format (- for standard input)", required=True),
    Param("measure", "strings", None, help="a measure, e.g. AP, nDCG@10, 'P(rel=2)@5' or a trec_eval name (repeatable)"),
    Param("query", "string", None, help="the query id"),
    # the significance tests' knobs are declared in rankmeter.stats.params; the seed is the engine's
    SEED,
    Param("baseline", "strings", None,
          help="the run the others are compared with, by name (repeatable: several baselines, corrected "
               "together; default the first run)"),
    # output
    # text or JSON; a command writing tables too (csv, markdown, latex) says so with its own choices
    Param("format", "choice", "text", choices=("text", "json"), help="output format"),
    Param("decimals", "integer", 4, low=0, high=17, help="digits after the point in text tables"),
    Param("output", "path", None, help="the file to write (never one of the inputs)"),
    Param("per_query", "bool", False, help="also show per-query values"),
    # shared by commands of several kinds (each command's own parameters are declared beside its code: the
    # analysis module or the command module, and rankmeter.cli.flags makes the flags of both)
    Param("k", "integer", None, low=1, optional=True,
          help="cut each ranking (or recommendation list) at its first K docs"),
    Param("tag", "string", None, help="the run tag to write"),
    Param("other_qrels", "path", None, help="a second qrels version: correlate one measure under both"),
)}, **OPTIONS}  # the evaluation options, declared in rankmeter.core.options


def check(name: str, value: Any) -> Any:
    """``value`` of parameter ``name`` validated (see :data:`PARAMS`)."""
    return PARAMS[name].check(value)


def validate(**given: Any) -> dict[str, Any]:
    """Every keyword validated against :data:`PARAMS`; the values normalised.

    >>> validate(decimals=2, format="json", seed=7)
    {'decimals': 2, 'format': 'json', 'seed': 7}
    """
    unknown = sorted(set(given) - set(PARAMS))
    if unknown:
        raise ParameterError(f"unknown parameter {', '.join(unknown)}")
    return {name: PARAMS[name].check(value) for name, value in given.items()}
