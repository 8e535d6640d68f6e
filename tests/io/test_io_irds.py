"""Qrels from ir_datasets (a dataset registered from local files: no network) and evaluation profiles.

The profile measures are checked against ir_measures on the same files.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import rankmeter
from rankmeter import InputError
from rankmeter.io import read_qrels
from rankmeter.io.irds import PROFILES, profile, relevance_level
from rankmeter.measures import parse_measure
from optional_packages import installed  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

NAME = "rankmeter-test/local-dl"


def _files(tmp_path):
    rng = np.random.default_rng(19)
    qrels, run = [], []
    for q in range(15):
        docs = rng.choice(200, 60, replace=False)
        qrels += [f"{q} 0 p{d} {g}\n" for d, g in zip(docs[:30], rng.choice(4, 30, p=[.5, .2, .2, .1]))]
        run += [f"{q} Q0 p{d} {i + 1} {50 - i * 0.5} bm25\n" for i, d in enumerate(docs[10:])]
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    (tmp_path / "run.txt").write_text("".join(run))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


_REGISTER = ("import ir_datasets\n"
             "if {name!r} not in ir_datasets.registry._registered:\n"
             "    ir_datasets.registry.register({name!r}, ir_datasets.create_dataset(qrels_trec={path!r}))\n")


@pytest.fixture(scope="module")
def local_dataset(tmp_path_factory):
    qrels, run = _files(tmp_path_factory.mktemp("irds"))
    exec(_REGISTER.format(name=NAME, path=str(qrels)))
    return qrels, run


def test_irds_qrels_equal_the_file(local_dataset):
    qrels, run = local_dataset
    measures = profile("msmarco-passage/trec-dl-2019/judged")
    from_irds = rankmeter.evaluate(f"irds:{NAME}", run, measures)
    from_file = rankmeter.evaluate(qrels, run, measures)
    assert from_irds.queries == from_file.queries
    for m in measures:
        np.testing.assert_array_equal(from_irds.values(m), from_file.values(m))
    assert len(read_qrels(NAME)) == len(read_qrels(qrels))  # the bare id, as the CLI passes it


def test_profile_values_match_ir_measures(local_dataset):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = local_dataset
    for name in ("msmarco-passage/trec-dl-2020", "beir/scifact/test", "disks45/nocr/trec-robust-2004",
                 "msmarco-passage/dev/small"):
        measures = profile(name)
        ours = rankmeter.evaluate(f"irds:{NAME}", run, measures, rel=relevance_level(name))
        theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in measures],
                                            ir_measures.read_trec_qrels(str(qrels)),
                                            ir_measures.read_trec_run(str(run)))
        for m in measures:
            assert ours[m] == pytest.approx(theirs[ir_measures.parse_measure(m)], abs=1e-12), (name, m)


def test_cli_takes_a_dataset_id(local_dataset):
    qrels, run = local_dataset
    code = _REGISTER.format(name=NAME, path=str(qrels)) + (
        "import sys\nfrom rankmeter.cli.app import main\n"
        f"sys.exit(main(['eval', {NAME!r}, {str(run)!r}, '-m', 'nDCG@10', '--format', 'json']))\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert got.returncode == 0, got.stderr
    expected = rankmeter.evaluate(qrels, run, ["nDCG@10"])["nDCG@10"]
    import json
    assert json.loads(got.stdout)["runs"][0]["mean"]["nDCG@10"] == expected


@pytest.mark.skipif(not installed("ir_datasets"), reason="needs ir_datasets, not installed (pip install ir_datasets)")
def test_unknown_dataset_and_missing_extra(monkeypatch, tmp_path):
    with pytest.raises(InputError, match="no such file, and no ir_datasets dataset of this id"):
        read_qrels("no-such-family/nothing")
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # as if the extra were not installed
    with pytest.raises(ImportError, match=r'pip install ir_datasets'):
        read_qrels("irds:msmarco-passage/dev")
    with pytest.raises(InputError, match=r'no such file; check the path \(for an ir_datasets dataset'):
        read_qrels("runs/missing.txt")


def test_every_profile_parses():
    for p in PROFILES:
        for m in p.measures:
            parse_measure(m)
    assert profile("msmarco-passage/trec-dl-2019/judged") == ["nDCG@10", "RR(rel=2)@10", "AP(rel=2)@1000",
                                                              "R(rel=2)@1000"]
    assert relevance_level("msmarco-passage/trec-dl-2019") == 2
    assert profile("irds:msmarco-passage/dev/small") == ["RR@10"]
    with pytest.raises(rankmeter.ParameterError, match="no evaluation profile for the dataset 'cranfield'"):
        profile("cranfield")
