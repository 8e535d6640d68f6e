"""A topics file: the query ids of a test collection, before anything is judged.

Two shapes are read (maybe compressed, as every input):

* TREC topic format, ``<num> Number: 301`` (``<num> 301`` and the Web track's
  ``<topic number="301">`` too): the ids in order;
* a list of ids, one a line, or a TSV/CSV whose first field is the id (MS MARCO's
  ``queries.tsv``: ``qid<TAB>text``); a first line whose first field is a column
  name (``qid``, ``query_id``, ``query-id``, ``topic``, ``id`` ...) is a header; blank lines
  and ``#`` comments are skipped.

:func:`read_topics` gives the ids as bytes, each once, in file order.

>>> import io
>>> read_topics(io.BytesIO(b"<top>\\n<num> Number: 301\\n<title> x\\n</top>\\n<top>\\n<num> Number: 302\\n</top>\\n"))
[b'301', b'302']
>>> read_topics(io.BytesIO(b"qid\\ttext\\n1048585\\twhat is paula deen's brother\\n2\\tx\\n"))
[b'1048585', b'2']
"""
from __future__ import annotations

import re

from rankmeter.errors import InputError
from rankmeter.io.source import PathOrFile, check_text, load_bytes

__all__ = ["read_topics", "as_topics"]

_NUM = re.compile(rb"<num>\s*(?:Number\s*:\s*)?([^\s<]+)", re.IGNORECASE)
_NUMBER_ATTR = re.compile(rb"<topic\b[^>]*\bnumber\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE)
_FIRST_FIELD = re.compile(rb"[^\s,]+")
_HEADERS = {b"qid", b"query_id", b"query-id", b"queryid", b"query", b"topic", b"topic_id", b"topicid", b"id",
            b"num", b"number"}


def read_topics(source: PathOrFile) -> list[bytes]:
    """The query ids of a topics file (see the module docstring), each once, in file order."""
    data, name = load_bytes(source)
    check_text(data, name)
    found = _NUM.findall(data) or _NUMBER_ATTR.findall(data)
    if not found:
        lines = [line.strip() for line in data.splitlines()]
        lines = [line for line in lines if line and not line.startswith(b"#")]
        found = [m.group(0) for m in map(_FIRST_FIELD.match, lines) if m]
        if found and found[0].strip(b"\"'").lower() in _HEADERS:
            found = found[1:]
        found = [f.strip(b"\"'") for f in found]
    if not found:
        raise InputError("no topics: expected TREC topics (<num> Number: 301) or one query id a line",
                         source=name)
    return list(dict.fromkeys(found))


def as_topics(topics) -> list[bytes] | None:
    """``topics`` as query ids (bytes): a topics file (path or file object), or ids given directly."""
    if topics is None:
        return None
    import os
    if isinstance(topics, (str, bytes, os.PathLike)) or hasattr(topics, "read"):
        return read_topics(topics)
    from rankmeter.io.canonical import encode_id
    return list(dict.fromkeys(encode_id(t) for t in topics))
