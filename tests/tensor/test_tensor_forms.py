"""Registry sweep of the tensor path: every supported family through both forms of its formula.

numpy rows go through the families' own kernels (a Batch built from the
``[B, N]`` arrays); other libraries through the array-API form in
rankmeter/tensor/_dense.py. Here every supported family, with
parameters generated from its own specs (as tests/measures/test_registry_sweep.py
does), every cutoff kind, ``rel`` 1 and 2, both tie modes and both ways of
declaring relevant docs outside the list, is scored by the kernels, by the
dense form on numpy and by the dense form on torch (float64), and the three
must agree to 1e-12. Families the tensor path refuses are checked to be
refused with the list of supported ones.
"""
from __future__ import annotations


from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.tensor import SUPPORTED, _xp, evaluate
from rankmeter.tensor._dense import DENSE
from rankmeter.tensor._evaluate import evaluate_planned
from rankmeter.tensor._inputs import plan_measures, prepare
from rankmeter.errors import MeasureError
from rankmeter.measures import REGISTRY, Measure

TOL = 1e-12


def _bounds(p):
    """(minimum, maximum, above, below) of a declaration: its interval's closed and open ends, None where unbounded."""
    finite = lambda x: x if abs(x) != float("inf") else None
    low, high = finite(p.low), finite(p.high)
    return ((None if p.low_open else low), (None if p.high_open else high),
            (low if p.low_open else None), (high if p.high_open else None))


def variants(name: str, *, average: bool = False) -> list[Measure]:
    """Default parameters, then one measure per generated value of each parameter the tensor path takes."""
    family = REGISTRY[name]
    allowed = SUPPORTED[name]
    params: list[dict] = [{}, {"rel": 2}]
    for p in family.params:
        if p.name in allowed:
            params += [{p.name: v} for v in allowed[p.name] if v != p.default]
        elif p.kind in ("choice", "choice_or_gains"):
            params += [{p.name: c} for c in p.choices if c != p.default and c != "error"]
            if p.kind == "choice_or_gains":
                params.append({p.name: {1: 2.0, 2: 5.0}})
        elif p.kind == "integer":
            params.append({p.name: max(int(_bounds(p)[0] or 1), 2)})
        elif p.kind == "number":
            low = _bounds(p)[0] if _bounds(p)[0] is not None else 0.0
            high = _bounds(p)[1] if _bounds(p)[1] is not None else (1.0 if _bounds(p)[3] is not None else low + 2.0)
            params.append({p.name: low + (high - low) * 0.45})
    if name in ("DCG", "nDCG"):
        params += [{"log_base": 10.0}, {"log_base": 3.0, "discount": "jk"}]
    if name == "RBP":
        params += [{"gain": "graded", "max_grade": 2}, {"gain": "graded", "max_grade": "qrels"}]
    cutoffs = [None] if family.cutoff == "none" else [None, 1, 3]
    out = []
    for given_params in params:
        for k in cutoffs:
            try:
                m = Measure.of(name, given_params, k)
            except MeasureError:
                continue
            if average and _refused_when_averaged(m):
                continue
            out.append(m)
    return list(dict.fromkeys(out))


def _refused_when_averaged(m: Measure) -> bool:
    return (m.family.tie_average is None or (m.name == "AP" and m.get("denom") == "hits")
            or (m.name == "nDCG" and m.get("ideal") == "topk"))


@st.composite
def batches(draw, *, real_grades: bool = False):
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rows, width = draw(st.integers(1, 7)), draw(st.integers(1, 9))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        scores = rng.integers(-1, 3, (rows, width)).astype(np.float64)   # many ties, some <= 0
    else:
        scores = rng.normal(size=(rows, width))
    targets = rng.integers(0, 4, (rows, width)).astype(np.float64)
    if real_grades:
        targets = np.round(targets * rng.random((rows, width)), 2)
    mask = rng.random((rows, width)) < draw(st.sampled_from([1.0, 0.8, 0.4]))
    return scores, targets, mask, rng


