"""``judges reliability``: a judge's agreement with itself over its draws of each pair. Krippendorff's alpha
against the krippendorff package, ICC(1) against scipy's one-way ANOVA F (ICC(1) = (F - 1) / (F + n0 - 1)) and a
hand-worked example, the flip rate of halves against its expectation under known per-pair probabilities, and
each pair's interval of P(relevant) covering the truth at its nominal rate."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from optional_packages import optional  # noqa: E402

krippendorff = optional("krippendorff")
stats = optional("scipy.stats")

from rankmeter.errors import InputError  # noqa: E402
from rankmeter.judges.reliability import icc1, reliability
from rankmeter.judges.stopping import wilson  # noqa: E402


def _draws(seed: int, pairs: int, low: int, high: int, grades: int = 4):
    """Draws of a judge with known per-pair grade probabilities: (lines, probabilities (pairs, grades), draws per
    pair). Unbalanced: each pair drawn between ``low`` and ``high`` times."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(grades, 0.4), pairs)
    n = rng.integers(low, high + 1, pairs)
    lines, matrix = [], np.full((high, pairs), np.nan)
    for p in range(pairs):
        drawn = rng.choice(grades, size=n[p], p=probs[p])
        matrix[:n[p], p] = drawn
        lines += [f"q{p % 7} 0 d{p} {g}\n" for g in drawn]
    order = rng.permutation(len(lines))           # lines in any order: a pair's draws need not be adjacent
    return "".join(lines[i] for i in order), probs, n, matrix


@pytest.mark.parametrize("seed", range(6))
def test_alpha_equals_the_krippendorff_package_and_icc_scipys_anova(seed):
    text, _, n, matrix = _draws(seed, pairs=30 + 10 * seed, low=2 + seed % 2, high=3 + seed)
    got = reliability([io.BytesIO(text.encode())])
    for level in ("ordinal", "nominal"):
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level,
                                  value_domain=np.unique(matrix[~np.isnan(matrix)]))
        assert got[f"alpha_{level}"] == pytest.approx(want, abs=1e-12)
    groups = [matrix[~np.isnan(matrix[:, p]), p] for p in range(matrix.shape[1])]
    F = stats.f_oneway(*groups).statistic
    N = n.sum()
    n0 = (N - (n ** 2).sum() / N) / (len(n) - 1)
    assert got["icc"] == pytest.approx((F - 1) / (F + n0 - 1), abs=1e-12)
    assert got["pairs"] == len(n) and got["draws"] == {"min": int(n.min()), "max": int(n.max())}
    assert [p["draws"] for p in sorted(got["per_pair"], key=lambda p: int(p["doc"][1:]))] == n.tolist()


def test_icc_by_hand():
    # pairs (1, 2), (3, 3, 3), (5, 6): grand mean 23/7; group means 1.5, 3, 5.5
    # MSB = (2 * 1.7755**2 + 3 * 0.2857**2 + 2 * 2.2143**2) / 2 = 8.2143; MSW = (0.5 + 0 + 0.5) / 4 = 0.25
    # n0 = (7 - 17/7) / 2 = 16/7; ICC = (8.2143 - 0.25) / (8.2143 + (16/7 - 1) * 0.25) = 0.93305
    unit = np.array([0, 0, 1, 1, 1, 2, 2])
    grade = np.array([1.0, 2, 3, 3, 3, 5, 6])
    msb = (2 * (1.5 - 23 / 7) ** 2 + 3 * (3 - 23 / 7) ** 2 + 2 * (5.5 - 23 / 7) ** 2) / 2
    assert icc1(unit, grade) == pytest.approx((msb - 0.25) / (msb + (16 / 7 - 1) * 0.25), abs=1e-12)
    assert round(icc1(unit, grade), 5) == 0.93305
    assert icc1(np.array([0, 0, 1, 1]), np.array([2.0, 2, 2, 2])) is None       # no variance at all


def test_wilson_against_its_closed_form_and_statsmodels():
    proportion = optional("statsmodels.stats.proportion")
    for k, n in ((0, 5), (3, 4), (7, 10), (10, 10)):
        low, high = wilson([k], [n], alpha=0.1)
        want = proportion.proportion_confint(k, n, alpha=0.1, method="wilson")
        assert (float(low[0]), float(high[0])) == pytest.approx(want, abs=1e-12)


