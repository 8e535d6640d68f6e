"""The evaluation options every entry point takes, declared once and validated once.

``evaluate``, ``compare``, ``explain``, the report, ``recsys``, Spark and the
command line all take these options with the same names and meaning. Each is
declared in :data:`OPTIONS` with its default, what it accepts and its help
text; :func:`validate_options` checks a set of them in one pass and every bad
value gets the same message shape::

    rel='2': expected an integer relevance threshold (grades >= rel are relevant)

They are the ``evaluation`` and ``executor`` groups of the one parameter table
(:data:`rankmeter.core.params.PARAMS`), from which the CLI builds its flags, so a
flag and its keyword can never drift apart.

>>> validate_options(rel=2, judged_only=True).rel
2
>>> validate_options(queries="all")
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: queries='all': expected one of 'both', 'qrels'
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from rankmeter.core.params import PARAMS
from rankmeter.errors import ParameterError

__all__ = ["Options", "OPTIONS", "validate_options", "QUERY_POLICIES", "TIE_POLICIES", "EXECUTORS",
           "GRADE_POLICIES", "grade_policy"]

QUERY_POLICIES = PARAMS["queries"].choices
TIE_POLICIES = PARAMS["ties"].choices
EXECUTORS = PARAMS["executor"].choices
#: How qrels grades are read: integers only (the default), truncated toward zero like trec_eval's
#: ``atol``, or real numbers (LLM and crowd judgments such as 0.73 or 2.5).
GRADE_POLICIES = PARAMS["grades"].choices


def grade_policy(grades: str = "integer", truncate_grades: bool = False) -> str:
    """The one grade policy of ``grades`` and the older ``truncate_grades=True`` (``grades="truncate"``).

    >>> grade_policy("real"), grade_policy(truncate_grades=True)
    ('real', 'truncate')
    """
    if grades not in GRADE_POLICIES:
        raise ParameterError(f"grades={grades!r}: expected one of " + ", ".join(map(repr, GRADE_POLICIES)))
    if truncate_grades and grades == "real":
        raise ParameterError("grades='real' keeps fractional grades and truncate_grades=True cuts them: "
                             "pass one of the two")
    return "truncate" if truncate_grades else grades


#: The evaluation options, as declared in the one parameter table (:data:`rankmeter.core.params.PARAMS`).
OPTIONS = {name: PARAMS[name] for name in (
    "queries", "rel", "judged_only", "max_docs", "ties", "positive_scores_only", "ignore_self", "grades",
    "truncate_grades", "columns", "intents", "input_format", "executor", "threads", "chunk_bytes", "progress", "partitions")}


#: What other tools call our options (pytrec_eval, trec_eval, ranx ...), for "did you mean".
_OTHER_NAMES = {"relevance": "rel", "relevance_level": "rel", "rel_level": "rel", "level": "rel",
                "judged_docs_only": "judged_only", "judged_docs_only_flag": "judged_only",
                "complete": "queries", "num_docs": "max_docs", "depth": "max_docs", "tie_breaking": "ties",
                "ignore_identical_ids": "ignore_self"}


@dataclass(frozen=True)
class Options:
    """A validated set of evaluation options (see :data:`OPTIONS` for each one's meaning)."""

    queries: str = "both"
    rel: int | float = 1
    judged_only: bool = False
    max_docs: int | None = None
    ties: str = "trec_eval"
    positive_scores_only: bool = False
    ignore_self: bool = False
    grades: str = "integer"
    truncate_grades: bool = False
    columns: Mapping[str, str] | None = None
    intents: Mapping | None = None
    input_format: str = "auto"
    executor: str = "auto"
    threads: int | None = None
    chunk_bytes: int | None = None
    progress: bool | None = None
    partitions: int | None = None

    @property
    def grade_policy(self) -> str:
        """How the qrels' grades are read: ``grades``, or "truncate" for ``truncate_grades=True``."""
        return grade_policy(self.grades, self.truncate_grades)

    def replace(self, **changes: Any) -> "Options":
        return validate_options(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def validate_options(options: Options | None = None, **given: Any) -> Options:
    """Check ``given`` options against :data:`OPTIONS` (on top of ``options``) and return them validated."""
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        import difflib
        hints = [[_OTHER_NAMES[u]] if u in _OTHER_NAMES else difflib.get_close_matches(u, list(OPTIONS), n=1)
                 for u in unknown]
        hint = "; did you mean " + ", ".join(h[0] for h in hints if h) + "?" if any(hints) else ""
        raise ParameterError(f"unknown option {', '.join(unknown)}{hint} (options: {', '.join(OPTIONS)})")
    base = options.as_dict() if options is not None else {}
    values = {name: OPTIONS[name].check(value) for name, value in given.items()}
    out = Options(**{**base, **values})
    out.grade_policy  # grades='real' with truncate_grades=True is refused here, once
    return out
