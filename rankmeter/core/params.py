"""Every knob of every command, declared once: :data:`PARAMS`.

Each parameter has a name (the Python keyword; the flag is ``--`` + the name with dashes), a group, a
type, the valid range or choices, a default and a help text. The command line builds every flag from
this table (:mod:`rankmeter.cli.flags`), and the Python functions validate their keywords with it
(:func:`check`), so a name means the same wherever it appears and every bad value gets one message
shape, with what is valid::

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

from rankmeter.engine.param import Param, is_bool
from rankmeter.errors import ParameterError

__all__ = ["Param", "PARAMS", "GROUPS", "check", "validate", "is_bool"]

#: The groups the help output and the docs list parameters under, in order.
GROUPS = {
    "inputs": "inputs", "evaluation": "evaluation options", "tests": "significance tests and corrections",
    "fusion": "fusion", "pooling": "pooling", "meta": "meta-evaluation", "beyond": "beyond-accuracy",
    "check": "run checks", "runs": "run utilities", "report": "report and plots", "output": "output",
    "judges": "LLM-made judgments and nuggets",
    "executor": "executor",
}


def _p(name, kind, default=None, help="", group="output", **more) -> Param:
    return Param(name, kind, default, help, group, **more)


_TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey")
_CORRECTIONS = ("none", "bonferroni", "holm", "bh")
_SEED_MAX = 2 ** 32 - 1

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
    _p("grades", "choice", "integer", group="evaluation", choices=("integer", "truncate", "real"),
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
    _p("input_format", "choice", "auto", group="evaluation", flag="--format-in",
       choices=__import__("rankmeter.io.formats", fromlist=["FORMAT_NAMES"]).FORMAT_NAMES,
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
    _p("seed", "integer", 0, group="tests", low=0, high=_SEED_MAX, optional=True,
       help="random seed (Python: None draws a fresh one)"),
    _p("baseline", "strings", None, group="tests", metavar="RUN",
       help="the run the others are compared with, by name (repeatable: several baselines, corrected "
            "together; default the first run)"),
    _p("all_pairs", "bool", False, group="tests", help="also compare every pair of runs, corrected over all pairs"),
    # output
    _p("format", "choice", "text", choices=("text", "json", "csv", "markdown", "latex"), help="output format"),
    _p("decimals", "integer", 4, low=0, high=17, metavar="N", help="digits after the point in text tables"),
    _p("output", "path", None, short="-o", help="the file to write (never one of the inputs)"),
    _p("per_query", "bool", False, short="-q", help="also show per-query values"),
    # report and plots
    _p("title", "string", None, group="report", help="the page title (default: the run names)"),
    _p("max_ranks", "integer", 20, group="report", low=1, metavar="N", help="ranks shown per explanation"),
    _p("explain_queries", "integer", 100, group="report", low=0, metavar="N",
       help="explain the first N queries (0: all)"),
    _p("train", "path", None, group="beyond",
       help="training interactions (a CSV/TSV/Parquet/JSON Lines table with user and item columns)"),
    _p("beyond_k", "integer", None, group="beyond", low=1, optional=True, metavar="K",
       help="cut each list at its first K items for the beyond-accuracy measures"),
    _p("kind", "choice", None, group="report", choices=("diff", "pr", "dist"),
       help="diff: sorted per-query differences of two runs; pr: interpolated precision-recall; dist: per-query "
            "values per run"),
    _p("pair", "strings", None, group="report", metavar="RUN", help="diff: the two runs (SYSTEM - BASELINE)"),
    _p("style", "choice", "box", group="report", choices=("box", "violin", "strip"), help="dist: how to draw"),
    # run checks and run utilities
    _p("dedupe", "choice", None, group="check", choices=("first", "max"),
       help="write the run without duplicate docs, keeping the first line or the highest score"),
    _p("all_queries", "bool", False, group="check",
       help="list every query, not only those whose value depends on the tie order"),
    _p("cutoff", "integer", None, group="check", low=1, short="-k", metavar="K",
       help="a rank cut-off (repeatable)"),
    _p("tag", "string", None, group="runs", help="the run tag to write"),
    _p("keep", "string", None, group="runs", help="filter: comma-separated query ids to keep"),
    _p("drop", "string", None, group="runs", help="filter: comma-separated query ids to drop"),
    _p("sample_size", "integer", 50, group="runs", low=1, flag="-n", metavar="N",
       help="sample: number of queries"),
    _p("to", "choice", None, group="runs", choices=("trec", "parquet", "jsonl"),
       help="output format (default: by the output's suffix, else TREC)"),
    _p("k", "integer", None, group="runs", low=1, optional=True, short="-k", metavar="K",
       help="cut each ranking (or recommendation list) at its first K docs"),
    # beyond-accuracy
    _p("head", "number", 0.2, group="beyond", low=0, high=1, low_open=True, high_open=True,
       help="share of the most popular items that is not long tail"),
    _p("tail_ratio", "number", None, group="beyond", low=0, low_open=True, optional=True,
       help="RecBole's long tail instead: the least popular share (<= 1) or a count of interactions"),
    _p("entropy", "choice", "recommenders", group="beyond", choices=("recommenders", "recbole"),
       help="distributional coverage: Shannon entropy in bits, or RecBole's normalised ln form"),
    _p("catalog", "integer", None, group="beyond", low=1, optional=True,
       help="number of items in the catalogue (RecBole's num_items)"),
    _p("user", "string", "user", group="beyond", help="user column"),
    _p("item", "string", "item", group="beyond", help="item column"),
    _p("score_column", "string", None, group="beyond", flag="--score",
       help="score column ordering each list (default: row order)"),
    # fusion (each method's own parameters, --param NAME=VALUE, are declared in
    # rankmeter.analyses.fusion.catalog with the same fields; the method and norm names come from it too)
    _p("method", "choice", "rrf", group="fusion", help="fusion method, as ranx names it"),
    _p("norm", "choice", "min-max", group="fusion",
       help="per-query normalisation of each run's scores before fusing (none: raw scores)"),
    _p("param", "strings", None, group="fusion", metavar="NAME=VALUE",
       help="a parameter of the method, e.g. k=60 (repeatable)"),
    _p("weights", "numbers", None, group="fusion", low=0,
       help="one weight per run (wsum, wmnz, mixed, w_bordafuse, w_condorcet)"),
    _p("optimise", "string", None, group="fusion", metavar="MEASURE",
       help="choose the method's parameters (weights, k, phi ...) by this measure on --qrels, by grid search"),
    _p("test_qrels", "path", None, group="fusion",
       help="--optimise: held-out judgments to report the chosen parameters on"),
    # judges and nuggets (LLM-made judgments)
    _p("bins", "string", None, group="judges", metavar="EDGES",
       help="real grades: comma-separated edges making categories (a grade's category is how many edges it "
            "reaches), e.g. 0.5,1.5,2.5"),
    _p("no_per_query", "bool", False, group="judges", help="leave out the per-query figures"),
    _p("provenance", "path", None, group="judges", metavar="FILE",
       help="also write query, doc, grade, source (human or llm) per pair"),
    _p("probabilities", "path", None, group="judges", metavar="FILE",
       help="the LLM's probability per grade (JSON Lines): expected scores and a resampled interval"),
    _p("samples", "integer", 200, group="judges", low=1, high=1_000_000, help="label draws for the interval"),
    _p("partial", "number", 0.5, group="judges", low=0, high=1, help="worth of partial_support in vital and all"),
    _p("importance_weights", "string", None, group="judges", flag="--importance-weights",
       metavar="IMPORTANCE=W,...", help="add weighted nugget scores, e.g. vital=1,okay=0.5"),
    _p("nuggets", "paths", None, group="judges", metavar="FILE",
       help="nuggetizer assignment files, one per RAG system (repeatable): their per-query nugget scores "
            "instead of QRELS and RUN..."),
    _p("report_file", "path", None, group="report", flag="--report", metavar="FILE",
       help="also write the HTML report of the comparison to FILE (never one of the inputs)"),
    _p("board_a", "paths", None, group="meta", positional=False, metavar="FILE",
       help="a precomputed leaderboard of side A (trec_eval output, 'run measure query value' lines or a "
            "run,measure,value table; repeatable)"),
    _p("board_b", "paths", None, group="meta", positional=False, metavar="FILE", help="the same for side B"),
    _p("top_k", "integer", None, group="meta", low=1, metavar="K",
       help="top-k overlap (repeatable; default 1 3 5 10)"),
    _p("moves", "integer", 5, group="meta", low=1, metavar="N", help="runs listed as moving most"),
    _p("svg", "path", None, group="report", metavar="FILE",
       help="also write the two leaderboards of the first measure side by side (a slope chart) to FILE"),
    # pooling
    _p("depth", "integer", None, group="pooling", low=1, optional=True,
       help="depth@k: every doc some run ranks in its top k"),
    _p("take", "integer", None, group="pooling", low=1, optional=True,
       help="take@N: the N docs of best priority per query"),
    _p("priority", "choice", "rrf", group="pooling", choices=("rrf", "sum", "rbp"), help="take@N priority"),
    # meta-evaluation
    _p("other_qrels", "path", None, group="meta", help="a second qrels version: correlate one measure under both"),
    _p("p", "number", 0.9, group="meta", low=0, high=1, low_open=True,
       help="persistence (RBO, RBP): in (0, 1]; 1 is average overlap"),
    _p("size", "integer", None, group="meta", low=1, metavar="N", help="topic-set size (repeatable)"),
    _p("trials", "integer", 1000, group="meta", low=1, high=10_000_000, help="draws per size"),
    _p("bin_width", "number", 0.01, group="meta", low=0, high=1, low_open=True,
       help="width of the difference bins"),
    _p("min_diff", "number", None, group="meta", low=0, low_open=True, optional=True,
       help="the smallest difference to detect"),
    _p("topics", "integer", None, group="meta", low=2, high=1_000_000_000, optional=True,
       help="a topic count: its smallest detectable difference (and power)"),
    _p("variance", "number", None, group="meta", low=0, low_open=True, optional=True,
       help="variance of the measure (else estimated from --qrels and --run)"),
    _p("beta", "number", 0.2, group="meta", low=0, high=1, low_open=True, high_open=True,
       help="type II error (0.2: power 0.8)"),
    _p("systems", "integer", 2, group="meta", low=2, high=1_000_000_000, help="systems compared by the ANOVA"),
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
