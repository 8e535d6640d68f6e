"""``rankmeter nuggets FILE... [--baseline A --test t]``: RAG nugget scores from nuggetizer's assignment output.

One file: per query and mean ``strict_vital``, ``strict_all``, ``vital``, ``all``. Several files (one per
RAG system): each one's means, then the comparison with the baseline, as ``rankmeter compare`` prints it.
"""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_parser", "run"]


def _weights(text: str | None) -> dict | None:
    from rankmeter.errors import ParameterError
    if text is None:
        return None
    weights = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            raise ParameterError(f"--weights {text!r}: expected IMPORTANCE=WEIGHT pairs, e.g. vital=1,okay=0.5") from None
        if not eq or not key.strip():
            raise ParameterError(f"--weights {text!r}: expected IMPORTANCE=WEIGHT pairs, e.g. vital=1,okay=0.5")
    return weights


def run(args: argparse.Namespace) -> int:
    from rankmeter.analyses.nuggets import compare_nuggets, nugget_scores

    weights = _weights(args.weights)
    if len(args.files) == 1:
        scores = nugget_scores(args.files[0], partial=args.partial, weights=weights)
        if args.format == "json":
            json.dump(scores.to_dict(), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(scores.to_text(decimals=args.decimals, per_query=True))
        return 0
    scored, comparison = compare_nuggets(list(args.files), baseline=args.baseline, partial=args.partial,
                                         weights=weights, test=args.test, correction=args.correction,
                                         alpha=args.alpha, permutations=args.permutations, seed=args.seed)
    if args.format == "json":
        json.dump({"systems": {s.system: s.to_dict() for s in scored},
                   "comparison": {"test": args.test, "correction": args.correction, "alpha": args.alpha,
                                  "baseline": comparison.baseline, "table": _plain(comparison.table_records())}},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for s in scored:
        sys.stdout.write(s.to_text(decimals=args.decimals, per_query=args.per_query) + "\n")
    from rankmeter.report.tables import write_comparison
    write_comparison(comparison, "text")
    return 0


def _plain(records):
    """JSON-ready rows: NaN (no test for the baseline against itself) as null."""
    import math
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in records]


def add_parser(subparsers) -> None:
    """Register ``nuggets``."""
    p = subparsers.add_parser("nuggets", help="RAG nugget scores (strict_vital, strict_all, vital, all) of nuggetizer "
                                              "assignment files; several files compared like runs")
    p.add_argument("files", nargs="+", help="nuggetizer assignment output (JSON Lines), one file per RAG system")
    p.add_argument("--partial", type=float, default=0.5, help="worth of partial_support in vital and all (default 0.5)")
    p.add_argument("--weights", metavar="IMPORTANCE=W,...", help="add weighted scores, e.g. vital=1,okay=0.5")
    p.add_argument("--baseline", help="several files: the system compared against (default the first)")
    p.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey"), default="t",
                   help="several files: paired test over queries (default t)")
    p.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                   help="several files: multiple-comparison correction (default none)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--permutations", type=int, default=10000, help="randomization / bootstrap samples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the sampled tests (default 0)")
    p.add_argument("--per-query", action="store_true", help="several files: list each system's per-query scores")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    p.add_argument("--decimals", type=int, default=4, metavar="N", help="digits in text output (default 4)")
    p.set_defaults(func=run, subparser=p)
