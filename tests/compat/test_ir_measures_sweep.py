"""Differential sweep: the ir_measures drop-in against ir_measures 0.4.3 itself, value for value.

Inputs (:func:`_inputs`): random graded qrels (grades -1..3) with runs scored to two decimals (BEIR-shaped:
ties everywhere), one score per query (ties at every cutoff), empty rankings, queries on one side only,
duplicate docs, unicode ids, diversity qrels (subtopics in ``iteration``). Measures (:data:`MEASURES`): every
name of ir_measures' registry under every parameter combination of a grid that ir_measures' default
pipeline supports. Functions: ``iter_calc`` on namedtuples, ``calc_aggregate`` on dicts,
``evaluator(...).calc`` on DataFrames, ``read_trec_qrels``/``read_trec_run`` on TREC text, each single
provider (``ir_measures.gdeval.iter_calc`` ...) and the measures' own ``calc_aggregate``.

Each value is compared with ir_measures' value for the same query: equal to 1e-12 (gdeval's printed
five decimals exactly), every query ir_measures reports present and no other. Where ir_measures itself
fails or is wrong, the case is listed in :data:`PEER_FAILS` with the reason (docs/migrate-ir-measures.md),
and the drop-in's value is checked another way. ``pytest -s`` prints the sweep's size.
"""
from __future__ import annotations

import functools
import logging
import math
import warnings

import numpy as np
import pytest

from optional_packages import optional  # noqa: E402

ir_measures = optional("ir_measures")
pd = optional("pandas")
import rankmeter.compat.ir_measures as ours  # noqa: E402

logging.getLogger("ir_measures").setLevel(logging.CRITICAL)
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.CRITICAL)

_GRID = {
    "cutoff": [None, 1, 5, 10, 20], "rel": [None, 2], "judged_only": [None, True], "dcg": [None, "exp-log2"],
    "gains": [None, {0: 0, 1: 1, 2: 3, 3: 7}], "p": [None, 0.5], "T": [None, 2.0], "max_rel": [3],
    "min_rel": [None], "beta": [None, 0.5], "alpha": [None, 0.7], "relative": [None, True],
    "normalize": [None, False], "recall": [0.0, 0.5, 1.0],
}


