"""Where the other tools' measure names come from: loaders announced from above, run once, when names need them.

:mod:`rankmeter.measures.names` reads rankmeter's own grammar and trec_eval's names. Each peer's model
(``rankmeter/compat/<tool>/model.py``) registers its tool's spellings with
:func:`rankmeter.measures.names.register_spellings` as it is imported. The top package announces those
imports here (:func:`announce`) without running them, so ``import rankmeter`` stays light and nothing below
``compat/`` imports them. The name reader runs them only for a name neither rankmeter's grammar nor
trec_eval's names read (``AP`` or ``ndcg_cut.10`` loads no tool), or a measure object of another library;
a tool that reads some names before rankmeter's grammar does (a name the grammar would read otherwise) is
announced with their leading names (``heads``), and loads before a name with that head is read.

>>> calls = []
>>> announce(lambda: calls.append("loaded"), heads=("MeanAP",))
>>> load_announced(head="AP"); calls
[]
>>> load_announced(head="MeanAP"); load_announced(); calls
['loaded']
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["announce", "load_announced", "pending"]

_PENDING: list[tuple[Callable[[], object], frozenset[str]]] = []


def announce(loader: Callable[[], object], *, heads: Iterable[str] = ()) -> None:
    """Run ``loader`` (which imports a peer's model, registering its names) before a name nothing loaded reads,
    and before any name whose leading name is one of ``heads``."""
    _PENDING.append((loader, frozenset(heads)))


def pending() -> bool:
    """Whether an announced loader has not run yet."""
    return bool(_PENDING)


def load_announced(*, head: str | None = None) -> None:
    """Run every announced loader once, in the order announced (``head``: only those announced with that head);
    a loader that reads a name meanwhile sees the tools registered so far."""
    for entry in [e for e in _PENDING if head is None or head in e[1]]:
        if entry in _PENDING:
            _PENDING.remove(entry)
            entry[0]()
