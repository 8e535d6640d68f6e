"""``judges label`` against a hostile server (tests.judges.hostile) and a hostile disk: nothing paid twice, no key
sent elsewhere, no try without an end, no paid answer lost. Every test counts the requests the server received."""
from __future__ import annotations

import ctypes
import json
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankmeter.errors import InputError
from rankmeter.io.output import OutputError
from rankmeter.judges.answer_cache import APPLICATION_ID, AnswerCache
from rankmeter.judges.labelling import PROMPT, fill, label, parse_grade
from tests.judges.hostile import BEHAVIOURS, Hostile

ROOT = Path(__file__).resolve().parents[2]
DOCS = {"d1": 3, "d2": 0, "d3": 2, "d4": 1}
QUERIES = {"q1": "what is a cat", "q2": "how tall is everest", "q3": "who wrote hamlet"}
POOL = [("q1", "d1"), ("q1", "d2"), ("q2", "d3"), ("q2", "d4"), ("q3", "d1"), ("q3", "d4")]


@pytest.fixture
def data(tmp_path):
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\tpassage {d} [grade: {g}]\n" for d, g in DOCS.items()))
    (tmp_path / "pool.txt").write_text("".join(f"{q} 0 {d} -1\n" for q, d in POOL))
    return tmp_path


def _label(server, data, pool=None, **kw):
    if pool is not None:
        (data / "pool.txt").write_text("".join(f"{q} 0 {d} -1\n" for q, d in pool))
    kw.setdefault("cache", data / "cache.db")
    kw.setdefault("output", data / "out.qrels")
    kw.setdefault("backoff", 0.01)
    kw.setdefault("retries", 1)
    return label(queries=data / "queries.tsv", docs=data / "docs.tsv", pool=data / "pool.txt", base_url=server.url,
                 model="m", api_key="sk-secret", progress=False, **kw)


def _argv(server, data, cache="cache.db", out="out.qrels", *more):
    return [sys.executable, "-m", "rankmeter", "judges", "label", "--pool", str(data / "pool.txt"), "--queries",
            str(data / "queries.tsv"), "--docs", str(data / "docs.tsv"), "--base-url", server.url, "--model", "m",
            "--cache", str(data / cache), "--backoff" if False else "--retries", "1", "-o", str(data / out), *more]


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT), OPENAI_API_KEY="sk-secret", PYTHONDONTWRITEBYTECODE="1")


def _qrels(path) -> dict:
    out: dict = {}
    for line in Path(path).read_text().splitlines():
        q, _, d, g = line.split()
        out.setdefault((q, d), []).append(int(g))
    return out


#: behaviour -> (the failure kind, or None for an answer kept; requests per pair with one retry allowed)
OUTCOMES = {
    "ok": (None, 1), "json-as-text": (None, 1),
    "redirect-302": ("redirect", 1), "redirect-307": ("redirect", 1), "redirect-same": ("redirect", 1),
    "endless-chunked": ("too-large", 1), "huge-body": ("too-large", 1),
    "partial-reset": ("connection", 2), "reset-before": ("connection", 2),
    "wrong-type": ("bad-response", 1), "invalid-json": ("bad-response", 1), "deep-json": ("bad-response", 1),
    "huge-headers": ("bad-response", 1), "long-header": ("bad-response", 1),
    "500-storm": ("http-500", 2),
    "tokens-nan": (None, 1), "tokens-inf": (None, 1), "tokens-huge": (None, 1), "tokens-negative": (None, 1),
    "tokens-fraction": (None, 1), "usage-list": (None, 1),
    "fullwidth": ("unparseable", 1), "arabic-indic": ("unparseable", 1),
}


def test_every_behaviour_has_an_expected_outcome():
    assert set(OUTCOMES) | {"drip", "slow-start", "429-storm"} == set(BEHAVIOURS)


