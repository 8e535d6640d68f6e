"""Differential sweep: ``rankmeter.compat.pytrec_eval`` against the real pytrec_eval (pytrec-eval-terrier).

Seeded random and adversarial cases (ties at every cutoff, scores equal only in single precision, signed
zeros and scores beyond a float's range, empty
rankings, queries on one side only, queries whose judgments are all empty, graded and negative grades,
unicode ids), every name of ``pytrec_eval.supported_measures`` bare and with numbers in both spellings
(``P.5,10`` and ``P_5,10``), the nicknames, at relevance levels 1..3 with and without
``judged_docs_only_flag``; every public function. The answers must be the same dicts: the same queries in
the same order, the same labels in the same order, every value equal to 1e-12 (NaN where pytrec_eval gives
NaN). The real package runs in this process; the cases avoid what crashes it (a query whose judgments are
all negative: trec_eval mallocs a negative size; names it aborts on are in test_pytrec_eval_names.py).
"""
from __future__ import annotations

import io
import math
import random

import pytest

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pytrec_eval = optional("pytrec_eval")

from rankmeter.compat import pytrec_eval as dropin  # noqa: E402

@pytest.fixture(autouse=True, scope="module")
def _pytrec_eval_past_its_first_ranking():
    """pytrec_eval scores an empty ranking differently before the first non-empty ranking of the process
    (test_pytrec_eval_names.py::test_pytrec_eval_first_empty_ranking_of_a_process): score one first."""
    pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {"d": 1.0}})


SEEDS = range(40)

