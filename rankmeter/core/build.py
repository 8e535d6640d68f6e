"""Ordering and join, done once per part: a run's rows -> the per-query :class:`Batch`.

Order (MEASURES.md section 2, trec_eval's ``comp_sim_docno``): score
descending, then docno descending compared bytewise. Relevance of a ranked
doc: its qrels grade, ``NONPOOL`` when the qrels do not list it, ``UNJUDGED``
when they list it with a negative grade (trec_eval's ``form_res_rels``).
This module is the only place that orders a run or joins it to judgments.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputError, ParameterError
from rankmeter.io.canonical import Run, decode_id
from rankmeter.engine.batch import Batch
from rankmeter.engine.ids import Ids
from rankmeter.core.judgments import Judgments, duplicate_rows
from rankmeter.engine.segments import segment_offsets
from rankmeter.engine.keys import pair_hash, query_mix
from rankmeter.engine.groups import local_queries, query_starts
from rankmeter.core.options import Options
from rankmeter.core.order import rank_order

__all__ = ["build_batch", "byte_ordered_queries", "check_unique", "empty_batch", "PartInfo", "query_starts",
           "ranked_rows", "self_rows", "tie_groups"]


@dataclass(frozen=True)
class PartInfo:
    """What a part of a run held besides its scored queries."""

    only_in_run: tuple[bytes, ...]   # query ids the run ranks but the qrels do not judge
    tag: bytes
    #: the run's row of every ranked position of the batch (rank order), for :meth:`Evaluator.rows`
    rows: np.ndarray | None = None


def _run_codes(judgments: Judgments, run: Run) -> tuple[np.ndarray, Ids, np.ndarray]:
    """Per run row, a query code (the qrels code for judged queries, nq + i for the i-th other one),
    the ids of the other queries, and per row the query half of :func:`pair_hash` (mixed once per query)."""
    names, local = local_queries(run.ids("query"))
    code = judgments.query_codes(names)
    unjudged = np.flatnonzero(code < 0)
    code[unjudged] = judgments.nq + np.arange(len(unjudged))
    return code[local], names.take(unjudged), query_mix(code)[local]


def byte_ordered_queries(run: Run) -> tuple[Ids, np.ndarray]:
    """The distinct query ids of ``run`` in byte order, and each row's number among them (int64)."""
    names, local = local_queries(run.ids("query"))
    order = names.argsort()
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return names.take(order), rank[local]


def ranked_rows(run: Run, *, ties: str = "trec_eval") -> np.ndarray:
    """Row permutation putting ``run`` in rank order (queries in byte order), without any qrels."""
    score = None if ties == "input" or run.ranked else run.numbers("score")
    return rank_order(byte_ordered_queries(run)[1], score, run.ids("doc"))


def doc_hashes(run: Run, docs: Ids) -> np.ndarray:
    """:func:`~rankmeter.engine.keys.id_hash` of every row's doc: the compiled reader's, made while it parsed,
    or computed here."""
    if run.doc_hash is not None and len(run.doc_hash) == len(docs):
        return run.doc_hash
    return docs.hashes()


def _refuse_duplicates(run: Run, dup: tuple[int, int] | None, docs: Ids) -> None:
    """The one message for a doc a run lists twice for a query (naming both lines or rows)."""
    if dup is None:
        return
    q = run.ids("query")[dup[0]]
    todo = ("remove one of the lines" if run.origin == "file"
            else "drop one of the rows" if run.origin == "frame" else "keep one")
    raise InputError(f"doc {decode_id(docs[dup[0]])[:60]} appears twice for query {decode_id(q)[:60]}; "
                     f"a run lists a doc only once per query (trec_eval aborts too): {todo}", **run.locate(*dup))


def check_unique(run: Run) -> None:
    """Refuse ``run`` if it lists a doc twice for one query, as scoring it would (no judgments needed)."""
    docs = run.ids("doc")
    _, local = local_queries(run.ids("query"))
    _refuse_duplicates(run, duplicate_rows(pair_hash(local, doc_hashes(run, docs)), local, docs), docs)


