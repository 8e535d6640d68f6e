"""The ``rankmeter`` command: a thin layer over the Python API.

Subcommands: ``eval`` (tables for people, JSON, CSV), ``trec_eval``
(trec_eval 10.0's exact output), ``explain`` (one measure on one query, step
by step), ``compare`` (significance tests, paper tables), ``plot``,
``report`` (a self-contained HTML file) and ``measures`` (the measure list).
Errors print on one line and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from rankmeter.core.options import add_option_flags, options_from_args
from rankmeter.io.output import printable

__all__ = ["main"]


def _eval(args: argparse.Namespace) -> int:
    from rankmeter.core import Evaluator
    from rankmeter.executors.streamed import evaluate_streamed
    from rankmeter.report.text import print_results

    options = options_from_args(args)
    if args.chunked:
        options["executor"] = "streamed"
    measures = args.measure
    if args.profile:  # the dataset's official measures and relevance level (ir_datasets profiles)
        from rankmeter.io.irds import profile, relevance_level
        measures = (measures or []) + profile(args.qrels)
        if "--rel" not in sys.argv[1:]:
            options["rel"] = relevance_level(args.qrels)
    if not measures:
        from rankmeter.errors import ParameterError
        raise ParameterError("give at least one measure with -m (e.g. -m AP -m nDCG@10), or --profile for an "
                             "ir_datasets qrels")
    evaluator = Evaluator(args.qrels, measures, **options)
    all_results = [evaluate_streamed(evaluator, path) if evaluator.options.executor == "streamed"
                   else evaluator.evaluate(path) for path in args.runs]
    if args.format == "json":
        # one shape whatever the number of runs
        json.dump({"measures": all_results[0].names, "options": {k: v for k, v in options.items() if v is not None},
                   "runs": [r.to_dict(per_query=args.per_query) for r in all_results]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_results(all_results, args.runs, fmt=args.format, per_query=args.per_query, decimals=args.decimals)
    return 0


def _explain(args: argparse.Namespace) -> int:
    from rankmeter.core.explain import explain
    result = explain(args.qrels, args.run, args.measure, args.query, **options_from_args(args))
    if args.format == "csv":
        import csv
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(result.columns)
        w.writerows(result.rows)
    elif args.format == "json":
        json.dump({"measure": str(result.measure), "query": result.query, "value": result.value,
                   "columns": result.columns, "rows": result.rows, "ideal_columns": result.ideal_columns,
                   "ideal_rows": result.ideal_rows, "formula": result.formula}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(result)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from rankmeter.report.tables import write_comparison
    from rankmeter.analyses.stats import compare
    cmp = compare(args.qrels, args.runs, args.measure, baseline=args.baseline, test=args.test,
                  correction=args.correction, alpha=args.alpha, permutations=args.permutations, seed=args.seed,
                  **options_from_args(args))
    write_comparison(cmp, args.format)
    if args.all_pairs and args.format in ("text", "markdown"):
        from rankmeter.report.tables import all_pairs_text
        sys.stdout.write(f"\nEvery pair ({args.correction} correction over all pairs):\n" + all_pairs_text(cmp))
    if args.per_query and args.format in ("text", "markdown"):
        from rankmeter.report.tables import per_query_text
        sys.stdout.write("\nPer query:\n" + per_query_text(cmp))
    return 0


def _measures(args: argparse.Namespace) -> int:
    from rankmeter.report.text import print_measures
    print_measures(fmt=args.format)
    return 0


def _plot(args: argparse.Namespace) -> int:
    from rankmeter.errors import ParameterError
    from rankmeter.report import plots

    from rankmeter.io.output import check_output

    inputs = [args.qrels, *args.runs]
    check_output(args.output, inputs=inputs, suffixes=(".png", ".svg"))  # before any work is spent
    options = options_from_args(args)
    if args.kind == "pr":
        fig = plots.plot_pr(args.qrels, args.runs, **options)
    elif not args.measure:
        raise ParameterError(f"--kind {args.kind} needs a measure: -m MEASURE")
    elif args.kind == "diff":
        fig = plots.plot_diff(args.qrels, args.runs, args.measure, pair=args.pair, **options)
    else:
        fig = plots.plot_distribution(args.qrels, args.runs, args.measure, kind=args.style, **options)
    print(plots.save(fig, args.output, inputs=inputs), file=sys.stderr)
    return 0


def _interactions(path: str | None):
    from rankmeter.cli.beyond import read_interactions

    return read_interactions(path) if path else None


def _report(args: argparse.Namespace) -> int:
    from rankmeter.report.html import write_report

    path = write_report(args.qrels, args.runs, args.measure, args.output, baseline=args.baseline,
                        title=args.title, test=args.test, correction=args.correction, alpha=args.alpha,
                        max_ranks=args.max_ranks, max_explained=args.explain_queries or None,
                        train=_interactions(args.train), beyond_k=args.beyond_k,
                        **options_from_args(args))
    print(path, file=sys.stderr)
    return 0


#: the evaluation options of commands that read whole runs in memory (all but --executor)
_RUN_OPTIONS = ("queries", "rel", "judged_only", "max_docs", "ties", "positive_scores_only", "grades",
                "truncate_grades", "columns")


def _parser() -> argparse.ArgumentParser:
    from rankmeter._version import __version__

    p = argparse.ArgumentParser(prog="rankmeter", description="Score ranked results against relevance judgments.")
    p.add_argument("--version", action="version", version=f"rankmeter {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    e = sub.add_parser("eval", help="score runs with chosen measures")
    e.add_argument("qrels", help="TREC qrels file (- for stdin)")
    e.add_argument("runs", nargs="+", help="TREC run file(s)")
    e.add_argument("-m", "--measure", action="append",
                   help="measure, e.g. AP, nDCG@10, 'P(rel=2)@5' or a trec_eval name (repeatable)")
    e.add_argument("--profile", action="store_true",
                   help="add the official measures (and relevance level) of the ir_datasets qrels given, e.g. "
                        "msmarco-passage/trec-dl-2019/judged (needs rankmeter[irds])")
    e.add_argument("-q", "--per-query", action="store_true", help="also show per-query values")
    e.add_argument("--format", choices=("text", "json", "csv"), default="text",
                   help="text: a table fitted to the terminal; json: {measures, options, runs: [...]}; csv")
    e.add_argument("--decimals", type=int, default=4, metavar="N", help="digits after the point in text tables "
                   "(default 4)")
    add_option_flags(e)
    e.add_argument("--chunked", action="store_true", help="the same as --executor streamed")
    e.set_defaults(func=_eval)
    x = sub.add_parser("explain", help="show one measure's computation for one query, step by step")
    x.add_argument("qrels", help="the judgments: a qrels file (any input format), - for stdin")
    x.add_argument("run", help="the run: a run file (any input format), - for stdin")
    x.add_argument("--measure", "-m", required=True, help="one measure, e.g. 'nDCG(gain=exp)@5'")
    x.add_argument("--query", "-Q", required=True, help="the query id")
    x.add_argument("--format", choices=("text", "json", "csv"), default="text",
                   help="text: the table and the formula; json; csv: the per-rank table (default text)")
    add_option_flags(x, only=_RUN_OPTIONS)
    x.set_defaults(func=_explain)
    c = sub.add_parser("compare", help="compare runs with significance tests (tables for papers)")
    c.add_argument("qrels", help="TREC qrels file")
    c.add_argument("runs", nargs="+", help="two or more TREC run files (named by run tag, else file name)")
    c.add_argument("-m", "--measure", action="append", required=True, help="measure (repeatable)")
    c.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey"), default="t",
                   help="paired two-sided test (default t)")
    c.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                   help="multiple-comparison correction per measure (default none)")
    c.add_argument("--baseline", action="append", help="run the others are compared with (repeatable: several "
                   "baselines, corrected together; default the first run)")
    c.add_argument("--all-pairs", action="store_true", help="also print every pair of runs, corrected over all pairs")
    c.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    c.add_argument("--permutations", type=int, default=10000,
                   help="permutations / resamples of the random tests (default 10000)")
    c.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    add_option_flags(c, only=_RUN_OPTIONS)
    c.add_argument("--format", choices=("text", "markdown", "latex", "csv", "json"), default="text",
                   help="table format (default text)")
    c.add_argument("-q", "--per-query", action="store_true", help="also print every query's values (text)")
    c.set_defaults(func=_compare)
    m = sub.add_parser("measures", help="list every measure with its parameters")
    m.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    m.set_defaults(func=_measures)
    pl = sub.add_parser("plot", help="plot runs: per-query differences, precision-recall, distributions")
    pl.add_argument("qrels", help="the judgments: a qrels file (any input format)")
    pl.add_argument("runs", nargs="+", help="TREC run file(s), named by run tag")
    pl.add_argument("--kind", choices=("diff", "pr", "dist"), required=True,
                    help="diff: sorted per-query differences of two runs; pr: interpolated precision-recall; "
                         "dist: per-query values per run")
    pl.add_argument("-m", "--measure", help="the measure (diff and dist), e.g. nDCG@10")
    pl.add_argument("-o", "--output", required=True, help="output file, .png or .svg")
    pl.add_argument("--pair", nargs=2, metavar=("BASELINE", "SYSTEM"), help="diff: the two runs (SYSTEM - BASELINE)")
    pl.add_argument("--style", choices=("box", "violin", "strip"), default="box", help="dist: how to draw")
    add_option_flags(pl, only=_RUN_OPTIONS)
    pl.set_defaults(func=_plot)
    rp = sub.add_parser("report", help="write one self-contained HTML report comparing runs")
    rp.add_argument("qrels", help="the judgments: a qrels file (any input format)")
    rp.add_argument("runs", nargs="+", help="TREC run file(s), named by run tag")
    rp.add_argument("-m", "--measure", action="append", required=True, help="measure (repeatable)")
    rp.add_argument("-o", "--output", required=True, help="the .html file to write")
    rp.add_argument("--baseline", help="run tag of the baseline (default: the first run)")
    rp.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey"), default="t",
                    help="significance test (default t)")
    rp.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                    help="multiple-comparison correction (default none)")
    rp.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    rp.add_argument("--title", help="the page title (default: the run names)")
    rp.add_argument("--max-ranks", type=int, default=20, help="ranks shown per explanation (default 20)")
    rp.add_argument("--explain-queries", type=int, default=100,
                    help="explain the first N queries (default 100; 0 for all)")
    rp.add_argument("--train", help="training interactions (a CSV/TSV/Parquet/JSON Lines table with user and item "
                                    "columns): adds beyond-accuracy measures of each run's lists")
    rp.add_argument("--beyond-k", type=int, help="cut each list at its first K items for those measures")
    add_option_flags(rp, only=_RUN_OPTIONS)
    rp.set_defaults(func=_report)
    from rankmeter.cli.beyond import add_parser as add_beyond
    from rankmeter.cli.check import add_parser as add_check
    from rankmeter.cli.fuse import add_parser as add_fuse
    from rankmeter.cli.fuse import add_pool_parsers
    from rankmeter.analyses.judged import add_parser as add_judged
    from rankmeter.cli.meta import add_parser as add_meta
    from rankmeter.cli.run import add_parser as add_run
    from rankmeter.cli.ties import add_parser as add_ties
    add_check(sub)
    add_judged(sub)
    add_ties(sub)
    add_fuse(sub)
    add_pool_parsers(sub)
    add_run(sub)
    add_beyond(sub)
    add_meta(sub)
    sub.add_parser("trec_eval", help="trec_eval 10.0 compatible output (same options)", add_help=False)
    for name, command in sub.choices.items():
        if name != "meta":  # meta's own kinds name their parser
            command.set_defaults(subparser=command)
    return p


_WITHOUT_PANDAS = {"trec_eval", "eval", "explain", "measures", "check", "ties", "judged", "fuse", "pool", "run"}


class _NoPandas:
    """An import finder under which ``import pandas`` fails, as if pandas were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _cli_words(message: str) -> str:
    """A warning written for Python (``queries='qrels'``) in the CLI's words (``--queries qrels``)."""
    import re

    from rankmeter.core.options import OPTIONS

    def flag(match):
        name, value = match.group(1), match.group(2)
        if name not in OPTIONS:
            return match.group(0)
        return "--" + name.replace("_", "-") + ("" if value == "True" else f" {value}")
    return re.sub(r"\b([a-z_]+)='?([\w.-]+)'?", flag, message)


