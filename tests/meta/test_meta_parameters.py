"""Meta-evaluation parameters refused outside their declared range (their declarations), with the
range in the message; score_matrix's topic policy when a run lacks topics."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import ParameterError
from rankmeter.meta import (discriminative_power, minimum_detectable_difference, power, score_matrix,
                                     swap_rate, topic_set_size)
from rankmeter.meta import params as meta
from rankmeter.stats.params import SIGNIFICANCE as SHARED

#: each parameter's declaration (rankmeter.meta.params, or the shared ones)
PARAMS = {"alpha": SHARED["alpha"], "seed": SHARED["seed"], "permutations": meta.POWER_PERMUTATIONS,
          "trials": meta.TRIALS, "bin_width": meta.BIN_WIDTH, "size": meta.SIZE, "beta": meta.BETA,
          "min_diff": meta.MIN_DIFF, "variance": meta.VARIANCE, "topics": meta.TOPICS, "systems": meta.SYSTEMS}

X = np.array([[0.1, 0.5, 0.9], [0.2, 0.6, 0.8], [0.0, 0.7, 0.9], [0.1, 0.4, 0.7]])
DESIGN = {"min_diff": 0.1, "variance": 0.04}

#: (parameter, how to call with it)
CALLS = {
    "alpha": [lambda v: discriminative_power(X, test="t", alpha=v),
              lambda v: topic_set_size(alpha=v, **DESIGN), lambda v: power(20, alpha=v, **DESIGN)],
    "permutations": [lambda v: discriminative_power(X, permutations=v)],
    "seed": [lambda v: discriminative_power(X, seed=v), lambda v: swap_rate(X, seed=v)],
    "trials": [lambda v: swap_rate(X, trials=v)],
    "bin_width": [lambda v: swap_rate(X, bin_width=v)],
    "size": [lambda v: swap_rate(X, sizes=[v])],
    "beta": [lambda v: topic_set_size(beta=v, **DESIGN), lambda v: minimum_detectable_difference(20, beta=v,
                                                                                                 variance=0.04)],
    "min_diff": [lambda v: topic_set_size(min_diff=v, variance=0.04), lambda v: power(20, min_diff=v, variance=0.04)],
    "variance": [lambda v: topic_set_size(min_diff=0.1, variance=v),
                 lambda v: minimum_detectable_difference(20, variance=v)],
    "topics": [lambda v: power(v, **DESIGN), lambda v: minimum_detectable_difference(v, variance=0.04)],
    "systems": [lambda v: power(20, test="anova", systems=v, **DESIGN)],
}


def _outside(p):
    bad = [st.sampled_from([math.nan, math.inf, -math.inf, "5", True])]
    if p.low != -math.inf:
        bad.append(st.floats(max_value=p.low, allow_nan=False, allow_infinity=False)
                   .filter(lambda v: v < p.low or p.low_open))
    if p.high != math.inf:
        bad.append(st.floats(min_value=p.high, allow_nan=False, allow_infinity=False)
                   .filter(lambda v: v > p.high or p.high_open))
    if p.kind == "integer":
        bad.append(st.floats(min_value=max(p.low, -1e6), max_value=min(p.high, 1e6), allow_nan=False)
                   .filter(lambda v: not float(v).is_integer()))
        bad.append(st.integers(max_value=int(p.low) - 1) if p.low != -math.inf else st.nothing())
    if p.name != "seed":  # seed=None is fresh randomness; every other one here needs a value
        bad.append(st.none())
    return st.one_of(*bad)


@pytest.mark.parametrize("name, call", [(n, c) for n, calls in CALLS.items() for c in calls])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_every_meta_parameter_refused_outside_its_declared_range(name, call, data):
    value = data.draw(_outside(PARAMS[name]))
    with pytest.raises(ParameterError) as refused:
        call(value)
    expected = PARAMS[name].expected.replace(" or None", "").replace(", inf)", ", ")
    assert expected in str(refused.value), str(refused.value)


@pytest.mark.parametrize("call, message", [
    (lambda: discriminative_power(X, permutations=-1), "permutations=-1: expected an integer in [1, 10000000]"),
    (lambda: discriminative_power(X, alpha=5), "alpha=5: expected a number in (0, 1)"),
    (lambda: discriminative_power(X, seed=-3), "seed=-3: expected an integer in [0, 4294967295]"),
    (lambda: swap_rate(X, trials=-1), "trials=-1: expected an integer in [1, 10000000]"),
    (lambda: swap_rate(X, seed=-1), "seed=-1: expected an integer in [0, 4294967295]"),
    (lambda: swap_rate(X, sizes=[1.5]), "size=1.5: expected an integer in [1, inf)"),
    (lambda: topic_set_size(alpha=5, **DESIGN), "alpha=5: expected a number in (0, 1)"),
    (lambda: topic_set_size(test="t", systems=5, **DESIGN), "the paired t-test compares two systems"),
    (lambda: minimum_detectable_difference(1, variance=0.04), "topics=1: expected an integer in [2, 1000000000]"),
    (lambda: power(10 ** 23, **DESIGN), "topics=100000000000000000000000: expected an integer in [2, 1000000000]"),
    (lambda: power(20, test="anova", systems=10 ** 23, **DESIGN), "systems=100000000000000000000000: expected"),
])
def test_the_reported_cases(call, message):
    """Each used to run (negative trials gave an empty draw, alpha 5 a power, a negative seed numpy's
    ValueError: "internal error" on the command line)."""
    with pytest.raises(ParameterError) as refused:
        call()
    assert message in str(refused.value)


def test_seed_none_is_fresh_randomness():
    assert discriminative_power(X, test="bootstrap", permutations=50, seed=None).test == "bootstrap"
    assert swap_rate(X, sizes=[1], seed=None).trials == {1: 12}


def _collection(tmp_path, topics=50, lacking=(7, 9)):
    """Three runs over 50 judged topics; r2 has no line for two of them."""
    rng = np.random.default_rng(5)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {int(rng.integers(0, 2))}\n" for t in range(1, topics + 1)
                             for d in range(10)))
    runs = []
    for r in range(3):
        path = tmp_path / f"r{r}.run"
        path.write_text("".join(f"{t} Q0 d{d} {i + 1} {10 - i} r{r}\n" for t in range(1, topics + 1)
                                if not (r == 2 and t in lacking) for i, d in enumerate(rng.permutation(10))))
        runs.append(str(path))
    return str(qrels), runs


def test_a_run_lacking_two_topics_drops_them_as_compare_does_or_scores_them_0_under_qrels(tmp_path):
    """One rule in every meta command, as in compare: the topics every run answered; queries='qrels' scores a
    run's missing judged topics as empty rankings (swap-rate --size 25 over 50 topics then works)."""
    qrels, runs = _collection(tmp_path)
    with pytest.warns(UserWarning, match=r"r2 \(2\).*the 48 topics every system answered"):
        x, topics, names = score_matrix(qrels, runs, "AP")
    assert x.shape == (48, 3) and "7" not in topics and "9" not in topics
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {run: rankmeter.evaluate(qrels, run, "AP") for run in runs}
    for j, run in enumerate(runs):
        per_query = dict(zip(want[run].queries, want[run].values("AP").tolist()))
        assert x[:, j].tolist() == [per_query[t] for t in topics]
    x, topics, names = score_matrix(qrels, runs, "AP", queries="qrels")
    assert x.shape == (50, 3) and len(topics) == 50
    assert x[topics.index("7"), 2] == 0.0 and x[topics.index("9"), 2] == 0.0
    assert swap_rate(x, sizes=[25], trials=20).trials == {25: 20}


