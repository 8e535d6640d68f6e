"""Score standardisation by hand; the -Z file read back by rankmeter and by trec_eval itself."""
from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import rankmeter
from rankmeter.meta.zscores import MISSING_ZSCORE
from rankmeter.io.zscores import read_zscores
from rankmeter.meta import standardisation, standardise, write_zscores


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


def _identical_case(tmp_path, value_runs=3):
    """Topic 1: every reference run ranks the one relevant doc 5th of 10, so P_10 = 0.1 and map = 0.2 in each
    (numpy's std of three 0.1s is 1.7e-17 and their mean 0.1 + 1 ulp); topic 2 differs between runs."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d5 1\n" + "".join(f"2 0 d{d} 1\n" for d in range(3)))
    runs = []
    for r in range(value_runs):
        p = tmp_path / f"r{r}.run"
        p.write_text("".join(f"1 Q0 d{d} {d} {20 - d} r{r}\n" for d in range(1, 11))
                     + "".join(f"2 Q0 d{(d + r) % 10} {d + 1} {20 - d} r{r}\n" for d in range(10)))
        runs.append(str(p))
    return str(qrels), runs


def test_identical_values_give_a_deviation_of_exactly_zero(tmp_path):
    qrels, runs = _identical_case(tmp_path)
    table = standardisation(qrels, runs, ["P_10", "map"])
    assert np.std([0.1, 0.1, 0.1], ddof=1) > 0        # what the file held before
    assert table["1"]["P_10"] == (0.1, 0.0) and table["1"]["map"] == (0.2, 0.0)
    assert table["2"]["P_10"][1] == 0.0 and table["2"]["map"][1] > 0   # P_10 = 0.3 in all three; map differs
    path = tmp_path / "z.txt"
    write_zscores(table, path)
    lines = path.read_text().splitlines()
    assert "1 P_10 0.1 0.0" in lines and "1 map 0.2 0.0" in lines


def test_trec_eval_z_gives_zero_for_a_run_at_the_mean(tmp_path):
    """rankmeter trec_eval -Z on a reference run: Z 0.0000 on the topics where every reference run scored
    alike (was -0.54: (0.1 - (0.1 + 1 ulp)) / 1.7e-17), and trec_eval's -1000000 for a value elsewhere."""
    import io

    from rankmeter.cli.trec_eval import run as trec_eval
    from rankmeter.meta.zscores import to_zscores

    qrels, runs = _identical_case(tmp_path)
    path = tmp_path / "z.txt"
    write_zscores(standardisation(qrels, runs, ["P_10"]), path)
    back = read_zscores(str(path))
    assert back[b"1"][b"P_10"] == (0.1, 0.0)
    assert to_zscores(np.array([0.1, 0.2]), [b"1", b"1"], "P_10", back).tolist() == [0.0, MISSING_ZSCORE]
    out = io.BytesIO()
    assert trec_eval(["-q", "-Z", str(path), "-m", "P.10", qrels, runs[0]], out=out) == 0
    lines = out.getvalue().decode().splitlines()
    label = "Z" + f"{'P_10':<22}"
    assert f"{label}\t1\t0.0000" in lines and f"{label}\t2\t0.0000" in lines
    other = tmp_path / "other.run"
    other.write_text("".join(f"1 Q0 d{d} {d + 1} {20 - d} x\n" for d in range(6, 16)))
    out = io.BytesIO()
    assert trec_eval(["-q", "-Z", str(path), "-m", "P.10", qrels, str(other)], out=out) == 0
    assert f"{label}\t1\t-1000000.0000" in out.getvalue().decode().splitlines()


def test_write_zscores_refuses_to_replace_an_input(tmp_path):
    from rankmeter.errors import RankmeterError

    qrels, runs = _identical_case(tmp_path)
    table = standardisation(qrels, runs, ["P_10"])
    before = open(runs[0]).read()
    with pytest.raises(RankmeterError):
        write_zscores(table, runs[0], inputs=[qrels, *runs])
    assert open(runs[0]).read() == before


def test_c_trec_eval_reads_the_identical_values_file_as_rankmeter_does(tmp_path):
    import io

    from rankmeter.cli.trec_eval import run as trec_eval

    qrels, runs = _identical_case(tmp_path)
    path = tmp_path / "z.txt"
    write_zscores(standardisation(qrels, runs, ["P_10", "map"]), path)
    binary = os.environ.get("TREC_EVAL_BIN")
    if not binary:
        pytest.skip("TREC_EVAL_BIN not set (built by .ci/run from shared/anchors)")
    for run in runs:
        argv = ["-q", "-Z", str(path), "-m", "P.10", "-m", "map", qrels, run]
        out = io.BytesIO()
        assert trec_eval(argv, out=out) == 0
        theirs = subprocess.run([binary, *argv], capture_output=True)
        assert out.getvalue() == theirs.stdout
        assert b"Zmap                   \t1\t0.0000\n" in theirs.stdout


def test_ddof_is_validated(tmp_path):
    from rankmeter.errors import ParameterError

    qrels, runs = _identical_case(tmp_path)
    for bad in (-1, 0.5, None, "1"):
        with pytest.raises(ParameterError, match=r"ddof=.*: expected an integer in \[0, inf\)"):
            standardisation(qrels, runs, ["P_10"], ddof=bad)
    population, sample = (standardisation(qrels, runs, ["map"], ddof=d)["2"]["map"][1] for d in (0, 1))
    assert population == pytest.approx(sample * math.sqrt(2 / 3))


def test_a_topic_uses_the_runs_that_rank_it(tmp_path):
    qrels, runs = _case(tmp_path)
    lines = [line for line in open(runs[0]).read().splitlines() if not line.startswith("3 ")]
    open(runs[0], "w").write("\n".join(lines) + "\n")             # r0 no longer ranks topic 3
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = standardisation(qrels, runs, ["map"])
        xs = np.array([rankmeter.evaluate(qrels, r, ["map"]).to_dict(per_query=True)["per_query"][2]["map"]
                       for r in runs[1:]])
    assert table["3"]["map"] == pytest.approx((xs.mean(), xs.std(ddof=1)))
    assert sorted(table) == [str(t) for t in range(1, 9)]
