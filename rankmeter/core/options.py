"""The evaluation options every entry point takes, declared once and validated once.

``evaluate``, ``compare``, ``explain``, the report, ``recsys``, Spark and the
command line all take these options with the same names and meaning. Each is
declared in :data:`OPTIONS` with its default, what it accepts and its help
text; :func:`validate_options` checks a set of them in one pass and every bad
value gets the same message shape::

    rel='2': expected an integer relevance threshold (grades >= rel are relevant)

The CLI builds its flags from the same table (:func:`add_option_flags`), so a
flag and its keyword can never drift apart.

>>> validate_options(rel=2, judged_only=True).rel
2
>>> validate_options(queries="all")
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: queries='all': expected one of 'both', 'qrels'
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from numbers import Integral, Real

from rankmeter.errors import ParameterError

__all__ = ["Options", "OPTIONS", "OptionSpec", "validate_options", "add_option_flags", "options_from_args",
           "QUERY_POLICIES", "TIE_POLICIES", "EXECUTORS", "GRADE_POLICIES", "grade_policy"]

QUERY_POLICIES = ("both", "qrels")
TIE_POLICIES = ("trec_eval", "input", "average", "best", "worst")
EXECUTORS = ("auto", "memory", "streamed", "spark")


#: How qrels grades are read: integers only (the default), truncated toward zero like trec_eval's
#: ``atol``, or real numbers (LLM and crowd judgments such as 0.73 or 2.5).
GRADE_POLICIES = ("integer", "truncate", "real")


def grade_policy(grades: str = "integer", truncate_grades: bool = False) -> str:
    """The one grade policy of ``grades`` and the older ``truncate_grades=True`` (``grades="truncate"``).

    >>> grade_policy("real"), grade_policy(truncate_grades=True)
    ('real', 'truncate')
    """
    if grades not in GRADE_POLICIES:
        raise ParameterError(f"grades={grades!r}: expected one of " + ", ".join(map(repr, GRADE_POLICIES)))
    if truncate_grades and grades == "real":
        raise ParameterError("grades='real' keeps fractional grades and truncate_grades=True cuts them: "
                             "pass one of the two")
    return "truncate" if truncate_grades else grades


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not _is_bool(value)


def _is_grade(value: Any) -> bool:
    """An integer, or a finite real number (a threshold on real grades)."""
    if _is_int(value):
        return True
    return isinstance(value, Real) and not _is_bool(value) and value == value and abs(value) != float("inf")


def _number(text: str) -> int | float:
    """A CLI number: an integer when it is one, else a finite float (``--rel 0.5``)."""
    import argparse

    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not _is_grade(value):
        raise argparse.ArgumentTypeError(f"invalid number: {text!r} (expected a finite number)")
    return value


def _is_bool(value: Any) -> bool:
    """A bool, numpy's included (without importing numpy: the CLI starts faster)."""
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _positive_int_or_none(value: Any) -> bool:
    return value is None or (_is_int(value) and value >= 1)


def _is_intents(value: Any) -> bool:
    """None, or {query: {subtopic: probability}} with finite non-negative numbers."""
    if value is None:
        return True
    if not isinstance(value, Mapping):
        return False
    for weights in value.values():
        if not isinstance(weights, Mapping):
            return False
        for w in weights.values():
            if _is_bool(w) or not isinstance(w, (int, float)) and type(w).__module__ != "numpy":
                return False
            try:
                if not 0.0 <= float(w) < float("inf"):
                    return False
            except (TypeError, ValueError):
                return False
    return True


@dataclass(frozen=True)
class OptionSpec:
    """One option: default, acceptance test, what it expects (for messages) and CLI help."""

    name: str
    default: Any
    accepts: Callable[[Any], bool]
    expected: str
    help: str
    choices: tuple = ()
    flag: str | None = None        # the CLI flag, when the option has one
    cli: bool = True               # offered on the evaluation commands

    def check(self, value: Any) -> Any:
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise ParameterError(f"{self.name}={value!r}: expected one of "
                                     + ", ".join(repr(c) for c in self.choices))
        elif not self.accepts(value):
            raise ParameterError(f"{self.name}={value!r}: expected {self.expected}")
        if _is_int(value):
            return int(value)
        if self.accepts is _is_grade:
            return int(value) if float(value).is_integer() else float(value)
        return value


