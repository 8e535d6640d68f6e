"""The first data line of a text and the fields of a header line: bytes in, no reader, no import of numpy.

What the source (:mod:`rankmeter.io.source`), the format registry (:mod:`rankmeter.io.formats`) and the
readers all look at before a file is parsed.
"""
from __future__ import annotations

__all__ = ["first_data_line", "split_header"]

_SPACE = b" \t\n\r\x0b\x0c"
_SEPARATOR = {"csv": ",", "tsv": "\t", "whitespace": None}


def first_data_line(data: bytes) -> tuple[int, int, bytes]:
    """(byte offset, number of lines before it, the line) of the first non-blank, non-comment line.

    >>> first_data_line(b"# a comment\\n\\nq1 Q0 d1 1 2.5 r\\n")
    (13, 2, b'q1 Q0 d1 1 2.5 r')
    """
    pos = skipped = 0
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
