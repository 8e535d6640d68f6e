"""``rankmeter check QRELS RUN...`` and its ``--dedupe`` fix (see :mod:`rankmeter.analyses.check`).

Exit status: 0 when nothing is wrong (advice alone included: a finding of level ``advice`` or ``info``
never fails a ``&&`` chain), 1 when a finding is a ``warning`` (something that changes scores:
duplicates, ties across a cut-off ...), 2 for an error in the inputs.
"""
from __future__ import annotations


from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = "lint qrels and runs: duplicates, missing queries, ties, coverage ..."


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs", PARAMS["format"].but(choices=("text", "json")), "dedupe",
              PARAMS["output"].but(help="with --dedupe: the file to write (never one of the inputs)"),
              "columns", "input_format")
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too (default: on errors only)")


def run(args) -> int:
    from rankmeter.analyses.check import check, dedupe, exit_status, findings_json
    from rankmeter.io.output import printable

    options = flags.keywords(args, ("columns", "input_format"))
    if args.dedupe:
        if len(args.runs) != 1 or not args.output:
            from rankmeter.errors import ParameterError
            raise ParameterError("--dedupe fixes one run: give one run file and -o FILE for the result")
        from rankmeter.analyses.runs import write_run
        write_run(dedupe(args.runs[0], keep=args.dedupe), args.output, inputs=[args.qrels, *args.runs],
                  format="trec")
    findings = check(args.qrels, args.runs, **options)
    if args.format == "json":
        flags.write_json({"findings": findings_json(findings)})
    else:
        for f in findings:
            print(printable(f))
    return exit_status(findings, strict=args.strict)
