"""``rankmeter judges label`` against a real chat-completions server on 127.0.0.1 (http.server in a thread).

The server grades a passage by the marker in its text (``GRADE2`` -> ``##final score: 2``), answers
``GARBAGE`` passages without a score line and ``BADGRADE`` ones with a grade off the scale, and follows a
script per test: 429s, 500s, slow replies, a quota that runs out. It counts every request, so the cache's
promises are asserted as calls made: a rerun makes none, a changed model or prompt asks again, an interrupted
or failed job resumes without asking again what was answered.
"""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rankmeter.judges.labelling import PROMPT, label, parse_grade
from tests.judges.stand_in import StandIn
from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

ir_datasets = optional("ir_datasets")

ROOT = Path(__file__).resolve().parents[2]


class Server(StandIn):
    """The package's stand-in server (tests.judges.stand_in), grading by this file's markers."""

    def __init__(self):
        super().__init__(answer=_grader)


def _grader(prompt: str) -> str:
    if "GARBAGE" in prompt:
        return "This passage seems quite relevant to me, I would give it a good grade."
    if "BADGRADE" in prompt:
        return "Very relevant.\n##final score: 5"
    grade = re.search(r"GRADE(\d)", prompt).group(1)
    return f"The passage is graded by its marker.\n##final score: {grade}"


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


#: doc -> its grade marker; d5's answer has no score line, d6's is off the scale
DOCS = {"d1": "GRADE3", "d2": "GRADE0", "d3": "GRADE2", "d4": "GRADE1", "d5": "GARBAGE", "d6": "BADGRADE"}
QUERIES = {"q1": "what is a cat", "q2": "how tall is everest", "q3": "who wrote hamlet"}
RUN = {"q1": ["d1", "d2", "d3", "d4", "d5"], "q2": ["d3", "d4", "d1", "d2", "d6"], "q3": ["d5", "d2", "d4", "d1"]}