def build_batch(judgments: Judgments, run: Run, options: Options, *, needs=None, keep_docs: bool = False,
                subtopics: bool = False, keep_rows: bool = False) -> tuple[Batch, PartInfo]:
    """Order ``run``, join the prepared judgments and return the batch of the judged queries it ranks.

    Parameters
    ----------
    judgments : Judgments
        The qrels, prepared once.
    run : Run
        Whole queries (a query's rows may not continue in another part).
    options : Options
        The evaluation options that change a ranking: ``max_docs`` (keep only the first docs of each
        ranking), ``ties`` (the order of equal scores), ``positive_scores_only`` (rank only the rows scored
        above 0; a run without scores keeps every row) and ``ignore_self`` (drop the rows whose doc id
        equals the query id, BEIR's ``ignore_identical_ids``; a judged query left with no row is scored as
        an empty ranking, as pytrec_eval scores BEIR's emptied query).
    needs : mapping, optional
        The qrels-wide statistics the batch carries for the kernels.
    keep_docs : bool
        Keep doc ids and scores in rank order on the batch (for explanations).
    subtopics : bool
        Attach the ranked and judged (doc, subtopic) judgments (for the diversity families).
    keep_rows : bool
        Give the run's row of every ranked position (``PartInfo.rows``), for :meth:`Evaluator.rows`.
    """
    max_docs, ties = options.max_docs, options.ties
    docs = run.ids("doc")
    code, unjudged_names, mixed_query = _run_codes(judgments, run)
    keys = pair_hash(code, doc_hashes(run, docs), mixed_query=mixed_query)
    del mixed_query
    _refuse_duplicates(run, duplicate_rows(keys, code, docs), docs)

    scored = not (ties == "input" or run.ranked)
    keep = code < judgments.nq
    if options.positive_scores_only and not run.ranked:
        keep &= run.numbers("score") > 0
    listed = None
    if options.ignore_self:
        listed = np.bincount(code[keep], minlength=judgments.nq) > 0
        keep &= ~self_rows(run, docs)
    judged = np.flatnonzero(keep)
    all_rows = len(judged) == len(code)
    if not all_rows:  # queries the qrels do not judge are never scored
        code, keys = code[judged], keys[judged]
    # row i of what follows is the run's row i, or judged[i]: the docs are read where they are (no copy)
    doc_rows = None if all_rows else judged
    row_rel, row_judged = judgments.grades(code, docs, keys, rows=True, doc_rows=doc_rows)
    del keys

    exact = keep_docs or keep_rows or ties in ("input", "average") or run.ranked
    score = None
    if scored:
        score = run.numbers("score")
        score = score if all_rows else score[judged]
    prefer = ties if ties in ("best", "worst") else None
    order = rank_order(code, score, docs, row_rel if prefer or not exact else None, prefer, doc_rows=doc_rows)
    per_code = np.bincount(code, minlength=judgments.nq)
    codes = np.flatnonzero(per_code if listed is None else listed)
    counts = per_code[codes]
    tie_group = None
    if ties == "average":
        if max_docs is not None:
            raise ParameterError("ties='average' with max_docs: the docs cut off would take part in the "
                                 "average; use a measure cutoff (P@10, nDCG@10 ...) instead of max_docs")
        tie_group = tie_groups(code[order], None if score is None else score[order])
    if max_docs is not None:
        rank0 = np.arange(len(order)) - np.repeat(segment_offsets(counts)[:-1], counts)
        order = order[rank0 < max_docs]
        counts = np.minimum(counts, max_docs)
    judged_rel, judged_offsets = judgments.judged_side(codes)
    offsets = segment_offsets(counts)
    source_rows = (order if all_rows else judged[order]) if keep_rows else None
    batch = Batch(
        queries=judgments.names(codes), offsets=offsets, rel=row_rel[order],
        judged_offsets=judged_offsets, judged_rel=judged_rel, needs=needs or {}, codes=codes,
        subtopics=judgments.subtopics.side(codes, offsets, row_judged[order]) if subtopics else None,
        docs=docs.take(order if all_rows else judged[order]).to_pylist() if keep_docs else None,
        scores=(run.numbers("score")[judged][order] if keep_docs else None),
        tie_group=tie_group,
    )
    return batch, PartInfo(tuple(unjudged_names.to_pylist()), run.tag, source_rows)


def self_rows(run: Run, docs: Ids | None = None) -> np.ndarray:
    """Per run row, whether its doc id equals its query id (bytewise; ``ignore_self``)."""
    docs = run.ids("doc") if docs is None else docs
    rows = np.arange(len(docs))
    return run.ids("query").equal_rows(rows, docs, rows)


def tie_groups(code: np.ndarray, score: np.ndarray | None) -> np.ndarray:
    """Per row in rank order, the number of its tied group: rows of one query with equal scores
    (without scores, a ranked list, every row is its own group)."""
    if score is None or len(code) == 0:
        return np.arange(len(code), dtype=np.int64)
    new = np.ones(len(code), dtype=bool)
    new[1:] = (code[1:] != code[:-1]) | (score[1:] != score[:-1])
    return np.cumsum(new) - 1


def empty_batch(judgments: Judgments, codes: np.ndarray, needs=None, *, subtopics: bool = False) -> Batch:
    """Empty rankings for the judged queries ``codes`` (trec_eval -c: judged queries the run lacks)."""
    judged_rel, judged_offsets = judgments.judged_side(codes)
    offsets = np.zeros(len(codes) + 1, np.int64)
    return Batch(queries=judgments.names(codes), offsets=offsets,
                 rel=np.zeros(0, judged_rel.dtype), judged_offsets=judged_offsets, judged_rel=judged_rel,
                 needs=needs or {}, codes=codes,
                 subtopics=judgments.subtopics.side(codes, offsets, np.zeros(0, np.int64)) if subtopics else None)
