"""Type aliases for what the public functions accept, in one place.

>>> from rankmeter.types import QrelsLike, RunLike, MeasuresLike
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO, Union

from rankmeter.io.canonical import Qrels, Run
from rankmeter.measures.base import Measure

__all__ = ["PathLike", "QrelsLike", "RunLike", "RunsLike", "MeasuresLike", "Columns"]

#: A file name, or ``"-"`` for standard input.
PathLike = Union[str, bytes, "os.PathLike[str]"]

#: Judgments: a TREC qrels file (or a binary file object), a :class:`Qrels`, ``{query: {doc: grade}}``,
#: a pandas / polars / Arrow frame with columns query, doc, rel, or a Spark DataFrame.
QrelsLike = Union[PathLike, BinaryIO, Qrels, Mapping[Any, Mapping[Any, int]], Any]

#: Results: a TREC run file, a :class:`Run`, ``{query: {doc: score}}``, ``{query: [doc, ...]}`` (ranked,
#: no scores), a frame with columns query, doc, score, or a Spark DataFrame.
RunLike = Union[PathLike, BinaryIO, Run, Mapping[Any, Mapping[Any, float]], Mapping[Any, Sequence[Any]], Any]

#: Several runs: ``{name: run}`` or a list of runs (named by tag, then file name).
RunsLike = Union[Mapping[str, RunLike], Sequence[RunLike]]

#: One measure name or :class:`Measure`, or several (canonical, trec_eval or other tools' spellings).
MeasuresLike = Union[str, Measure, Iterable[Union[str, Measure]]]

#: Role -> column name for frame inputs, e.g. ``{"query": "user", "doc": "item", "score": "prediction"}``.
Columns = Mapping[str, str]
