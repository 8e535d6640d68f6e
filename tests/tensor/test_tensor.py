"""rankmeter.tensor.evaluate against rankmeter.evaluate on the same lists, and its conventions and refusals.

The oracle is the table API: each row becomes a query whose qrels hold every
real candidate (and the relevant docs outside the list that num_relevant or
ideal_targets declare), whose run ranks the candidates by score, best first
(ties in input order: a ranked list sorted here in plain Python; averaged
ties: the scores themselves with ``ties="average"``).
"""
from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter.tensor import SUPPORTED, evaluate
from rankmeter.errors import InputError, MeasureError, ParameterError

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.tensor.test_tensor_forms import batches, torch_ops_on_cpu, variants  # noqa: E402

TOL = 1e-12
#: float32 inputs are scored in float32: |x32 - x64| <= FLOAT32_TOL * max(1, |x64|). The worst seen over
#: every variant on lists of 10 to 100 candidates is 2.4e-7 (nDCG); documented in docs/training.md.
FLOAT32_TOL = 1e-6


def _oracle(scores, targets, mask, names, *, ties="input", positive_only=False, extra_judged=None):
    """Per-row values from rankmeter.evaluate (NaN for rows that are not a judged query)."""
    rows, width = scores.shape
    qrels, run = {}, {}
    for i in range(rows):
        judged = {f"d{j}": int(targets[i, j]) if float(targets[i, j]).is_integer() else float(targets[i, j])
                  for j in range(width) if mask[i, j]}
        for n, grade in enumerate(extra_judged[i] if extra_judged is not None else []):
            judged[f"x{n}"] = grade
        if judged:
            qrels[f"q{i}"] = judged
        docs = [j for j in range(width) if mask[i, j] and (scores[i, j] > 0 or not positive_only)]
        if not docs:
            continue
        if ties == "input":
            run[f"q{i}"] = [f"d{j}" for j in sorted(docs, key=lambda j: -scores[i, j])]
        else:
            run[f"q{i}"] = {f"d{j}": float(scores[i, j]) for j in docs}
    if not qrels:
        return None
    real = any(not float(g).is_integer() for judged in qrels.values() for g in judged.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one more query, judged and ranked, so that a run whose rows all rank nothing is still a run
        qrels["~"], run["~"] = {"z": 1}, (["z"] if ties == "input" else {"z": 1.0})
        result = rankmeter.evaluate(qrels, run, names, queries="qrels", ties=ties,
                                    grades="real" if real else "integer")
    out = {}
    for name in names:
        per_query = dict(zip(result.queries, result.values(name)))
        out[name] = np.array([per_query.get(f"q{i}", np.nan) for i in range(rows)], dtype=np.float64)
    return out, np.array([f"q{i}" in qrels for i in range(rows)])


def _check(got, want, judged, name):
    got = np.asarray(got, dtype=np.float64)[judged]
    want = want[judged]
    ok = (np.abs(got - want) <= TOL) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), (name, got, want)


ALL = [str(m) for name in sorted(SUPPORTED) for m in variants(name)]
AVERAGED = [str(m) for name in sorted(SUPPORTED) if rankmeter.measures.REGISTRY[name].tie_average is not None
            for m in variants(name, average=True)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), positive_only=st.booleans())
def test_equals_rankmeter_evaluate(data, positive_only):
    """Every supported family, every variant: numpy (kernels) and torch float64 (array-API form)."""
    scores, targets, mask, _ = data
    oracle = _oracle(scores, targets, mask, ALL, positive_only=positive_only)
    if oracle is None:
        return
    want, judged = oracle
    got = evaluate(scores, targets, ALL, mask=mask, positive_scores_only=positive_only)
    on_torch = evaluate(torch.from_numpy(scores), torch.from_numpy(targets), ALL, mask=torch.from_numpy(mask),
                        positive_scores_only=positive_only)
    for name in ALL:
        _check(got[name], want[name], judged, name)
        assert isinstance(on_torch[name], torch.Tensor) and on_torch[name].dtype == torch.float64
        _check(on_torch[name].numpy(), want[name], judged, name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches())
