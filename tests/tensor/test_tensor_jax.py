"""rankmeter.tensor on JAX arrays: the generic array-API adapter (no JAX-specific code in rankmeter).

With 64-bit types enabled, every supported family agrees with the families' numpy kernels to 1e-12;
in JAX's default 32-bit mode, within the float32 tolerance of docs/training.md.
"""
from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings

from rankmeter.tensor import SUPPORTED, Metric, evaluate

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.tensor.test_tensor_forms import batches, variants  # noqa: E402

#: every family with its default parameters, with and without a cutoff (torch runs every variant;
#: JAX dispatches op by op, slowly, and here only the adapter is new)
ALL = [str(m) for name in sorted(SUPPORTED) for m in variants(name) if not m.params]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=batches())
def test_jax_float64_equals_the_kernels(data):
    scores, targets, mask, _ = data
    want = evaluate(scores, targets, ALL, mask=mask)
    with jax.enable_x64(True):
        got = evaluate(jnp.asarray(scores), jnp.asarray(targets), ALL, mask=jnp.asarray(mask))
        for name in ALL:
            assert isinstance(got[name], jax.Array) and got[name].dtype == jnp.float64
            value = np.asarray(got[name])
            assert np.all((np.abs(value - want[name]) <= 1e-12) | (np.isnan(value) & np.isnan(want[name]))), name


def test_jax_default_32_bit_mode_and_metric():
    rng = np.random.default_rng(0)
    scores, targets = rng.normal(size=(50, 30)), rng.integers(0, 3, (50, 30)).astype(np.float64)
    exact = evaluate(scores, targets, ALL)
    got = evaluate(jnp.asarray(scores, dtype=jnp.float32), jnp.asarray(targets, dtype=jnp.int32), ALL)
    for name in ALL:
        assert got[name].dtype == jnp.float32
        error = np.abs(np.asarray(got[name], dtype=np.float64) - exact[name]) / np.maximum(np.abs(exact[name]), 1.0)
        assert np.nanmax(error, initial=0.0) <= 1e-6, name
    metric = Metric(["AP", "nDCG@10"])
    for part in (slice(0, 20), slice(20, 50)):
        metric.update(jnp.asarray(scores[part], dtype=jnp.float32), jnp.asarray(targets[part], dtype=jnp.int32))
    result = metric.compute()
    want = evaluate(scores, targets, ["AP", "nDCG@10"])
    assert abs(float(result["AP"]) - float(np.mean(want["AP"]))) <= 1e-6
    assert abs(float(result["nDCG@10"]) - float(np.mean(want["nDCG@10"]))) <= 1e-6
