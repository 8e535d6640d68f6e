"""The checks of :mod:`rankmeter.check` that read what a run drops: the rank and tag fields.

A TREC run line is ``query Q0 doc rank score tag``; rankmeter, like
trec_eval, orders by score and ignores the rank, and reports the tag of the
last line. :func:`load_run_fields` reads a run file once and keeps those two
fields; :func:`rank_disagreements` and :func:`tag_changes` look at them with
whole-array operations, and :func:`field_findings` turns them, with the scores' ties and scores that are
ranks, into findings.

>>> import pyarrow as pa
>>> rows = rank_disagreements(np.array([0, 0, 0]), pa.array([b"1", b"2", b"3"]), np.array([3.0, 1.0, 2.0]))
>>> rows["pairs"], rows["queries"], rows["first"]
(1, 1, (1, 2))
"""
from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.check.lint import Finding
from rankmeter.io import as_run
from rankmeter.io.canonical import Run, decode_id

__all__ = ["load_run_fields", "field_findings", "rank_disagreements", "tag_changes", "query_codes"]


def load_run_fields(obj, *, columns=None, input_format: str = "auto") -> tuple[Run, dict[str, pa.Array]]:
    """The run, and (for a six-field TREC file given by path) its rank and tag fields, read once."""
    if not isinstance(obj, (str, os.PathLike)) or columns or input_format not in ("auto", "trec") \
            or os.fsdecode(obj) == "-":
        return as_run(obj, columns=columns, input_format=input_format), {}
    from rankmeter.io.formats import detect, is_parquet
    from rankmeter.io.source import check_text, load_bytes
    from rankmeter.io.trec import run_fields_from_bytes

    if not os.path.exists(obj):
        return as_run(obj, columns=columns, input_format=input_format), {}
    data, name = load_bytes(obj)
    if is_parquet(data):
        return as_run(obj, columns=columns, input_format=input_format), {}
    check_text(data, name)
    style, header = detect(data, name, input_format)
    if style != "trec" or header:
        return as_run(obj, columns=columns, input_format=input_format), {}
    return run_fields_from_bytes(data, name)


def query_codes(run: Run) -> np.ndarray:
    """A small integer per row, equal for rows of the same query."""
    column = run.table.column("query").combine_chunks()
    return pc.dictionary_encode(column).indices.to_numpy(zero_copy_only=False).astype(np.int64)


def _as_numbers(field: pa.Array) -> np.ndarray | None:
    for kind in (pa.int64(), pa.float64()):
        try:
            return pc.cast(field.cast(pa.string()), kind).to_numpy(zero_copy_only=False).astype(np.float64)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def rank_disagreements(codes: np.ndarray, rank_field: pa.Array, score: np.ndarray) -> dict | None:
    """Where the rank field and the score disagree: rank r scoring strictly less than rank r + 1.

    Rows of each query are put in rank-field order; every adjacent pair whose
    score rises is one disagreement. Returns None when the rank field is not
    numeric, else ``{"pairs", "queries", "first"}`` with ``first`` the two
    rows of the first disagreement (or None).
    """
    if isinstance(rank_field, pa.ChunkedArray):
        rank_field = rank_field.combine_chunks()
    rank = _as_numbers(rank_field)
    if rank is None:
        return None
    n = len(rank)
    if n < 2:
        return {"pairs": 0, "queries": 0, "first": None}
    same = codes[1:] == codes[:-1]
    blocks = np.flatnonzero(~same) + 1
    grouped = len(np.unique(codes[np.concatenate(([0], blocks))])) == len(blocks) + 1
    if grouped and not (rank[1:][same] < rank[:-1][same]).any():
        order = np.arange(n)  # the usual file: each query together, ranks rising
    else:
        order = np.lexsort((np.arange(n), rank, codes))
    q, s = codes[order], score[order]
    bad = np.flatnonzero((q[1:] == q[:-1]) & (s[1:] > s[:-1]))
    first = None if not len(bad) else (int(order[bad[0]]), int(order[bad[0] + 1]))
    return {"pairs": int(len(bad)), "queries": int(len(np.unique(q[bad]))), "first": first}


