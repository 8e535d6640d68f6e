"""One trip through rankmeter/io: a run read by ``rankmeter.evaluate`` enters each io module once.

The walk is traced with ``sys.setprofile``: an *entry* is a call into a module of ``rankmeter/io`` from
another one (or from outside io), found by walking back to the nearest io frame of the caller; a call
within a module (its own helpers) or from the standard library back into the module that drove it (a
decompressor reading its file object) is no entry, nor is a module's code run while it is imported.
A reader taking block after block from the same module enters it once (consecutive entries are one).
A module entered again after another one was entered is the walk going back to a room it had left.
"""
from __future__ import annotations

import gzip
import os
import sys

import pytest

import rankmeter
import rankmeter.io
from rankmeter.io import as_qrels

IO = os.path.dirname(rankmeter.io.__file__) + os.sep


def _module(frame) -> str | None:
    name = frame.f_code.co_filename
    return name[len(IO):] if name.startswith(IO) else None


def trips(work) -> list[list[str]]:
    """Every trip into rankmeter/io while ``work()`` runs: the io modules entered, in order."""
    found: list[list[str]] = []

    def profile(frame, event, arg):
        if event != "call" or _module(frame) is None:
            return
        back = frame
        while back is not None:
            if back.f_code.co_filename.startswith("<frozen importlib"):
                return  # a module's code run as it is imported
            back = back.f_back
        module, caller = _module(frame), frame.f_back
        while caller is not None and _module(caller) is None:
            caller = caller.f_back
        if caller is None:
            found.append([module])
        elif _module(caller) != module and found[-1][-1] != module:
            found[-1].append(module)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return found


def _lines(queries: int, depth: int) -> str:
    return "".join(f"q{q} Q0 d{d} {d + 1} {depth - d * 0.5:.2f} bm25\n" for q in range(queries) for d in range(depth))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    small, big = _lines(30, 100), _lines(400, 100)
    files = {"run.txt": small.encode(), "run.txt.gz": gzip.compress(small.encode()),
             "big.txt": big.encode(), "big.txt.xz": __import__("lzma").compress(big.encode(), preset=0),
             "run.csv": ("qid,docno,score\n" + "".join(",".join(line.split()[i] for i in (0, 2, 4)) + "\n"
                                                      for line in small.splitlines())).encode()}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:  # big: past the sizes from which a file is read as it streams
        from rankmeter.io import compiled
        patch.setattr(compiled, "FILE_MIN_BYTES", len(files["big.txt"]) - 1)
        patch.setattr(compiled, "COMPRESSED_MIN_BYTES", len(files["big.txt.xz"]) - 1)
        yield folder


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz", "big.txt", "big.txt.xz", "run.csv"])
def test_a_run_read_by_evaluate_enters_each_io_module_once(runs, name):
    qrels = as_qrels({f"q{q}": {"d3": 1, "d7": 2} for q in range(400)})
    path = str(runs / name)
    rankmeter.evaluate(qrels, path, ["nDCG@10"], queries="both")   # modules imported before the walk
    walked = trips(lambda: rankmeter.evaluate(qrels, path, ["nDCG@10"], queries="both"))
    reading = [t for t in walked if "source.py" in t]
    assert len(reading) == 1, walked                 # the file is opened once
    walk = reading[0]
    again = [m for i, m in enumerate(walk) if m in walk[:i]]
    assert again == [], " -> ".join(walk)
    # the path itself: one source object, one dispatch, one reader, no ir_datasets question for a run
    assert walk[:3] == ["__init__.py", "formats.py", "source.py"] and "irds.py" not in walk
    reader = {"run.csv": "delimited.py"}.get(name, "trec.py")
    assert reader in walk and walk.index(reader) > walk.index("source.py")
    assert walk[-1] in ("canonical.py", "frames.py")
    if name.startswith("big"):   # parsed as it streams: the guard checks the blocks the compiled reader takes
        assert walk.index("guard.py") > walk.index("compiled.py")


def test_qrels_by_dataset_id_are_resolved_where_qrels_are_read(runs):
    """The ir_datasets question is asked for qrels only (irds.dataset_qrels), once, before the file is read."""
    path = runs / "qrels.txt"
    path.write_text("q1 0 d3 1\n")
    walk = [t for t in trips(lambda: rankmeter.read_qrels(str(path))) if "source.py" in t][0]
    assert walk[:3] == ["__init__.py", "irds.py", "formats.py"] and walk.count("irds.py") == 1


def test_the_walk_tracer_sees_a_module_entered_twice():
    """The tracer can fail: a trip that goes back to a module it had left is reported as such."""
    from rankmeter.io import formats, guard, source

    class Circling:  # a file object whose reads call back into source.py and formats.py in turn
        blocks = [b"q1 Q0 d1 1 2.5 t\n", b"q1 Q0 d2 2 1.5 t\n", b""]

        def read(self, size=-1):
            source.compression_of(b"ab") if len(self.blocks) % 2 else formats.is_parquet(b"x\n")
            return self.blocks.pop(0)

    (walk,) = trips(lambda: guard.read_text(Circling(), "<circling>"))
    assert walk == ["guard.py", "source.py", "formats.py", "source.py"]