@pytest.mark.parametrize("behaviour", sorted(OUTCOMES))
def test_each_behaviour_and_its_paid_requests(behaviour, data):
    kind, per_pair = OUTCOMES[behaviour]
    pool = POOL[:2]
    with Hostile(behaviour) as server:
        got = _label(server, data, pool, price_in=1.0, price_out=2.0)
        assert server.per_prompt() == {p: per_pair for p in server.per_prompt()} and server.count() == 2 * per_pair
        assert all(r["auth"] == "Bearer sk-secret" and r["path"] == "/v1/chat/completions" for r in server.requests)
        if server.other is not None:   # the other origin a redirect named: never asked, never given the key
            assert server.other.requests == []
        written = _qrels(data / "out.qrels") if (data / "out.qrels").read_text() else {}
        if kind is None:
            assert written == {("q1", "d1"): [3], ("q1", "d2"): [0]} and got.failures == []
        elif kind == "unparseable":
            assert written == {} and len(got.unparseable) == 2 and got.failures == []
        else:
            assert written == {} and {f["kind"] for f in got.failures} == {kind} and len(got.failures) == 2
        rows = sqlite3.connect(data / "cache.db").execute(
            "SELECT status, prompt_tokens, completion_tokens, cost FROM ledger").fetchall()
        assert len(rows) == 2
        if behaviour.startswith("tokens-") or behaviour == "usage-list":
            # unknown counts: kept as NULL (no overflow, no negative cost), the answer kept all the same
            assert all(r[0] == "ok" and r[1] is None and r[3] is None for r in rows)
            assert got.ledger["tokens_unknown"] == 2 and got.ledger["prompt_tokens"] == 0
        # the rerun, the server now correct: what was answered is never bought again; what failed is asked once
        server.behaviour = "ok"
        before = server.count()
        again = _label(server, data, pool, output=data / "again.qrels")
        paid_again = server.count() - before
        assert paid_again == (2 if kind not in (None, "unparseable") else 0), paid_again
        assert again.calls == paid_again


def test_a_drip_is_cut_at_the_try_deadline(data):
    """One byte a second: the whole try ends at --timeout (each read alone would never time out)."""
    with Hostile("drip") as server:
        got = _label(server, data, POOL[:1], timeout=1.5, retries=1)
        assert [f["kind"] for f in got.failures] == ["timeout"] and server.count() == 2
        assert "1.5 s for a try" in got.failures[0]["error"]


def test_the_run_time_limit_stops_the_job(data):
    """A slow start longer than --time-limit: the try under way is cut at the limit, no try starts after it,
    the pairs not reached are failures of kind deadline, asked by the next run."""
    with Hostile("slow-start", delay=30) as server:
        got = _label(server, data, POOL[:3], timeout=60, retries=3, time_limit=1.0, concurrency=1)
        kinds = sorted(f["kind"] for f in got.failures)
        assert server.count() == 1 and kinds == ["deadline", "deadline", "deadline"], kinds
    with Hostile("429-storm") as server:   # Retry-After: 1e9, waited for only until the time limit
        got = _label(server, data, POOL[:1], retries=5, time_limit=1.0, output=data / "o2", cache=data / "c2.db")
        assert server.count() == 1 and [f["kind"] for f in got.failures] == ["deadline"]
        assert "Too Many" in got.failures[0]["error"]


def test_a_slow_start_within_the_deadline_is_answered(data):
    with Hostile("slow-start", delay=0.3) as server:
        got = _label(server, data, POOL[:2], timeout=20)
        assert got.failures == [] and server.count() == 2 and len(got.labels) == 2


def test_the_prompt_is_filled_in_one_pass(data):
    (data / "queries.tsv").write_text("q1\twhat is {passage} and {query}?\n")
    (data / "docs.tsv").write_text("d1\ta {query} in a {passage} [grade: 2]\n")
    with Hostile("ok") as server:
        _label(server, data, [("q1", "d1")])
        (prompt,) = server.per_prompt()
    assert prompt == PROMPT.replace("Query: {query}", "Query: what is {passage} and {query}?").replace(
        "Passage: {passage}", "Passage: a {query} in a {passage} [grade: 2]")
    assert prompt.count("[grade: 2]") == 1
    assert fill("{query}|{passage}", query="{passage}", passage="{query}") == "{passage}|{query}"


