"""Beyond-accuracy measures against Microsoft Recommenders' python_evaluation and hand-worked values.

Recommenders 1.2.0 fills a missing item-pair similarity with ``fillna(0, inplace=True)`` on a column, which
pandas 3 (copy-on-write) turns into a no-op, so its own user_diversity/user_serendipity then skip those pairs.
The oracle below takes its similarity table and applies its documented rule (missing = 0); the
feature-vector similarity, where no pair is missing, is compared with its functions directly.
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from rankmeter.beyond import beyond_accuracy

pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
pd = pytest.importorskip("pandas")


def _case(seed):
    rng = np.random.default_rng(seed)
    users = [f"u{i}" for i in range(30)]
    items = [f"i{j}" for j in range(40)]
    train = {u: [str(x) for x in rng.choice(items, int(rng.integers(1, 12)), replace=False)] for u in users}
    recs = {}
    for u in users[:25]:
        pool = [i for i in items if i not in train[u]]
        recs[u] = [str(x) for x in rng.choice(pool, int(rng.integers(1, 8)), replace=False)]
    tdf = pd.DataFrame([(u, i) for u, l in train.items() for i in l], columns=["userID", "itemID"])
    rdf = pd.DataFrame([(u, i) for u, l in recs.items() for i in l], columns=["userID", "itemID"])
    return train, recs, tdf, rdf, items, rng


@pytest.mark.parametrize("seed", range(3))
def test_coverage_and_novelty_equal_recommenders(seed):
    train, recs, tdf, rdf, _, _ = _case(seed)
    got = beyond_accuracy(train, recs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert got.overall["catalog_coverage"] == pytest.approx(pe.catalog_coverage(tdf, rdf), rel=1e-12)
        novelty = pe.historical_item_novelty(tdf, rdf).set_index("itemID")["item_novelty"]
    assert got.overall["novelty"] == pytest.approx(sum(novelty.get(i, 0.0) for i in rdf.itemID) / len(rdf))
    counts = rdf.itemID.value_counts() / len(rdf)
    assert got.overall["distributional_coverage"] == pytest.approx(-(counts * np.log2(counts)).sum())


@pytest.mark.parametrize("seed", range(3))
def test_diversity_and_serendipity_on_recommenders_similarity(seed):
    train, recs, tdf, _, _, _ = _case(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pe._get_cooccurrence_similarity(tdf, "userID", "itemID", "sim")
    sim = {(a, b): s for a, b, s in zip(table.i1, table.i2, table.sim)}

    def s(a, b):
        return sim.get((min(a, b), max(a, b)), 0.0)  # Recommenders' rule: a pair never seen has 0
    got = beyond_accuracy(train, recs)
    for u, listed in recs.items():
        pairs = [s(a, b) for a, b in itertools.combinations(listed, 2)]
        want = 1 - np.mean(pairs) if pairs else math.nan
        assert got.per_user["diversity"][u] == pytest.approx(want, nan_ok=True), u
        ser = np.mean([1 - np.mean([s(i, j) for j in train[u]]) for i in listed])
        assert got.per_user["serendipity"][u] == pytest.approx(ser), u


@pytest.mark.parametrize("seed", range(2))
def test_feature_diversity_equals_recommenders(seed):
    train, recs, tdf, rdf, items, rng = _case(seed)
    features = {i: rng.random(5) for i in items}
    fdf = pd.DataFrame({"itemID": list(features), "features": list(features.values())})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pe.user_diversity(tdf, rdf, item_feature_df=fdf, item_sim_measure="item_feature_vector")
    got = beyond_accuracy(train, recs, item_features=features).per_user["diversity"]
    for u, value in zip(want.userID, want.user_diversity):
        assert got[u] == pytest.approx(value, abs=1e-12)


def test_popularity_measures_by_hand():
    # popularity: a 3, b 2, c 1, d 1 (7 interactions); head = top 25% of 4 items = {a}
    train = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["a", "b", "d"]}
    recs = {"u1": ["c", "d"], "u2": ["b", "d"], "u3": ["c"]}
    got = beyond_accuracy(train, recs, head=0.25)
    assert got.per_user["arp"] == {"u1": 1.0, "u2": 1.5, "u3": 1.0}
    assert got.per_user["aplt"] == {"u1": 1.0, "u2": 1.0, "u3": 1.0}
    assert got.per_user["aclt"] == {"u1": 2.0, "u2": 2.0, "u3": 1.0}
    # u1's profile ARP (3 + 2) / 2 = 2.5 -> (1 - 2.5) / 2.5
    assert got.per_user["popularity_lift"]["u1"] == pytest.approx((1.0 - 2.5) / 2.5)
    # recommended counts over the 4 items: a 0, b 1, c 2, d 2 -> sorted 0 1 2 2, n 4, total 5
    gini = sum((2 * i - 4 - 1) * c for i, c in enumerate([0, 1, 2, 2], 1)) / (4 * 5)
    assert got.overall["gini_index"] == pytest.approx(gini)
    assert got.overall["arp"] == pytest.approx((1.0 + 1.5 + 1.0) / 3)


def test_k_cuts_lists_and_inputs_are_checked():
    from rankmeter.errors import InputError, ParameterError
    train = {"u1": ["a"], "u2": ["b"]}
    got = beyond_accuracy(train, {"u1": ["b", "c", "d"]}, k=1)
    assert got.per_user["aclt"]["u1"] == 1.0 and got.overall["catalog_coverage"] == 0.5
    with pytest.raises(ParameterError, match="head"):
        beyond_accuracy(train, {"u1": ["b"]}, head=1.5)
    with pytest.raises(InputError):
        beyond_accuracy(train, 42)
