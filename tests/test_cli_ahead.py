"""The command line's parse ahead (rankmeter/cli/ahead.py): which files it takes, and that the reader uses a
parse made ahead only for the very bytes it reads."""
from __future__ import annotations

import pytest

import rankmeter
from rankmeter.cli import ahead
from rankmeter.io import compiled

QRELS = b"301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n"
RUN = b"301 Q0 d1 1 2.5 r\n301 Q0 d9 2 1.5 r\n302 Q0 d3 1 0.5 r\n"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.delenv("RANKMETER_PURE", raising=False)
    monkeypatch.delattr(compiled._trecparse, "ahead", raising=False)  # restored after the test
    qrels, run, other = tmp_path / "q.txt", tmp_path / "r.txt", tmp_path / "z.txt"
    qrels.write_bytes(QRELS)
    run.write_bytes(RUN)
    other.write_bytes(b"x")
    return str(qrels), str(run), str(other)


def test_which_files_are_parsed_ahead(files):
    qrels, run, other = files
    assert ahead._jobs(["rankmeter", "trec_eval", "-q", "-Z", other, "-m", "map", qrels, run]) == \
        [("qrels", qrels), ("run", run)]
    assert ahead._jobs(["rankmeter", "eval", qrels, run, run, "-m", "AP"]) == \
        [("qrels", qrels), ("run", run), ("run", run)]
    assert ahead._jobs(["rankmeter", "compare", qrels, run]) == []
    assert ahead._jobs(["rankmeter", "trec_eval", qrels, "/no/such/file"]) == []


def _used_parses(monkeypatch):
    """Count the reader's own parses from here on (a parse made ahead is not one)."""
    calls = []
    parse = compiled._trecparse.parse
    monkeypatch.setattr(compiled._trecparse, "parse", lambda *a: calls.append(a[1:]) or parse(*a))
    return calls


def test_the_reader_takes_the_parse_made_ahead(files, monkeypatch):
    qrels, run, _ = files
    expected = rankmeter.evaluate(qrels, run, ["AP", "P@2"]).to_dict(per_query=True)
    ahead.start(["rankmeter", "trec_eval", qrels, run])
    compiled._trecparse.ahead[0].join()
    calls = _used_parses(monkeypatch)
    assert rankmeter.evaluate(qrels, run, ["AP", "P@2"]).to_dict(per_query=True) == expected
    assert calls == []  # both files came from the parse made ahead
    assert rankmeter.evaluate(qrels, run, ["AP"])["AP"] == expected["mean"]["AP"]
    assert calls == [(1, 0), (0, 0)]  # used once: parsed again the second time


def test_a_file_changed_since_is_parsed_again(files, monkeypatch):
    qrels, run, _ = files
    ahead.start(["rankmeter", "trec_eval", qrels, run])
    compiled._trecparse.ahead[0].join()
    with open(run, "wb") as handle:
        handle.write(RUN.replace(b"2.5", b"0.1"))
    calls = _used_parses(monkeypatch)
    result = rankmeter.evaluate(qrels, run, ["RR"])
    assert result.values("RR").tolist() == [0.5, 1.0]  # 301's d1 now ranks after the unjudged d9: RR(301) = 1/2
    assert calls == [(0, 0)]


def test_nothing_ahead_on_the_pure_path(files, monkeypatch):
    qrels, run, _ = files
    monkeypatch.setenv("RANKMETER_PURE", "1")
    ahead.start(["rankmeter", "trec_eval", qrels, run])
    assert not hasattr(compiled._trecparse, "ahead")
