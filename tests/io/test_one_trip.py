"""One trip through rankmeter/io: a run read by ``rankmeter.evaluate`` enters each io module once.

The walk is traced by ``bench/io_walk.py`` (the same tracer prints the figures): an *entry* is a call into
an io module from another one (the caller being the nearest io frame below it), a call within a module is
none, nor is a module's code run while it is imported; the same call site calling the same module again
with nothing else in between (a reader pulling block after block from one stream) is one entry. A module
entered a second time is the walk going back to a room it had left: ping-pong between two modules (one
calling the other's helpers from two places) counts, as does a lower module calling back up.
"""
from __future__ import annotations

import importlib.util
import os

import pytest

from rankmeter.io import as_qrels

_SPEC = importlib.util.spec_from_file_location(
    "io_walk", os.path.join(os.path.dirname(__file__), "..", "..", "bench", "io_walk.py"))
io_walk = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(io_walk)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    paths = io_walk.files(str(tmp_path_factory.mktemp("runs")))
    with pytest.MonkeyPatch.context() as patch:  # big: past the sizes from which a file is read as it streams
        from rankmeter.io import compiled
        patch.setattr(compiled, "FILE_MIN_BYTES", os.path.getsize(paths["big.txt"]) - 1)
        patch.setattr(compiled, "COMPRESSED_MIN_BYTES",
                      min(os.path.getsize(paths[n]) for n in ("big.txt.xz", "big.jsonl.xz")) - 1)
        yield paths


@pytest.fixture(scope="module")
def qrels():
    return as_qrels({f"q{q}": {"d3": 1, "d7": 2} for q in range(400)})


READER = {"run.txt": "trec.py", "run.txt.gz": "trec.py", "run.jsonl": "jsonl.py", "run.csv": "delimited.py"}
BIG = {"big.txt": ["trec.py", "compiled.py", "guard.py"], "big.txt.xz": ["trec.py", "compiled.py", "guard.py"],
       "big.jsonl": ["guard.py", "jsonl.py"], "big.jsonl.xz": ["guard.py", "jsonl.py"]}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", [*READER, *BIG])
def test_a_run_read_by_evaluate_enters_each_io_module_once(runs, qrels, name):
    io_walk.run_walk(qrels, runs[name])   # modules imported before the walk
    walk = io_walk.run_walk(qrels, runs[name])["entries"]
    assert [m for i, m in enumerate(walk) if m in walk[:i]] == [], " -> ".join(walk)
    assert "irds.py" not in walk
    assert walk[-1] in ("canonical.py", "frames.py")
    if name in READER:
        # one source object (opened, recorded, peeked, decompressed, guarded, sniffed), one dispatch, one reader
        assert walk[:8] == ["__init__.py", "source.py", "inputs.py", "compression.py", "guard.py", "lines.py",
                            "formats.py", READER[name]], walk
    else:
        # a big file: the source opens, peeks, decompresses its head and sniffs it; its text is checked once,
        # by the module that reads it (the compiled reader block by block, or the registry reading it whole)
        assert walk[:6] == ["__init__.py", "source.py", "inputs.py", "compression.py", "lines.py", "formats.py"]
        assert walk[6:6 + len(BIG[name])] == BIG[name], walk


def test_qrels_by_dataset_id_are_resolved_where_qrels_are_read(runs):
    """The ir_datasets question is asked by read_qrels, once, before the file is read; never for a run."""
    import rankmeter
    path = os.path.join(os.path.dirname(runs["run.txt"]), "qrels.txt")
    with open(path, "w") as fh:
        fh.write("q1 0 d3 1\n")
    rankmeter.read_qrels(path)
    walk = io_walk.walk(lambda: rankmeter.read_qrels(path))["entries"]
    assert walk[:3] == ["__init__.py", "irds.py", "source.py"] and walk.count("irds.py") == 1, walk
    run_walk = io_walk.walk(lambda: rankmeter.read_run(runs["run.txt"]))["entries"]
    assert "irds.py" not in run_walk


def test_the_walk_tracer_sees_a_module_entered_twice():
    """The tracer can fail: ping-pong between two modules, and a lower module calling back up, are counted."""
    from rankmeter.io import formats, lines

    def ping_pong():  # formats asks lines twice, from two places
        lines.first_data_line(b"q 0 d 1\n")
        formats.is_parquet(b"x")
        lines.split_header(b"q d", "whitespace")

    found = io_walk.walk(lambda: formats.detect(b"q1 Q0 d1 1 2.5 t\n", "run.txt"))
    assert found["reentries"] == [], found   # a whole detect without its head: one visit to lines
    found = io_walk.walk(ping_pong)
    assert found["entries"] == ["lines.py", "formats.py", "lines.py"] and found["reentries"] == ["lines.py"]
