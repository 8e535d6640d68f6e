"""Readers: one module per input kind, each yielding the canonical tables.

* :mod:`.source` -- the one object that opens an input (a path, stdin or a file object), records it
  (:mod:`.inputs`), peeks at it, decompresses it (:mod:`.compression`), has it checked once (:mod:`.guard`:
  not text, a compression bomb) and finds its first lines, then hands it to the format registry;
* :mod:`.formats` -- the table of input formats (TREC, CSV/TSV, Parquet, JSON Lines): how each is
  recognised and which reader reads it, called once;
* :mod:`.trec` -- TREC qrels and run files, read by the compiled reader (:mod:`.compiled`);
* :mod:`.delimited` -- CSV, TSV and whitespace-separated files with a header;
* :mod:`.parquet` -- Parquet files;
* :mod:`.jsonl` -- JSON Lines;
* :mod:`.dicts` -- pytrec_eval-style dicts and ranked lists;
* :mod:`.frames` -- pandas / polars DataFrames and Arrow tables (column names
  found by :mod:`.columns`);
* :mod:`.irds` -- qrels of an ir_datasets dataset and its evaluation profile.

Every problem is a :class:`~rankmeter.errors.InputError` naming the file and line, the dict key or the
frame row. Inputs are only read, never modified. Importing this package loads no numpy (the command
line's parameter table reads :data:`~rankmeter.io.formats.FORMAT_NAMES`); the readers load what they need.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rankmeter.errors import InputError
from rankmeter.io.columns import side_columns
from rankmeter.io.formats import FORMAT_NAMES as FORMATS

if TYPE_CHECKING:
    from rankmeter.io.canonical import Qrels, Run
    from rankmeter.io.source import PathOrFile

__all__ = ["read_qrels", "read_run", "load_bytes", "as_qrels", "as_run", "FORMATS"]

def __getattr__(name: str):
    if name == "load_bytes":
        from rankmeter.io.source import load_bytes
        return load_bytes
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _columns(source: PathOrFile, kind: str, format: str, columns: dict | None) -> dict | None:
    """``columns=`` of one side checked (every role this side's, or an error), once ``format=`` is known."""
    if format not in FORMATS:
        from rankmeter.io.formats import check_format_name
        check_format_name(format)  # raises the ParameterError
    if columns is not None:
        columns = side_columns(columns, kind, source=_shown(source))
    return columns


def _read(source: PathOrFile, kind: str, format: str, columns: dict | None, grades: str = "integer"):
    """The Qrels or Run of a path, ``-`` or file object: opened once by the source, which hands it to the format
    registry (:func:`~rankmeter.io.source.read_source`). No ir_datasets id is looked for here: :func:`read_qrels`
    resolves those, and a run is never one."""
    from rankmeter.io.source import read_source
    return read_source(source, kind, format, columns=columns, grades=grades)


def _shown(source) -> str | None:
    """The name of ``source`` for a message about its columns= (no file is opened)."""
    if hasattr(source, "read"):
        return str(getattr(source, "name", "<stream>"))
    try:
        return os.fsdecode(source)
    except TypeError:
        return None


def _unread(obj, columns, kind: str) -> None:
    """Refuse columns= for an input that has no columns (a dict): never ignored."""
    part = side_columns(columns, kind, shared=True, source=f"<{type(obj).__name__}>") or {}
    if any(role not in ("query", "doc") for role in part):  # query/doc of a shared dict may be the other input's
        raise InputError(f"columns={dict(columns)!r}: a {type(obj).__name__} has no columns to choose from; "
                         "columns= is for files and tables (drop it, or pass the file or DataFrame)",
                         source=f"<{type(obj).__name__}>")


def _policy(grades: str, truncate_grades: bool) -> str:
    """:func:`~rankmeter.io.canonical.grade_policy`, which the defaults need not go through (canonical.py, where
    the tables are made, is then entered once, at the end of a read)."""
    if grades == "integer" and truncate_grades is False:
        return grades
    from rankmeter.io.canonical import grade_policy
    return grade_policy(grades, truncate_grades)


def read_qrels(source: PathOrFile, *, input_format: str = "auto", columns: dict | None = None,
               grades: str = "integer", truncate_grades: bool = False) -> Qrels:
    """Read judgments from a file: TREC qrels, CSV/TSV, Parquet or JSON Lines, maybe compressed.

    Parameters
    ----------
    source : path, ``"-"`` (stdin), binary file object, or an ir_datasets id
        gzip, bzip2, xz and zstd are recognised by their magic bytes.
        ``"irds:msmarco-passage/trec-dl-2019/judged"`` (or the bare id when
        no such file exists) takes the judgments from ir_datasets
        (:mod:`rankmeter.io.irds`, the ``irds`` extra).
    input_format : {"auto", "trec", "csv", "tsv", "parquet", "jsonl"}, default "auto"
        ``auto`` looks at the content, then the file name (:mod:`rankmeter.io.formats`);
        ``trec`` is ``query iter doc rel`` per line, with no header line.
    columns : dict, optional
        Which columns hold what, when a header or table uses other names:
        ``{"query": "topic", "doc": "pid", "rel": "grade"}``; positions (0, 1...)
        for files without a header. The roles are query, doc, rel and
        subtopic; a role this file cannot use is an error.
    grades : {"integer", "truncate", "real"}, default "integer"
        ``"integer"`` refuses a grade such as ``1.7``; ``"truncate"`` reads it
        as 1, as trec_eval's ``atol`` does; ``"real"`` keeps it: LLM and crowd
        judgments such as 0.73 or 2.5. Gain-based measures (DCG, nDCG, ERR,
        RBP, the C/W/L family...) use real grades as they are, binary ones
        count grades ``>= rel`` as relevant; a measure that needs integer
        grades is refused, as is trec_eval compatibility.
    truncate_grades : bool, default False
        The same as ``grades="truncate"``, as a flag (``--truncate-grades`` on the command line).

    Returns
    -------
    Qrels

    Raises
    ------
    InputError
        Naming the file and line (or row) of the first problem.

    Examples
    --------
    >>> import io
    >>> len(read_qrels(io.BytesIO(b"query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n")))
    1
    """
    grades = _policy(grades, truncate_grades)
    columns = _columns(source, "qrels", input_format, columns)
    from rankmeter.io.irds import dataset_qrels  # qrels given by an ir_datasets id are resolved here, and only here
    found = dataset_qrels(source, columns, grades)
    return found if found is not None else _read(source, "qrels", input_format, columns, grades)


def read_run(source: PathOrFile, *, input_format: str = "auto", columns: dict | None = None) -> Run:
    """Read a run from a file: TREC, ``query doc score``, CSV/TSV, Parquet or JSON Lines.

    A TREC run is ``query Q0 doc rank score tag`` per line (the rank is
    ignored: documents are ordered by score); three fields are ``query doc
    score``; two fields ``query doc`` are a ranked list whose line order is
    the ranking. Tables and files with a header find their columns by name
    (:mod:`rankmeter.io.columns`). A ``rank`` named in ``columns`` orders
    each query's docs ascending instead (rank 1 first; a rank given twice in
    a query is an error): MS MARCO's ``qid pid rank`` files need
    ``columns={"query": 0, "doc": 1, "rank": 2}``, or their ranks are read as
    scores and every ranking is reversed.

    Parameters
    ----------
    source : path, ``"-"`` (stdin) or binary file object
    input_format : {"auto", "trec", "csv", "tsv", "parquet", "jsonl"}, default "auto"
    columns : dict, optional
        Roles to column names, e.g. ``{"query": "qid", "doc": "docno", "score": "similarity"}``,
        or to positions counted from 0 for a file without a header line, e.g.
        ``{"query": 0, "doc": 1, "rank": 2}``. The roles are query, doc,
        score and rank; a role this file cannot use is an error.

    Returns
    -------
    Run

    Examples
    --------
    >>> import io
    >>> read_run(io.BytesIO(b"q1 d1 2.5\\nq1 d2 1.0\\n"))
    Run('<stream>', tag='', 2 rows)
    """
    columns = _columns(source, "run", input_format, columns)
    return _read(source, "run", input_format, columns)


def as_qrels(obj, *, columns: dict | None = None, grades: str = "integer", truncate_grades: bool = False,
             input_format: str = "auto") -> Qrels:
    """Any accepted qrels input (path, ``irds:`` name, Qrels, dict, DataFrame) -> :class:`Qrels`.

    ``grades`` is how grades are read, as for :func:`read_qrels`
    (``truncate_grades=True`` is ``grades="truncate"``); Qrels already read
    keep their grades, except that ``grades="real"`` makes integer ones real.
    The input is never modified.
    """
    from rankmeter.io.canonical import Qrels, Run, with_grades
    grades = _policy(grades, truncate_grades)
    if isinstance(obj, Qrels):
        return with_grades(obj, grades)
    if isinstance(obj, Run):
        raise InputError("got a Run where qrels were expected; check the argument order")
    if isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read"):
        if columns is not None:
            columns = side_columns(columns, "qrels", shared=True, source=_shown(obj))
        return read_qrels(obj, input_format=input_format, grades=grades, columns=columns)
    if isinstance(obj, Mapping):
        from rankmeter.io.dicts import qrels_from_dict
        _unread(obj, columns, "qrels")
        return qrels_from_dict(obj, grades=grades)
    from rankmeter.io.frames import is_frame, qrels_from_frame
    if is_frame(obj):
        return qrels_from_frame(obj, columns=columns, grades=grades)
    raise InputError(f"cannot read qrels from a {type(obj).__name__}; pass a path, a dict "
                     "{query: {doc: grade}} or a DataFrame with columns query, doc, rel")


def as_run(obj, *, columns: dict | None = None, input_format: str = "auto") -> Run:
    """Any accepted run input (path, Run, dict, ranked lists, DataFrame) -> :class:`Run`.

    The input is never modified.
    """
    from rankmeter.io.canonical import Qrels, Run
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, Qrels):
        raise InputError("got Qrels where a run was expected; check the argument order")
    if isinstance(obj, Mapping):
        from rankmeter.io.dicts import run_from_dict
        _unread(obj, columns, "run")
        return run_from_dict(obj)
    if isinstance(obj, (str, bytes, os.PathLike)) or hasattr(obj, "read"):
        if columns is not None:
            columns = side_columns(columns, "run", shared=True, source=_shown(obj))
        return read_run(obj, input_format=input_format, columns=columns)
    from rankmeter.io.frames import is_frame, run_from_frame
    if is_frame(obj):
        return run_from_frame(obj, columns=columns)
    raise InputError(f"cannot read a run from a {type(obj).__name__}; pass a path, a dict "
                     "{query: {doc: score}} or {query: [doc, ...]}, or a DataFrame with columns query, doc, score")
