"""``rankmeter compare QRELS RUN... -m MEASURE``: significance tests and corrections, tables for papers."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "compare runs with significance tests (tables for papers)"

#: the tests and corrections every comparing command takes
TESTS = ("test", "correction", "alpha", "permutations", "seed", "baseline")
ALL_PAIRS = Param("all_pairs", "bool", False, "also compare every pair of runs, corrected over all pairs", "tests")


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs",
              PARAMS["measure"].but(required=True), *TESTS, ALL_PAIRS,
              PARAMS["format"].but(choices=("text", "markdown", "latex", "csv", "json")),
              "per_query", *flags.EVALUATION)


def run(args) -> int:
    from rankmeter.analyses.stats import compare
    from rankmeter.report.tables import write_comparison

    cmp = compare(args.qrels, args.runs, args.measure, baseline=args.baseline, test=args.test,
                  correction=args.correction, alpha=args.alpha, permutations=args.permutations, seed=args.seed,
                  **flags.evaluation(args))
    write_comparison(cmp, args.format)
    if args.all_pairs and args.format in ("text", "markdown"):
        from rankmeter.report.tables import all_pairs_text
        sys.stdout.write(f"\nEvery pair ({args.correction} correction over all pairs):\n" + all_pairs_text(cmp))
    if args.per_query and args.format in ("text", "markdown"):
        from rankmeter.report.tables import per_query_text
        sys.stdout.write("\nPer query:\n" + per_query_text(cmp))
    return 0
