"""The ``rankmeter`` command: a thin layer over the Python API.

Subcommands: ``eval`` (tables for people, JSON, CSV), ``trec_eval``
(trec_eval 10.0's exact output) and ``measures`` (the measure list).
Errors print on one line and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings

__all__ = ["main"]


def _eval(args: argparse.Namespace) -> int:
    from .api import evaluate
    from .io import read_qrels, read_run
    from .report.text import print_results

    qrels = read_qrels(args.qrels)
    all_results = []
    for path in args.runs:
        run = read_run(path)
        all_results.append(evaluate(qrels, run, args.measure, queries=args.queries, rel=args.rel,
                                    judged_only=args.judged_only))
    if args.format == "json":
        objs = [r.to_dict(per_query=args.per_query) for r in all_results]
        json.dump(objs[0] if len(objs) == 1 else objs, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_results(all_results, args.runs, fmt=args.format, per_query=args.per_query)
    return 0


def _explain(args: argparse.Namespace) -> int:
    from .explain import explain
    result = explain(args.qrels, args.run, args.measure, args.query, rel=args.rel,
                     judged_only=args.judged_only, ties=args.ties)
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


def _measures(args: argparse.Namespace) -> int:
    from .report.text import print_measures
    print_measures()
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rankmeter", description="Score ranked results against relevance judgments.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("eval", help="score runs with chosen measures")
    e.add_argument("qrels", help="TREC qrels file (- for stdin)")
    e.add_argument("runs", nargs="+", help="TREC run file(s)")
    e.add_argument("-m", "--measure", action="append", required=True,
                   help="measure, e.g. AP, nDCG@10, 'P(rel=2)@5' or a trec_eval name (repeatable)")
    e.add_argument("-q", "--per-query", action="store_true", help="also show per-query values")
    e.add_argument("--format", choices=("text", "json", "csv"), default="text")
    e.add_argument("--queries", choices=("both", "qrels"), default="both",
                   help="average over queries in both inputs (default) or every qrels query")
    e.add_argument("--rel", type=int, default=1, help="relevance threshold (default 1)")
    e.add_argument("--judged-only", action="store_true", help="drop unjudged docs before scoring")
    e.set_defaults(func=_eval)
    x = sub.add_parser("explain", help="show one measure's computation for one query, step by step")
    x.add_argument("qrels")
    x.add_argument("run")
    x.add_argument("--measure", "-m", required=True, help="one measure, e.g. 'nDCG(gain=exp)@5'")
    x.add_argument("--query", "-Q", required=True, help="the query id")
    x.add_argument("--rel", type=int, default=1)
    x.add_argument("--judged-only", action="store_true")
    x.add_argument("--ties", choices=("trec_eval", "input"), default="trec_eval")
    x.add_argument("--format", choices=("text", "json", "csv"), default="text")
    x.set_defaults(func=_explain)
    m = sub.add_parser("measures", help="list every measure with its parameters")
    m.set_defaults(func=_measures)
    sub.add_parser("trec_eval", help="trec_eval 10.0 compatible output (same options)", add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    from .errors import RankmeterError

    argv = list(sys.argv[1:] if argv is None else argv)
    warnings.simplefilter("default")
    warnings.showwarning = lambda msg, *a, **k: print(f"rankmeter: warning: {msg}", file=sys.stderr)
    try:
        if argv and argv[0] == "trec_eval":
            from .compat.trec_eval_cli import run
            return run(argv[1:])
        args = _parser().parse_args(argv)
        return args.func(args)
    except RankmeterError as exc:
        print(f"rankmeter: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("rankmeter: error: out of memory", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
