"""``rankmeter plot QRELS RUN... --kind diff|pr|dist -o FILE``: figures of runs (needs matplotlib)."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param
from rankmeter.report.params import PAIR, STYLE

HELP = "plot runs: per-query differences, precision-recall, distributions"

KIND = Param("kind", "choice", None, "diff: sorted per-query differences of two runs; pr: interpolated "
             "precision-recall; dist: per-query values per run", choices=("diff", "pr", "dist"),
             required=True)


def add_arguments(p) -> None:
    from rankmeter.report.plots import plot_diff, plot_distribution

    flags.add(p, "qrels", "runs", KIND,
              PARAMS["measure"].but(kind="string", help="the measure (diff and dist), e.g. nDCG@10"),
              PARAMS["output"].but(required=True, help="output file, .png or .svg (never one of the inputs)"),
              PAIR, STYLE, *flags.EVALUATION, owner=(plot_diff, plot_distribution))


def run(args) -> int:
    from rankmeter.errors import ParameterError
    from rankmeter.io.output import check_output
    from rankmeter.report import plots

    inputs = [args.qrels, *args.runs]
    check_output(args.output, inputs=inputs, suffixes=(".png", ".svg"))  # before any work is spent
    options = flags.evaluation(args)
    if args.kind == "pr":
        fig = plots.plot_pr(args.qrels, args.runs, **options)
    elif not args.measure:
        raise ParameterError(f"--kind {args.kind} needs a measure: -m MEASURE")
    elif args.kind == "diff":
        fig = plots.plot_diff(args.qrels, args.runs, args.measure, pair=args.pair, **options)
    else:
        fig = plots.plot_distribution(args.qrels, args.runs, args.measure, style=args.style, **options)
    print(plots.save(fig, args.output, inputs=inputs), file=sys.stderr)
    return 0
