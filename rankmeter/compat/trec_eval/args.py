"""trec_eval 10.0's command-line arguments, parsed as its getopt_long does.

Short options ``hvqm:cl:nD:JN:M:R:T:oZ:`` (clustered, values glued or
separate: ``-qc``, ``-mP.5``, ``-M 100``), the long forms (``--measure=P.5``,
unambiguous prefixes such as ``--nosum``), and file names anywhere (GNU getopt
permutes them to the end). Numbers are read as C's ``atol`` reads them: the
leading integer, 0 when there is none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rankmeter.errors import ParameterError

__all__ = ["TrecEvalArgs", "parse_args", "USAGE", "atol"]

USAGE = ("usage: rankmeter trec_eval [-h] [-v] [-q] [-m measure[.params]] [-c] [-n] [-l num] [-D num] "
         "[-J] [-N num] [-M num] [-R qrels|prefs|qrels_prefs|qrels_jg] [-T trec_results] [-Z zscore_file] "
         "rel_info_file results_file")

# trec_eval.c long_options: name -> short letter; whether it takes a value comes from _WITH_VALUE
_LONG = {"help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m",
         "complete_rel_info_wanted": "c", "level_for_rel": "l", "nosummary": "n", "Debug_level": "D",
         "Judged_docs_only": "J", "Number_docs_in_coll": "N", "Max_retrieved_per_topic": "M",
         "Rel_info_format": "R", "Results_format": "T", "Output_old_results_format": "o", "Zscore": "Z"}
_WITH_VALUE = set("mlDNMRTZ")
_FLAGS = set("hvqcnJo")


@dataclass
class TrecEvalArgs:
    """What the command line asked for (trec_eval's EPI fields)."""

    files: list[str] = field(default_factory=list)
    help: bool = False
    version: bool = False
    per_query: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    max_docs: int | None = None
    level: int = 1
    num_docs: int = 0
    debug: str | None = None
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscores: str | None = None
    measures: list[str] = field(default_factory=list)

    @property
    def qrels(self) -> str:
        return self.files[0]

    @property
    def run(self) -> str:
        return self.files[1]


def atol(text: str) -> int:
    """C's ``atol``: the leading (signed) integer of ``text``, 0 if none.

    >>> atol("100"), atol(" 2x"), atol("x"), atol("-3.5")
    (100, 2, 0, -3)
    """
    found = re.match(r"\s*([+-]?\d+)", text)
    return int(found.group(1)) if found else 0


def _apply(args: TrecEvalArgs, letter: str, value: str | None) -> None:
    if letter == "h":
        args.help = True
    elif letter == "v":
        args.version = True
    elif letter == "q":
        args.per_query = True
    elif letter == "c":
        args.complete = True
    elif letter == "n":
        args.summary = False          # trec_eval.c: summary_flag = 0
    elif letter == "J":
        args.judged_only = True
    elif letter == "o":
        pass                          # obsolete in trec_eval, accepted and ignored
    elif letter == "m":
        args.measures.append(value)
    elif letter == "l":
        args.level = atol(value)
    elif letter == "M":
        args.max_docs = atol(value)
    elif letter == "N":
        args.num_docs = atol(value)
    elif letter == "D":
        args.debug = value            # accepted; rankmeter prints no debug trace
    elif letter == "R":
        args.rel_format = value
    elif letter == "T":
        args.results_format = value
    elif letter == "Z":
        args.zscores = value


def parse_args(argv: list[str]) -> TrecEvalArgs:
    """Parse trec_eval's arguments (raises ParameterError on an unknown option).

    >>> a = parse_args(["-qc", "-mP.5", "--measure=map", "-M", "100", "q.txt", "r.txt", "-n"])
    >>> (a.per_query, a.complete, a.measures, a.max_docs, a.summary, a.files)
    (True, True, ['P.5', 'map'], 100, False, ['q.txt', 'r.txt'])
    """
    args = TrecEvalArgs()
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            args.files.extend(argv[i:])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            matches = [k for k in _LONG if k.startswith(name)]
            exact = [k for k in matches if k == name]
            if exact:
                matches = exact
            if len(matches) != 1:
                kind = "ambiguous" if matches else "unknown"
                raise ParameterError(f"trec_eval: {kind} option '--{name}'; {USAGE}")
            letter = _LONG[matches[0]]
            if letter in _WITH_VALUE:
                if not eq:
                    if i >= len(argv):
                        raise ParameterError(f"trec_eval: option '--{matches[0]}' needs a value; {USAGE}")
                    value = argv[i]
                    i += 1
                _apply(args, letter, value)
            else:
                if eq:
                    raise ParameterError(f"trec_eval: option '--{matches[0]}' takes no value; {USAGE}")
                _apply(args, letter, None)
            continue
        if not a.startswith("-") or a == "-":
            args.files.append(a)
            continue
        j = 1
        while j < len(a):
            letter = a[j]
            if letter in _WITH_VALUE:
                value = a[j + 1:]
                if not value:
                    if i >= len(argv):
                        raise ParameterError(f"trec_eval: option -{letter} needs a value; {USAGE}")
                    value = argv[i]
                    i += 1
                _apply(args, letter, value)
                break
            if letter not in _FLAGS:
                raise ParameterError(f"trec_eval: invalid option -{letter}; {USAGE}")
            _apply(args, letter, None)
            j += 1
    return args
