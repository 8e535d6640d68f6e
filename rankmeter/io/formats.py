"""The input formats: one table of what each is called, how it is recognised and which reader reads it.

========  ===================================================  ==========================
format    recognised by                                        reader
========  ===================================================  ==========================
trec      whitespace-separated lines (the default)             :mod:`rankmeter.io.trec`
csv       ``.csv``, or commas between fields of the first line :mod:`rankmeter.io.delimited`
tsv       ``.tsv``, or tabs and a header line                  :mod:`rankmeter.io.delimited`
parquet   ``PAR1`` at both ends, or ``.parquet``               :mod:`rankmeter.io.parquet`
jsonl     ``.jsonl``/``.ndjson``/``.json``, or a ``{`` first    :mod:`rankmeter.io.jsonl`
========  ===================================================  ==========================

:data:`REGISTRY` is that table. The source (:func:`rankmeter.io.source.read_source`) opens an input once and
hands it here: :func:`dispatch` walks the table once (content first, then the file name, overridable with
``format=``), from the first lines the source found (:func:`~rankmeter.io.lines.sniff_head`), and calls the
reader it names once, with the first data line and its fields. ``--input-format``'s choices are its names
(:data:`FORMAT_NAMES`). A new format is a row here and its reader module.

gzip, bzip2, xz and zstd are undone first (:mod:`rankmeter.io.compression`), and
their suffix (``run.tsv.gz``) is ignored when looking at the name. A header
line is recognised when it names a known query column and a known doc
column (``query-id corpus-id score``, ``qid docno score``...) and holds no
number; a CSV/TSV header may use other names when the next line holds
numbers where the header holds none (and the header holds no number
between blanks either: ``q1<TAB>Q0<VT>d1<VT>1<VT>2.5<VT>t`` is a TREC line).

Nothing here imports numpy: the command line's parameter table reads :data:`FORMAT_NAMES`.
"""
from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from typing import Callable

from rankmeter.errors import InputError, ParameterError
from rankmeter.io.columns import CONVENTIONS
from rankmeter.io.lines import Head, first_data_line, sniff_head, split_header

__all__ = ["REGISTRY", "FORMAT_NAMES", "STREAMED", "Format", "detect", "sniff", "has_header", "is_parquet",
           "dispatch", "check_format_name", "first_data_line", "split_header"]



def is_parquet(data: bytes) -> bool:
    """True when ``data`` starts and ends with Parquet's magic bytes.

    >>> is_parquet(b"PAR1 0 d 1\\n")
    False
    """
    return len(data) >= 12 and data[:4] == b"PAR1" and data[-4:] == b"PAR1"


def _looks_parquet(data: bytes, head: Head) -> bool:
    return is_parquet(data)


def _looks_jsonl(data: bytes, head: Head) -> bool:
    return head.first[2].lstrip()[:1] in (b"{", b"[")


def _looks_csv(data: bytes, head: Head) -> bool:
    line = head.first[2]
    if b"," not in line:
        return False
    by_comma, by_space = line.split(b","), line.split()
    return len(by_space) == 1 or len(by_comma) > len(by_space)


def _looks_tsv(data: bytes, head: Head) -> bool:
    return b"\t" in head.first[2] and _has_header(head, "tsv")


@dataclass(frozen=True)
class Format:
    """One input format: its name, file suffixes, how its content is recognised (``looks(data, head)``,
    ``head`` being :func:`~rankmeter.io.lines.sniff_head`'s answer; tried in the table's order, the last format is the
    default) and its reader (``module:function``, called as ``reader(data, name, kind, style=, header=,
    columns=, grades=, first=, fields=)``: ``first`` and ``fields`` are the first data line and its fields,
    found once here)."""

    name: str
    suffixes: tuple[str, ...]
    looks: Callable[[bytes, tuple], bool] | None
    reader: str
    header: bool = False  # whether a header line is looked for when the format is given or found by name
    binary: bool = False  # not text: not checked as text before its reader reads it
    #: the reader of a big file named by path, parsed as it streams in without holding its text
    #: (``module:function``, called as ``reader(source, kind, grades, first)`` with the
    #: :class:`~rankmeter.io.source.Source` left open after its head), when no columns= are given
    big_file: str | None = None


#: every input format, in the order their content is tried (parquet first: binary; trec last: the default)
REGISTRY = (
    Format("parquet", (".parquet", ".pq"), _looks_parquet, "rankmeter.io.parquet:read_parquet", binary=True),
    Format("jsonl", (".jsonl", ".ndjson", ".json"), _looks_jsonl, "rankmeter.io.jsonl:read_jsonl"),
    Format("csv", (".csv",), _looks_csv, "rankmeter.io.delimited:read_delimited", header=True),
    Format("tsv", (".tsv", ".tab"), _looks_tsv, "rankmeter.io.delimited:read_delimited", header=True),
    Format("trec", (), None, "rankmeter.io.trec:read_text", big_file="rankmeter.io.trec:read_big_file"),
)
_BY_NAME = {f.name: f for f in REGISTRY}
#: the values of ``format=`` and ``--input-format``
FORMAT_NAMES = ("auto", "trec", "csv", "tsv", "parquet", "jsonl")
assert set(FORMAT_NAMES) == {"auto"} | set(_BY_NAME)
#: the formats with a reader that parses a big file as it streams in (the source leaves such a file open)
STREAMED = frozenset(f.name for f in REGISTRY if f.big_file)
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
    suffix = os.path.splitext(base)[1]
    return next((f.name for f in REGISTRY if suffix in f.suffixes), None)


