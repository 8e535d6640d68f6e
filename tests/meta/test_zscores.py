"""Score standardisation by hand; the -Z file read back by rankmeter and by trec_eval itself."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import rankmeter
from rankmeter.compat.zscores import MISSING_ZSCORE, read_zscores
from rankmeter.analyses.meta import standardisation, standardise, write_zscores


def _case(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {int(rng.integers(0, 3))}\n" for t in range(1, 9) for d in range(15)))
    runs = []
    for r in range(4):
        p = tmp_path / f"r{r}.run"
        p.write_text("".join(f"{t} Q0 d{d} {i + 1} {30 - i} r{r}\n" for t in range(1, 9)
                             for i, d in enumerate(rng.permutation(15)[:10])))
        runs.append(str(p))
    return str(qrels), runs


def test_table_is_mean_and_sample_sd_per_topic(tmp_path):
    qrels, runs = _case(tmp_path)
    table = standardisation(qrels, runs, ["map", "P_5"])
    for label in ("map", "P_5"):
        per_run = [rankmeter.evaluate(qrels, r, [label]) for r in runs]
        for topic in table:
            xs = np.array([res.to_dict(per_query=True)["per_query"][int(topic) - 1][label] for res in per_run])
            assert table[topic][label] == pytest.approx((xs.mean(), xs.std(ddof=1)))


def test_write_read_and_apply(tmp_path):
    qrels, runs = _case(tmp_path)
    table = standardisation(qrels, runs, ["map"])
    path = tmp_path / "z.txt"
    write_zscores(table, path)
    back = read_zscores(str(path))
    assert {q.decode(): {m.decode(): v for m, v in ms.items()} for q, ms in back.items()} == table
    z = standardise({"1": table["1"]["map"][0] + table["1"]["map"][1], "99": 0.5}, table, "map")
    assert z["1"] == pytest.approx(1.0) and z["99"] == MISSING_ZSCORE


def test_trec_eval_reads_the_file_as_rankmeter_does(tmp_path):
    qrels, runs = _case(tmp_path)
    path = tmp_path / "z.txt"
    done = subprocess.run([sys.executable, "-m", "rankmeter", "meta", "zscores", qrels, *runs[:3], "-m", "map",
                           "-m", "P_5", "-o", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ours = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-q", "-Z", str(path), "-m", "map",
                           "-m", "P.5", qrels, runs[3]], capture_output=True)
    assert ours.returncode == 0
    binary = os.environ.get("TREC_EVAL_BIN")
    if not binary:
        pytest.skip("TREC_EVAL_BIN not set (built by .ci/run from shared/anchors)")
    theirs = subprocess.run([binary, "-q", "-Z", str(path), "-m", "map", "-m", "P.5", qrels, runs[3]],
                            capture_output=True)
    assert ours.stdout == theirs.stdout