def test_equals_rankmeter_evaluate_with_ties_averaged(data):
    scores, targets, mask, _ = data
    oracle = _oracle(scores, targets, mask, AVERAGED, ties="average")
    if oracle is None:
        return
    want, judged = oracle
    got = evaluate(scores, targets, AVERAGED, mask=mask, ties="average")
    on_torch = evaluate(torch.from_numpy(scores), torch.from_numpy(targets), AVERAGED, mask=torch.from_numpy(mask),
                        ties="average")
    for name in AVERAGED:
        _check(got[name], want[name], judged, name)
        _check(on_torch[name].numpy(), want[name], judged, name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), graded=st.booleans())
def test_cut_lists_match_the_full_judgments(data, graded):
    """num_relevant / ideal_targets: the values of the full qrels, of which the rows list a part."""
    scores, targets, mask, rng = data
    rows = len(scores)
    if graded:
        outside = [list(rng.integers(1, 4, rng.integers(0, 4))) for _ in range(rows)]
        width = max([len(o) for o in outside] + [1])
        positives = np.where(mask & (targets > 0), targets, 0.0)
        padded = np.array([[float(g) for g in o] + [0.0] * (width - len(o)) for o in outside])
        extra = {"ideal_targets": np.concatenate([positives, padded], axis=1)}
    else:
        outside = [[1] * int(n) for n in rng.integers(0, 4, rows)]
        extra = {"num_relevant": ((targets >= 1) & mask).sum(axis=1) + np.array([len(o) for o in outside])}
    oracle = _oracle(scores, targets, mask, ALL, extra_judged=outside)
    if oracle is None:
        return
    want, judged = oracle
    got = evaluate(scores, targets, ALL, mask=mask, **extra)
    on_torch = evaluate(torch.from_numpy(scores), torch.from_numpy(targets), ALL, mask=torch.from_numpy(mask),
                        **{k: torch.from_numpy(v) for k, v in extra.items()})
    for name in ALL:
        _check(got[name], want[name], judged, name)
        _check(on_torch[name].numpy(), want[name], judged, name)


def test_float32_within_the_documented_tolerance():
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(300, 50))
    targets = rng.integers(0, 4, (300, 50)).astype(np.float64)
    exact = evaluate(torch.from_numpy(scores), torch.from_numpy(targets), ALL)
    single = evaluate(torch.from_numpy(scores).float(), torch.from_numpy(targets).float(), ALL)
    worst = 0.0
    for name in ALL:
        assert single[name].dtype == torch.float32
        error = (single[name].double() - exact[name]).abs() / exact[name].abs().clamp(min=1.0)
        assert torch.equal(error.isnan(), exact[name].isnan())
        worst = max(worst, float(error.nan_to_num(0.0).max()))
    assert 0 < worst <= FLOAT32_TOL


def test_worked_example():
    """Row 1: relevant at ranks 1 and 3 of 3; row 2: the only relevant doc (grade 2) at rank 2."""
    scores = torch.tensor([[0.9, 0.8, 0.7], [0.1, 0.5, 0.3]], dtype=torch.float64)
    targets = torch.tensor([[1, 0, 1], [0, 0, 2]])
    out = evaluate(scores, targets, ["AP", "RR", "P@2", "nDCG@2", "Success@1"])
    assert out["AP"].tolist() == [(1 / 1 + 2 / 3) / 2, 1 / 2]
    assert out["RR"].tolist() == [1.0, 0.5]
    assert out["P@2"].tolist() == [0.5, 0.5]
    assert out["nDCG@2"].tolist() == [1 / (1 + 1 / math.log2(3)), (2 / math.log2(3)) / 2]
    assert out["Success@1"].tolist() == [1.0, 0.0]