def _equal(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all((np.abs(a - b) <= TOL) | (np.isnan(a) & np.isnan(b))))


def torch_ops_on_cpu():
    """CPU tensors through the torch adapter itself (what CUDA tensors run), not through numpy views."""
    return mock.patch.object(_xp, "TORCH_CPU_THROUGH_NUMPY", False)


def _three_forms(scores, targets, planned, ties, **extra):
    """The kernels, the array-API form on numpy, and on torch (the torch adapter, as on CUDA): the third
    entry also holds the torch CPU default (numpy views), which must be identical to the second."""
    numpy_inputs = prepare(scores, targets, **extra)
    kernels = evaluate_planned(numpy_inputs, planned, ties, form="kernels")
    dense = evaluate_planned(numpy_inputs, planned, ties, form="dense")
    torch_extra = {k: (torch.from_numpy(v) if isinstance(v, np.ndarray) else v) for k, v in extra.items()}
    tensors = (torch.from_numpy(scores), torch.from_numpy(targets))
    with torch_ops_on_cpu():
        on_torch = evaluate_planned(prepare(*tensors, **torch_extra), planned, ties)
    through_numpy = evaluate_planned(prepare(*tensors, **torch_extra), planned, ties)
    for label, _ in planned:
        assert isinstance(through_numpy[label], torch.Tensor)
        assert np.array_equal(through_numpy[label].numpy(), dense[label], equal_nan=True), label
    return kernels, dense, {label: v.numpy() for label, v in on_torch.items()}


def test_every_supported_family_has_both_forms():
    assert set(SUPPORTED) <= set(REGISTRY)
    assert set(SUPPORTED) == set(DENSE)


@pytest.mark.parametrize("name", sorted(set(REGISTRY) - set(SUPPORTED)))
def test_other_families_are_refused_with_the_supported_list(name):
    family = REGISTRY[name]
    measure = str(Measure.of(name, {}, 5 if family.cutoff == "required" else None)) \
        if family.cutoff_kind is int else f"{name}@0.5"
    with pytest.raises(MeasureError, match="supported: P, R, F"):
        evaluate(np.ones((1, 2)), np.ones((1, 2)), measure)


@pytest.mark.parametrize("name", sorted(SUPPORTED))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), positive_only=st.booleans())
def test_both_forms_agree(name, data, positive_only):
    scores, targets, mask, _ = data
    planned = [(str(m), m) for m in variants(name)]
    forms = _three_forms(scores, targets, planned, "input", mask=mask, positive_scores_only=positive_only)
    for label, _ in planned:
        assert _equal(forms[0][label], forms[1][label]), (label, forms[0][label], forms[1][label])
        assert _equal(forms[0][label], forms[2][label]), (label, forms[0][label], forms[2][label])


@pytest.mark.parametrize("name", sorted(n for n in SUPPORTED if REGISTRY[n].tie_average is not None))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches())
def test_both_forms_agree_with_ties_averaged(name, data):
    scores, targets, mask, _ = data
    planned = [(str(m), m) for m in variants(name, average=True)]
    forms = _three_forms(scores, targets, planned, "average", mask=mask)
    for label, _ in planned:
        assert _equal(forms[0][label], forms[1][label]), (label, forms[0][label], forms[1][label])
        assert _equal(forms[0][label], forms[2][label]), (label, forms[0][label], forms[2][label])


