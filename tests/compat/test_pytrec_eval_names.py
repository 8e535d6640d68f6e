"""The drop-in refuses what pytrec_eval refuses, with the same exception type, and its deliberate differences.

Oracle: the installed pytrec_eval (pytrec-eval-terrier, the test extra's pin). Names pytrec_eval aborts the
interpreter on (a C assertion: SIGABRT) are run in a child process to show it does, and the drop-in raises
ValueError instead. The ``trec_eval="10.0"`` option is checked against trec_eval 10.0's golden output.
"""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pytrec_eval = optional("pytrec_eval")

from rankmeter.compat import pytrec_eval as dropin  # noqa: E402

@pytest.fixture(autouse=True, scope="module")
def _pytrec_eval_past_its_first_ranking():
    """pytrec_eval scores an empty ranking differently before the first non-empty ranking of the process
    (test_pytrec_eval_names.py::test_pytrec_eval_first_empty_ranking_of_a_process): score one first."""
    pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {"d": 1.0}})


GOLDEN = Path(__file__).resolve().parents[1] / "golden"
QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}


def _outcome(module, *args, **kwargs):
    try:
        return module.RelevanceEvaluator(*args, **kwargs).evaluate(RUN)
    except Exception as exc:  # noqa: BLE001 -- the type is what is compared
        return type(exc)


@pytest.mark.parametrize("measures", [
    {"bogus"}, {"rbp"}, {"unj"}, {"yaap"}, {"dcg"}, {"P_"}, {"P."}, {"P.abc"}, {"P_-1"}, {"P.-1"},
    {"prefs"}, {"all_prefs"}, {"qrels_jg"}, {"P_avgjg"}, {"prefs_simp"}, {"map", "ndcg_cut.x"},
    "P_5",  # a str is iterated letter by letter: "_" is not a measure
    "map", [1], {"iprec_at_recall.-0.1"},
])
def test_refuses_what_pytrec_eval_refuses(measures):
    want = _outcome(pytrec_eval, QREL, measures)
    assert isinstance(want, type) and issubclass(want, Exception), want
    assert _outcome(dropin, QREL, measures) is want


@pytest.mark.parametrize("args, kwargs", [
    (({"q1": {"d1": 1.0}}, set()), {}),
    (({"q1": {"d1": 1}, "q2": ["d1"]}, set()), {}),
    ((QREL, {"map"}), {"relevance_level": 0}),
    ((QREL, {"map"}), {"relevance_level": -3}),
    ((QREL, {"map"}), {"relevance_level": 1.5}),
    (({1: {"d1": 1}}, {"map"}), {}),
    (({"q1": {"d1": 1.0}}, {"map"}), {}),
    (({"q1": {"d1": "1"}}, {"map"}), {}),
    (({"q1": {2: 1}}, {"map"}), {}),
    (({"q1": ["d1"]}, {"map"}), {}),
])
def test_bad_arguments_raise_as_pytrec_eval_raises(args, kwargs):
    """The same exception type -- or the same values: relevance_level=-3 is no error in pytrec_eval (its C
    code stores the int into the low half of a long: 2**32 - 3, a level no grade reaches)."""
    want = _outcome(pytrec_eval, *args, **kwargs)
    assert _outcome(dropin, *args, **kwargs) == want
    assert isinstance(want, type) or kwargs == {"relevance_level": -3}


@pytest.mark.parametrize("measures", [{"map"}, set()])
@pytest.mark.parametrize("run", [[("q1", {"d1": 1.0})], {"q1": [("d1", 1.0)]}, {"q1": {"d1": "high"}},
                                 {"q1": {"d1": None}}, {"q1": {3: 1.0}}, {4: {"d1": 1.0}},
                                 {"q1": {"d1": 1.0}, "q9": {"d": "x"}},   # a query the qrels do not judge
                                 {"q9": {"d": float("nan")}, "q1": {"d1": 2}}])
def test_bad_runs_raise_as_pytrec_eval_raises(run, measures):
    def outcome(module):
        try:
            return module.RelevanceEvaluator(QREL, measures).evaluate(run)
        except Exception as exc:  # noqa: BLE001
            return type(exc)
    want = outcome(pytrec_eval)
    assert isinstance(want, type) or "q9" in run, want  # a NaN in an unjudged query is no error
    assert outcome(dropin) == want


@pytest.mark.parametrize("qrels, measures, run", [
    (QREL, {"map", "ndcg"}, {}),
    (QREL, set(), RUN),
    ({}, {"map", "ndcg"}, RUN),
    ({}, {"map", "ndcg"}, {}),
    (QREL, set(), {}),
    ({}, set(), RUN),
    ({}, {}, {}),
    ({"q1": {}, "q2": {"d1": 1}}, {"map"}, {"q1": {"d1": 1.0}, "q2": {}, "q3": {"d1": 2.0}}),
])
def test_empty_inputs_as_pytrec_eval(qrels, measures, run):
    want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert dropin.RelevanceEvaluator(qrels, measures).evaluate(run) == want


_ABORTS = ["ndcg_10", "G.1", "ndcg_rel_2", "Rndcg.3", "P.0", "success_0", "P_5,5.0", "recall_10,010",
           "iprec_at_recall_0.1,0.10", "Rprec_mult.1,1.0"]


