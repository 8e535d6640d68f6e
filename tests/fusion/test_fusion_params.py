"""Every declared fusion and pooling parameter refused outside its range, with the range in the message;
runs read and checked as ``evaluate`` reads them; the evaluation options reaching training and scoring."""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.fusion import fuse, optimise
from rankmeter.fusion.catalog import (FUSE_OPTIONS, METHODS, NORMS, PARAMETERS, POOL_PARAMETERS,
                                               parse_param)
from rankmeter.fusion.pooling import pool
from rankmeter.fusion.trained import train

RUNS = [{"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0, "y": 0.5}},
        {"q1": {"c": 9.0, "d": 8.0, "a": 1.0}, "q2": {"y": 2.0, "x": 1.0}}]


def _outside(p):
    """Values outside ``p``'s declared type and range."""
    wrong_type = st.sampled_from(["abc", "60", b"1", True, False, object(), {"a": 1}])
    if p.kind == "choice":
        return st.one_of(st.text(max_size=8).filter(lambda t: t not in p.choices), st.integers(), wrong_type)
    if p.kind == "string":  # a run tag: any non-empty text
        return st.sampled_from(["", b"1", True, 3, 1.5, object(), {"a": 1}, ["a"]])
    bad_numbers = [st.sampled_from([math.nan, math.inf, -math.inf])]
    if p.low != -math.inf:
        below = st.floats(max_value=p.low, allow_nan=False, allow_infinity=False)
        bad_numbers.append(below.filter(lambda v: v < p.low or p.low_open))
    if p.high != math.inf:
        above = st.floats(min_value=p.high, allow_nan=False, allow_infinity=False)
        bad_numbers.append(above.filter(lambda v: v > p.high or p.high_open))
    if p.kind == "integer":
        inside = st.floats(min_value=max(p.low, -1e6), max_value=min(p.high, 1e6), allow_nan=False)
        bad_numbers.append(inside.filter(lambda v: not float(v).is_integer()))
    bad = st.one_of(*bad_numbers)
    per_run = getattr(p, "per_run", "")
    if not per_run:
        return st.one_of(bad, wrong_type) if p.optional else st.one_of(bad, wrong_type, st.none())
    if per_run == "numbers":  # one number per run (two runs here): one of them bad, or a wrong count
        return st.one_of(bad.map(lambda v: [1.0, v]), bad.map(lambda v: (v, 0.5)),
                         st.sampled_from([[1.0], [1.0, 1.0, 1.0], "ab", 3.0]))
    # "lists": one list of numbers per run
    return st.one_of(bad.map(lambda v: [[0.5, v], [0.5]]), st.sampled_from([[[0.5]], [0.5, 0.5], "ab", [["x"], [1]]]))


def _method_cases():
    return [(method, p) for p in PARAMETERS.values() for method in p.methods]


@pytest.mark.parametrize("method, parameter", _method_cases(), ids=lambda v: getattr(v, "name", v))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_method_parameter_refused_outside_its_range(method, parameter, data):
    value = data.draw(_outside(parameter))
    with pytest.raises(ParameterError) as refused:
        if parameter.name == "n_segments":  # chooses how probfuse is trained
            train({"q1": {"a": 1}}, RUNS, method, n_segments=value)
        else:
            fuse(RUNS, method=method, params={parameter.name: value})
    assert parameter.expected in str(refused.value), str(refused.value)


@pytest.mark.parametrize("parameter", [*FUSE_OPTIONS.values(), *POOL_PARAMETERS.values()], ids=lambda p: p.name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_fuse_and_pool_option_refused_outside_its_range(parameter, data):
    value = data.draw(_outside(parameter))
    with pytest.raises(ParameterError) as refused:
        if parameter.name == "step":
            optimise(RUNS, {"q1": {"a": 1}}, method="wsum", measure="AP", step=value)
        elif parameter in POOL_PARAMETERS.values():
            choose = {"depth": {}, "take": {}, "priority": {"take": 2}, "p": {"take": 2, "priority": "rbp"}}
            pool(RUNS, **{**choose[parameter.name], parameter.name: value})
        else:
            fuse(RUNS, **{parameter.name: value})
    assert parameter.expected in str(refused.value), str(refused.value)


@pytest.mark.parametrize("method, params, message", [
    ("rrf", {"k": -1}, "rrf k=-1: expected a number in [0, inf)"),
    ("rrf", {"k": "abc"}, "rrf k='abc': expected a number in [0, inf)"),
    ("wsum", {"weights": [math.nan, 1]}, "expected one number per run, each in [0, inf)"),
    ("wsum", {"weights": [math.inf, 1]}, "expected one number per run, each in [0, inf)"),
    ("rbc", {"phi": 2}, "rbc phi=2: expected a number in (0, 1)"),
    ("slidefuse", {"w": -1}, "slidefuse w=-1: expected an integer in [0, inf)"),
    ("gmnz", {"gamma": math.nan}, "gmnz gamma=nan: expected a number in [0, inf)"),
])
def test_the_reported_cases(method, params, message):
    """Each accepted before, writing inf, negative scores, or dropping a run."""
    with pytest.raises(ParameterError) as refused:
        fuse(RUNS, method=method, params=params)
    assert message in str(refused.value)


def test_command_line_values_are_typed_and_checked_by_the_table():
    assert parse_param("rrf", "k=60") == ("k", 60) and parse_param("rbc", "phi=0.5") == ("phi", 0.5)
    for item, message in [("k=abc", "rrf k='abc': expected a number in [0, inf)"),
                          ("k=-1", "rrf k=-1: expected a number in [0, inf)"),
                          ("k=nan", "rrf k=nan: expected a number in [0, inf)"),
                          ("phi=1", "rrf takes k; not phi"), ("k", "expected NAME=VALUE")]:
        with pytest.raises(ParameterError) as refused:
            parse_param("rrf", item)
        assert message in str(refused.value)
    with pytest.raises(ParameterError, match=r"slidefuse w='1.5': expected an integer in \[0, inf\)"):
        parse_param("slidefuse", "w=1.5")


def test_valid_values_still_fuse_and_parameters_keep_their_defaults():
    assert METHODS["rrf"][0] == {"k": 60} and METHODS["slidefuse"][0] == {"probs": None, "w": 1}
    assert METHODS["probfuse"][0] == {"probs": None}
    fused = fuse(RUNS, method="wsum", params={"weights": [0.0, 1.0]})
    assert fused.table.column("doc").to_pylist()[:2] == [b"c", b"d"]


@pytest.mark.parametrize("norm", NORMS)
def test_every_documented_norm_is_accepted(norm):
    fused = fuse(RUNS, method="sum", norm=norm)
    assert len(fused) == 6


def test_a_doc_listed_twice_is_refused_as_evaluate_refuses_it(tmp_path):
    """fuse kept the last line; now the core's duplicate check refuses it with evaluate's message."""
    twice = tmp_path / "twice.run"
    twice.write_text("q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 a 3 1.0 r\n")
    once = tmp_path / "once.run"
    once.write_text("q1 Q0 a 1 3.0 s\nq1 Q0 c 2 2.0 s\n")
    with pytest.raises(InputError) as by_eval:
        rankmeter.evaluate({"q1": {"a": 1}}, str(twice), "AP")
    with pytest.raises(InputError) as by_fuse:
        fuse([str(once), str(twice)], method="sum")
    assert str(by_fuse.value) == str(by_eval.value)
    assert "twice.run:1 and 3: doc a appears twice for query q1" in str(by_fuse.value)
    with pytest.raises(InputError, match="appears twice"):
        pool([str(once), str(twice)], depth=1)


# ------------------------------------------------------------------ options reach training and scoring
# One query; grade 1: z, grade 2: b. Run A ranks z, b, x; run B ranks y, b, z.
#   hits at rel 2 (b only):  A 0 1 0, B 0 1 0  -> posfuse probs A = B = [0, 1, 0]
#   hits at rel 1 (z and b): A 1 1 0, B 0 1 1  -> probs A = [1, 1, 0], B = [0, 1, 1]
# Trained at rel 2, b scores 1 + 1 = 2 and the rest 0: b first, AP at rel 2 = 1.
# Trained at rel 1 (what optimise did before), z scores 1 + 1 = 2 = b's 1 + 1; docno descending puts
# z first, b second: AP at rel 2 = 1/2.
QRELS = {"q1": {"z": 1, "b": 2, "x": 0, "y": 0}}
CRAFTED = [{"q1": {"z": 3.0, "b": 2.0, "x": 1.0}}, {"q1": {"y": 3.0, "b": 2.0, "z": 1.0}}]


def test_training_reads_rel():
    assert [list(p) for p in train(QRELS, CRAFTED, "posfuse", rel=2)["probs"]] == [[0, 1, 0], [0, 1, 0]]
    assert [list(p) for p in train(QRELS, CRAFTED, "posfuse", rel=1)["probs"]] == [[1, 1, 0], [0, 1, 1]]


def test_optimise_trains_and_scores_at_the_rel_given():
    at_2 = optimise(CRAFTED, QRELS, method="posfuse", measure="AP", norm=None, grid=[{}], rel=2)
    assert at_2.score == 1.0
    trained_at_1 = fuse(CRAFTED, method="posfuse", norm=None, params={"probs": [[1, 1, 0], [0, 1, 1]]})
    assert rankmeter.evaluate(QRELS, trained_at_1, "AP", rel=2)["AP"] == 0.5
    # nDCG reads grades, not rel: what differs is only how the table was trained.
    # rel 2 ranks b (gain 2), then z (gain 1): the ideal order, 1. rel 1 ranks z, then b:
    # (1 + 2 / log2 3) / (2 + 1 / log2 3).
    by_ndcg = {rel: optimise(CRAFTED, QRELS, method="posfuse", measure="nDCG", norm=None, grid=[{}], rel=rel).score
               for rel in (1, 2)}
    assert by_ndcg[2] == pytest.approx(1.0)
    assert by_ndcg[1] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    # held-out scoring under the same options
    held = optimise(CRAFTED, QRELS, method="posfuse", measure="AP", norm=None, grid=[{}], rel=2, test_qrels=QRELS)
    assert held.held_out == 1.0


def test_fuse_trains_under_its_options():
    fused = fuse(CRAFTED, method="posfuse", norm=None, train_qrels=QRELS, rel=2)
    assert fused.table.column("doc").to_pylist()[0] == b"b"
    fused = fuse(CRAFTED, method="posfuse", norm=None, train_qrels=QRELS)
    assert fused.table.column("doc").to_pylist()[:2] == [b"z", b"b"]


def test_pool_counts_judged_docs_through_the_core(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq1 0 d -1\nq2 0 y 0\n")   # d: grade -1, listed but not judged
    made = pool(RUNS, depth=2, qrels=str(qrels))
    assert made.already_judged == {b"q1": 1, b"q2": 1}
    assert made.docs[b"q1"] == [b"c", b"a", b"d", b"b"]  # best rank first (c, a rank 1), then docno descending


@pytest.mark.parametrize("args, message", [
    (["--method", "rrf", "--param", "k=-1"], "rrf k=-1: expected a number in [0, inf)"),
    (["--method", "rrf", "--param", "k=abc"], "rrf k='abc': expected a number in [0, inf)"),
    (["--method", "wsum", "--weights", "nan", "1"], "expected one number per run, each in [0, inf)"),
    (["--method", "wsum", "--weights", "inf", "1"], "expected one number per run, each in [0, inf)"),
    (["--method", "rbc", "--param", "phi=2"], "rbc phi=2: expected a number in (0, 1)"),
    (["--method", "slidefuse", "--param", "w=-1", "--qrels", "QRELS"], "slidefuse w=-1: expected an integer in"),
    (["--method", "gmnz", "--param", "gamma=nan"], "gmnz gamma=nan: expected a number in [0, inf)"),
    (["--method", "rrf", "--ties", "average"], "--ties"),
])
def test_command_line_refuses_in_one_line_and_writes_nothing(cli, tmp_path, args, message):
    paths = []
    for i, run in enumerate(RUNS):
        path = tmp_path / f"r{i}.run"
        path.write_text("".join(f"{q} Q0 {d} 1 {s} r{i}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(path)
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\n")
    out = tmp_path / "fused.run"
    done = cli("fuse", *paths, *[str(qrels) if a == "QRELS" else a for a in args], "-o", out)
    assert done.code == 2 and message in done.err and len(done.err.strip().splitlines()) == 1, done.err
    assert not out.exists()


def test_command_line_fuses_with_ties_rel_and_borda(cli, tmp_path):
    paths = []
    for i, run in enumerate(CRAFTED):
        path = tmp_path / f"c{i}.run"
        path.write_text("".join(f"{q} Q0 {d} {r + 1} {s} c{i}\n" for q, docs in run.items()
                                for r, (d, s) in enumerate(docs.items())))
        paths.append(path)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q1 0 {d} {g}\n" for d, g in QRELS["q1"].items()))
    out = tmp_path / "fused.run"
    done = cli("fuse", *paths, "--method", "posfuse", "--norm", "none", "--qrels", qrels, "--rel", "2", "-o", out)
    assert done.code == 0, done.err
    assert out.read_text().splitlines()[0].split()[2] == "b"          # trained at rel 2 (rel 1 puts z first)
    for extra in (["--norm", "borda", "--method", "sum"], ["--ties", "input"]):
        assert cli("fuse", *paths, *extra, "-o", out).code == 0
