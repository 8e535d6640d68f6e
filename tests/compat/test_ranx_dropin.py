"""``rankmeter.compat.ranx`` against ranx 0.3.21 itself, side by side on random untied scores.

ranx breaks ties in an arbitrary order (numba's quicksort), so inputs have distinct scores; where a
*fused* run ties (Borda points, weights of 0), trials are compared only when the tie cannot matter.
Tolerances: metric values 1e-12; t-test p-values 1e-12; Tukey (scipy in both) 1e-12; Fisher's
randomization test within Monte Carlo error (5 standard errors plus 2/B: different random draws,
and rankmeter's p is (count + 1) / (B + 1) where ranx's is count / B).
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
from optional_packages import optional  # noqa: E402

pd = optional("pandas")
import pytest
ranx = optional("ranx")

import rankmeter
import rankmeter.compat.ranx as ours
from rankmeter import InputError

warnings.filterwarnings("ignore", category=Warning, module="numba")

METRICS = [
    "hits", "hits@5", "hits@10-l2", "hit_rate", "hit_rate@5", "hit_rate@3-l2", "precision", "precision@5",
    "precision@30", "precision@5-l3", "recall", "recall@10", "recall@10-l2", "f1", "f1@10", "f1@5-l2",
    "r-precision", "r-precision-l2", "mrr", "mrr@5", "mrr-l2", "map", "map@10", "map@1000", "map-l2", "dcg",
    "dcg@10", "dcg@5-l3", "dcg_burges", "dcg_burges@10", "dcg_burges@10-l2", "ndcg", "ndcg@10", "ndcg@20",
    "ndcg@10-l2", "ndcg_burges", "ndcg_burges@10", "ndcg_burges@5-l2", "bpref", "bpref-l2", "rbp.8", "rbp.95",
    "rbp.5-l2",
]


def _case(seed: int, negative: bool = False, queries: int = 12):
    """Graded qrels (some negative grades), untied scores, some short runs, a query with nothing relevant."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1 if negative else 0, 4)) for d in rng.choice(40, 12, replace=False)}
             for q in range(queries)}
    qrels["q3"] = {d: 0 for d in qrels["q3"]}
    run = {}
    for q in range(queries):
        n = int(rng.integers(1, 6)) if q % 4 == 0 else 25
        scores = rng.permutation(10_000)[:n] / 7.0
        run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(rng.choice(40, n, replace=False), scores)}
    return qrels, run


def _no_judged_nonrelevant(qrels: dict, level: int) -> set[str]:
    return {q for q, docs in qrels.items() if all(g >= level for g in docs.values())}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("negative", [False, True], ids=["grades", "negative-grades"])
def test_every_metric_name_matches_ranx_per_query(seed, negative):
    qrels, run = _case(seed, negative)
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS, return_mean=False)
    got = ours.evaluate(ours.Qrels(qrels), ours.Run(run), METRICS, return_mean=False)
    queries = sorted(qrels)
    for metric in METRICS:
        w, g = np.asarray(want[metric]), np.asarray(got[metric])
        assert g.shape == w.shape, metric
        if metric.startswith("bpref"):  # ranx: 0/0 = NaN without a judged non-relevant doc; trec_eval's value here
            level = int(metric.partition("-l")[2] or 1)
            odd = np.array([q in _no_judged_nonrelevant(qrels, level) for q in queries])
            assert np.isnan(w[odd & (np.asarray([len(run[q]) for q in queries]) > 0)]).all()
            trec = rankmeter.evaluate({q: {d: max(v, 0) for d, v in docs.items()} for q, docs in qrels.items()},
                                      run, [f"Bpref(rel={level})"], queries="qrels")
            by_query = dict(zip(trec.queries, trec.values(f"Bpref(rel={level})")))
            assert g[odd] == pytest.approx([by_query[q] for q in np.asarray(queries)[odd]], abs=1e-12)
            w, g = w[~odd], g[~odd]
        assert g == pytest.approx(w, abs=1e-12), metric


