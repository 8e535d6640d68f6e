"""Name resolution is part of a try: a resolver that never answers (``socket.getaddrinfo`` blocked on an event
that is only set after the call returned) ends the try at its deadline, and no request is ever sent."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from rankmeter.judges.deadline_connection import resolve
from rankmeter.judges.llm_client import CallFailed, ChatClient
from tests.judges.hostile import Hostile


@pytest.fixture
def hung_resolver(monkeypatch):
    """socket.getaddrinfo blocked until the test ends; the names it was asked for are recorded."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    release, asked = threading.Event(), []

    def blocked(host, *args, **kwargs):
        asked.append(host)
        release.wait()
        raise socket.gaierror(socket.EAI_AGAIN, "released by the test")

    monkeypatch.setattr(socket, "getaddrinfo", blocked)
    yield release, asked
    release.set()


def test_a_hung_resolver_ends_at_the_runs_deadline_as_a_deadline_failure(hung_resolver):
    release, asked = hung_resolver
    with Hostile("ok") as server:
        url = server.url.replace("127.0.0.1", "judge.example")   # a name, so that it must be resolved
        client = ChatClient(url, "m", api_key="sk-secret", timeout=30.0, retries=3, backoff=0.01,
                            deadline=time.monotonic() + 1.0)
        with pytest.raises(CallFailed) as failed:
            client.complete("grade this")
        assert not release.is_set()     # the call returned while the resolver still hung
        assert failed.value.kind == "deadline" and failed.value.attempts == 2   # one try cut, none after it
        assert "resolving 'judge.example'" in failed.value.message
        assert asked == ["judge.example"] and server.count() == 0


def test_a_hung_resolver_is_a_tries_timeout_retried_then_given_up(hung_resolver):
    release, asked = hung_resolver
    with Hostile("ok") as server:
        client = ChatClient(server.url.replace("127.0.0.1", "judge.example"), "m", timeout=0.3, retries=1,
                            backoff=0.01)
        with pytest.raises(CallFailed) as failed:
            client.complete("grade this")
        assert not release.is_set()
        assert failed.value.kind == "timeout" and failed.value.attempts == 2
        assert asked == ["judge.example", "judge.example"] and server.count() == 0


def test_resolve_passes_the_resolvers_answer_and_its_error(monkeypatch):
    answer = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 80))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: answer)
    assert resolve("judge.example", 80, time.monotonic() + 5) == answer

    def missing(*a, **k):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", missing)
    with pytest.raises(socket.gaierror, match="Name or service not known"):
        resolve("judge.example", 80, time.monotonic() + 5)


def test_a_name_that_resolves_is_answered_with_its_host_header(monkeypatch):
    """The bounded path still connects: localhost resolved by the real resolver, the Host header the name."""
    for name in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    real, asked = socket.getaddrinfo, []

    def recorded(host, *args, **kwargs):
        asked.append(host)
        return [a for a in real(host, *args, **kwargs) if a[0] == socket.AF_INET]

    monkeypatch.setattr(socket, "getaddrinfo", recorded)
    with Hostile("ok") as server:
        answer = ChatClient(server.url.replace("127.0.0.1", "localhost"), "m", timeout=10, retries=0).complete(
            "passage [grade: 2]")
        assert "2" in answer.text and server.count() == 1 and asked == ["localhost"]
        assert server.requests[0]["host"] == f"localhost:{server.port}"
