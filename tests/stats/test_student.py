"""Student's t distribution without scipy (rankmeter.stats.student) against scipy.special."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

from rankmeter.stats.student import stdtr, stdtrit, t_quantile


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 10, 19, 24, 49, 99, 249, 999, 4999, 0.7, 2.5])
def test_tails_and_quantiles_equal_scipy(df):
    rng = np.random.default_rng(int(df * 10))
    for t in list(rng.normal(0, 4, 60)) + [0.0, 0.5, -1.0, 1.0, -30.0, 60.0]:
        want = sp.stdtr(df, t)
        assert stdtr(df, t) == pytest.approx(want, rel=1e-10, abs=1e-300)
        lower = sp.stdtr(df, -abs(t))  # the p-value side: the far tail keeps its digits
        assert stdtr(df, -abs(t)) == pytest.approx(lower, rel=1e-10, abs=1e-300)
    for p in list(rng.uniform(0.5, 1.0, 40)) + [0.975, 0.995, 0.9995, 1e-12, 0.025]:
        assert stdtrit(df, p) == pytest.approx(sp.stdtrit(df, p), rel=1e-10, abs=1e-11)


def test_edges():
    assert stdtr(5, float("inf")) == 1.0 and stdtr(5, float("-inf")) == 0.0
    assert stdtrit(5, 0.5) == 0.0 and stdtrit(5, 1.0) == float("inf")
    assert np.isnan(stdtr(0, 1.0)) and np.isnan(stdtrit(3, 1.5))
    # the Cauchy case in closed form: P(T <= t) = 1/2 + atan(t) / pi
    for t in (-1e-8, -0.3, 2.0, 1e6):
        assert stdtr(1, t) == pytest.approx(0.5 + np.arctan(t) / np.pi, rel=1e-14)


def test_the_t_test_equals_scipy_without_importing_it():
    import subprocess
    import sys
    code = ("import sys; sys.modules['scipy'] = None\n"  # scipy absent: importing it fails
            "import rankmeter\n"
            "c = rankmeter.compare({'q%d' % i: {'a': 1, 'b': i % 2} for i in range(12)},\n"
            "    {'x': {'q%d' % i: {'a': 1.0 + i, 'b': 2.0} for i in range(12)},\n"
            "     'y': {'q%d' % i: {'b': 1.0, 'a': 0.5} for i in range(12)}}, 'AP', test='t')\n"
            "print(repr(c.table_records()[1]['p_value']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    from scipy import stats
    import rankmeter
    c = rankmeter.compare({f"q{i}": {"a": 1, "b": i % 2} for i in range(12)},
                          {"x": {f"q{i}": {"a": 1.0 + i, "b": 2.0} for i in range(12)},
                           "y": {f"q{i}": {"b": 1.0, "a": 0.5} for i in range(12)}}, "AP", test="t")
    x, y = c.scores["AP"][:, 0], c.scores["AP"][:, 1]
    assert float(out) == pytest.approx(stats.ttest_rel(y, x).pvalue, rel=1e-12)


def test_t_quantile_is_the_one_helper_for_numbers_and_arrays():
    """Exact per distinct value (scipy's stdtrit) for a few; a simulation's thousands from df = 5 by
    Cornish-Fisher, within 3e-4 at 5 and 1e-5 from 10; df = inf the normal quantile; df <= 0 NaN."""
    from statistics import NormalDist

    assert t_quantile(9, 0.975) == pytest.approx(sp.stdtrit(9, 0.975), rel=1e-12)
    few = np.array([[1.0, 2.5], [30.0, np.inf]])
    got = t_quantile(few, 0.95)
    assert got.shape == (2, 2)
    assert got[:, 0].tolist() == pytest.approx([sp.stdtrit(1, 0.95), sp.stdtrit(30, 0.95)], rel=1e-12)
    assert got[1, 1] == pytest.approx(NormalDist().inv_cdf(0.95), rel=1e-15)
    assert np.isnan(t_quantile(np.array([0.0, -1.0]), 0.9)).all() and np.isnan(t_quantile(0, 0.9))
    many = np.linspace(1.0, 300.0, 1000)
    err = np.abs(t_quantile(many, 0.975) - sp.stdtrit(many, 0.975))
    assert err[many < 5].max() < 1e-10          # below 5 degrees of freedom: always exact
    assert 1e-6 < err[many >= 5].max() < 3e-4   # the expansion, not the exact inverse
    assert err[many >= 10].max() < 1e-5
