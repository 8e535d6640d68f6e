"""Readers for trec_eval's other relevance formats, ``-R prefs|qrels_prefs|qrels_jg``.

* ``prefs``: ``qid jg jsg docno rel_level`` (get_prefs.c)
* ``qrels_prefs``: a qrels file read as preferences, ``qid jg docno rel_level``
  with the iter field as the judgment group and one sub-group (get_qrels_prefs.c)
* ``qrels_jg``: ``qid jg docno rel``, each jg judged on its own (get_qrels_jg.c)

Lines whose first character is ``#`` are comments; fields are separated by
whitespace. Ids stay bytes (compared like C ``strcmp``). The measures over them are in
:mod:`rankmeter.measures.trec_eval.prefs` and :mod:`rankmeter.measures.trec_eval.judgment_groups`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputError

__all__ = ["PrefJudgments", "read_prefs", "read_qrels_jg"]


@dataclass(frozen=True)
class PrefJudgments:
    """One query's preference lines: parallel arrays (``S`` bytes for ids, float levels)."""

    jg: np.ndarray
    jsg: np.ndarray
    doc: np.ndarray
    level: np.ndarray


def _lines(path: str):
    from rankmeter.io.source import load_bytes  # every reader's opening: compression, -, recorded as an input
    data, _ = load_bytes(path)
    for number, line in enumerate(data.splitlines(), start=1):
        if line.startswith(b"#"):
            continue
        fields = line.split()
        if fields:
            yield number, fields


def _number(text: bytes, path: str, line: int, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise InputError(f"the relevance value {text.decode(errors='replace')!r} is not a number",
                         source=path, line=line) from None


def read_prefs(path: str, *, form: str = "prefs") -> dict[bytes, PrefJudgments]:
    """Read a ``prefs`` (5 fields) or ``qrels_prefs`` (4 fields) file, per query.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", delete=False) as fh:
    ...     _ = fh.write(b"# c\\n1 g s d1 2\\n1 g s d2 0\\n")
    >>> read_prefs(fh.name)[b"1"].level.tolist()
    [2.0, 0.0]
    >>> os.remove(fh.name)
    """
    width = 5 if form == "prefs" else 4
    rows: dict[bytes, list] = {}
    for number, fields in _lines(path):
        if len(fields) != width:
            raise InputError(f"expected {width} fields for -R {form}, got {len(fields)}", source=path, line=number)
        if width == 5:
            qid, jg, jsg, doc, rel = fields
        else:
            (qid, jg, doc, rel), jsg = fields, b"0"
        rows.setdefault(qid, []).append((jg, jsg, doc, _number(rel, path, number)))
    out = {}
    for qid in sorted(rows):
        jg, jsg, doc, level = zip(*rows[qid])
        out[qid] = PrefJudgments(np.array(jg, dtype=object).astype(bytes), np.array(jsg, dtype=object).astype(bytes),
                                 np.array(doc, dtype=object).astype(bytes), np.array(level, dtype=np.float64))
    return out


def read_qrels_jg(path: str) -> dict[bytes, list[tuple[np.ndarray, np.ndarray]]]:
    """Read a ``qrels_jg`` file: per query, (docs, grades) per judgment group in group-id order.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", delete=False) as fh:
    ...     _ = fh.write(b"1 b d1 1\\n1 a d2 0\\n")
    >>> [g[0].tolist() for g in read_qrels_jg(fh.name)[b"1"]]
    [[b'd2'], [b'd1']]
    >>> os.remove(fh.name)
    """
    rows: dict[bytes, dict[bytes, list]] = {}
    for number, fields in _lines(path):
        if len(fields) != 4:
            raise InputError(f"expected 4 fields 'qid jg docno rel' for -R qrels_jg, got {len(fields)}",
                             source=path, line=number)
        qid, jg, doc, rel = fields
        rows.setdefault(qid, {}).setdefault(jg, []).append((doc, _number(rel, path, number, int)))
    out = {}
    for qid in sorted(rows):
        groups = []
        for jg in sorted(rows[qid]):
            docs, rels = zip(*rows[qid][jg])
            groups.append((np.array(docs, dtype=object).astype(bytes), np.array(rels, dtype=np.int64)))
        out[qid] = groups
    return out
