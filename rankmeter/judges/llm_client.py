"""An OpenAI-compatible chat-completions client and the answers' cache, with the standard library only.

:class:`ChatClient` posts ``{"model", "messages", "temperature", "max_tokens"}`` to ``BASE_URL/chat/completions``
(vLLM, llama.cpp's server, Ollama, hosted APIs) with :mod:`urllib.request`; a 429, a 5xx, a 408, a refused
or broken connection and a timeout are retried with exponential backoff (the server's ``Retry-After`` when it
gives one, capped), anything else fails at once. It raises :class:`CallFailed` with what went wrong; it never
returns half an answer.

:class:`AnswerCache` is a SQLite database: ``answers`` keeps every answer received, keyed by :func:`cache_key`
(the model, the prompt template's digest, the sampling parameters, the sample's index and the digests of the
query's and the document's texts: a changed model, prompt or text never reuses an answer), committed as it
arrives; ``ledger`` keeps one row per call made (its tokens, cost, attempts, seconds, error), so the tokens
and money spent are known across runs and interruptions.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

__all__ = ["Answer", "AnswerCache", "CallFailed", "ChatClient", "cache_key", "digest"]

#: HTTP statuses worth another try: rate limits, timeouts and the server's own errors
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524})


def digest(text: str) -> str:
    """The SHA-256 of ``text`` (UTF-8), hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(model: str, template_digest: str, sampling: dict, sample: int, query_digest: str,
              doc_digest: str) -> str:
    """One answer's key: every input that can change what the model answers."""
    parts = [model, template_digest, sorted(sampling.items()), sample, query_digest, doc_digest]
    return digest(json.dumps(parts, separators=(",", ":")))


@dataclass
class Answer:
    """What one call returned: the text, the tokens the server counted, the tries it took."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int = 1
    seconds: float = 0.0


class CallFailed(Exception):
    """A call that gave no answer after its tries: ``kind`` (http-429, http-500, timeout, connection,
    bad-response, ...), the last error's text and the tries made."""

    def __init__(self, kind: str, message: str, attempts: int, seconds: float = 0.0):
        super().__init__(f"{kind}: {message} (after {attempts} tries)")
        self.kind, self.message, self.attempts, self.seconds = kind, message, attempts, seconds


class ChatClient:
    """Chat completions at ``base_url`` (e.g. ``http://localhost:8000/v1``) for ``model``.

    ``retries`` more tries after the first (a wait of ``backoff * 2**i`` seconds before try ``i + 1``, at
    most ``max_wait``); ``timeout`` seconds per try.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 60.0,
                 retries: int = 5, backoff: float = 1.0, max_wait: float = 60.0):
        self.url = base_url.rstrip("/") + ("" if base_url.rstrip("/").endswith("/chat/completions")
                                           else "/chat/completions")
        self.model, self.timeout, self.retries = model, timeout, retries
        self.backoff, self.max_wait = backoff, max_wait
        self.stopped = threading.Event()  # set: no more tries (the job is being interrupted)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": "rankmeter-judges-label"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"

    def _once(self, body: bytes) -> Answer:
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            raw = response.read()
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"]
            usage = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise CallFailed("bad-response", f"not a chat completion: {raw[:120]!r}", 1) from None
        if not isinstance(text, str):
            raise CallFailed("bad-response", f"the message content is {type(text).__name__}, not text", 1)
        return Answer(text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))

    def complete(self, prompt: str, *, temperature: float = 0.0, max_tokens: int = 512) -> Answer:
        """One user message's answer, retried as the class says; :class:`CallFailed` when none came."""
        body = json.dumps({"model": self.model, "messages": [{"role": "user", "content": prompt}],
                           "temperature": temperature, "max_tokens": max_tokens}).encode("utf-8")
        start = time.monotonic()
        kind, message = "error", ""
        for attempt in range(self.retries + 1):
            wait = None
            try:
                answer = self._once(body)
                answer.attempts, answer.seconds = attempt + 1, time.monotonic() - start
                return answer
            except urllib.error.HTTPError as exc:
                kind, message = f"http-{exc.code}", _excerpt(exc)
                if exc.code not in RETRY_STATUSES:
                    break
                wait = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            except CallFailed as exc:
                kind, message = exc.kind, exc.message
                break  # the server answered, with something else than a completion: asking again won't help
            except (TimeoutError, OSError) as exc:  # socket.timeout, refused, reset, broken pipe, URLError
                reason = getattr(exc, "reason", exc)
                timed_out = isinstance(reason, TimeoutError) or "timed out" in str(reason)
                kind, message = ("timeout" if timed_out else "connection"), str(reason)
            except Exception as exc:  # noqa: BLE001 - http.client's protocol errors (a reply cut short)
                kind, message = "connection", f"{type(exc).__name__}: {exc}"
            if attempt < self.retries:
                backoff = self.backoff * 2 ** attempt
                if self.stopped.wait(min(self.max_wait, max(backoff, wait or 0.0))):
                    kind, message = "interrupted", f"{message} (no more tries: the job was interrupted)"
                    break
        raise CallFailed(kind, message, attempt + 1, time.monotonic() - start)