def test_means_std_single_metric_and_scores_saved_in_the_run():
    qrels, run = _case(11)
    theirs, mine = ranx.Run(run, name="r"), ours.Run(run, name="r")
    metrics = ["ndcg@10", "map@100", "mrr", "precision@5", "recall@100"]
    want = ranx.evaluate(ranx.Qrels(qrels), theirs, metrics, return_std=True)
    got = ours.evaluate(ours.Qrels(qrels), mine, metrics, return_std=True)
    for m in metrics:
        assert got[m]["mean"] == pytest.approx(want[m]["mean"], abs=1e-12)
        assert got[m]["std"] == pytest.approx(want[m]["std"], abs=1e-12)
        assert mine.mean_scores[m] == pytest.approx(theirs.mean_scores[m], abs=1e-12)
        assert mine.std_scores[m] == pytest.approx(theirs.std_scores[m], abs=1e-12)
        assert set(mine.scores[m]) == set(theirs.scores[m])
        assert [mine.scores[m][q] for q in sorted(qrels)] == \
            pytest.approx([theirs.scores[m][q] for q in sorted(qrels)], abs=1e-12)
    one = ours.evaluate(qrels, run, "ndcg@5")
    assert isinstance(one, float) and one == pytest.approx(ranx.evaluate(qrels, run, "ndcg@5"), abs=1e-12)


def test_make_comparable_and_mismatched_queries():
    qrels, run = _case(12)
    partial = {q: docs for q, docs in run.items() if q not in ("q1", "q5")} | {"extra": {"d1": 1.0}}
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(partial), ["ndcg@10", "map"], make_comparable=True)
    mine = ours.Run(partial)
    got = ours.evaluate(ours.Qrels(qrels), mine, ["ndcg@10", "map"], make_comparable=True)
    assert got == pytest.approx(want, abs=1e-12)
    theirs = ranx.Run(partial)
    ranx.evaluate(ranx.Qrels(qrels), theirs, "map", make_comparable=True)
    # the run passed is changed as ranx changes it: the qrels' missing queries added, the extra one dropped
    assert "extra" not in mine.keys() and "q1" in mine.keys() and set(mine.keys()) == set(theirs.keys())
    with pytest.raises(InputError, match="make_comparable=True"):
        ours.evaluate(ours.Qrels(qrels), ours.Run(partial), "map")


def test_qrels_and_run_files_read_and_write_as_ranx_does(tmp_path):
    qrels, run = _case(13)
    for cls_ours, cls_theirs, data, exts in ((ours.Qrels, ranx.Qrels, qrels, ("txt", "json", "parquet")),
                                             (ours.Run, ranx.Run, run, ("txt", "json", "parquet"))):
        is_run = cls_ours is ours.Run
        mine = cls_ours(data, name="tag") if is_run else cls_ours(data)
        theirs = cls_theirs(data, name="tag") if is_run else cls_theirs(data)
        assert mine.to_dict() == {q: dict(d) for q, d in theirs.to_dict().items()}
        assert list(mine.keys()) == list(theirs.keys()) and len(mine) == len(theirs)
        assert [list(mine[q]) for q in mine.keys()] == [list(theirs[q]) for q in theirs.keys()]
        pd.testing.assert_frame_equal(mine.to_dataframe(), theirs.to_dataframe())
        for ext in exts:
            mine.save(str(tmp_path / f"ours-{cls_ours.__name__}.{ext}"))
            theirs.save(str(tmp_path / f"theirs-{cls_ours.__name__}.{ext}"))
            if ext == "txt":
                assert (tmp_path / f"ours-{cls_ours.__name__}.{ext}").read_text() == (tmp_path / f"theirs-{cls_ours.__name__}.{ext}").read_text()
            # ranx's from_file reads no parquet, and its from_parquet refuses pandas 3's string columns
            readers = (cls_ours.from_parquet,) if ext == "parquet" else (cls_ours.from_file, cls_theirs.from_file)
            if ext == "parquet":
                assert cls_ours.from_file(str(tmp_path / f"theirs-{cls_ours.__name__}.parquet")).to_dict() == mine.to_dict()
            for reader in readers:  # each reads the other's file
                for who in ("ours", "theirs"):
                    back = reader(str(tmp_path / f"{who}-{cls_ours.__name__}.{ext}"))
                    assert {q: dict(d) for q, d in back.to_dict().items()} == mine.to_dict()
        frame = theirs.to_dataframe()
        again = cls_ours.from_df(frame, name="x") if is_run else cls_ours.from_df(frame)
        assert again.to_dict() == mine.to_dict()
    gz = tmp_path / "run.gz"
    import gzip
    with gzip.open(gz, "wt") as f:
        f.write((tmp_path / "ours-Run.txt").read_text())
    assert ours.Run.from_file(str(gz)).to_dict() == ours.Run(run).to_dict()
    assert ours.Run.from_file(str(gz)).name == "tag"


