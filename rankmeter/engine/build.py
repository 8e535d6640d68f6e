"""Ordering and join, done once: canonical tables -> :class:`Batch`.

Order (MEASURES.md section 2, trec_eval's ``comp_sim_docno``): score
descending, then docno descending compared bytewise. Relevance of a ranked
doc: its qrels grade, ``NONPOOL`` when the qrels do not list it, ``UNJUDGED``
when they list it with a negative grade (trec_eval's ``form_res_rels``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError, ParameterError
from ..tables import Qrels, Run, decode_id
from .batch import NONPOOL, UNJUDGED, Batch
from .keys import binary_parts, hash_lookup, id_words, mix_hash
from .order import rank_order

__all__ = ["build_batch", "BatchInfo", "QUERY_POLICIES", "TIE_POLICIES"]

QUERY_POLICIES = ("both", "qrels")
TIE_POLICIES = ("trec_eval", "input")


@dataclass(frozen=True)
class BatchInfo:
    """What the builder decided: queries left out and why."""

    missing_from_run: tuple[bytes, ...]
    only_in_run: tuple[bytes, ...]


class _Keyed:
    """A table's ids as numbers: query codes (shared across tables) and doc words."""

    def __init__(self, qcode: np.ndarray, nwords: int, doc_parts):
        self.qcode = qcode
        offsets, values = doc_parts
        self.words = id_words(offsets, values, nwords)
        self.hash = mix_hash(self.qcode, self.words)


def _local_queries(column: pa.ChunkedArray) -> tuple[list[bytes], np.ndarray]:
    """Distinct query ids of one column and each row's index into them.

    Rows of one query usually stand together, so only the first row of each
    run of equal ids is looked at (Arrow compares the binary ids exactly).
    """
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    n = len(col)
    if n == 0:
        return [], np.zeros(0, np.int64)
    differs = pc.not_equal(col.slice(1), col.slice(0, n - 1))
    change = np.flatnonzero(np.frombuffer(pc.cast(differs, pa.uint8()).buffers()[1], np.uint8)[:n - 1]) + 1
    heads = np.concatenate(([0], change))
    if len(heads) > 50_000 and len(heads) * 8 > n:  # not grouped by query: hash them all in Arrow
        encoded = pc.dictionary_encode(col)
        return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    head_ids = col.take(pa.array(heads)).to_pylist()
    label_of: dict[bytes, int] = {}
    head_label = np.fromiter((label_of.setdefault(q, len(label_of)) for q in head_ids), np.int64, len(head_ids))
    lengths = np.diff(np.concatenate((heads, [n])))
    return list(label_of), np.repeat(head_label, lengths)


def _query_codes(*columns: pa.ChunkedArray) -> tuple[list[bytes], list[np.ndarray]]:
    """Codes of query ids shared by several columns, numbered in bytewise order."""
    locals_ = [_local_queries(col) for col in columns]
    universe = sorted(set().union(*(names for names, _ in locals_)))
    code_of = {q: i for i, q in enumerate(universe)}
    codes = []
    for names, idx in locals_:
        mapping = np.fromiter((code_of[q] for q in names), dtype=np.int64, count=len(names))
        codes.append(mapping[idx] if len(idx) else np.zeros(0, np.int64))
    return universe, codes


def _check_duplicates(keyed: _Keyed, table: Qrels | Run, universe: list[bytes], kind: str) -> None:
    hashes = np.sort(keyed.hash)
    if len(hashes) < 2 or not (hashes[1:] == hashes[:-1]).any():
        return
    suspects = np.flatnonzero(np.isin(keyed.hash, hashes[1:][hashes[1:] == hashes[:-1]]))
    seen: dict[tuple, int] = {}
    for row in suspects.tolist():
        key = (int(keyed.qcode[row]), tuple(int(w) for w in keyed.words[:, row]))
        if key in seen:
            first = seen[key]
            doc = table.table.column("doc")[row].as_py()
            todo = ("remove one of the lines" if table.origin == "file"
                    else "drop one of the rows" if table.origin == "frame" else "keep one")
            verb, whose = ("is judged", "qrels list") if kind == "qrels" else ("appears", "a run lists")
            raise InputError(
                f"doc {decode_id(doc)} {verb} twice for query {decode_id(universe[key[0]])}; "
                f"{whose} a doc only once per query (trec_eval aborts too): {todo}",
                **table.locate(first, row))
        seen[key] = row


