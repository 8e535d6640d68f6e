"""``rankmeter ties QRELS RUN... -m M...``: how much each score depends on the order of tied docs."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = ("each measure with tied docs in trec_eval's order, on average over all their orders, at worst and at "
        "best; the tied groups per query")


ALL_QUERIES = Param("all_queries", "bool", False, "list every query, not only those whose value depends on the tie "
                    "order")


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs",
              PARAMS["measure"].but(help="a measure (repeatable; default AP nDCG@10 P@10 RR)"),
              "format", "decimals", ALL_QUERIES,
              *[name for name in flags.EVALUATION if name != "ties"])


def run(args) -> int:
    from rankmeter.check.ties import tie_report
    from rankmeter.core.naming import name_runs

    options = flags.evaluation(args)
    named = name_runs(args.runs, columns=options.get("columns"), input_format=options.get("input_format", "auto"))
    reports = [(name, tie_report(args.qrels, run, args.measure or ["AP", "nDCG@10", "P@10", "RR"], **options))
               for name, run in named]
    if args.format == "json":
        body = ({"run": name, **report.to_dict()} for name, report in reports)
        flags.write_json({"runs": list(body)} if len(reports) > 1 else dict(next(body)))
    else:
        for i, (name, report) in enumerate(reports):
            if len(reports) > 1:
                sys.stdout.write(("\n" if i else "") + f"== {name}\n")
            sys.stdout.write(report.to_text(decimals=args.decimals, all_queries=args.all_queries))
    return 0
