"""The ranx drop-in on bad input: one-line rankmeter errors that are also the type ranx raises; safe saves.

Each case names what ranx 0.3.21 raises for the same call (checked here against ranx itself where ranx
raises at all), and the drop-in must raise a :class:`rankmeter.errors.RankmeterError` that is an
instance of that type too, in one line: a script that catches ranx's exception keeps working, and no
raw ``TypeError``/``KeyError``/``AttributeError`` escapes.
"""
from __future__ import annotations

import json
import os
import warnings

import numpy as np
from optional_packages import optional  # noqa: E402

import pytest

pd = optional("pandas")
ranx = optional("ranx")

import rankmeter.compat.ranx as ours  # noqa: E402
from rankmeter.compat.ranx import fusion as ours_fusion  # noqa: E402
from rankmeter.compat.ranx import metrics as ours_metrics  # noqa: E402
from rankmeter.compat.ranx import normalization as ours_norm  # noqa: E402
from rankmeter.errors import InputError, RankmeterError  # noqa: E402

warnings.filterwarnings("ignore", category=Warning, module="numba")

Q = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
R = {"q1": {"d1": 0.5, "d4": 0.3}, "q2": {"d3": 0.1}}


def _cases(lib):
    """(name, call, the type ranx raises): the same call on ranx (lib=ranx) or the drop-in."""
    runs = lambda: [lib.Run(R, name="a"), lib.Run(R, name="b")]  # noqa: E731
    return [
        ("metric not a string", lambda: lib.evaluate(lib.Qrels(Q), lib.Run(R), 5), TypeError),
        ("metric list holds None", lambda: lib.evaluate(lib.Qrels(Q), lib.Run(R), [None]), AssertionError),
        ("negative cutoff", lambda: lib.evaluate(Q, R, "map@-1"), AssertionError),
        ("cutoff not a number", lambda: lib.evaluate(Q, R, "ndcg@x"), ValueError),
        ("unknown metric", lambda: lib.evaluate(Q, R, "foo"), ValueError),
        ("rbp without persistence", lambda: lib.evaluate(Q, R, "rbp"), ValueError),
        ("level not a number", lambda: lib.evaluate(Q, R, "ndcg@3-lx"), ValueError),
        ("score not a number", lambda: lib.Run({"q1": {"d1": "abc"}}), ValueError),
        ("grade not a number", lambda: lib.Qrels({"q1": {"d1": "x"}}), ValueError),
        ("mismatched queries", lambda: lib.evaluate(lib.Qrels(Q), lib.Run({"q1": {"d1": 1.0}}), "ndcg@3"),
         AssertionError),
        ("one run to fuse", lambda: lib.fuse([lib.Run(R)]), AssertionError),
        ("unknown fusion method", lambda: lib.fuse(runs(), method="zzz"), ValueError),
        ("unknown norm", lambda: lib.fuse(runs(), norm="zzz"), ValueError),
        ("wsum without weights", lambda: lib.fuse(runs(), method="wsum"), TypeError),
        ("rbc without phi", lambda: lib.fuse(runs(), method="rbc"), TypeError),
        ("unknown normalize", lambda: lib.normalize(lib.Run(R), "zzz"), ValueError),
        ("unknown stat test", lambda: lib.compare(lib.Qrels(Q), runs(), ["ndcg"], stat_test="zz"),
         NotImplementedError),
        ("file kind", lambda: lib.Run(R).save("run.csv"), AssertionError),
        ("file missing", lambda: lib.Run.from_file("/nonexistent/run.json"), FileNotFoundError),
        ("query missing", lambda: lib.Run(R)["zz"], KeyError),
        ("DataFrame column missing", lambda: lib.Run.from_df(pd.DataFrame({"a": [1]})), KeyError),
        ("run is a list", lambda: lib.Run([1, 2]), AttributeError),
    ]


