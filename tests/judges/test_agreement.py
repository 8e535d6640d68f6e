"""rankmeter.judges.judge_agreement against scikit-learn, the krippendorff package and UMBRELA's own evaluation."""
from __future__ import annotations

import json
from pathlib import Path

from optional_packages import optional  # noqa: E402

krippendorff = optional("krippendorff")
import numpy as np
import pytest
sklearn_metrics = optional("sklearn.metrics")

from rankmeter.judges.judge_agreement import agreement, agreement_text
from rankmeter.errors import InputError, ParameterError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "llm_judges"


def _random_judges(seed: int):
    rng = np.random.default_rng(seed)
    grades = [[0, 1, 2, 3], [0, 1, 2], [0, 1, 3], [1, 2, 4]][seed % 4]
    human, llm = {}, {}
    for q in range(int(rng.integers(1, 7))):
        docs = {f"d{d}": int(rng.choice(grades)) for d in range(int(rng.integers(1, 25)))}
        human[f"q{q}"] = docs
        llm[f"q{q}"] = {d: (g if rng.random() < 0.5 else int(rng.choice(grades))) for d, g in docs.items()
                        if rng.random() < 0.9}
        llm[f"q{q}"].update({f"x{d}": int(rng.choice(grades)) for d in range(int(rng.integers(0, 4)))})
    llm = {q: docs for q, docs in llm.items() if docs}
    return human, llm


def _sklearn(x, y, **kwargs):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = sklearn_metrics.cohen_kappa_score(x, y, **kwargs)
    return None if np.isnan(value) else float(value)


def _alpha(x, y):
    try:
        return float(krippendorff.alpha(np.array([x, y], dtype=float), level_of_measurement="ordinal"))
    except ValueError:  # one value only
        return None


def _close(got, want):
    return (got is None and want is None) or (got is not None and want is not None and abs(got - want) <= 1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_every_figure_equals_sklearn_and_krippendorff_overall_and_per_query(seed):
    human, llm = _random_judges(seed)
    rel = [1, 2][seed % 2]
    got = agreement(human, llm, rel=rel)
    common = [(q, d) for q in human for d in human[q] if d in llm.get(q, {})]
    x, y = [human[q][d] for q, d in common], [llm[q][d] for q, d in common]
    grades = sorted(set(x) | set(y))
    assert got["pairs"] == len(common)
    assert got["only_a"] == sum(len(docs) for docs in human.values()) - len(common)
    assert got["only_b"] == sum(len(docs) for docs in llm.values()) - len(common)
    assert _close(got["cohen_kappa"], _sklearn(x, y))
    assert _close(got["cohen_kappa_binary"], _sklearn([g >= rel for g in x], [g >= rel for g in y]))
    assert _close(got["quadratic_kappa"], _sklearn(x, y, weights="quadratic"))
    assert _close(got["krippendorff_alpha"], _alpha(x, y))
    assert got["confusion"] == {"grades": grades, "counts": sklearn_metrics.confusion_matrix(x, y, labels=grades).tolist()}
    for row in got["per_query"]:
        pairs = [(h, llm[row["query"]][d]) for d, h in human.get(row["query"], {}).items()
                 if d in llm.get(row["query"], {})]
        assert row["pairs"] == len(pairs)
        if not pairs:
            assert all(row[k] is None for k in ("cohen_kappa", "quadratic_kappa", "krippendorff_alpha"))
            continue
        qx, qy = [h for h, _ in pairs], [g for _, g in pairs]
        assert row["confusion"] == sklearn_metrics.confusion_matrix(qx, qy, labels=grades).tolist()
        assert _close(row["cohen_kappa"], _sklearn(qx, qy))
        assert _close(row["cohen_kappa_binary"], _sklearn([g >= rel for g in qx], [g >= rel for g in qy]))
        # per query the weights keep the grade scale of the whole set (sklearn: labels= every grade seen)
        assert _close(row["quadratic_kappa"], _sklearn(qx, qy, weights="quadratic", labels=grades))
        assert _close(row["krippendorff_alpha"], _alpha(qx, qy))


def test_umbrela_fixtures_cover_its_sample_and_random_cases():
    cases = json.loads((FIXTURES / "umbrela.json").read_text())["cases"]
    assert len(cases) == 14 and cases[0]["name"] == "umbrela sample.qrels"


@pytest.mark.parametrize("case", json.loads((FIXTURES / "umbrela.json").read_text())["cases"], ids=lambda c: c["name"])
def test_equal_umbrela_evaluation(case, tmp_path):
    """UMBRELA (castorini/umbrela e2c4e41) evaluate_judge_results, run by tools/regen_llm_judge_fixtures.py:
    its kappa, its binarised kappa (grade > 1, i.e. rel=2) and its confusion matrix, LLM label = the mode."""
    human, llm = tmp_path / "human.qrels", tmp_path / "llm.qrels"
    human.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in case["human"]))
    llm.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in case["mode"]))
    got = agreement(str(human), str(llm), rel=2)
    assert got["pairs"] == len(case["human"]) and got["only_a"] == got["only_b"] == 0
    assert got["cohen_kappa"] == pytest.approx(case["cohen_kappa"], abs=1e-12)
    assert got["cohen_kappa_binary"] == pytest.approx(case["cohen_kappa_binary_rel2"], abs=1e-12)
    assert got["confusion"] == {"grades": case["confusion_labels"], "counts": case["confusion"]}


def test_undefined_figures_say_why():
    got = agreement({"q": {"a": 2, "b": 2}}, {"q": {"a": 2, "b": 2}}, rel=1)
    assert got["cohen_kappa"] is None and got["krippendorff_alpha"] is None and got["cohen_kappa_binary"] is None
    assert "agreement by chance is total" in got["undefined"]["cohen_kappa"]
    assert "rel=1" in got["undefined"]["cohen_kappa_binary"]
    assert got["jaccard"] == 1.0
    text = agreement_text(got)
    assert "Cohen's kappa" in text and "undefined" in text and "2 pairs judged by both" in text


def test_real_grades_need_bins_and_rel_reaches_every_binary_figure():
    human = {"q": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 1}}
    llm = {"q": {"a": 0.2, "b": 1.4, "c": 1.6, "d": 2.9, "e": 0.4}}
    with pytest.raises(ParameterError, match="bins"):
        agreement(human, llm)
    got = agreement(human, llm, bins=[0.5, 1.5, 2.5], rel=1.5)
    # a grade's category is the number of edges it reaches: 0.2 1.4 1.6 2.9 0.4 -> 0 1 2 3 0
    assert got["cohen_kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score([0, 1, 2, 3, 1], [0, 1, 2, 3, 0]), abs=1e-12)
    # binary figures use the grades as they are, against rel
    x, y = [0, 1, 2, 3, 1], [0.2, 1.4, 1.6, 2.9, 0.4]
    assert got["cohen_kappa_binary"] == pytest.approx(sklearn_metrics.cohen_kappa_score([g >= 1.5 for g in x], [g >= 1.5 for g in y]))
    assert got["jaccard"] == pytest.approx(1.0)


def test_a_pair_judged_twice_is_refused(tmp_path):
    path = tmp_path / "llm.qrels"
    path.write_text("q 0 a 1\nq 0 a 2\n")
    with pytest.raises(InputError, match="judges aggregate"):
        agreement({"q": {"a": 1}}, str(path))
    with pytest.raises(ParameterError, match="no \\(query, doc\\) pair in common"):
        agreement({"q": {"a": 1}}, {"q": {"b": 1}})
