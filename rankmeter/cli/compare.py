"""``rankmeter compare QRELS RUN... -m MEASURE``: significance tests and corrections, tables for papers."""
from __future__ import annotations

import sys

from rankmeter.cli import flags, presets
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "compare runs with significance tests (tables for papers)"

#: the tests and corrections every comparing command takes
TESTS = ("test", "correction", "alpha", "permutations", "seed", "baseline")
ALL_PAIRS = Param("all_pairs", "bool", False, "also compare every pair of runs, corrected over all pairs")


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs",
              PARAMS["measure"].but(help="a measure (repeatable; required unless --profile gives them)"), *TESTS,
              ALL_PAIRS, PARAMS["format"].but(choices=("text", "markdown", "latex", "csv", "json")),
              "per_query", *flags.EVALUATION)
    presets.add_profile(p)


def run(args) -> int:
    from rankmeter.stats import compare
    from rankmeter.report.tables import write_comparison

    measures, options, preset = presets.apply_profile(args, args.measure)
    if preset is not None and not args.measure:
        measures = [preset.main]  # a test per measure: the protocol's main measure unless -m names others
    if not measures:
        from rankmeter.errors import ParameterError
        raise ParameterError("give a measure with -m (e.g. -m nDCG@10), or --profile NAME")
    cmp = compare(args.qrels, args.runs, measures, baseline=args.baseline, test=args.test,
                  correction=args.correction, alpha=args.alpha, permutations=args.permutations, seed=args.seed,
                  **options)
    write_comparison(cmp, args.format)
    if args.all_pairs and args.format in ("text", "markdown"):
        from rankmeter.report.tables import all_pairs_text
        sys.stdout.write(f"\nEvery pair ({args.correction} correction over all pairs):\n" + all_pairs_text(cmp))
    if args.per_query and args.format in ("text", "markdown"):
        from rankmeter.report.tables import per_query_text
        sys.stdout.write("\nPer query:\n" + per_query_text(cmp))
    return 0
