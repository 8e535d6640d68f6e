"""``rankmeter check QRELS RUN...`` and its ``--dedupe`` fix (see :mod:`rankmeter.analyses.check`)."""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_parser"]


def _check(args: argparse.Namespace) -> int:
    from rankmeter.analyses.check import check, dedupe, findings_json
    from rankmeter.io.output import printable

    if args.dedupe:
        if len(args.runs) != 1 or not args.output:
            from rankmeter.errors import ParameterError
            raise ParameterError("--dedupe fixes one run: give one run file and -o FILE for the result")
        from rankmeter.analyses.runs import write_run
        write_run(dedupe(args.runs[0], keep=args.dedupe), args.output, inputs=[args.qrels, *args.runs],
                  format="trec")
    findings = check(args.qrels, args.runs)
    if args.format == "json":
        json.dump({"findings": findings_json(findings)}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for f in findings:
            print(printable(f))
    return 1 if any(f.level == "warning" for f in findings) else 0


def add_parser(subparsers) -> None:
    c = subparsers.add_parser("check", help="lint qrels and runs: duplicates, missing queries, ties, coverage ...")
    c.add_argument("qrels", help="the judgments")
    c.add_argument("runs", nargs="+", help="run files")
    c.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    c.add_argument("--dedupe", choices=("first", "max"),
                   help="write the run without duplicate docs, keeping the first line or the highest score")
    c.add_argument("-o", "--output", help="with --dedupe: the file to write (never one of the inputs)")
    c.set_defaults(func=_check)
