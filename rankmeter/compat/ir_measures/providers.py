"""ir_measures' providers for the drop-in: each computes what the provider of that name computes, ranked as it ranks.

``DefaultPipeline`` hands each measure to the first provider that supports it, as ir_measures does
(:mod:`rankmeter.compat.ir_measures.dispatch`); ``pytrec_eval``, ``judged``, ``gdeval`` ... are the
single providers (``ir_measures.gdeval.calc_aggregate([ERR@5], qrels, run)``); every one scores with
rankmeter (:class:`~rankmeter.compat.ir_measures.engine.Engine`), so none needs its peer package.
``define`` / ``define_byquery`` make measures from a function of two DataFrames (the runtime
provider), as ir_measures does.

As ir_measures' base ``Evaluator`` does, a judged query that the provider did not score gets the
measure's ``DEFAULT`` (0), listed after the scored ones by (measure, query); the accuracy provider on its
own fills nothing (its evaluator skips that step); ``NumQ``, ``NumRel``, ``NumRet`` are summed, the rest
averaged, NaN when no query was scored.
"""
from __future__ import annotations

import contextlib
import itertools
from typing import Any, NamedTuple

from rankmeter.compat.ir_measures.dispatch import PIPELINE, provider_of, supports
from rankmeter.compat.ir_measures.objects import Measure, ParamInfo, is_measure_object, parse_measure, to_rankmeter
from rankmeter.compat.ir_measures.util import CalcResults, Metric, QrelsConverter, RunConverter
from rankmeter.errors import MeasureError

__all__ = ["CwlMetric", "Evaluator", "FallbackProvider", "Provider", "RuntimeProvider", "define", "define_byquery",
           "DefaultPipeline", "register", "registry"]


class CwlMetric(NamedTuple):
    """ir_measures' per-query record of a C/W/L measure (the drop-in yields :class:`Metric` for them)."""

    query_id: str
    measure: Any
    value: float
    expected_total_utility: float
    expected_cost: float
    expected_total_cost: float
    expected_items: float


class Evaluator:
    """ir_measures' ``Evaluator``: measures and qrels prepared once, any number of runs scored."""

    def __init__(self, measures, qrel_qids):
        self.measures = measures
        self.qrel_qids = qrel_qids
        self.fill = True

    def iter_calc(self, run):
        """``Metric(query_id, measure, value)`` per query and measure, then each judged query's default."""
        expected = set(itertools.product(self.measures, self.qrel_qids)) if self.fill else set()
        for metric in self._iter_calc(run):
            expected.discard((metric.measure, metric.query_id))
            yield metric
        for measure, query in sorted(expected, key=lambda mq: (str(mq[0]), mq[1])):
            yield Metric(query, measure, getattr(measure, "DEFAULT", 0.0))

    def _iter_calc(self, run):  # pragma: no cover - every evaluator here defines it
        raise NotImplementedError

    def calc_aggregate(self, run) -> dict:
        """``{measure: value over queries}``."""
        return self.calc(run).aggregated

    def calc(self, run) -> CalcResults:
        """``CalcResults(aggregated, per_query)``."""
        from rankmeter.compat.ir_measures.objects import MeanAgg, SumAgg
        aggregators = {m: (m.aggregator() if hasattr(m, "aggregator") else MeanAgg()) for m in self.measures}
        per_query = []
        for metric in self.iter_calc(run):
            aggregators.setdefault(metric.measure, SumAgg()).add(metric.value)
            per_query.append(metric)
        return CalcResults({m: a.result() for m, a in aggregators.items()}, per_query)


class _Evaluator(Evaluator):
    def __init__(self, measures, engine, runtime):
        super().__init__(measures, set())
        self.engine, self.runtime = engine, runtime
        self.qrel_qids = engine.qids if engine is not None else runtime.qrel_qids

    def _iter_calc(self, run):
        if self.engine is not None:
            if self.runtime is not None:
                run, ours = itertools.tee(run, 2) if _iterator(run) else (run, run)
            else:
                ours = run
            for query, key, value in self.engine.scores(ours):
                yield Metric(query, key, value)
        if self.runtime is not None:
            yield from self.runtime._iter_calc(run)


def as_provider_reads(provider: str, measure):
    """``measure`` as one provider reads it when called directly (ir_measures checks nothing there): parameters
    the measure does not take are dropped, and each provider's own reading applied (gdeval's nDCG has
    exponential gains, pytrec_eval's linear ones and its RR no cutoff, C/W/L's AP, RR and RBP no cutoff).
    ``ValueError`` for a measure the provider does not compute at all, as ir_measures raises."""
    from rankmeter.compat.ir_measures.dispatch import SUPPORTED
    from rankmeter.compat.ir_measures.objects import REGISTRY, params_of
    name, params = params_of(measure)
    if name not in {n for n, _ in SUPPORTED[provider]} or name not in REGISTRY:
        raise ValueError(f"unsupported measure {measure}")
    given = {k: v for k, v in getattr(measure, "params", {}).items() if k in REGISTRY[name].SUPPORTED_PARAMS}
    if provider == "gdeval" and name == "nDCG":
        given["dcg"] = "exp-log2"
    elif provider == "pytrec_eval" and name == "nDCG":
        given.pop("dcg", None)
    if (provider, name) in {("pytrec_eval", "RR"), ("cwl_eval", "AP"), ("cwl_eval", "RR"), ("cwl_eval", "RBP")}:
        given.pop("cutoff", None)
    return type(REGISTRY[name])(**given)