@pytest.mark.parametrize("case", range(len(_cases(ours))), ids=[c[0] for c in _cases(ours)])
def test_each_refusal_is_one_line_rankmeter_error_of_ranx_type(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name, call, ranx_type = _cases(ranx)[case]
    with pytest.raises(ranx_type):
        call()  # what ranx raises
    name, call, ranx_type = _cases(ours)[case]
    if ranx_type is AttributeError:  # ranx's is an accident of its code: the drop-in's is a TypeError
        ranx_type = TypeError
    with pytest.raises(RankmeterError) as caught:
        call()
    assert isinstance(caught.value, ranx_type), (name, type(caught.value).__mro__)
    message = str(caught.value)
    assert message and "\n" not in message and len(message) < 400, message


BAD = [
    ("metrics None", lambda: ours.evaluate(Q, R, None)),
    ("grade infinite", lambda: ours.Qrels({"q1": {"d1": float("inf")}})),
    ("grade NaN", lambda: ours.Qrels({"q1": {"d1": float("nan")}})),
    ("grade past int64", lambda: ours.evaluate({"q1": {"d1": 2 ** 70}}, {"q1": {"d1": 1.0}}, "ndcg")),
    ("a query's docs a list", lambda: ours.Run({"q1": [1, 2]})),
    ("qrels a string", lambda: ours.evaluate("a", "b", "ndcg")),
    ("qrels None", lambda: ours.evaluate(None, None, "ndcg")),
    ("fuse None", lambda: ours.fuse(None)),
    ("fuse one Run", lambda: ours.fuse(ours.Run(R))),
    ("weights of the wrong length", lambda: ours.fuse([ours.Run(R)] * 2, method="wsum", params={"weights": [1]})),
    ("unknown parameter", lambda: ours.fuse([ours.Run(R)] * 2, method="rrf", params={"zz": 1})),
    ("normalize None", lambda: ours.normalize(None)),
    ("borda_norm None", lambda: ours_norm.borda_norm(None)),
    ("kernel on dicts", lambda: ours_metrics.ndcg({"a": 1}, {"b": 2})),
    ("kernel ragged array", lambda: ours_metrics.ndcg([np.array([1, 2, 3])], [np.array([[1, 2]])])),
    ("kernel string ids", lambda: ours_metrics.ndcg([np.array([["a", "b"]])], [np.array([[1, 2]])])),
    ("kernel run shorter", lambda: ours_metrics.ndcg([np.array([[1, 1]])] * 2, [np.array([[1, 2.0]])])),
    ("kernel fractional grade", lambda: ours_metrics.ndcg([np.array([[1, 0.5]])], [np.array([[1, 2.0]])])),
    ("rbp persistence 2", lambda: ours_metrics.rank_biased_precision([np.array([[1, 1]])], [np.array([[1, 2.0]])], 2)),
    ("set_relevance_level a string", lambda: ours.Qrels(Q).set_relevance_level("x")),
    ("make_comparable None", lambda: ours.Run(R).make_comparable(None)),
    ("probfuse 0 segments", lambda: ours_fusion.probfuse_train(ours.Qrels(Q), [ours.Run(R)] * 2, 0)),
    ("compare two runs named alike", lambda: ours.compare(Q, [ours.Run(R, name="a")] * 2, ["ndcg"])),
]


@pytest.mark.parametrize("call", [c[1] for c in BAD], ids=[c[0] for c in BAD])
def test_no_raw_error_escapes(call):
    with pytest.raises(RankmeterError) as caught:
        call()
    assert "\n" not in str(caught.value)


def test_bad_json_file_names_its_line(tmp_path):
    (tmp_path / "run.json").write_text('{"q1":\n  {"d1": }}')
    with pytest.raises(InputError, match=r"run\.json: not valid JSON \(Expecting value, line 2 column"):
        ours.Run.from_file(str(tmp_path / "run.json"))


def test_ndcg_at_0_is_the_whole_ranking_as_in_ranx():
    want = ranx.evaluate(ranx.Qrels(Q), ranx.Run(R), ["ndcg@0", "precision@0", "ndcg"])
    got = ours.evaluate(ours.Qrels(Q), ours.Run(R), ["ndcg@0", "precision@0", "ndcg"])
    assert got == pytest.approx(want, abs=1e-12)
    assert got["ndcg@0"] == got["ndcg"]


# ------------------------------------------------------------------ save() through the guarded writer
def test_save_never_overwrites_the_file_it_read(tmp_path):
    from rankmeter.io.output import OutputIsInput
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4 tag\n")
    run = ours.Run.from_file(str(path))
    with pytest.raises(OutputIsInput):
        run.save(str(path))
    assert path.read_text() == "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4 tag\n"


@pytest.mark.parametrize("ext", ["json", "trec", "parquet", "lz4"])
def test_save_failing_midway_leaves_no_file_and_no_temporary(tmp_path, ext):
    class Unwritable:
        def __format__(self, spec):
            raise RuntimeError("cannot be written")

    run = ours.Run({"q1": {"d1": 1.0}}, name="x")
    run._data["q1"]["d2"] = Unwritable()  # every format fails once the writer has opened its file
    with pytest.raises(Exception):
        run.save(str(tmp_path / f"run.{ext}"))
    assert os.listdir(tmp_path) == []


def test_save_to_a_full_disk_is_one_line(tmp_path):
    from rankmeter.io.output import OutputError
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this machine")
    run = ours.Run({"q1": {f"d{i}": float(i) for i in range(20000)}}, name="x")
    with pytest.raises(OutputError) as caught:
        run.save("/dev/full", kind="json")
    assert "\n" not in str(caught.value)


def test_saved_files_read_back_as_ranx_reads_them(tmp_path):
    run = ours.Run({"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d3": 0.5}}, name="tag")
    qrels = ours.Qrels({"q1": {"d1": 1, "d2": 0}})
    for ext in ("json", "trec"):
        run.save(str(tmp_path / f"run.{ext}"))
        qrels.save(str(tmp_path / f"qrels.{ext}"))
        assert {q: dict(d) for q, d in ranx.Run.from_file(str(tmp_path / f"run.{ext}")).to_dict().items()} == \
            run.to_dict()
        assert {q: dict(d) for q, d in ranx.Qrels.from_file(str(tmp_path / f"qrels.{ext}")).to_dict().items()} == \
            qrels.to_dict()
    assert json.loads((tmp_path / "run.json").read_text()) == run.to_dict()
