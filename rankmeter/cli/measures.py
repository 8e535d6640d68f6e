"""``rankmeter measures [NAME]``: every measure with its parameters, or the measures whose name matches."""
from __future__ import annotations

from rankmeter.cli import flags

HELP = "list every measure with its parameters (or those matching NAME)"


def add_arguments(p) -> None:
    p.add_argument("name", nargs="?", help="a measure name or part of one, e.g. ndcg or 'P@10' (default: all)")
    flags.add(p, "format")


def run(args) -> int:
    from rankmeter.report.text import print_measures
    print_measures(format=args.format, name=args.name)
    return 0