def build_batch(qrels: Qrels, run: Run, *, queries: str = "both",
                max_docs: int | None = None, ties: str = "trec_eval",
                keep_docs: bool = False, qrels_max_grade: int | None = None) -> tuple[Batch, BatchInfo]:
    """Order ``run``, join ``qrels`` and return the per-query batch plus what was left out.

    Parameters
    ----------
    qrels, run : Qrels, Run
    queries : {"both", "qrels"}
        ``"both"``: queries in both inputs. ``"qrels"`` (trec_eval ``-c``): every
        qrels query; one the run lacks has an empty ranking.
    max_docs : int, optional
        trec_eval ``-M``: keep only the first ``max_docs`` of each ranking.
    ties : {"trec_eval", "input"}
        ``"trec_eval"``: score descending then docno descending.
        ``"input"``: keep the order given within each query.
    keep_docs : bool
        Keep doc ids and scores in rank order on the batch (for explanations).
    qrels_max_grade : int, optional
        Highest grade of the whole qrels when ``qrels`` is only a part of it
        (a partition, or one query); default: the highest grade in ``qrels``.
    """
    if queries not in QUERY_POLICIES:
        raise ParameterError(f"queries={queries!r}: expected one of {QUERY_POLICIES}")
    if ties not in TIE_POLICIES:
        raise ParameterError(f"ties={ties!r}: expected one of {TIE_POLICIES}")
    if max_docs is not None and max_docs < 0:
        raise ParameterError(f"max_docs={max_docs!r}: expected a non-negative integer")

    universe, (q_codes, r_codes) = _query_codes(qrels.table.column("query"), run.table.column("query"))
    q_parts = binary_parts(qrels.table.column("doc"))
    r_parts = binary_parts(run.table.column("doc"))
    longest = max(int(np.diff(q_parts[0]).max(initial=0)), int(np.diff(r_parts[0]).max(initial=0)), 1)
    nwords = (longest + 7) // 8
    qk = _Keyed(q_codes, nwords, q_parts)
    rk = _Keyed(r_codes, nwords, r_parts)
    _check_duplicates(qk, qrels, universe, "qrels")
    _check_duplicates(rk, run, universe, "run")

    # Which queries count.
    in_qrels = np.zeros(len(universe), dtype=bool)
    in_qrels[q_codes] = True
    in_run = np.zeros(len(universe), dtype=bool)
    in_run[r_codes] = True
    selected = in_qrels & in_run if queries == "both" else in_qrels
    info = BatchInfo(
        missing_from_run=tuple(universe[i] for i in np.flatnonzero(in_qrels & ~in_run)),
        only_in_run=tuple(universe[i] for i in np.flatnonzero(in_run & ~in_qrels)),
    )
    new_code = np.cumsum(selected) - 1  # universe code -> batch query index

    # Join, on the run's rows: grade of each doc, through the (query, doc) hashes, verified exactly.
    row_rel = np.full(len(rk.hash), NONPOOL, dtype=np.int64)
    if len(qk.hash) and len(rk.hash):
        found = hash_lookup(qk.hash, rk.hash)
        rrow = np.flatnonzero(found >= 0)
        qrow = found[rrow]
        same = (qk.qcode[qrow] == rk.qcode[rrow]) & (qk.words[:, qrow] == rk.words[:, rrow]).all(axis=0)
        grades = qrels.table.column("rel").to_numpy()[qrow[same]]
        row_rel[rrow[same]] = np.where(grades < 0, UNJUDGED, grades)

    # Rank order of the run rows of selected queries.
    exact = keep_docs or ties == "input" or run.ranked
    score = None if ties == "input" or run.ranked else run.table.column("score").to_numpy()
    order = rank_order(rk.qcode, score, rk.words, None if exact else row_rel)
    if not selected[r_codes].all():
        order = order[selected[rk.qcode[order]]]
    rq = new_code[rk.qcode[order]]
    nq = int(selected.sum())
    counts = np.bincount(rq, minlength=nq)
    if max_docs is not None:
        first = np.concatenate(([0], np.cumsum(counts)))[:-1]
        rank0 = np.arange(len(order)) - np.repeat(first, counts)
        keep = rank0 < max_docs
        order, rq = order[keep], rq[keep]
        counts = np.bincount(rq, minlength=nq)
    rel = row_rel[order]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    # Judged side: grades of selected queries, descending within each query.
    q_sel = selected[qk.qcode]
    jq = new_code[qk.qcode[q_sel]]
    jrel = qrels.table.column("rel").to_numpy()[q_sel]
    jorder = np.lexsort((-jrel, jq))
    judged_rel = jrel[jorder]
    judged_offsets = np.concatenate(([0], np.cumsum(np.bincount(jq, minlength=nq)))).astype(np.int64)

    docs = scores = None
    if keep_docs:
        docs = run.table.column("doc").take(pa.array(order)).to_pylist()
        scores = run.table.column("score").to_numpy()[order]
    batch = Batch(
        queries=[universe[i] for i in np.flatnonzero(selected)],
        qrels_max_grade=int(qrels_max_grade if qrels_max_grade is not None
                            else max(int(qrels.table.column("rel").to_numpy().max(initial=0)), 0)),
        offsets=offsets, rel=rel, judged_offsets=judged_offsets, judged_rel=judged_rel,
        docs=docs, scores=scores,
    )
    return batch, info


def warn_missing(info: BatchInfo, queries: str) -> None:
    """Warn (once per call) about qrels queries the run did not answer, under queries="both"."""
    if queries == "both" and info.missing_from_run:
        names = ", ".join(decode_id(q) for q in info.missing_from_run[:10])
        more = f" and {len(info.missing_from_run) - 10} more" if len(info.missing_from_run) > 10 else ""
        warnings.warn(f"{len(info.missing_from_run)} judged queries have no results in the run and are "
                      f"left out of the means: {names}{more} (queries='qrels' scores them as 0)",
                      stacklevel=3)
