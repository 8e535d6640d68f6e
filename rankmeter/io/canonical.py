"""The canonical tables every input becomes: :class:`Qrels` and :class:`Run`.

Ids are kept as bytes (Arrow ``binary``), exactly as trec_eval keeps them, so
ids in any encoding (Latin-1 included) compare bytewise like C ``strcmp``.
Tables are immutable: readers build them, the engine only reads them.

A table's ``data`` is an Arrow table, or :class:`Columns` (numpy arrays and
:class:`~rankmeter.engine.ids.Ids`) when the compiled TREC reader made it: the
engine reads those through :meth:`_Table.ids` and :meth:`_Table.numbers`
without importing pyarrow, and ``.table`` gives the Arrow table (sharing the
buffers) to whatever asks for one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.engine.ids import Ids
from rankmeter.errors import ParameterError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Qrels", "Run", "Columns", "decode_id", "encode_id", "qrels_table", "qrels_columns", "grade_policy",
           "with_grades",
           "GRADE_POLICIES"]


#: How qrels grades are read: integers only (the default), truncated toward zero like trec_eval's
#: ``atol``, or real numbers (LLM and crowd judgments such as 0.73 or 2.5). The readers apply the
#: policy, so it is declared here; the ``grades`` option (:mod:`rankmeter.core.params`) offers these.
GRADE_POLICIES = ("integer", "truncate", "real")


def grade_policy(grades: str = "integer", truncate_grades: bool = False) -> str:
    """The one grade policy of ``grades`` and the older ``truncate_grades=True`` (``grades="truncate"``).

    >>> grade_policy("real"), grade_policy(truncate_grades=True)
    ('real', 'truncate')
    """
    if grades not in GRADE_POLICIES:
        raise ParameterError(f"grades={grades!r}: expected one of " + ", ".join(map(repr, GRADE_POLICIES)))
    if truncate_grades and grades == "real":
        raise ParameterError("grades='real' keeps fractional grades and truncate_grades=True cuts them: "
                             "pass one of the two")
    return "truncate" if truncate_grades else grades


def encode_id(value: object) -> bytes:
    """Turn a user-given id (str, bytes or int) into the bytes the engine compares."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:  # a lone surrogate (not one that stands for a byte): no text at all
            from rankmeter.errors import InputError, shown_repr
            raise InputError(f"the id {shown_repr(value)} holds a lone surrogate ({value[exc.start]!a}), which "
                             "is not text and has no bytes; fix the id") from None
    return str(value).encode("utf-8")


def decode_id(value: bytes) -> str:
    """Turn engine bytes back into text for people: UTF-8 when valid, else Latin-1."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


class Columns:
    """A table's columns without Arrow: :class:`~rankmeter.engine.ids.Ids` for ids, numpy arrays for numbers."""

    def __init__(self, columns: dict[str, Any]):
        self.columns = dict(columns)
        self.num_rows = len(next(iter(self.columns.values()))) if self.columns else 0

    @property
    def column_names(self) -> list[str]:
        return list(self.columns)

    def slice(self, offset: int, length: int) -> Columns:
        """Rows ``offset`` up to ``offset + length`` (no copy), as ``pyarrow.Table.slice``."""
        stop = offset + length
        return Columns({name: c.slice(offset, stop) if isinstance(c, Ids) else c[offset:stop]
                        for name, c in self.columns.items()})

    def drop_columns(self, names: list[str]) -> Columns:
        """The same without the columns ``names``, as ``pyarrow.Table.drop_columns``."""
        return Columns({name: c for name, c in self.columns.items() if name not in names})

    def to_arrow(self) -> pa.Table:
        import pyarrow as pa

        def arrow(column):
            if isinstance(column, Ids):
                return column.arrow()
            column = np.ascontiguousarray(column)  # from the buffer: pa.array(ndarray) looks for numpy.ma
            return pa.Array.from_buffers(pa.from_numpy_dtype(column.dtype), len(column), [None, pa.py_buffer(column)])
        return pa.table({name: arrow(c) for name, c in self.columns.items()})