def test_bad_files_and_kinds_are_named(tmp_path):
    with pytest.raises(rankmeter.ParameterError, match="kind="):
        ours.Run.from_file("run.csv")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4\n")
    with pytest.raises(InputError, match=r"run.txt:2: 5 fields where a run line has at least 6"):  # rankmeter's reader
        ours.Run.from_file(str(tmp_path / "run.txt"))


# ------------------------------------------------------------------ compare and its report
def _runs(seed: int, n: int = 3, queries: int = 25):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(40, 12, replace=False)}
             for q in range(queries)}
    runs = [{f"q{q}": {f"d{d}": float(s) for d, s in zip(rng.choice(40, 25, replace=False),
                                                         rng.permutation(10_000)[:25] / 7.0)} for q in range(queries)}
            for _ in range(n)]
    return qrels, runs


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
@pytest.mark.parametrize("seed", range(3))
def test_compare_matches_ranx(stat_test, seed):
    qrels, runs = _runs(seed)
    metrics = ["ndcg@10", "map@100", "mrr", "precision@5"]
    want = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=f"run{i}") for i, r in enumerate(runs)], metrics,
                        stat_test=stat_test, max_p=0.05)
    got = ours.compare(ours.Qrels(qrels), [ours.Run(r, name=f"run{i}") for i, r in enumerate(runs)], metrics,
                       stat_test=stat_test, max_p=0.05)
    w, g = want.to_dict(), got.to_dict()
    assert g.keys() == w.keys() and g["model_names"] == w["model_names"] and g["metrics"] == w["metrics"]
    for name in w["model_names"]:
        assert g[name]["scores"] == pytest.approx(w[name]["scores"], abs=1e-12)
        assert g[name]["win_tie_loss"] == w[name]["win_tie_loss"]
        for other, by_metric in w[name]["comparisons"].items():
            assert g[name]["comparisons"][other] == pytest.approx(by_metric, abs=1e-12)
    for pair in want.comparisons:
        for m in metrics:
            assert got.comparisons[tuple(pair)][m]["significant"] == want.comparisons[tuple(pair)][m]["significant"]
    assert got.to_table() == want.to_table()
    pd.testing.assert_frame_equal(got.to_dataframe(), want.to_dataframe(), atol=1e-12, rtol=0)
    latex = got.to_latex()
    assert latex.count(r"\\") == len(runs) + 1 and r"\toprule" in latex and r"\bottomrule" in latex


def test_fisher_randomization_agrees_within_monte_carlo_error():
    qrels, runs = _runs(21, n=3, queries=30)
    metrics = ["ndcg@10", "map@100"]
    for permutations in (1000, 4000):
        want = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)], metrics,
                            stat_test="fisher", n_permutations=permutations)
        got = ours.compare(ours.Qrels(qrels), [ours.Run(r, name=f"r{i}") for i, r in enumerate(runs)], metrics,
                           stat_test="fisher", n_permutations=permutations)
        for pair in want.comparisons:
            for m in metrics:
                p, q = want.comparisons[tuple(pair)][m]["p_value"], got.comparisons[tuple(pair)][m]["p_value"]
                # two Monte-Carlo estimates of one p-value: ranx's draws differ on every call (numba's threads
                # do not take its seed) and ours are fixed by the seed, each off the true p by its own error
                spread = max(p * (1 - p), 1 / permutations) + max(q * (1 - q), 1 / permutations)
                error = 5 * math.sqrt(spread / permutations) + 2 / permutations
                assert abs(p - q) <= error, (pair, m, p, q)


