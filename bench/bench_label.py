"""Label throughput of ``rankmeter judges label`` against a chat-completions server on 127.0.0.1.

usage: python bench/bench_label.py [--pairs 400] [--latency 0,0.02] [--concurrency 1,8] [--repeats 3]

A ThreadingHTTPServer (in a child process, so that it does not share this one's GIL) answers every request ``##final score: N`` after ``latency``
seconds (0: as fast as the loopback allows, which measures rankmeter's own overhead: prompt, HTTP,
JSON, the SQLite commit of each answer; 0.02: a fast model). For each latency and concurrency it labels
PAIRS synthetic pairs with a fresh cache and prints the median pairs/s of REPEATS runs, then a rerun of
the last job from the cache (no call).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import subprocess
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rankmeter.judges.labelling import label  # noqa: E402

LATENCY = [0.0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if LATENCY[0]:
            time.sleep(LATENCY[0])
        prompt = body["messages"][-1]["content"]
        text = f"Graded.\n##final score: {len(prompt) % 4}"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 4}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(latency: float) -> None:
    """The child: serve on a free port of 127.0.0.1, print the port, run until killed."""
    LATENCY[0] = latency
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


def start(latency: float):
    child = subprocess.Popen([sys.executable, __file__, "--serve", str(latency)], stdout=subprocess.PIPE, text=True)
    return child, f"http://127.0.0.1:{int(child.stdout.readline())}/v1"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--latency", default="0,0.02")
    ap.add_argument("--concurrency", default="1,8")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if args.serve is not None:
        return serve(args.serve)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        queries = max(1, args.pairs // 20)
        (tmp / "q.tsv").write_text("".join(f"q{i}\tquery number {i} about topic {i % 7}\n" for i in range(queries)))
        (tmp / "d.tsv").write_text("".join(f"d{j}\t{'a passage of some length ' * 8}{j}\n" for j in range(20)))
        (tmp / "run.txt").write_text("".join(f"q{i} Q0 d{j} {j + 1} {20 - j} r\n" for i in range(queries)
                                             for j in range(20)))
        common = dict(queries=tmp / "q.tsv", docs=tmp / "d.tsv", model="bench", top_k=20, progress=False)
        print(f"{queries * 20} pairs, loopback server in a child process, median of {args.repeats}")
        for latency in map(float, args.latency.split(",")):
            child, url = start(latency)
            common["base_url"] = url
            label([tmp / "run.txt"], cache=tmp / f"warm{latency}.db", output=tmp / "out.qrels", **common)  # warm-up
            for conc in map(int, args.concurrency.split(",")):
                rates = []
                for r in range(args.repeats):
                    cache = tmp / f"c-{latency}-{conc}-{r}.db"
                    began = time.perf_counter()
                    got = label([tmp / "run.txt"], cache=cache, output=tmp / "out.qrels", concurrency=conc, **common)
                    rates.append(len(got.pairs) / (time.perf_counter() - began))
                    assert got.calls == len(got.pairs) and not got.failures
                print(f"latency {latency * 1000:4.0f} ms  concurrency {conc:2d}: {statistics.median(rates):8.1f} pairs/s"
                      f"  (runs: {', '.join(f'{x:.1f}' for x in rates)})")
            if latency == float(args.latency.split(",")[-1]):
                began = time.perf_counter()
                got = label([tmp / "run.txt"], cache=cache, output=tmp / "out.qrels", concurrency=8, **common)
                print(f"rerun from the cache: {len(got.pairs) / (time.perf_counter() - began):.0f} pairs/s, "
                      f"{got.calls} calls")
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()
