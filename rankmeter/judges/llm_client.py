"""An OpenAI-compatible chat-completions client, with the standard library only, that never hangs and never leaks.

:class:`ChatClient` posts ``{"model", "messages", "temperature", "max_tokens"}`` to ``BASE_URL/chat/completions``
(vLLM, llama.cpp's server, Ollama, hosted APIs) with :mod:`http.client`. What a hostile or broken server can do
is bounded:

* **a deadline for each try**: ``timeout`` seconds for the whole try (resolving the host's name, connecting,
  sending, the headers and the body), not for each read: a server that sends one byte a second is cut off at
  the deadline, and so is a resolver that never answers (it runs in a thread waited for with the time left).
  A watchdog shuts the socket at the deadline whatever the client is doing, and each read waits only for the
  time left. The job may also give a deadline for the run (``deadline``, a :func:`time.monotonic` instant): no try starts
  after it and the try under way is cut at it;
* **a size cap**: a body longer than ``max_response_bytes`` (4 MiB by default), endless chunked bodies
  included, is cut there and recorded as a bad answer (``too-large``), never read whole; http.client caps the
  header lines (64 KiB each, 100 of them);
* **proxies as urllib finds them** (``https_proxy``, ``http_proxy``, ``no_proxy``), with no credentials of
  their own;
* **no redirect is followed**: a 3xx is a failure (``redirect``) naming where it pointed, so the
  ``Authorization`` header is never sent anywhere but the configured endpoint and a POST never becomes a GET;
* **the answer is kept whatever its token counts**: counts that are not whole, finite, non-negative numbers
  of at most :data:`MOST_TOKENS` are unknown (None), never a reason to ask again.

A 429, a 5xx, a 408, a refused or broken connection and a try's timeout are retried with exponential backoff
(the server's ``Retry-After`` when it gives one, capped at ``max_wait``); anything else fails at once.
:class:`CallFailed` says what went wrong; half an answer is never returned.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import math
import threading
import time
import urllib.parse
from dataclasses import dataclass

from rankmeter.judges.deadline_connection import TryDeadline, cut_at_deadline, deadline_connection, proxy_for

__all__ = ["Answer", "CallFailed", "ChatClient", "MOST_TOKENS", "RESPONSE_CAP", "cache_key", "digest",
           "token_count"]

#: HTTP statuses worth another try: rate limits, timeouts and the server's own errors
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524})
#: the default cap of a response body, in bytes (a chat completion of 512 tokens is a few KiB)
RESPONSE_CAP = 4 * 2 ** 20
#: the largest token count believed: more than any context window (larger ones are recorded as unknown)
MOST_TOKENS = 10 ** 12
#: kinds of failure after which another try is made
RETRY_KINDS = frozenset({"timeout", "connection"})


def digest(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8), hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(model: str, template_digest: str, sampling: dict, sample: int, query_digest: str,
              doc_digest: str) -> str:
    """One answer's key: every input that can change what the model answers, and the draw's index (draw 3 of
    a pair has a place of its own, so more draws add to the earlier ones)."""
    parts = [model, template_digest, sorted(sampling.items()), sample, query_digest, doc_digest]
    return digest(json.dumps(parts, separators=(",", ":")))


def token_count(value) -> int | None:
    """A token count from a server's ``usage``: a whole number in 0..:data:`MOST_TOKENS`, else None (unknown).

    >>> token_count(12), token_count(12.0), token_count(float("nan")), token_count(-3), token_count(10 ** 30)
    (12, 12, None, None, None)
    >>> token_count(True), token_count("12"), token_count(2.5), token_count(float("inf"))
    (None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    value = int(value)
    return value if 0 <= value <= MOST_TOKENS else None


@dataclass
class Answer:
    """What one call returned: the text, the tokens the server counted (None: unknown), the tries it took."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int = 1
    seconds: float = 0.0


class CallFailed(Exception):
    """A call that gave no answer after its tries: ``kind`` (http-429, http-500, timeout, connection, redirect,
    too-large, bad-response, deadline, interrupted), the last error's text and the tries made."""

    def __init__(self, kind: str, message: str, attempts: int, seconds: float = 0.0):
        super().__init__(f"{kind}: {message} (after {attempts} tries)")
        self.kind, self.message, self.attempts, self.seconds = kind, message, attempts, seconds


class _Status(Exception):
    """A reply other than 200: its status, a short excerpt and its Retry-After."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


class ChatClient:
    """Chat completions at ``base_url`` (e.g. ``http://localhost:8000/v1``) for ``model``.

    ``retries`` more tries after the first (a wait of ``backoff * 2**i`` seconds before try ``i + 1``, at
    most ``max_wait``); ``timeout`` seconds for each whole try; ``max_response_bytes`` the longest body read;
    ``deadline`` (a :func:`time.monotonic` instant, optional) when the run stops trying.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 retries: int = 5, backoff: float = 1.0, max_wait: float = 60.0,
                 max_response_bytes: int = RESPONSE_CAP, deadline: float | None = None):
        base = base_url.rstrip("/")
        self.url = base + ("" if base.endswith("/chat/completions") else "/chat/completions")
        self.parts = urllib.parse.urlsplit(self.url)
        if self.parts.scheme not in ("http", "https") or not self.parts.hostname:
            raise ValueError(f"not an http(s) address: {base_url!r}")
        self.path = self.parts.path + (f"?{self.parts.query}" if self.parts.query else "")
        self.model, self.timeout, self.retries = model, timeout, retries
        self.backoff, self.max_wait, self.cap, self.deadline = backoff, max_wait, max_response_bytes, deadline
        self.stopped = threading.Event()  # set: no more tries (the job is being interrupted)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": "rankmeter-judges-label"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"

    def _once(self, body: bytes, deadline: float) -> Answer:
        conn = deadline_connection(self.parts, deadline)
        watchdog = threading.Timer(max(deadline - time.monotonic(), 0.0), cut_at_deadline, (conn,))
        watchdog.daemon = True
        watchdog.start()
        try:
            # through a plain-http proxy the request line holds the whole address
            target = self.url if self.parts.scheme == "http" and proxy_for(self.parts) else self.path
            conn.request("POST", target, body=body, headers=self.headers)
            response = conn.getresponse()
            if 300 <= response.status < 400:
                raise _Status(response.status, f"redirected to {response.getheader('Location', '(nowhere)')!r}")
            if response.status != 200:
                raise _Status(response.status, _excerpt(response), _retry_after(response.getheader("Retry-After")))
            raw = bytearray()
            while True:
                chunk = response.read(min(65536, self.cap + 1 - len(raw)))
                if not chunk:
                    break
                raw += chunk
                if len(raw) > self.cap:
                    raise CallFailed("too-large", f"the body is longer than {self.cap} bytes (the cap, "
                                     "--max-response-bytes): not read further", 1)
            if time.monotonic() >= deadline:   # the watchdog shut a body that runs to the connection's end
                raise TimeoutError("no whole answer within the try's deadline")
            content_type = response.getheader("Content-Type", "")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if isinstance(exc, TryDeadline):
                raise
            if time.monotonic() >= deadline - 1e-3:
                raise TimeoutError(f"no whole answer within the try's deadline ({type(exc).__name__})") from None
            raise
        finally:
            watchdog.cancel()
            raw_socket = getattr(conn, "raw_socket", None)
            conn.close()
            if raw_socket is not None:
                raw_socket.close()
        return _parse(bytes(raw), content_type)

    def complete(self, prompt: str, *, temperature: float = 0.0, max_tokens: int = 512) -> Answer:
        """One user message's answer, retried as the class says; :class:`CallFailed` when none came."""
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt}],
                           "temperature": temperature, "max_tokens": max_tokens}).encode("utf-8")
        start = time.monotonic()
        kind, message, attempt = "error", "", 0
        for attempt in range(self.retries + 1):
            wait = None
            now = time.monotonic()
            if self.deadline is not None and now >= self.deadline - 1e-3:
                kind, message = "deadline", f"the run's time limit passed{f' ({message})' if message else ''}"
                break
            try_deadline = now + self.timeout if self.deadline is None else min(now + self.timeout, self.deadline)
            try:
                answer = self._once(body, try_deadline)
                answer.attempts, answer.seconds = attempt + 1, time.monotonic() - start
                return answer
            except _Status as exc:
                kind, message = f"http-{exc.status}", exc.message
                if 300 <= exc.status < 400:
                    kind = "redirect"
                    message += ": redirects are not followed (the key goes to --base-url only); give the final address"
                    break
                if exc.status not in RETRY_STATUSES:
                    break
                wait = exc.retry_after
            except CallFailed as exc:
                kind, message = exc.kind, exc.message
                break  # the server answered, with something else than a completion: asking again won't help
            except TimeoutError as exc:
                kind, message = "timeout", f"{exc} ({self.timeout:g} s for a try)"
            except (OSError, http.client.IncompleteRead) as exc:  # refused, reset, a reply cut short: try again
                kind, message = "connection", f"{type(exc).__name__}: {exc}"
            except (http.client.HTTPException, ValueError) as exc:  # a status line or headers past http.client's caps
                kind, message = "bad-response", f"{type(exc).__name__}: {str(exc)[:200]}"
                break
            if attempt < self.retries:
                pause = min(self.max_wait, max(self.backoff * 2 ** attempt, wait or 0.0))
                if self.deadline is not None:
                    pause = max(0.0, min(pause, self.deadline - time.monotonic()))
                if self.stopped.wait(pause):
                    kind, message = "interrupted", f"{message} (no more tries: the job was interrupted)"
                    break
        raise CallFailed(kind, message, attempt + 1, time.monotonic() - start)


def _parse(raw: bytes, content_type: str) -> Answer:
    """A 200's body as an answer; :class:`CallFailed` (``bad-response``) when it is not a chat completion."""
    try:
        data = json.loads(raw)
        text = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        shown = f" ({content_type})" if content_type else ""
        raise CallFailed("bad-response", f"not a chat completion{shown}: {raw[:120]!r}", 1) from None
    if not isinstance(text, str):
        raise CallFailed("bad-response", f"the message content is {type(text).__name__}, not text", 1)
    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return Answer(text, token_count(usage.get("prompt_tokens")), token_count(usage.get("completion_tokens")))


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value else None
    except ValueError:
        return None
    return None if seconds is None or not math.isfinite(seconds) else max(0.0, seconds)


def _excerpt(response) -> str:
    try:
        body = response.read(200).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the body is only shown
        body = ""
    return f"{response.reason} {body}".strip()