#: every supported measure bare, and with numbers in both spellings where it takes numbers (and a few
#: where it ignores them)
NAMES = sorted({"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
                "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                "num_nonrel_judged_ret"}
               | {f"{m}{sep}{k}" for m in ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success")
                  for sep in "._" for k in ("1,2,3", "5", "2,10,15")}
               | {f"iprec_at_recall{sep}{x}" for sep in "._" for x in ("0.10", "0.25,0.5,0.75", "0,1", "0.33")}
               | {f"Rprec_mult{sep}{x}" for sep in "._" for x in ("0.5", "0.5,1.5,3.0")}
               | {f"11pt_avg{sep}{x}" for sep in "._" for x in ("0.25,0.5,0.75", "0.5,00.25", "0.1")}
               | {f"set_F{sep}{x}" for sep in "._" for x in ("0.5", "2,1")}
               | {f"utility{sep}{x}" for sep in "._" for x in ("2,1,0,0", "1,1,1,1", "3")}
               | {"map_5", "num_ret.5", "set_P_5", "relstring_3", "P_10abc", "P.5.5"})
#: measure sets given at once (nicknames, a name bare and with numbers, numbers pooled over names)
SETS = [{"official"}, {"set"}, {"all_trec"}, {"official", "set", "ndcg"}, {"P", "P_5"}, {"P_5", "P.10,20"},
        {"ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"},
        {"map", "ndcg_cut.10", "P.5", "recall_100", "recip_rank"}, set()]

_DOCS = ["d1", "d2", "d3", "d10", "d11", "D1", "a", "aa", "b", "z", "\u00e9t\u00e9", "\u4e2d\u6587", "d\u0301",
         "x y", "\U0001f600", "d01", "d001"]
_QUERIES = ["q1", "q2", "10", "9", "Q3", "\u00fc", "\u4e2d", "q 4"]


def _score(rng: random.Random, palette: list[float]) -> float:
    pick = rng.random()
    if pick < 0.5:
        return rng.choice(palette)
    if pick < 0.6:  # equal to a palette score in single precision only: pytrec_eval reads C floats
        return rng.choice(palette) * (1 + 2 ** -30)
    if pick < 0.7:
        return rng.randint(-3, 3)  # ints are scores too
    if pick < 0.78:  # zeros of both signs, values below a float's range (0 as floats), past it (+-inf)
        return rng.choice([0.0, -0.0, 1e-50, -1e-50, 1e300, -1e300, 3.4e38, 2 ** 70])
    return rng.uniform(-50, 50)


def case(seed: int):
    """(qrels, run) of one seed: some queries in both, some on one side, empty rankings, ties."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in rng.sample(_QUERIES, rng.randint(1, len(_QUERIES))):
        where = rng.choice(["both", "both", "both", "qrels", "run", "empty-ranking", "empty-judgments"])
        if where in ("both", "qrels", "empty-ranking"):
            judged = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in rng.sample(_DOCS, rng.randint(1, 10))}
            if max(judged.values()) < 0:
                judged[rng.choice(_DOCS)] = 0  # all negative: trec_eval's undefined behaviour, never generated
            qrels[q] = judged
        if where == "empty-judgments":
            qrels[q] = {}
        if where in ("both", "run", "empty-judgments"):
            palette = [rng.uniform(-2, 2) for _ in range(rng.randint(1, 3))]
            run[q] = {d: _score(rng, palette) for d in rng.sample(_DOCS, rng.randint(1, len(_DOCS)))}
        if where == "empty-ranking":
            run[q] = {}
    if not any(q in qrels and qrels[q] for q in run):  # at least one query scored
        q = next(iter(run), _QUERIES[0])
        qrels[q] = {"d1": 1, "d2": 0}
        run.setdefault(q, {"d1": 0.5, "d3": 0.5})
    return qrels, run


def _same_value(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-12 * max(1.0, abs(a))


def _compare(want: dict, got: dict, where: str) -> int:
    """Assert the two answers are the same dict (orders included); the number of values compared."""
    assert list(got) == list(want), f"{where}: queries {list(got)} vs pytrec_eval's {list(want)}"
    n = 0
    for q, values in want.items():
        assert list(got[q]) == list(values), f"{where} {q!r}: labels {list(got[q])} vs {list(values)}"
        for label, value in values.items():
            assert type(got[q][label]) is float
            assert _same_value(value, got[q][label]), \
                f"{where} {q!r} {label}: drop-in {got[q][label]!r}, pytrec_eval {value!r}"
            n += 1
    return n


def _sweep(seed: int, measure_sets) -> int:
    qrels, run = case(seed)
    rng = random.Random(seed)
    level = rng.choice([1, 1, 2, 3])
    judged_only = rng.random() < 0.3
    n = 0
    for measures in measure_sets:
        where = f"seed {seed}, {sorted(measures)}, level {level}, judged_only {judged_only}"
        want = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                              judged_docs_only_flag=judged_only).evaluate(run)
        got = dropin.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                        judged_docs_only_flag=judged_only).evaluate(run)
        n += _compare(want, got, where)
        for label in (next(iter(want.values()), {})):
            values = [v[label] for v in want.values()]
            assert _same_value(pytrec_eval.compute_aggregated_measure(label, values),
                               dropin.compute_aggregated_measure(label, values)), (where, label)
    return n


@pytest.mark.parametrize("seed", SEEDS)
def test_every_name_alone_matches_pytrec_eval(seed):
    assert _sweep(seed, [{name} for name in NAMES]) > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_measure_sets_match_pytrec_eval(seed):
    _sweep(seed, SETS)


def test_an_evaluator_scores_many_runs_the_same_way():
    qrels, _ = case(3)
    want = pytrec_eval.RelevanceEvaluator(qrels, {"official", "ndcg_cut.3"})
    got = dropin.RelevanceEvaluator(qrels, {"official", "ndcg_cut.3"})
    for seed in range(10):
        run = case(seed)[1]
        _compare(want.evaluate(run), got.evaluate(run), f"run of seed {seed}")


def test_module_surface_matches_pytrec_eval():
    assert dropin.supported_measures == pytrec_eval.supported_measures
    assert type(dropin.supported_measures) is type(pytrec_eval.supported_measures)
    assert dropin.supported_nicknames == pytrec_eval.supported_nicknames
    public = {name for name in pytrec_eval.__all__} | {"compute_aggregated_measure"}
    assert public <= set(dir(dropin))


@pytest.mark.parametrize("seed", range(10))
def test_parse_qrel_and_parse_run_match_pytrec_eval(seed):
    qrels, run = case(seed)
    qrel_text = "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items() if " " not in q + d)
    run_text = "".join(f"{q} Q0 {d} {i} {s!r} tag\n" for q, docs in run.items()
                       for i, (d, s) in enumerate(docs.items()) if " " not in q + d)
    for parse, text in [("parse_qrel", qrel_text), ("parse_run", run_text)]:
        want = getattr(pytrec_eval, parse)(io.StringIO(text))
        got = getattr(dropin, parse)(io.StringIO(text))
        assert type(got) is type(want) and got == want
        assert [list(v.items()) for v in got.values()] == [list(v.items()) for v in want.values()]


@pytest.mark.parametrize("values", [[0.5, 0.25], [-1.0, -2.0, -11.512925464970229], [3.0, 4.0], [0.1] * 7])
@pytest.mark.parametrize("label", ["map", "gm_map", "gm_bpref", "num_ret", "num_q", "P_10", "runid"])
def test_compute_aggregated_measure_matches_pytrec_eval(label, values):
    assert dropin.compute_aggregated_measure(label, values) == pytrec_eval.compute_aggregated_measure(label, values)


@pytest.mark.parametrize("seed", range(8))
def test_a_run_read_in_small_parts_gives_the_same_answers(seed, monkeypatch):
    """Big runs are read and scored in parts of about PART_ROWS results: parts of a few rows here."""
    import rankmeter.compat.pytrec_eval as module
    monkeypatch.setattr(module, "PART_ROWS", 7)
    qrels, run = case(seed)
    for measures in SETS:
        want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        _compare(want, dropin.RelevanceEvaluator(qrels, measures).evaluate(run), f"parts, seed {seed}")
