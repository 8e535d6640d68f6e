"""``rankmeter judges reliability LABELS... [--rel R] [--format json]``: how far an LLM judge agrees with itself
across its draws of each pair (rankmeter.judges.reliability)."""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.stats.params import SIGNIFICANCE

DRAWN_LABELS = flags.declare("labels", "paths", None, "label files with one line per draw (judges label --samples N "
                             "writes them; query 0 doc grade, or JSON Lines with grade): several lines per pair",
                             positional=True, required=True, metavar="LABELS")


def add_parser(kinds) -> None:
    """``judges reliability``, added to ``rankmeter judges``."""
    p = kinds.add_parser("reliability", help="how far the judge agrees with itself across draws: Krippendorff's "
                                             "alpha, ICC(1), the flip rate of halves, each pair's P(relevant)")
    flags.add(p, DRAWN_LABELS,
              PARAMS["rel"].but(help="a draw is relevant when its grade is >= REL (P(relevant), its interval, "
                                     "the flip rate of the verdict)"),
              SIGNIFICANCE["alpha"].but(help="each pair's interval of P(relevant) is at level 1 - ALPHA"),
              PARAMS["seed"].but(help="the shuffle of each pair's draws into two halves (the flip rate)"),
              PARAMS["format"].but(choices=("text", "json")), "decimals")
    p.set_defaults(func=run, subparser=p)


def run(args) -> int:
    from rankmeter.judges.reliability import reliability, reliability_text

    result = reliability(list(args.labels), rel=args.rel, alpha=args.alpha, seed=args.seed or 0)
    return flags.emit(args, result, reliability_text(result, decimals=args.decimals).rstrip("\n").split("\n"))
