"""Measure names as typed, read as rankmeter measures: rankmeter's grammar, trec_eval's names, and the spellings
other tools' models register here.

:func:`resolve_name` reads one name, in this order, keeping the label as typed:

1. a registered tool's spellings that mean something else in rankmeter's grammar (``read_first``);
2. rankmeter's own grammar (``nDCG(gain=exp)@10``);
3. trec_eval's ``-m`` names (``ndcg_cut.10``, ``P.5,10``) and nicknames (``official``, ``all_trec``, ``set``);
4. trec_eval's printed names (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.50``, ``recall_1000``);
5. each registered tool's spellings (``read``), in the order registered;
6. a name that differs only in case, when only one measure fits (``map``, ``Ndcg@10``);
7. otherwise an error suggesting the closest measure, the cutoff kept (``ndgc@10`` -> ``nDCG@10``).

Other tools' names are not written here: each peer's model (``rankmeter/compat/<tool>/model.py``: ir_measures'
``NDCG@10``, ``SetF(beta=1)``, ranx's ``map@100``, ``rbp.95``) registers its readers with
:func:`register_spellings` when it is imported; the top package announces those imports, run for the first
name rankmeter's grammar and trec_eval's names do not read (:mod:`rankmeter.engine.spellings`). A registered tool can also read its own measure objects
(:func:`measure_of_object`). :func:`split_names` cuts ``"AP nDCG@10"`` or ``"AP,nDCG@10"`` into names.

>>> [str(m) for _, m in resolve_name("P_10")]
['P@10']
>>> [(label, str(m)) for label, m in resolve_name("ndcg_cut.5,10")]
[('ndcg_cut_5', 'nDCG@5'), ('ndcg_cut_10', 'nDCG@10')]
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rankmeter.engine.spellings import load_announced, pending
from rankmeter.errors import MeasureError
from rankmeter.measures.base import REGISTRY, Measure
from rankmeter.measures.grammar import parse_measure
from rankmeter.measures.trec_eval import NICKNAMES, TREC_MEASURES, expand, split_name

__all__ = ["resolve_name", "split_names", "register_spellings", "spellings", "Spellings", "measure_of_object",
           "is_measure_object"]

#: a name reader: the name as typed -> [(label, Measure)], or None when the name is not its tool's
Reader = Callable[[str], "list[tuple[str, Measure]] | None"]


@dataclass(frozen=True)
class Spellings:
    """One tool's measure names, as its model registers them (:func:`register_spellings`)."""

    tool: str
    #: reads the tool's names after rankmeter's grammar and trec_eval's names have refused them
    read: Reader | None = None
    #: reads the tool's names that rankmeter's grammar would read otherwise (before it)
    read_first: Reader | None = None
    #: the tool's family names -> rankmeter's, for names that differ in case only and for suggestions
    families: Mapping[str, str] = field(default_factory=dict)
    #: whether an object is one of the tool's measure objects, and the Measure giving the tool's numbers for it
    accepts_object: Callable[[object], bool] | None = None
    read_object: Callable[[object], Measure] | None = None


#: tool -> its registered spellings, in the order registered (the order their readers are tried in)
_SPELLINGS: dict[str, Spellings] = {}


def register_spellings(tool: str, **readers) -> Spellings:
    """Register ``tool``'s names (the keywords are :class:`Spellings`' fields); registering a tool again replaces
    its entry and keeps its place.

    >>> read = lambda text: [(text, parse_measure("AP"))] if text == "MeanAP" else None
    >>> _ = register_spellings("doc-example", read=read, families={"MeanAP": "AP"})
    >>> [str(m) for _, m in resolve_name("MeanAP")], [str(m) for _, m in resolve_name("meanap")]
    (['AP'], ['AP'])
    >>> del _SPELLINGS["doc-example"]
    """
    entry = Spellings(tool, **readers)
    _SPELLINGS[tool] = entry
    return entry


def spellings() -> dict[str, Spellings]:
    """Every announced tool's :class:`Spellings` (their models loaded), in the order their readers are tried."""
    load_announced()
    return dict(_SPELLINGS)


def split_names(text: str) -> list[str]:
    """Names separated by spaces or commas outside parentheses and braces."""
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                out.append(current)
            current = ""
        else:
            current += ch
    if current:
        out.append(current)
    return out


def _canonical(text: str) -> list[tuple[str, Measure]] | None:
    try:
        return [(text, parse_measure(text))]
    except MeasureError:
        return None