# ------------------------------------------------------------------ conventions
def test_top_k_is_the_cutoff_and_refused_twice():
    rng = np.random.default_rng(1)
    scores, targets = rng.normal(size=(20, 9)), rng.integers(0, 3, (20, 9))
    alias = evaluate(scores, targets, ["nDCG", "AP", "P"], top_k=4)
    named = evaluate(scores, targets, ["nDCG@4", "AP@4", "P@4"])
    for a, b in zip(alias.values(), named.values()):
        assert np.array_equal(a, b)
    with pytest.raises(ParameterError, match="give the cutoff once"):
        evaluate(scores, targets, "nDCG@10", top_k=4)
    with pytest.raises(MeasureError, match="RBP takes no cutoff"):
        evaluate(scores, targets, ["nDCG", "RBP"], top_k=4)
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ParameterError, match="top_k"):
            evaluate(scores, targets, "nDCG", top_k=bad)


def test_empty_target_action():
    scores = np.array([[0.3, 0.2], [0.5, 0.1]])
    targets = np.array([[0, 0], [1, 0]])
    for lib in (np, torch):
        s, t = (scores, targets) if lib is np else (torch.from_numpy(scores), torch.from_numpy(targets))
        assert evaluate(s, t, "AP", empty_target_action="pos")["AP"].tolist() == [1.0, 1.0]
        assert evaluate(s, t, "AP")["AP"].tolist() == [0.0, 1.0]
        skipped = evaluate(s, t, ["AP", "nDCG"], empty_target_action="skip")
        assert math.isnan(skipped["AP"][0]) and float(skipped["AP"][1]) == 1.0
        assert math.isnan(skipped["nDCG"][0])
        with pytest.raises(MeasureError, match=r"row 0\b.*empty_target_action=error"):
            evaluate(s, t, "RR", empty_target_action="error")
    assert evaluate(scores, targets, "AP(empty_target_action=pos)", empty_target_action="pos")
    with pytest.raises(ParameterError, match="give it once"):
        evaluate(scores, targets, "AP(empty_target_action=pos)", empty_target_action="skip")
    with pytest.raises(ParameterError, match="empty_target_action"):
        evaluate(scores, targets, "AP", empty_target_action="zero")


def test_ignore_index_is_padding_and_positive_scores_only_keeps_judgments():
    rng = np.random.default_rng(2)
    scores, targets = rng.normal(size=(30, 8)), rng.integers(0, 3, (30, 8))
    dropped = rng.random((30, 8)) < 0.3
    marked = np.where(dropped, -100, targets)
    for lib in (np, torch):
        conv = (lambda a: a) if lib is np else torch.from_numpy
        a = evaluate(conv(scores), conv(marked), ALL, ignore_index=-100)
        b = evaluate(conv(scores), conv(targets), ALL, mask=conv(~dropped))
        for name in ALL:
            assert np.allclose(np.asarray(a[name]), np.asarray(b[name]), atol=0, equal_nan=True), name
    with pytest.raises(ParameterError, match="ignore_index"):
        evaluate(scores, targets, "AP", ignore_index="x")
    with pytest.raises(ParameterError, match="positive_scores_only"):
        evaluate(scores, targets, "AP", positive_scores_only=1)
    out = evaluate(np.array([[0.5, -0.5]]), np.array([[0, 1]]), ["R", "RR"], positive_scores_only=True)
    assert out["R"].tolist() == [0.0] and out["RR"].tolist() == [0.0]   # the relevant doc is judged, not ranked


def test_flat_form_equals_rows():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, 25)
    unique = np.unique(rng.integers(0, 10 ** 12, 25))
    ids = np.repeat(unique, sizes[:len(unique)])   # large ids: no table indexed by them
    preds, target = rng.normal(size=len(ids)), rng.integers(0, 3, len(ids))
    shuffle = rng.permutation(len(ids))
    args = (torch.from_numpy(preds[shuffle]), torch.from_numpy(target[shuffle]), ALL)
    flat = evaluate(*args, indexes=torch.from_numpy(ids[shuffle]))
    with torch_ops_on_cpu():   # the torch adapter itself, as on CUDA
        flat_torch = evaluate(*args, indexes=torch.from_numpy(ids[shuffle]))
    grouped = evaluate(torch.from_numpy(preds), torch.from_numpy(target), ALL, indexes=torch.from_numpy(ids))
    order = np.argsort(ids[shuffle], kind="stable")
    for name in ALL:
        assert np.allclose(flat[name].numpy(), flat_torch[name].numpy(), atol=TOL, rtol=0, equal_nan=True), name
        assert np.allclose(np.sort(grouped[name].numpy()), np.sort(flat[name].numpy()), atol=TOL, equal_nan=True)
    for name in ALL[:40]:
        per_row = []
        for q in np.unique(ids):
            rows = shuffle[order][ids[shuffle][order] == q]
            per_row.append(float(evaluate(preds[rows][None, :], target[rows][None, :], name)[name][0]))
        assert np.allclose(flat[name].numpy(), per_row, atol=TOL, rtol=0, equal_nan=True), name


