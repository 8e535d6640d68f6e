"""``rankmeter check [QRELS] RUN...`` and its ``--dedupe`` fix (see :mod:`rankmeter.check`).

Without qrels (before judging: ``rankmeter check RUN...``, or ``--topics FILE``) the checks that
need judgments are skipped and a note says so. The first file is the qrels when it reads as qrels
(a TREC qrels line has 4 fields; a header names a grade column) or when ``--qrels`` is not given
and it is not plainly a run (a TREC run line has 6 fields); ``--qrels FILE`` says it outright.

``--dedupe first|max -o FILE`` writes the run without its duplicate lines (every kept line as it
was), says on stderr what it wrote, and checks the written file: the findings and the exit status
are the output's.

Exit status: 0 when nothing is wrong (notes and warnings included, unless ``--strict``), 1 when a
finding is an error (a warning too with ``--strict``), 2 for an input that cannot be read.
"""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "lint qrels and runs (before judging too): duplicates, missing queries, ties, coverage ..."

#: check(qrels=) when every positional file is a run
QRELS = flags.SHARED["qrels"].but(positional=False, required=False,
                                  help="the qrels, when every positional file is a run")
#: check(topics=), pool(topics=): one topics file
TOPICS = flags.declare("topics", "path", None,
                       "the topics (TREC <num> Number: 301, or one query id a line / the first field "
                       "of a TSV): a warning names the runs' queries outside them (pool: left out) and check's the "
                       "topics without results", metavar="FILE")
STRICT = Param("strict", "bool", False, "exit 1 on warnings too (default: on errors only)")


def add_arguments(p) -> None:
    p.add_argument("inputs", nargs="+", metavar="FILE",
                   help="QRELS RUN... or RUN... (before judging): the qrels, when the first file reads as qrels "
                        "(without them the checks that need judgments are skipped), then the run files, in any "
                        "input format")
    from rankmeter.check.dedupe import KEEP

    flags.add(p, QRELS, TOPICS, "format",
              KEEP.but(name="dedupe", default=None, help="write the run without duplicate docs, keeping the first "
                                                          "line or the highest score"),
              PARAMS["output"].but(help="with --dedupe: the file to write (never one of the inputs)"),
              "columns", "input_format", STRICT)


def split_inputs(paths: list[str], *, qrels: str | None = None, input_format: str = "auto"):
    """(qrels or None, runs) from the positional files (see the module docstring)."""
    from rankmeter.errors import ParameterError
    if qrels is not None:
        return qrels, list(paths)
    first = _looks_like(paths[0], input_format)
    if len(paths) == 1:
        if first == "qrels":
            raise ParameterError(f"{paths[0]} reads as qrels and no run is given: give the run files after it")
        return None, list(paths)
    if first == "run":
        return None, list(paths)
    return paths[0], list(paths[1:])


def _looks_like(path: str, input_format: str) -> str | None:
    """``"qrels"`` or ``"run"`` when the first lines of ``path`` say so plainly, else None."""
    from rankmeter.errors import RankmeterError
    from rankmeter.io.columns import GRADE_NAMES, SCORE_NAMES
    from rankmeter.io.delimited import split_header
    from rankmeter.io.formats import detect
    from rankmeter.io.source import first_data_line, open_stream

    if path == "-":
        return None
    try:
        stream, name = open_stream(path)
        with stream:
            head = stream.read(1 << 16)
        head = head[: head.rfind(b"\n") + 1] or head
        style, header = detect(head, name, input_format)
        _, _, first = first_data_line(head)
    except (RankmeterError, OSError, ValueError):
        return None  # the check itself reads the file and names the problem
    if style not in ("trec", "csv", "tsv") or not first:
        return None
    fields = split_header(first, "whitespace" if style == "trec" else style)
    if header:
        grades, scores = set(GRADE_NAMES) & set(fields), set(SCORE_NAMES) & set(fields)
        return "qrels" if grades and not scores else "run" if scores and not grades else None
    return "qrels" if len(fields) == 4 else "run" if len(fields) == 2 or len(fields) >= 5 else None


def run(args) -> int:
    from rankmeter.check import check, exit_status, findings_json
    from rankmeter.io.output import printable

    options = flags.keywords(args, ("columns", "input_format"))
    qrels, runs = split_inputs(args.inputs, qrels=args.qrels, input_format=args.input_format)
    if args.dedupe:
        if len(runs) != 1 or not args.output:
            from rankmeter.errors import ParameterError
            raise ParameterError("--dedupe fixes one run: give one run file and -o FILE for the result")
        from rankmeter.check.dedupe import write_deduped
        done = write_deduped(runs[0], args.output, keep=args.dedupe, inputs=[*args.inputs, *filter(None, (
            args.qrels, args.topics))], **options)
        print(f"rankmeter: {printable(done.summary(args.dedupe))}", file=sys.stderr)
        runs = [args.output]  # the findings and the exit status are the written file's
    findings = check(qrels, runs, topics=args.topics, **options)
    if args.format == "json":
        flags.write_json({"findings": findings_json(findings)})
    else:
        for f in findings:
            print(printable(f))
    return exit_status(findings, strict=args.strict)
