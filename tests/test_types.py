"""The public type aliases check something: a type checker accepts every documented input form and flags others.

``rankmeter.types`` describes tables by protocol (the Arrow PyCapsule stream every supported DataFrame exports),
so the first test checks that the real frames have it; the second runs mypy on a small script of good and bad calls.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from optional_packages import optional  # tests/ is on sys.path (tests/conftest.py)

mypy = optional("mypy")
pd = optional("pandas")
pl = optional("polars")

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = '''
import io
import pathlib

import rankmeter
from rankmeter.types import QrelsLike, RunLike, TableLike


class Frame:  # any table exporting an Arrow stream (pandas, polars, pyarrow, Spark >= 4)
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return None


qrels = {"q1": {"d1": 1, "d2": 0}}
run = {"q1": {"d1": 0.5, "d2": 0.2}}
ranked = {"q1": ["d2", "d1"]}
runs: list[RunLike] = [run, ranked, "run.txt", pathlib.Path("run.txt"), io.BytesIO(b""), Frame()]
judgments: list[QrelsLike] = [qrels, {"q1": {"s1": {"d1": 1}}}, "qrels.txt", Frame()]
table: TableLike = Frame()
r: rankmeter.Results = rankmeter.evaluate(qrels, run, ["AP"], rel=2, ties="input", max_docs=10)
t: rankmeter.RunsResults = rankmeter.evaluate_runs(qrels, {"a": run, "b": ranked}, "AP", queries="qrels")
rankmeter.evaluate_runs(qrels, [run, "run.txt", Frame()], "AP", columns={"query": 0, "doc": 1, "rank": 2})

rankmeter.evaluate(qrels, 42, "AP")  # E: arg-type
rankmeter.evaluate({"q1": ["d1"]}, run, "AP")  # E: arg-type
rankmeter.evaluate(qrels, run, "AP", ties="random")  # E: arg-type
rankmeter.evaluate(qrels, run, "AP", relevance_level=2)  # E: call-arg
rankmeter.evaluate(qrels, run, "AP", max_docs="10")  # E: arg-type
x: float = rankmeter.evaluate_runs(qrels, [run], "AP")  # E: assignment

# every entry point that scores runs: the evaluation options as typed keywords (PEP 692), its own too
from rankmeter.report import html, plots

e: rankmeter.Explanation = rankmeter.explain(qrels, run, "AP", "q1", rel=2, judged_only=True)
c: rankmeter.Comparison = rankmeter.compare(qrels, [run, ranked], "AP", test="wilcoxon", queries="qrels")
rankmeter.compare_scores({"a": {"AP": {"q1": 0.5}}}, lower_is_better=["AP"], correction="holm")
rankmeter.Evaluator(qrels, "AP", max_docs=5, intents={"q1": {"s1": 0.5}})
plots.plot_distribution(qrels, [run, ranked], "AP", style="violin", ties="input")
html.write_report(qrels, [run, ranked], "AP", "r.html", title="t", rel=2)
rankmeter.explain(qrels, run, "AP", "q1", relevance_level=2)  # E: call-arg
rankmeter.compare(qrels, [run, ranked], "AP", test="z")  # E: arg-type
rankmeter.compare(qrels, [run, ranked], "AP", ties="random")  # E: arg-type
rankmeter.Evaluator(qrels, "AP", max_docs="5")  # E: arg-type
plots.plot_distribution(qrels, [run, ranked], "AP", kind="box")  # E: call-arg
html.render_report(qrels, [run, ranked], "AP", judged=True)  # E: call-arg
'''


def test_every_supported_frame_exports_the_arrow_stream_the_protocol_asks_for():
    import pyarrow as pa

    frames = [pd.DataFrame({"query": ["q1"]}), pl.DataFrame({"query": ["q1"]}), pa.table({"query": ["q1"]}),
              pa.record_batch({"query": ["q1"]})]
    assert [callable(getattr(f, "__arrow_c_stream__", None)) for f in frames] == [True] * 4
    assert callable(pl.LazyFrame({"query": ["q1"]}).collect)  # the LazyTableLike protocol


def test_mypy_accepts_each_input_form_and_flags_each_wrong_call(tmp_path):
    script = tmp_path / "use.py"
    script.write_text(SCRIPT.lstrip("\n"))
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context",
                          "--follow-imports=silent", "--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache"),
                          "--python-executable", sys.executable, str(script)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    lines = SCRIPT.lstrip("\n").splitlines()
    expected = {i + 1: m.group(1) for i, line in enumerate(lines) if (m := re.search(r"# E: (\S+)", line))}
    flagged = {int(m.group(1)): m.group(2) for m in re.finditer(r"use\.py:(\d+): error: .*\[([\w-]+)\]$",
                                                                    out.stdout, re.M)}
    assert flagged == expected, out.stdout + out.stderr