# ------------------------------------------------------------------ fusion
SCORE_METHODS = [("sum", None), ("mnz", None), ("gmnz", {"gamma": 0.5}), ("anz", None), ("max", None), ("min", None),
                 ("med", None), ("wsum", {"weights": [0.2, 0.3, 0.5]}), ("wmnz", {"weights": [0.2, 0.3, 0.5]}),
                 ("mixed", {"weights": [0.2, 0.3, 0.5]})]
RANK_METHODS = [("rrf", {"k": 60}), ("rbc", {"phi": 0.7}), ("isr", None), ("log_isr", None),
                ("logn_isr", {"sigma": 0.1}), ("bordafuse", None), ("w_bordafuse", {"weights": [0.2, 0.3, 0.5]})]


def _trained(method: str, qrels, runs) -> dict:
    from ranx import fusion as f
    if method == "probfuse":
        return {"probs": f.probfuse_train(qrels, runs, 5)}
    if method == "slidefuse":
        return {"probs": f.slidefuse_train(qrels, runs), "w": 3}
    if method == "bayesfuse":
        return {"log_odds": f.bayesfuse_train(qrels, runs)}
    if method == "mapfuse":
        return {"map_scores": f.mapfuse_train(qrels, runs)}
    return {"probs": getattr(f, f"{method}_train")(qrels, runs)}


def _same_fused(want, got):
    assert got.name == want.name
    w, g = want.to_dict(), got.to_dict()
    assert set(g) == set(w)
    for q in w:
        assert set(g[q]) == set(w[q]), q
        assert [g[q][d] for d in w[q]] == pytest.approx(list(w[q].values()), abs=1e-9), q


