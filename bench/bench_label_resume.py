"""What ``rankmeter judges label``'s cache saves, counted as calls the server received (docs/llm-judges.md, section 7).

usage: python bench/bench_label_resume.py [--stop-after 200] [--latency 0.01]

On the loop's data (tests/fixtures/llm_judges/example/rag24: the 495 pairs two runs rank in their top 10), against
the stand-in server (tests.judges.stand_in) on 127.0.0.1:

1. a fresh job, then a rerun of it;
2. a job whose quota runs out after STOP_AFTER answers (the server answers 429 from then on; no retries), then the
   same job once the quota is back;
3. a job in a child process stopped by Ctrl-C (SIGINT) after about a second, then the same job again.

Prints the calls each step made and how many of them answered a pair already answered (must be 0).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rankmeter.judges.labelling import label  # noqa: E402
from tests.judges.stand_in import StandIn  # noqa: E402

DATA = ROOT / "tests" / "fixtures" / "llm_judges" / "example" / "rag24"
RUNS = [DATA / "real.run", DATA / "rerank.run"]


def job(server, cache, out, **kw):
    return label(RUNS, queries=DATA / "queries.tsv", docs=DATA / "docs.jsonl", base_url=server.url, model="stand-in",
                 cache=cache, output=out, top_k=10, concurrency=8, progress=False, backoff=0.01, **kw)


def repeated(server, start: int) -> int:
    """Answers from ``start`` on that repeat a prompt answered before."""
    ok = [r["prompt"] for r in server.requests if r["status"] == 200]
    before = set(ok[:start])
    return sum(p in before for p in ok[start:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stop-after", type=int, default=200)
    ap.add_argument("--latency", type=float, default=0.01)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with StandIn() as server:
            began = time.perf_counter()
            first = job(server, tmp / "a.db", tmp / "a.qrels")
            took = time.perf_counter() - began
            again = job(server, tmp / "a.db", tmp / "a.qrels")
            print(f"fresh: {first.calls} calls ({len(first.pairs)} pairs, {len(first.pairs) / took:.0f} pairs/s at "
                  f"concurrency 8, no latency); rerun: {again.calls} calls, {again.cached} from the cache")

        quota = {"left": args.stop_after}

        def script(n, body, prompt):
            if quota["left"] <= 0:
                return ("status", 429)
            quota["left"] -= 1
            return None
        with StandIn(script=script) as server:
            stopped = job(server, tmp / "b.db", tmp / "b.qrels", retries=0)
            mark = len(server.requests)
            quota["left"] = 10 ** 9
            resumed = job(server, tmp / "b.db", tmp / "b.qrels")
            answered = stopped.calls - len(stopped.failures)
            print(f"quota out after {args.stop_after} answers: {stopped.calls} calls, {answered} answered, "
                  f"{len(stopped.failures)} failed (recorded); resumed: {resumed.calls} calls, {resumed.cached} from "
                  f"the cache, {repeated(server, 0)} answers repeated")
            assert mark and resumed.calls + answered == len(resumed.pairs)

        with StandIn(script=lambda n, body, prompt: ("sleep", args.latency)) as server:
            env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_BASE_URL=server.url)
            child = subprocess.Popen([sys.executable, "-m", "rankmeter", "judges", "label", *map(str, RUNS),
                                      "--top-k", "10", "--queries", str(DATA / "queries.tsv"), "--docs",
                                      str(DATA / "docs.jsonl"), "--model", "stand-in", "--cache", str(tmp / "c.db"),
                                      "--concurrency", "2", "-o", str(tmp / "c.qrels")], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while len(server.requests) < 50:
                time.sleep(0.05)
            child.send_signal(signal.SIGINT)
            child.wait(timeout=60)
            before = sum(r["status"] == 200 for r in server.requests)
            start = len(server.requests)
            resumed = job(server, tmp / "c.db", tmp / "c.qrels")
            print(f"Ctrl-C after {before} answers (exit {child.returncode}); resumed: {resumed.calls} calls, "
                  f"{resumed.cached} from the cache, {repeated(server, 0)} answers repeated "
                  f"({len(server.requests) - start} requests)")


if __name__ == "__main__":
    main()
