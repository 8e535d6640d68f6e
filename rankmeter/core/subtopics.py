"""Subtopic judgments (``qid subtopic docno grade``) keyed once, and the per-batch side diversity kernels read.

A diversity qrels judges a doc once per subtopic (intent) of a query. The
ordinary families see one grade per (query, doc), the highest of its subtopic
grades (:func:`collapse_subtopics`); the diversity families read every
(doc, subtopic) judgment through :class:`SubtopicSide`, built for a batch's
queries by :meth:`SubtopicIndex.side` from the rows the join found.

Qrels without a ``subtopic`` column have one subtopic per query.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankmeter.errors import InputError
from rankmeter.io.canonical import Qrels, decode_id, encode_id

if TYPE_CHECKING:  # pyarrow is imported where it is used: TREC text read by the compiled reader never loads it
    import pyarrow as pa

__all__ = ["SubtopicSide", "SubtopicIndex", "collapse_subtopics"]


def _segment_starts(changed: np.ndarray) -> np.ndarray:
    """Start of each run of rows, given for rows 1.. whether a row starts a new run."""
    return np.concatenate(([0], np.flatnonzero(changed) + 1)).astype(np.int64)


def collapse_subtopics(qrels: Qrels, code: np.ndarray, docs: pa.Array, grades: np.ndarray):
    """One row per (query, doc) of a qrels that has a subtopic column.

    Returns ``(first, group, grade)``: the original row kept for each (query,
    doc), the kept row index of every original row, and the highest grade of
    each (query, doc) over its subtopics (what ordinary families read; trec_eval
    would refuse the repeated doc). A (query, subtopic, doc) judged twice is
    an error.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    subtopic = qrels.table.column("subtopic").combine_chunks()
    keys = pa.table({"c": code, "d": docs, "s": subtopic})
    order = pc.sort_indices(keys, sort_keys=[("c", "ascending"), ("d", "ascending"), ("s", "ascending")]).to_numpy()
    n = len(order)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), grades
    sorted_docs = docs.take(pa.array(order))
    sorted_sub = subtopic.take(pa.array(order))
    same_doc = (code[order][1:] == code[order][:-1]) & \
        pc.equal(sorted_docs.slice(1), sorted_docs.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    same_sub = pc.equal(sorted_sub.slice(1), sorted_sub.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    twice = np.flatnonzero(same_doc & same_sub)
    if len(twice):
        a, b = sorted(int(r) for r in order[twice[0]: twice[0] + 2])
        raise InputError(f"doc {decode_id(docs[a].as_py())} is judged twice for query "
                         f"{decode_id(qrels.table.column('query')[a].as_py())} and subtopic "
                         f"{decode_id(subtopic[a].as_py())}: keep one", **qrels.locate(a, b))
    starts = _segment_starts(~same_doc)
    group = np.empty(n, np.int64)
    group[order] = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    return order[starts], group, np.maximum.reduceat(grades[order], starts)


@dataclass(frozen=True, eq=False)
class SubtopicSide:
    """The subtopic judgments of a batch's ``nq`` queries.

    Subtopics are numbered 0..T-1 over the batch (``sub_query`` gives each
    one's query). Judged entries (one per judged (doc, subtopic)) are grouped
    by query, their docs in descending docno order (ndeval's tie-break for the
    ideal ranking), numbered 0..D-1 (``doc_query``): ``judged_doc``,
    ``judged_sub``, ``judged_grade``. Ranked entries are the judgments of the
    ranked docs: ``ranked_pos`` (index into the batch's per-rank arrays,
    ascending), ``ranked_sub``, ``ranked_grade``.
    """

    sub_query: np.ndarray
    doc_query: np.ndarray
    judged_doc: np.ndarray
    judged_sub: np.ndarray
    judged_grade: np.ndarray
    ranked_pos: np.ndarray
    ranked_sub: np.ndarray
    ranked_grade: np.ndarray
    #: each subtopic's given probability (``intents=``), None when intents are equally likely
    sub_weight: np.ndarray | None = None

    def keep(self, keep: np.ndarray) -> "SubtopicSide":
        """The side of the batch whose ranks are those where ``keep`` (per rank) is True."""
        new_pos = np.cumsum(keep) - 1
        inside = keep[self.ranked_pos]
        return SubtopicSide(self.sub_query, self.doc_query, self.judged_doc, self.judged_sub, self.judged_grade,
                            new_pos[self.ranked_pos[inside]], self.ranked_sub[inside], self.ranked_grade[inside],
                            self.sub_weight)


class SubtopicIndex:
    """The subtopic judgments of a prepared qrels (``Judgments``), grouped once for gathering.

    Parameters
    ----------
    row_code, kept_docs : query code and doc id of each kept (query, doc) row of the judgments
    entry_row, entry_sub, entry_grade : per original judgment, its kept row, subtopic id and grade
    """

    def __init__(self, row_code: np.ndarray, kept_docs: pa.Array, entry_row: np.ndarray,
                 entry_sub: pa.Array | None, entry_grade: np.ndarray):
        import pyarrow as pa
        import pyarrow.compute as pc
        nrows = len(row_code)
        # kept rows by query, docno descending: the position of a row in this order is its doc rank
        by_doc = pc.sort_indices(pa.table({"c": row_code, "d": kept_docs}),
                                 sort_keys=[("c", "ascending"), ("d", "descending")]).to_numpy()
        doc_rank = np.empty(nrows, np.int64)
        doc_rank[by_doc] = np.arange(nrows)
        self.sub_values: pa.Array | None = None
        self.weight_keys = self.weights = None
        if entry_sub is None:
            sub_id = np.zeros(len(entry_row), np.int64)
        else:
            if isinstance(entry_sub, pa.ChunkedArray):
                entry_sub = entry_sub.combine_chunks()
            encoded = pc.dictionary_encode(entry_sub)
            self.sub_values = encoded.dictionary
            sub_id = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        self.width = 1 if self.sub_values is None else max(len(self.sub_values), 1)
        # int64: keys are made as code * width + subtopic (int32 codes would wrap past 2**31)
        self.entry_code = row_code[entry_row].astype(np.int64) if len(entry_row) else np.zeros(0, np.int64)
        # entries by (query, doc rank, subtopic): judged side order; and grouped by kept row
        order = np.lexsort((sub_id, doc_rank[entry_row], self.entry_code))
        self.entry_row, self.entry_sub, self.entry_grade = entry_row[order], sub_id[order], entry_grade[order]
        self.entry_code = self.entry_code[order]
        nq = int(row_code.max()) + 1 if nrows else 0
        self.query_offsets = np.concatenate(([0], np.cumsum(np.bincount(self.entry_code, minlength=nq))))
        by_row = np.argsort(self.entry_row, kind="stable")
        self.row_entries = by_row
        self.row_offsets = np.concatenate(([0], np.cumsum(np.bincount(self.entry_row, minlength=nrows))))

    def set_intents(self, intents, query_ids: pa.Array) -> None:
        """Weigh the subtopics by ``{query: {subtopic: probability}}``: a subtopic a listed query does not
        name weighs 0, a query not listed weighs its subtopics equally. Without subtopics there is nothing
        to weigh."""
        import pyarrow as pa
        if self.sub_values is None:
            return
        given = {encode_id(q): {encode_id(s): float(w) for s, w in weights.items()} for q, weights in intents.items()}
        keys = np.unique(self.entry_code * self.width + self.entry_sub)
        queries = query_ids.take(pa.array(keys // self.width)).to_pylist()
        subtopics = self.sub_values.take(pa.array(keys % self.width)).to_pylist()
        self.weight_keys = keys
        self.weights = np.array([given[q].get(s, 0.0) if q in given else 1.0 for q, s in zip(queries, subtopics)],
                                dtype=np.float64)

    def side(self, codes: np.ndarray, offsets: np.ndarray, rank_rows: np.ndarray) -> SubtopicSide:
        """The side of the queries ``codes`` (rankings at ``offsets``) whose ranks joined the kept rows
        ``rank_rows`` (-1: not judged)."""
        from rankmeter.engine.segments import gather_segments
        rows, judged_offsets = gather_segments(self.query_offsets, np.asarray(codes, np.int64))
        query = np.repeat(np.arange(len(codes)), np.diff(judged_offsets))
        width = self.width
        pairs, sub = np.unique(query * width + self.entry_sub[rows], return_inverse=True)
        row = self.entry_row[rows]
        new_doc = np.ones(len(row), bool)
        new_doc[1:] = row[1:] != row[:-1]
        # the ranked docs' entries, positions ascending
        pos = np.flatnonzero(rank_rows >= 0)
        lo = self.row_offsets[rank_rows[pos]]
        n_each = self.row_offsets[rank_rows[pos] + 1] - lo
        take = self.row_entries[np.repeat(lo, n_each) + _within(n_each)]
        ranked_pos = np.repeat(pos, n_each)
        rank_query = np.searchsorted(offsets, ranked_pos, side="right") - 1
        ranked_sub = np.searchsorted(pairs, rank_query * width + self.entry_sub[take])
        weight = None
        if self.weights is not None:
            codes = np.asarray(codes, np.int64)
            weight = self.weights[np.searchsorted(self.weight_keys, codes[pairs // width] * width + pairs % width)]
        return SubtopicSide(pairs // width, query[new_doc], np.cumsum(new_doc) - 1, sub.reshape(-1),
                            self.entry_grade[rows], ranked_pos, ranked_sub, self.entry_grade[take], weight)


def _within(counts: np.ndarray) -> np.ndarray:
    """0..n-1 within each segment of the given lengths."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total) - starts