def _iterator(data) -> bool:
    return iter(data) is data if hasattr(data, "__iter__") and not isinstance(data, (dict, str, bytes)) else False


def _pairs(measures) -> list[tuple[object, object]]:
    """(key as given, measure object or rankmeter Measure): strings are read as ir_measures names, then rankmeter's."""
    from rankmeter.core.resolve import resolve_measures
    if isinstance(measures, str) or is_measure_object(measures) or not hasattr(measures, "__iter__"):
        measures = [measures]
    out = []
    for given in measures:
        if is_measure_object(given):
            out.append((given, given))
            continue
        try:
            out.append((given, parse_measure(given)))
        except (MeasureError, NameError):
            resolved = resolve_measures(given)
            out += [(given, resolved[0][1])] if len(resolved) == 1 else resolved
    return out


class Provider:
    """ir_measures' ``Provider``: ``NAME``'s measures, computed as that provider computes them."""

    NAME = "pipeline"

    def __init__(self, names=None):
        self.names = tuple(names) if names is not None else (self.NAME,)

    def supports(self, measure) -> bool:
        if isinstance(measure, Measure):
            measure.validate_params()
        return any(supports(name, measure) for name in self.names)

    def is_available(self) -> bool:
        return True

    def initialize(self) -> None:
        """Nothing to load: rankmeter computes every provider's measures."""

    def install_instructions(self) -> None:
        return None

    def evaluator(self, measures, qrels) -> Evaluator:
        """An :class:`Evaluator` of ``measures`` on ``qrels``; ``ValueError`` for a measure no provider takes."""
        from rankmeter.compat.ir_measures.engine import Engine
        once: dict = {}
        for key, measure in _pairs(measures):  # equal measures once, the first given (ir_measures takes a set)
            once.setdefault(key, (key, measure))
        pairs = list(once.values())
        triples, runtime, unsupported = [], [], []
        for key, measure in pairs:
            if not is_measure_object(measure):  # a rankmeter name: rankmeter's own order of tied docs
                triples.append((key, measure, "pytrec_eval"))
                continue
            if len(self.names) == 1:  # one provider: it computes what it makes of the measure, unchecked
                provider = self.names[0]
                if provider != "runtime":
                    triples.append((key, to_rankmeter(as_provider_reads(provider, measure)), provider))
                    continue
            try:
                provider = provider_of(measure, self.names)
            except MeasureError:
                unsupported.append(key)
                continue
            if provider == "runtime":
                runtime.append(measure)
            else:
                triples.append((key, to_rankmeter(measure), provider))
        if unsupported:
            raise ValueError(f"Unsupported measures {set(unsupported)}.")
        keys = list(dict.fromkeys(key for key, _ in pairs))
        runtime_ev = RuntimeEvaluator(runtime, qrels) if runtime else None
        engine = Engine(triples, qrels) if triples or not runtime else None
        out = _Evaluator(keys, engine, runtime_ev)
        used = {provider for _, _, provider in triples} | ({"runtime"} if runtime else set())
        out.fill = used != {"accuracy"}  # ir_measures' accuracy evaluator, alone, fills no default
        return out

    @contextlib.contextmanager
    def calc_ctxt(self, measures, qrels):
        """Deprecated in ir_measures 0.2: ``evaluator(measures, qrels)``."""
        evaluator = self.evaluator(measures, qrels)
        yield lambda run: evaluator.iter_calc(run)

    def iter_calc(self, measures, qrels, run):
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures, qrels, run) -> dict:
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures, qrels, run) -> CalcResults:
        return self.evaluator(measures, qrels).calc(run)

    def run_inputs(self, measures) -> list[str]:
        """The run columns ``measures`` read (a runtime measure's ``run_inputs``; else query, doc and score)."""
        return self._inputs(measures, "RUN_INPUTS", ["query_id", "doc_id", "score"])

    def qrel_inputs(self, measures) -> list[str]:
        """The qrels columns ``measures`` read."""
        return self._inputs(measures, "QREL_INPUTS", ["query_id", "doc_id", "relevance"])

    def _inputs(self, measures, attribute, default) -> list[str]:
        out: set = set()
        for measure in measures:
            if not self.supports(measure):
                continue
            out.update(getattr(measure, attribute) if hasattr(measure, "runtime_impl") else default)
        return list(out)

    def __repr__(self) -> str:
        return f"<ir_measures provider {self.NAME}>"


