"""Structured files (JSON and JSON Lines) read one way: bounded, strict, checked.

Every JSON file rankmeter reads as a whole -- a baseline, a design file, query slices -- goes through
:func:`read_json`: its size is capped before it is read, it must be UTF-8 (a byte-order mark is allowed),
its nesting is bounded, an object may not name a key twice, and its content is checked against the
schema its reader declares once (:class:`Record`, :class:`ListOf`, :class:`Num`, ...). A damaged file is
an :class:`~rankmeter.errors.InputError` naming the file, the field (a JSON path such as
``measures[0].canonical``), what the field must hold and what it holds; nothing is coerced (the string
``"0.5"`` is not a number, ``"yes"`` is not a boolean, ``true`` is not the integer 1). ``NaN``,
``Infinity`` and numbers too large for a double (``1e999``) are refused wherever a number is expected
unless that field says it allows them (``Num(finite=False)``). JSON Lines files are read by
:func:`json_lines` the same way, line by line (each error names the line too); a bulk reader is given only
what :func:`json_lines_bounded` passes. The schema kinds live in :mod:`rankmeter.io.schema`.

>>> schema = Record({"margin": Num(low=0, high=1), "tags": ListOf(Str())})
>>> parse_json(b'{"margin": 0.1, "tags": ["a"]}', schema, source="cfg.json")
{'margin': 0.1, 'tags': ['a']}
>>> parse_json(b'{"margin": "0.1", "tags": ["a"]}', schema, source="cfg.json")
Traceback (most recent call last):
...
rankmeter.errors.InputError: cfg.json: field margin: expected a number in [0, 1], got the string '0.1'
>>> parse_json(b'{"margin": NaN, "tags": []}', schema, source="cfg.json")
Traceback (most recent call last):
...
rankmeter.errors.InputError: cfg.json: field margin: expected a number in [0, 1], got NaN

The metadata of SQLite files (the caches) is checked by :func:`rankmeter.io.sqlite.check_sqlite`.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

import numpy as np

from rankmeter.errors import InputError, shown_repr
from rankmeter.io.arrays import Numbers
from rankmeter.io.schema import (MAX_DEPTH, Anything, Bool, Int, ListOf, MapOf, Nullable, Num, Record,
                                 Schema, Str, Tuple, HugeInteger, MAX_INTEGER_DIGITS, check, describe, field_error)
__all__ = ["read_json", "parse_json", "json_document_or_lines", "check", "field_error", "Schema", "Str", "Int", "Num",
           "Bool", "Nullable", "ListOf", "Tuple", "MapOf", "Record", "Anything", "Numbers",
           "MAX_BYTES", "MAX_DEPTH", "json_lines", "json_lines_bounded", "MAX_LINE_BYTES", "MAX_LINE_KEYS"]

#: the largest structured file read by default (a baseline of 500,000 queries and 5 measures is ~60 MB)
MAX_BYTES = 256 * 2 ** 20


class _DuplicateKey(Exception):
    pass


def _pairs(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _integer(text: str):
    return int(text) if len(text.lstrip("-")) <= MAX_INTEGER_DIGITS else HugeInteger(len(text.lstrip("-")))


def _utf8(data, source: str) -> str:
    """``data`` (bytes, a byte-order mark allowed) as text; bytes that are not UTF-8 are named by line."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return data
    data = bytes(data)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}): "
                         "save the file as UTF-8", source=source) from None


def parse_json(data: bytes | str, schema: Schema | None = None, *, source: str, hint: str | None = None,
               max_depth: int = MAX_DEPTH, none_if_not_json: bool = False) -> Any:
    """Parse JSON text (bytes must be UTF-8) and check it against ``schema`` (by default only bounded:
    :class:`Anything`). ``none_if_not_json``: None for text that is not one JSON value (JSON Lines, say)
    instead of an error."""
    text = _utf8(data, source)
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_int=_integer)
    except RecursionError:
        raise InputError(f"not a file rankmeter reads: nested deeper than {max_depth} levels of lists and objects",
                         source=source, hint=hint) from None
    except _DuplicateKey as exc:
        raise InputError(f"an object names the key {shown_repr(exc.args[0])} twice: JSON readers disagree on "
                         "which one counts; keep one", source=source, hint=hint) from None
    except json.JSONDecodeError as exc:
        if none_if_not_json:
            return None
        raise InputError(f"not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})", source=source,
                         hint=hint) from None
    except ValueError as exc:  # e.g. a float literal Python refuses
        if none_if_not_json:
            return None
        raise InputError(f"not valid JSON ({exc})", source=source, hint=hint) from None
    return check(value, schema or Anything(), source=source, hint=hint, max_depth=max_depth)


