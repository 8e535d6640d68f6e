"""ir_measures over rankmeter's engine: ``import rankmeter.compat.ir_measures as ir_measures`` runs its scripts.

>>> import rankmeter.compat.ir_measures as ir_measures
>>> from rankmeter.compat.ir_measures import AP, RR, nDCG
>>> qrels = {"q1": {"d1": 1, "d2": 0}}
>>> run = {"q1": {"d1": 0.5, "d2": 0.9}}
>>> ir_measures.calc_aggregate([AP, nDCG@3], qrels, run)
{AP: 0.5, nDCG@3: 0.6309297535714575}
>>> [(m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc([RR], qrels, run)]
[('q1', 'RR', 0.5)]
>>> ir_measures.parse_measure("AP(rel=2)@100")
AP(rel=2)@100

Measures may be these objects, ir_measures' own, their names (``"nDCG@10"``) or any
rankmeter name; each means what ir_measures computes for it (see
:mod:`rankmeter.compat.ir_measures_objects`: ``ERR@k`` is gdeval's). Qrels and runs are
what ir_measures takes: ``{query: {doc: value}}``, a DataFrame with its column names
(``query_id, doc_id, relevance[, iteration]`` / ``query_id, doc_id, score``), or an
iterable of :class:`Qrel` / :class:`ScoredDoc` (ir_measures' own namedtuples too); rankmeter's
inputs (paths, frames with its column names) are accepted as well.

As ir_measures does, a judged query the run does not answer gets ``measure.DEFAULT`` (0; not
``Accuracy``), a query where a measure is undefined is left out for it, ``NumQ``, ``NumRel`` and
``NumRet`` are summed over queries and the rest averaged. A diversity
qrels (namedtuples or rows whose ``iteration`` differs) keeps its subtopics for the diversity
measures (``ERR_IA``, ``alpha_nDCG``, ...); the other measures read one grade per
(query, doc) as ir_measures' providers do: the doc's last judgment in input order.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from rankmeter.compat.ir_measures_objects import (
    CALCULATION,
    REGISTRY,
    SUMMED,
    UNFILLED,
    Measure,
    ParamInfo,
    is_measure_object,
    to_rankmeter,
)
from rankmeter.errors import MeasureError

__all__ = [
    "BaseMeasure",
    "CalcResults",
    "Evaluator",
    "GenericQrel",
    "GenericScoredDoc",
    "Measure",
    "Metric",
    "ParamInfo",
    "Qrel",
    "ScoredDoc",
    "calc",
    "calc_aggregate",
    "convert_trec_name",
    "evaluator",
    "iter_calc",
    "parse_measure",
    "parse_trec_measure",
    "parse_trec_qrels",
    "parse_trec_run",
    "read_trec_qrels",
    "read_trec_run",
]
__all__ += list(REGISTRY)  # the measure objects: AP, nDCG, ERR_IA, MAP, α_nDCG, ...


class Qrel(NamedTuple):
    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    aggregated: Any
    per_query: list


GenericQrel, GenericScoredDoc, BaseMeasure = Qrel, ScoredDoc, Measure  # ir_measures' older names

globals().update(REGISTRY)  # AP, nDCG, ERR_IA, MAP, α_nDCG, NumRelRet, ... as module attributes


# ------------------------------------------------------------------ reading measures, qrels and runs
def parse_measure(text) -> Measure:
    """``"nDCG(dcg='exp-log2')@10"`` -> the measure object (a measure object is returned as given)."""
    import ast
    if is_measure_object(text):
        return text
    try:
        node = ast.parse(str(text).replace("\u03b1", "alpha"), mode="eval").body
    except SyntaxError:
        raise MeasureError(f"cannot read measure {text!r}; write Name(k1=v1, k2=v2)@cutoff") from None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = ast.literal_eval(node.right), node.left
    params = {}
    if isinstance(node, ast.Call) and not node.args:
        params = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}
        node = node.func
    if not isinstance(node, ast.Name) or node.id not in REGISTRY:
        raise MeasureError(f"cannot read measure {text!r}: the ir_measures measures are {', '.join(REGISTRY)}")
    measure = REGISTRY[node.id](**params)
    return measure if at is None else measure @ at


#: trec_eval names ir_measures reads -> (measure, the parameter a suffix sets, the nickname's values)
_TREC = {
    "map": ("AP", None, None), "map_cut": ("AP", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "P": ("P", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "recall": ("R", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "ndcg": ("nDCG", None, None), "ndcg_cut": ("nDCG", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "set_map": ("SetAP", None, None), "set_P": ("SetP", None, None), "set_recall": ("SetR", None, None),
    "set_relative_P": ("SetRelP", None, None), "set_F": ("SetF", "beta", [1.0]), "infAP": ("infAP", None, None),
    "bpref": ("Bpref", None, None), "num_rel_ret": ("NumRelRet", None, None), "recip_rank": ("RR", None, None),
    "num_ret": ("NumRet", None, None), "num_rel": ("NumRel", None, None), "Rprec": ("Rprec", None, None),
    "num_q": ("NumQ", None, None), "success": ("Success", "cutoff", [1, 5, 10]),
    "iprec_at_recall": ("IPrec", "recall", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
}


def parse_trec_measure(text: str) -> list[Measure]:
    """A trec_eval name (``"ndcg_cut.10,20"``, ``"P_5"``, ``"map"``) -> ir_measures' measure objects."""
    import re
    if text in _TREC:
        name, param, values = _TREC[text]
        return [REGISTRY[name](**{param: v}) for v in values] if param else [REGISTRY[name]]
    for base, (name, param, _) in sorted(_TREC.items(), key=lambda kv: -len(kv[0])):
        match = re.fullmatch(re.escape(base) + r"[._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)", text)
        if match and param:
            cast = REGISTRY[name].SUPPORTED_PARAMS[param].dtype
            return [REGISTRY[name](**{param: cast(v)}) for v in match[1].split(",")]
    raise MeasureError(f"unknown trec_eval measure {text!r}; ir_measures reads {', '.join(_TREC)}")


