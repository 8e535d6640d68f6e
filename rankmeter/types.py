"""Type aliases for what the public functions accept, in one place.

Each alias is a Union of the input forms a function accepts, so a type checker
(mypy, pyright) flags an argument of another kind before it runs. Tables are
matched by protocol rather than by class, so that pandas, polars, Arrow and Spark
need not be installed to check code that uses none of them: a DataFrame is
anything that exports an Arrow stream (the Arrow PyCapsule interface that pandas
>= 2.2, polars, pyarrow and Spark >= 4 implement).

>>> from rankmeter.types import QrelsLike, RunLike, MeasuresLike
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, Union

from rankmeter.io.canonical import Qrels, Run
from rankmeter.measures.base import Measure

__all__ = ["PathLike", "BinaryFile", "ArrowTableLike", "LazyTableLike", "SparkFrameLike", "TableLike",
           "QrelsDict", "RunDict", "QrelsLike", "RunLike", "RunsLike", "MeasuresLike", "Columns", "Intents"]


class BinaryFile(Protocol):
    """A file opened in binary mode (``open(path, "rb")``, ``io.BytesIO``, ``gzip.open(path)``...)."""

    def read(self, size: int = -1, /) -> bytes: ...


class ArrowTableLike(Protocol):
    """A table that exports an Arrow stream: a pandas, polars or Spark DataFrame, an Arrow Table or RecordBatch."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


class LazyTableLike(Protocol):
    """A lazy table (a polars LazyFrame), collected when it is read."""

    def collect(self) -> ArrowTableLike: ...


class SparkFrameLike(Protocol):
    """A Spark DataFrame (classic or Spark Connect), scored on the cluster by the Spark executor."""

    @property
    def sparkSession(self) -> object: ...


#: A file name, or ``"-"`` for standard input.
PathLike = Union[str, bytes, "os.PathLike[str]"]

#: A table with columns by name: query, doc and rel (judgments) or score / rank (runs).
TableLike = Union[ArrowTableLike, LazyTableLike, SparkFrameLike]

#: pytrec_eval's judgments: ``{query: {doc: grade}}``, or ``{query: {subtopic: {doc: grade}}}`` for diversity.
QrelsDict = Union[Mapping[str, Mapping[str, float]], Mapping[str, Mapping[str, Mapping[str, float]]]]

#: pytrec_eval's run ``{query: {doc: score}}``, or ranked lists ``{query: [doc, ...]}`` (no scores).
RunDict = Union[Mapping[str, Mapping[str, float]], Mapping[str, Sequence[str]]]

#: Judgments: a qrels file (any input format; ``"irds:..."`` for ir_datasets) or a binary file object,
#: a :class:`Qrels`, a dict, or a table with columns query, doc, rel.
QrelsLike = Union[PathLike, BinaryFile, Qrels, QrelsDict, TableLike]

#: Results: a run file (any input format) or a binary file object, a :class:`Run`, a dict, or a table
#: with columns query, doc, score (or rank).
RunLike = Union[PathLike, BinaryFile, Run, RunDict, TableLike]

#: Several runs: ``{name: run}``, a list of runs (named by tag, then file name), or a glob pattern.
RunsLike = Union[Mapping[str, RunLike], Sequence[RunLike], str]

#: One measure name or :class:`Measure`, or several (canonical, trec_eval or other tools' spellings).
MeasuresLike = Union[str, Measure, Iterable[Union[str, Measure]]]

#: Role -> column: a name for tables and files with a header line (``{"query": "user", "doc": "item",
#: "score": "prediction"}``), a position counted from 0 for files without one (``{"query": 0, "doc": 1,
#: "rank": 2}``).
Columns = Union[Mapping[str, str], Mapping[str, int]]

#: Diversity measures: the probability of each subtopic of a query, ``{query: {subtopic: probability}}``.
Intents = Mapping[str, Mapping[str, float]]