@pytest.mark.parametrize("declared", ["num_relevant", "ideal_targets"])
@pytest.mark.parametrize("name", sorted(SUPPORTED))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches())
def test_both_forms_agree_on_cut_lists(declared, name, data):
    scores, targets, mask, rng = data
    listed = ((targets >= 1) & mask).sum(axis=1)
    if declared == "num_relevant":
        extra = {"num_relevant": listed + rng.integers(0, 4, len(listed))}
    else:
        positives = np.where(mask & (targets > 0), targets, 0.0)
        extra = {"ideal_targets": np.concatenate([positives, rng.integers(0, 4, (len(listed), 3)).astype(float)], 1)}
    planned = [(str(m), m) for m in variants(name)]
    forms = _three_forms(scores, targets, planned, "input", mask=mask, **extra)
    for label, _ in planned:
        assert _equal(forms[0][label], forms[1][label]), (label, forms[0][label], forms[1][label])
        assert _equal(forms[0][label], forms[2][label]), (label, forms[0][label], forms[2][label])


@pytest.mark.parametrize("name", ["CG", "DCG", "nDCG", "NCG", "RBP", "P", "AP", "AUC"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(real_grades=True))
def test_both_forms_agree_on_real_grades(name, data):
    scores, targets, mask, _ = data
    planned = [(str(m), m) for m in variants(name) if not isinstance(dict(m.params).get("gain"), tuple)]
    forms = _three_forms(scores, targets, planned, "input", mask=mask)
    for label, _ in planned:
        assert _equal(forms[0][label], forms[1][label]), (label, forms[0][label], forms[1][label])
        assert _equal(forms[0][label], forms[2][label]), (label, forms[0][label], forms[2][label])


def test_planned_measures_are_the_swept_ones():
    """The sweep's measures plan as themselves (no parameter silently dropped or changed)."""
    for name in SUPPORTED:
        for m in variants(name):
            assert plan_measures([m]) == [(str(m), m)]


@pytest.mark.parametrize("name", sorted(SUPPORTED))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches(), positive_only=st.booleans(), ties=st.sampled_from(["input", "average"]))
def test_float32_ranks_exactly(name, data, positive_only, ties):
    """float32 rows are ranked through integer keys (a sort of the keys, or a top-k for cutoffs): the
    order must be the float64 stable order, signed zeros and infinities included; the values then
    differ only by float32 rounding."""
    scores, targets, mask, rng = data
    scores = scores.astype(np.float32).astype(np.float64)
    scores[rng.random(scores.shape) < 0.1] = -0.0
    scores[rng.random(scores.shape) < 0.05] = np.inf
    scores[rng.random(scores.shape) < 0.05] = -np.inf
    planned = [(str(m), m) for m in variants(name, average=ties == "average")]
    if not planned:   # no closed form over tie orders: refused, see test_both_forms_agree_with_ties_averaged
        return
    want = evaluate_planned(prepare(scores, targets, mask=mask, positive_scores_only=positive_only), planned, ties,
                            form="kernels")
    for cutoff_only in (False, True):   # every measure alone: its own depth (a top-k when it has a cutoff)
        for label, m in planned if cutoff_only else [(None, None)]:
            chosen = [(label, m)] if cutoff_only else planned
            with torch_ops_on_cpu():
                got = evaluate_planned(prepare(torch.from_numpy(scores).float(), torch.from_numpy(targets).float(),
                                               mask=torch.from_numpy(mask), positive_scores_only=positive_only),
                                       chosen, ties)
            through_numpy = evaluate_planned(prepare(scores.astype(np.float32), targets.astype(np.float32),
                                                     mask=mask, positive_scores_only=positive_only),
                                             chosen, ties, form="dense")
            for key, _ in chosen:
                value = through_numpy[key].astype(np.float64)
                error = np.abs(value - want[key]) / np.maximum(np.abs(want[key]), 1.0)
                assert np.all((error <= 1e-6) | (np.isnan(value) & np.isnan(want[key]))), (key, value, want[key])
            for key, _ in chosen:
                value = got[key].double().numpy()
                error = np.abs(value - want[key]) / np.maximum(np.abs(want[key]), 1.0)
                assert np.all((error <= 1e-6) | (np.isnan(value) & np.isnan(want[key]))), (key, value, want[key])
