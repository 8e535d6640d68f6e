"""The evaluation options, each declared once: :class:`EvaluationOptions`.

``evaluate``, ``compare``, ``explain``, the report, ``recsys``, Spark and the command line all take these
options with the same names and meaning. Each is one key of the TypedDict :class:`EvaluationOptions`:

    ``max_docs: Annotated[int | None, option(None, "score only the first N docs ...", low=0)]``

its name, its Python type (what type checkers read: an entry point takes ``**options:
Unpack[EvaluationOptions]``, PEP 692), and in ``Annotated`` its default, help text and bounds. Everything
else is made from it:

* :data:`OPTIONS`, each option's :class:`~rankmeter.engine.param.Param` (the check, the help, the docs);
* :class:`Options`, the validated set that travels below the public face (a frozen dataclass whose fields,
  defaults and order are the declarations');
* every entry point's signature and numpydoc (:func:`rankmeter.core.keywords.takes_options`);
* the command-line flags (:mod:`rankmeter.cli.flags`, which adds what only the command line needs).

Adding an option is its key here and the code that uses it. :func:`validate_options` checks a set of them
in one pass, and every bad value gets the same message shape:

>>> validate_options(rel=2, judged_only=True).rel
2
>>> validate_options(queries="all")
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: queries='all': expected one of 'both', 'qrels'
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypedDict

from rankmeter.engine.param import Param
from rankmeter.engine.typed_options import declarations, option
from rankmeter.errors import ParameterError
from rankmeter.io.canonical import GRADE_POLICIES, grade_policy

__all__ = ["EvaluationOptions", "Options", "OPTIONS", "validate_options", "options_class", "QUERY_POLICIES",
           "TIE_POLICIES", "EXECUTORS", "GRADE_POLICIES", "grade_policy"]


class EvaluationOptions(TypedDict, total=False):
    """The evaluation options: each key's Python type, and in ``Annotated`` its default, help and bounds."""

    queries: Annotated[Literal["both", "qrels"], option(
        "both", "which queries are averaged: those in both inputs (judged queries the run lacks are named in a "
        "warning), or every qrels query, a missing one scoring as an empty ranking (like trec_eval -c, which "
        "ranks one unjudged doc there instead: the same values, but num_ret counts it)")]
    rel: Annotated[float, option(
        1, "relevance threshold for measures that do not set their own rel= (trec_eval -l); grades >= rel are "
        "relevant (a fraction such as 0.5 for real grades)", kind="grade", low=-2 ** 53, high=2 ** 53)]
    judged_only: Annotated[bool, option(
        False, "drop unjudged docs from rankings before scoring, closing the gaps (trec_eval -J)")]
    max_docs: Annotated[int | None, option(
        None, "score only the first N docs of each ranking (trec_eval -M)", low=0)]
    ties: Annotated[Literal["trec_eval", "input", "average", "best", "worst"], option(
        "trec_eval", "docs with equal scores: docno descending (trec_eval), as given (input), the expected value "
        "over all their orders (average), relevant first (best) or last (worst)")]
    positive_scores_only: Annotated[bool, option(
        False, "rank only docs with a score above 0: zero and negative predictions are no prediction "
        "(TorchMetrics' retrieval convention); default: every listed doc is ranked")]
    ignore_self: Annotated[bool, option(
        False, "drop every doc whose id equals the query id before scoring (BEIR's ignore_identical_ids: a "
        "corpus that holds the queries); a query left empty scores as an empty ranking")]
    grades: Annotated[Literal["integer", "truncate", "real"], option(
        "integer", "how qrels grades are read: integers only, truncated toward zero as trec_eval does, or real "
        "numbers such as 0.73 (LLM and crowd judgments: gain measures use them as they are, binary ones count "
        "grades >= rel)")]
    truncate_grades: Annotated[bool, option(
        False, "read a non-integer grade such as 1.7 as 1, as trec_eval does (the same as --grades truncate)")]
    columns: Annotated[Mapping[str, str] | Mapping[str, int] | None, option(
        None, "which columns hold what: role=name pairs for tables and files with a header line (e.g. "
        "query=user,doc=item,score=prediction), role=position counted from 0 for files without one (MS MARCO's "
        "qid pid rank: query=0,doc=1,rank=2); roles: query, doc, rel, subtopic (qrels), score, rank (runs: rank "
        "1 first)", kind="mapping")]
    intents: Annotated[Mapping[str, Mapping[str, float]] | None, option(
        None, "diversity measures: the probability of each subtopic of a query (default: equal)", kind="intents")]
    input_format: Annotated[Literal["auto", "trec", "csv", "tsv", "parquet", "jsonl"], option(
        "auto", "format of input files: auto (by content, then extension), trec, csv, tsv, parquet or jsonl")]
    executor: Annotated[Literal["auto", "memory", "streamed", "spark"], option(
        "auto", "how a run is scored: auto (Spark for Spark DataFrames, a plain TREC run file of 1 GiB or more "
        "streamed, else in memory), memory, streamed (a file read in blocks of whole queries: bounded memory; "
        "the file must be grouped by query), spark; every executor gives the same values")]
    threads: Annotated[int | None, option(
        None, "parts scored at once (default: 2, or 1 on a one-core machine)", low=1)]
    chunk_bytes: Annotated[int | None, option(
        None, "streamed executor: bytes of the file read at a time (default 8 MiB)", low=1)]
    progress: Annotated[bool | None, option(
        None, "show a progress bar on stderr (default: when stderr is a terminal)")]
    partitions: Annotated[int | None, option(
        None, "Spark: hash-partition both inputs by query into this many partitions", low=1)]