OPTIONS: dict[str, OptionSpec] = {spec.name: spec for spec in (
    OptionSpec("queries", "both", lambda v: True, "", choices=QUERY_POLICIES,
               help="which queries are averaged: those in both inputs (judged queries the run lacks are named "
                    "in a warning), or every qrels query, a missing one scoring as an empty ranking "
                    "(trec_eval -c)"),
    OptionSpec("rel", 1, _is_grade, "a relevance threshold: a number, grades >= rel are relevant",
               help="relevance threshold for measures that do not set their own rel= (trec_eval -l)"),
    OptionSpec("judged_only", False, _is_bool, "True or False",
               help="drop unjudged docs from rankings before scoring, closing the gaps (trec_eval -J)"),
    OptionSpec("max_docs", None, lambda v: v is None or (_is_int(v) and v >= 0),
               "a non-negative integer or None",
               help="score only the first N docs of each ranking (trec_eval -M)"),
    OptionSpec("ties", "trec_eval", lambda v: True, "", choices=TIE_POLICIES,
               help="docs with equal scores: docno descending (trec_eval), as given (input), the expected value over "
                    "all their orders (average), relevant first (best) or last (worst)"),
    OptionSpec("positive_scores_only", False, _is_bool, "True or False",
               help="rank only docs with a score above 0: zero and negative predictions are no prediction "
                    "(TorchMetrics' retrieval fix, PR 3104); default: every listed doc is ranked"),
    OptionSpec("grades", "integer", lambda v: True, "", choices=GRADE_POLICIES,
               help="how qrels grades are read: integers only, truncated toward zero as trec_eval does, or "
                    "real numbers such as 0.73 or 2.5 (LLM and crowd judgments; gain measures use them as they "
                    "are, binary ones threshold them at rel)"),
    OptionSpec("truncate_grades", False, _is_bool, "True or False",
               help="read a non-integer grade such as 1.7 as 1, as trec_eval does (the same as --grades truncate)"),
    OptionSpec("columns", None, lambda v: v is None or (isinstance(v, Mapping) and all(
        isinstance(k, str) and isinstance(c, str) for k, c in v.items())),
               "None or a dict role -> column name, e.g. {'query': 'user', 'doc': 'item'}",
               help="column names of DataFrame inputs: role=name pairs, e.g. query=user,doc=item"),
    OptionSpec("intents", None, _is_intents,
               "None or a dict {query: {subtopic: probability}} of non-negative numbers",
               help="diversity measures: the probability of each subtopic of a query (default: equal)", cli=False),
    OptionSpec("input_format", "auto", lambda v: True, "", flag="--format-in",
               choices=("auto", "trec", "csv", "tsv", "parquet", "jsonl"),
               help="format of input files: auto (by content, then extension), trec, csv, tsv, parquet or jsonl"),
    OptionSpec("executor", "auto", lambda v: True, "", choices=EXECUTORS,
               help="how a run is scored: auto (Spark for Spark DataFrames, else in memory), memory, "
                    "streamed (a file read in blocks of whole queries: bounded memory; the file must be "
                    "grouped by query), spark"),
    OptionSpec("threads", None, _positive_int_or_none, "a positive integer or None",
               help="parts scored at once (default: 2, or 1 on a one-core machine)", cli=False),
    OptionSpec("chunk_bytes", None, _positive_int_or_none, "a positive number of bytes or None",
               help="streamed executor: bytes of the file read at a time (default 8 MiB)", cli=False),
    OptionSpec("progress", None, lambda v: v is None or isinstance(v, bool), "True, False or None",
               help="show a progress bar on stderr (default: when stderr is a terminal)", cli=False),
    OptionSpec("partitions", None, _positive_int_or_none, "a positive integer or None",
               help="Spark: hash-partition both inputs by query into this many partitions", cli=False),
)}


