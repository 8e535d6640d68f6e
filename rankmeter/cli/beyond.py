"""``rankmeter beyond TRAIN RECS...``: beyond-accuracy measures of recommenders, compared over users.

Files hold one (user, item) per row with a header (CSV, TSV, Parquet or JSON
Lines, by suffix; ``--user``/``--item``/``--score`` name the columns). The
command prints each system's values (per-user measures as means over users)
and, for two or more systems, :func:`rankmeter.analyses.beyond.compare_beyond`'s table.
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["add_parser", "read_interactions"]


def read_interactions(path: str):
    """A file with a header row as an Arrow table, its format told by the suffix."""
    import pyarrow as pa

    from rankmeter.errors import InputError

    lower = path.lower()
    try:
        if lower.endswith(".parquet"):
            import pyarrow.parquet as pq
            return pq.read_table(path)
        if lower.endswith((".jsonl", ".json")):
            import pyarrow.json as pajson
            return pajson.read_json(path)
        import pyarrow.csv as pacsv
        delimiter = "\t" if lower.endswith((".tsv", ".txt")) else ","
        return pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter=delimiter))
    except FileNotFoundError:
        raise InputError("no such file; check the path", source=path) from None
    except (pa.ArrowException, OSError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot read it as a table with a header row ({detail}); use CSV, TSV, Parquet or "
                         "JSON Lines with user and item columns", source=path) from None


def _names(paths: list[str]) -> list[str]:
    """Each file's name without its folder and suffix; the whole path where two would clash."""
    from pathlib import PurePath

    stems = [PurePath(p).stem for p in paths]
    return [stem if stems.count(stem) == 1 else path for stem, path in zip(stems, paths)]


def _run(args: argparse.Namespace) -> int:
    from rankmeter.analyses.beyond import PER_USER, beyond_accuracy, compare_beyond
    from rankmeter.report.tables import write_comparison

    options = {"k": args.k, "head": args.head, "tail_ratio": args.tail_ratio, "entropy": args.entropy,
               "catalog": args.catalog, "user": args.user, "item": args.item, "score": args.score}
    train = read_interactions(args.train)
    names = _names(args.recommendations)
    systems = {name: read_interactions(path) for name, path in zip(names, args.recommendations)}
    measures = args.measure or list(PER_USER)
    overall = {name: beyond_accuracy(train, recs, **options).overall for name, recs in systems.items()}
    keys = list(next(iter(overall.values())))
    width = max(len(n) for n in names)
    if args.format in ("text", "markdown"):
        sys.stdout.write("system".ljust(width) + "  " + "  ".join(keys) + "\n")
        for name, values in overall.items():
            sys.stdout.write(name.ljust(width) + "  " + "  ".join(f"{values[k]:.4f}".rjust(len(k)) for k in keys)
                             + "\n")
    if len(systems) < 2:
        return 0
    if args.format in ("text", "markdown"):
        sys.stdout.write(f"\nPer-user measures compared over users ({args.test} test, {args.correction} "
                         "correction):\n")
    comparison = compare_beyond(train, systems, measures, baseline=args.baseline, test=args.test,
                                correction=args.correction, alpha=args.alpha, permutations=args.permutations,
                                seed=args.seed, **options)
    write_comparison(comparison, args.format)
    return 0


def add_parser(sub) -> None:
    b = sub.add_parser("beyond", help="beyond-accuracy measures of recommenders (coverage, novelty, diversity, "
                                      "popularity bias), compared over users")
    b.add_argument("train", help="training interactions: a table with user and item columns")
    b.add_argument("recommendations", nargs="+", help="one table of recommendations per system (user, item, "
                   "optionally score); named by file name")
    b.add_argument("-m", "--measure", action="append",
                   help="per-user measure to compare (repeatable; default all of novelty, diversity, serendipity, "
                        "arp, aplt, aclt, popularity_lift)")
    b.add_argument("--k", type=int, default=None, help="cut each list at its first K items")
    b.add_argument("--head", type=float, default=0.2, help="share of the most popular items that is not long tail")
    b.add_argument("--tail-ratio", type=float, default=None,
                   help="RecBole's long tail instead: the least popular share (<= 1) or a count of interactions")
    b.add_argument("--entropy", choices=("recommenders", "recbole"), default="recommenders",
                   help="distributional coverage: Shannon entropy in bits, or RecBole's normalised ln form")
    b.add_argument("--catalog", type=int, default=None, help="number of items in the catalogue (RecBole's num_items)")
    b.add_argument("--user", default="user", help="user column (default user)")
    b.add_argument("--item", default="item", help="item column (default item)")
    b.add_argument("--score", default=None, help="score column ordering each list (default: row order)")
    b.add_argument("--baseline", action="append", help="system the others are compared with (repeatable)")
    b.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey"), default="t",
                   help="paired two-sided test over users (default t)")
    b.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                   help="multiple-comparison correction per measure (default none)")
    b.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    b.add_argument("--permutations", type=int, default=10000, help="permutations of the random tests")
    b.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    b.add_argument("--format", choices=("text", "markdown", "latex", "csv", "json"), default="text",
                   help="format of the comparison table (default text)")
    b.set_defaults(func=_run)
