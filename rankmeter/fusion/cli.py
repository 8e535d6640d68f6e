"""``rankmeter fuse RUN... --method rrf --norm min-max [--param k=60] [--weights ...] -o fused.run``."""
from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def _value(text: str):
    try:
        return int(text)
    except ValueError:
        return float(text)


def _fuse(args: argparse.Namespace) -> int:
    from ..errors import ParameterError
    from . import fuse

    params = {}
    for item in args.param or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ParameterError(f"--param {item!r}: expected NAME=VALUE, e.g. k=60")
        params[key] = _value(value)
    if args.weights:
        params["weights"] = args.weights
    norm = None if args.norm == "none" else args.norm
    fused = fuse(list(args.runs), method=args.method, norm=norm, params=params, name=args.tag)
    from ..runs import write_run
    write_run(fused, args.output, inputs=list(args.runs), format="trec")
    return 0


def add_parser(subparsers) -> None:
    from .catalog import METHODS, NORMS

    f = subparsers.add_parser("fuse", help="fuse runs (CombSUM, CombMNZ, RRF, ... as ranx names them)")
    f.add_argument("runs", nargs="+", help="two or more run files")
    f.add_argument("--method", choices=list(METHODS), default="rrf", help="fusion method (default rrf)")
    f.add_argument("--norm", choices=[n for n in NORMS if n != "borda"] + ["none"], default="min-max",
                   help="per-query normalisation before fusing (default min-max, as ranx)")
    f.add_argument("--param", action="append", metavar="NAME=VALUE", help="a method parameter, e.g. k=60 (repeatable)")
    f.add_argument("--weights", type=float, nargs="+", help="one weight per run (wsum, wmnz)")
    f.add_argument("--tag", help="run tag of the fused run (default: the method)")
    f.add_argument("-o", "--output", required=True, help="the TREC run file to write (never one of the inputs)")
    f.set_defaults(func=_fuse)