@pytest.mark.parametrize("bad,match", [
    (lambda s, t: (s[0], t[0]), "expected \\[rows, candidates\\]"),
    (lambda s, t: (s, t[:, :2]), "one target per score"),
    (lambda s, t: (np.where(s > 0, np.nan, s), t), "NaN"),
    (lambda s, t: (s, -t - 1), "negative"),
    (lambda s, t: (s, torch.from_numpy(t)), "same library"),
    (lambda s, t: ([[1.0]], t), "array API"),
])
def test_bad_inputs_are_refused(bad, match):
    rng = np.random.default_rng(4)
    scores, targets = bad(rng.normal(size=(3, 4)), rng.integers(0, 2, (3, 4)))
    with pytest.raises((InputError, ParameterError), match=match):
        evaluate(scores, targets, "AP")


def test_empty_batches():
    for conv in ((lambda a: a), torch.from_numpy):
        assert evaluate(conv(np.zeros((0, 3))), conv(np.zeros((0, 3))), "AP")["AP"].shape == (0,)
        out = evaluate(conv(np.zeros((2, 0))), conv(np.zeros((2, 0))), ["AP", "nDCG@3", "RR", "ERR(max_grade=2)"])
        assert all(np.isnan(np.asarray(v)).all() and v.shape == (2,) for v in out.values())   # no query
    with torch_ops_on_cpu():
        out = evaluate(torch.zeros(2, 0), torch.zeros(2, 0), ["AP", "RR"])
        assert all(torch.isnan(v).all() for v in out.values())


def test_refusals_name_what_to_do():
    s, t = np.ones((2, 3)), np.ones((2, 3))
    with pytest.raises(MeasureError, match="supported: P, R, F, F1"):
        evaluate(s, t, "Bpref")
    with pytest.raises(MeasureError, match="gain in binary, graded"):
        evaluate(s, t, "RBP(gain=trec_eval)")
    with pytest.raises(ParameterError, match="ties="):
        evaluate(s, t, "AP", ties="trec_eval")
    with pytest.raises(MeasureError, match="AP\\(denom=hits\\)"):
        evaluate(s, t, "AP(denom=hits)@3", ties="average")
    with pytest.raises(ParameterError, match="not both"):
        evaluate(s, t, "AP", num_relevant=np.ones(2), ideal_targets=np.ones((2, 1)))
    with pytest.raises(InputError, match="smaller than the relevant candidates"):
        evaluate(s, t, "AP", num_relevant=np.ones(2))
    with pytest.raises(InputError, match="mask"):
        evaluate(s, t, "AP", mask=np.ones((2, 3)))


def test_inputs_are_not_mutated_and_stay_on_their_library():
    scores = torch.tensor([[0.2, 0.9, 0.4]], requires_grad=True) * 1.0   # a model's output, in a graph
    targets = torch.tensor([[1, 0, 2]])
    before = (scores.detach().clone(), targets.clone())
    out = evaluate(scores, targets, ["nDCG@2", "AP"], ties="average")
    out.update(evaluate(scores, targets, ["RR", "P@2"]))
    assert torch.equal(scores, before[0]) and torch.equal(targets, before[1])
    assert all(v.device == scores.device and v.dtype == torch.float32 and not v.requires_grad
               for v in out.values())


def test_import_rankmeter_does_not_import_torch():
    code = ("import sys, numpy as np, rankmeter, rankmeter.tensor as tensor; "
            "tensor.evaluate(np.ones((1, 2)), np.ones((1, 2)), 'AP'); tensor.Metric('AP'); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
