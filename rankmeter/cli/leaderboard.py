"""``rankmeter leaderboard MANIFEST|TABLE -m MEASURE``: systems ranked over several collections, with rank intervals.

The input is a manifest (JSON: per collection its qrels and each system's run, scored with the evaluation
flags and ``--profile``), a table of per-query values (system, collection, query, measure, value) or of
per-collection scores (system, collection, measure, value), as CSV, TSV, Parquet or JSON Lines.
"""
from __future__ import annotations

import sys

from rankmeter.cli import flags, presets
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param
from rankmeter.leaderboard.params import AGGREGATE, CORRECTION, LEVEL, MARGIN, MISSING, RESAMPLES, TEST

HELP = "rank systems over several collections: intervals, rank intervals, the group tied with the top"

SOURCE = flags.declare("source", "path", None, "a manifest (JSON) or a table of per-query or per-collection values",
                       positional=True, required=True, metavar="MANIFEST|TABLE")
PER_COLLECTION = Param("per_collection", "bool", False, "also each collection's own table and tests (text and "
                       "markdown; JSON: per_collection)")
REPORT = flags.declare("report", "path", None, "also write the HTML report of the leaderboard (rank-interval plot, "
                       "win-probability matrix) to FILE (never one of the inputs)", metavar="FILE")


def add_arguments(p) -> None:
    from rankmeter.leaderboard.board import leaderboard

    flags.add(p, SOURCE, PARAMS["measure"].but(help="a measure (repeatable; a manifest needs one, unless "
                                                    "--profile gives them; a table: default all its measures)"),
              LEVEL, AGGREGATE, MISSING, "baseline", flags.flag(MARGIN, metavar="M"), TEST, CORRECTION, "alpha",
              RESAMPLES, "seed",
              PARAMS["format"].but(choices=("text", "markdown", "latex", "json")), "decimals", PER_COLLECTION,
              REPORT, *flags.EVALUATION, owner=leaderboard)
    presets.add_profile(p)


def _per_collection_text(board, markdown: bool) -> str:
    lines = ["", "## Per collection" if markdown else "Per collection (each collection's own tests, "
             f"{board.test} test, {board.correction} correction over its pairs):"]
    for name, cmp in board.per_collection().items():
        lines.append(f"\n{'### ' if markdown else ''}{name} ({len(cmp.queries)} queries)")
        for measure in cmp.measures:
            rows = [r for r in cmp.pair_records() if r["measure"] == measure]
            means = {s: cmp.mean(measure, s) for s in cmp.systems}
            top = max(means, key=means.get)
            lines.append(f"  {measure}: " + ", ".join(
                f"{s} {means[s]:.4f}" + ("" if s == top else " (separable from the top)" if any(
                    {r["system_a"], r["system_b"]} == {s, top} and r["p_adjusted"] < board.alpha for r in rows)
                    else "") for s in sorted(means, key=means.get, reverse=True)))
    return "\n".join(lines) + "\n"


def run(args) -> int:
    from rankmeter.leaderboard import leaderboard

    measures, options, preset = presets.apply_profile(args, args.measure)
    if preset is not None and not args.measure:
        measures = [preset.main]  # as compare: the protocol's main measure unless -m names others
    if args.report:
        from rankmeter.io.output import check_output
        check_output(args.report, inputs=[args.source], suffixes=(".html",))  # before any work is spent
    board = leaderboard(args.source, measures or None, level=args.level, aggregate=args.aggregate,
                        missing=args.missing, baseline=args.baseline, margin=args.margin, test=args.test,
                        correction=args.correction, alpha=args.alpha, resamples=args.resamples, seed=args.seed,
                        **options)
    if args.report:
        from rankmeter.io.output import output_file
        from rankmeter.report.html import render_leaderboard_report
        with output_file(args.report, inputs=[args.source], suffixes=(".html",)) as out:
            out.write(render_leaderboard_report(board))
    if args.format == "json":
        data = board.to_dict()
        if args.per_collection:
            data["per_collection"] = {name: cmp.pair_records() for name, cmp in board.per_collection().items()}
        flags.write_json(data)
        return 0
    text = {"text": board.to_text, "markdown": board.to_markdown, "latex": board.to_latex}[args.format](
        decimals=args.decimals)
    sys.stdout.write(text)
    if args.per_collection and args.format in ("text", "markdown"):
        sys.stdout.write(_per_collection_text(board, args.format == "markdown"))
    return 0
