"""Where the other tools' measure names come from: loaders announced from above, run once, before a name is read.

:mod:`rankmeter.measures.names` reads rankmeter's own grammar and trec_eval's names. Each peer's model
(``rankmeter/compat/<tool>/model.py``) registers its tool's spellings with
:func:`rankmeter.measures.names.register_spellings` as it is imported. The top package announces those imports
here (:func:`announce`) without running them, so ``import rankmeter`` stays light and nothing below
``compat/`` imports it; the name reader calls :func:`load_announced` before it reads a name.

>>> calls = []
>>> announce(lambda: calls.append("loaded"))
>>> load_announced(); load_announced(); calls
['loaded']
"""
from __future__ import annotations

from collections.abc import Callable

__all__ = ["announce", "load_announced"]

_PENDING: list[Callable[[], object]] = []


def announce(loader: Callable[[], object]) -> None:
    """Run ``loader`` (which imports a peer's model, registering its names) before the next name is read."""
    _PENDING.append(loader)


def load_announced() -> None:
    """Run every announced loader once, in the order announced (a loader that reads a name meanwhile sees those
    registered so far)."""
    while _PENDING:
        _PENDING.pop(0)()