_PYNDEVAL = {"ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "P_IA", "StRecall"}  # need a cutoff there


def _measures() -> list:
    """Every registry name under every supported combination of the grid's values (a parameter at a time)."""
    out = {}
    for name, base in ir_measures.measures.registry.items():
        params = list(base.SUPPORTED_PARAMS)
        variants = [{}]
        for key in params:
            variants += [{**v, key: value} for v in list(variants) for value in _GRID.get(key, [None])
                         if value is not None and len(v) < 2]
        for extra in variants:
            measure = base(**extra)
            try:
                supported = ir_measures.DefaultPipeline.supports(measure)
            except AssertionError:  # a required parameter left out, or another rejected
                supported = False
            no_cutoff = "cutoff" in measure.SUPPORTED_PARAMS and "cutoff" not in measure.params
            if supported and not (no_cutoff and (measure.NAME in _PYNDEVAL or (
                    measure.NAME == "nDCG" and measure["dcg"] == "exp-log2"))):
                out[repr(measure)] = measure
    return list(out.values())


MEASURES = _measures()
#: cases where ir_measures fails or is wrong, and what the drop-in does instead (docs/migrate-ir-measures.md)
PEER_FAILS = {
    "nDCG(dcg='exp-log2') without a cutoff": "ranx provider: AssertionError under pandas 3 (object ids required); "
                                             "left out of MEASURES, ranked as trec_eval does in the drop-in",
    "pyndeval, two parameter sets": "the second set's measures get 0 (a used-up generator): asked one at a time",
    "pyndeval, judged_only=True": "TypeError ('generator' object is not subscriptable): left out",
    "pyndeval, a cutoff measure without a cutoff": "ValueError (ERR-IA@<object ...>): left out of MEASURES",
    "Judged, Accuracy, Compat on an empty ranking": "ZeroDivisionError: the drop-in gives 0 (Judged, Compat) "
                                                    "or leaves the query out (Accuracy)",
    "Accuracy when a ranking ends in a relevant doc": "ZeroDivisionError: the drop-in gives rankmeter's value",
    "gdeval on non-numeric query ids": "gdeval.pl dies: the drop-in gives gdeval's formula's value",
    "pytrec_eval AP + Bpref on an empty ranking": "segfault: asked one measure at a time",
}
#: where the drop-in deliberately differs (docs/migrate-ir-measures.md); the sweep asks ir_measures as said
DIFFERENCES = {
    "duplicate docs": "C/W/L, accuracy, gdeval and pyndeval score a duplicated doc twice; the drop-in keeps it once, "
                      "with its last score at its first place (as ir_measures' dict conversion does): asked of "
                      "ir_measures without the duplicate",
    "gdeval on diversity qrels": "gdeval.pl reads every (doc, subtopic) line: its ideal counts a doc once per line and "
                                 "a doc's gain is its lowest positive grade; the drop-in reads one grade per doc (the "
                                 "last, as every other provider): asked of ir_measures with those grades",
    "IPrec where pytrec_eval gives NaN": "pytrec_eval 0.5.11 reports NaN for some queries with no relevant doc "
                                        "retrieved (an empty ranking at recall 0; under judged_only): the drop-in "
                                        "gives NaN for an empty ranking at recall 0, else 0; not compared",
}


def _ids(kind: str, i: int) -> str:
    return {"plain": str(i + 1), "unicode": f"q\u00e9{i}\u03b1"}[kind]


def _inputs():
    rng = np.random.default_rng(2026)
    cases = {}
    for name, ids, tie_all, empty, dup, diverse in [
            ("beir", "plain", False, False, False, False), ("ties", "plain", True, False, False, False),
            ("empty_rankings", "plain", False, True, False, False), ("duplicates", "plain", False, False, True, False),
            ("unicode", "unicode", False, False, False, False), ("diversity", "plain", False, False, False, True)]:
        qrels, run = [], []
        for qi in range(12):
            q = _ids(ids, qi)
            docs = [f"d{j}" if ids == "plain" else f"d\u00fc{j}" for j in rng.permutation(40)[:25]]
            if qi != 10:  # query 11: in the run only
                for d in docs[:int(rng.integers(3, 18))]:
                    if diverse:
                        for s in rng.choice(3, int(rng.integers(1, 3)), replace=False):
                            qrels.append(ir_measures.Qrel(q, d, int(rng.integers(0, 3)), str(s + 1)))
                    else:
                        qrels.append(ir_measures.Qrel(q, d, int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))))
            if qi == 11 or (empty and qi in (2, 5)):  # query 12: judged only; 3 and 6: empty rankings (dicts)
                continue
            ranked = rng.choice(docs + ["x1", "x2", "x3"], int(rng.integers(1, 26)), replace=False)
            scores = np.full(len(ranked), 0.5) if tie_all else np.round(rng.random(len(ranked)), 2)
            run += [ir_measures.ScoredDoc(q, str(d), float(s)) for d, s in zip(ranked, scores)]
            if dup:
                run.append(ir_measures.ScoredDoc(q, str(ranked[0]), 0.01))
        cases[name] = (qrels, run)
    return cases


INPUTS = _inputs()


def _as_dict(rows, value: str) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault(r.query_id, {})[r.doc_id] = getattr(r, value)
    return out


def _run_dict(name: str, run) -> dict:
    out = _as_dict(run, "score")
    if name == "empty_rankings":
        out.update({"3": {}, "6": {}})
    return out


def _oracle_groups(name: str):
    """The measures in the groups ir_measures is asked for together (see PEER_FAILS)."""
    skip = {"Accuracy"} | ({"Judged", "Compat"} if name == "empty_rankings" else set())
    keep = [m for m in MEASURES if m.NAME not in skip and not (name == "unicode" and _provider(m) == "gdeval")
            and not (_provider(m) == "pyndeval" and (name != "diversity" or m.params.get("judged_only")))]
    alone = [m for m in keep if _provider(m) in ("pyndeval", "pytrec_eval")]
    together: dict = {}
    for m in keep:
        if m not in alone:
            together.setdefault(_provider(m), []).append(m)
    return [[m] for m in alone] + list(together.values())