@pytest.mark.parametrize("name", _ABORTS)
def test_where_pytrec_eval_aborts_the_drop_in_raises_value_error(name):
    code = ("import pytrec_eval\n"
            f"pytrec_eval.RelevanceEvaluator({QREL!r}, {{{name!r}}}).evaluate({RUN!r})\n")
    died = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert died.returncode == -signal.SIGABRT, (died.returncode, died.stderr[-500:])
    with pytest.raises(ValueError, match="pytrec_eval aborts"):
        dropin.RelevanceEvaluator(QREL, {name})


def _golden_all(path: Path, label: str) -> float:
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields[:2] == [label, "all"]:
            return float(fields[2])
    raise AssertionError(f"{label} not in {path.name}")


@pytest.mark.parametrize("qrels, level, out", [("qrels.test", 1, "out.test.a"), ("qrels.rel_level", 2, "out.test.aql")])
def test_eleven_point_average_pytrec_eval_value_by_default_and_trec_eval_10_on_request(qrels, level, out):
    """pytrec_eval's 11pt_avg (trec_eval 9.0.8's rounding of recall levels) by default, 10.0's with
    trec_eval="10.0": 0.1958 vs 0.1962 at level 1, 0.1804 vs 0.1817 at level 2 on trec_eval's test files."""
    with open(GOLDEN / qrels) as f:
        judged = pytrec_eval.parse_qrel(f)
    with open(GOLDEN / "results.test") as f:
        run = pytrec_eval.parse_run(f)

    def mean(module, **option):
        res = module.RelevanceEvaluator(judged, {"11pt_avg"}, relevance_level=level, **option).evaluate(run)
        return module.compute_aggregated_measure("11pt_avg", [v["11pt_avg"] for v in res.values()])

    want = mean(pytrec_eval)
    assert mean(dropin) == pytest.approx(want, abs=1e-12)
    ten = mean(dropin, trec_eval="10.0")
    assert round(ten, 4) == _golden_all(GOLDEN / out, "11pt_avg")
    assert abs(ten - want) > 3e-4  # the difference the migration page names


def test_trec_eval_10_option_gives_zero_where_pytrec_eval_gives_nan():
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall.0,0.5", "11pt_avg"}).evaluate(run)
    got = dropin.RelevanceEvaluator(qrels, {"iprec_at_recall.0,0.5", "11pt_avg"}).evaluate(run)
    assert repr(got) == repr(want)  # nan, 0.0, nan
    ten = dropin.RelevanceEvaluator(qrels, {"iprec_at_recall.0,0.5", "11pt_avg"}, trec_eval="10.0").evaluate(run)
    assert ten == {"q1": {"iprec_at_recall_0.00": 0.0, "iprec_at_recall_0.50": 0.0, "11pt_avg": 0.0}}
    with pytest.raises(ValueError, match="trec_eval="):
        dropin.RelevanceEvaluator(qrels, {"map"}, trec_eval="9")


def test_nan_score_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        dropin.RelevanceEvaluator(QREL, {"map"}).evaluate({"q1": {"d1": float("nan")}})


def test_official_holds_runid_as_pytrec_eval_does():
    want = pytrec_eval.RelevanceEvaluator(QREL, {"official"}).evaluate(RUN)
    got = dropin.RelevanceEvaluator(QREL, {"official"}).evaluate(RUN)
    assert "runid" in got["q1"] and got["q1"]["runid"] == want["q1"]["runid"] == 0.0
    assert [list(v) for v in got.values()] == [list(v) for v in want.values()]


def test_gm_map_per_query_is_a_log_and_aggregates_to_pytrec_eval_value():
    with open(GOLDEN / "qrels.test") as f:
        judged = pytrec_eval.parse_qrel(f)
    with open(GOLDEN / "results.test") as f:
        run = pytrec_eval.parse_run(f)
    values = {}
    for module in (pytrec_eval, dropin):
        res = module.RelevanceEvaluator(judged, {"gm_map", "gm_bpref"}).evaluate(run)
        values[module] = {m: module.compute_aggregated_measure(m, [v[m] for v in res.values()])
                          for m in ("gm_map", "gm_bpref")}
    assert values[dropin] == pytest.approx(values[pytrec_eval], abs=1e-12)
    assert round(values[dropin]["gm_map"], 4) == _golden_all(GOLDEN / "out.test", "gm_map")


def test_pytrec_eval_first_empty_ranking_of_a_process():
    """A deliberate difference: trec_eval 9.0.8 asks its allocator for 0 bytes for an empty ranking, which
    gives NULL (an error) until a non-empty ranking has been scored in the process; so an empty ranking
    scored first gets 0 for its first measure and an all-zero state for the others (num_rel 0, 11pt_avg
    NaN from 0/0). Once any ranking has been scored, pytrec_eval gives what the drop-in always gives."""
    code = ("import pytrec_eval\n"
            "qrels = {'q1': {'d1': 3}}\n"
            "first = pytrec_eval.RelevanceEvaluator(qrels, {'num_rel', 'num_ret'}).evaluate({'q1': {}})\n"
            "pytrec_eval.RelevanceEvaluator(qrels, {'map'}).evaluate({'q1': {'d1': 1.0}})\n"
            "later = pytrec_eval.RelevanceEvaluator(qrels, {'num_rel', 'num_ret'}).evaluate({'q1': {}})\n"
            "print(first, later)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == ("{'q1': {'num_ret': 0.0, 'num_rel': 0.0}} "
                                   "{'q1': {'num_ret': 0.0, 'num_rel': 1.0}}"), done.stdout + done.stderr
    got = dropin.RelevanceEvaluator({"q1": {"d1": 3}}, {"num_rel", "num_ret"}).evaluate({"q1": {}})
    assert got == {"q1": {"num_ret": 0.0, "num_rel": 1.0}}
