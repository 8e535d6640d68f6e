"""The parameters many commands and functions share, declared once: :data:`PARAMS`.

The inputs, the evaluation options (:mod:`rankmeter.core.options`), the significance tests and the output
options are used across commands; a parameter of one command or one analysis is declared beside its code
(``rankmeter.meta.params``, ``rankmeter.fusion.catalog``, ``rankmeter.cli.plot`` ...) with
the same :class:`~rankmeter.engine.param.Param`. Each parameter has a name (the Python keyword; the flag
is ``--`` + the name with dashes), a group, a type, the valid range or choices, a default and a help text.
The command line builds every flag from the declarations (:mod:`rankmeter.cli.flags`), and the Python
functions validate their keywords with them (:func:`~rankmeter.engine.param.validate_params`,
:func:`check`), so a name means the same wherever it appears and every bad value gets one message shape,
with what is valid::

    alpha=5: expected a number in (0, 1)

On the command line the same message names the flag: ``--alpha 5: expected a number in (0, 1)``.

>>> check("alpha", 0.01)
0.01
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

from rankmeter.engine.param import SEED, Param, is_bool
from rankmeter.errors import ParameterError
from rankmeter.io.canonical import GRADE_POLICIES
from rankmeter.io.formats import FORMAT_NAMES

__all__ = ["Param", "PARAMS", "GROUPS", "check", "validate", "is_bool"]

#: The groups the help output and the docs list parameters under, in order.
GROUPS = {
    "inputs": "inputs", "evaluation": "evaluation options", "tests": "significance tests and corrections",
    "fusion": "fusion", "pooling": "pooling", "meta": "meta-evaluation", "beyond": "beyond-accuracy",
    "check": "run checks", "runs": "run utilities", "report": "report and plots", "output": "output",
    "judges": "LLM-made judgments and nuggets", "gate": "regression gate",
    "executor": "executor", "measure": "measure parameters",
}


def _p(name, kind, default=None, help="", group="output", **more) -> Param:
    return Param(name, kind, default, help, group, **more)


_TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey")
_CORRECTIONS = ("none", "bonferroni", "holm", "bh")

PARAMS: dict[str, Param] = {p.name: p for p in (
    # inputs
    _p("qrels", "path", help="the judgments: a qrels file in any input format (- for standard input)",
       group="inputs", positional=True, required=True),
    _p("runs", "paths", help="run files in any input format", group="inputs", positional=True, required=True),
    _p("run", "path", help="a run file in any input format (- for standard input)", group="inputs",
       positional=True, required=True),
    _p("measure", "strings", help="a measure, e.g. AP, nDCG@10, 'P(rel=2)@5' or a trec_eval name (repeatable)",
       group="inputs", short="-m", metavar="MEASURE"),
    _p("query", "string", help="the query id", group="inputs", short="-Q"),
    # evaluation options (rankmeter.core.options.Options)
    _p("queries", "choice", "both", group="evaluation", choices=("both", "qrels"),
       help="which queries are averaged: those in both inputs (judged queries the run lacks are named in a "
            "warning), or every qrels query, a missing one scoring as an empty ranking (like trec_eval -c, "
            "which ranks one unjudged doc there instead: the same values, but num_ret counts it)"),
    _p("rel", "grade", 1, group="evaluation", low=-2 ** 53, high=2 ** 53,
       help="relevance threshold for measures that do not set their own rel= (trec_eval -l); grades >= rel "
            "are relevant"),
    _p("judged_only", "bool", False, group="evaluation",
       help="drop unjudged docs from rankings before scoring, closing the gaps (trec_eval -J)"),
    _p("max_docs", "integer", None, group="evaluation", low=0, optional=True, metavar="N",
       help="score only the first N docs of each ranking (trec_eval -M)"),
    _p("ties", "choice", "trec_eval", group="evaluation", choices=("trec_eval", "input", "average", "best", "worst"),
       help="docs with equal scores: docno descending (trec_eval), as given (input), the expected value over "
            "all their orders (average), relevant first (best) or last (worst)"),
    _p("positive_scores_only", "bool", False, group="evaluation",
       help="rank only docs with a score above 0: zero and negative predictions are no prediction "
            "(TorchMetrics' retrieval convention); default: every listed doc is ranked"),
    _p("ignore_self", "bool", False, group="evaluation",
       help="drop every doc whose id equals the query id before scoring (BEIR's ignore_identical_ids: a corpus "
            "that holds the queries); a query left empty scores as an empty ranking"),
    _p("grades", "choice", "integer", group="evaluation", choices=GRADE_POLICIES,
       help="how qrels grades are read: integers only, truncated toward zero as trec_eval does, or real "
            "numbers such as 0.73 (LLM and crowd judgments)"),
    _p("truncate_grades", "bool", False, group="evaluation",
       help="read a non-integer grade such as 1.7 as 1, as trec_eval does (the same as --grades truncate)"),
    _p("columns", "mapping", None, group="evaluation", optional=True, metavar="ROLE=NAME,...",
       help="which columns hold what: role=name pairs for tables and files with a header line (e.g. "
            "query=user,doc=item,score=prediction), role=position counted from 0 for files without one (MS "
            "MARCO's qid pid rank: query=0,doc=1,rank=2); roles: query, doc, rel, subtopic (qrels), score, "
            "rank (runs: rank 1 first)"),
    _p("intents", "intents", None, group="evaluation", optional=True, cli=False,
       help="diversity measures: the probability of each subtopic of a query (default: equal)"),
    _p("input_format", "choice", "auto", group="evaluation", deprecated=("--format-in",),
       choices=FORMAT_NAMES,
       help="format of input files: auto (by content, then extension), trec, csv, tsv, parquet or jsonl"),
    _p("executor", "choice", "auto", group="executor", choices=("auto", "memory", "streamed", "spark"),
       help="how a run is scored: auto (Spark for Spark DataFrames, else in memory), memory, streamed (a file "
            "read in blocks of whole queries: bounded memory; the file must be grouped by query), spark"),
    _p("threads", "integer", None, group="executor", low=1, optional=True, cli=False,
       help="parts scored at once (default: 2, or 1 on a one-core machine)"),
    _p("chunk_bytes", "integer", None, group="executor", low=1, optional=True, cli=False,
       help="streamed executor: bytes of the file read at a time (default 8 MiB)"),
    _p("progress", "bool", None, group="executor", optional=True, cli=False,
       help="show a progress bar on stderr (default: when stderr is a terminal)"),
    _p("partitions", "integer", None, group="executor", low=1, optional=True, cli=False,
       help="Spark: hash-partition both inputs by query into this many partitions"),
    # significance tests and corrections
    _p("test", "choice", "t", group="tests", choices=_TESTS,
       help="paired two-sided test: t, wilcoxon, randomization, bootstrap or tukey (randomised HSD)"),
    _p("correction", "choice", "none", group="tests", choices=_CORRECTIONS,
       help="multiple-comparison correction per measure: none, bonferroni, holm or bh (Benjamini-Hochberg)"),
    _p("alpha", "number", 0.05, group="tests", low=0, high=1, low_open=True, high_open=True,
       help="significance level"),
    _p("permutations", "integer", 10000, group="tests", low=1, high=10_000_000,
       help="permutations / resamples of the random tests"),
    SEED,
    _p("baseline", "strings", None, group="tests", metavar="RUN",
       help="the run the others are compared with, by name (repeatable: several baselines, corrected "
            "together; default the first run)"),
    # output
    # text or JSON; a command writing tables too (csv, markdown, latex) says so with its own choices
    _p("format", "choice", "text", choices=("text", "json"), help="output format"),
    _p("decimals", "integer", 4, low=0, high=17, metavar="N", help="digits after the point in text tables"),
    _p("output", "path", None, short="-o", help="the file to write (never one of the inputs)"),
    _p("per_query", "bool", False, short="-q", help="also show per-query values"),
    # shared by commands of several kinds (each command's own parameters are declared beside its code: the
    # analysis module or the command module, and rankmeter.cli.flags makes the flags of both)
    _p("k", "integer", None, group="runs", low=1, optional=True, short="-k", metavar="K",
       help="cut each ranking (or recommendation list) at its first K docs"),
    _p("tag", "string", None, group="runs", help="the run tag to write"),
    _p("other_qrels", "path", None, group="meta", help="a second qrels version: correlate one measure under both"),
)}


def check(name: str, value: Any) -> Any:
    """``value`` of parameter ``name`` validated (see :data:`PARAMS`)."""
    return PARAMS[name].check(value)


def validate(**given: Any) -> dict[str, Any]:
    """Every keyword validated against :data:`PARAMS`; the values normalised.

    >>> validate(alpha=0.1, test="wilcoxon", seed=7)
    {'alpha': 0.1, 'test': 'wilcoxon', 'seed': 7}
    """
    unknown = sorted(set(given) - set(PARAMS))
    if unknown:
        raise ParameterError(f"unknown parameter {', '.join(unknown)}")
    return {name: PARAMS[name].check(value) for name, value in given.items()}