def _provider(measure) -> str:
    for p in ir_measures.DefaultPipeline.providers:
        if p.supports(measure):
            return p.NAME
    raise AssertionError(measure)  # pragma: no cover


@functools.lru_cache(maxsize=None)
def _oracle(name: str) -> dict:
    qrels, run = INPUTS[name]
    run_in = _run_dict(name, run) if name == "empty_rankings" else run
    once = [ir_measures.ScoredDoc(q, d, s) for q, docs in _as_dict(run, "score").items() for d, s in docs.items()]
    want: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for group in _oracle_groups(name):
            if group:  # see DIFFERENCES: a duplicated doc counted once, as the drop-in does
                twice = name == "duplicates" and _provider(group[0]) in ("cwl_eval", "gdeval", "accuracy", "pyndeval")
                lines = name == "diversity" and _provider(group[0]) == "gdeval"
                for metric in ir_measures.iter_calc(group, _as_dict(qrels, "relevance") if lines else qrels,
                                                    once if twice else run_in):
                    want.setdefault(repr(metric.measure), {})[metric.query_id] = float(metric.value)
    return want


class _Oracle(dict):
    """ir_measures' per-query values of an input, computed on first use (not while pytest collects)."""

    def __missing__(self, name: str) -> dict:
        self[name] = _oracle(name)
        return self[name]


ORACLE = _Oracle()


def _aggregate(measure, values) -> float:
    agg = measure.aggregator()
    for v in values:
        agg.add(v)
    return agg.result()


def _check(name: str, got: dict, function: str) -> int:
    """Compare ``{repr: {query: value}}`` with the oracle's; the number of values compared."""
    want, checked = ORACLE[name], 0
    for key, per_query in want.items():
        if key not in got:
            continue
        assert set(got[key]) == set(per_query), (name, function, key, set(got[key]) ^ set(per_query))
        for q, v in per_query.items():
            exact = key.startswith(("ERR@", "nDCG(dcg='exp-log2')"))
            undefined = math.isnan(v) and key.startswith("IPrec")  # see DIFFERENCES: pytrec_eval's NaN
            same = undefined or math.isnan(v) and math.isnan(got[key][q]) or \
                math.isclose(got[key][q], v, rel_tol=0, abs_tol=0 if exact else 1e-12)
            assert same, (name, function, key, q, got[key][q], v)
            checked += 1
            EXACT[0] += got[key][q] == v or math.isnan(v) and math.isnan(got[key][q])
            EXACT[1] += 1
    return checked


COUNTS: dict = {}
EXACT = [0, 0]  # per-query values equal to the last bit, of those compared one by one


def _per_query(metrics) -> dict:
    out: dict = {}
    for m in metrics:
        out.setdefault(repr(m.measure), {})[m.query_id] = float(m.value)
    return out


@pytest.mark.parametrize("name", list(INPUTS))
def test_iter_calc_and_calc_aggregate_match_ir_measures(name):
    qrels, run = INPUTS[name]
    wanted = [m for m in MEASURES if repr(m) in ORACLE[name]]
    run_in = _run_dict(name, run) if name == "empty_rankings" else run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query = _per_query(ours.iter_calc(wanted, qrels, run_in))
        COUNTS[name, "iter_calc"] = _check(name, per_query, "iter_calc")
        if name not in ("diversity", "duplicates"):  # a dict holds neither subtopics nor a second copy of a doc
            aggregated = ours.calc_aggregate(wanted, _as_dict(qrels, "relevance"), _run_dict(name, run))
            for m in wanted:
                want = _aggregate(m, ORACLE[name][repr(m)].values())
                assert aggregated[m] == pytest.approx(want, abs=1e-12, nan_ok=True) or m.NAME == "IPrec", (name, m)
            COUNTS[name, "calc_aggregate"] = len(wanted)
        ev = ours.evaluator(wanted, pd.DataFrame(qrels))
        aggregated, metrics = ev.calc(pd.DataFrame(run))
        if name != "empty_rankings":  # a frame has no empty ranking
            COUNTS[name, "evaluator.calc"] = _check(name, _per_query(metrics), "evaluator.calc")


