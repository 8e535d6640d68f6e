"""TREC text formats: qrels (``query iter doc rel``) and runs (``query Q0 doc rank score tag``).

The compiled reader (:mod:`rankmeter.io.compiled`) reads them: any mix of spaces and tabs, ``#``
comment lines, blank lines and LF/CRLF/CR line ends. Lines are split as ``bytes.splitlines`` does and
fields as ``bytes.split`` does (runs of ASCII whitespace, like trec_eval's ``isspace``). Ids stay
bytes, so any 8-bit encoding works and compares as C ``strcmp`` does. The first data line decides a
run's layout: six fields or more (``query Q0 doc rank score tag``), three (``query doc score``) or two
(``query doc``: a ranked list, the line order is the ranking). The line the reader stops at is named
here, with what is wrong with it.

Byte-order marks: a UTF-8 BOM at byte 0 of an input (what some editors write first) is dropped; anywhere
else -- a second BOM, one after a comment or blank line, one inside a line -- its three bytes are part of
the id, as trec_eval reads them (it reads bytes and drops nothing).
"""
from __future__ import annotations

import math
import re

import numpy as np

from rankmeter.errors import InputError, shown_id, shown_repr
from rankmeter.io.canonical import Qrels, Run, decode_id, grade_policy
from rankmeter.io.compiled import REFUSED_LONG_ID, REFUSED_NUL, Refused, parse_qrels, parse_run
from rankmeter.io.lines import first_data_line
from rankmeter.io.source import load_bytes

__all__ = ["read_text", "qrels_from_bytes", "run_from_bytes", "run_fields_from_bytes",
           "run_from_block", "load_bytes"]

_INT = re.compile(rb"[+-]?[0-9]+")
_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT64 = 2 ** 63
_LAYOUT = {"qrels": "query iter doc rel", "run": "query Q0 doc rank score tag", "ranked-list": "query doc",
           "scored-list": "query doc score"}
_WHAT = {2: "ranked-list", 3: "scored-list", 6: "run", 4: "qrels"}


# ---------------------------------------------------------------- naming the line refused

def _refused(refusal: Refused, name: str, grades: str = "integer") -> InputError:
    """The error for the line the compiled reader stopped at: what is wrong with it, in the file's words."""
    number, raw = refusal.line, refusal.text
    if refusal.reason == REFUSED_NUL:
        return InputError("binary data (a NUL byte), not a text file of qrels or a run; check that this "
                          "is the right file", source=name, line=number)
    if refusal.reason == REFUSED_LONG_ID:
        return InputError("an id longer than 2 GiB: not a file of qrels or a run; check that this is the right "
                          "file", source=name, line=number)
    nfields = refusal.layout
    what = _WHAT[nfields]
    fields = raw.split(None, nfields)
    if wrong_field_count(fields, nfields):
        return field_count_error(raw, fields, nfields, name, number)
    if what == "qrels":
        return _grade_error(fields[3], grades, name, number)
    field = 2 if what == "scored-list" else 4
    return InputError(f"score {shown_repr(decode_id(fields[field]))} is not a finite number (field {field + 1} of "
                      f"{_LAYOUT[what]}); fix the score", source=name, line=number)


def wrong_field_count(fields: list[bytes], nfields: int) -> bool:
    """Whether a line split as ``raw.split(None, nfields)`` has too few fields, or too many for an exact layout
    (every layout but a run's, whose tag may hold spaces)."""
    return len(fields) < nfields or (_WHAT[nfields] != "run" and len(fields) > nfields)


def field_count_error(raw: bytes, fields: list[bytes], nfields: int, name: str, number: int) -> InputError:
    """The error for a line with the wrong number of fields (see :func:`wrong_field_count`), with a hint when the
    line looks like another layout or another separator."""
    what = _WHAT[nfields]
    count = len(fields) if len(fields) <= nfields else nfields + _field_count(fields[nfields])
    need = f"at least {nfields}" if what == "run" else f"exactly {nfields}"
    if what == "run" and len(fields) < nfields:
        need += " (or 3: query doc score, or 2: query doc)"
    return InputError(f"{count} field{'s' * (count != 1)} where a {what} line has "
                      f"{need} ({_LAYOUT[what]}): {_excerpt(raw)}; {_hint(what, fields, count)}",
                      source=name, line=number)


def _excerpt(raw: bytes) -> str:
    return shown_repr(decode_id(raw.strip()))


_SPACE_BYTES = np.zeros(256, dtype=bool)
_SPACE_BYTES[list(b" \t\n\r\x0b\x0c")] = True


def _field_count(text: bytes) -> int:
    """``len(text.split())`` without making the fields (a line may hold millions)."""
    space = _SPACE_BYTES[np.frombuffer(text, dtype=np.uint8)]
    return int(np.count_nonzero(~space[1:] & space[:-1])) + (len(text) > 0 and not space[0])