def test_topics_no_run_ranks_stay_out_under_both(tmp_path):
    qrels, runs = _collection(tmp_path, topics=6, lacking=())
    with open(qrels, "a") as fh:
        fh.write("99 0 d1 1\n")          # judged, ranked by no run
    x, topics, _ = score_matrix(qrels, runs, "AP")
    assert "99" not in topics and x.shape == (6, 3)
    x, topics, _ = score_matrix(qrels, runs, "AP", queries="qrels")
    assert "99" in topics and x.shape == (7, 3) and (x[topics.index("99")] == 0).all()


@pytest.mark.parametrize("kind, args, flag", [
    ("swap-rate", ["--trials", "-1"], "--trials"), ("swap-rate", ["--seed", "-1"], "--seed"),
    ("swap-rate", ["--size", "25"], "--size 25: expected an integer in [1, 24]"),
    ("discriminative-power", ["--alpha", "5"], "--alpha"),
    ("discriminative-power", ["--permutations", "0"], "--permutations"),
])
def test_command_line_refuses_absurd_values_in_one_line(cli, tmp_path, kind, args, flag):
    qrels, runs = _collection(tmp_path)
    done = cli("meta", kind, qrels, *runs, "-m", "AP", *args)
    errors = [line for line in done.err.splitlines() if line.startswith("rankmeter: error")]
    assert done.code == 2 and len(errors) == 1 and flag in errors[0], done.err


def test_swap_rate_size_25_over_50_topics_when_a_run_lacks_two(cli, tmp_path):
    import json

    qrels, runs = _collection(tmp_path)
    done = cli("meta", "swap-rate", qrels, *runs, "-m", "AP", "--size", "25", "--trials", "20", "--format", "json",
               "--queries", "qrels")
    assert done.code == 0, done.err
    x, _, _ = score_matrix(qrels, runs, "AP", queries="qrels")
    assert json.loads(done.out)["results"][0]["overall"]["25"] == swap_rate(x, sizes=[25], trials=20).overall[25]
    # without --queries qrels the two topics r2 lacks are left out, as compare leaves them: 24 is the largest size
    done = cli("meta", "swap-rate", qrels, *runs, "-m", "AP", "--size", "25")
    assert done.code == 2 and "--size 25: expected an integer in [1, 24]" in done.err


@pytest.mark.parametrize("kind", ["discriminative-power", "swap-rate"])
def test_every_measure_given_is_analysed_in_turn(cli, tmp_path, kind):
    import json

    qrels, runs = _collection(tmp_path, lacking=())
    done = cli("meta", kind, qrels, *runs, "-m", "AP", "-m", "P@5", "--format", "json", "--seed", "3")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert data["measures"] == ["AP", "P@5"] and [r["measure"] for r in data["results"]] == ["AP", "P@5"]
    for result, measure in zip(data["results"], ["AP", "P@5"]):
        alone = json.loads(cli("meta", kind, qrels, *runs, "-m", measure, "--format", "json", "--seed", "3").out)
        assert alone["results"] == [result]
    text = cli("meta", kind, qrels, *runs, "-m", "AP", "-m", "P@5", "--seed", "3").out
    assert text.count("AP:") == 1 and text.count("P@5:") == 1
