"""The ``beir`` and ``mteb`` profiles against BEIR's and MTEB's own evaluation code.

Neither package is installed here (their dependencies are heavy), and neither is copied: the test downloads
each one's source distribution at a pinned version (``pip download --no-binary :all: --no-deps``, cached under
the temp directory or ``$RANKMETER_PEER_CACHE``), unpacks the one module that scores a run, and calls it:
BEIR's ``EvaluateRetrieval.evaluate`` (``beir/retrieval/evaluation.py``, importable with pytrec_eval and tqdm
alone) and MTEB's ``calculate_retrieval_scores`` (``mteb/_evaluators/retrieval_metrics.py``, loaded with a
stand-in for the ``mteb.types`` result record it returns).
"""
from __future__ import annotations

import copy
import importlib.util
import os
import subprocess
import sys
import tarfile
import tempfile
import warnings
from pathlib import Path

import pytest
from optional_packages import optional

import rankmeter

pytrec_eval = optional("pytrec_eval")
optional("tqdm")
optional("sklearn")
optional("pandas")

BEIR, MTEB = "2.2.0", "2.26.24"


def _sdist(name: str, version: str, member: str, tmp: Path) -> Path:
    cache = Path(os.environ.get("RANKMETER_PEER_CACHE", Path(tempfile.gettempdir()) / "rankmeter-peers"))
    archive = cache / f"{name}-{version}.tar.gz"
    if not archive.exists():
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                               f"{name}=={version}", "-d", str(cache)], capture_output=True, text=True)
        if done.returncode != 0 or not archive.exists():
            pytest.fail(f"could not download {name} {version}'s sdist from PyPI: {done.stderr[-400:]}")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, members=[m for m in tar.getmembers() if m.name.startswith(f"{name}-{version}/{member}")],
                       filter="data")
    return tmp / f"{name}-{version}"


@pytest.fixture(scope="module")
def beir_evaluate(tmp_path_factory):
    root = _sdist("beir", BEIR, "beir/", tmp_path_factory.mktemp("beir"))
    sys.path.insert(0, str(root))
    try:
        from beir.retrieval.evaluation import EvaluateRetrieval
    finally:
        sys.path.remove(str(root))
    return EvaluateRetrieval.evaluate


@pytest.fixture(scope="module")
def mteb_scores(tmp_path_factory):
    import types
    from collections import namedtuple
    root = _sdist("mteb", MTEB, "mteb/_evaluators/retrieval_metrics.py", tmp_path_factory.mktemp("mteb"))
    record = namedtuple("RetrievalEvaluationResult", "all_scores ndcg map recall precision naucs mrr naucs_mrr "
                                                     "hit_rate")
    stand_in = types.ModuleType("mteb.types")
    stand_in.RetrievalEvaluationResult = record
    saved = {k: sys.modules.get(k) for k in ("mteb", "mteb.types")}
    sys.modules["mteb"], sys.modules["mteb.types"] = types.ModuleType("mteb"), stand_in
    try:
        spec = importlib.util.spec_from_file_location("mteb_retrieval_metrics",
                                                      root / "mteb/_evaluators/retrieval_metrics.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return module.calculate_retrieval_scores


def _case(seed):
    from tests.compat.test_profiles import _case as case
    qrels, run = case(seed, n_q=10, n_d=40)
    qrels.pop("q_unretrieved")   # MTEB looks every run query up in the qrels; BEIR's averaging skips it anyway
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_beir_profile_equals_beirs_evaluate(beir_evaluate, seed):
    qrels, run = _case(seed)
    k = [1, 3, 5, 10, 100, 1000]
    ndcg, _map, recall, precision = beir_evaluate(qrels, copy.deepcopy(run), k)   # it pops self ids in place
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = rankmeter.profile("beir").evaluate(qrels, run)
    for theirs, family, name in [(ndcg, "nDCG", "NDCG"), (_map, "AP", "MAP"), (recall, "R", "Recall"),
                                 (precision, "P", "P")]:
        for cut in k:
            assert round(ours[f"{family}@{cut}"], 5) == theirs[f"{name}@{cut}"], (family, cut)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("self_id", [False, True])
def test_mteb_profile_equals_mtebs_retrieval_scores(mteb_scores, seed, self_id):
    qrels, run = _case(seed)
    k = [1, 3, 5, 10, 20, 100, 1000]
    given = {q: {d: s for d, s in docs.items() if not (self_id and d == q)} for q, docs in run.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = mteb_scores(copy.deepcopy(given), qrels, k)   # ignore_identical_ids pops before this call
        ours = rankmeter.profile("mteb").evaluate(qrels, run, ignore_self=self_id)
    for table, family, name in [(theirs.ndcg, "nDCG", "NDCG"), (theirs.map, "AP", "MAP"),
                                (theirs.recall, "R", "Recall"), (theirs.precision, "P", "P"),
                                (theirs.hit_rate, "Success", "HitRate")]:
        for cut in k:
            assert round(ours[f"{family}@{cut}"], 5) == table[f"{name}@{cut}"], (family, cut)
    for cut in k:   # its own MRR, not rounded
        assert abs(ours[f"RR@{cut}"] - theirs.mrr[f"MRR@{cut}"]) <= 1e-12, cut