def test_grades_are_ascii_digits():
    for digits in ("\uff12", "\u0662", "\u0968", "\U0001d7d0"):   # fullwidth, Arabic-Indic, Devanagari, bold 2
        assert parse_grade(f"Relevant.\n##final score: {digits}") is None
    assert parse_grade("Relevant.\n##final score: 2") == 2


# the cache: checked before use, never altered when it is not one


def _another_program(path, sql: str, application_id: int = 0) -> bytes:
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.execute(f"PRAGMA application_id = {application_id}")
    db.commit()
    db.close()
    return Path(path).read_bytes()


@pytest.mark.parametrize("sql, application_id, said", [
    ("CREATE TABLE answers (id INTEGER, text TEXT); INSERT INTO answers VALUES (1, 'x');", 0,
     "its table answers has the columns id, text, not key, model"),
    ("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ann');", 0, "it holds the table(s) users, which an answers cache has not"),
    ("CREATE TABLE answers (key TEXT);", 0x12345678, "application id 0x12345678"),
])
def test_another_programs_database_is_refused_and_left_as_it_was(data, sql, application_id, said, cli):
    before = _another_program(data / "theirs.db", sql, application_id)
    with Hostile("ok") as server:
        with pytest.raises(InputError) as caught:
            _label(server, data, cache=data / "theirs.db")
        assert str(data / "theirs.db") in str(caught.value) and said in str(caught.value)
        result = cli(*_argv(server, data, "theirs.db")[3:])
        assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr
        assert server.count() == 0
    assert (data / "theirs.db").read_bytes() == before and not (data / "out.qrels").exists()
    assert sorted(p.name for p in data.iterdir() if p.name.startswith("theirs")) == ["theirs.db"]


def test_an_earlier_versions_cache_is_read_and_upgraded(data):
    """A cache of the earlier schema (answers and ledger, no application id) keeps serving its answers."""
    with Hostile("ok") as server:
        _label(server, data, POOL[:2])
        db = sqlite3.connect(data / "cache.db")
        db.execute("DROP TABLE claims")
        db.execute("PRAGMA application_id = 0")
        db.commit()
        db.close()
        got = _label(server, data, POOL[:2], output=data / "o2")
        assert server.count() == 2 and got.cached == 2
    head = (data / "cache.db").read_bytes()[68:72]
    assert int.from_bytes(head, "big") == APPLICATION_ID


