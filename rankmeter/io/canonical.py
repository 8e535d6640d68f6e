"""The canonical tables every input becomes: :class:`Qrels` and :class:`Run`.

Ids are kept as bytes (Arrow ``binary``), exactly as trec_eval keeps them, so
ids in any encoding (Latin-1 included) compare bytewise like C ``strcmp``.
Tables are immutable: readers build them, the engine only reads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute below)

from rankmeter.core.options import GRADE_POLICIES, grade_policy  # noqa: F401  (re-exported for the readers)

__all__ = ["Qrels", "Run", "decode_id", "encode_id", "qrels_table", "grade_policy", "GRADE_POLICIES"]


def encode_id(value: object) -> bytes:
    """Turn a user-given id (str, bytes or int) into the bytes the engine compares."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return str(value).encode("utf-8")


def decode_id(value: bytes) -> str:
    """Turn engine bytes back into text for people: UTF-8 when valid, else Latin-1."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


@dataclass(frozen=True, eq=False)
class _Table:
    table: pa.Table
    source: str = "<memory>"
    # 1-based line (or row) number of each row, for error messages; None means row i is line i+1.
    lines: np.ndarray | None = field(default=None, repr=False)
    # Where the rows came from: "file" (lines), "frame" (0-based rows) or "dict".
    origin: str = field(default="file", repr=False)
    # The engine's hash of each row's doc id (rankmeter.core.keys.id_hash) when the compiled reader made
    # it while parsing; None: the engine hashes the column itself.
    doc_hash: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.table.num_rows

    def line_of(self, row: int) -> int:
        return int(self.lines[row]) if self.lines is not None else row + 1

    def locate(self, *rows: int) -> dict:
        """Keyword arguments of :class:`~rankmeter.errors.InputError` naming ``rows``.

        A file names its lines (``run.txt:12 and 40``), a DataFrame its row
        positions; a dict only itself (its rows have no order a user knows).
        """
        if self.origin == "frame":
            return {"source": self.source, "row": rows}
        if self.origin == "dict":
            return {"source": self.source}
        return {"source": self.source, "line": [self.line_of(r) for r in rows]}

    @property
    def queries(self) -> list[str]:
        """The distinct query ids, decoded for display, in bytewise order."""
        uniq = pa.compute.unique(self.table.column("query")).to_pylist()
        return [decode_id(q) for q in sorted(uniq)]


def qrels_table(query: pa.Array, doc: pa.Array, rel: pa.Array, subtopic: pa.Array | None = None) -> pa.Table:
    """The table of a :class:`Qrels`, with a ``subtopic`` column only when the subtopics differ.

    A TREC qrels' second column is a subtopic in diversity qrels and ignored
    elsewhere (trec_eval), where it holds one value ("0"): one value means one
    subtopic per query, which is what no column means.
    """
    columns = {"query": query, "doc": doc, "rel": rel}
    if subtopic is not None and len(subtopic) and pa.compute.count_distinct(subtopic).as_py() > 1:
        columns = {"query": query, "subtopic": subtopic, "doc": doc, "rel": rel}
    return pa.table(columns)


@dataclass(frozen=True, eq=False)
class Qrels(_Table):
    """Relevance judgments: columns ``query`` (binary), ``doc`` (binary), ``rel`` (int64, or float64
    when read with ``grades="real"``).

    Diversity qrels also have ``subtopic`` (binary): a doc is then judged once
    per subtopic, and the ordinary families read its highest grade.

    Build one with :func:`rankmeter.read_qrels`; it can then score many runs.
    """

    def __repr__(self) -> str:
        return f"Qrels({self.source!r}, {len(self)} judgments)"

    @property
    def real_grades(self) -> bool:
        """True when the grades are real numbers (read with ``grades="real"``)."""
        return pa.types.is_floating(self.table.schema.field("rel").type)


@dataclass(frozen=True, eq=False)
class Run(_Table):
    """A ranked result list: columns ``query``, ``doc`` (binary) and ``score`` (float64).

    ``tag`` is the run id as bytes (trec_eval prints the tag of the last line);
    ``name`` is the same decoded for display.
    ``ranked`` is True when the row order within a query is the ranking
    itself (a run without scores); the engine then keeps the given order.
    """

    tag: bytes = b""
    ranked: bool = False

    @property
    def name(self) -> str:
        return decode_id(self.tag)

    def __repr__(self) -> str:
        return f"Run({self.source!r}, tag={self.name!r}, {len(self)} rows)"