#: Each evaluation option's :class:`~rankmeter.engine.param.Param`, made from :class:`EvaluationOptions`.
OPTIONS: dict[str, Param] = declarations(EvaluationOptions)

QUERY_POLICIES = OPTIONS["queries"].choices
TIE_POLICIES = OPTIONS["ties"].choices
EXECUTORS = OPTIONS["executor"].choices

#: What other tools call our options (pytrec_eval, trec_eval, ranx ...), for "did you mean".
OTHER_NAMES = {"relevance": "rel", "relevance_level": "rel", "rel_level": "rel", "level": "rel",
                "judged_docs_only": "judged_only", "judged_docs_only_flag": "judged_only",
                "complete": "queries", "num_docs": "max_docs", "depth": "max_docs", "tie_breaking": "ties",
                "ignore_identical_ids": "ignore_self"}


def options_class(typed: type, declared: Mapping[str, Param]) -> Callable[[type], type]:
    """Class decorator: the class as a frozen dataclass with one field per declared key of ``typed``, in its
    order, typed and defaulted as declared (the class body adds methods only)."""
    hints = typing.get_type_hints(typed)

    def make(cls: type) -> type:
        cls.__annotations__ = {name: hints[name] for name in declared}
        for name, param in declared.items():
            setattr(cls, name, param.default)
        return dataclasses.dataclass(frozen=True)(cls)
    return make


@options_class(EvaluationOptions, OPTIONS)
class Options:
    """A validated set of evaluation options, one field per key of :class:`EvaluationOptions`."""

    if TYPE_CHECKING:  # the fields are made from the declarations
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __init__(self, **options: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

    @property
    def grade_policy(self) -> str:
        """How the qrels' grades are read: ``grades``, or "truncate" for ``truncate_grades=True``."""
        return grade_policy(self.grades, self.truncate_grades)

    def replace(self, **changes: Any) -> "Options":
        """These options with ``changes`` (validated)."""
        return validate_options(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """Every option, by name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def validate_options(options: Options | None = None, **given: Any) -> Options:
    """Check ``given`` options against :data:`OPTIONS` (on top of ``options``) and return them validated."""
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        import difflib
        hints = [[OTHER_NAMES[u]] if u in OTHER_NAMES else difflib.get_close_matches(u, list(OPTIONS), n=1)
                 for u in unknown]
        hint = "; did you mean " + ", ".join(h[0] for h in hints if h) + "?" if any(hints) else ""
        raise ParameterError(f"unknown option {', '.join(unknown)}{hint} (options: {', '.join(OPTIONS)})")
    values = {name: OPTIONS[name].check(value) for name, value in given.items()}
    out = dataclasses.replace(options, **values) if options is not None else Options(**values)
    out.grade_policy  # grades='real' with truncate_grades=True is refused here, once
    return out
