"""Exceptions raised by rankmeter.

Every error a user can cause is a :class:`RankmeterError`; its message says
where (file and line when there is one), what is wrong and what to do. The
CLI prints it on one line and exits with status 2.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["RankmeterError", "InputError", "MeasureError", "ParameterError", "MissingExtra", "NotBuilt", "require",
           "shown_id", "shown_repr"]


def _numbers(value: int | Sequence[int]) -> str:
    if isinstance(value, int):
        return str(value)
    values = [str(v) for v in value]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


#: Bidirectional controls (embeddings, overrides, isolates, marks): escaped, never obeyed by a terminal
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
#: Characters of an id shown in a message; a longer id is cut, with its length
SHOWN_ID_CHARS = 60


def printable(text: object) -> str:
    """``text`` with control and bidirectional characters escaped (``\\x1b``, ``\\u202e``)."""
    text = str(text)
    if text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text
    return "".join(c if c.isprintable() and c not in BIDI_CONTROLS else repr(c)[1:-1] for c in text)


def shown_id(value: object, limit: int = SHOWN_ID_CHARS) -> str:
    """An id (query, doc, run tag) as a message may show it: short, one line, no terminal controls.

    Bytes are decoded as UTF-8 (an undecodable byte shows as ``\\xff``);
    control and bidirectional characters are escaped; an id longer than
    ``limit`` characters is cut, followed by its whole length.

    >>> shown_id(b"301")
    '301'
    >>> print(shown_id("q\\u202eevil\\n"))
    q\\u202eevil\\n
    >>> shown_id("x" * 1_000_000)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (1000000 bytes)'
    """
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        text = raw[: 4 * limit + 4].decode("utf-8", "backslashreplace")
    else:
        text = str(value)
        raw = None
    cut = len(text) > limit or (raw is not None and len(raw) > 4 * limit + 4)
    if cut:
        size = len(raw) if raw is not None else len(text.encode("utf-8", "surrogatepass"))
        text = text[:limit]
    text = printable(text)
    return f"{text}… ({size} bytes)" if cut else text


def shown_repr(value: object, limit: int = SHOWN_ID_CHARS) -> str:
    """``repr(value)`` for a message when it is short and harmless, else :func:`shown_id` in quotes.

    >>> shown_repr("d1"), shown_repr(7), shown_repr(b"d1")
    ("'d1'", '7', "b'd1'")
    >>> shown_repr("q" * 100)
    "'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq… (100 bytes)'"
    """
    text = repr(value)
    if len(text) <= limit + 2 and text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text
    return "'" + shown_id(value, limit) + "'"


class RankmeterError(Exception):
    """Base class of every error rankmeter raises on purpose."""


class InputError(RankmeterError, ValueError):
    """A qrels or run input is missing, unreadable or malformed.

    Each part stays available as an attribute (``message``, ``source``,
    ``line``, ``row``, ``hint``). The text is always one printable line: line
    breaks and other control characters in any part (an id, a file name) are
    shown escaped.

    Parameters
    ----------
    message : str
        What is wrong and what to do.
    source : str, optional
        The file name (or a description such as ``"<stdin>"``).
    line : int or sequence of int, optional
        1-based line number(s) in ``source``: ``run.txt:12 and 40: ...``.
    row : int or sequence of int, optional
        0-based row position(s) in a DataFrame: ``<DataFrame> row 3: ...``.
    hint : str, optional
        What to do, when the message does not already say it.
    """

    def __init__(self, message: str, *, source: str | None = None,
                 line: int | Sequence[int] | None = None, row: int | Sequence[int] | None = None,
                 hint: str | None = None):
        self.message = message
        self.hint = hint
        self.source = source
        self.line = line if line is None or isinstance(line, int) else tuple(line)
        self.row = row if row is None or isinstance(row, int) else tuple(row)
        where = ""
        if source is not None:
            if line is not None:
                where = f"{source}:{_numbers(line)}: "
            elif row is not None:
                plural = "" if isinstance(row, int) or len(self.row) == 1 else "s"
                where = f"{source} row{plural} {_numbers(row)} (counting from 0): "
            else:
                where = f"{source}: "
        text = where + message + (f"; {hint}" if hint else "")
        super().__init__(printable(text))  # one line, no terminal controls


class MeasureError(RankmeterError, ValueError):
    """A measure name or parameter is unknown or invalid."""


class ParameterError(RankmeterError, ValueError):
    """A keyword argument of a public function has an invalid value."""


class MissingExtra(RankmeterError, ImportError):
    """An optional dependency is not installed; the message names the extra that brings it.

    It is an :class:`ImportError` (what Python code expects of a missing
    module) and a :class:`RankmeterError` (the CLI prints it on one line).
    """

    def __init__(self, module: str, extra: str, needed_for: str):
        self.module, self.extra = module, extra
        super().__init__(f"{needed_for} needs {module}: {install_hint(module)}", name=module)


class NotBuilt(RankmeterError, ImportError):
    """rankmeter's compiled extensions are missing (a source checkout before ``pip install -e .``) or were built
    from other sources; the message says how to build them. Wheels carry them built."""


#: What installs an optional module where the hint ``pip install NAME`` is not the whole story. rankmeter is
#: installed from a checkout, so hints name the packages themselves, never ``rankmeter[extra]``.
_INSTALL = {
    "torch": "install the torch build you train with (the CPU one: pip install --no-index torch where local "
             "wheels are kept), then the rest without dependencies so pip never swaps in a CUDA build",
    "torchmetrics": "install the torch build you train with first, then pip install --no-deps torchmetrics "
                    "lightning-utilities (with its dependencies pip would pull the CUDA build of torch)",
    "ir_datasets": "pip install ir_datasets", "zstandard": "pip install zstandard", "sklearn": "pip install scikit-learn",
    "yaml": "pip install PyYAML",
}


def install_hint(module: str) -> str:
    """The command that installs the optional ``module`` (the package's own name, not an extra of rankmeter).

    >>> install_hint("matplotlib")
    'pip install matplotlib'
    """
    return _INSTALL.get(module, f"pip install {module}")


def require(module: str, extra: str, needed_for: str):
    """Import ``module`` (an optional dependency) or raise :class:`MissingExtra` naming ``extra``."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(module.split(".")[0], extra, needed_for) from None
