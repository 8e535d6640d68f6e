"""One model of each peer: ``diff --as X``, ``--profile X``, the drop-in X and the real package X agree.

For each convention, on four kinds of run (``tied``: integer scores, with near-ties that only C floats
merge; ``graded``: distinct scores, grades 0-3; ``empty``: a judged query named with an empty ranking;
``incomplete``: a judged query the run lacks and a run query without judgments), every measure the
convention offers is computed four ways where they exist: ``rankmeter diff``'s mean for that convention,
the ``--profile`` preset (beir, mteb), the drop-in (``rankmeter.compat.X``) and the real package (installed
in the test environment; BEIR's and MTEB's own evaluation modules unpacked from their pinned sdists, as in
tests/compat/test_profiles_peers.py; trec_eval through the drop-in `rankmeter trec_eval`, whose parity with NIST
trec_eval 10.0 tests/test_golden.py holds). The CI sample is one seed per kind; ``RANKMETER_FULL_SWEEP=1`` runs 12
seeds per kind (docs/why-numbers-differ.md, "Checking the models").
"""
from __future__ import annotations

import copy
import os
import sys
import warnings

import numpy as np
import pytest
from optional_packages import optional

import rankmeter
from rankmeter.compat import ir_measures as irm_dropin
from rankmeter.compat import pytrec_eval as pte_dropin
from rankmeter.compat import ranx as ranx_dropin
from rankmeter.compat.beir.custom import evaluate_custom as beir_custom_dropin
from rankmeter.diff.attribution import diff

pytrec_eval = optional("pytrec_eval")
ir_measures = optional("ir_measures")
ranx = optional("ranx")
optional("tqdm")
optional("pandas")
optional("sklearn")

SEEDS = range(12) if os.environ.get("RANKMETER_FULL_SWEEP") else range(1)
KINDS = ("tied", "graded", "empty", "incomplete")
TOL = 1e-9


def make_case(kind: str, seed: int, n_q: int = 8, n_d: int = 30):
    rng = np.random.default_rng(1000 * KINDS.index(kind) + seed)
    qrels, run = {}, {}
    for i in range(n_q):
        docs = [f"d{j:02d}" for j in range(n_d)]
        qrels[f"q{i}"] = {d: int(rng.integers(0, 4)) for d in rng.choice(docs, 12, replace=False)}
        if kind == "tied":
            scores = rng.integers(0, 4, n_d).astype(float)
            scores[::3] += 1e-9 * rng.integers(1, 3, len(scores[::3]))  # apart as doubles, tied as C floats
        else:
            scores = rng.normal(size=n_d)
        run[f"q{i}"] = {docs[j]: float(scores[j]) for j in rng.permutation(n_d)}
    if kind == "empty":
        run["q1"] = {}
    if kind == "incomplete":
        del run["q2"]
        run["q_unjudged"] = {"d00": 1.0, "d01": 0.5}
    return qrels, run


def diff_means(qrels, run, names, convention):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = diff(qrels, run, names, ["trec_eval", convention])
    return report["conventions"][convention]


def mean(values):
    return float(np.mean(values)) if len(values) else float("nan")


def check(label, ours: dict, theirs: dict, tol=TOL):
    bad = {m: (ours[m], theirs[m]) for m in theirs if not abs(ours[m] - theirs[m]) <= tol}
    assert not bad, (label, bad)


# -- pytrec_eval ---------------------------------------------------------------------------------------------
PYTREC = {"nDCG@10": "ndcg_cut_10", "nDCG@5": "ndcg_cut_5", "AP": "map", "AP@10": "map_cut_10", "RR": "recip_rank",
          "P@5": "P_5", "R@10": "recall_10", "Rprec": "Rprec", "Bpref": "bpref", "Success@5": "success_5",
          "nDCG": "ndcg", "NumRelRet": "num_rel_ret"}
PYTREC_ASKED = {"ndcg_cut.5,10", "map", "map_cut.10", "recip_rank", "P.5", "recall.10", "Rprec", "bpref",
                "success.5", "ndcg", "num_rel_ret"}