def _hint(what: str, fields: list[bytes], count: int) -> str:
    if count == 1 and (b"," in fields[0] or b";" in fields[0]):
        return "this looks comma-separated; TREC files separate fields with spaces or tabs"
    if what == "qrels" and count >= 6:
        return "this looks like a run line; check the argument order (qrels first, then the run)"
    if what in ("run", "scored-list") and count == 4:
        return "this looks like a qrels line; check the argument order (qrels first, then the run)"
    return "fix or remove the line"


def _grade_error(grade: bytes, policy: str, name: str, number: int) -> InputError:
    """What is wrong with a grade the reader refused under ``policy``."""
    shown = shown_repr(decode_id(grade))
    if policy == "real" and _FLOAT.fullmatch(grade) and not math.isfinite(float(grade)):
        return InputError(f"grade {shown_id(grade)} is out of range; grades are finite numbers",
                          source=name, line=number)
    if policy != "real" and (_INT.fullmatch(grade) or policy == "truncate" and _FLOAT.fullmatch(grade)):
        return InputError(f"grade {shown_id(grade)} is out of range; grades are small integers",
                          source=name, line=number)
    if policy == "integer" and _FLOAT.fullmatch(grade):
        return InputError(f"grade {shown} is not an integer (trec_eval would silently truncate it toward zero; fix "
                          "the grade, pass grades='real' (--grades real) to keep fractional grades, or "
                          "truncate_grades=True to truncate as trec_eval does)", source=name, line=number)
    what, expected = ("a number", "numbers such as 0, 0.5, 2") if policy == "real" else \
        ("an integer", "integers such as 0, 1, 2")
    return InputError(f"grade {shown} is not {what} (field 4 of query iter doc rel); grades are {expected}",
                      source=name, line=number)


# ---------------------------------------------------------------- public readers

def read_big_file(src, kind: str, grades: str = "integer", first: tuple | None = None):
    """The Qrels or Run of a big TREC file left open after its head (:class:`~rankmeter.io.source.Source`),
    parsed as it streams in (:func:`rankmeter.io.compiled.read_stream`); ``first``: its first data line."""
    from rankmeter.io.compiled import read_stream
    answer = read_stream(src, kind, grades, first or first_data_line(src.head))
    table = qrels_answer(answer, src.name, grades) if kind == "qrels" else run_answer(answer, src.name)
    from rankmeter.engine.memory import give_back
    give_back()  # the blocks' freed memory back to the OS before the engine allocates its own
    return table


def read_text(data: bytes, name: str, kind: str, *, style: str = "trec", header: bool = False, columns=None,
              grades: str = "integer", first: tuple | None = None, fields: list | None = None):
    """The reader of the ``trec`` format (:mod:`rankmeter.io.formats`): TREC text by the compiled reader; a
    whitespace-separated file with a header line, or with ``columns=`` given by position, by
    :mod:`rankmeter.io.delimited`."""
    if header or columns:
        from rankmeter.io.delimited import read_delimited
        return read_delimited(data, name, kind, "whitespace", header=header, columns=columns, grades=grades,
                              first=first, fields=fields)
    if kind == "qrels":
        return qrels_from_bytes(data, name, grades=grades)
    return run_from_bytes(data, name, first=first)


def qrels_from_bytes(data: bytes, name: str, *, grades: str = "integer") -> Qrels:
    """TREC qrels text already read and checked (``grades``: a grade policy)."""
    return qrels_answer(parse_qrels(data, name, grades), name, grades)


def qrels_answer(answer, name: str, grades: str) -> Qrels:
    """The compiled reader's answer for qrels: the Qrels, or the error it stands for."""
    if isinstance(answer, Refused):
        raise _refused(answer, name, grades)
    if answer is None:
        raise InputError("no judgments: only comments or blank lines", source=name)
    return answer


def run_answer(answer, name: str):
    """The compiled reader's answer for a run: the Run (or Run and fields), or the error it stands for."""
    if isinstance(answer, Refused):
        raise _refused(answer, name)
    if answer is None:
        raise InputError("no results: only comments or blank lines", source=name)
    return answer


def run_from_bytes(data: bytes, name: str, *, first: tuple | None = None) -> Run:
    """A TREC run's text already read and checked (``first``: its first data line, when known)."""
    return run_answer(parse_run(data, name, first_line=(first or first_data_line(data))[2]), name)


def run_from_block(block: bytes, name: str) -> Run:
    """A block of whole lines of a big run (the streamed executor's), parsed on this thread in one piece
    whose columns become the Run's; its own first row decides its layout."""
    return run_answer(parse_run(block, name, first_line=first_data_line(block)[2], one_piece=True), name)


def run_fields_from_bytes(data: bytes, name: str) -> tuple[Run, dict]:
    """:func:`run_from_bytes` and, for six-field lines, the fields the run drops.

    The second value maps ``"rank"`` and ``"tag"`` to the rank and tag field
    of every row (binary Arrow arrays, as written);
    it is empty for two- and three-field files. Only :mod:`rankmeter.check` looks at them.
    """
    run, fields = run_answer(parse_run(data, name, first_line=first_data_line(data)[2], fields=True), name)
    return run, {role: ids.arrow() for role, ids in fields.items()}
