"""Readers for trec_eval's other relevance formats and its run order, for ``-R prefs|qrels_prefs|qrels_jg``.

* ``prefs``: ``qid jg jsg docno rel_level`` (get_prefs.c)
* ``qrels_prefs``: a qrels file read as preferences, ``qid jg docno rel_level``
  with the iter field as the judgment group and one sub-group (get_qrels_prefs.c)
* ``qrels_jg``: ``qid jg docno rel``, each jg judged on its own (get_qrels_jg.c)

Lines whose first character is ``#`` are comments; fields are separated by
whitespace. Ids stay bytes (compared like C ``strcmp``).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from rankmeter.errors import InputError
from rankmeter.measures.trec_eval.prefs import PrefJudgments

__all__ = ["read_prefs", "read_qrels_jg", "ranked_docs"]


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


def ranked_docs(run, *, max_docs: int | None, ties_descending: bool) -> dict[bytes, np.ndarray]:
    """Each query's documents in the engine's rank order (:func:`rankmeter.core.rows.ranked`), cut to
    ``max_docs``.

    Ties: form_res_rels_jg.c (qrels_jg) orders them by docno descending like the qrels path (the
    engine's order); form_prefs_counts.c (prefs) by docno ASCENDING (its comp_sim_docno compares p1 to
    p2): each tied group of the engine's order read backwards.
    """
    from rankmeter.core.rows import ranked

    rows = ranked(run, as_bytes=True)
    if rows.num_rows == 0:
        return {}
    position = np.arange(rows.num_rows)
    if not ties_descending:
        group = rows.column("tie_group").to_numpy()
        size = rows.column("tie_size").to_numpy()
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])[group]
        position = 2 * first + size - 1 - position  # the group's rows in reverse
    rank = rows.column("rank").to_numpy()
    keep = rank <= max(max_docs, 0) if max_docs is not None else np.ones(len(rank), dtype=bool)
    query = np.array(rows.column("query").to_pylist(), dtype=object).astype(bytes)[keep]
    doc = np.array(rows.column("doc").take(pa.array(position)).to_pylist(), dtype=object).astype(bytes)[keep]
    starts = np.flatnonzero(rank[keep] == 1)
    ends = np.r_[starts[1:], len(doc)]
    out = {q: doc[:0] for q in rows.column("query").unique().to_pylist()}  # -M 0 keeps every query, empty
    out.update({bytes(query[s]): doc[s:e] for s, e in zip(starts.tolist(), ends.tolist())})
    return out
