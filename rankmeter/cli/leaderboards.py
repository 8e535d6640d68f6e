"""``rankmeter meta leaderboards QRELS_A QRELS_B RUN... -m nDCG@10 -m AP``: how alike two qrels rank the runs.

Also from precomputed leaderboards: ``rankmeter meta leaderboards --board-a A.txt --board-b B.txt``
(trec_eval output, ``run measure query value`` lines or a run/measure/value table; repeat the flag
for one trec_eval file per run).
"""
from __future__ import annotations

import argparse
import sys

from rankmeter.judges.params import TOP_K_OVERLAP
from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

__all__ = ["HELP", "add_arguments", "run"]

_OPTIONS = flags.EVALUATION
BOARD_A = flags.declare("board_a", "paths", None,
                        "a precomputed leaderboard of side A (trec_eval output, 'run measure query "
                        "value' lines or a run,measure,value table; repeatable)", metavar="FILE")
BOARD_B = flags.declare("board_b", "paths", None, "the same for side B", metavar="FILE")
MOVES = flags.declare("moves", "integer", 5, "runs listed as moving most", low=1, metavar="N")
SVG = flags.declare("svg", "path", None,
                    "also write the two leaderboards of the first measure side by side (a slope chart) "
                    "to FILE", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    from rankmeter.judges.leaderboard_agreement import (
        from_scores,
        leaderboards,
        read_leaderboard,
    )
    from rankmeter.errors import ParameterError

    top_k = args.top_k or leaderboards.params["top_k"].default
    if args.svg:
        from rankmeter.io.output import check_output
        check_output(args.svg, inputs=[*(args.inputs or []), *(args.board_a or []), *(args.board_b or [])],
                     suffixes=(".svg",))  # before any work is spent
    if args.board_a or args.board_b:
        if not (args.board_a and args.board_b) or args.inputs:
            raise ParameterError("precomputed leaderboards: give --board-a and --board-b, and no qrels or runs")
        board_a, board_b = read_leaderboard(args.board_a), read_leaderboard(args.board_b)
        if args.measure:
            board_a = {m: v for m, v in board_a.items() if m in args.measure}
            board_b = {m: v for m, v in board_b.items() if m in args.measure}
        names = (", ".join(args.board_a), ", ".join(args.board_b))
        result = from_scores(board_a, board_b, names=names, p=args.p, top_k=top_k)
    else:
        if len(args.inputs or []) < 4:
            raise ParameterError("give QRELS_A QRELS_B and at least two runs (or --board-a and --board-b)")
        if not args.measure:
            raise ParameterError("give at least one measure: -m nDCG@10 (repeatable)")
        qrels_a, qrels_b, *runs = args.inputs
        result = leaderboards(qrels_a, qrels_b, runs, args.measure, p=args.p, top_k=top_k,
                              **flags.keywords(args, _OPTIONS))
    if args.svg:
        from rankmeter.io.output import output_file
        from rankmeter.report.svg import slope_svg
        with output_file(args.svg, inputs=[*(args.inputs or []), *(args.board_a or []), *(args.board_b or [])],
                         suffixes=(".svg",)) as out:
            out.write(slope_svg(result, args.measure[0] if args.measure else None))
    if args.format == "json":
        flags.write_json(result.to_dict())
    else:
        sys.stdout.write(result.to_text(decimals=args.decimals, moves=args.moves))
    return 0


HELP = ("how alike two qrels versions (human, LLM) rank the same runs: tau-b, Spearman, Pearson, tau_ap, RBO, "
        "largest moves, top-k overlap")


def add_arguments(p) -> None:
    """``meta leaderboards``' flags (a kind of ``meta``: rankmeter.cli.meta registers it)."""
    from rankmeter.meta.params import RBO_P
    from rankmeter.judges.leaderboard_agreement import leaderboards

    p.add_argument("inputs", nargs="*", metavar="QRELS_A QRELS_B RUN",
                   help="the two judgment sets, then the runs (two or more)")
    flags.add(p, PARAMS["measure"].but(help="a measure (repeatable); with --board-*: keep these only"),
              BOARD_A, BOARD_B, TOP_K_OVERLAP, MOVES, RBO_P, SVG, "format", "decimals", *_OPTIONS, owner=leaderboards)
