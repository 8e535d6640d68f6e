"""The compiled dict walker (``_trecparse.from_dicts``) against its Python oracle
(tests/oracles/pytrec_dicts.py): the same columns, or None where rankmeter/compat/pytrec_eval/dicts.py
names pytrec_eval's error."""
from __future__ import annotations

import random
import re
import sys

import numpy as np
import pytest

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pytrec_eval = optional("pytrec_eval")

from rankmeter.compat import pytrec_eval as dropin  # noqa: E402
from rankmeter.compat.pytrec_eval import dicts  # noqa: E402
from oracles import pytrec_dicts  # noqa: E402
from rankmeter.io import _trecparse  # noqa: E402

@pytest.fixture(autouse=True, scope="module")
def _pytrec_eval_past_its_first_ranking():
    """pytrec_eval scores an empty ranking differently before the first non-empty ranking of the process
    (test_pytrec_eval_names.py::test_pytrec_eval_first_empty_ranking_of_a_process): score one first."""
    pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate({"q": {"d": 1.0}})


walker = _trecparse.from_dicts

_IDS = ["d1", "\u00e9", "\u4e2d\u6587", "\U0001f600", "x y", "a" * 300, "0", "D"]


def _dicts(seed: int, qrels: bool):
    rng = random.Random(seed)
    out = {}
    for q in rng.sample(_IDS, rng.randint(0, len(_IDS))):
        out[q] = {d: (rng.randint(-2, 3) if qrels else rng.choice([rng.uniform(-9, 9), rng.randint(-5, 5), True]))
                  for d in rng.sample(_IDS, rng.randint(0, len(_IDS)))}
    return out


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("qrels", [True, False])
def test_walker_gives_the_python_paths_columns(seed, qrels):
    data = _dicts(seed, qrels)
    kind = "qrels" if qrels else "run"
    got = walker(data, qrels)
    want = pytrec_dicts.columns(data, kind)
    q_off, q_val, d_off, d_val, numbers = got
    assert np.frombuffer(q_off, np.int32).tolist() == want[0].offsets.tolist()
    assert q_val == want[0].values.tobytes() and d_val == want[1].values.tobytes()
    assert np.frombuffer(d_off, np.int32).tolist() == want[1].offsets.tolist()
    assert np.frombuffer(numbers, np.int64 if qrels else np.float64).tolist() == want[2].tolist()


@pytest.mark.parametrize("data", [{"q": {"d": 1.5}}, {"q": {"d": "1"}}, {"q": {"d": np.float32(1)}}, {1: {"d": 1}},
                                  {"q": {2: 1}}, {"q": ["d"]}, {"q": {"": 1}}, {"": {"d": 1}}, {"q\x00": {"d": 1}},
                                  {"q": {"d\x00": 1}}, {"q": {"\ud800": 1}}, {"q": {"d": 2 ** 70}}, {"q": {"d": np.int64(1)}}])
def test_walker_leaves_to_python_what_it_does_not_vouch_for(data):
    assert walker(data, True) is None
    # a float or a big int is a score (read as a double), not a grade
    assert walker(data, False) is None or data in ({"q": {"d": 1.5}}, {"q": {"d": 2 ** 70}})
    # and what it leaves is refused with the oracle's error
    for kind in ("qrels", "run"):
        try:
            pytrec_dicts.columns(data, kind)
        except AttributeError:  # an inner value that is no dict: pytrec_eval's TypeError here
            with pytest.raises(TypeError, match="Expected dictionary as value"):
                dicts._columns(data, kind)
        except (TypeError, ValueError, OverflowError) as exc:
            with pytest.raises(type(exc), match=re.escape(str(exc))):
                dicts._columns(data, kind)


def test_ids_past_2_gib_are_walked_in_halves(monkeypatch):
    """The walker's offsets are int32: dicts whose ids hold more are walked a half of the queries at a time
    (the walker refusing any dict of more than one query stands in for 2 GiB of ids)."""
    data = {f"q{i}": {f"d{j}": float(i * j) for j in range(i % 4)} for i in range(9)}
    real = dicts._trecparse.from_dicts
    monkeypatch.setattr(dicts, "_trecparse", type("T", (), {"from_dicts": staticmethod(
        lambda d, qrels: real(d, qrels) if len(d) <= 1 else None)}))
    got, want = dicts._columns(data, "run"), pytrec_dicts.columns(data, "run")
    assert got[0].to_pylist() == want[0].to_pylist() and got[1].to_pylist() == want[1].to_pylist()
    assert got[2].tolist() == want[2].tolist()


