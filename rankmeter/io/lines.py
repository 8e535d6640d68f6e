"""The first data line of a text and the fields of a header line: bytes in, no reader, no import of numpy.

What the source (:mod:`rankmeter.io.source`), the format registry (:mod:`rankmeter.io.formats`) and the
readers all look at before a file is parsed.
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["first_data_line", "split_header", "sniff_head", "Head"]

_SPACE = b" \t\n\r\x0b\x0c"
_SEPARATOR = {"csv": ",", "tsv": "\t", "whitespace": None}


def first_data_line(data: bytes, pos: int = 0) -> tuple[int, int, bytes]:
    """(byte offset, number of lines before it, the line) of the first non-blank, non-comment line (from
    byte ``pos`` on).

    >>> first_data_line(b"# a comment\\n\\nq1 Q0 d1 1 2.5 r\\n")
    (13, 2, b'q1 Q0 d1 1 2.5 r')
    """
    skipped = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        cr = data.find(b"\r", pos, end)
        end = cr if cr >= 0 else end
        line = data[pos:end]
        text = line.lstrip(_SPACE)  # the first field, without splitting a line of millions of them
        if text and not text.startswith(b"#"):
            return pos, skipped, line
        pos = end + (2 if data[end:end + 2] == b"\r\n" else 1)
        skipped += 1
    return n, skipped, b""


def split_header(line: bytes, style: str) -> list[str]:
    """The fields of one line: CSV/TSV with quotes, or whitespace-separated.

    >>> split_header(b'query-id\\tcorpus-id\\tscore', "tsv")
    ['query-id', 'corpus-id', 'score']
    >>> split_header(b'"qid","docno",score', "csv")
    ['qid', 'docno', 'score']
    """
    text = line.decode("utf-8", "surrogateescape")
    if style == "whitespace":
        return text.split()
    import csv
    row = next(csv.reader([text], delimiter=_SEPARATOR[style]), [])
    return [f.strip() for f in row]


class Head(NamedTuple):
    """What the format registry recognises an input by, found in one look at its start
    (:func:`sniff_head`): the first data line (:func:`first_data_line`'s answer), the data line after it
    (``b""`` if none), and the fields of both split as each style splits them (``whitespace``, ``csv``,
    ``tsv``)."""

    first: tuple[int, int, bytes]
    second: bytes
    fields: dict[str, list[str]]
    second_fields: dict[str, list[str]]


def _splits(line: bytes) -> dict[str, list[str]]:
    """``line`` split as each style splits it; a CSV/TSV field past the csv module's limit splits into no
    fields (no header: the line is read by the reader of its format, which names what is wrong with it)."""
    import csv
    fields = {}
    for style in _SEPARATOR:
        try:
            fields[style] = split_header(line, style)
        except csv.Error:
            fields[style] = []
    return fields


def sniff_head(data: bytes) -> Head:
    """The :class:`Head` of ``data``.

    >>> head = sniff_head(b"qid,docno,score\\nq1,d1,2.5\\n")
    >>> head.first[2], head.second, head.fields["csv"], head.second_fields["whitespace"]
    (b'qid,docno,score', b'q1,d1,2.5', ['qid', 'docno', 'score'], ['q1,d1,2.5'])
    """
    first = first_data_line(data)
    end = data.find(b"\n", first[0])
    second = first_data_line(data, end + 1)[2] if end >= 0 else b""
    return Head(first, second, _splits(first[2]), _splits(second))
