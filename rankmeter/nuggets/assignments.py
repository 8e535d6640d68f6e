"""RAG nugget scores from nuggetizer's assignment output (Pradeep et al., the TREC 2024 RAG track AutoNuggetizer).

An assignment file is JSON Lines, one answer record per line, in nuggetizer's own field names::

    {"qid": "2024-145979", "nuggets": [{"text": "...", "importance": "vital", "assignment": "support"}, ...]}

``importance`` is ``vital`` or ``okay``; ``assignment`` is ``support``, ``partial_support`` or
``not_support`` (``failed`` and anything else count as not supported). Other fields are ignored.
Per record, as nuggetizer's ``calculate_nugget_scores`` (castorini/nuggetizer
src/nuggetizer/core/metrics.py):

* ``strict_vital``: vital nuggets marked ``support`` / vital nuggets;
* ``strict_all``: nuggets marked ``support`` / nuggets;
* ``vital``: as ``strict_vital``, ``partial_support`` worth 0.5;
* ``all``: as ``strict_all``, ``partial_support`` worth 0.5;

each 0 when its denominator is 0; the mean is the plain mean over records. ``partial`` changes the
worth of partial support; ``weights`` (e.g. vital = 1, okay = 0.5) adds ``weighted_strict`` and
``weighted``: the weighted share of the nuggets supported. Several files (one per RAG system)
compare as runs do, through :func:`rankmeter.compare_scores` (:func:`compare_nuggets`).

Examples
--------
>>> record = {"qid": "q1", "nuggets": [
...     {"text": "a", "importance": "vital", "assignment": "support"},
...     {"text": "b", "importance": "vital", "assignment": "partial_support"},
...     {"text": "c", "importance": "okay", "assignment": "support"},
...     {"text": "d", "importance": "okay", "assignment": "not_support"}]}
>>> s = nugget_scores([record], weights={"vital": 1, "okay": 0.5})
>>> s.per_query[0]
{'query': 'q1', 'strict_vital': 0.5, 'strict_all': 0.5, 'vital': 0.75, 'all': 0.625, 'weighted_strict': 0.5, 'weighted': 0.6666666666666666}
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import InputError, ParameterError
from rankmeter.core.keywords import Unpack, takes_options
from rankmeter.stats.params import SignificanceOptions

#: the worth of a partially supported nugget in ``vital`` and ``all`` (``rankmeter nuggets --partial``)
PARTIAL = Param("partial", "number", help="worth of partial_support in vital and all", low=0, high=1)

__all__ = ["MEASURES", "NuggetScores", "compare_nuggets", "nugget_scores", "read_assignments"]

MEASURES = ("strict_vital", "strict_all", "vital", "all")


@dataclass
class NuggetScores:
    """Per record (query) and mean nugget scores of one system."""

    system: str
    measures: tuple[str, ...]
    per_query: list[dict] = field(default_factory=list)
    mean: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"per_query": self.per_query, "mean": self.mean}

    def scores(self) -> dict:
        """``{measure: {query: value}}``, as :func:`rankmeter.compare_scores` takes them (queries once each)."""
        queries = [row["query"] for row in self.per_query]
        if len(set(queries)) != len(queries):
            twice = next(q for q in queries if queries.count(q) > 1)
            raise InputError(f"query {twice!r} has several answer records: a comparison needs one per query",
                             source=self.system)
        return {m: {row["query"]: row[m] for row in self.per_query} for m in self.measures}

    def to_text(self, *, decimals: int = 4, per_query: bool = False) -> str:
        from rankmeter.io.output import printable
        width = max([len("query")] + [len(printable(r["query"])) for r in self.per_query]) if per_query else 5
        head = f"{'query':<{width}}" + "".join(f" {m:>{max(len(m), decimals + 2)}}" for m in self.measures)
        lines = [f"{printable(self.system)}: {len(self.per_query)} answer records", head]
        rows = (self.per_query if per_query else []) + [{"query": "mean", **self.mean}]
        for r in rows:
            lines.append(f"{printable(r['query']):<{width}}" + "".join(
                f" {r[m]:>{max(len(m), decimals + 2)}.{decimals}f}" for m in self.measures))
        return "\n".join(lines) + "\n"


#: what an assignment file's hint says (nuggetizer's assign step writes such records)
_ASSIGNMENT_HINT = ('nuggetizer\'s assignment output: one {"qid": ..., "nuggets": [{"text": ..., "importance": '
                    '"vital", "assignment": "support"}, ...]} per line (run nuggetizer\'s assign step first)')


def _assignment_schema():
    from rankmeter.io.schema import Id, ListOf, Record, Str
    nugget = Record({"importance": Str(what="text such as vital or okay"),
                     "assignment": Str(what="text such as support, partial_support or not_support")}, what="a nugget")
    return Record({"qid": Id(), "nuggets": ListOf(nugget)}, what="an answer record")


def read_assignments(source) -> list[dict]:
    """The answer records of a nuggetizer assignment file (JSON Lines), checked by the one JSON reader
    (:func:`rankmeter.io.structured.json_lines`): UTF-8, no key twice, finite numbers, bounded nesting, each field
    of the type it must be (an id read as its text); records as given otherwise."""
    from rankmeter.io.source import load_bytes  # compression, -, special files bounded, recorded as an input
    from rankmeter.io.structured import json_lines
    data, name = load_bytes(source)
    records = [record for _, record in json_lines(data, _assignment_schema(), source=name, hint=_ASSIGNMENT_HINT,
                                                 what="an answer record")]
    if not records:
        raise InputError("has no answer records (JSON Lines with qid and nuggets)", source=name)
    return records


def _check(record, name, line) -> None:
    from rankmeter.io.structured import check
    check(record, _assignment_schema(), source=name, line=line, hint=_ASSIGNMENT_HINT)


@validate_params(PARTIAL)
def nugget_scores(records, *, partial: float = 0.5, weights: dict | None = None, system: str = "") -> NuggetScores:
    """Nugget scores of each record and their mean (see the module docstring).

    Parameters
    ----------
    records : path or list of dict
        A nuggetizer assignment file, or its records.
    partial : float, default 0.5
        What ``partial_support`` is worth in ``vital``, ``all`` and ``weighted`` (nuggetizer: 0.5).
    weights : dict, optional
        Importance -> weight, e.g. ``{"vital": 1, "okay": 0.5}``: adds ``weighted_strict`` and
        ``weighted`` (0 when the weights sum to 0); an importance not listed weighs 0.
    system : str
        The system's name (default: the ``run_id`` all records share, else the file name).
    """
    if isinstance(records, (str, os.PathLike)):
        path = os.fsdecode(records)
        records = read_assignments(records)
        tags = {str(r.get("run_id", "")) for r in records}
        # named as runs are: by the run id every record carries (TREC RAG's run_id), else by the file name
        system = system or (tags.pop() if len(tags) == 1 and "" not in tags else
                            os.path.splitext(os.path.basename(path))[0])
    else:
        for n, record in enumerate(records):
            _check(record, "<records>", n + 1)
    counts = np.array([len(r["nuggets"]) for r in records], dtype=np.int64)
    owner = np.repeat(np.arange(len(records)), counts)
    nuggets = [n for r in records for n in r["nuggets"]]
    vital = np.array([n["importance"] == "vital" for n in nuggets], dtype=bool)
    support = np.array([n["assignment"] == "support" for n in nuggets], dtype=np.float64)
    partly = np.array([n["assignment"] == "partial_support" for n in nuggets], dtype=np.float64)
    credit = support + partial * partly
    k = len(records)

    def share(values, mask_weights):
        top = np.bincount(owner, weights=values * mask_weights, minlength=k)
        bottom = np.bincount(owner, weights=mask_weights, minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), 0.0)

    ones = np.ones(len(nuggets))
    figures = {"strict_vital": share(support, vital.astype(np.float64)), "strict_all": share(support, ones),
               "vital": share(credit, vital.astype(np.float64)), "all": share(credit, ones)}
    if weights is not None:
        if not isinstance(weights, dict) or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and w >= 0
                                                    for w in weights.values()):
            raise ParameterError(f"weights={weights!r}: expected importance -> non-negative weight, e.g. "
                                 "{'vital': 1, 'okay': 0.5}")
        w = np.array([float(weights.get(n["importance"], 0.0)) for n in nuggets])
        figures.update(weighted_strict=share(support, w), weighted=share(credit, w))
    names = tuple(figures)
    per_query = [{"query": str(r["qid"]), **{m: float(figures[m][i]) for m in names}} for i, r in enumerate(records)]
    # statistics.mean over the records, as nuggetizer's calculate_global_metrics (exact: fsum / n)
    import math
    mean = {m: math.fsum(figures[m].tolist()) / k if k else 0.0 for m in names}
    return NuggetScores(system=system or "system", measures=names, per_query=per_query, mean=mean)


@takes_options()
@validate_params(PARTIAL)
def compare_nuggets(files, *, baseline: str | None = None, partial: float = 0.5, weights: dict | None = None,
                    **tests: Unpack[SignificanceOptions]):
    """Score several assignment files (one per RAG system) and compare them with :func:`rankmeter.compare_scores`.

    Returns ``(scores, comparison)``: the :class:`NuggetScores` of each system and the Comparison.

    Parameters
    ----------
    files : list or dict
        A list of paths (systems named by file name) or a dict name -> path or records.
    baseline : str, optional
        The system the others are compared with (default: the first).
    partial, weights
        As for :func:`nugget_scores`.
    %(evaluation_options)s
    """
    from rankmeter.stats.compare import compare_scores

    items = list(files.items()) if isinstance(files, dict) else [(None, f) for f in files]
    scored = [nugget_scores(f, partial=partial, weights=weights, system=name or "") for name, f in items]
    names = [s.system for s in scored]
    if len(set(names)) != len(names):
        raise ParameterError(f"two systems are named alike ({', '.join(names)}); pass a dict name -> file")
    comparison = compare_scores({s.system: s.scores() for s in scored}, baseline=baseline, **tests)
    return scored, comparison


def score_matrix(scored, measure: str):
    """The (queries x systems) matrix of one nugget measure over several systems' :class:`NuggetScores`
    (NaN where a system has no record for a query), its queries in natural order and the systems: what the
    meta-evaluation functions take (:func:`rankmeter.meta.discriminative_power`, ``swap_rate``,
    ``variance_estimate``), as :func:`rankmeter.meta.discrimination.score_matrix` gives for runs.
    """
    import numpy as np

    from rankmeter.core.order import natural_order

    scored = list(scored)
    if not scored or measure not in scored[0].measures:
        known = ", ".join(scored[0].measures) if scored else "none"
        raise ParameterError(f"measure={measure!r}: the nugget scores are {known}")
    per = [s.scores()[measure] for s in scored]
    queries = list(dict.fromkeys(q for values in per for q in values))
    queries = [queries[i] for i in natural_order(queries)]
    where = {q: i for i, q in enumerate(queries)}
    x = np.full((len(queries), len(scored)), np.nan)
    for j, values in enumerate(per):
        x[[where[q] for q in values], j] = list(values.values())
    return x, queries, [s.system for s in scored]
