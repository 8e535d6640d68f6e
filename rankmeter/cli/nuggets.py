"""``rankmeter nuggets FILE... [--baseline A --test t]``: RAG nugget scores from nuggetizer's assignment output.

One file: per query and mean ``strict_vital``, ``strict_all``, ``vital``, ``all``. Several files (one per
RAG system): each one's means, then the comparison with the baseline, as ``rankmeter compare`` prints it.
"""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

import argparse
import sys

__all__ = ["HELP", "add_arguments", "run"]

FILES = flags.declare("files", "paths", None, "nuggetizer assignment output (JSON Lines), one file per RAG system",
                      positional=True, required=True, metavar="FILES")
#: ``weights=`` of nugget_scores, as IMPORTANCE=W pairs (``--importance-weights`` is its older flag)
WEIGHTS = flags.declare("weights", "string", None, "add weighted nugget scores, e.g. vital=1,okay=0.5",
                        metavar="IMPORTANCE=W,...", deprecated=("--importance-weights",))
REPORT = flags.declare("report", "path", None, "also write the HTML report of the comparison to FILE (never one of the "
                       "inputs)", metavar="FILE")


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
            raise ParameterError(f"--weights {text!r}: expected IMPORTANCE=WEIGHT pairs, e.g. "
                                 "vital=1,okay=0.5") from None
        if not eq or not key.strip():
            raise ParameterError(f"--weights {text!r}: expected IMPORTANCE=WEIGHT pairs, e.g. vital=1,okay=0.5")
    return weights


def run(args: argparse.Namespace) -> int:
    from rankmeter.nuggets.assignments import compare_nuggets, nugget_scores

    weights = _weights(args.weights)
    if len(args.files) == 1:
        scores = nugget_scores(args.files[0], partial=args.partial, weights=weights)
        if args.format == "json":
            flags.write_json(scores.to_dict())
        else:
            sys.stdout.write(scores.to_text(decimals=args.decimals, per_query=True))
        return 0
    scored, comparison = compare_nuggets(list(args.files), baseline=args.baseline, partial=args.partial,
                                         weights=weights, test=args.test, correction=args.correction,
                                         alpha=args.alpha, permutations=args.permutations, seed=args.seed)
    if args.report:  # the same per-query scores, as a self-contained HTML report
        from rankmeter.io.output import output_file
        from rankmeter.report.html import render_scores_report
        page = render_scores_report({s.system: s.scores() for s in scored}, baseline=args.baseline,
                                    test=args.test, correction=args.correction, alpha=args.alpha,
                                    permutations=args.permutations, seed=args.seed, what="answer records")
        with output_file(args.report, inputs=list(args.files), suffixes=(".html", ".htm")) as out:
            out.write(page)
        print(args.report, file=sys.stderr)
    if args.format == "json":
        flags.write_json({"systems": {s.system: s.to_dict() for s in scored},
                          "comparison": {"test": args.test, "correction": args.correction, "alpha": args.alpha,
                                         "baseline": comparison.baseline, "table": comparison.table_records()}})
        return 0
    for s in scored:
        sys.stdout.write(s.to_text(decimals=args.decimals, per_query=args.per_query) + "\n")
    from rankmeter.report.tables import write_comparison
    write_comparison(comparison, "text")
    return 0


HELP = ("RAG nugget scores (strict_vital, strict_all, vital, all) of nuggetizer assignment files; several files "
        "compared like runs")


def add_arguments(p) -> None:
    from rankmeter.nuggets.assignments import PARTIAL, compare_nuggets

    flags.add(p, FILES, PARTIAL, WEIGHTS,
              PARAMS["baseline"].but(kind="string", help="several files: the system compared against (default the "
                                                         "first)"),
              "test", "correction", "alpha", "permutations", "seed",
              PARAMS["per_query"].but(help="several files: list each system's per-query scores"),
              REPORT,
              "format", "decimals", owner=compare_nuggets)