def _trec_eval(text: str) -> list[tuple[str, Measure]] | None:
    name = split_name(text)[0]
    candidates = [text] if (name in TREC_MEASURES or text in NICKNAMES) and name != "runid" else []
    # a printed name: "P_10", "ndcg_cut_10", "iprec_at_recall_0.50" -> the -m form "P.10", ...
    for i in [m.start() for m in re.finditer("_", text)][::-1]:
        if text[:i] in TREC_MEASURES and text[:i] != "runid" and re.fullmatch(r"[0-9.]+", text[i + 1:]):
            candidates.append(f"{text[:i]}.{text[i + 1:]}")
    for spec in candidates:
        try:
            expanded = [(label, m) for label, _, m in expand([spec]) if m is not None]
        except (MeasureError, ValueError):  # not a trec_eval spelling after all (a registered tool's, perhaps)
            continue
        if not expanded:
            raise MeasureError(f"{text!r} is a trec_eval measure with no canonical form here; compute it with "
                               f"`rankmeter trec_eval -m {spec}` (see docs/trec_eval.md)")
        if len(expanded) == 1:
            return [(text, expanded[0][1])]
        return expanded
    return None


def _readers() -> list[Reader]:
    registered = _SPELLINGS.values()  # those loaded so far
    return ([s.read_first for s in registered if s.read_first] + [_canonical, _trec_eval]
            + [s.read for s in registered if s.read])


def _read(text: str) -> list[tuple[str, Measure]] | None:
    for reader in _readers():
        found = reader(text)
        if found is not None:
            return found
    return None


def _families() -> dict[str, str]:
    """Every registered tool's family names -> rankmeter's (the first tool's reading of a name wins)."""
    out: dict[str, str] = {}
    for entry in spellings().values():
        out = dict(entry.families) | out
    return out


def _names_by_case(families: dict[str, str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name in list(REGISTRY) + list(families):
        out.setdefault(name.lower(), set()).add(families.get(name, name))
    return out


def _head(text: str) -> tuple[str, str]:
    """The leading name of ``text`` and the rest (parameters, cutoff)."""
    match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return (match.group(), text[match.end():]) if match else ("", text)


def resolve_name(text: str) -> list[tuple[str, Measure]]:
    """One name as typed -> [(label, Measure)] (several for trec_eval names with several parameters)."""
    text = text.strip()
    load_announced(head=_head(text)[0])  # a tool that reads this name before rankmeter's grammar
    found = _read(text)
    if found is None and pending():  # the other tools load for a name nothing loaded so far reads
        load_announced()
        found = _read(text)
    if found is not None:
        return found
    families = _families()
    head, rest = _head(text)
    fits = _names_by_case(families).get(head.lower(), set())
    if len(fits) == 1:
        found = resolve_name(next(iter(fits)) + rest) if next(iter(fits)) != head else None
        if found:
            return [(text, m) for _, m in found]
    if len(fits) > 1:
        raise MeasureError(f"{text!r} could mean {', '.join(sorted(f + rest for f in fits))}; write one of them")
    family = families.get(head, head)
    if family in REGISTRY:  # a known family the readers refused: its own complaint (a missing cutoff ...)
        return [(text, parse_measure(family + rest))]
    pool = sorted(set(REGISTRY) | set(families))
    close = difflib.get_close_matches(head, pool, n=1, cutoff=0.6) or \
        difflib.get_close_matches(head.lower(), [p.lower() for p in pool], n=1, cutoff=0.6)
    if close:
        guess = next((p for p in pool if p == close[0] or p.lower() == close[0]), close[0])
        suggestion = families.get(guess, guess) + rest
        raise MeasureError(f"unknown measure {text!r}; did you mean {suggestion}? "
                           "(`rankmeter measures` lists them all)")
    raise MeasureError(f"unknown measure {text!r} (`rankmeter measures` lists them all)")


def _object_spellings(obj) -> Spellings | None:
    if type(obj).__module__ == "builtins" or isinstance(obj, Measure):  # a name, a list of them: no tool's object
        return None
    return next((s for s in spellings().values() if s.accepts_object and s.read_object and s.accepts_object(obj)),
                None)


def is_measure_object(obj) -> bool:
    """Whether ``obj`` is a measure object of a registered tool (an ir_measures ``nDCG@10``, say)."""
    return _object_spellings(obj) is not None


def measure_of_object(obj) -> Measure:
    """The measure giving its tool's numbers for a registered tool's measure object (MeasureError for another)."""
    entry = _object_spellings(obj)
    if entry is None:
        raise MeasureError(f"{obj!r} is not a measure object of a tool rankmeter reads "
                           f"({', '.join(s.tool for s in spellings().values() if s.read_object) or 'none registered'})")
    return entry.read_object(obj)