class FallbackProvider(Provider):
    """Providers asked in turn (ir_measures' ``FallbackProvider``): each measure goes to the first that takes it."""

    NAME = "fallback"

    def __init__(self, providers):
        self.providers = list(providers)
        super().__init__([name for p in self.providers for name in p.names])


class RuntimeProvider(Provider):
    """Measures made by :func:`define` / :func:`define_byquery`."""

    NAME = "runtime"


class RuntimeEvaluator(Evaluator):
    """Runtime measures on DataFrames sorted as ir_measures sorts them (qrels by query and doc, the run by query
    and score descending, ties in input order)."""

    def __init__(self, measures, qrels):
        frame = QrelsConverter(qrels, strict=False).as_pd_dataframe()
        if "query_id" not in frame.columns:
            raise ValueError(f"Required column query_id not found in qrels. Found columns was {list(frame.columns)}")
        by = ["query_id"] + (["doc_id"] if "doc_id" in frame.columns else [])
        self.qrels = frame.sort_values(by=by, kind="stable")
        super().__init__(measures, set(self.qrels["query_id"].unique()))

    def _iter_calc(self, run):
        frame = RunConverter(run, strict=False).as_pd_dataframe()
        if "query_id" not in frame.columns:
            raise ValueError(f"Required column query_id not found in run. Found columns was {list(frame.columns)}")
        by, ascending = (["query_id", "score"], [True, False]) if "score" in frame.columns else (["query_id"], [True])
        frame = frame.sort_values(by=by, ascending=ascending, kind="stable")
        for measure in self.measures:
            yield from measure.runtime_impl(self.qrels, frame)


def define(impl, name=None, support_cutoff: bool = True, *, run_inputs=None, qrel_inputs=None, pretty_name=None,
           short_desc=None) -> Measure:
    """A measure computed by ``impl(qrels, run)`` (two DataFrames, every query at once), which yields
    ``(query_id, value)`` pairs; ``measure@k`` gives ``impl`` each query's first k results."""
    supported = {"cutoff": ParamInfo(int, desc="ranking cutoff threshold")} if support_cutoff else {}
    run_cols = list(run_inputs) if run_inputs is not None else ["query_id", "doc_id", "score"]
    qrel_cols = list(qrel_inputs) if qrel_inputs is not None else ["query_id", "doc_id", "relevance"]

    def runtime_impl(self, qrels, run):
        cutoff = self.params.get("cutoff")
        if cutoff is not None:
            run = run.groupby("query_id").head(cutoff).reset_index(drop=True)
        for query, value in impl(qrels, run):
            yield Metric(query, self, value)

    def __repr__(self):
        return Measure.__repr__(self) if self.NAME is not None else object.__repr__(self)

    cls = type(f"_{name}", (Measure,), {
        "__name__": name, "NAME": name, "SUPPORTED_PARAMS": supported, "RUN_INPUTS": run_cols,
        "QREL_INPUTS": qrel_cols, "PRETTY_NAME": pretty_name, "SHORT_DESC": short_desc, "runtime_impl": runtime_impl,
        "__repr__": __repr__, "__str__": __repr__})
    return cls()


def define_byquery(impl, name=None, support_cutoff: bool = True, *, run_inputs=None, qrel_inputs=None,
                   pretty_name=None, short_desc=None) -> Measure:
    """A measure computed by ``impl(qrels, run)`` once per query the run holds (the query's rows of each),
    returning that query's value; named after ``impl`` unless ``name`` is given."""
    if name is None:
        name = getattr(impl, "__name__", repr(impl))

    def per_query(qrels, run):
        for query, rows in run.groupby("query_id"):
            yield query, impl(qrels[qrels["query_id"] == query], rows)

    return define(per_query, name, support_cutoff, run_inputs=run_inputs, qrel_inputs=qrel_inputs,
                  pretty_name=pretty_name, short_desc=short_desc)


def _single(name: str) -> Provider:
    cls = RuntimeProvider if name == "runtime" else type(f"{name}Provider", (Provider,), {"NAME": name})
    return cls()


#: every provider ir_measures registers, by name (``ir_measures.providers.registry``)
registry: dict[str, Provider] = {name: _single(name) for name in (*PIPELINE, "trectools")}
for _name in ("accuracy", "compat", "cwl_eval", "pyndeval", "pytrec_eval", "judged", "gdeval", "trectools",
              "msmarco", "ranx"):
    globals()[{"cwl_eval": "CwlEval", "pyndeval": "PyNdEval", "pytrec_eval": "PytrecEval", "gdeval": "Gdeval",
               "msmarco": "MsMarco", "trectools": "Trectools"}.get(_name, _name.capitalize()) + "Provider"] = \
        type(registry[_name])


def register(provider: Provider) -> Provider:
    """Add ``provider`` to :data:`registry` under its ``NAME`` (ir_measures' ``providers.register``)."""
    registry[provider.NAME] = provider
    return provider


#: ir_measures' DefaultPipeline: every measure to the first provider that supports it
DefaultPipeline = FallbackProvider([registry[name] for name in PIPELINE])