@pytest.mark.parametrize("norm", ["min-max", "max", "sum", "zmuv", "rank", "min-max-inverted", None, "borda"])
def test_fuse_matches_ranx_for_every_method(norm):
    qrels, runs = _runs(31, n=3, queries=8)
    theirs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    mine = [ours.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    trained = [(m, _trained(m, ranx.Qrels(qrels), theirs))
               for m in ("probfuse", "posfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse")]
    # norm="borda" gives every candidate a run did not retrieve one tied score; ranx then ranks those ties in
    # an arbitrary order for the rank-based methods (rankmeter reads the run's own ranks): scores only
    cases = SCORE_METHODS + ([] if norm == "borda" else RANK_METHODS + trained)
    for method, params in cases:
        _same_fused(ranx.fuse(theirs, norm=norm, method=method, params=params),
                    ours.fuse(mine, norm=norm, method=method, params=params))


def test_condorcet_matches_ranx_where_the_majority_is_a_strict_order():
    rng = np.random.default_rng(3)
    order = {f"q{q}": [f"d{d}" for d in rng.choice(30, 12, replace=False)] for q in range(6)}
    runs = [{q: {d: float(len(docs) - i) * scale + 0.01 * rng.random() for i, d in enumerate(docs)}
             for q, docs in order.items()} for scale in (1.0, 2.5, 0.3)]  # three runs ranking alike
    for method, params in (("condorcet", None), ("w_condorcet", {"weights": [0.2, 0.3, 0.5]})):
        _same_fused(ranx.fuse([ranx.Run(r) for r in runs], method=method, params=params),
                    ours.fuse([ours.Run(r) for r in runs], method=method, params=params))


def _tied_at_top(run, k: int = 5) -> bool:
    """Whether some query of a (ranx) fused run has equal scores (to 1e-12: sums in another order differ in
    the last bit) within its top k + 1."""
    for docs in run.to_dict().values():
        top = np.sort(np.fromiter(docs.values(), float))[::-1][:k + 1]
        if np.any(np.diff(top) > -1e-12 * np.maximum(1.0, np.abs(top[1:]))):
            return True
    return False


@pytest.mark.parametrize("method, options", [("wsum", {}), ("wmnz", {}), ("mixed", {}), ("w_bordafuse", {}),
                                             ("rrf", {}), ("rbc", {"min_phi": 0.1, "step": 0.1}),
                                             ("gmnz", {"min_gamma": 0.1, "step": 0.1}),
                                             ("logn_isr", {"min_sigma": 0.1, "step": 0.1}), ("wsum", {"step": 0.25}),
                                             ("rrf", {"min_k": 1, "max_k": 30, "step": 3}),
                                             ("probfuse", {"max_n_segments": 12}), ("slidefuse", {"max_w": 12})])
def test_optimize_fusion_searches_ranx_grid_with_its_scores(method, options):
    qrels, runs = _runs(41, n=3, queries=10)
    theirs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    mine = [ours.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    kw = dict(method=method, metric="ndcg@5", return_optimization_report=True, show_progress=False, **options)
    want_best, want = ranx.optimize_fusion(ranx.Qrels(qrels), theirs, **kw)
    got_best, got = ours.optimize_fusion(ours.Qrels(qrels), mine, **kw)
    configs = [c for c in want.configs if not (method == "rbc" and float(c) >= 1)]  # phi = 1: all ties
    assert got.configs == configs
    mine_by_config = dict(zip(got.configs, got.results))
    untied = []
    for config, w in zip(want.configs, want.results):
        if config not in mine_by_config:
            continue
        fused = ranx.fuse(theirs, method=method, params=_config_params(method, config, ranx.Qrels(qrels), theirs))
        if _tied_at_top(fused):  # ranx's order among the tied docs is arbitrary
            continue
        assert mine_by_config[config] == pytest.approx(w, abs=1e-12), config
        untied.append(config)
    assert untied, "every trial tied: choose other data"
    if len(untied) == len(configs):
        assert _normalised(got_best) == _normalised(want_best)


def _config_params(method: str, config: str, qrels, runs) -> dict:
    from ranx import fusion as f
    if method == "probfuse":
        return {"probs": f.probfuse_train(qrels, runs, int(config))}
    if method == "slidefuse":
        return {"probs": f.slidefuse_train(qrels, runs), "w": int(config)}
    key = {"rrf": "k", "rbc": "phi", "gmnz": "gamma", "logn_isr": "sigma"}.get(method, "weights")
    return {key: eval(config, {"np": np}) if key == "weights" else float(config)}


def _normalised(params: dict):
    return {k: np.round(np.asarray(v, dtype=float), 9).tolist() if not isinstance(v, list) or not v or
            np.ndim(v[0]) == 0 else [np.round(np.asarray(x, float), 9).tolist() for x in v] for k, v in params.items()}


def test_trained_methods_give_ranx_tables():
    qrels, runs = _runs(42, n=2, queries=10)
    theirs = [ranx.Run(r) for r in runs]
    for method in ("bayesfuse", "mapfuse", "posfuse", "segfuse"):
        want = ranx.optimize_fusion(ranx.Qrels(qrels), theirs, method=method)
        got = ours.optimize_fusion(ours.Qrels(qrels), [ours.Run(r) for r in runs], method=method)
        assert _normalised(got) == _normalised(want), method


# ------------------------------------------------------------------ ranxhub, ir_datasets
def test_ranxhub_is_refused_offline_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(InputError, match="rankmeter does not download"):
        ours.Run.from_ranxhub("msmarco-passage/bm25")


def test_qrels_from_a_local_ir_datasets_dataset(tmp_path):
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload
    qrels, _ = _case(5)
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    name = f"rankmeter-test/{tmp_path.name}"
    ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(path), {})))
    assert ours.Qrels.from_ir_datasets(name).to_dict() == \
        {q: dict(d) for q, d in ranx.Qrels.from_ir_datasets(name).to_dict().items()}
    missing = f"rankmeter-test/{tmp_path.name}-gone"
    ir_datasets.registry.register(missing, Dataset(TrecQrels(LocalDownload(tmp_path / "absent.txt"), {})))
    with pytest.raises(InputError, match="not on this machine"):
        ours.Qrels.from_ir_datasets(missing)