def test_the_flip_rate_is_what_the_known_probabilities_make_it():
    """Every pair drawn 8 times from known probabilities: a flip is two independent majorities of 4 draws that
    differ (ties broken at random); its expectation per pair is computed exactly from the multinomial."""
    from itertools import product
    rng = np.random.default_rng(4)
    pairs, draws = 400, 8
    probs = rng.dirichlet(np.full(3, 0.6), pairs)

    def majority_law(p):      # law of the majority of 4 draws (ties uniform over the tied grades)
        law = np.zeros(3)
        for seq in product(range(3), repeat=4):
            c = np.bincount(seq, minlength=3)
            top = np.flatnonzero(c == c.max())
            law[top] += np.prod(p[list(seq)]) / len(top)
        return law

    expected = np.mean([1 - (majority_law(p) ** 2).sum() for p in probs])
    lines = "".join(f"q{p % 5} 0 d{p} {g}\n" for p in range(pairs) for g in rng.choice(3, draws, p=probs[p]))
    rates = [reliability([io.BytesIO(lines.encode())], seed=s)["flip_rate"] for s in range(5)]
    se = np.sqrt(expected * (1 - expected) / pairs)
    assert abs(np.mean(rates) - expected) < 3 * se, (rates, expected)
    got = reliability([io.BytesIO(lines.encode())], seed=0)
    assert got == reliability([io.BytesIO(lines.encode())], seed=0)            # seeded
    per_query = {r["query"]: r for r in got["per_query"]}
    assert sum(r["pairs"] for r in per_query.values()) == pairs
    flips = {}
    for p in got["per_pair"]:
        flips.setdefault(p["query"], []).append(p)
    assert set(flips) == set(per_query)


def test_each_pairs_interval_covers_its_true_probability_at_the_nominal_rate():
    """2000 pairs, each drawn 10 to 30 times, P(relevant) known: the share of 95% Wilson intervals holding it."""
    rng = np.random.default_rng(9)
    pairs = 2000
    p_true = rng.beta(0.7, 0.7, pairs)
    n = rng.integers(10, 31, pairs)
    lines = "".join(f"q{p // 20} 0 d{p} {int(r)}\n" for p in range(pairs) for r in rng.random(n[p]) < p_true[p])
    got = reliability([io.BytesIO(lines.encode())], rel=1)
    by_doc = {int(p["doc"][1:]): p for p in got["per_pair"]}
    covered = np.mean([by_doc[i]["interval"][0] <= p_true[i] <= by_doc[i]["interval"][1] for i in range(pairs)])
    assert 0.93 <= covered <= 0.97, covered
    # the flag: a pair whose interval straddles 1/2; those whose truth is far from 1/2 are rarely flagged
    far = np.abs(p_true - 0.5) > 0.35
    assert np.mean([by_doc[i]["unstable"] for i in np.flatnonzero(far)]) < 0.05
    assert all(p["unstable"] == (p["interval"][0] < 0.5 < p["interval"][1]) for p in got["per_pair"])


def test_the_command_and_its_fixed_json(cli, tmp_path):
    text, _, _, _ = _draws(1, pairs=20, low=2, high=5)
    a, b = tmp_path / "a.qrels", tmp_path / "b.jsonl"
    lines = text.splitlines()
    a.write_text("\n".join(lines[:40]) + "\n")
    b.write_text("".join(json.dumps({"query": x.split()[0], "doc": x.split()[2], "grade": int(x.split()[3])}) + "\n"
                         for x in lines[40:]))
    done = cli("judges", "reliability", a, b, "--rel", "2", "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert {"pairs", "draws", "alpha_ordinal", "alpha_nominal", "icc", "flip_rate", "per_pair"} <= set(data)
    assert set(data["draws"]) == {"min", "max"}
    assert {"query", "doc", "draws", "p_relevant", "interval", "unstable"} <= set(data["per_pair"][0])
    pooled = reliability([io.BytesIO(text.encode())], rel=2)
    assert data["alpha_ordinal"] == pytest.approx(pooled["alpha_ordinal"], abs=1e-12)   # two files pool their draws
    assert data["icc"] == pytest.approx(pooled["icc"], abs=1e-12)
    shown = cli("judges", "reliability", a, b, "--rel", "2")
    assert shown.code == 0 and "krippendorff_alpha (ordinal)" in shown.out and "icc" in shown.out


def test_a_file_without_repeated_draws_or_with_probabilities_is_refused(cli, tmp_path):
    once = tmp_path / "once.qrels"
    once.write_text("q 0 a 1\nq 0 b 2\n")
    done = cli("judges", "reliability", once)
    assert done.code == 2 and "two draws or more" in done.err and "Traceback" not in done.err
    probs = tmp_path / "p.jsonl"
    probs.write_text('{"query": "q", "doc": "a", "probabilities": {"0": 0.5, "1": 0.5}}\n')
    with pytest.raises(InputError, match="probabilities per grade"):
        reliability([probs])