def _without_root_powers():
    """Run the child as an ordinary user would: root's bypass of file permissions dropped (CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH, CAP_FOWNER); nothing to drop for a user who is not root."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):
        if libc.prctl(24, cap, 0, 0, 0) != 0:   # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_cache_is_refused_before_any_call(data, what):
    folder = data / "ro"
    folder.mkdir()
    with Hostile("ok") as server:
        subprocess.run(_argv(server, data, "ro/cache.db", "first.qrels"), env=_env(), check=True,
                       capture_output=True, timeout=120)
        assert server.count() == 6
        (data / "pool.txt").write_text("q1 0 d3 -1\nq2 0 d1 -1\n")   # two new pairs: calls would be needed
        before = (folder / "cache.db").read_bytes()
        if what == "file":
            (folder / "cache.db").chmod(0o444)
        else:
            folder.chmod(0o555)
        try:
            done = subprocess.run(_argv(server, data, "ro/cache.db"), env=_env(), capture_output=True, text=True,
                                  timeout=120, preexec_fn=_without_root_powers)
        finally:
            folder.chmod(0o755)
        assert done.returncode == 2 and "cannot be written" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and server.count() == 6
    assert (folder / "cache.db").read_bytes() == before and not (data / "out.qrels").exists()


# a write that fails mid-run


def test_a_write_failure_mid_run_keeps_every_paid_answer(data, monkeypatch):
    """The third write fails (a full disk): the job halts, the qrels are written, the answers the cache could
    not take are in its journal, and the rerun imports them and pays only for the pairs never asked."""
    real = AnswerCache._write
    writes = []

    def failing(self, row):
        writes.append(row["key"])
        if len(writes) >= 3:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, row)

    monkeypatch.setattr(AnswerCache, "_write", failing)
    with Hostile("ok") as server:
        with pytest.raises(OutputError) as caught:
            _label(server, data, concurrency=1)
        message = str(caught.value)
        assert "database or disk is full" in message and "cache.db.journal" in message
        paid = server.count()
        assert paid == 3    # one call at a time: the third answer's write failed, nothing started after it
        assert len(_qrels(data / "out.qrels")) == 3 and (data / "cache.db.journal").exists()
        monkeypatch.setattr(AnswerCache, "_write", real)
        again = _label(server, data, output=data / "o2")
        assert server.count() == 6 and again.calls == 3 and again.cached == 3
        assert max(server.per_prompt().values()) == 1 and not (data / "cache.db.journal").exists()
        assert len(_qrels(data / "o2")) == 6


def test_a_file_size_limit_mid_run_keeps_every_paid_answer(data):
    """ulimit -f in a child process (RLIMIT_FSIZE): the cache's log outgrows it; one line, exit 2, the answers
    journaled, and the rerun pays for none of them."""
    pool = [(q, d) for q in QUERIES for d in DOCS] * 1
    (data / "pool.txt").write_text("".join(f"{q} 0 {d} -1\n" for q, d in pool))
    (data / "docs.tsv").write_text("".join(f"{d}\tpassage {d} {'x' * 3000} [grade: {g}]\n" for d, g in DOCS.items()))

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (96_000, 96_000))

    with Hostile("ok") as server:
        done = subprocess.run(_argv(server, data, "cache.db", "out.qrels", "--concurrency", "1"), env=_env(),
                              capture_output=True, text=True, timeout=120, preexec_fn=limited)
        assert done.returncode == 2 and "could not be written" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        paid = server.count()
        assert 0 < paid < len(pool) and len(_qrels(data / "out.qrels")) == paid
        done = subprocess.run(_argv(server, data, "cache.db", "o2.qrels"), env=_env(), capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert server.count() == len(pool) and max(server.per_prompt().values()) == 1
        assert len(_qrels(data / "o2.qrels")) == len(pool)


# jobs sharing one cache


def test_three_jobs_sharing_a_cache_pay_once_per_pair_and_draw(data):
    pool = [(q, d) for q in QUERIES for d in DOCS]
    (data / "pool.txt").write_text("".join(f"{q} 0 {d} -1\n" for q, d in pool))
    with Hostile(lambda n, prompt: "slow-start", delay=0.05) as server:
        argv = [_argv(server, data, "shared.db", f"out{i}.qrels", "--samples", "2", "--temperature", "0.7",
                      "--concurrency", "3") for i in range(3)]
        children = [subprocess.Popen(a, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for a in argv]
        for child in children:
            child.communicate(timeout=300)
            assert child.returncode == 0
        assert server.count() == 2 * len(pool)                      # 12 pairs x 2 draws, whoever asked
        assert set(server.per_prompt().values()) == {2}
    outputs = [_qrels(data / f"out{i}.qrels") for i in range(3)]
    assert outputs[0] == outputs[1] == outputs[2] and all(len(v) == 2 for v in outputs[0].values())
    assert sqlite3.connect(data / "shared.db").execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_live_claim_is_waited_for_and_a_dead_one_taken_over(data):
    with Hostile("ok") as server:
        _label(server, data, POOL[:1])          # makes the cache; one call
        store = AnswerCache.open(data / "cache.db")
        store.close()
        keys = _keys(data, server)
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            db = sqlite3.connect(data / "cache.db")
            db.execute("INSERT INTO claims VALUES (?, 'other', ?, ?, ?, ?)",
                       (keys[1], os.uname().nodename, sleeper.pid, time.time(), time.time() + 600))
            db.commit()
            got = _label(server, data, POOL[:2], time_limit=1.0, output=data / "o2")
            assert server.count() == 1 and [f["kind"] for f in got.failures] == ["deadline"]   # never asked
        finally:
            sleeper.kill()
            sleeper.wait()
        got = _label(server, data, POOL[:2], output=data / "o3")   # its process is gone: the claim is stale
        assert server.count() == 2 and got.failures == [] and got.calls == 1


def _keys(data, server):
    """The cache keys of POOL[:2] (draw 0), read as label makes them."""
    from rankmeter.judges.llm_client import cache_key, digest
    out = []
    for q, d in POOL[:2]:
        text = f"passage {d} [grade: {DOCS[d]}]"
        out.append(cache_key("m", digest(PROMPT), {"temperature": 0.0, "max_tokens": 512}, 0,
                             digest(QUERIES[q]), digest(text)))
    return out


def test_the_environments_proxy_is_used_as_urllib_would(data, monkeypatch):
    """http_proxy: the request goes to the proxy with the whole address in its request line; no_proxy skips it."""
    with Hostile("ok") as proxy:
        for name in ("no_proxy", "NO_PROXY", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
        got = label(queries=data / "queries.tsv", docs=data / "docs.tsv", pool=data / "pool.txt",
                    base_url="http://judge.invalid:9/v1", model="m", api_key="sk-secret", cache=data / "c.db",
                    output=data / "o", progress=False, retries=0)
        assert got.failures == [] and proxy.count() == len(POOL)
        assert {r["path"] for r in proxy.requests} == {"http://judge.invalid:9/v1/chat/completions"}
        monkeypatch.setenv("no_proxy", "judge.invalid")
        got = label(queries=data / "queries.tsv", docs=data / "docs.tsv", pool=data / "pool.txt",
                    base_url="http://judge.invalid:9/v1", model="m2", cache=data / "c.db", progress=False, retries=0,
                    timeout=5)
        assert proxy.count() == len(POOL) and {f["kind"] for f in got.failures} == {"connection"}


def test_the_body_cap_can_be_raised(data):
    """A 5 MB answer: past the 4 MiB cap it is a bad answer (one request, not retried); with the cap raised, kept."""
    with Hostile("ok", answer=lambda prompt: "x" * 5_000_000 + "\n##final score: 1") as server:
        got = _label(server, data, POOL[:1])
        assert [f["kind"] for f in got.failures] == ["too-large"] and server.count() == 1
        got = _label(server, data, POOL[:1], max_response_bytes=8 * 2 ** 20, output=data / "o2")
        assert got.failures == [] and got.labels == {("q1", "d1", 0): 1} and server.count() == 2


@pytest.fixture
def certificate(tmp_path, monkeypatch):
    """A self-signed certificate for 127.0.0.1, trusted through SSL_CERT_FILE (OpenSSL's own variable)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    return str(cert), str(key)


def test_https_answers_and_its_deadlines(data, certificate):
    """The same bounds over TLS: an answer, a drip cut at the try's deadline, a handshake that never starts."""
    with Hostile("ok", tls=certificate) as server:
        assert server.url.startswith("https://")
        got = _label(server, data, POOL[:2])
        assert got.failures == [] and server.count() == 2 and len(got.labels) == 2
    with Hostile("drip", tls=certificate) as server:
        got = _label(server, data, POOL[:1], timeout=1.5, retries=0, output=data / "o2",
                     cache=data / "c2.db")
        assert [f["kind"] for f in got.failures] == ["timeout"] and server.count() == 1
    with Hostile("ok", tls=certificate, stall_handshake=True) as server:
        got = _label(server, data, POOL[:1], timeout=1.0, retries=1, output=data / "o3", cache=data / "c3.db")
        assert [f["kind"] for f in got.failures] == ["timeout"] and server.count() == 0   # no request ever sent