def main(argv: list[str] | None = None) -> int:
    from rankmeter.errors import RankmeterError

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _WITHOUT_PANDAS and "pandas" not in sys.modules:
        # pyarrow imports pandas (0.3-0.5 s) on its first numpy conversion only to check whether an
        # object is a pandas one; these commands never use pandas, so tell pyarrow it is absent.
        sys.meta_path.insert(0, _NoPandas())
    warnings.simplefilter("default")
    warnings.showwarning = lambda msg, *a, **k: print(f"rankmeter: warning: {printable(_cli_words(str(msg)))}",
                                                      file=sys.stderr)
    try:
        if argv and argv[0] == "trec_eval":
            from rankmeter.cli.trec_eval import run
            return run(argv[1:])
        parser = _parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # an unknown flag: the subcommand's own usage, not the top-level one
            getattr(args, "subparser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
        code = args.func(args)
        sys.stdout.flush()
        return code
    except RankmeterError as exc:
        print(f"rankmeter: error: {printable(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except ImportError as exc:  # an optional dependency missing where no friendlier message was given
        print(f"rankmeter: error: {printable(exc)}; install the extra that provides it, e.g. "
              "pip install 'rankmeter[all]'", file=sys.stderr)
        return 2
    except OSError as exc:  # writing standard output failed: a full disk, a closed terminal
        print(f"rankmeter: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        return 2
    except MemoryError:
        print("rankmeter: error: out of memory", file=sys.stderr)
        return 2


def entry() -> None:
    """Console entry point: run, flush, and leave without interpreter teardown.

    Ctrl-C at any moment (even while modules load) ends with one line and
    status 130; outputs are written through temporary files, so none is left
    half-written. pyarrow's thread pool can abort at interpreter shutdown
    ("terminate called without an active exception") after all output was
    written; exiting at once after flushing keeps the exit status and stderr clean.
    """
    import signal

    code = 130
    signal.signal(signal.SIGINT, _on_interrupt)
    try:
        code = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        _interrupted()
    except BrokenPipeError:
        code = 0
    except OSError as exc:
        print(f"rankmeter: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
        code = 2
    except BaseException as exc:  # noqa: BLE001 - an interrupt inside C code can surface as another error
        if _INTERRUPTED:
            _interrupted()
        if os.environ.get("RANKMETER_DEBUG") or not isinstance(exc, Exception):
            raise
        # a bug of rankmeter's own: one line, as for every failure (RANKMETER_DEBUG=1 shows the traceback)
        print(f"rankmeter: internal error: {type(exc).__name__}: {exc} (please report it; run with "
              "RANKMETER_DEBUG=1 for the traceback)", file=sys.stderr)
        code = 2
    os._exit(code)


_INTERRUPTED = False


def _on_interrupt(signum, frame) -> None:
    global _INTERRUPTED
    _INTERRUPTED = True
    raise KeyboardInterrupt


def _interrupted() -> None:
    try:
        sys.stderr.write("rankmeter: interrupted\n")
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(130)


if __name__ == "__main__":
    entry()