def _numeric(fields: list[str]) -> bool:
    return any(_NUMBER.fullmatch(f.strip().strip('"')) for f in fields)


def _head(data: bytes, head) -> Head:
    """``head`` when it is the :class:`~rankmeter.io.lines.Head` of ``data`` already found, else found now."""
    return head if isinstance(head, Head) else sniff_head(data)


def has_header(data: bytes, style: str, head: Head | None = None) -> bool:
    """Whether the first data line of ``data`` is a header line (see the module docstring).

    >>> has_header(b"query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n", "tsv")
    True
    >>> has_header(b"q1 Q0 d1 1 2.5 bm25\\n", "whitespace")
    False
    """
    return _has_header(_head(data, head), style)


def _has_header(head: Head, style: str) -> bool:
    first = head.first[2]
    fields = head.fields[style]
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
    return bool(head.second) and _numeric(head.second_fields[style])


def check_format_name(format: str) -> None:
    """Refuse a ``format=`` (``--input-format``) that names no format."""
    if format not in FORMAT_NAMES:
        raise ParameterError(f"input_format={format!r}: expected one of {', '.join(FORMAT_NAMES)}")


def sniff(data: bytes, name: str, head: Head | None = None) -> tuple[str, bool]:
    """:func:`detect` with ``format="auto"``: by content (Parquet's magic), the file name, then content."""
    return _sniff(data, name, _head(data, head))


def _sniff(data: bytes, name: str, head: Head) -> tuple[str, bool]:
    if is_parquet(data):
        return "parquet", False
    format = _suffix_format(name) or next(f.name for f in REGISTRY if f.looks is None or f.looks(data, head))
    if format == "tsv" and not _has_header(head, "tsv"):
        format = "trec"  # headerless TSV is a TREC file (MS MARCO's qrels.dev.tsv)
    if format == "trec" and _has_header(head, "whitespace"):
        return "whitespace", True
    return format, _BY_NAME[format].header and _has_header(head, format)


def detect(data: bytes, name: str, format: str = "auto", head: Head | None = None) -> tuple[str, bool]:
    """(reader style, has a header line) for ``data``: the style is one of
    ``trec`` (headerless TREC), ``whitespace`` (whitespace-separated with a
    header), ``csv``, ``tsv``, ``parquet`` or ``jsonl``.

    >>> detect(b"q1,d1,0.5\\n", "run.txt")
    ('csv', False)
    >>> detect(b"qid docno score\\nq1 d1 0.5\\n", "run.txt")
    ('whitespace', True)
    """
    check_format_name(format)
    return _detect(data, name, format, _head(data, head))


def _detect(data: bytes, name: str, format: str, head: Head) -> tuple[str, bool]:
    if format == "auto":
        return _sniff(data, name, head)
    return format, _BY_NAME[format].header and _has_header(head, format)


def _function(path: str):
    module, function = path.split(":")
    return getattr(importlib.import_module(module), function)


def dispatch(src, kind: str, format: str = "auto", *, columns=None, grades: str = "integer"):
    """The Qrels or Run of an opened input (:class:`~rankmeter.io.source.Source`): its format recognised once,
    from what the source found (its first lines, ``src.sniffed``), and that format's reader called once.

    A source left open after its head (a big file) goes to its format's ``big_file`` reader, which parses it as
    it streams in, when it has one (and no header line); anything else is read whole, with the first data line
    and its fields (:func:`~rankmeter.io.lines.sniff_head`'s answer) handed to the reader."""
    from rankmeter.io.columns import Borrowed
    head = src.sniffed
    style, header = _detect(src.sample if src.deferred else src.text, src.name, format, head)
    row = _BY_NAME["trec" if style == "whitespace" else style]
    if src.deferred and row.big_file and not header:
        return _function(row.big_file)(src, kind, grades, head.first)
    if src.deferred:
        from rankmeter.io.guard import read_rest
        data = read_rest(src, check=format != "parquet")
    else:
        data = src.text
    if style in ("trec", "csv", "tsv") and not header and isinstance(columns, Borrowed):
        columns = None  # the other input's column names: this file has no header to find them in
    if style in ("trec", "csv", "tsv") and not header and columns:
        named = {k: v for k, v in columns.items() if isinstance(v, str)}
        if named:  # a name cannot be found in a file without a header: refused, never ignored
            role, value = next(iter(named.items()))
            raise InputError(f"columns={columns!r}: {role!r} names the column {value!r}, but this file has no "
                             "header line; give positions counted from 0 (e.g. columns={'query': 0, 'doc': 1, "
                             "'rank': 2} for MS MARCO's qid pid rank), or add a header line (names meant for the "
                             "other input: say so with its own role, e.g. 'score', or read that input with "
                             "columns= of its own)", source=src.name)
    fields = head.fields["whitespace" if style == "trec" else style] if style in (
        "trec", "whitespace", "csv", "tsv") else None
    return _function(row.reader)(data, src.name, kind, style=style, header=header, columns=columns, grades=grades,
                                 first=head.first, fields=fields)
