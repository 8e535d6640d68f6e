"""rankmeter against oracle outputs stored in tests/fixtures/oracles/, with no oracle installed.

The files hold their inputs, the oracle's outputs and their provenance (package, version,
function, seeds); ``python tools/regen_oracle_fixtures.py`` regenerates them from the oracles
(``--check`` says whether a stored file still matches). The live comparisons stay under the
``oracle`` marker (tests/compat/test_pytrec_eval.py, tests/compat/test_ir_measures_registry.py,
tests/fusion/test_fusion.py, tests/compat/test_measures_peers.py); these keep the same values checked on a
machine without them (and without importing torch).
"""
from __future__ import annotations

import json
import math
import warnings
from functools import lru_cache
from pathlib import Path

import pytest

import rankmeter
from rankmeter.fusion import fuse
from rankmeter.fusion.pooling import pool
from rankmeter.measures.trec_eval import uses_level
from rankmeter.core import resolve_measures

ORACLES = Path(__file__).resolve().parents[1] / "fixtures" / "oracles"
FILES = ("pytrec_eval", "ir_measures", "ranx_fusion", "torchmetrics", "trectools_pools")

pytestmark = pytest.mark.stored_oracle


@lru_cache(maxsize=None)
def stored(name: str) -> dict:
    return json.loads((ORACLES / f"{name}.json").read_text(encoding="utf-8"))


def _seeds(name: str) -> list[int]:
    return [case["seed"] for case in stored(name)["cases"]]


def _case(name: str, seed: int) -> dict:
    return next(case for case in stored(name)["cases"] if case["seed"] == seed)


@pytest.mark.parametrize("name", FILES)
def test_fixture_names_its_oracle_and_inputs(name):
    provenance = stored(name)["provenance"]
    for key in ("package", "version", "function", "seeds", "generator"):
        assert provenance.get(key), f"{name}.json: provenance lacks {key}"
    assert _seeds(name) == provenance["seeds"]


# ---------------------------------------------------------------------------------------------- pytrec_eval

def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


@pytest.mark.parametrize("seed", _seeds("pytrec_eval"))
def test_pytrec_eval_values(seed):
    """Per-query values, means and summary measures of trec_eval 9.0.8 through pytrec_eval."""
    data, case = stored("pytrec_eval"), _case("pytrec_eval", seed)
    specs = data["specs"] + data["summary_specs"]
    resolved = {spec: resolve_measures(spec) for spec in specs}
    by_rel: dict[int, list[str]] = {}
    for spec, labelled in resolved.items():  # trec_eval's -l: not for nDCG, G, rbp (as rankmeter trec_eval)
        by_rel.setdefault(case["level"] if uses_level(labelled[0][1]) else 1, []).append(spec)
    wrong = []
    for rel, group in by_rel.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = rankmeter.evaluate(case["qrels"], case["run"], group, queries="qrels", rel=rel,
                                        judged_only=case["judged_only"])
        for spec in group:
            ours = resolved[spec]
            if spec in data["summary_specs"]:
                (label, measure), = ours
                if not _close(float(result[measure]), case["summaries"][spec]):
                    wrong.append((spec, "mean", float(result[measure]), case["summaries"][spec]))
                continue
            theirs = case["values"][spec]
            pairs = ({ours[0][0]: next(iter(theirs))} if len(ours) == 1 and len(theirs) == 1
                     else {label: label for label, _ in ours})
            assert sorted(pairs.values()) == sorted(theirs), f"{spec}: labels {sorted(pairs)} vs {sorted(theirs)}"
            for label, measure in ours:
                values = dict(zip(result.queries, (float(v) for v in result.values(measure))))
                for q, want in theirs[pairs[label]].items():
                    if q not in values or not _close(values[q], want):
                        wrong.append((pairs[label], q, values.get(q), want))
                want_mean = case["means"][spec].get(pairs[label])
                if want_mean is not None and not _close(float(result[measure]), want_mean):
                    wrong.append((pairs[label], "mean", float(result[measure]), want_mean))
    assert not wrong, f"seed {seed}: (label, query, rankmeter, pytrec_eval) {wrong[:8]}"


# ---------------------------------------------------------------------------------------------- ir_measures