def _lines(source) -> Iterator[list[str]]:
    import gzip
    import io
    if isinstance(source, str) and "\n" in source:
        source = io.StringIO(source)
    if hasattr(source, "read"):
        yield from (line.split() for line in source if line.strip())
        return
    with (gzip.open if str(source).endswith(".gz") else open)(source, "rt") as handle:
        yield from (line.split() for line in handle if line.strip())


def read_trec_qrels(source) -> Iterator[Qrel]:
    """:class:`Qrel` rows of a TREC qrels (a path, ``.gz`` too, an open file, or the text itself)."""
    for query, iteration, doc, rel in _lines(source):
        yield Qrel(query, doc, int(rel), iteration)


def read_trec_run(source) -> Iterator[ScoredDoc]:
    """:class:`ScoredDoc` rows of a TREC run (a path, ``.gz`` too, an open file, or the text itself)."""
    for query, _, doc, _, score, _ in _lines(source):
        yield ScoredDoc(query, doc, float(score))


parse_trec_qrels, parse_trec_run, convert_trec_name = read_trec_qrels, read_trec_run, parse_trec_measure


def _rows(data, value: str) -> tuple[dict, dict | None] | None:
    """ir_measures' inputs as ``({query: {doc: value}}`` last one winning, ``{query: {subtopic: {doc: value}}}``
    when the iterations differ, else None), or None for an input rankmeter reads itself."""
    if isinstance(data, dict):
        return data, None
    columns = getattr(data, "columns", None)
    if columns is not None and "query_id" in columns and type(data).__module__.startswith("pandas"):
        names = ["query_id", "doc_id", value] + (["iteration"] if "iteration" in columns else [])
        rows = zip(*(data[c].tolist() for c in names))
    elif isinstance(data, (str, bytes)) or hasattr(data, "read") or columns is not None \
            or type(data).__module__.startswith(("pyarrow", "polars", "rankmeter", "pandas")) \
            or not isinstance(data, Iterable):
        return None
    else:
        rows = ((r.query_id, r.doc_id, getattr(r, value), getattr(r, "iteration", "0")) for r in data)
    flat: dict = {}
    nested: dict = {}
    subtopics = set()
    for row in rows:
        query, doc, v = str(row[0]), str(row[1]), row[2]
        flat.setdefault(query, {})[doc] = v
        if len(row) > 3:
            subtopics.add(str(row[3]))
            nested.setdefault(query, {}).setdefault(str(row[3]), {})[doc] = v
    return flat, (nested if len(subtopics) > 1 else None)


def _arrow(data: dict | None, value: str, nested: bool = False):
    """``{q: {doc: v}}`` (``{q: {subtopic: {doc: v}}}``) as an Arrow table rankmeter reads without a Python
    pass of its own; the dict itself when its values are not plain numbers (rankmeter's reader names them)."""
    import pyarrow as pa
    if data is None:
        return None
    if nested:
        rows = [(q, s, d, v) for q, subs in data.items() for s, docs in subs.items() for d, v in docs.items()]
    else:
        rows = [(q, None, d, v) for q, docs in data.items() for d, v in docs.items()]
    try:
        columns = {"query": pa.array([str(r[0]) for r in rows], pa.string())}
        if nested:
            columns["subtopic"] = pa.array([str(r[1]) for r in rows], pa.string())
        columns["doc"] = pa.array([str(r[2]) for r in rows], pa.string())
        values = pa.array([r[3] for r in rows], pa.float64() if value == "score" else None)
        if value != "score" and not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)):
            return data
        columns[value] = values
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        return data
    return pa.table(columns)


