"""``rankmeter trec_eval``: trec_eval 10.0's command line and its exact output.

Supported options: ``-q -c -J -n -M N -l N -m MEASURE`` (repeatable, also
glued: ``-mP.5``, ``-M100``, ``-l2``), ``-h``. Where 10.0 aborts because a
judged topic has no results, the topics in both files are evaluated (as
trec_eval 9 did) and a warning goes to stderr.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..engine import Evaluator
from ..errors import ParameterError
from ..io import read_qrels
from .trec_eval import expand, format_value, uses_level

__all__ = ["TrecEvalArgs", "parse_args", "run"]

USAGE = ("usage: rankmeter trec_eval [-q] [-c] [-J] [-n] [-M num_docs] [-l rel_level] "
         "[-m measure[.params]] ... qrels_file results_file")


@dataclass
class TrecEvalArgs:
    qrels: str = ""
    run: str = ""
    per_query: bool = False
    complete: bool = False
    judged_only: bool = False
    no_warnings: bool = False
    max_docs: int | None = None
    level: int = 1
    measures: list[str] = field(default_factory=list)


def _int_option(flag: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ParameterError(f"trec_eval option {flag} needs an integer, got {value!r}") from None


def parse_args(argv: list[str]) -> TrecEvalArgs:
    """trec_eval's getopt-style arguments."""
    args = TrecEvalArgs()
    files: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--" or not a.startswith("-") or a == "-":
            files.extend(argv[i + 1:] if a == "--" else [a])
            if a == "--":
                break
            i += 1
            continue
        flag, rest = a[:2], a[2:]
        if flag in ("-M", "-l", "-m"):
            if not rest:
                i += 1
                if i >= len(argv):
                    raise ParameterError(f"trec_eval option {flag} needs a value; {USAGE}")
                rest = argv[i]
            if flag == "-M":
                args.max_docs = _int_option(flag, rest)
            elif flag == "-l":
                args.level = _int_option(flag, rest)
            else:
                args.measures.append(rest)
        elif flag in ("-q", "-c", "-J", "-n"):
            for ch in a[1:]:
                if ch == "q":
                    args.per_query = True
                elif ch == "c":
                    args.complete = True
                elif ch == "J":
                    args.judged_only = True
                elif ch == "n":
                    args.no_warnings = True
                else:
                    raise ParameterError(f"trec_eval option -{ch} is not supported; {USAGE}")
        elif flag == "-h":
            raise ParameterError(USAGE)
        else:
            raise ParameterError(f"trec_eval option {a} is not supported; {USAGE}")
        i += 1
    if len(files) != 2:
        raise ParameterError(f"expected a qrels file and a results file, got {len(files)} file(s); {USAGE}")
    args.qrels, args.run = files
    if not args.measures:
        args.measures = ["official"]
    return args


def _line(label: str, query: bytes, value: str) -> bytes:
    return b"%-22s\t%s\t%s\n" % (label.encode(), query, value.encode())


def run(argv: list[str], out=None, err=None) -> int:
    """Run trec_eval with ``argv``; write its output to ``out`` (binary stream)."""
    out = out if out is not None else sys.stdout.buffer
    err = err if err is not None else sys.stderr
    args = parse_args(argv)
    rows = expand(args.measures)
    entries = []  # (label, trec measure, measure with trec_eval's -l applied); runid has no measure
    for label, tm, m in rows:
        if m is not None and m.get("rel") is None:
            m = m.with_params(rel=args.level if uses_level(m) else 1)
        entries.append((label, tm, m))
    measures = [m for _, _, m in entries if m is not None]
    qrels = read_qrels(args.qrels, truncate_grades=False)
    queries = "qrels" if args.complete else "both"
    evaluator = Evaluator(qrels, measures, queries=queries, judged_only=args.judged_only, max_docs=args.max_docs)
    from ..executors.memory import evaluate_in_memory
    from ..io import read_run
    run_table = read_run(args.run)
    results = evaluate_in_memory(evaluator, run_table, warn=False)
    query_ids, tag = results.ids, run_table.tag
    values = {m: results.values(m) for m in measures}
    if not args.complete and results.missing and not args.no_warnings:
        print(f"rankmeter trec_eval: warning: {len(results.missing)} judged topic(s) have no results "
              "and are not evaluated (trec_eval 10.0 would abort; -c scores them as 0)", file=err)
    chunks = []
    if args.per_query:
        for qi, q in enumerate(query_ids):
            for label, tm, m in entries:
                if m is not None and tm.per_query:
                    chunks.append(_line(label, q, format_value(m, values[m][qi])))
    for label, tm, m in entries:
        if m is None:
            chunks.append(b"%-22s\tall\t%s\n" % (b"runid", tag))
        elif tm.summary:
            chunks.append(_line(label, b"all", format_value(m, m.summarize(values[m]))))
    out.write(b"".join(chunks))
    out.flush()
    return 0
