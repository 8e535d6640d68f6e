"""The qrels keyed once: query codes, per-query judged grades and a hash index of (query, doc).

Preparing is the only pass over the qrels; every run (and every part of a
run) then only probes: :meth:`Judgments.query_codes` maps a run's query ids to
codes, :meth:`Judgments.grades` joins its (query, doc) rows to grades, and
:meth:`Judgments.judged_side` gathers the judged grades of some queries.

Query codes number the judged queries in bytewise id order (C ``strcmp``),
so sorting by code is trec_eval's query order.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, decode_id
from rankmeter.engine.batch import NONPOOL, UNJUDGED
from rankmeter.engine.ids import Ids
from rankmeter.engine.memory import give_back
from rankmeter.engine.groups import local_queries
from rankmeter.engine.keys import HashIndex, pair_hash
from rankmeter.engine.exact import first_repeat, relookup
from rankmeter.engine.segments import gather_segments, segment_offsets
from rankmeter.core.subtopics import SubtopicIndex, collapse_subtopics

__all__ = ["Judgments", "segment_offsets", "gather_segments"]


def duplicate_rows(keys: np.ndarray, code: np.ndarray, docs: Ids) -> tuple[int, int] | None:
    """The first pair of rows with the same (query code, doc), verified exactly, or None (``keys``: their
    :func:`~rankmeter.engine.keys.pair_hash`)."""
    # a plain sort (several times faster than argsort) answers the usual case: no duplicates
    plain = np.sort(keys)
    if not (plain[1:] == plain[:-1]).any():
        return None
    del plain
    order = np.argsort(keys)
    sorted_keys = keys[order]
    same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    return first_duplicate(order[same], order[same + 1], code, docs)


def first_duplicate(first: np.ndarray, second: np.ndarray, code: np.ndarray,
                    docs: Ids) -> tuple[int, int] | None:
    """Of the rows in the pairs with equal hash keys, the first row that repeats an earlier row's (query code,
    doc), compared exactly (the line that repeats an earlier one), and that earlier row; or None. All the rows
    of the pairs are compared with each other, not only each pair: three rows of one hash may be two ids."""
    if len(first) == 0:
        return None
    return first_repeat(np.concatenate([first, second]), code, docs)


class Judgments:
    """A :class:`Qrels` prepared for scoring many runs (see module docstring)."""

    def __init__(self, qrels: Qrels, *, intents=None):
        self.qrels = qrels
        self.intents = intents
        query = qrels.ids("query")
        self.docs = qrels.ids("doc")
        grades = qrels.numbers("rel")
        distinct, local = local_queries(query)  # a qrels written query by query: its blocks' first ids only
        order = distinct.argsort()
        self.ids: Ids = distinct.take(order)
        # int32 codes (query_starts' indices are int32 too): a 10M-judgment qrels keeps 40 MB of them, not 80
        rank = np.empty(len(order), np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        code = rank[local] if len(query) else np.zeros(0, np.int32)
        del local, rank
        self.nq = len(self.ids)
        self._entries = None
        diverse = "subtopic" in qrels.column_names
        if diverse:  # a diversity qrels: one row per (query, doc) from here on
            first, group, grades = collapse_subtopics(qrels, code, self.docs.arrow(), grades)
            self._entries = (group, qrels.table.column("subtopic"), qrels.numbers("rel"))
            code, self.docs = code[first], self.docs.take(first)
        self.row_code = code  # what batches get is widened again
        self.real_grades = grades.dtype.kind == "f"
        self.row_grade = grades  # the table's own column (no copy): it stays held by the table anyway
        self.id_index = HashIndex(self.ids.hashes())
        doc_hash = qrels.doc_hash if qrels.doc_hash is not None and len(qrels.doc_hash) == len(self.docs) \
            and not diverse else self.docs.hashes()
        self.pair_index = HashIndex(pair_hash(code, doc_hash), consume=True)
        del doc_hash
        dup = first_duplicate(*self.pair_index.repeated(), code, self.docs)
        if dup is not None:
            doc, q = self.docs[dup[0]], self.ids[int(code[dup[0]])]
            todo = ("remove one of the lines" if qrels.origin == "file"
                    else "drop one of the rows" if qrels.origin == "frame" else "keep one")
            raise InputError(f"doc {decode_id(doc)} is judged twice for query {decode_id(q)}; a qrels list a doc "
                             f"only once per query (trec_eval aborts too): {todo}", **qrels.locate(*dup))
        # judged grades of each query, highest first: one sort of (code, -grade) packed in one integer key,
        # whose sorted values give both the grades and the query offsets (real grades: a lexsort of the two)
        low, high = (int(grades.min()), int(grades.max())) if len(grades) and not self.real_grades else (0, 0)
        span = high - low + 1
        if len(grades) and (self.real_grades or self.nq * span >= 2 ** 63):  # real grades, or too far apart
            # ~g orders integers in reverse without overflowing (-g leaves -2**63 where it is)
            judged = np.lexsort((-grades if self.real_grades else ~grades, code))
            self.judged_rel = self.row_grade[judged]
            self.judged_offsets = segment_offsets(np.bincount(code, minlength=self.nq))
            del judged
        elif len(grades):
            # int32 keys when they fit: half the memory (wrapping steps end exact: every key is in
            # [0, nq * span))
            narrow = self.nq * span < 2 ** 31 and -2 ** 31 <= low and high < 2 ** 31
            kind = np.int32 if narrow else np.int64
            key = code.astype(kind)
            key *= kind(span)
            key += kind(high)
            np.subtract(key, grades, out=key, casting="unsafe")  # grades fit int32 when kind is int32
            key.sort()
            self.judged_offsets = np.searchsorted(key, np.arange(self.nq + 1, dtype=kind) * kind(span))
            key %= kind(span)
            np.subtract(kind(high), key, out=key)
            self.judged_rel = key  # int32 when the grades fit: what batches get is widened again
            del key
        else:
            self.judged_rel = self.row_grade[:0]
            self.judged_offsets = np.zeros(self.nq + 1, np.int64)
        del grades, code
        if len(self.row_code) > 1 << 20:
            give_back()  # the temporaries of reading and keying go back to the OS

    @cached_property
    def subtopics(self) -> SubtopicIndex:
        """The subtopic judgments, keyed on first use (one subtopic per query without a subtopic column)."""
        if self._entries is None:
            rows = np.arange(len(self.row_code))
            index = SubtopicIndex(self.row_code, self.docs.arrow(), rows, None, self.row_grade)
        else:
            index = SubtopicIndex(self.row_code, self.docs.arrow(), *self._entries)
        if self.intents is not None:
            index.set_intents(self.intents, self.ids.arrow())
        return index

    def query_codes(self, names: Ids) -> np.ndarray:
        """Code of each query id in ``names``, -1 for ids the qrels do not judge."""
        hashes = names.hashes()
        found = self.id_index.lookup(hashes)
        hit = np.flatnonzero(found >= 0)
        if len(hit):
            wrong = hit[~names.equal_rows(hit, self.ids, found[hit])]
            if len(wrong):  # another id of the same hash: looked for among every judged query of that hash
                found[wrong] = relookup(self.id_index, hashes[wrong], names.take(wrong), self.ids)
        return found

    def grades(self, code: np.ndarray, docs: Ids, keys: np.ndarray, *, rows: bool = False,
               doc_rows: np.ndarray | None = None):
        """Grade of each (query code, doc) row: the qrels grade, NONPOOL when not judged, UNJUDGED when < 0.

        ``keys`` are the rows' :func:`~rankmeter.engine.keys.pair_hash` keys; row i's doc is ``docs[doc_rows[i]]``
        (``docs[i]`` without ``doc_rows``). ``rows=True`` also returns the judgments row each one joined (-1 for
        none).
        """
        out = np.full(len(code), NONPOOL, dtype=np.float64 if self.real_grades else np.int64)
        found = self.pair_index.lookup(keys)
        hit = np.flatnonzero(found >= 0)
        if len(hit):
            at = hit if doc_rows is None else doc_rows[hit]
            qrow = found[hit]
            same = (self.row_code[qrow] == code[hit]) & docs.equal_rows(at, self.docs, qrow)
            if not same.all():  # another (query, doc) of the same hash: looked for among every judgment of it
                wrong = hit[~same]
                found[wrong] = relookup(self.pair_index, keys[wrong], docs.take(at[~same]), self.docs,
                                        code[wrong], self.row_code)
                hit = np.flatnonzero(found >= 0)
                qrow = found[hit]
            grades = self.row_grade[qrow]
            out[hit] = np.where(grades < 0, UNJUDGED, grades)
        return (out, found) if rows else out

    def judged_side(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Judged grades (descending per query) and offsets for the queries ``codes``, in that order."""
        rows, offsets = gather_segments(self.judged_offsets, codes)
        return self.judged_rel[rows].astype(np.float64 if self.real_grades else np.int64), offsets

    def names(self, codes: np.ndarray) -> list[bytes]:
        return self.ids.take(codes).to_pylist() if len(codes) else []
