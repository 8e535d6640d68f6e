"""rankmeter.io.sqlite: the one checker of SQLite inputs (the caches), on other programs' databases."""
from __future__ import annotations

import sqlite3

import pytest

from rankmeter.errors import InputError
from rankmeter.io.sqlite import check_sqlite


def _table(path, sql):
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()


def test_sqlite_metadata(tmp_path):
    tables = {"answers": ("key", "answer"), "ledger": ("id", "key")}
    assert check_sqlite(tmp_path / "new.sqlite", tables) is False            # missing: a new cache
    (tmp_path / "empty.sqlite").write_bytes(b"")
    assert check_sqlite(tmp_path / "empty.sqlite", tables) is False
    ours = tmp_path / "ours.sqlite"
    _table(ours, "CREATE TABLE answers (key TEXT, answer TEXT, more TEXT); CREATE TABLE ledger (id INT, key TEXT);")
    assert check_sqlite(ours, tables) is True
    other = tmp_path / "other.sqlite"
    _table(other, "CREATE TABLE answers (id INTEGER, body TEXT);")
    before = other.read_bytes()
    with pytest.raises(InputError, match="another program's database, not the cache .its table answers has no column key, answer"):
        check_sqlite(other, tables)
    mixed = tmp_path / "mixed.sqlite"
    _table(mixed, "CREATE TABLE invoices (n INT);")
    with pytest.raises(InputError, match=r"another program's database, not the cache \(it holds the table\(s\) invoices"):
        check_sqlite(mixed, tables)
    assert other.read_bytes() == before                                        # never altered
    text = tmp_path / "text.sqlite"
    text.write_text("not a database at all\n")
    with pytest.raises(InputError, match=r"text.sqlite: not the cache \(not an SQLite database\)"):
        check_sqlite(text, tables)
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(InputError, match="damaged or unreadable SQLite database"):
        check_sqlite(damaged, tables)


def test_the_application_id_exact_columns_and_required_tables(tmp_path):
    tables = {"answers": ("key", "answer"), "ledger": ("id", "key"), "claims": ("key",)}
    theirs = tmp_path / "theirs.sqlite"
    _table(theirs, "CREATE TABLE answers (key TEXT, answer TEXT); PRAGMA application_id = 305419896;")
    before = theirs.read_bytes()
    assert check_sqlite(theirs, tables) is True                                # no id asked for: read
    with pytest.raises(InputError, match=r"another program's SQLite database \(application id 0x12345678\)"):
        check_sqlite(theirs, tables, application_id=0x726B6D6A)
    assert theirs.read_bytes() == before
    reordered = tmp_path / "reordered.sqlite"
    _table(reordered, "CREATE TABLE answers (answer TEXT, key TEXT);")
    assert check_sqlite(reordered, tables) is True                             # at least these columns
    with pytest.raises(InputError, match="its table answers has the columns answer, key, not key, answer"):
        check_sqlite(reordered, tables, exact=True)
    with pytest.raises(InputError, match="it has no table ledger"):
        check_sqlite(reordered, tables, required=("answers", "ledger"))
    earlier = tmp_path / "earlier.sqlite"                                      # an earlier version: no claims
    _table(earlier, "CREATE TABLE answers (key TEXT, answer TEXT); CREATE TABLE ledger (id INT, key TEXT);")
    assert check_sqlite(earlier, tables, exact=True, required=("answers", "ledger")) is True