def pytrec_means(module, qrels, run):
    per = module.RelevanceEvaluator(qrels, PYTREC_ASKED).evaluate(copy.deepcopy(run))
    return {m: module.compute_aggregated_measure(key, [v[key] for v in per.values()]) if per else float("nan")
            for m, key in PYTREC.items()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_pytrec_eval(kind, seed):
    qrels, run = make_case(kind, seed)
    real = pytrec_means(pytrec_eval, qrels, run)
    check("drop-in", pytrec_means(pte_dropin, qrels, run), real)
    check("diff --as pytrec_eval", diff_means(qrels, run, list(PYTREC), "pytrec_eval"), real)


# -- ir_measures ---------------------------------------------------------------------------------------------
IRM = ["nDCG@10", "nDCG@5", "AP", "AP@10", "RR", "RR@10", "P@5", "R@10", "Rprec", "Bpref", "Success@5", "nDCG",
       "Judged@10", "RBP(rel=1)", "Compat", "infAP", "SetP", "NumRet", "NumRel", "NumRet(rel=1)", "SetR"]
#: ir_measures 0.4.3's judged provider divides by zero on an empty ranking (judged_provider.py:57)
IRM_EMPTY = [m for m in IRM if m != "Judged@10"]


def irm_means(module, qrels, run):
    names = IRM_EMPTY if any(not docs for docs in run.values()) else IRM
    measures = [module.parse_measure(m) for m in names]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = module.calc_aggregate(measures, qrels, copy.deepcopy(run))
    return {name: float(got[m]) for name, m in zip(names, measures)}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_ir_measures(kind, seed):
    qrels, run = make_case(kind, seed)
    real = irm_means(ir_measures, qrels, run)
    check("drop-in", irm_means(irm_dropin, qrels, run), real)
    # Compat on tied scores: ir_measures' compat provider orders the ideal's equal grades by run score, which the
    # drop-in reproduces (rankmeter.compat.ir_measures.rbo) and diff's Compat does not (a known limit, documented)
    names = [m for m in real if m != "Compat" or kind != "tied"]
    check("diff --as ir_measures", diff_means(qrels, run, names, "ir_measures"), {m: real[m] for m in names})


# -- ranx ----------------------------------------------------------------------------------------------------
RANX = {"nDCG@10": "ndcg@10", "nDCG@5": "ndcg@5", "AP": "map", "AP@10": "map@10", "RR": "mrr", "RR@10": "mrr@10",
        "P@5": "precision@5", "R@10": "recall@10", "Rprec": "r-precision", "HitRate@5": "hit_rate@5",
        "Hits@5": "hits@5", "F1@5": "f1@5", "DCG@10": "dcg@10"}


def ranx_means(module, qrels, run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = module.evaluate(module.Qrels(copy.deepcopy(qrels)), module.Run(copy.deepcopy(run)), list(RANX.values()),
                              make_comparable=True)
    return {m: float(got[name]) for m, name in RANX.items()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_ranx(kind, seed):
    qrels, run = make_case(kind, seed)
    real = ranx_means(ranx, qrels, run)
    check("drop-in", ranx_means(ranx_dropin, qrels, run), real)
    check("diff --as ranx", diff_means(qrels, run, list(RANX), "ranx"), real)


def test_ranx_make_comparable_fills_the_run_so_fuse_works():
    """ranx's evaluate(..., make_comparable=True) edits the Run; a later fuse of two runs needs it."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    for module in (ranx, ranx_dropin):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = module.Qrels(copy.deepcopy(qrels))
            a, b = module.Run({"q1": {"a": 1.0}, "q3": {"x": 1.0}}), module.Run({"q1": {"a": 0.5}, "q2": {"b": 1.0}})
            module.evaluate(q, a, "ndcg@10", make_comparable=True)
            assert {k: dict(v) for k, v in a.to_dict().items()} == {"q1": {"a": 1.0}, "q2": {}}, module
            module.evaluate(q, b, "ndcg@10", make_comparable=True)
            fused = module.fuse([a, b], method="rrf")
        assert sorted(fused.to_dict()) == ["q1", "q2"], module


# -- BEIR and MTEB (their own evaluation code) ---------------------------------------------------------------
def _beir_class(tmp_path_factory):
    from tests.compat.test_profiles_peers import BEIR, _sdist
    root = _sdist("beir", BEIR, "beir/", tmp_path_factory.mktemp("beir-sweep"))
    sys.path.insert(0, str(root))
    try:
        from beir.retrieval.evaluation import EvaluateRetrieval
    finally:
        sys.path.remove(str(root))
    return EvaluateRetrieval


@pytest.fixture(scope="module")
def beir_retrieval(tmp_path_factory):
    return _beir_class(tmp_path_factory)


@pytest.fixture(scope="module")
def mteb_scores(tmp_path_factory):
    from tests.compat.test_profiles_peers import mteb_scores as fixture
    return fixture.__wrapped__(tmp_path_factory)


BEIR_K = [1, 3, 5, 10, 100]


def _beir_case(kind, seed):
    qrels, run = make_case(kind, seed)
    run.pop("q_unjudged", None)   # BEIR's custom measures look every run query up in the qrels (KeyError)
    for q in list(run)[::2]:
        if run[q]:
            run[q][q] = 9.0           # the query's own id, ranked first: BEIR drops it
            qrels[q][q] = 1
    return qrels, run


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_beir(beir_retrieval, kind, seed):
    qrels, run = _beir_case(kind, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ndcg, _map, recall, precision = beir_retrieval.evaluate(qrels, copy.deepcopy(run), BEIR_K)
        real = {**{f"nDCG@{k}": ndcg[f"NDCG@{k}"] for k in BEIR_K}, **{f"AP@{k}": _map[f"MAP@{k}"] for k in BEIR_K},
                **{f"R@{k}": recall[f"Recall@{k}"] for k in BEIR_K}, **{f"P@{k}": precision[f"P@{k}"] for k in BEIR_K}}
        profile = rankmeter.profile("beir").evaluate(qrels, copy.deepcopy(run), list(real))
    check("--profile beir", {m: round(profile[m], 5) for m in real}, real, 0)
    check("diff --as beir", diff_means(qrels, run, list(real), "beir"), real, 1e-12)
    custom = {}
    for metric, family, label in [("mrr", "RR", "MRR"), ("top_k_accuracy", "Success", "Accuracy")]:
        got = beir_retrieval.evaluate_custom(qrels, copy.deepcopy(run), BEIR_K, metric)
        custom |= {f"{family}@{k}": got[f"{label}@{k}"] for k in BEIR_K}
    check("diff --as beir (evaluate_custom)", diff_means(qrels, run, list(custom), "beir"), custom, 1e-12)
    for metric in ("mrr", "r_cap", "hole", "top_k_accuracy"):
        if metric == "r_cap" and any(not any(g > 0 for g in qrels[q].values()) for q in run):
            continue   # BEIR divides by zero there; the drop-in raises (test_beir_custom_refusals)
        want = beir_retrieval.evaluate_custom(qrels, copy.deepcopy(run), BEIR_K, metric)
        assert beir_custom_dropin(qrels, run, BEIR_K, metric) == want, metric


def test_beir_custom_refusals():
    from rankmeter.errors import InputError
    qrels, run = {"q1": {"a": 0}}, {"q1": {"a": 1.0}}
    with pytest.raises(InputError, match="no relevant doc"):
        beir_custom_dropin(qrels, run, [1], "r_cap")
    with pytest.raises(InputError, match="no judgments"):
        beir_custom_dropin(qrels, {"q9": {"a": 1.0}}, [1], "mrr")


MTEB_K = [1, 3, 5, 10, 20, 100]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_mteb(mteb_scores, kind, seed):
    qrels, run = make_case(kind, seed)
    run.pop("q_unjudged", None)   # MTEB's MRR looks every run query up in the qrels (KeyError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = mteb_scores(copy.deepcopy(run), qrels, MTEB_K)
        profile = rankmeter.profile("mteb").evaluate(qrels, copy.deepcopy(run), [f"nDCG@{k}" for k in MTEB_K]
                                                     + [f"AP@{k}" for k in MTEB_K])
    real = {}
    for table, family, name in [(theirs.ndcg, "nDCG", "NDCG"), (theirs.map, "AP", "MAP"), (theirs.recall, "R", "Recall"),
                                (theirs.precision, "P", "P"), (theirs.hit_rate, "Success", "HitRate")]:
        real |= {f"{family}@{k}": table[f"{name}@{k}"] for k in MTEB_K}
    mrr = {f"RR@{k}": theirs.mrr[f"MRR@{k}"] for k in MTEB_K}
    check("--profile mteb", {m: round(profile[m], 5) for m in profile.mean}, {m: real[m] for m in profile.mean}, 0)
    check("diff --as mteb", diff_means(qrels, run, list(real), "mteb"), real, 1e-12)
    check("diff --as mteb (its MRR)", diff_means(qrels, run, list(mrr), "mteb"), mrr, 1e-12)


# -- TorchMetrics and scikit-learn (their functional metrics, per query, averaged over the queries they see) ---
torch = optional("torch")
torchmetrics = optional("torchmetrics")


def _seen(qrels, run):
    """The (query, scores, grades) TorchMetrics and scikit-learn see: the run's queries with docs, ungraded docs 0."""
    return [(q, list(docs.values()), [qrels.get(q, {}).get(d, 0) for d in docs]) for q, docs in run.items() if docs]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_torchmetrics(kind, seed):
    from torchmetrics.functional import retrieval as tmr
    qrels, run = make_case(kind, seed)
    fns = {"nDCG@5": tmr.retrieval_normalized_dcg, "RR@5": tmr.retrieval_reciprocal_rank,
           "P@5": tmr.retrieval_precision, "AP@5": tmr.retrieval_average_precision, "R@5": tmr.retrieval_recall}
    real = {}
    for name, fn in fns.items():
        values = []
        for _, scores, grades in _seen(qrels, run):
            target = torch.tensor(grades) if name.startswith("nDCG") else torch.tensor([int(g >= 1) for g in grades])
            values.append(float(fn(torch.tensor(scores), target, top_k=5)))
        real[name] = mean(values)
    check("diff --as torchmetrics", diff_means(qrels, run, list(fns), "torchmetrics"), real, 1e-6)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_sklearn(kind, seed):
    from sklearn.metrics import ndcg_score
    qrels, run = make_case(kind, seed)
    real = {f"nDCG@{k}": mean([ndcg_score([grades], [scores], k=k) for _, scores, grades in _seen(qrels, run)])
            for k in (5, 10)}
    check("diff --as sklearn", diff_means(qrels, run, list(real), "sklearn"), real)


# -- trec_eval (the drop-in `rankmeter trec_eval`; parity with NIST trec_eval 10.0: tests/test_golden.py) -----
TREC = {"nDCG@5": "ndcg_cut_5", "nDCG@10": "ndcg_cut_10", "AP": "map", "RR": "recip_rank", "P@5": "P_5",
        "R@10": "recall_10", "Rprec": "Rprec", "Bpref": "bpref", "Success@5": "success_5", "nDCG": "ndcg",
        "NumRet": "num_ret", "NumRelRet": "num_rel_ret", "NumRel": "num_rel"}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", KINDS)
def test_trec_eval(cli, tmp_path, kind, seed):
    """A file holds no empty ranking: the `empty` kind's query is one the run lacks, as for trec_eval."""
    qrels, run = make_case(kind, seed)
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for q, docs in run.items()
                                          for i, (d, s) in enumerate(docs.items())))
    got = cli("trec_eval", "-m", "ndcg_cut.5,10", "-m", "map", "-m", "recip_rank", "-m", "P.5", "-m", "recall.10",
              "-m", "Rprec", "-m", "bpref", "-m", "success.5", "-m", "ndcg", "-m", "num_ret", "-m", "num_rel_ret",
              "-m", "num_rel", tmp_path / "qrels", tmp_path / "run")
    assert got.code == 0, got.err
    printed = {name: float(value) for name, _, value in (line.split() for line in got.out.splitlines())}
    dropin = {m: printed[name] for m, name in TREC.items()}
    check("diff --as trec_eval", diff_means(qrels, run, list(TREC), "trec_eval"),
          dropin, 0)
