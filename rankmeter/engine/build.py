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
from .keys import binary_parts, id_words, mix_hash

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

    def __init__(self, table: pa.Table, query_lookup, nwords: int, doc_parts):
        self.qcode = query_lookup
        offsets, values = doc_parts
        self.words = id_words(offsets, values, nwords)
        self.hash = mix_hash(self.qcode, self.words)


def _query_codes(*columns: pa.ChunkedArray) -> tuple[list[bytes], list[np.ndarray]]:
    """Codes of query ids shared by several columns, numbered in bytewise order."""
    encoded = [pc.dictionary_encode(col).combine_chunks() if isinstance(col, pa.ChunkedArray)
               else pc.dictionary_encode(col) for col in columns]
    dictionaries = [e.dictionary.to_pylist() for e in encoded]
    universe = sorted(set().union(*dictionaries))
    code_of = {q: i for i, q in enumerate(universe)}
    codes = []
    for e, d in zip(encoded, dictionaries):
        mapping = np.fromiter((code_of[q] for q in d), dtype=np.int64, count=len(d))
        idx = e.indices.to_numpy(zero_copy_only=False)
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
            where = "line" if table.lines is not None or table.source != "<memory>" else "row"
            raise InputError(
                f"doc {decode_id(doc)!r} appears twice for query {decode_id(universe[key[0]])!r} "
                f"({where}s {table.line_of(first)} and {table.line_of(row)}); "
                f"a {kind} may list a doc once per query (trec_eval aborts too)",
                source=table.source)
        seen[key] = row


def _order(run: Run, qcode: np.ndarray, words: np.ndarray, ties: str) -> np.ndarray:
    """Row permutation: queries in code order, then score desc, docno desc."""
    n = len(qcode)
    if n == 0:
        return np.zeros(0, np.int64)
    change = np.flatnonzero(qcode[1:] != qcode[:-1]) + 1
    seg_starts = np.concatenate(([0], change))
    seg_codes = qcode[seg_starts]
    grouped = len(np.unique(seg_codes)) == len(seg_codes)
    if ties == "input" or run.ranked:
        return np.argsort(qcode, kind="stable")
    score = run.table.column("score").to_numpy()
    same_q = np.ones(n - 1, dtype=bool)
    same_q[change - 1] = False
    if grouped and not (score[1:][same_q] > score[:-1][same_q]).any():
        # Already grouped and sorted by score (the usual run): fix tied groups, order the blocks.
        tie = same_q & (score[1:] == score[:-1])
        within = np.arange(n)
        if tie.any():
            in_tie = np.zeros(n, dtype=bool)
            in_tie[1:] |= tie
            in_tie[:-1] |= tie
            rows = np.flatnonzero(in_tie)
            starts = np.ones(len(rows), dtype=bool)
            starts[1:] = ~tie[rows[1:] - 1] | (rows[1:] != rows[:-1] + 1)
            group = np.cumsum(starts)
            keys = tuple(~w[rows] for w in words[::-1]) + (group,)
            within[rows] = rows[np.lexsort(keys)]
        block_order = np.argsort(seg_codes, kind="stable")
        seg_len = np.diff(np.concatenate((seg_starts, [n])))
        lens = seg_len[block_order]
        starts_sorted = seg_starts[block_order]
        pos = np.arange(n) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts_sorted, lens)
        return within[pos]
    keys = tuple(~w for w in words[::-1]) + (-score, qcode)
    return np.lexsort(keys)


def build_batch(qrels: Qrels, run: Run, *, queries: str = "both",
                max_docs: int | None = None, ties: str = "trec_eval",
                keep_docs: bool = False) -> tuple[Batch, BatchInfo]:
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
    qk = _Keyed(qrels.table, q_codes, nwords, q_parts)
    rk = _Keyed(run.table, r_codes, nwords, r_parts)
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

    # Rank order of the run rows of selected queries.
    order = _order(run, rk.qcode, rk.words, ties)
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

    # Join: grade of each ranked doc.
    rel = np.full(len(order), NONPOOL, dtype=np.int64)
    if len(qk.hash) and len(order):
        qrels_rel = qrels.table.column("rel").to_numpy()
        by_hash = np.argsort(qk.hash)
        sorted_hash = qk.hash[by_hash]
        h = rk.hash[order]
        pos = np.minimum(np.searchsorted(sorted_hash, h), len(sorted_hash) - 1)
        cand = np.flatnonzero(sorted_hash[pos] == h)
        qrow = by_hash[pos[cand]]
        rrow = order[cand]
        same = (qk.qcode[qrow] == rk.qcode[rrow]) & (qk.words[:, qrow] == rk.words[:, rrow]).all(axis=0)
        grades = qrels_rel[qrow[same]]
        rel[cand[same]] = np.where(grades < 0, UNJUDGED, grades)
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
