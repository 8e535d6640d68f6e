"""A hostile OpenAI-compatible server on the loopback: every way a chat-completions endpoint can misbehave.

:class:`Hostile` listens on 127.0.0.1 (a raw socket server, so that each byte it sends is its choice) and answers
each request by a behaviour: a name from :data:`BEHAVIOURS`, fixed for the server or chosen per request by a
function ``behaviour(n, prompt)`` (``n`` counts the requests from 0). Correct answers grade a passage by its
``[grade: N]`` tag, as the stand-in server does (tests.judges.stand_in). Every request is recorded (its
prompt, path, the ``Authorization`` header, the behaviour used), so a test counts the paid requests per pair;
:meth:`Hostile.other_origin` starts a second server, on another port, that a redirect points at and that
records whether the key arrived there. With ``tls=(certificate, key)`` it speaks https (``stall_handshake``: it
accepts the connection and never starts TLS).

>>> with Hostile("ok") as server:
...     server.url.startswith("http://127.0.0.1:")
True
"""
from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import Counter

from tests.judges.stand_in import tagged_grade

__all__ = ["BEHAVIOURS", "Hostile", "completion"]

#: what the server can do, by name
BEHAVIOURS = {
    "ok": "a correct chat completion",
    "redirect-302": "302 to the other origin", "redirect-307": "307 to the other origin",
    "redirect-same": "307 to another path of the same origin",
    "drip": "a correct answer, one byte a second", "slow-start": "nothing for `delay` seconds, then a correct answer",
    "endless-chunked": "a chunked body that never ends", "huge-body": "a 1 GB body (Content-Length), sent as read",
    "partial-reset": "half the body, then a TCP reset", "reset-before": "a TCP reset before any byte",
    "wrong-type": "200 with an HTML page (text/html)", "json-as-text": "a correct completion labelled text/plain",
    "huge-headers": "200 with 200 headers of 8 KiB each", "long-header": "one header line of 100 KiB",
    "429-storm": "429 with Retry-After: 1e9", "500-storm": "500 with Retry-After: -inf",
    "invalid-json": "200 with a body that is not JSON", "deep-json": "200 with 100,000 nested arrays",
    "tokens-nan": "usage.prompt_tokens NaN", "tokens-inf": "usage.prompt_tokens 1e999",
    "tokens-huge": "usage.prompt_tokens 10**30", "tokens-negative": "usage.prompt_tokens -5",
    "tokens-fraction": "usage.prompt_tokens 2.5", "usage-list": "usage is a list",
    "fullwidth": "the grade in fullwidth digits (２)", "arabic-indic": "the grade in Arabic-Indic digits (٢)",
}