def _name(source) -> str:
    if isinstance(source, (str, bytes, os.PathLike)):
        return os.fsdecode(source)
    return getattr(source, "name", None) if isinstance(getattr(source, "name", None), str) else "<stream>"


def read_json(source, schema: Schema | None = None, *, what: str = "the file", hint: str | None = None,
              max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, record: bool = False) -> Any:
    """Read the JSON file (a path or a binary file object) ``source`` and check it against ``schema``.

    Parameters
    ----------
    what : str
        What the file is, for "cannot read the baseline (...)".
    hint : str, optional
        What to do about a damaged file (appended to every message about it).
    max_bytes, max_depth : int
        A larger file, or one nested deeper, is refused before or while it is parsed.
    record : bool
        Note the file as an input (no output of this process is written over it).
    """
    name = _name(source)
    try:
        if isinstance(source, (str, bytes, os.PathLike)):
            with open(source, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size > max_bytes:
                    raise InputError(f"{what} is {size} bytes, more than rankmeter reads ({max_bytes}): not "
                                     "one rankmeter wrote?", source=name, hint=hint)
                data = fh.read(max_bytes + 1)
                if record:
                    from rankmeter.io.inputs import record_input
                    record_input(fh, source)
        else:
            data = source.read(max_bytes + 1)
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogatepass")
    except OSError as exc:
        raise InputError(f"cannot read {what} ({exc.strerror or exc})", source=name) from None
    if len(data) > max_bytes:
        raise InputError(f"{what} is more than {max_bytes} bytes, more than rankmeter reads", source=name, hint=hint)
    return parse_json(data, schema, source=name, hint=hint, max_depth=max_depth)


# JSON Lines: one value per line, each read as a file of its own is (parse_json), errors naming the line

#: the longest line of a JSON Lines file read by default (a record of ids and numbers, or one document's text)
MAX_LINE_BYTES = 32 * 2 ** 20
#: the most keys (colons, counted in strings too) a line may hold for a bulk reader (Arrow's makes a column per
#: key: a 6 MB line of 600,000 keys peaked at 809 MB); records hold a few
MAX_LINE_KEYS = 256
# a non-blank line whose first non-blank byte does not open an object
_NOT_AN_OBJECT = re.compile(rb"(?m)^[ \t\r\f\v]*[^{ \t\r\n\f\v]")
_DEPTH_STEP = np.zeros(256, dtype=np.int8)
_DEPTH_STEP[[ord("["), ord("{")]] = 1
_DEPTH_STEP[[ord("]"), ord("}")]] = -1
_BLOCK = 1 << 22


def _depth_at_most(data: bytes, limit: int) -> bool:
    """Whether brackets (counted in strings too: an over-estimate) never nest deeper than ``limit``."""
    depth = 0
    for start in range(0, len(data), _BLOCK):  # in blocks: a few MB of temporaries, however big the file
        steps = _DEPTH_STEP[np.frombuffer(data, dtype=np.uint8, count=min(_BLOCK, len(data) - start),
                                          offset=start)]
        running = np.cumsum(steps, dtype=np.int64) + depth
        if len(running):
            if running.max() > limit:
                return False
            depth = int(running[-1])
    return True


def _lines_within(data: bytes, max_keys: int, max_line_bytes: int) -> bool:
    """Whether no line holds more than ``max_keys`` colons (an over-estimate of its keys) nor more than
    ``max_line_bytes`` bytes."""
    if data.count(b":") <= max_keys and len(data) <= max_line_bytes:
        return True
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((arr == ord("\n")) | (arr == ord("\r")))
    if len(data) > max_line_bytes and np.diff(np.concatenate(([-1], ends, [len(data)]))).max() - 1 > max_line_bytes:
        return False
    # each colon's line (a search among the line ends, not a running count over every byte: 8 bytes a byte)
    per_line = np.bincount(np.searchsorted(ends, np.flatnonzero(arr == ord(":"))))
    return bool(per_line.max(initial=0) <= max_keys)


def json_lines_bounded(data: bytes, *, max_depth: int = MAX_DEPTH, max_keys: int = MAX_LINE_KEYS,
                       max_line_bytes: int = MAX_LINE_BYTES) -> bool:
    """Whether JSON Lines ``data`` is within the bounds, checked in bulk (vectorised, no parsing): every
    non-blank line opens an object, brackets nest at most ``max_depth`` deep, no line holds more than
    ``max_keys`` colons or ``max_line_bytes`` bytes. A bulk reader (Arrow's) is given only such data; anything
    else is read by :func:`json_lines`, which names what is wrong and where."""
    return _NOT_AN_OBJECT.search(data) is None and _depth_at_most(data, max_depth) and \
        _lines_within(data, max_keys, max_line_bytes)


def json_document_or_lines(data: bytes, *, source: str, max_depth: int = MAX_DEPTH, document: bool = True):
    """``(value, bounded)`` of a file that is one JSON document or JSON Lines, found in one look: ``value`` the
    document parsed (``document``: when it may be one) or None when it is not one JSON value, ``bounded``
    whether its lines are within :func:`json_lines_bounded`'s bounds (a bulk reader may be given them).

    >>> json_document_or_lines(b'{"q": 1}\\n{"q": 2}\\n', source="run.jsonl")
    (None, True)
    """
    value = parse_json(data, source=source, max_depth=max_depth, none_if_not_json=True) if document else None
    return value, json_lines_bounded(data, max_depth=max_depth)


def json_lines(data: bytes | str, schema: Schema | None = None, *, source: str, hint: str | None = None,
               max_depth: int = MAX_DEPTH, max_line_bytes: int = MAX_LINE_BYTES, what: str = "a JSON object"):
    r"""Each non-blank line of the JSON Lines text ``data``, parsed and checked against ``schema`` (by default
    an object, bounded, with finite numbers): ``(line number, value)`` pairs, in order.

    Bytes must be UTF-8; a line longer than ``max_line_bytes`` is refused before it is parsed, a line nested
    deeper than ``max_depth``, naming a key twice, or not valid JSON is refused, and every error names the
    file, the line and, for a bad value, the field (``FILE:LINE: field score: expected ..., got NaN``).

    >>> list(json_lines(b'{"id": "d1", "text": "a"}\n\n{"id": "d2", "text": "b"}\n', source="docs.jsonl"))
    [(1, {'id': 'd1', 'text': 'a'}), (3, {'id': 'd2', 'text': 'b'})]
    >>> list(json_lines(b'{"id": "d1", "score": NaN}\n', source="docs.jsonl"))
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputError: docs.jsonl:1: field score: expected a finite number, got NaN
    """
    text = _utf8(data, source)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    schema = schema or Record({}, what=what)
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        if len(line) > max_line_bytes // 4 and len(line.encode("utf-8", "surrogatepass")) > max_line_bytes:
            raise InputError(f"a line of more than {max_line_bytes} bytes: not a record rankmeter reads (check that "
                             "this is the right file)", source=source, line=number, hint=hint)
        try:
            value = json.loads(line, parse_int=_integer)
            if isinstance(value, dict) and line.count(":") > len(value):   # a key given twice, or nested objects
                value = json.loads(line, object_pairs_hook=_pairs, parse_int=_integer)
        except RecursionError:
            raise InputError(f"nested deeper than {max_depth} levels of lists and objects: not a record rankmeter "
                             "reads", source=source, line=number, hint=hint) from None
        except _DuplicateKey as exc:
            raise InputError(f"an object names the key {shown_repr(exc.args[0])} twice: JSON readers disagree on "
                             "which one counts; keep one", source=source, line=number, hint=hint) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno}); every line must be {what}",
                             source=source, line=number, hint=hint) from None
        except ValueError as exc:
            raise InputError(f"not valid JSON ({exc}); every line must be {what}", source=source, line=number,
                             hint=hint) from None
        if not isinstance(value, dict) and isinstance(schema, Record):
            raise InputError(f"a JSON {'null' if value is None else type(value).__name__}, not an object; every "
                             f"line must be {what}", source=source, line=number, hint=hint)
        yield number, check(value, schema, source=source, hint=hint, max_depth=max_depth, line=number)
