"""The journal of answers a full disk kept out of the cache, read back by the one JSON reader when the cache is
opened: whole rows are imported (never paid again), a line that is not one -- cut short, a key twice, NaN, nested,
of the wrong types -- is skipped and named in a warning, never imported as something else."""
from __future__ import annotations

import json

import pytest

from rankmeter.judges.answer_cache import AnswerCache


def _row(key: str, **more) -> dict:
    row = {"key": key, "model": "m", "query": "q1", "doc": "d1", "sample": 0, "status": "ok", "prompt_tokens": 10,
           "completion_tokens": 5, "cost": None, "attempts": 1, "seconds": 0.5, "error": None, "created": 1.0e9,
           "answer": "##final score: 2", "template": "t", "sampling": "{}", "query_digest": "qd", "doc_digest": "dd"}
    row.update(more)
    return row


def test_whole_rows_are_imported_and_damaged_lines_named_and_skipped(tmp_path):
    cache = tmp_path / "cache.db"
    good = json.dumps(_row("k1"))
    lines = [good,
             json.dumps(_row("k2"))[:-1] + ', "key": "k9"}',            # 2: a key given twice
             json.dumps(_row("k3")).replace('"seconds": 0.5', '"seconds": NaN'),   # 3: NaN
             json.dumps(_row("k4", sample="0")),                          # 4: a count as text
             json.dumps(_row("k5")).replace('"error": null', '"error": ' + "[" * 40 + "]" * 40),  # 5: nested
             json.dumps(_row("k6", prompt_tokens=10 ** 30)),              # 6: kept, the count unknown
             json.dumps(_row("k7"))[:40]]                                 # 7: cut short by a full disk
    (tmp_path / "cache.db.journal").write_text("\n".join(lines))
    with pytest.warns(UserWarning) as said:
        store = AnswerCache.open(str(cache))
    try:
        assert store.imported == 2
        assert set(store.known(["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k9"])) == {"k1", "k6"}
        rows = store._db.execute("SELECT key, prompt_tokens FROM ledger ORDER BY key").fetchall()
        assert rows == [("k1", 10), ("k6", None)]
    finally:
        store.close()
    assert [str(w.message) for w in said] == [
        f"{cache}.journal: 5 lines are not whole answers rankmeter wrote (line 2, 3, 4, 5, 7; a write cut short by "
        "a full disk, or an edit): skipped, their pairs are asked again"]
    assert not (tmp_path / "cache.db.journal").exists()


def test_latin1_bytes_in_the_journal_are_one_error_and_nothing_is_imported(tmp_path):
    from rankmeter.errors import InputError
    journal = tmp_path / "cache.db.journal"
    journal.write_bytes(json.dumps(_row("k1")).encode() + b"\n\xe9\n")
    with pytest.raises(InputError, match=r"cache\.db\.journal: the journal of unsaved answers cannot be read "
                                         r"\('utf-8' codec can't decode byte 0xe9"):
        AnswerCache.open(str(tmp_path / "cache.db"))
    assert journal.exists()
