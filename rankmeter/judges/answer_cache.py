"""The answers' cache of ``judges label``: one SQLite file, checked before use, shared safely, never losing a paid answer.

Tables:

* ``answers``: every answer received, keyed by :func:`~rankmeter.judges.llm_client.cache_key` (the model, the
  prompt template's digest, the sampling parameters, the draw's index and the digests of the query's and the
  document's texts), committed as it arrives;
* ``ledger``: one row per call made (its draw, tokens, cost, tries, seconds, error);
* ``claims``: the keys a job is asking for now, with who asks (host, process id) and until when the claim
  holds. Jobs sharing a cache claim a key before calling and skip the keys another live job holds, then take
  that job's answer when it arrives: one paid call per (pair, draw). A claim whose process is gone (same
  host) or whose time ran out is taken over.

:meth:`AnswerCache.open` checks the file before anything is written: a file that is not SQLite, or an SQLite
database of another program (another ``application_id``, or tables or columns that are not these), is an
:class:`~rankmeter.errors.InputError` naming the file, and the file is left as it was; then it checks the
cache can be written (a read-only file or folder is refused before the first call).

When a write fails mid-run (a full disk, a file size limit), the answer is appended to the side journal
``CACHE.journal`` instead (JSON Lines), :attr:`AnswerCache.write_error` says why, and the next
:meth:`~AnswerCache.open` imports the journal: an answer paid for is never paid again.
"""
from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import threading
import time
import uuid

from rankmeter.errors import InputError
from rankmeter.judges.llm_client import token_count

__all__ = ["APPLICATION_ID", "AnswerCache"]

#: the SQLite header's application_id of a rankmeter answers cache ("rkmj")
APPLICATION_ID = 0x726B6D6A

_COLUMNS = {
    "answers": ("key", "model", "template", "sampling", "sample", "query_digest", "doc_digest", "answer",
                "prompt_tokens", "completion_tokens", "created"),
    "ledger": ("id", "key", "model", "query", "doc", "sample", "status", "prompt_tokens", "completion_tokens",
               "cost", "attempts", "seconds", "error", "created"),
    "claims": ("key", "owner", "host", "pid", "created", "expires"),
}
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
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, created REAL NOT NULL,
    expires REAL NOT NULL);