def _count(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def _excerpt(exc: urllib.error.HTTPError) -> str:
    try:
        body = exc.read()[:200].decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the body is only shown
        body = ""
    return f"{exc.reason} {body}".strip()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, template TEXT NOT NULL, sampling TEXT NOT NULL,
    sample INTEGER NOT NULL, query_digest TEXT NOT NULL, doc_digest TEXT NOT NULL, answer TEXT NOT NULL,
    prompt_tokens INTEGER, completion_tokens INTEGER, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, model TEXT NOT NULL, query TEXT NOT NULL,
    doc TEXT NOT NULL, sample INTEGER NOT NULL, status TEXT NOT NULL, prompt_tokens INTEGER,
    completion_tokens INTEGER, cost REAL, attempts INTEGER NOT NULL, seconds REAL NOT NULL, error TEXT,
    created REAL NOT NULL);
"""


class AnswerCache:
    """The answers and the ledger in one SQLite file (see the module docstring); safe across threads."""

    def __init__(self, path):
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    @classmethod
    def open(cls, path) -> "AnswerCache":
        """The cache at ``path`` (created when missing); an :class:`~rankmeter.errors.InputError` when the file
        is something else than an SQLite database."""
        from rankmeter.errors import InputError
        try:
            return cls(path)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"is not an answers cache (an SQLite database): {exc}; name a new file, or the "
                             "cache an earlier judges label made", source=str(path)) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def known(self, keys: list[str]) -> dict[str, str]:
        """The cached answers of ``keys``."""
        found: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(self._db.execute(f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk))
        return found

    def record(self, *, key: str, model: str, query: str, doc: str, sample: int, status: str,
               answer: Answer | None = None, cost: float | None = None, error: str | None = None,
               attempts: int = 1, seconds: float = 0.0, entry: dict | None = None) -> None:
        """One call's ledger row and, with ``entry`` (the key's parts), its answer: one transaction, committed."""
        now = time.time()
        tokens = (answer.prompt_tokens, answer.completion_tokens) if answer else (None, None)
        with self._lock:
            with self._db:  # a transaction: the answer and its ledger row together, or neither
                self._db.execute("BEGIN")
                if answer is not None and entry is not None:
                    self._db.execute(
                        "INSERT OR REPLACE INTO answers VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (key, model, entry["template"], entry["sampling"], sample, entry["query_digest"],
                         entry["doc_digest"], answer.text, *tokens, now))
                self._db.execute(
                    "INSERT INTO ledger (key, model, query, doc, sample, status, prompt_tokens, completion_tokens,"
                    " cost, attempts, seconds, error, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (key, model, query, doc, sample, status, *tokens, cost, attempts, seconds, error, now))

    def totals(self, *, model: str | None = None) -> dict:
        """The ledger summed: calls, failed calls, tokens in and out, cost (None when no price was given)."""
        where, args = ("WHERE model = ?", (model,)) if model else ("", ())
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*), SUM(status = 'failed'), COALESCE(SUM(prompt_tokens), 0), "
                f"COALESCE(SUM(completion_tokens), 0), SUM(cost) FROM ledger {where}", args).fetchone()
        return {"calls": row[0], "failed": row[1] or 0, "prompt_tokens": row[2], "completion_tokens": row[3],
                "cost": row[4]}
