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

``columns=`` maps roles to column names, or to positions counted from 0 (a
file without a header line has only positions; in a table a number is the
column of that label, else of that position). The roles are ``query``,
``doc``, ``rel`` and ``subtopic`` for qrels, ``query``, ``doc``, ``score`` and
``rank`` for runs: a ``rank`` column orders each query's docs ascending (rank
1 first; a rank given twice in a query is refused). MS MARCO's own run
format ``qid pid rank`` is read with ``columns={"query": 0, "doc": 1, "rank": 2}``.
Every role given is used or refused, never ignored: an unknown role, a name
given to a file without a header, a ``score`` and a ``rank`` both given, or
(for :func:`~rankmeter.read_run` and :func:`~rankmeter.read_qrels`) the other
side's role is an error. One dict given to ``evaluate`` serves both sides:
``rel``/``subtopic`` only the qrels, ``score``/``rank`` only the runs, and
``query``/``doc`` the side(s) whose roles the dict names (both, when it
names neither and gives column names); the other side reads those column
names only where a table has them.
"""
from __future__ import annotations

from rankmeter.errors import InputError

__all__ = ["resolve_columns", "side_columns", "Borrowed", "CONVENTIONS"]

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
GRADE_NAMES = ("rel", "relevance", "label", "rating", "grade", "judgment")
SCORE_NAMES = ("score", "prediction", "similarity")
_RANK = "rank"
ROLES = ("query", "doc", "rel", "score", "subtopic")
#: the roles only one side has
_OWN = {"qrels": ("rel", "subtopic"), "run": ("score", _RANK)}
_SIDE_ROLES = {"qrels": ("query", "doc", "rel", "subtopic"), "run": ("query", "doc", "score", _RANK)}
#: names of a diversity qrels' subtopic column (ir_measures keeps it as ``iteration``)
_SUBTOPICS = ("subtopic", "subtopic_id", "iteration")


def _listing(names) -> str:
    shown = [str(n) for n in names][:12]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _is_position(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or type(value).__module__ == "numpy" \
        and getattr(value, "dtype", None) is not None and value.dtype.kind in "iu"


def side_columns(columns, kind: str, *, shared: bool = False, source: str | None = None) -> dict | None:
    """The part of ``columns`` that the ``kind`` side (``"qrels"`` or ``"run"``) reads, checked; None: none.

    ``shared``: one dict serves qrels and runs (``evaluate(..., columns=)``):
    the other side's roles are left to it, and a dict that names only the other
    side's roles is not this side's at all. Not shared (:func:`~rankmeter.read_run`,
    :func:`~rankmeter.read_qrels`), every role must be this side's.

    >>> side_columns({"query": 0, "doc": 1, "rank": 2}, "qrels", shared=True) is None
    True
    >>> side_columns({"query": "user", "doc": "item", "score": "p"}, "qrels", shared=True)
    {'query': 'user', 'doc': 'item'}
    >>> side_columns({"query": 0, "doc": 1, "rank": 2}, "run")
    {'query': 0, 'doc': 1, 'rank': 2}
    >>> side_columns({"query": "user", "doc": "item"}, "qrels", shared=True)
    {'query': 'user', 'doc': 'item'}
    """
    if columns is None or isinstance(columns, Borrowed):
        return columns
    from collections.abc import Mapping
    if not isinstance(columns, Mapping):
        raise InputError(f"columns={columns!r}: expected a dict of roles to column names or positions, e.g. "
                         "{'query': 'qid', 'doc': 'docno'} or {'query': 0, 'doc': 1, 'rank': 2}", source=source)
    given = dict(columns)
    if not given:
        return None
    unknown = [k for k in given if k not in ROLES and k != _RANK]
    if unknown:
        raise InputError(f"columns={given!r}: unknown role {unknown[0]!r}; the roles are query, doc, rel and "
                         "subtopic (qrels), score and rank (runs), each given a column name or a position "
                         "counted from 0, e.g. columns={'query': 'qid'}", source=source)
    for role, value in given.items():
        if not (isinstance(value, str) and value.strip() or _is_position(value) and int(value) >= 0):
            raise InputError(f"columns={given!r}: {role!r} is given {value!r}; give a column name or a position "
                             "(0, 1, ...)", source=source)
    if "score" in given and _RANK in given:
        raise InputError(f"columns={given!r}: a run is ordered by its score or by its rank, not both; give "
                         "one of them", source=source)
    other = "run" if kind == "qrels" else "qrels"
    mine = [r for r in _OWN[kind] if r in given]
    theirs = [r for r in _OWN[other] if r in given]
    if theirs and not shared:
        raise InputError(f"columns={given!r}: {theirs[0]!r} is a role of {other}, not of {kind} ({kind} roles: "
                         f"{', '.join(_SIDE_ROLES[kind])})", source=source)
    if theirs and not mine:  # a dict for the other side: its column names serve here where a table has them
        borrowed = Borrowed({r: v for r, v in given.items() if r in ("query", "doc") and isinstance(v, str)})
        return borrowed or None
    part = {r: v for r, v in given.items() if r in _SIDE_ROLES[kind]}
    if shared and not mine and not theirs and any(_is_position(v) for v in part.values()):
        raise InputError(f"columns={given!r}: positions mean different fields in a qrels file (query iter doc "
                         "rel) and a run file; add the run's 'score' or 'rank' (or the qrels' 'rel') to say which "
                         "file they are for, or read each file with read_run(..., columns=...) / "
                         "read_qrels(..., columns=...)", source=source)
    return {r: int(v) if _is_position(v) else v for r, v in part.items()} or None


class Borrowed(dict):
    """query/doc column names of a dict given for the other side (``evaluate``'s one dict): a table that
    has those columns reads them, another input (a file without a header, a table without them) does not."""


def _label(value, names: list[str], given: dict, source: str) -> str:
    """The column a role names: a name, or a number (the column of that label, else of that position)."""
    if not _is_position(value) or str(value) in names:
        return str(value)
    if int(value) < len(names):
        return names[int(value)]
    raise InputError(f"columns={given!r}: no column {int(value)} (the table has {len(names)} columns, "
                     f"positions 0 to {len(names) - 1})", source=source)


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
    shown = dict(columns or {})
    given = side_columns(columns, kind, shared=True, source=source) or {}  # one dict may serve both sides
    if isinstance(given, Borrowed):
        given = {role: name for role, name in given.items() if name in present}
    given = {role: _label(value, names, shown, source) for role, value in given.items()}
    for role, name in given.items():
        if str(name) not in present:
            raise InputError(f"columns={shown!r}: no column {str(name)!r} (columns: {_listing(names)})",
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
    elif kind == "run" and _RANK in given:
        out["score"] = None  # the rank orders the ranking (a score column, if any, is not read)
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
            grades = [n for n in GRADE_NAMES if n in present and n not in out.values()]
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
    pool = GRADE_NAMES if kind == "qrels" else SCORE_NAMES
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


#: the warning :func:`warn_if_ranks` gives (``rankmeter check`` reports the same as an error); the command
#: line prints ``columns={...}`` as its flag, ``--columns query=0,doc=1,rank=2``
RANKS_AS_SCORES = ("each query's scores are exactly 1, 2, 3 ...: if they are ranks, the ranking is inverted "
                   "(rank 1 scores lowest); read them as ranks with columns={'query': 0, 'doc': 1, 'rank': 2} "
                   "(MS MARCO's qid pid rank), or negate them")


def scores_look_like_ranks(run) -> bool:
    """Whether every query's scores are exactly 1..n (a rank column read as scores), some query having two or more.

    >>> from rankmeter.io import as_run
    >>> scores_look_like_ranks(as_run({"q1": {"a": 1, "b": 2, "c": 3}, "q2": {"d": 2, "e": 1}}))
    True
    >>> scores_look_like_ranks(as_run({"q1": {"a": 1, "b": 2, "c": 4}, "q2": {"d": 2, "e": 1}}))
    False
    """
    import numpy as np
    if run.ranked or len(run) < 2:
        return False
    score = run.numbers("score")
    # cheap tests first: a run of real scores fails one of them in a pass or two
    if score.min() != 1.0 or score.max() > len(score) or not np.array_equal(score, np.trunc(score)):
        return False
    query = run.ids("query")
    starts = query.starts()  # runs of equal consecutive query ids
    sizes = np.diff(np.append(starts, len(score)))
    # grouped by query (the usual file: each query's lines together), told by its few heads alone
    if 4 * len(starts) <= len(score) and len(query.take(starts).encode()[0]) == len(starts):
        first, counts = np.repeat(starts, sizes), np.repeat(sizes, sizes)
    else:
        codes = query.encode()[1]
        per_query = np.bincount(codes)
        first, counts = (np.cumsum(per_query) - per_query)[codes], per_query[codes]
    if counts.max(initial=0) < 2 or score.max() > counts.max() or (score > counts).any():
        return False
    # each query's scores are 1..n exactly when every slot first + score - 1 is filled once (no sort)
    return bool((np.bincount(first + score.astype(np.int64) - 1, minlength=len(score)) == 1).all())


def warn_if_ranks(run) -> None:
    """A warning (one line on the command line) when :func:`scores_look_like_ranks`."""
    if scores_look_like_ranks(run):
        import warnings
        warnings.warn(f"{run.source}: {RANKS_AS_SCORES}", stacklevel=4)