@dataclass(frozen=True, eq=False)
class _Table:
    data: pa.Table | Columns
    source: str = "<memory>"
    # 1-based line (or row) number of each row, for error messages; None means row i is line i+1.
    lines: np.ndarray | None = field(default=None, repr=False)
    # Where the rows came from: "file" (lines), "frame" (0-based rows) or "dict".
    origin: str = field(default="file", repr=False)
    # The engine's hash of each row's doc id (rankmeter.engine.keys.id_hash) when the compiled reader made
    # it while parsing; None: the engine hashes the column itself.
    doc_hash: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.data.num_rows

    @cached_property
    def table(self) -> pa.Table:
        """The rows as an Arrow table (made once from :class:`Columns`, sharing their buffers)."""
        return self.data.to_arrow() if isinstance(self.data, Columns) else self.data

    @property
    def column_names(self) -> list[str]:
        return self.data.column_names

    @cached_property
    def _ids(self) -> dict[str, Ids]:
        return {}

    def ids(self, name: str) -> Ids:
        """The id column ``name`` (query, doc, subtopic) as :class:`~rankmeter.engine.ids.Ids` (made once)."""
        if name not in self._ids:
            self._ids[name] = (self.data.columns[name] if isinstance(self.data, Columns)
                               else Ids.from_arrow(self.data.column(name)))
        return self._ids[name]

    def numbers(self, name: str) -> np.ndarray:
        """The numeric column ``name`` (score, rel) as a numpy array."""
        if isinstance(self.data, Columns):
            return self.data.columns[name]
        column = self.data.column(name)
        return column.chunk(0).to_numpy(zero_copy_only=False) if column.num_chunks == 1 else column.to_numpy()

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
        return [decode_id(q) for q in sorted(self.ids("query").encode()[0].to_pylist())]


def qrels_table(query: pa.Array, doc: pa.Array, rel: pa.Array, subtopic: pa.Array | None = None) -> pa.Table:
    """The table of a :class:`Qrels`, with a ``subtopic`` column only when the subtopics differ.

    A TREC qrels' second column is a subtopic in diversity qrels and ignored
    elsewhere (trec_eval), where it holds one value ("0"): one value means one
    subtopic per query, which is what no column means.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {"query": query, "doc": doc, "rel": rel}
    if subtopic is not None and len(subtopic) and pc.count_distinct(subtopic).as_py() > 1:
        columns = {"query": query, "subtopic": subtopic, "doc": doc, "rel": rel}
    return pa.table(columns)


def qrels_columns(query: Ids, doc: Ids, rel: np.ndarray, subtopic: Ids | None = None) -> Columns:
    """:func:`qrels_table` without Arrow (the compiled reader's columns)."""
    columns = {"query": query, "doc": doc, "rel": rel}
    if subtopic is not None and len(subtopic.starts()) > 1:  # two runs of equal ids: two distinct ones
        columns = {"query": query, "subtopic": subtopic, "doc": doc, "rel": rel}
    return Columns(columns)


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
        if isinstance(self.data, Columns):
            return self.data.columns["rel"].dtype.kind == "f"
        import pyarrow as pa
        return pa.types.is_floating(self.data.schema.field("rel").type)


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


def with_grades(qrels: Qrels, grades: str) -> Qrels:
    """``qrels`` with integer grades made real numbers when ``grades="real"`` asks for them (Qrels already
    read keep their grades otherwise)."""
    if grades != "real" or qrels.real_grades:
        return qrels
    import pyarrow as pa
    table = qrels.table.set_column(qrels.table.schema.get_field_index("rel"), "rel",
                                   qrels.table.column("rel").cast(pa.float64()))
    return Qrels(table, qrels.source, qrels.lines, origin=qrels.origin)
