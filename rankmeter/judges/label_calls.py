"""The calls of one ``judges label`` job: each (pair, draw) asked once, whoever else shares the cache.

:class:`Calls` runs a batch of jobs (query, doc, draw, key, prompt, key parts) ``concurrency`` at a time. For
each key it first claims it in the cache (:meth:`~rankmeter.judges.answer_cache.AnswerCache.claim`): a key
already answered is taken from the cache, a key another live job holds is waited for (its answer is then
taken, or, when that job gave up, the key is claimed again), and only a key of its own is called. Each
answer is recorded as it arrives; when the cache cannot be written the job halts (no call starts, the calls
under way finish and are journaled) and the label function reports it. A budget (``max_calls``) and the
run's deadline stop calls the same way, each pair left recorded as a failure of its kind.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from rankmeter.judges.llm_client import CallFailed

__all__ = ["Calls"]


class Calls:
    """What runs the calls of one job: ``price(tokens_in, tokens_out)`` is a call's cost, ``parse(text)`` an
    answer's grade (None: unparseable, so recorded), ``on_answer(q, d, s, text, cached)`` keeps each answer and
    ``on_failure(q, d, s, kind, error)`` each failure."""

    def __init__(self, *, store, client, model: str, temperature: float, max_tokens: int, concurrency: int,
                 price, parse, on_answer, on_failure, max_calls: int | None = None, deadline: float | None = None,
                 progress=None):
        self.store, self.client, self.model = store, client, model
        self.temperature, self.max_tokens, self.concurrency = temperature, max_tokens, concurrency
        self.price, self.parse, self.on_answer, self.on_failure = price, parse, on_answer, on_failure
        self.budget = max_calls          # calls left (None: no budget)
        self.deadline, self.progress = deadline, progress
        self.halt = threading.Event()    # set: no new call (the cache cannot be written, or Ctrl-C)
        self.lock = threading.Lock()
        self.calls = 0
        self.calls_by_draw: dict[int, int] = {}
        self.spent = {"prompt_tokens": 0, "completion_tokens": 0, "cost": None}
        self.out_of_budget = False

    def run(self, jobs) -> None:
        """Every job of ``jobs``: from the cache, from another job's call, or called now."""
        twins: dict[str, list] = {}
        for job in jobs:
            twins.setdefault(job[3], []).append(job)
        known = self.store.known(list(twins))
        for key in [k for k in twins if k in known]:
            for q, d, s, *_ in twins.pop(key):
                self.on_answer(q, d, s, known[key], cached=True)
        pending = [group[0] for group in twins.values()]
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            while pending:
                held = []
                for job, outcome in zip(pending, pool.map(self._one, pending)):
                    state, payload = outcome
                    group = twins[job[3]]
                    if state == "held":
                        held.append(job)
                        continue
                    if state in ("answered", "called"):
                        for q, d, s, *_ in group:
                            self.on_answer(q, d, s, payload, cached=state == "answered")
                    else:
                        for q, d, s, *_ in group:
                            self.on_failure(q, d, s, state, payload)
                    if self.progress is not None:
                        self.progress.update(advance=len(group))
                if held and not self.halt.is_set():
                    if self.client.stopped.wait(0.1):
                        break
                pending = held
        except BaseException:   # Ctrl-C: no call starts or retries; those under way are waited for and kept
            self.halt.set()
            self.client.stopped.set()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _one(self, job):
        """One key: ``(state, payload)``, state one of answered, called, held, or a failure's kind."""
        q, d, s, key, text, entry = job
        if self.halt.is_set() or self.client.stopped.is_set():
            why = self.store.write_error or "the job was interrupted"
            return "not-called", f"no call made: {why}"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "deadline", "no call made: the job's --time-limit passed"
        try:
            state, payload = self.store.claim(key)
        except sqlite3.Error as exc:
            self.store.write_error = self.store.write_error or f"{type(exc).__name__}: {exc}"
            self.halt.set()
            return "not-called", f"no call made: the cache cannot be written ({exc})"
        if state != "mine":
            return state, payload
        with self.lock:
            if self.budget is not None and self.budget <= 0:
                self.out_of_budget = True
                self.store.release(key)
                return "budget", "no call made: --max-calls was spent"
            if self.budget is not None:
                self.budget -= 1
            self.calls += 1
            self.calls_by_draw[s] = self.calls_by_draw.get(s, 0) + 1
        try:
            answer = self.client.complete(text, temperature=self.temperature, max_tokens=self.max_tokens)
        except CallFailed as exc:
            self._saved(self.store.record(key=key, model=self.model, query=q, doc=d, sample=s, status="failed",
                                          attempts=exc.attempts, seconds=exc.seconds, error=str(exc)))
            return exc.kind, str(exc)
        cost = self.price(answer.prompt_tokens, answer.completion_tokens)
        status = "ok" if self.parse(answer.text) is not None else "unparseable"
        self._saved(self.store.record(key=key, model=self.model, query=q, doc=d, sample=s, status=status,
                                      answer=answer, cost=cost, attempts=answer.attempts, seconds=answer.seconds,
                                      entry=entry))
        with self.lock:
            self.spent["prompt_tokens"] += answer.prompt_tokens or 0
            self.spent["completion_tokens"] += answer.completion_tokens or 0
            if cost is not None:
                self.spent["cost"] = (self.spent["cost"] or 0.0) + cost
        return "called", answer.text

    def _saved(self, how: str) -> None:
        if how != "saved":
            self.halt.set()   # the cache cannot be written: no more calls to pay for
