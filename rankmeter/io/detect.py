"""Which reader an input goes to: by content first, then by file name, overridable with ``format=``.

========  ===================================================  ==========================
format    recognised by                                        reader
========  ===================================================  ==========================
trec      whitespace-separated lines (the default)             :mod:`rankmeter.io.trec`
csv       ``.csv``, or commas between fields of the first line :mod:`rankmeter.io.delimited`
tsv       ``.tsv``, or tabs and a header line                  :mod:`rankmeter.io.delimited`
parquet   ``PAR1`` at both ends, or ``.parquet``               :mod:`rankmeter.io.parquet`
jsonl     ``.jsonl``/``.ndjson``/``.json``, or a ``{`` first    :mod:`rankmeter.io.jsonl`
========  ===================================================  ==========================

gzip, bzip2, xz and zstd are undone first (:mod:`rankmeter.io.source`), and
their suffix (``run.tsv.gz``) is ignored when looking at the name. A header
line is recognised when it names a known query column and a known doc
column (``query-id corpus-id score``, ``qid docno score``...) and holds no
number; a CSV/TSV header may use other names when the next line holds
numbers where the header holds none (and the header holds no number
between blanks either: ``q1<TAB>Q0<VT>d1<VT>1<VT>2.5<VT>t`` is a TREC line).
"""
from __future__ import annotations

import os
import re

from rankmeter.errors import ParameterError
from rankmeter.io.arrow_path import first_data_line
from rankmeter.io.columns import CONVENTIONS
from rankmeter.io.parquet import is_parquet

__all__ = ["FORMATS", "detect"]

FORMATS = ("auto", "trec", "csv", "tsv", "parquet", "jsonl")
_BY_SUFFIX = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
              ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}
_COMPRESSED = (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Names that make a first line a header; the last few are not conventions (the header then needs
# columns=), but a header that names them is still no data line.
_QUERY_NAMES = {c[1] for c in CONVENTIONS} | {"topic", "topic_id", "query_no"}
_DOC_NAMES = {c[2] for c in CONVENTIONS} | {"docid", "pid", "passage_id", "corpus_id", "document"}


def _suffix_format(name: str) -> str | None:
    base = os.path.basename(name).lower()
    for ext in _COMPRESSED:
        if base.endswith(ext):
            base = base[: -len(ext)]
            break
    return _BY_SUFFIX.get(os.path.splitext(base)[1])


def _fields(line: bytes, style: str) -> list[str]:
    from rankmeter.io.delimited import split_header
    return split_header(line, style)


def _numeric(fields: list[str]) -> bool:
    return any(_NUMBER.fullmatch(f.strip().strip('"')) for f in fields)


def has_header(data: bytes, style: str) -> bool:
    """Whether the first data line of ``data`` is a header line (see the module docstring).

    >>> has_header(b"query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n", "tsv")
    True
    >>> has_header(b"q1 Q0 d1 1 2.5 bm25\\n", "whitespace")
    False
    """
    start, _, first = first_data_line(data)
    fields = _fields(first, style)
    if not fields or _numeric(fields):
        return False
    if style != "whitespace" and _numeric([f.decode("utf-8", "surrogateescape") for f in first.split(None, 64)[:64]]):
        # a number between blanks (spaces, tabs, \v): a TREC line whose tabs merely look like a TSV header's,
        # as the streamed executor (TREC only) reads it too -- a header names columns and holds no number
        return False
    if set(fields) & _QUERY_NAMES and set(fields) & _DOC_NAMES:
        return True
    if style == "whitespace":
        return False
    end = data.find(b"\n", start)
    second = first_data_line(data[end + 1:])[2] if end >= 0 else b""
    return bool(second) and _numeric(_fields(second, style))


def _sniff(data: bytes) -> str:
    first = first_data_line(data)[2]
    if first.lstrip()[:1] in (b"{", b"["):
        return "jsonl"
    if b"," in first:
        by_comma, by_space = first.split(b","), first.split()
        if len(by_space) == 1 or len(by_comma) > len(by_space):
            return "csv"
    if b"\t" in first and has_header(data, "tsv"):
        return "tsv"
    return "trec"


def detect(data: bytes, name: str, format: str = "auto") -> tuple[str, bool]:
    """(reader style, has a header line) for ``data``: the style is one of
    ``trec`` (headerless TREC), ``whitespace`` (whitespace-separated with a
    header), ``csv``, ``tsv``, ``parquet`` or ``jsonl``.

    >>> detect(b"q1,d1,0.5\\n", "run.txt")
    ('csv', False)
    >>> detect(b"qid docno score\\nq1 d1 0.5\\n", "run.txt")
    ('whitespace', True)
    """
    if format not in FORMATS:
        raise ParameterError(f"format={format!r}: expected one of {', '.join(FORMATS)}")
    if format == "auto":
        if is_parquet(data):
            return "parquet", False
        format = _suffix_format(name) or _sniff(data)
        if format == "tsv" and not has_header(data, "tsv"):
            format = "trec"  # headerless TSV is a TREC file (MS MARCO's qrels.dev.tsv)
        if format == "trec" and has_header(data, "whitespace"):
            return "whitespace", True
    if format in ("parquet", "jsonl", "trec"):
        return format, False
    return format, has_header(data, format)