#: What other tools call our options (pytrec_eval, trec_eval, ranx ...), for "did you mean".
_OTHER_NAMES = {"relevance": "rel", "relevance_level": "rel", "rel_level": "rel", "level": "rel",
                "judged_docs_only": "judged_only", "judged_docs_only_flag": "judged_only",
                "complete": "queries", "num_docs": "max_docs", "depth": "max_docs", "tie_breaking": "ties"}


@dataclass(frozen=True)
class Options:
    """A validated set of evaluation options (see :data:`OPTIONS` for each one's meaning)."""

    queries: str = "both"
    rel: int | float = 1
    judged_only: bool = False
    max_docs: int | None = None
    ties: str = "trec_eval"
    positive_scores_only: bool = False
    grades: str = "integer"
    truncate_grades: bool = False
    columns: Mapping[str, str] | None = None
    intents: Mapping | None = None
    input_format: str = "auto"
    executor: str = "auto"
    threads: int | None = None
    chunk_bytes: int | None = None
    progress: bool | None = None
    partitions: int | None = None

    @property
    def grade_policy(self) -> str:
        """How the qrels' grades are read: ``grades``, or "truncate" for ``truncate_grades=True``."""
        return grade_policy(self.grades, self.truncate_grades)

    def replace(self, **changes: Any) -> "Options":
        return validate_options(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def validate_options(options: Options | None = None, **given: Any) -> Options:
    """Check ``given`` options against :data:`OPTIONS` (on top of ``options``) and return them validated."""
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        import difflib
        hints = [[_OTHER_NAMES[u]] if u in _OTHER_NAMES else difflib.get_close_matches(u, list(OPTIONS), n=1)
                 for u in unknown]
        hint = "; did you mean " + ", ".join(h[0] for h in hints if h) + "?" if any(hints) else ""
        raise ParameterError(f"unknown option {', '.join(unknown)}{hint} (options: {', '.join(OPTIONS)})")
    base = options.as_dict() if options is not None else {}
    values = {name: OPTIONS[name].check(value) for name, value in given.items()}
    out = Options(**{**base, **values})
    out.grade_policy  # grades='real' with truncate_grades=True is refused here, once
    return out


def _columns_flag(text: str) -> dict[str, str]:
    pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
    if not pairs or any(len(p) != 2 or not p[0].strip() or not p[1].strip() for p in pairs):
        raise ParameterError(f"--columns {text!r}: expected role=name pairs, e.g. query=user,doc=item,score=pred")
    return {role.strip(): name.strip() for role, name in pairs}


def add_option_flags(parser, *, only: tuple[str, ...] | None = None) -> None:
    """Add the evaluation options as flags (``--queries``, ``--rel``, ``--judged-only`` ...) to an argparse parser."""
    for spec in OPTIONS.values():
        if not spec.cli or (only is not None and spec.name not in only):
            continue
        flag = spec.flag or "--" + spec.name.replace("_", "-")
        if isinstance(spec.default, bool):
            parser.add_argument(flag, dest=spec.name, action="store_true", help=spec.help)
        elif spec.choices:
            parser.add_argument(flag, dest=spec.name, choices=spec.choices, default=spec.default,
                                help=f"{spec.help} (default {spec.default})")
        elif spec.name == "columns":
            parser.add_argument(flag, dest=spec.name, default=None, metavar="ROLE=NAME,...", help=spec.help)
        else:
            parser.add_argument(flag, dest=spec.name, type=_number if spec.accepts is _is_grade else int,
                                default=spec.default, metavar="N",
                                help=spec.help + ("" if spec.default is None else f" (default {spec.default})"))


def options_from_args(args) -> dict[str, Any]:
    """The evaluation options an argparse namespace holds, as keyword arguments."""
    out = {}
    for spec in OPTIONS.values():
        if hasattr(args, spec.name):
            value = getattr(args, spec.name)
            out[spec.name] = _columns_flag(value) if spec.name == "columns" and value is not None else value
    return out
