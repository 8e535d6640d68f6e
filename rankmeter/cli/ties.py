"""``rankmeter ties QRELS RUN -m M...``: how much each score depends on the order of tied docs."""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_parser"]

_OPTIONS = ("queries", "rel", "judged_only", "grades", "truncate_grades", "columns")


def _ties(args: argparse.Namespace) -> int:
    from rankmeter.core.options import options_from_args
    from rankmeter.analyses.ties import tie_report

    report = tie_report(args.qrels, args.run, args.measure or ["AP", "nDCG@10", "P@10", "RR"],
                        **options_from_args(args))
    if args.format == "json":
        json.dump(report.to_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report.to_text(decimals=args.decimals, all_queries=args.all_queries))
    return 0


def add_parser(subparsers) -> None:
    from rankmeter.core.options import add_option_flags

    t = subparsers.add_parser("ties", help="each measure with tied docs in trec_eval's order, on average over "
                                           "all their orders, at worst and at best; the tied groups per query")
    t.add_argument("qrels", help="the judgments")
    t.add_argument("run", help="the run")
    t.add_argument("-m", "--measure", action="append", help="a measure (repeatable; default AP nDCG@10 P@10 RR)")
    t.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    t.add_argument("--decimals", type=int, default=4, metavar="N", help="decimals in text output (default 4)")
    t.add_argument("--all-queries", action="store_true",
                   help="list every query, not only those whose value depends on the tie order")
    add_option_flags(t, only=_OPTIONS)
    t.set_defaults(func=_ties)