# ------------------------------------------------------------------ ranx's README, one import changed
def _readme_blocks() -> list[str]:
    from importlib.metadata import distribution
    return re.findall(r"```python\n(.*?)```", distribution("ranx").metadata.get_payload(), flags=re.DOTALL)


def test_ranx_readme_examples_run_with_one_import_changed():
    blocks = _readme_blocks()
    assert len(blocks) == 7, "ranx's README changed: look at its examples again"
    qrels, runs = _runs(51, n=5, queries=20)
    rng = np.random.default_rng(52)  # runs for the README's own qrels (queries q_1, q_2; docs d_11 ... d_36)
    readme_runs = [{q: {f"d_{d}": float(s) for d, s in zip(rng.choice(np.arange(10, 40), 12, replace=False),
                                                          rng.permutation(1000)[:12] / 7.0)} for q in ("q_1", "q_2")}
                   for _ in range(5)]
    sessions = {}
    for module in ("ranx", "rankmeter.compat.ranx"):
        lib = ranx if module == "ranx" else ours
        # what the README leaves to the reader: five runs to compare, train and test runs to fuse
        namespace = {f"run_{i + 1}": lib.Run(r, name=f"run_{i + 1}") for i, r in enumerate(readme_runs)}
        namespace |= {"train_qrels": lib.Qrels(qrels)}
        namespace |= {f"{split}_run_{i + 1}": lib.Run(r) for split in ("train", "test") for i, r in enumerate(runs[:3])}
        shown = []
        for block in blocks:
            if "from_ir_datasets" in block or "from_ranxhub" in block:
                continue  # exempt: downloads (MS MARCO qrels, ranxhub); offline refusals tested above
            code = block.replace("from ranx import", f"from {module} import")
            lines = []
            for line in code.splitlines():
                if line.startswith(">>> "):  # the README's printed result of the line before
                    shown.append((lines[-1], line[4:]))
                    lines[-1] = f"_shown_{len(shown)} = {lines[-1]}"
                else:
                    lines.append(line)
            exec(compile("\n".join(lines), "<README>", "exec"), namespace)  # noqa: S102 - the README's code
        namespace["_shown"] = shown
        sessions[module] = namespace
    mine, theirs = sessions["rankmeter.compat.ranx"], sessions["ranx"]
    for i, (expression, printed) in enumerate(mine["_shown"], 1):
        value = mine[f"_shown_{i}"]
        expected = eval(printed)  # four decimals, truncated or rounded (0.6416 for 0.641666...)
        if isinstance(expected, dict):
            assert {k: float(v) for k, v in value.items()} == pytest.approx(expected, abs=1e-4), expression
        else:
            assert float(value) == pytest.approx(expected, abs=1e-4), expression
        assert value == pytest.approx(theirs[f"_shown_{i}"], abs=1e-12)
    assert str(mine["report"]) == str(theirs["report"])
    assert _normalised(mine["best_params"]) == _normalised(theirs["best_params"])
    _same_fused(theirs["combined_test_run"], mine["combined_test_run"])


def test_report_table_without_tabulate_holds_the_same_cells(monkeypatch):
    import sys
    qrels, runs = _runs(61, n=3, queries=15)
    report = ours.compare(ours.Qrels(qrels), [ours.Run(r, name=f"run{i}") for i, r in enumerate(runs)],
                          ["ndcg@10", "map"], max_p=0.5)
    with_tabulate = report.to_table()
    monkeypatch.setitem(sys.modules, "tabulate", None)  # tabulate comes with ranx, not with rankmeter
    plain = report.to_table()
    assert plain != with_tabulate
    cells = [line.split() for line in plain.splitlines()]
    want = [line.split() for line in with_tabulate.splitlines()]
    assert cells[:1] + cells[2:] == want[:1] + want[2:]  # headers and rows; the rule under the headers differs
