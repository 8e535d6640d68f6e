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

from rankmeter.recsys.beyond import beyond_accuracy

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pe = optional("recommenders.evaluation.python_evaluation")
pd = optional("pandas")


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


# ---------------------------------------------------------------- RecBole's definitions (recbole/evaluator/metrics.py)

_TRAIN = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["b", "c", "d"]}   # popularity a 2, b 2, c 2, d 1
_RECS = {"u1": ["c", "d"], "u2": ["b", "d"], "u3": ["a"]}               # listed a 1, b 1, c 1, d 2 (5 in all)


def test_recbole_item_coverage_gini_and_entropy_by_hand():
    got = beyond_accuracy(_TRAIN, _RECS, catalog=10, entropy="recbole").overall
    # ItemCoverage: distinct recommended items / num_items = 4 / 10
    assert got["catalog_coverage"] == pytest.approx(0.4)
    # GiniIndex: counts sorted 1 1 1 2 at positions 7..10 of 10 items:
    # ((2*7-11)*1 + (2*8-11)*1 + (2*9-11)*1 + (2*10-11)*2) / 5 / 10 = 33 / 50
    assert got["gini_index"] == pytest.approx(0.66)
    # ShannonEntropy: -(3 * 0.2 ln 0.2 + 0.4 ln 0.4) / 4 distinct items
    assert got["distributional_coverage"] == pytest.approx(
        -(3 * 0.2 * math.log(0.2) + 0.4 * math.log(0.4)) / 4, rel=1e-12)
    # a catalogue given as items: the same count once train's and the lists' items are among them
    assert beyond_accuracy(_TRAIN, _RECS, catalog=list("abcdefghij")).overall["catalog_coverage"] == 0.4
    plain = beyond_accuracy(_TRAIN, _RECS).overall
    assert plain["catalog_coverage"] == 1.0  # Recommenders: over the 4 training items
    assert plain["distributional_coverage"] == pytest.approx(-(3 * 0.2 * math.log2(0.2) + 0.4 * math.log2(0.4)))


def test_recbole_tail_percentage_by_hand():
    # tail_ratio 0.25: the max(int(4 * 0.25), 1) = 1 least popular item by (count, id): d
    got = beyond_accuracy(_TRAIN, _RECS, tail_ratio=0.25).per_user
    assert got["aplt"] == {"u1": 0.5, "u2": 0.5, "u3": 0.0}
    assert got["aclt"] == {"u1": 1.0, "u2": 1.0, "u3": 0.0}
    # a ratio above 1 is a count: items with at most 2 interactions are all four
    assert beyond_accuracy(_TRAIN, _RECS, tail_ratio=2).per_user["aplt"] == {"u1": 1.0, "u2": 1.0, "u3": 1.0}
    from rankmeter.errors import ParameterError
    with pytest.raises(ParameterError, match="tail_ratio"):
        beyond_accuracy(_TRAIN, _RECS, tail_ratio=0)
    with pytest.raises(ParameterError, match="catalog"):
        beyond_accuracy(_TRAIN, _RECS, catalog=2)


def test_compare_beyond_tests_over_users():
    """Per-user values are beyond_accuracy's; the paired t-test is scipy's over the users both systems list."""
    from scipy import stats

    from rankmeter.recsys.beyond import compare_beyond
    rng = np.random.default_rng(3)
    items = [f"i{j}" for j in range(40)]
    train = {f"u{u}": list(rng.choice(items, size=int(rng.integers(1, 8)), replace=False)) for u in range(60)}
    systems = {name: {u: list(rng.choice(items[:hi], size=5, replace=False)) for u in train if rng.random() < 0.9}
                      for name, hi in (("A", 40), ("B", 15))}
    c = compare_beyond(train, systems, ["novelty", "diversity", "arp"], k=5, baseline="A", correction="holm")
    for m in ("novelty", "diversity", "arp"):
        a = beyond_accuracy(train, systems["A"], k=5).per_user[m]
        b = beyond_accuracy(train, systems["B"], k=5).per_user[m]
        common = [u for u in a if u in b and not (math.isnan(a[u]) or math.isnan(b[u]))]
        row = c.table.set_index("system").loc[[s == "B" for s in c.table.system] & (c.table.measure == m).values]
        want = stats.ttest_rel([b[u] for u in common], [a[u] for u in common])
        assert int(row["queries"].iloc[0]) == len(common)
        assert float(row["p_value"].iloc[0]) == pytest.approx(want.pvalue, rel=1e-9)
        assert float(row["delta"].iloc[0]) == pytest.approx(np.mean([b[u] - a[u] for u in common]), rel=1e-12)
    from rankmeter.errors import ParameterError
    with pytest.raises(ParameterError, match="expected some of .novelty."):
        compare_beyond(train, systems, "gini_index")


