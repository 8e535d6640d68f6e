"""``rankmeter meta correlate``: how alike two measures (or two qrels versions) rank the same systems."""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_parser"]


def _correlate(args: argparse.Namespace) -> int:
    import rankmeter

    from ..engine.options import options_from_args
    from ..errors import ParameterError
    from . import kendall_tau, rbo, spearman, system_ranking, tau_ap

    options = options_from_args(args)
    measures = args.measure
    if args.other_qrels:
        if len(measures) != 1:
            raise ParameterError("with --other-qrels give one measure: the same measure under both qrels")
        first = rankmeter.evaluate(args.qrels, list(args.runs), measures, **options)
        second = rankmeter.evaluate(args.other_qrels, list(args.runs), measures, **options)
        a = {run: first[run][measures[0]] for run in first.runs}
        b = {run: second[run][measures[0]] for run in second.runs}
        names = (f"{measures[0]} ({args.qrels})", f"{measures[0]} ({args.other_qrels})")
    else:
        if len(measures) != 2:
            raise ParameterError("give two measures (-m A -m B), or one with --other-qrels")
        table = rankmeter.evaluate(args.qrels, list(args.runs), measures, **options)
        a = {run: table[run][table.names[0]] for run in table.runs}
        b = {run: table[run][table.names[1]] for run in table.runs}
        names = tuple(table.names)
    result = {"systems": len(a), "kendall_tau_b": kendall_tau(a, b), "kendall_tau_a": kendall_tau(a, b, variant="a"),
              "tau_ap": tau_ap(a, b), "tau_ap_symmetric": tau_ap(a, b, symmetric=True),
              "spearman": spearman(a, b), f"rbo_ext(p={args.p})": rbo(system_ranking(a), system_ranking(b), p=args.p)}
    if args.format == "json":
        json.dump({"a": names[0], "b": names[1], **result}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"system rankings by {names[0]} and by {names[1]} ({len(a)} systems)")
        for key, value in list(result.items())[1:]:
            print(f"  {key:<22} {value:.4f}")
    return 0


def add_parser(subparsers) -> None:
    from ..engine.options import add_option_flags

    meta = subparsers.add_parser("meta", help="meta-evaluation: how far a measure or a ranking of systems holds")
    kinds = meta.add_subparsers(dest="meta_command", required=True, metavar="KIND", help="what to measure")
    c = kinds.add_parser("correlate", help="correlation between the system rankings of two measures or two qrels")
    c.add_argument("qrels", help="the judgments")
    c.add_argument("runs", nargs="+", help="the systems' run files (at least two)")
    c.add_argument("-m", "--measure", action="append", required=True,
                   help="the two measures to correlate (or one, with --other-qrels)")
    c.add_argument("--other-qrels", help="a second qrels version: correlate one measure under both")
    c.add_argument("--p", type=float, default=0.9, help="RBO's persistence (default 0.9)")
    c.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    add_option_flags(c, only=("queries", "rel", "judged_only", "max_docs", "ties", "truncate_grades", "columns"))
    c.set_defaults(func=_correlate, subparser=c)