def tag_changes(tag_field: pa.Array) -> list[tuple[bytes, int, int]]:
    """(tag, rows, first row) of each distinct tag, in order of first appearance; one entry when uniform."""
    if isinstance(tag_field, pa.ChunkedArray):
        tag_field = tag_field.combine_chunks()
    if len(tag_field) == 0:
        return []
    encoded = pc.dictionary_encode(tag_field)
    index = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    counts = np.bincount(index, minlength=len(encoded.dictionary))
    if len(counts) == 1:
        return [(encoded.dictionary[0].as_py(), int(counts[0]), 0)]
    first = np.full(len(counts), len(index))
    np.minimum.at(first, index, np.arange(len(index)))
    order = np.argsort(first)
    return [(encoded.dictionary[int(i)].as_py(), int(counts[i]), int(first[i])) for i in order]


def field_findings(run: Run, fields: dict, name: str, *, cutoffs: tuple[int, ...]) -> list[Finding]:
    """What the scores, the rank field and the tags show: ties, ranks read as scores, disagreements."""
    from rankmeter.core.rows import ranked, tie_summary
    out = []
    codes = query_codes(run)
    ties = tie_summary(ranked(run, duplicates="keep"), cutoffs=cutoffs)  # over every query of the run
    if ties["groups"]:
        straddle = ties["straddle"]
        out.append(Finding("note" if not any(straddle.values()) else "warning", "ties", name,
                           f"{ties['groups']} groups of tied scores in {ties['queries_with_ties']} of "
                           f"{ties['queries']} queries; straddling rank {'/'.join(map(str, cutoffs))}: "
                           f"{'/'.join(str(straddle[k]) for k in cutoffs)} (inside them docno decides the order)",
                           ties))
    if not run.ranked and len(run) > 1 and _scores_are_ranks(run):
        out.append(Finding("error", "scores_look_like_ranks", name,
                           "each query's scores are exactly 1, 2, 3 ...: if they are ranks, the ranking is "
                           "inverted (rank 1 scores lowest); negate them, or read the file with "
                           "columns={'rank': ...}"))
    if "rank" in fields:
        out += _rank_field(run, fields["rank"], name, codes)
    if "tag" in fields:
        out += _tags(run, fields["tag"], name)
    return out


def _rank_field(run: Run, rank_field: pa.Array, name: str, codes: np.ndarray) -> list[Finding]:
    found = rank_disagreements(codes, rank_field, run.table.column("score").to_numpy())
    if found is None:
        return [Finding("note", "rank_field", name, "the rank field (field 4) is not a number; it is ignored")]
    if not found["pairs"]:
        return []
    a, b = found["first"]
    score = run.table.column("score")
    return [Finding("warning", "rank_field", name,
                    f"the rank field disagrees with the scores in {found['queries']} queries ({found['pairs']} "
                    f"pairs of neighbouring ranks where the higher-ranked doc scores less); first: lines {run.line_of(a)} and "
                    f"{run.line_of(b)} (scores {score[a].as_py():g} < {score[b].as_py():g}); rankmeter and "
                    "trec_eval order by score and ignore the rank: if the ranks are the ranking, fix the scores",
                    {"queries": found["queries"], "pairs": found["pairs"],
                     "first_lines": [run.line_of(a), run.line_of(b)]})]


def _tags(run: Run, tag_field: pa.Array, name: str) -> list[Finding]:
    tags = tag_changes(tag_field)
    if len(tags) < 2:
        return []
    shown = ", ".join(f"{decode_id(t)} ({n} lines from line {run.line_of(r)})" for t, n, r in tags[:5])
    return [Finding("warning", "tags", name,
                    f"{len(tags)} run tags in one file: {shown}{' ...' if len(tags) > 5 else ''}; runs pasted "
                    f"together are scored as one (trec_eval names it {decode_id(tags[-1][0])!r} or whichever "
                    "tag the last line has)",
                    {"tags": [{"tag": decode_id(t), "lines": n, "first_line": run.line_of(r)}
                              for t, n, r in tags]})]


def _scores_are_ranks(run: Run) -> bool:
    """Whether every query's scores are a permutation of 1..n (a rank column read as scores)."""
    score = run.table.column("score").to_numpy()
    if not np.all(score == np.round(score)):
        return False
    codes = pc.dictionary_encode(run.table.column("query").combine_chunks()).indices.to_numpy(
        zero_copy_only=False).astype(np.int64)
    order = np.lexsort((score, codes))
    counts = np.bincount(codes)
    position = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    return bool(np.array_equal(score[order], position + 1.0))