def completion(text: str, usage: str | None = None) -> bytes:
    """A chat completion's JSON; ``usage`` the usage object's raw JSON text (so it can hold NaN or 1e999)."""
    usage = usage or json.dumps({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
    head = json.dumps({"id": "x", "object": "chat.completion", "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]})
    return (head[:-1] + f', "usage": {usage}}}').encode()


class Hostile:
    """The server (``url`` ends in ``/v1``); ``requests`` holds every request; ``close()`` stops it."""

    def __init__(self, behaviour="ok", *, delay: float = 3.0, answer=tagged_grade, record_only: bool = False,
                 tls: tuple[str, str] | None = None, stall_handshake: bool = False):
        self.behaviour, self.delay, self.answer, self.record_only = behaviour, delay, answer, record_only
        self.tls, self.stall_handshake = None, stall_handshake
        if tls is not None:   # (certificate file, key file): https
            import ssl
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(*tls)
        self.requests: list[dict] = []
        self.sent: dict[int, int] = {}        # request number -> body bytes sent
        self.lock = threading.Lock()
        self.other: Hostile | None = None
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}/v1"
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def other_origin(self) -> "Hostile":
        """The server a cross-origin redirect points at (another port: another origin), recording only."""
        if self.other is None:
            self.other = Hostile("ok", record_only=True)
        return self.other

    # what tests read
    def per_prompt(self) -> Counter:
        """Requests per prompt (one prompt per pair)."""
        with self.lock:
            return Counter(r["prompt"] for r in self.requests)

    def count(self) -> int:
        with self.lock:
            return len(self.requests)

    # serving
    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        try:
            if self.tls is not None:
                if self.stall_handshake:   # a TCP connection that never starts TLS
                    self.closed.wait(60)
                    return conn.close()
                conn = self.tls.wrap_socket(conn, server_side=True)
            with conn:
                request = self._read(conn)
                if request is None:
                    return
                with self.lock:
                    n = len(self.requests)
                    self.requests.append(request)
                if self.record_only:
                    return self._send(conn, 200, completion("##final score: 0"))
                behaviour = self.behaviour(n, request["prompt"]) if callable(self.behaviour) else self.behaviour
                request["behaviour"] = behaviour
                self._act(conn, n, behaviour or "ok", request)
        except OSError:   # ssl.SSLError included
            pass   # the client gave up: what it did is the test's to check

    @staticmethod
    def _read(conn: socket.socket) -> dict | None:
        conn.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers.get("content-length", 0))
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        try:
            prompt = json.loads(body)["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            prompt = None
        return {"method": method, "path": path, "auth": headers.get("authorization"), "host": headers.get("host"), "prompt": prompt,
                "body": body, "behaviour": None}

    def _send(self, conn, status: int, body: bytes, headers: dict | None = None, *, reason: str = "OK") -> None:
        head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json", f"Content-Length: {len(body)}",
                "Connection: close", *(f"{k}: {v}" for k, v in (headers or {}).items())]
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)

    def _act(self, conn, n: int, behaviour: str, request: dict) -> None:
        prompt = request["prompt"] or ""
        good = completion(self.answer(prompt))
        if behaviour == "ok":
            return self._send(conn, 200, good)
        if behaviour in ("redirect-302", "redirect-307"):
            other = self.other_origin()
            return self._send(conn, int(behaviour[-3:]), b"", {"Location": f"{other.url}/chat/completions"},
                              reason="Found")
        if behaviour == "redirect-same":
            return self._send(conn, 307, b"", {"Location": "/v2/chat/completions"}, reason="Temporary Redirect")
        if behaviour == "drip":
            whole = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(good)}\r\n"
                     "Connection: close\r\n\r\n").encode() + good
            for i in range(len(whole)):
                conn.sendall(whole[i:i + 1])
                time.sleep(1.0)
            return
        if behaviour == "slow-start":
            time.sleep(self.delay)
            return self._send(conn, 200, good)
        if behaviour == "endless-chunked":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n%s\r\n" % (65536, b"[" * 65536)
            self.sent[n] = 0
            while not self.closed.is_set() and self.sent[n] < 2 ** 31:
                conn.sendall(chunk)
                self.sent[n] += 65536
            return
        if behaviour == "huge-body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n")
            self.sent[n] = 0
            while not self.closed.is_set() and self.sent[n] < 10 ** 9:
                conn.sendall(b" " * 65536)
                self.sent[n] += 65536
            return
        if behaviour == "partial-reset":
            conn.sendall((f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(good)}\r\n\r\n"
                          ).encode() + good[:len(good) // 2])
            time.sleep(0.05)
            return _reset(conn)
        if behaviour == "reset-before":
            return _reset(conn)
        if behaviour == "wrong-type":
            page = b"<html><body>Sign in to the network</body></html>"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s" % (len(page), page))
            return
        if behaviour == "json-as-text":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(good), good))
            return
        if behaviour == "huge-headers":
            pad = "a" * 8192
            head = "HTTP/1.1 200 OK\r\n" + "".join(f"X-Pad-{i}: {pad}\r\n" for i in range(200))
            conn.sendall(head.encode() + f"Content-Length: {len(good)}\r\n\r\n".encode() + good)
            return
        if behaviour == "long-header":
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n" + good)
            return
        if behaviour == "429-storm":
            return self._send(conn, 429, b'{"error": "slow down"}', {"Retry-After": "1e9"}, reason="Too Many")
        if behaviour == "500-storm":
            return self._send(conn, 500, b'{"error": "oops"}', {"Retry-After": "-inf"}, reason="Error")
        if behaviour == "invalid-json":
            return self._send(conn, 200, b'{"choices": [{"message": ')
        if behaviour == "deep-json":
            return self._send(conn, 200, b"[" * 100_000 + b"]" * 100_000)
        usages = {"tokens-nan": '{"prompt_tokens": NaN, "completion_tokens": 5}',
                  "tokens-inf": '{"prompt_tokens": 1e999, "completion_tokens": 5}',
                  "tokens-huge": '{"prompt_tokens": %d, "completion_tokens": 5}' % 10 ** 30,
                  "tokens-negative": '{"prompt_tokens": -5, "completion_tokens": -1}',
                  "tokens-fraction": '{"prompt_tokens": 2.5, "completion_tokens": 5}',
                  "usage-list": '[1, 2]'}
        if behaviour in usages:
            return self._send(conn, 200, completion(self.answer(prompt), usages[behaviour]))
        if behaviour in ("fullwidth", "arabic-indic"):
            digit = "\uff12" if behaviour == "fullwidth" else "\u0662"
            return self._send(conn, 200, completion(f"Relevant.\n##final score: {digit}"))
        raise AssertionError(f"unknown behaviour {behaviour!r}")

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        if self.other is not None:
            self.other.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _reset(conn: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), not a clean end."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()