# ------------------------------------------------------------------ evaluation
def _measures(measures) -> list[tuple[object, object]]:
    """(key as given, rankmeter Measure) pairs; a rankmeter name that expands to several gives each by label."""
    from rankmeter.core.resolve import resolve_measures
    if isinstance(measures, str) or is_measure_object(measures) or not isinstance(measures, Iterable):
        measures = [measures]
    out = []
    for given in measures:
        if is_measure_object(given):
            out.append((given, to_rankmeter(given)))
            continue
        try:
            out.append((given, to_rankmeter(parse_measure(given))))
        except MeasureError:
            resolved = resolve_measures(given)
            out += [(given, resolved[0][1])] if len(resolved) == 1 else resolved
    return out


def _summed(key) -> bool:
    return getattr(key, "NAME", None) in SUMMED


class Evaluator:
    """Measures and qrels prepared once; score many runs with :meth:`iter_calc` / :meth:`calc_aggregate`."""

    def __init__(self, measures, qrels):
        from rankmeter.core.evaluator import Evaluator as Core
        from rankmeter.measures.base import REGISTRY as FAMILIES
        self.measures = _measures(measures)
        read = _rows(qrels, "relevance")
        flat, nested = read if read is not None else (qrels, None)
        diverse = [m for _, m in self.measures if FAMILIES[m.name].subtopics]
        plain = [m for _, m in self.measures if not FAMILIES[m.name].subtopics]
        if read is not None:
            flat, nested = _arrow(flat, "rel"), _arrow(nested, "rel", nested=True)
        self._parts = [Core(flat, plain)] if plain else []
        if diverse:
            self._parts.append(Core(nested if nested is not None else flat, diverse))

    def iter_calc(self, run) -> Iterator[Metric]:
        """``Metric(query_id, measure, value)`` per query and measure; judged queries the run lacks give 0."""
        read = _rows(run, "score")
        run = _arrow(read[0], "score") if read is not None else run
        values: dict = {}
        queries: list[str] = []
        for part in self._parts:
            with warnings.catch_warnings():  # ir_measures scores them as 0 without a word; so do we, below
                warnings.filterwarnings("ignore", r".*judged queries have no results")
                results = part.evaluate(run)
            for i, query in enumerate(results.queries):
                if query not in values:
                    values[query] = {}
                    queries.append(query)
                for m in results.measures:
                    values[query][m] = float(results.values(m)[i])
        for query in queries:
            for key, m in self.measures:
                if values[query][m] == values[query][m]:  # an undefined value (NaN) is not reported
                    yield Metric(query, key, values[query][m])
        missing = sorted(set(self._judged_queries()) - set(values))
        for key, _ in sorted(self.measures, key=lambda km: str(km[0])):
            if getattr(key, "NAME", None) in UNFILLED:
                continue
            for query in missing:
                yield Metric(query, key, getattr(key, "DEFAULT", 0.0))

    def _judged_queries(self) -> list[str]:
        return self._parts[0].qrels.queries

    def calc(self, run) -> CalcResults:
        """``CalcResults(aggregated, per_query)``: :meth:`calc_aggregate` and the list :meth:`iter_calc` gives."""
        per_query = list(self.iter_calc(run))
        sums = {key: 0.0 for key, _ in self.measures}
        counts = {key: 0 for key, _ in self.measures}
        for metric in per_query:
            sums[metric.measure] += metric.value
            counts[metric.measure] += 1
        aggregated = {key: sums[key] if _summed(key) else (sums[key] / counts[key] if counts[key] else float("nan"))
                      for key, _ in self.measures}
        return CalcResults(aggregated, per_query)

    def calc_aggregate(self, run) -> dict:
        """``{measure: value}`` over the judged queries (a mean; a sum for NumQ, NumRel, NumRet)."""
        return self.calc(run).aggregated


def evaluator(measures, qrels) -> Evaluator:
    """An :class:`Evaluator` for ``measures`` and ``qrels`` (ir_measures' ``evaluator``)."""
    return Evaluator(measures, qrels)


def iter_calc(measures, qrels, run) -> Iterator[Metric]:
    """Per query and measure, ``Metric(query_id, measure, value)`` (measure as given)."""
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures, qrels, run) -> dict:
    """``{measure: value over queries}``, keyed by the measures as given."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def calc(measures, qrels, run) -> CalcResults:
    """``CalcResults(aggregated, per_query)`` in one pass."""
    return Evaluator(measures, qrels).calc(run)


CALCULATION.update(iter_calc=iter_calc, calc_aggregate=calc_aggregate, calc=calc, evaluator=evaluator,
                   CalcResults=CalcResults)  # the measure objects' methods
