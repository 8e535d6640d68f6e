"""``rankmeter beyond TRAIN RECS...``: beyond-accuracy measures of recommenders, compared over users.

Files hold one (user, item) per row with a header (CSV, TSV, Parquet or JSON
Lines, by suffix; ``--user``/``--item``/``--score`` name the columns). The
command prints each system's values (per-user measures as means over users)
and, for two or more systems, :func:`rankmeter.recsys.beyond.compare_beyond`'s table.
"""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.cli.compare import TESTS
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

#: training interactions: ``rankmeter beyond``'s first input, ``rankmeter report --train``
TRAIN = Param("train", "path", None, "training interactions (a CSV/TSV/Parquet/JSON Lines table with user and item "
              "columns)")

HELP = ("beyond-accuracy measures of recommenders (coverage, novelty, diversity, popularity bias), compared "
        "over users")


def run(args) -> int:
    from rankmeter.recsys.beyond import PER_USER, beyond_accuracy, compare_beyond
    from rankmeter.core.naming import unique_names
    from rankmeter.io.interactions import read_interactions
    from rankmeter.report.tables import write_comparison

    options = {"k": args.k, "head": args.head, "tail_ratio": args.tail_ratio, "entropy": args.entropy,
               "catalog": args.catalog, "user": args.user, "item": args.item, "score": args.score,
               "ties": args.ties}
    columns = {"--user": args.user, "--item": args.item, "--score": args.score}
    named = [c for c in columns.values() if c]
    if len(set(named)) < len(named):
        from rankmeter.errors import ParameterError
        raise ParameterError("--user, --item and --score name one column twice (" + ", ".join(
            f"{flag} {c}" for flag, c in columns.items() if c) + "): each names a column of its own")
    train = read_interactions(args.train)
    names = unique_names([""] * len(args.recommendations), args.recommendations, args.recommendations)
    systems = {name: read_interactions(path) for name, path in zip(names, args.recommendations)}
    measures = args.measures or list(PER_USER)
    overall = {name: beyond_accuracy(train, recs, **options).overall for name, recs in systems.items()}
    keys = list(next(iter(overall.values())))
    if args.format in ("text", "markdown"):
        from rankmeter.report.text import render_table
        sys.stdout.write(render_table(["system", *keys], [[name, *(values[k] for k in keys)]
                                                          for name, values in overall.items()], keys=1))
    if len(systems) < 2:
        return 0
    if args.format in ("text", "markdown"):
        correction = "no correction" if args.correction == "none" else f"{args.correction} correction"
        sys.stdout.write(f"\nPer-user measures compared over users ({args.test} test, {correction}):\n")
    comparison = compare_beyond(train, systems, measures, baseline=args.baseline, test=args.test,
                                correction=args.correction, alpha=args.alpha, permutations=args.permutations,
                                seed=args.seed, **options)
    write_comparison(comparison, args.format)
    return 0


def add_arguments(b) -> None:
    from rankmeter.recsys.beyond import MEASURES, PARAMS as BEYOND, beyond_accuracy, compare_beyond

    flags.add(b, flags.flag(TRAIN).but(positional=True, required=True),
              flags.declare("recommendations", "paths", None, "one table of recommendations per system (user, item, "
                            "optionally score); named by file name", positional=True, required=True),
              MEASURES,
              # its k cuts lists of items: no -k (the shared k's short flag)
              *(flags.flag(p, short=None) for p in BEYOND.values()), flags.READING_FUSING[0], *TESTS,
              PARAMS["format"].but(choices=("text", "markdown", "latex", "csv", "json"),
                                   help="format of the comparison table"), owner=(compare_beyond, beyond_accuracy))