@pytest.fixture
def data(tmp_path):
    (tmp_path / "queries.tsv").write_text("id\ttext\n" + "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    with open(tmp_path / "docs.jsonl", "w") as fh:
        for d, marker in DOCS.items():
            fh.write(json.dumps({"docid": d, "title": f"title {d}", "text": f"passage {d} {marker}"}) + "\n")
    lines = [f"{q} Q0 {d} {r + 1} {10 - r} sys\n" for q, docs in RUN.items() for r, d in enumerate(docs)]
    (tmp_path / "run.txt").write_text("".join(lines))
    (tmp_path / "qrels.txt").write_text("q1 0 d1 2\nq2 0 d4 0\n")
    return tmp_path


def _job(server, data, **kw):
    kw.setdefault("cache", data / "cache.db")
    kw.setdefault("output", data / "out.qrels")
    return label([data / "run.txt"], queries=data / "queries.tsv", docs=data / "docs.jsonl", base_url=server.url,
                 model=kw.pop("model", "judge-1"), backoff=kw.pop("backoff", 0.01), progress=False, **kw)


def _expected(top_k, skip=()):
    """Hand-made: the top-k pairs (by best rank, then docno descending), less the judged, with their grades."""
    pairs = [(q, d) for q, docs in RUN.items() for d in docs[:top_k] if (q, d) not in skip]
    return {p: int(DOCS[p[1]][-1]) for p in pairs if DOCS[p[1]].startswith("GRADE")}, pairs


def _qrels(path) -> dict:
    out = {}
    for line in Path(path).read_text().splitlines():
        q, _, d, g = line.split()
        out.setdefault((q, d), []).append(int(g))
    return out


def test_parse_grade_is_strict():
    assert parse_grade("reasons\n##final score: 3") == 3
    assert parse_grade("##Final Score: 0\n") == 0
    assert parse_grade("ok ##final score: **2**.") == 2
    for bad in ("I'd say 2", "##final score: 4", "##final score: -1", "##final score: 2.5", "##final score: two",
                "##final score: 2 maybe", "##final score: 1\n##final score: 3", "", "final score: 2"):
        assert parse_grade(bad) is None, bad
    assert parse_grade("##final score: 1\nlater\n##final score: 1") == 1


def test_labels_written_and_a_rerun_makes_no_call(server, data):
    got = _job(server, data, top_k=3, qrels=data / "qrels.txt")
    grades, pairs = _expected(3, skip={("q1", "d1"), ("q2", "d4")})
    assert got.pairs == pairs and len(server.requests) == len(pairs) == 7
    assert _qrels(data / "out.qrels") == {p: [g] for p, g in grades.items()}
    assert [(u["query"], u["doc"]) for u in got.unparseable] == [("q3", "d5")]   # recorded, never written as 0
    assert got.failures == [] and got.calls == 7 and got.cached == 0
    first = (data / "out.qrels").read_text()
    (data / "out.qrels").unlink()
    again = _job(server, data, top_k=3, qrels=data / "qrels.txt")
    assert len(server.requests) == 7 and again.calls == 0 and again.cached == 7   # a rerun: no call
    assert (data / "out.qrels").read_text() == first and len(again.unparseable) == 1


def test_a_changed_model_or_prompt_asks_again(server, data):
    _job(server, data, top_k=2)
    assert len(server.requests) == 6
    _job(server, data, top_k=2, model="judge-2", output=data / "o2")
    assert len(server.requests) == 12 and {r["model"] for r in server.requests[6:]} == {"judge-2"}
    (data / "p.txt").write_text("Q={query}\nP={passage}\nEnd with ##final score: N")
    _job(server, data, top_k=2, prompt=data / "p.txt", output=data / "o3")
    assert len(server.requests) == 18 and server.requests[-1]["prompt"].startswith("Q=")
    _job(server, data, top_k=2, temperature=0.5, output=data / "o4")   # sampling parameters are in the key too
    assert len(server.requests) == 24
    _job(server, data, top_k=3, output=data / "o5")   # a deeper pool: only the new pairs are asked
    assert len(server.requests) == 27


def test_429_then_success_is_retried(server, data):
    seen = set()

    def script(n, body, prompt):
        if prompt not in seen:
            seen.add(prompt)
            return ("status", 429)
    server.script = script
    got = _job(server, data, top_k=2)
    assert len(server.requests) == 12 and got.failures == []
    assert _qrels(data / "out.qrels") == {p: [g] for p, g in _expected(2)[0].items()}
    rows = sqlite3.connect(data / "cache.db").execute("SELECT attempts, status FROM ledger").fetchall()
    assert sorted(rows) == [(2, "ok")] * 5 + [(2, "unparseable")]   # q3 d5: garbage


def test_failures_are_recorded_per_pair_and_retried_next_run(server, data):
    server.script = lambda n, body, prompt: ("status", 500) if "GRADE0" in prompt else None
    got = _job(server, data, top_k=2, retries=2)
    failed = {(f["query"], f["doc"]) for f in got.failures}
    assert failed == {("q1", "d2"), ("q3", "d2")} and {f["kind"] for f in got.failures} == {"http-500"}
    assert len(server.requests) == 4 + 2 * 3          # 4 answered, 2 pairs tried 3 times each
    assert ("q1", "d2") not in _qrels(data / "out.qrels") and len(_qrels(data / "out.qrels")) == 3  # d5: garbage
    server.script = None
    again = _job(server, data, top_k=2, output=data / "o2")
    assert again.calls == 2 and again.cached == 4 and again.failures == []
    assert {r["prompt"] for r in server.requests[10:]} == {r["prompt"] for r in server.requests
                                                           if "GRADE0" in r["prompt"]}
    assert _qrels(data / "o2")[("q1", "d2")] == [0]


def test_slow_replies_time_out_and_are_retried(server, data):
    slow = set()

    def script(n, body, prompt):
        if "GRADE3" in prompt and prompt not in slow:   # the first try of d1's pairs is too slow
            slow.add(prompt)
            return ("sleep", 2.5)
        if "GRADE1" in prompt:                          # d4 is always too slow
            return ("sleep", 2.5)
    server.script = script
    # a timely answer has a whole second: on a loaded 2-core machine a 0.3 s limit timed out a retry too
    got = _job(server, data, top_k=4, timeout=1.0, retries=1, concurrency=8)
    kinds = {(f["query"], f["doc"]): f["kind"] for f in got.failures}
    assert kinds == {("q1", "d4"): "timeout", ("q2", "d4"): "timeout", ("q3", "d4"): "timeout"}
    assert all(_qrels(data / "out.qrels")[(q, "d1")] == [3] for q in ("q1", "q2", "q3"))


def test_garbage_is_unparseable_or_a_failure_never_zero(server, data):
    server.script = lambda n, body, prompt: ("raw", b"<html>oops</html>") if "GRADE2" in prompt else None
    got = _job(server, data, top_k=5)
    assert {(u["query"], u["doc"]) for u in got.unparseable} == {("q1", "d5"), ("q3", "d5"), ("q2", "d6")}
    assert {(f["query"], f["doc"], f["kind"]) for f in got.failures} == {("q1", "d3", "bad-response"),
                                                                          ("q2", "d3", "bad-response")}
    written = _qrels(data / "out.qrels")
    assert not {("q1", "d5"), ("q3", "d5"), ("q2", "d6"), ("q1", "d3")} & set(written)
    assert written == {p: [g] for p, g in _expected(5)[0].items() if p[1] != "d3"}


def test_a_quota_running_out_midway_resumes_without_repeating(server, data):
    server.script = lambda n, body, prompt: ("status", 403) if n >= 5 else None   # answers 5 requests, then refuses
    got = _job(server, data, top_k=4, concurrency=1)
    assert got.calls == 12 and len(got.failures) == 7 and len(server.answered()) == 5
    first = set(server.answered())
    server.script = None
    again = _job(server, data, top_k=4, output=data / "o2")
    later = [r["prompt"] for r in server.requests[12:]]
    assert again.calls == 7 and again.cached == 5 and not first & set(later) and len(set(later)) == 7
    assert len(_qrels(data / "o2")) == 11     # 12 pairs, one of them d5's garbage


def test_an_interrupted_cli_job_resumes_without_repeating(server, data):
    server.script = lambda n, body, prompt: ("sleep", 0.15)
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-test")
    argv = [sys.executable, "-m", "rankmeter", "judges", "label", str(data / "run.txt"), "--queries",
            str(data / "queries.tsv"), "--docs", str(data / "docs.jsonl"), "--base-url", server.url, "--model", "m",
            "--cache", str(data / "c.db"), "--top-k", "5", "--concurrency", "2", "-o", str(data / "out.qrels")]
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(server.answered()) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    child.send_signal(signal.SIGINT)
    child.communicate(timeout=60)
    assert child.returncode != 0 and not (data / "out.qrels").exists()
    answered_first = set(server.answered())
    n_first = len(server.requests)
    assert 4 <= n_first < 14
    with sqlite3.connect(data / "c.db") as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == len(answered_first)
    server.script = None
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    later = [r["prompt"] for r in server.requests[n_first:]]
    assert not answered_first & set(later) and len(later) == 14 - len(answered_first)
    assert server.requests[-1]["auth"] == "Bearer sk-test" and server.requests[-1]["path"] == "/v1/chat/completions"
    assert len(_qrels(data / "out.qrels")) == 11   # 14 pairs, less d5's two garbage answers and d6's


def test_the_ledger_counts_tokens_and_cost(server, data):
    got = _job(server, data, top_k=2, price_in=2.0, price_out=10.0)
    ok = [r for r in server.requests if r["status"] == 200]
    tokens_in = sum(len(r["prompt"]) // 4 for r in ok)
    tokens_out = sum(len(_grader(r["prompt"])) // 4 for r in ok)
    assert got.tokens["prompt_tokens"] == tokens_in and got.tokens["completion_tokens"] == tokens_out
    assert got.tokens["cost"] == pytest.approx((tokens_in * 2.0 + tokens_out * 10.0) / 1e6, rel=1e-12)
    rows = sqlite3.connect(data / "cache.db").execute("SELECT prompt_tokens, completion_tokens, cost FROM ledger")
    for pt, ct, cost in rows:
        assert cost == pytest.approx((pt * 2.0 + ct * 10.0) / 1e6, rel=1e-12)
    _job(server, data, top_k=3, price_in=2.0, price_out=10.0, output=data / "o2")
    ok = [r for r in server.requests if r["status"] == 200]
    again = _job(server, data, top_k=3, price_in=2.0, price_out=10.0, output=data / "o3")
    assert again.tokens == {"prompt_tokens": 0, "completion_tokens": 0, "cost": None}   # no call, no spending
    assert again.ledger["calls"] == len(ok) == 9
    assert again.ledger["prompt_tokens"] == sum(len(r["prompt"]) // 4 for r in ok)


def test_dry_run_calls_nothing(server, data, cli):
    got = _job(server, data, top_k=2, dry_run=True)
    prompts = [PROMPT.replace("{query}", QUERIES[q]).replace("{passage}", f"title {d}\npassage {d} {DOCS[d]}")
               for q, docs in RUN.items() for d in docs[:2]]
    assert server.requests == [] and not (data / "out.qrels").exists()
    assert got.estimate["calls"] == 6 and got.estimate["prompt_tokens"] == sum(map(len, prompts)) // 4
    result = cli("judges", "label", data / "run.txt", "--queries", data / "queries.tsv", "--docs",
                 data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                 "--top-k", "2", "--samples", "3", "--dry-run")
    assert result.returncode == 0 and server.requests == []
    assert (f"6 pairs x 3 samples = 18 labels: 0 cached, 18 calls to make, ~{3 * sum(map(len, prompts)) // 4} "
            "prompt tokens") in result.stdout


def test_cli_samples_feed_judges_aggregate(server, data, cli):
    (data / "pool.txt").write_text("q1 0 d1 -1\nq2 0 d3 -1\nq1 0 d2 -1\n")
    result = cli("judges", "label", "--pool", data / "pool.txt", "--queries", data / "queries.tsv", "--docs",
                 data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                 "--samples", "3", "--temperature", "0.7", "--qrels", data / "qrels.txt", "-o", data / "s.qrels")
    assert result.returncode == 0, result.stderr
    assert len(server.requests) == 6 and {r["body"]["temperature"] for r in server.requests} == {0.7}
    samples = _qrels(data / "s.qrels")
    assert samples[("q2", "d3")] == [2, 2, 2] and samples[("q1", "d2")] == [0, 0, 0] and len(samples) == 2
    agg = cli("judges", "aggregate", data / "s.qrels", "-o", data / "agg.qrels")
    assert agg.returncode == 0 and _qrels(data / "agg.qrels") == {("q2", "d3"): [2], ("q1", "d2"): [0]}


def test_cli_refuses_a_prompt_without_placeholders(server, data, cli):
    (data / "p.txt").write_text("grade this: {query}")
    result = cli("judges", "label", data / "run.txt", "--queries", data / "queries.tsv", "--docs",
                 data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                 "--prompt", data / "p.txt", "-o", data / "o")
    assert result.returncode == 2 and "{passage}" in result.stderr and server.requests == []
    assert not (data / "o").exists()


def test_texts_from_ir_datasets(server, data):
    """A dataset registered from local files (no network): its queries, and its docs store's docs."""
    (data / "docs.tsv").write_text("".join(f"{d}\tpassage {d} {m}\n" for d, m in DOCS.items()))
    name = f"rankmeter-test/label-{data.name}"
    if name not in ir_datasets.registry._registered:
        ir_datasets.registry.register(name, ir_datasets.create_dataset(docs_tsv=str(data / "docs.tsv"),
                                                                       queries_tsv=str(data / "queries.tsv")))
    got = label([data / "run.txt"], queries=f"irds:{name}", docs=f"irds:{name}", base_url=server.url, model="m",
                cache=data / "c.db", output=data / "o", top_k=2, progress=False)
    assert len(server.requests) == 6 and got.failures == []
    assert _qrels(data / "o") == {p: [g] for p, g in _expected(2)[0].items()}
    assert any("passage d1 GRADE3" in r["prompt"] and QUERIES["q1"] in r["prompt"] for r in server.requests)


def test_the_umbrela_preset_reads_the_installed_package(server, data, monkeypatch, cli):
    """``--prompt umbrela``: UMBRELA's zero-shot template from the umbrela package (here a stand-in package
    laid out as umbrela's: prompts/template_loader.get_prompt_template), rendered as UMBRELA renders it."""
    import importlib.util
    if importlib.util.find_spec("umbrela") is None:   # not installed: one line naming the package, no call
        result = cli("judges", "label", data / "run.txt", "--queries", data / "queries.tsv", "--docs",
                     data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                     "--prompt", "umbrela", "-o", data / "o")
        assert result.returncode == 2 and "umbrela" in result.stderr and server.requests == []
    fake = data / "fake"
    (fake / "umbrela" / "prompts").mkdir(parents=True)
    (fake / "umbrela" / "__init__.py").write_text("")
    (fake / "umbrela" / "prompts" / "__init__.py").write_text("")
    (fake / "umbrela" / "prompts" / "template_loader.py").write_text(
        "class T:\n"
        "    prefix_user = 'UMB {examples}Query: {query}\\nPassage: {passage}\\n{{json}} ##final score: score'\n"
        "def get_prompt_template(prompt_file, prompt_type, few_shot_count):\n"
        "    assert prompt_file is None and prompt_type == 'bing' and few_shot_count == 0\n    return T()\n")
    monkeypatch.syspath_prepend(str(fake))
    for name in [m for m in sys.modules if m == "umbrela" or m.startswith("umbrela.")]:
        monkeypatch.delitem(sys.modules, name)
    got = _job(server, data, top_k=1, prompt="umbrela")
    assert len(server.requests) == 3 and got.failures == []
    # the calls run concurrently: q1's may not arrive first
    assert (f"UMB Query: {QUERIES['q1']}\nPassage: title d1\npassage d1 GRADE3\n{{json}} ##final score: score"
            in [r["prompt"] for r in server.requests])
    for name in [m for m in sys.modules if m == "umbrela" or m.startswith("umbrela.")]:
        del sys.modules[name]


def test_json_report_and_the_samples_warning(server, data, cli):
    result = cli("judges", "label", data / "run.txt", "--queries", data / "queries.tsv", "--docs",
                 data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                 "--top-k", "1", "--samples", "2", "--format", "json", "-o", data / "o")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["pairs"] == 3 and report["calls"] == 6 and report["labels"] == 4   # q3's top doc is d5: garbage
    assert [(u["query"], u["doc"]) for u in report["unparseable"]] == [("q3", "d5")] * 2
    assert "rankmeter: warning: 2 samples at temperature 0" in result.stderr
    assert _qrels(data / "o") == {("q1", "d1"): [3, 3], ("q2", "d3"): [2, 2]}


def test_cli_refuses_a_bad_address_or_a_cache_that_is_not_one(server, data, cli):
    common = [data / "run.txt", "--queries", data / "queries.tsv", "--docs", data / "docs.jsonl", "--model", "m"]
    result = cli("judges", "label", *common, "--base-url", "localhost:8000/v1", "--cache", data / "c.db",
                 "-o", data / "o")
    assert result.returncode == 2 and "http://" in result.stderr and not (data / "o").exists()
    result = cli("judges", "label", *common, "--base-url", server.url, "--cache", data / "qrels.txt",
                 "-o", data / "o")
    assert result.returncode == 2 and "not an answers cache" in result.stderr, result.stderr
    assert server.requests == [] and not (data / "o").exists()
    assert (data / "qrels.txt").read_text() == "q1 0 d1 2\nq2 0 d4 0\n"   # the file named is left as it was


def test_a_pair_without_text_is_a_failure_without_a_call(server, data, cli):
    (data / "run2.txt").write_text("q1 Q0 d9 1 5 x\nq1 Q0 d1 2 4 x\nq7 Q0 d1 1 3 x\n")
    result = cli("judges", "label", data / "run2.txt", "--queries", data / "queries.tsv", "--docs",
                 data / "docs.jsonl", "--base-url", server.url, "--model", "m", "--cache", data / "c.db",
                 "-o", data / "o")
    assert result.returncode == 1 and "2 labels failed (missing-text: 2)" in result.stdout, result.stdout
    assert len(server.requests) == 1 and _qrels(data / "o") == {("q1", "d1"): [3]}


def test_two_pairs_of_the_same_texts_make_one_call(server, data):
    with open(data / "docs.jsonl", "a") as fh:   # d7: d1's title and text, another id
        fh.write(json.dumps({"docid": "d7", "title": "title d1", "text": "passage d1 GRADE3"}) + "\n")
    (data / "run2.txt").write_text("q1 Q0 d1 1 5 x\nq1 Q0 d7 2 4 x\nq2 Q0 d7 1 3 x\n")
    got = label([data / "run2.txt"], queries=data / "queries.tsv", docs=data / "docs.jsonl", base_url=server.url,
                model="m", cache=data / "c.db", output=data / "o", progress=False)
    assert got.calls == 2 and len(server.requests) == 2
    assert _qrels(data / "o") == {("q1", "d1"): [3], ("q1", "d7"): [3], ("q2", "d7"): [3]}


def test_a_changed_text_asks_again_for_its_pairs_only(server, data):
    _job(server, data, top_k=2)
    assert len(server.requests) == 6
    docs = (data / "docs.jsonl").read_text().replace("passage d3 GRADE2", "passage d3, revised GRADE1")
    (data / "docs.jsonl").write_text(docs)
    got = _job(server, data, top_k=2, output=data / "o2")
    assert got.calls == 1 and "revised" in server.requests[-1]["prompt"]   # d3 is in q2's top 2 only
    assert _qrels(data / "o2")[("q2", "d3")] == [1]
