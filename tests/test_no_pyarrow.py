"""TREC text goes from bytes to scores without importing pyarrow (issue "From bytes to scores in one pass").

With the compiled reader and id operations built, ``rankmeter trec_eval``, ``rankmeter eval`` and
``rankmeter.evaluate`` on plain and gzipped TREC files never load pyarrow: each runs here in a child
process where ``import pyarrow`` fails, and must print exactly what the same command prints in a child
where pyarrow is there.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

_BLOCKER = """
import sys
class _NoPyarrow:
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError("pyarrow blocked by the test", name=name)
sys.meta_path.insert(0, _NoPyarrow())
"""

# the console script's entry
_CLI = "import sys; sys.argv = ['rankmeter'] + sys.argv[1:]; from rankmeter.cli.app import entry; entry()"
_API = ("import json, rankmeter, sys; r = rankmeter.evaluate(sys.argv[1], sys.argv[2], ['AP', 'nDCG@10', 'P@5', 'RR']);"
        "print(json.dumps(r.to_dict(per_query=True))); print('pyarrow' in sys.modules)")


def _child(code: str, args: list[str], *, blocked: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", (_BLOCKER if blocked else "") + code, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, errors="surrogateescape", timeout=300)


@pytest.mark.parametrize("args", [
    ["trec_eval", "basic.qrels", "basic.run"],
    ["trec_eval", "-q", "-m", "all_trec", "basic.qrels", "basic.run"],
    ["trec_eval", "-c", "-q", "-m", "all_trec", "-M", "2", "basic.qrels", "basic.run"],
    ["trec_eval", "-q", "-m", "ndcg_cut.10", "-J", "latin1.qrels", "latin1.run"],
    ["trec_eval", "-m", "map", "basic.qrels", "basic.run.gz"],
    ["eval", "basic.qrels", "basic.run", "gzipped.run", "-m", "AP", "-m", "nDCG@10", "-q"],
    ["eval", "basic.qrels", "basic.run", "-m", "AP", "-m", "P@5", "--format", "json"],
    ["eval", "basic.qrels", "basic.run", "-m", "AP", "--executor", "streamed", "--format", "csv"],
    ["eval", "odd.qrels", "odd.run", "-m", "AP", "-m", "RR", "-q"],
])
def test_the_text_path_never_imports_pyarrow(args):
    args = [str(DATA / a) if (DATA / a).exists() else a for a in args]
    without = _child(_CLI, args, blocked=True)
    reference = _child(_CLI, args, blocked=False)
    assert reference.returncode == 0, reference.stderr
    assert without.returncode == 0, without.stderr
    assert without.stdout == reference.stdout and without.stdout.strip()


def test_the_api_on_text_files_never_imports_pyarrow():
    files = [str(DATA / "basic.qrels"), str(DATA / "basic.run")]
    without = _child(_API, files, blocked=True)
    reference = _child(_API, files, blocked=False)
    assert without.returncode == 0, without.stderr
    out, loaded = without.stdout.splitlines()
    assert loaded == "False"
    assert out == reference.stdout.splitlines()[0]


def test_ids_with_a_prefix_are_put_in_natural_order_without_pyarrow(tmp_path):
    """Per-query tables list queries in natural order (q2 before q10): whole-array operations, no Arrow."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in (10, 2, 1, 33) for d in range(3)))
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {3 - d} r\n" for q in (1, 33, 10, 2) for d in range(3)))
    args = ["eval", str(qrels), str(run), "-m", "AP", "-q"]
    without = _child(_CLI, args, blocked=True)
    assert without.returncode == 0, without.stderr
    assert [line.split()[1] for line in without.stdout.splitlines()[1:]] == ["q1", "q2", "q10", "q33", "all"]
    assert without.stdout == _child(_CLI, args, blocked=False).stdout


def test_a_user_error_reads_the_same_without_pyarrow(tmp_path):
    """A doc listed twice: the same one-line error naming both lines, exit 2, on the pyarrow-free path."""
    run = tmp_path / "dup.run"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq1 Q0 d1 3 0.5 r\n")
    args = ["trec_eval", str(DATA / "basic.qrels"), str(run)]
    without = _child(_CLI, args, blocked=True)
    reference = _child(_CLI, args, blocked=False)
    assert without.returncode == reference.returncode == 2
    assert without.stderr == reference.stderr and ":1 and 3" in without.stderr