"""
_HINT = "name a new file, or the cache an earlier judges label made"


def _inspect(path: str) -> None:
    """Refuse ``path`` unless it is missing, empty, or an answers cache (this or an earlier version); read only,
    by the one checker of SQLite inputs."""
    from rankmeter.io.sqlite import check_sqlite
    check_sqlite(path, _COLUMNS, what="an answers cache", hint=_HINT, application_id=APPLICATION_ID, exact=True,
                 required=("answers", "ledger"))


def _journal_row(row) -> bool:
    """Whether a journal line is a row this module wrote (its token counts made sure again: no overflow)."""
    if not isinstance(row, dict) or not all(c in row for c in _COLUMNS["ledger"][1:]):
        return False
    texts = ("key", "model", "query", "doc", "status") + (("answer", "template", "sampling", "query_digest",
                                                             "doc_digest") if "answer" in row else ())
    if not all(isinstance(row[c], str) for c in texts) or not isinstance(row["sample"], int):
        return False
    for c in ("prompt_tokens", "completion_tokens"):
        row[c] = token_count(row[c])
    numbers = [row[c] for c in ("cost", "seconds", "created") if row[c] is not None]
    return (all(isinstance(x, (int, float)) and math.isfinite(x) for x in numbers)
            and isinstance(row["attempts"], int) and 0 <= row["sample"] < 2 ** 31 and 0 < row["attempts"] < 2 ** 31)


class AnswerCache:
    """The answers, the ledger and the claims in one SQLite file (see the module docstring); safe across threads
    and processes. Open it with :meth:`open`."""

    def __init__(self, path: str, *, lease: float = 3600.0):
        self.path, self.journal, self.lease = path, path + ".journal", lease
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.write_error: str | None = None    # the first write that failed (the answers went to the journal)
        self.journaled = 0                       # answers appended to the journal by this job
        self.lost: list[dict] = []               # answers neither table nor journal could keep
        self.imported = 0                        # answers a journal gave when the cache was opened
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=60)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                # a real write, so that a read-only file or folder is found now, before any call is paid
                self._db.execute("INSERT OR REPLACE INTO claims VALUES ('', ?, ?, ?, ?, 0)",
                                 (self.owner, self.host, self.pid, time.time()))
                self._db.execute("DELETE FROM claims WHERE key = ''")
            self._import_journal()
        except BaseException:
            self._db.close()
            raise

    @classmethod
    def open(cls, path, *, lease: float = 3600.0) -> "AnswerCache":
        """The cache at ``path`` (created when missing), checked as the module docstring says;
        an :class:`~rankmeter.errors.InputError` when it is something else or cannot be written."""
        name = os.fspath(path)
        _inspect(name)
        try:
            return cls(name, lease=lease)
        except sqlite3.DatabaseError as exc:
            reason = str(exc)
            if "readonly" in reason or "unable to open" in reason or "disk" in reason or "full" in reason:
                raise InputError(f"the answers cache cannot be written ({reason}): make the file and its folder "
                                 "writable, or name another cache; nothing was called", source=name) from None
            raise InputError(f"is not an answers cache (an SQLite database): {reason}; {_HINT}",
                             source=name) from None

    def close(self) -> None:
        with self._lock:
            try:
                self._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            except sqlite3.Error:
                pass
            self._db.close()

    # reading
    def known(self, keys: list[str]) -> dict[str, str]:
        """The cached answers of ``keys``."""
        found: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(self._db.execute(f"SELECT key, answer FROM answers WHERE key IN ({marks})", chunk))
        return found

    def totals(self, *, model: str | None = None) -> dict:
        """The ledger summed: calls, failed calls, tokens in and out (the known counts), cost (None when no
        price was given), and the answered calls whose counts were unknown (``tokens_unknown``)."""
        where, args = ("WHERE model = ?", (model,)) if model else ("", ())
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*), SUM(status = 'failed'), COALESCE(SUM(prompt_tokens), 0), "
                "COALESCE(SUM(completion_tokens), 0), SUM(cost), "
                "SUM(status != 'failed' AND (prompt_tokens IS NULL OR completion_tokens IS NULL)) "
                f"FROM ledger {where}", args).fetchone()
        return {"calls": row[0], "failed": row[1] or 0, "prompt_tokens": row[2], "completion_tokens": row[3],
                "cost": row[4], "tokens_unknown": row[5] or 0}

    def by_draw(self, *, model: str | None = None) -> list[dict]:
        """The ledger by draw index: for each draw, its calls, failed calls, tokens and cost."""
        where, args = ("WHERE model = ?", (model,)) if model else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT sample, COUNT(*), SUM(status = 'failed'), COALESCE(SUM(prompt_tokens), 0), "
                f"COALESCE(SUM(completion_tokens), 0), SUM(cost) FROM ledger {where} GROUP BY sample "
                "ORDER BY sample", args).fetchall()
        return [{"draw": r[0], "calls": r[1], "failed": r[2] or 0, "prompt_tokens": r[3], "completion_tokens": r[4],
                 "cost": r[5]} for r in rows]

    # claims
    def claim(self, key: str) -> tuple[str, str | None]:
        """Claim ``key`` for this job: ``("answered", answer)`` when it is cached, ``("held", owner)`` when
        another live job holds it, else ``("mine", None)``."""
        now = time.time()
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
            if row is not None:
                return "answered", row[0]
            held = self._db.execute("SELECT owner, host, pid, expires FROM claims WHERE key = ?", (key,)).fetchone()
            if held is not None and held[0] != self.owner and not self._stale(held[1], held[2], held[3], now):
                return "held", f"process {held[2]} on {held[1]}"
            self._db.execute("INSERT OR REPLACE INTO claims VALUES (?,?,?,?,?,?)",
                             (key, self.owner, self.host, self.pid, now, now + self.lease))
        return "mine", None

    def _stale(self, host: str, pid: int, expires: float, now: float) -> bool:
        if now > expires:
            return True
        if host == self.host:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            except OSError:
                return False
        return False

    def release(self, key: str) -> None:
        """Give up the claim of ``key`` (its call failed); a failed write is only noted."""
        try:
            with self._lock:
                self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))
        except sqlite3.Error as exc:
            self.write_error = self.write_error or str(exc)

    # writing
    def record(self, *, key: str, model: str, query: str, doc: str, sample: int, status: str,
               answer=None, cost: float | None = None, error: str | None = None,
               attempts: int = 1, seconds: float = 0.0, entry: dict | None = None) -> str:
        """One call's ledger row and, with ``entry`` (the key's parts), its answer: one transaction, committed,
        the key's claim released. Returns ``"saved"``; when the database cannot be written, the row goes to
        the journal (``"journaled"``) or, when that fails too, to :attr:`lost` (``"lost"``)."""
        now = time.time()
        tokens = (answer.prompt_tokens, answer.completion_tokens) if answer is not None else (None, None)
        row = {"key": key, "model": model, "query": query, "doc": doc, "sample": sample, "status": status,
               "prompt_tokens": tokens[0], "completion_tokens": tokens[1], "cost": cost, "attempts": attempts,
               "seconds": seconds, "error": error, "created": now}
        if answer is not None and entry is not None:
            row.update(answer=answer.text, template=entry["template"], sampling=entry["sampling"],
                       query_digest=entry["query_digest"], doc_digest=entry["doc_digest"])
        try:
            with self._lock:
                self._write(row)
            return "saved"
        except (sqlite3.Error, OSError) as exc:
            self.write_error = self.write_error or f"{type(exc).__name__}: {exc}"
        try:
            with self._lock, open(self.journal, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self.journaled += "answer" in row
            return "journaled"
        except OSError:
            if "answer" in row:
                self.lost.append(row)
            return "lost"

    def _write(self, row: dict) -> None:
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if "answer" in row:
                self._db.execute(
                    "INSERT OR IGNORE INTO answers VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    tuple(row[c] for c in _COLUMNS["answers"]))
            self._db.execute(
                "INSERT INTO ledger (key, model, query, doc, sample, status, prompt_tokens, completion_tokens,"
                " cost, attempts, seconds, error, created) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                tuple(row[c] for c in _COLUMNS["ledger"][1:]))
            self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (row["key"], self.owner))

    def _import_journal(self) -> None:
        """The answers an earlier job could only journal, into the tables; the journal then goes."""
        try:
            with open(self.journal, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"the journal of unsaved answers cannot be read ({exc}); move it away to go on "
                             "(its answers would be asked again)", source=self.journal) from None
        from rankmeter.io.structured import parse_json
        rows, damaged = [], []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:   # the one JSON reader: a key twice, NaN, deep nesting refused
                row = parse_json(line, source=self.journal, none_if_not_json=True)
            except InputError:
                row = None
            if row is not None and _journal_row(row):
                rows.append(row)
            else:   # cut short by a full disk (the next line may follow on it), or edited
                damaged.append(number)
        if damaged:
            import warnings
            shown = ", ".join(map(str, damaged[:5])) + (", ..." if len(damaged) > 5 else "")
            warnings.warn(f"{self.journal}: {len(damaged)} lines are not whole answers rankmeter wrote (line "
                          f"{shown}; a write cut short by a full disk, or an edit): skipped, their pairs are asked "
                          "again", stacklevel=3)
        with self._lock:
            for row in rows:
                known = self._db.execute("SELECT 1 FROM ledger WHERE key = ? AND created = ?",
                                         (row["key"], row["created"])).fetchone()
                if known is None:
                    self._write(row)
                    self.imported += "answer" in row
        os.unlink(self.journal)
