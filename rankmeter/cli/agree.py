"""``rankmeter agree QRELS_A QRELS_B``: how far two versions of the judgments agree."""
from __future__ import annotations

import json
import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = "agreement of two qrels versions: Cohen's and Fleiss' kappa, Jaccard"


def add_arguments(p) -> None:
    flags.add(p, PARAMS["qrels"].but(name="qrels_a", metavar="QRELS_A", help="the first judgments"),
              PARAMS["qrels"].but(name="qrels_b", metavar="QRELS_B", help="the second judgments"),
              PARAMS["rel"].but(help="relevance threshold: grades >= rel are relevant (every binary figure)"),
              PARAMS["format"].but(choices=("json",), default="json"))


def run(args) -> int:
    from rankmeter.analyses.fusion.pooling import agreement

    json.dump(agreement(args.qrels_a, args.qrels_b, rel=args.rel), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
