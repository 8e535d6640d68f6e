"""Two judgment sets side by side: every (query, doc) pair with the grade each gave (or none).

Both inputs are read with real grades allowed (LLM judges give 0.73); a pair listed twice in one
set is refused (several samples per pair are for :func:`rankmeter.judges.aggregate`);
diversity qrels count a doc's highest grade over its subtopics, as the ordinary measures do.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.errors import InputError
from rankmeter.io import as_qrels
from rankmeter.io.canonical import decode_id

__all__ = ["Joined", "join", "judgments", "source_name"]


def source_name(obj, default: str) -> str:
    """A short name of an input for messages and reports: the path, or ``default``."""
    import os
    if isinstance(obj, (str, os.PathLike)):
        return os.fsdecode(obj)
    source = getattr(obj, "source", None)
    return str(source) if isinstance(source, str) and source not in ("<dict>", "") else default


def judgments(qrels, name: str) -> pa.Table:
    """``query``, ``doc`` (binary) and ``rel`` (float64): one row per judged pair."""
    q = as_qrels(qrels, grades="real")
    table = q.table
    if "subtopic" in table.column_names:
        table = table.group_by(["query", "doc"], use_threads=False).aggregate([("rel", "max")]) \
            .rename_columns(["query", "doc", "rel"])
    query_code = pc.dictionary_encode(table.column("query").combine_chunks())
    doc_code = pc.dictionary_encode(table.column("doc").combine_chunks())
    key = (query_code.indices.to_numpy().astype(np.int64) * max(len(doc_code.dictionary), 1)
           + doc_code.indices.to_numpy().astype(np.int64))
    order = np.argsort(key, kind="stable")
    twice = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(twice):
        row = int(order[twice[0] + 1])
        query, doc = decode_id(table.column("query")[row].as_py()), decode_id(table.column("doc")[row].as_py())
        raise InputError(f"judges query {query!r} doc {doc!r} more than once ({len(twice)} lines repeat a pair); "
                         "combine sampled labels first with `rankmeter judges aggregate`", source=name)
    return table.select(["query", "doc", "rel"]).cast(
        pa.schema([("query", pa.binary()), ("doc", pa.binary()), ("rel", pa.float64())]))


@dataclass
class Joined:
    """Every pair judged by either side, sorted by query then doc; grades NaN where a side did not judge."""

    queries: list[str]         # the distinct query ids, decoded, in bytewise order
    query: np.ndarray          # index into ``queries`` per pair
    doc: pa.Array
    grade_a: np.ndarray
    grade_b: np.ndarray
    query_ids: pa.Array | None = None   # ``queries`` as the bytes they are (binary), same order

    @property
    def both(self) -> np.ndarray:
        return ~(np.isnan(self.grade_a) | np.isnan(self.grade_b))


def join(qrels_a, qrels_b, names: tuple[str, str]) -> Joined:
    """Both judgment sets over the union of their pairs (a vectorised full outer join).

    >>> j = join({"q": {"a": 2, "b": 0}}, {"q": {"b": 1, "c": 3}}, ("human", "llm"))
    >>> j.doc.to_pylist(), j.grade_a.tolist(), j.grade_b.tolist(), j.both.tolist()
    ([b'a', b'b', b'c'], [2.0, 0.0, nan], [nan, 1.0, 3.0], [False, True, False])
    """
    a, b = judgments(qrels_a, names[0]), judgments(qrels_b, names[1])
    joined = a.join(b, keys=["query", "doc"], join_type="full outer", left_suffix="_a", right_suffix="_b",
                    use_threads=False)
    joined = joined.sort_by([("query", "ascending"), ("doc", "ascending")])
    query_ids = joined.column("query").combine_chunks()
    unique = pc.unique(query_ids)
    order = np.argsort(np.array(unique.to_pylist(), dtype=object), kind="stable")
    sorted_unique = pa.array(np.array(unique.to_pylist(), dtype=object)[order], type=pa.binary())
    index = pc.index_in(query_ids, value_set=sorted_unique).to_numpy(zero_copy_only=False)

    def grades(column):
        return joined.column(column).to_numpy(zero_copy_only=False).astype(np.float64)

    return Joined(queries=[decode_id(q) for q in sorted_unique.to_pylist()], query=index.astype(np.int64),
                  doc=joined.column("doc").combine_chunks(), grade_a=grades("rel_a"), grade_b=grades("rel_b"),
                  query_ids=sorted_unique)
