"""A stand-in for a model: an OpenAI-compatible chat-completions server on the loopback interface.

It answers each request with the grade tagged in its passage (``[grade: 2]`` -> ``##final score: 2``), so
``rankmeter judges label`` can be tried, taught and tested end to end without a model: the docs page's loop
(docs/llm-judges.md) and the label tests run against it. A ``script(n, body, prompt)`` may change any answer:
``("status", 429)``, ``("sleep", 0.2)``, ``("raw", b"...")`` or ``("text", "...")``. Every request is counted
(``requests``), so what the cache promises can be checked as calls made.

>>> with StandIn() as server:
...     server.url.startswith("http://127.0.0.1:")
True
"""
from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["StandIn", "tagged_grade"]

_TAG = re.compile(r"\[grade:\s*(\d)\]")


def tagged_grade(prompt: str) -> str:
    """The answer to a prompt whose passage carries ``[grade: N]``; without a tag, an answer without a score line."""
    found = _TAG.search(prompt)
    if not found:
        return "I cannot tell how relevant this passage is."
    return f"The passage is graded by its tag.\n##final score: {found.group(1)}"


class StandIn:
    """The server, started on 127.0.0.1 at a free port (``url`` ends in ``/v1``); ``close()`` stops it."""

    def __init__(self, answer=tagged_grade, script=None):
        self.requests: list[dict] = []       # every request: model, prompt, status sent, headers, body
        self.lock = threading.Lock()
        self.answer, self.script = answer, script
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                with server.lock:
                    n = len(server.requests)
                    entry = {"model": body["model"], "prompt": prompt, "status": None, "path": self.path,
                             "auth": self.headers.get("Authorization"), "body": body}
                    server.requests.append(entry)
                action = server.script(n, body, prompt) if server.script else None
                if action and action[0] == "sleep":
                    time.sleep(action[1])
                    action = None
                if action and action[0] == "status":
                    entry["status"] = action[1]
                    return self._send(action[1], b'{"error": {"message": "scripted"}}',
                                      {"Retry-After": "0"} if action[1] == 429 else {})
                if action and action[0] == "raw":
                    entry["status"] = 200
                    return self._send(200, action[1])
                text = action[1] if action else server.answer(prompt)
                entry["status"] = 200
                reply = {"id": "x", "object": "chat.completion", "model": body["model"],
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                      "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4,
                                   "total_tokens": len(prompt) // 4 + len(text) // 4}}
                self._send(200, json.dumps(reply).encode())

            def _send(self, status, data, headers=None):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout): nothing to answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def answered(self) -> list[str]:
        """The prompts answered with a 200."""
        return [r["prompt"] for r in self.requests if r["status"] == 200]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