@pytest.mark.parametrize("seed", _seeds("ir_measures"))
def test_ir_measures_registry_values(seed):
    """Every name of ir_measures' registry, spelled as ir_measures prints it, per query."""
    case = _case("ir_measures", seed)
    wrong = []
    for name, stored_measure in case["measures"].items():
        text, tol = stored_measure["rankmeter"], stored_measure["tolerance"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = rankmeter.evaluate(case["qrels"], case["run"], text)
        got = dict(zip(result.queries, (float(v) for v in result.values(text))))
        assert stored_measure["values"], f"{name}: nothing stored"
        for q, want in stored_measure["values"].items():
            if q not in got or not math.isclose(got[q], want, rel_tol=tol, abs_tol=tol):
                wrong.append((name, text, q, got.get(q), want))
    assert not wrong, f"seed {seed}: (name, rankmeter spelling, query, rankmeter, ir_measures) {wrong[:8]}"


# ---------------------------------------------------------------------------------------------- ranx fusion

def _as_dict(run) -> dict:
    table = run.table.to_pydict()
    out: dict = {}
    for q, d, s in zip(table["query"], table["doc"], table["score"]):
        q, d = (x.decode() if isinstance(x, bytes) else x for x in (q, d))
        out.setdefault(q, {})[d] = s
    return out


@pytest.mark.parametrize("seed", _seeds("ranx_fusion"))
def test_ranx_fusion_scores(seed):
    """Every fusion method and normalisation of ranx.fuse on three runs without ties."""
    case = _case("ranx_fusion", seed)
    wrong = []
    for fused in case["fused"]:
        method, norm, params = fused["method"], fused["norm"], fused["params"]
        got = _as_dict(fuse(case["runs"], method=method, norm=norm, params=params))
        want = fused["scores"]
        if set(got) != set(want) or any(set(got[q]) != set(want[q]) for q in want):
            wrong.append((method, norm, "different documents"))
            continue
        bad = [(q, d) for q in want for d, s in want[q].items() if not math.isclose(got[q][d], s, rel_tol=1e-9,
                                                                                      abs_tol=1e-9)]
        if bad:
            wrong.append((method, norm, bad[:3]))
    assert not wrong, f"seed {seed}: (method, norm, where) {wrong}"


# ---------------------------------------------------------------------------------------------- TorchMetrics

@pytest.mark.parametrize("seed", _seeds("torchmetrics"))
def test_torchmetrics_retrieval_means(seed):
    """TorchMetrics' retrieval metrics with each empty_target_action, as rankmeter's parameters spell them."""
    case = _case("torchmetrics", seed)
    measures = sorted({v["rankmeter"] for v in case["values"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean = rankmeter.evaluate(case["qrels"], case["run"], measures).mean
    wrong = [(v["class"], v["kwargs"], v["rankmeter"], mean[v["rankmeter"]], v["value"]) for v in case["values"]
             if not math.isclose(mean[v["rankmeter"]], v["value"], rel_tol=1e-6, abs_tol=1e-6)]
    assert not wrong, f"seed {seed}: (class, kwargs, rankmeter, rankmeter's mean, TorchMetrics) {wrong[:6]}"


# ---------------------------------------------------------------------------------------------- trectools pools

@pytest.mark.parametrize("seed", _seeds("trectools_pools"))
def test_trectools_pools(seed, tmp_path):
    """Depth-k pools, and take@N pools by RRF or RBP priority, from the same run files trectools read."""
    case = _case("trectools_pools", seed)
    paths = []
    for i, text in enumerate(case["runs"]):
        path = tmp_path / f"r{i}.run"
        path.write_text(text)
        paths.append(str(path))
    wrong = []
    for stored_pool in case["pools"]:
        if "depth" in stored_pool:
            got, label = pool(paths, depth=stored_pool["depth"]), f"depth {stored_pool['depth']}"
        else:
            got = pool(paths, take=stored_pool["take"], priority=stored_pool["priority"])
            label = f"take {stored_pool['take']} by {stored_pool['priority']}"
        ours = {(q.decode() if isinstance(q, bytes) else q): sorted(d.decode() if isinstance(d, bytes) else d
                                                                     for d in docs) for q, docs in got.docs.items()}
        for q, docs in stored_pool["pool"].items():
            if ours.get(q) != docs:
                wrong.append((label, q, sorted(set(docs) ^ set(ours.get(q, [])))))
    assert not wrong, f"seed {seed}: (pool, query, docs in one pool only) {wrong[:6]}"
