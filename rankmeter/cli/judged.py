"""``rankmeter judged QRELS RUN... -m MEASURE``: how far each run rests on judgments."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = ("how far each run rests on judgments: Judged@k, measures on the full and the judged-only ranking, "
        "bpref, infAP, the RBP interval")


def add_arguments(p) -> None:
    from rankmeter.check.judged import CUTOFF, RBP_P, judged

    flags.add(p, "qrels", "runs",
              PARAMS["measure"].but(help="measure scored full and judged-only (repeatable; default AP and nDCG@10)"),
              CUTOFF, RBP_P,
              PARAMS["format"].but(choices=("text", "json", "csv")), "decimals",
              *[name for name in flags.EVALUATION if name != "judged_only"], owner=judged)


def run(args) -> int:
    from rankmeter.check.judged import CUTOFFS, judged
    from rankmeter.io.output import printable

    report = judged(args.qrels, args.runs, args.measure or ["AP", "nDCG@10"], cutoffs=args.cutoff or CUTOFFS,
                    rbp_p=args.rbp_p, **flags.evaluation(args))
    if args.format == "json":
        flags.write_json(report.to_dict())
    elif args.format == "csv":
        sys.stdout.write(report.to_csv())
    else:
        for line in report.to_text(decimals=args.decimals).splitlines():
            print(printable(line))
    return 0