def test_walker_holds_no_reference_it_should_not():
    inner = {"d1": 1.5, "d2": 2}
    data = {"q1": inner}
    before = [sys.getrefcount(x) for x in (inner, "q1", "d1")]
    for _ in range(100):
        walker(data, False)
        walker({"q1": {"d1": "x"}}, False)
    assert [sys.getrefcount(x) for x in (inner, "q1", "d1")] == before


@pytest.mark.parametrize("qrels, run", [
    ({"q": {"d": True, "e": 0}}, {"q": {"d": True, "e": 0.5}}),            # bools are ints to pytrec_eval
    ({"q": {"d": 1}}, {"q": {"d": np.float64(0.25), "e": 3}}),            # numpy float64 is a float
    ({"q": {"d": 1}}, {"q": {"d": 1e300, "e": 1e301, "f": -1e300}}),      # past float's range: +-inf, tied
])
def test_accepted_types_as_pytrec_eval(qrels, run):
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_1", "recip_rank"}).evaluate(run)
    assert dropin.RelevanceEvaluator(qrels, {"map", "P_1", "recip_rank"}).evaluate(run) == want


@pytest.mark.parametrize("qrels, run", [
    ({"q": {"d": np.int64(1)}}, {"q": {"d": 1.0}}),
    ({"q": {"d": 1}}, {"q": {"d": np.float32(1.0)}}),
    ({"q": {"d": 1}}, {"q": {"d": None}}),
])
def test_refused_types_as_pytrec_eval(qrels, run):
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    with pytest.raises(TypeError):
        dropin.RelevanceEvaluator(qrels, {"map"}).evaluate(run)


def test_walker_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    """from_dicts built with ASan and UBSan: growing columns past several doublings, empty dicts and
    queries, every refusal, unicode ids; any overflow or undefined behaviour aborts the child."""
    from sanitized import ROOT, run_sanitized
    script = (
        "import random\n"
        "rng = random.Random(5)\n"
        "big = {f'q{i}': {f'doc{j}\\u00e9' * rng.randint(1, 3): rng.random() for j in range(rng.randint(0, 300))}"
        " for i in range(300)}\n"
        "out = module.from_dicts(big, False)\n"
        "assert len(out[4]) == 8 * sum(len(v) for v in big.values())\n"
        "assert module.from_dicts({}, True) == (b'\\x00' * 4, b'', b'\\x00' * 4, b'', b'')\n"
        "assert module.from_dicts({'q': {}}, True)[4] == b''\n"
        "for bad in [{'q': {'d': 'x'}}, {1: {}}, {'q': [1]}, {'q': {'': 1}}, {'q': {'\\ud800': 1}}, {'q': {'d': 2 ** 70}}]:\n"
        "    assert module.from_dicts(bad, True) is None\n"
        "print('ok')\n")
    done = run_sanitized(ROOT / "rankmeter" / "io" / "_trecparse.c", tmp_path, script)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_dicts_are_scored_without_pyarrow_or_pandas():
    """With the extensions built the drop-in never imports pyarrow or pandas (the old dict path imported
    pandas through pyarrow)."""
    import os
    import subprocess
    from pathlib import Path
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pyarrow', 'pandas'):\n"
        "            raise ModuleNotFoundError('blocked by the test', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from rankmeter.compat import pytrec_eval\n"
        "ev = pytrec_eval.RelevanceEvaluator({'q1': {'a': 1, 'b': 0}, 'q2': {'a': 2}}, {'all_trec'}, relevance_level=1)\n"
        "out = ev.evaluate({'q1': {'a': 0.1, 'b': 0.2}, 'q2': {}, 'q3': {'a': 1.0}})\n"
        "print(sorted(out), round(out['q1']['map'], 4), len(out['q2']))\n")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "['q1', 'q2'] 0.5 95"  # all_trec: 95 labels
