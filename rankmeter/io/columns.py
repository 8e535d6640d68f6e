"""Which columns hold the query, the doc and the grade or score, by the names other tools use.

A table (a DataFrame, a CSV/TSV header, Parquet, JSON Lines) is read without
``columns=`` when its names follow one of these conventions:

============================  ===========  ==========  ===============  ============
convention                    query        doc         grade (qrels)    score (run)
============================  ===========  ==========  ===============  ============
rankmeter                     query        doc         rel              score
ir_measures / ir_datasets     query_id     doc_id      relevance        score
PyTerrier                     qid          docno       label            score (rank)
Microsoft Recommenders        userID       itemID      rating           prediction
user / item                   user         item        rating           score
BEIR (TSV qrels)              query-id     corpus-id   score
============================  ===========  ==========  ===============  ============

Qrels may also have a subtopic column (diversity qrels): ``subtopic``,
``subtopic_id`` or ir_measures' ``iteration``, or ``columns={"subtopic": ...}``.

Names match exactly (after stripping spaces). A table that fits two
conventions (``query``/``doc`` and ``qid``/``docno``) is an error listing what
was found; ``columns={"query": ..., "doc": ..., "rel"/"score": ...}`` settles it.
"""
from __future__ import annotations

from rankmeter.errors import InputError

__all__ = ["resolve_columns", "CONVENTIONS"]

#: (name, query column, doc column, grade columns, score columns)
CONVENTIONS = (
    ("rankmeter", "query", "doc", ("rel",), ("score",)),
    ("ir_measures", "query_id", "doc_id", ("relevance",), ("score",)),
    ("PyTerrier", "qid", "docno", ("label",), ("score",)),
    ("Recommenders", "userID", "itemID", ("rating",), ("prediction",)),
    ("user/item", "user", "item", ("rating",), ("score", "prediction")),
    ("user_id/item_id", "user_id", "item_id", ("rating",), ("score", "prediction")),
    ("BEIR", "query-id", "corpus-id", ("score",), ("score",)),
)
_GRADES = ("rel", "relevance", "label", "rating", "grade", "judgment")
_SCORES = ("score", "prediction", "similarity")
_RANK = "rank"
ROLES = ("query", "doc", "rel", "score", "subtopic")
#: names of a diversity qrels' subtopic column (ir_measures keeps it as ``iteration``)
_SUBTOPICS = ("subtopic", "subtopic_id", "iteration")


def _listing(names) -> str:
    shown = [str(n) for n in names][:12]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def resolve_columns(names, kind: str, columns: dict | None, source: str) -> dict[str, str | None]:
    """Map roles to column names: ``{"query", "doc", "rel" or "score", "rank"}``.

    ``kind`` is ``"qrels"`` or ``"run"``; ``columns`` may name the roles of
    both (``evaluate(..., columns=)`` passes one dict to both sides): each
    side uses its own (qrels query/doc/rel, runs query/doc/score/rank). A run without a score column gets
    ``score=None`` (a ranked list, or ordered by ``rank`` when there is one).

    >>> resolve_columns(["qid", "docno", "score", "rank", "query"], "run", None, "<frame>")
    {'query': 'qid', 'doc': 'docno', 'score': 'score', 'rank': 'rank'}
    >>> resolve_columns(["query-id", "corpus-id", "score"], "qrels", None, "<file>")
    {'query': 'query-id', 'doc': 'corpus-id', 'rel': 'score'}
    """
    names = [str(n) for n in names]
    present = set(names)
    given = dict(columns or {})
    unknown = [k for k in given if k not in ROLES and k != _RANK]
    if unknown:
        raise InputError(f"columns={given!r}: unknown role {unknown[0]!r}; the keys are roles "
                         "(query, doc, rel for qrels, score for runs) and the values your column "
                         "names, e.g. columns={'query': 'qid'}", source=source)
    relevant = ("query", "doc", "rel", "subtopic") if kind == "qrels" else ("query", "doc", "score", _RANK)
    given = {role: name for role, name in given.items() if role in relevant}  # one dict serves both sides
    for role, name in given.items():
        if str(name) not in present:
            raise InputError(f"columns={given!r}: no column {str(name)!r} (columns: {_listing(names)})",
                             source=source)
    out: dict[str, str | None] = {}
    convention = None
    if "query" in given and "doc" in given:
        out["query"], out["doc"] = str(given["query"]), str(given["doc"])
    else:
        fits = [c for c in CONVENTIONS
                if str(given.get("query", c[1])) in present and str(given.get("doc", c[2])) in present]
        pairs = list(dict.fromkeys((str(given.get("query", c[1])), str(given.get("doc", c[2]))) for c in fits))
        if not pairs:
            known = "; ".join(f"{c[1]}/{c[2]}" for c in CONVENTIONS)
            raise InputError(f"cannot tell which columns hold the query and the doc (columns: "
                             f"{_listing(names)}); name them (known pairs: {known}) or pass "
                             "columns={'query': ..., 'doc': ...}", source=source)
        if len(pairs) > 1:
            found = ", ".join(f"{q}/{d}" for q, d in pairs)
            raise InputError(f"ambiguous columns: this table has several query/doc pairs ({found}); "
                             "say which with columns={'query': ..., 'doc': ...}", source=source)
        out["query"], out["doc"] = pairs[0]
        convention = fits[0]
    value_role = "rel" if kind == "qrels" else "score"
    if value_role in given:
        out[value_role] = str(given[value_role])
    else:
        out[value_role] = _value_column(names, kind, convention, out, source)
    subtopic = str(given["subtopic"]) if "subtopic" in given else \
        next((n for n in _SUBTOPICS if n in present and n not in out.values()), None)
    if kind == "qrels" and subtopic is not None:
        out["subtopic"] = subtopic
    if kind == "run" and out["score"] is None:
        if _RANK in given or _RANK in present:
            out["rank"] = str(given.get(_RANK, _RANK))
        else:
            grades = [n for n in _GRADES if n in present and n not in out.values()]
            if grades:
                raise InputError(f"this table has a {grades[0]!r} column but no score column: it looks "
                                 "like qrels; check the argument order (qrels first, then the run), or "
                                 "name the score column with columns={'score': ...}", source=source)
    elif kind == "run" and (_RANK in given):
        out["rank"] = str(given[_RANK])
    elif kind == "run" and _RANK in present and convention is not None and convention[0] == "PyTerrier":
        out["rank"] = _RANK  # kept for messages only: the score orders the ranking
    return out


def _value_column(names, kind, convention, chosen, source) -> str | None:
    own = () if convention is None else (convention[3] if kind == "qrels" else convention[4])
    taken = set(chosen.values())
    for name in own:
        if name in names and name not in taken:
            return name
    pool = _GRADES if kind == "qrels" else _SCORES
    found = [n for n in pool if n in names and n not in taken]
    if len(found) == 1:
        return found[0]
    what = "grade" if kind == "qrels" else "score"
    role = "rel" if kind == "qrels" else "score"
    if len(found) > 1:
        raise InputError(f"ambiguous columns: several could hold the {what} ({', '.join(found)}); say "
                         f"which with columns={{{role!r}: ...}}", source=source)
    if kind == "qrels":
        raise InputError(f"no grade column (columns: {_listing(names)}); name it rel, relevance, label or "
                         "rating, or pass columns={'rel': ...}", source=source)
    return None