@pytest.mark.parametrize("name", [n for n in INPUTS if n not in ("unicode", "duplicates")])
def test_trec_text_and_single_providers_match(name):
    qrels, run = INPUTS[name]
    qrels_text = "".join(f"{q.query_id} {q.iteration} {q.doc_id} {q.relevance}\n" for q in qrels)
    run_text = "".join(f"{r.query_id} Q0 {r.doc_id} {i} {r.score!r} t\n" for i, r in enumerate(run))
    assert list(ours.read_trec_qrels(qrels_text)) == list(ir_measures.read_trec_qrels(qrels_text))
    assert list(ours.read_trec_run(run_text)) == list(ir_measures.read_trec_run(run_text))
    wanted = [m for m in MEASURES if repr(m) in ORACLE[name]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name != "empty_rankings":
            got = _per_query(ours.iter_calc(wanted, ours.read_trec_qrels(qrels_text), ours.read_trec_run(run_text)))
            COUNTS[name, "read_trec_*"] = _check(name, got, "read_trec_*")
        by_provider: dict = {}
        for m in wanted:
            by_provider.setdefault(_provider(m), []).append(m)
        run_in = _run_dict(name, run) if name == "empty_rankings" else run
        checked = 0
        for provider, group in by_provider.items():
            checked += _check(name, _per_query(getattr(ours, provider).iter_calc(group, qrels, run_in)), provider)
        COUNTS[name, "provider.iter_calc"] = checked


def test_measure_methods_match():
    qrels, run = INPUTS["beir"]
    checked = 0
    for m in MEASURES[::7]:
        if repr(m) in ORACLE["beir"]:
            want = _aggregate(m, ORACLE["beir"][repr(m)].values())
            got = ours.parse_measure(repr(m)).calc_aggregate(qrels, run)
            assert got == pytest.approx(want, abs=1e-12, nan_ok=True) or m.NAME == "IPrec", m
            checked += 1
    COUNTS["beir", "Measure.calc_aggregate"] = checked


def test_accuracy_where_ir_measures_computes_it():
    """ir_measures' Accuracy divides by zero when a ranking ends in a relevant doc: compared where it does not."""
    qrels, run = INPUTS["beir"]
    compared = 0
    for measure in [m for m in MEASURES if m.NAME == "Accuracy"]:
        cutoff = measure.params.get("cutoff") or 26
        fine = {q for q, docs in ir_measures.util.RunConverter(run).as_sorteddict().items()
                if docs[:cutoff] and _as_dict(qrels, "relevance").get(q, {}).get(docs[:cutoff][-1].doc_id, 0)
                < (measure["rel"] or 1)}
        some = [r for r in run if r.query_id in fine]
        want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, some)}
        got = {m.query_id: m.value for m in ours.iter_calc([measure], qrels, some)}
        assert got == pytest.approx(want, abs=1e-12), measure
        compared += len(want)
    assert compared > 20
    COUNTS["beir", "Accuracy.iter_calc"] = compared


def test_report_sweep_size(capsys):
    with capsys.disabled():
        total = sum(COUNTS.values())
        functions = sorted({f for _, f in COUNTS})
        print(f"\nir_measures sweep: {len(INPUTS)} inputs x {len(MEASURES)} measure objects x {len(functions)} "
              f"functions ({', '.join(functions)}): {total} values equal to ir_measures' "
              f"({EXACT[1]} per-query values, {EXACT[0]} of them to the last bit, the rest within 1e-12; "
              f"{total - EXACT[1]} means and Accuracy values)")
    assert len(MEASURES) > 100