def test_cli_prints_values_and_the_comparison(tmp_path, cli):
    import json
    (tmp_path / "train.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, items in _TRAIN.items()
                                                                  for i in items))
    (tmp_path / "mine.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, items in _RECS.items()
                                                                 for i in items))
    other = {"u1": ["a", "b"], "u2": ["a", "b"], "u3": ["a", "b"]}
    (tmp_path / "pop.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, items in other.items()
                                                                for i in items))
    done = cli("beyond", tmp_path / "train.csv", tmp_path / "mine.csv", tmp_path / "pop.csv", "-m", "arp",
               "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["table"]
    arp = {r["system"]: r["mean"] for r in rows if r["measure"] == "arp"}
    # mine: u1 (2 + 1) / 2, u2 (2 + 1) / 2, u3 2 -> 5/3; pop: every list a, b -> 2 (named by file, as
    # every command names runs)
    assert arp == {"mine.csv": pytest.approx(5 / 3), "pop.csv": pytest.approx(2.0)}
    bad = cli("beyond", str(tmp_path / "nope.csv"), str(tmp_path / "pop.csv"))
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr


def test_frictions_coverage_within_one_lower_bias_is_better_and_columns_align(tmp_path, cli):
    from rankmeter.recsys.beyond import beyond_accuracy, compare_beyond
    train = {"u1": ["i1", "i2"], "u2": ["i2", "i3"], "u3": ["i4"]}
    recs = {"u1": ["i3", "i4"], "u2": ["i1", "i5"], "u3": ["i6"]}  # i5, i6: never seen in training
    got = beyond_accuracy(train, recs).overall
    assert got["catalog_coverage"] == 3 / 4 and got["items_outside_catalog"] == 2  # i1, i3, i4 of i1..i4
    # recA recommends less popular items than recB every time: lower ARP, and that is the better value
    popular = {"u1": ["i2"], "u2": ["i2"], "u3": ["i2"]}
    rare = {"u1": ["i4"], "u2": ["i4"], "u3": ["i3"]}
    train = {f"t{i}": ["i2", "i2b", "i3" if i < 2 else "i4"] for i in range(6)}
    cmp = compare_beyond(train, {"rare": rare, "popular": popular}, ["arp"], test="randomization",
                         permutations=200)
    assert cmp.mean("arp", "rare") < cmp.mean("arp", "popular")
    assert cmp.beats("arp", "popular") == [] and "arp" in cmp.lower_is_better
    for name, rows in (("train", train), ("a", recs), ("b", popular)):
        (tmp_path / f"{name}.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, items in rows.items()
                                                                    for i in items))
    out = cli("beyond", tmp_path / "train.csv", tmp_path / "a.csv", tmp_path / "b.csv", "--permutations", "50").stdout
    head, first = out.splitlines()[:2]
    for column in ("arp", "aclt", "serendipity"):  # each value ends where its heading ends
        end = head.index(column) + len(column)
        assert first[end - 1] != " " and (len(first) == end or first[end] == " "), (column, head, first)


def test_item_features_keyed_by_integer_ids():
    from rankmeter.recsys.beyond import beyond_accuracy
    train, recs = {1: [10, 11], 2: [11, 12]}, {1: [12, 13], 2: [10, 11]}
    feats = {10: [1.0, 0.0], 11: [0.0, 1.0], 12: [1.0, 1.0], 13: [0.5, 0.5]}
    by_int = beyond_accuracy(train, recs, item_features=feats).overall
    as_text = beyond_accuracy({str(u): [str(i) for i in v] for u, v in train.items()},
                              {str(u): [str(i) for i in v] for u, v in recs.items()},
                              item_features={str(k): v for k, v in feats.items()}).overall
    # user 1: 12, 13 are parallel (cosine 1): diversity 0; user 2: 10, 11 orthogonal: diversity 1
    assert by_int["diversity"] == as_text["diversity"] == pytest.approx(0.5)


def test_measures_without_similarity_need_no_scipy(monkeypatch):
    import sys

    from rankmeter.recsys.beyond import compare_beyond
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if scipy were not installed
    train = {"u1": ["a", "b"], "u2": ["b", "c"], "u3": ["c"]}
    recs = {"x": {"u1": ["c"], "u2": ["a"], "u3": ["a", "b"]}, "y": {"u1": ["b"], "u2": ["c"], "u3": ["b"]}}
    cmp = compare_beyond(train, recs, ["novelty", "aplt"], test="randomization", permutations=50)
    assert cmp.systems == ["x", "y"]
    with pytest.raises(ImportError, match=r"needs scipy: pip install scipy"):
        compare_beyond(train, recs, ["diversity"], test="randomization", permutations=50)
