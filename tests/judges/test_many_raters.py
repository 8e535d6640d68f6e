"""Agreement of three judges or more, and of an LLM's sampled labels: Fleiss' kappa against statsmodels,
Krippendorff's alpha (nominal, ordinal, interval, missing ratings) against the krippendorff package."""
from __future__ import annotations

import json

import numpy as np
import pytest
from optional_packages import optional  # noqa: E402

krippendorff = optional("krippendorff")
inter_rater = optional("statsmodels.stats.inter_rater")

from rankmeter.judges.many_raters import many_rater_agreement  # noqa: E402
from rankmeter.errors import ParameterError  # noqa: E402


def _judges(seed: int, raters: int, units: int, grades: int, missing: float):
    """``raters`` qrels dicts over ``units`` pairs, correlated grades, some ratings missing; and the
    raters x units reliability matrix (NaN where missing) in the oracle's form."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, grades, units)
    data = np.full((raters, units), np.nan)
    judges = []
    for r in range(raters):
        noisy = np.clip(truth + rng.integers(-1, 2, units) * (rng.random(units) < 0.4), 0, grades - 1)
        keep = rng.random(units) >= missing
        judge: dict = {}
        for u in np.flatnonzero(keep):
            judge.setdefault(f"q{u % 7}", {})[f"d{u}"] = int(noisy[u])
            data[r, u] = noisy[u]
        judges.append(judge)
    return judges, data


@pytest.mark.parametrize("seed", range(12))
def test_krippendorff_alpha_at_every_level_equals_the_krippendorff_package(seed):
    raters = 3 + seed % 4
    judges, data = _judges(seed, raters, units=40 + 7 * seed, grades=2 + seed % 4, missing=0.25 * (seed % 3 > 0))
    got = many_rater_agreement(judges)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    assert got["raters"] == raters and got["units"] == int(pairable.sum())
    for level in ("nominal", "ordinal", "interval"):
        want = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert got["krippendorff_alpha"][level] == pytest.approx(want, abs=1e-12), level
    binary = np.where(np.isnan(data), np.nan, (data >= 1).astype(float))
    want = krippendorff.alpha(reliability_data=binary, level_of_measurement="nominal")
    assert got["krippendorff_alpha_binary"] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_fleiss_kappa_equals_statsmodels_on_the_pairs_every_judge_rated(seed):
    judges, data = _judges(100 + seed, 3 + seed % 3, units=60, grades=3 + seed % 2, missing=0.1 * (seed % 2))
    full = data[:, ~np.isnan(data).any(axis=0)].T.astype(int)
    table, _ = inter_rater.aggregate_raters(full)
    got = many_rater_agreement(judges)
    assert got["fleiss_units"] == len(full)
    assert got["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table, method="fleiss"), abs=1e-12)
    binary, _ = inter_rater.aggregate_raters((full >= 1).astype(int))
    assert got["fleiss_kappa_binary"] == pytest.approx(inter_rater.fleiss_kappa(binary, method="fleiss"), abs=1e-12)


def test_sampled_labels_are_ratings_of_one_pair(tmp_path):
    """An LLM asked three times per pair: each sample is a rating (exchangeable raters)."""
    samples = tmp_path / "samples.qrels"
    labels = {("q1", "a"): [2, 2, 2], ("q1", "b"): [0, 1, 0], ("q2", "a"): [1, 1, 3], ("q2", "c"): [0, 0, 0]}
    samples.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), gs in labels.items() for g in gs))
    got = many_rater_agreement(sampled=samples)
    data = np.array(list(labels.values()), dtype=float).T   # samples x pairs
    assert got["raters"] == 3 and got["units"] == 4 and got["ratings"] == 12
    assert got["krippendorff_alpha"]["ordinal"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"), abs=1e-12)
    table, _ = inter_rater.aggregate_raters(data.T.astype(int))
    assert got["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)


def test_hand_worked_fleiss_kappa():
    """Three pairs rated by three judges: (0,0,0), (1,1,2), (2,2,2) -> P_i = 1, 1/3, 1; P = 7/9;
    shares 3/9, 2/9, 4/9 -> P_e = 29/81; kappa = (7/9 - 29/81) / (1 - 29/81) = 34/52."""
    a = {"q": {"x": 0, "y": 1, "z": 2}}
    b = {"q": {"x": 0, "y": 1, "z": 2}}
    c = {"q": {"x": 0, "y": 2, "z": 2}}
    assert many_rater_agreement([a, b, c])["fleiss_kappa"] == pytest.approx(34 / 52)


def test_all_the_same_grade_is_undefined_not_a_number():
    same = {"q": {"x": 1, "y": 1}}
    got = many_rater_agreement([same, same, same])
    assert got["fleiss_kappa"] is None and got["krippendorff_alpha"]["nominal"] is None
    assert "fleiss_kappa" in got["undefined"]


def test_refusals():
    with pytest.raises(ParameterError, match="two judges or more"):
        many_rater_agreement([{"q": {"x": 1}}])
    with pytest.raises(ParameterError, match="share no pair"):
        many_rater_agreement([{"q": {"x": 1}}, {"q": {"y": 1}}, {"q": {"z": 0}}])


def test_command_line_three_judges_and_labels(cli, tmp_path):
    files = []
    for i, grades in enumerate([(0, 1, 2, 2), (0, 1, 2, 1), (0, 2, 2, 0)]):
        path = tmp_path / f"j{i}.qrels"
        path.write_text("".join(f"q1 0 d{k} {g}\n" for k, g in enumerate(grades)))
        files.append(str(path))
    done = cli("agree", *files, "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    matrix = np.array([[0, 1, 2, 2], [0, 1, 2, 1], [0, 2, 2, 0]], dtype=float)
    assert data["krippendorff_alpha"]["interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval"), abs=1e-12)
    text = cli("agree", *files).out
    assert "fleiss_kappa" in text and text.endswith("\n")
    one = cli("agree", files[0])
    assert one.code == 2 and "two judges or more" in one.err


@pytest.mark.parametrize("bins", ["nan", "inf", "0.5,nan", "a,b", "1,0.5", ","])
def test_bins_that_are_not_increasing_finite_edges_are_refused_in_one_line(cli, tmp_path, bins):
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("q 0 x 0.3\nq 0 y 1.7\n")
    b.write_text("q 0 x 0.6\nq 0 y 2.2\n")
    done = cli("agree", str(a), str(b), f"--bins={bins}")
    errors = [line for line in done.err.splitlines() if line.startswith("rankmeter: error")]
    assert done.code == 2 and len(errors) == 1 and "--bins" in errors[0], done.err
    assert cli("agree", str(a), str(b), "--bins", "0.5,1.5,2.5").code == 0
