"""``rankmeter report QRELS RUN... -m MEASURE -o report.html``: one self-contained HTML report."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.cli.compare import TESTS
from rankmeter.core.params import PARAMS
from rankmeter.report.params import BEYOND_K, MAX_EXPLAINED, MAX_RANKS, TITLE

HELP = "write one self-contained HTML report comparing runs"


def add_arguments(p) -> None:
    from rankmeter.cli.beyond import TRAIN
    from rankmeter.report.html import render_report, write_report

    flags.add(p, "qrels", "runs", PARAMS["measure"].but(required=True),
              PARAMS["output"].but(required=True, help="the .html file to write (never one of the inputs)"),
              *TESTS, TITLE, MAX_RANKS, MAX_EXPLAINED, TRAIN, BEYOND_K,
              PARAMS["other_qrels"].but(help="a second qrels version (LLM-made, say): adds the two leaderboards "
                                             "side by side (a slope chart per measure) and their agreement"),
              *flags.EVALUATION, owner=(write_report, render_report))


def run(args) -> int:
    from rankmeter.report.html import render_report, write_report

    if args.baseline and len(args.baseline) > 1:
        from rankmeter.errors import ParameterError
        raise ParameterError("report: give one --baseline (compare takes several)")
    train = None
    if args.train:
        from rankmeter.io.interactions import read_interactions
        train = read_interactions(args.train)
    path = write_report(args.qrels, args.runs, args.measure, args.output,
                        baseline=args.baseline[0] if args.baseline else None, title=args.title, test=args.test,
                        correction=args.correction, alpha=args.alpha, max_ranks=args.max_ranks,
                        max_explained=args.max_explained or None, train=train, beyond_k=args.beyond_k,
                        permutations=args.permutations, seed=args.seed, other_qrels=args.other_qrels,
                        **flags.evaluation(args))
    print(path, file=sys.stderr)
    return 0
