"""The walk of a run through rankmeter/io while ``rankmeter.evaluate`` reads it: the io modules in the order
they are entered, and how often the walk goes back to a module it had left.

    PYTHONPATH=. python bench/io_walk.py            # TREC text, gzip, JSON Lines, CSV; big TREC and JSONL, plain and xz
    PYTHONPATH=/other/tree python bench/io_walk.py  # the same walk of another checkout

The walk is traced with ``sys.setprofile`` from the call of ``rankmeter.io.as_run`` to its return (qrels
are read before, outside the trace). Two counts are printed:

* **entries**: a call into an io module from another one. The caller is the nearest io frame below the
  callee (a decompressor of the standard library reading an io file object is its io caller's call); a
  call within a module is none, nor is a module's code run while it is imported. The same call site
  calling the same module again with nothing else in between (a reader pulling block after block from
  one stream) is one entry: a loop, not a circle. **re-entries**: entries into a module entered before.
* **steps**: every change of the module the innermost io frame belongs to, by a call *or a return*;
  **back**: steps into a module the walk had already left (a caller resumed counts: the strictest
  reading of "a room already left").
"""
from __future__ import annotations

import gzip
import json
import lzma
import os
import sys
import tempfile

import rankmeter
import rankmeter.io

IO = os.path.dirname(rankmeter.io.__file__) + os.sep


def _module(frame) -> str | None:
    name = frame.f_code.co_filename
    return name[len(IO):] if name.startswith(IO) else None


def _io_caller(frame):
    back = frame.f_back
    while back is not None and _module(back) is None:
        back = back.f_back
    return back


def _importing(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def walk(work) -> dict:
    """Trace ``work()``: ``entries`` (modules entered, in order), ``steps`` (modules by call and return)."""
    entries: list[str] = []
    steps: list[str] = []
    last_site = [None]

    def step(module):
        if module is not None and (not steps or steps[-1] != module):
            steps.append(module)

    def profile(frame, event, arg):
        if event not in ("call", "return"):
            return
        module = _module(frame)
        if module is None or _importing(frame):
            return
        caller = _io_caller(frame)
        if event == "return":
            step(_module(caller) if caller is not None else None)
            return
        step(module)
        if caller is not None and _module(caller) == module:
            return  # a module's own helper
        site = (caller.f_code, caller.f_lineno, module) if caller is not None else None
        if entries and entries[-1] == module and site is not None and site == last_site[0]:
            return  # the same call site again: one loop
        entries.append(module)
        last_site[0] = site

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    again = [m for i, m in enumerate(entries) if m in entries[:i]]
    back = [m for i, m in enumerate(steps) if m in steps[:i]]
    return {"entries": entries, "reentries": again, "steps": steps, "back": back}


def run_walk(qrels, path: str) -> dict:
    """The walk of ``path`` read as a run by :func:`rankmeter.evaluate` (only the read itself is traced)."""
    import rankmeter.io as io_package
    real = io_package.as_run
    found: dict = {}

    def traced(*args, **kwargs):
        out = [None]
        found.update(walk(lambda: out.__setitem__(0, real(*args, **kwargs))))
        return out[0]

    io_package.as_run = traced
    try:
        rankmeter.evaluate(qrels, path, ["nDCG@10"], queries="both")
    finally:
        io_package.as_run = real
    return found


def _lines(queries: int, depth: int) -> str:
    return "".join(f"q{q} Q0 d{d} {d + 1} {depth - d * 0.5:.2f} bm25\n" for q in range(queries) for d in range(depth))


def files(folder: str) -> dict[str, str]:
    """Small and big runs in every form the walk is shown for: name -> path."""
    small, big = _lines(30, 100), _lines(400, 100)
    rows = [line.split() for line in small.splitlines()]
    big_jsonl = "".join(json.dumps({"query": r[0], "doc": r[2], "score": float(r[4])}) + "\n"
                        for r in (line.split() for line in big.splitlines())).encode()
    data = {
        "run.txt": small.encode(), "run.txt.gz": gzip.compress(small.encode()),
        "run.jsonl": "".join(json.dumps({"query": r[0], "doc": r[2], "score": float(r[4])}) + "\n"
                             for r in rows).encode(),
        "run.csv": ("qid,docno,score\n" + "".join(f"{r[0]},{r[2]},{r[4]}\n" for r in rows)).encode(),
        "big.txt": big.encode(), "big.txt.xz": lzma.compress(big.encode(), preset=0),
        "big.jsonl": big_jsonl, "big.jsonl.xz": lzma.compress(big_jsonl, preset=0),
    }
    paths = {}
    for name, content in data.items():
        paths[name] = os.path.join(folder, name)
        with open(paths[name], "wb") as fh:
            fh.write(content)
    return paths


def main() -> None:
    from rankmeter.io import as_qrels, compiled
    qrels = as_qrels({f"q{q}": {"d3": 1, "d7": 2} for q in range(400)})
    with tempfile.TemporaryDirectory() as folder:
        paths = files(folder)
        # the big files read as they stream (the sizes from which a file is parsed block by block)
        compiled.FILE_MIN_BYTES = os.path.getsize(paths["big.txt"]) - 1
        compiled.COMPRESSED_MIN_BYTES = min(os.path.getsize(paths[n]) for n in ("big.txt.xz", "big.jsonl.xz")) - 1
        import warnings
        warnings.simplefilter("ignore")
        total_entries = total_again = total_steps = total_back = 0
        for name, path in paths.items():
            run_walk(qrels, path)  # modules imported before the walk
            found = run_walk(qrels, path)
            total_entries += len(found["entries"])
            total_again += len(found["reentries"])
            total_steps += len(found["steps"])
            total_back += len(found["back"])
            print(f"{name:11s} {len(set(found['entries']))} modules, {len(found['entries'])} entries, "
                  f"{len(found['reentries'])} re-entries; {len(found['steps'])} steps, {len(found['back'])} back")
            print("    entries:", " -> ".join(m.removesuffix(".py") for m in found["entries"]))
            print("    steps:  ", " -> ".join(m.removesuffix(".py") for m in found["steps"]))
        print(f"all        {total_entries} entries, {total_again} re-entries; {total_steps} steps, {total_back} back")


if __name__ == "__main__":
    main()
