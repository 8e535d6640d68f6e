"""The metadata of an SQLite file looked at before a cache opens it: one checker, read only.

:func:`check_sqlite` is how every SQLite input of rankmeter (the answers cache of ``judges label`` and any
other cache) is checked before anything is written to it: a file that is not SQLite, a damaged database,
another program's database (another ``application_id``, a table rankmeter's cache does not have, a table of
the same name with other columns) is an :class:`~rankmeter.errors.InputError` naming the file, and the file
is left exactly as it was (it is opened read only; ``immutable`` when its folder cannot take the WAL index).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rankmeter.errors import InputError

__all__ = ["check_sqlite", "SQLITE_MAGIC"]

#: the first 16 bytes of every SQLite 3 database
SQLITE_MAGIC = b"SQLite format 3\x00"


def check_sqlite(path, tables: Mapping[str, Sequence[str]], *, what: str = "the cache", hint: str | None = None,
                 writable: bool = False, application_id: int | None = None, exact: bool = False,
                 required: Sequence[str] = ()) -> bool:
    """Look at the SQLite file ``path`` before a cache opens it; nothing is written to it.

    Parameters
    ----------
    tables : mapping
        ``{table: column names}``: the tables the cache may hold, each with at least these columns (with
        ``exact``: these columns, in this order).
    what : str
        What the file should be, for the messages (``"the answers cache"``).
    hint : str, optional
        What to do instead (appended to every refusal).
    writable : bool
        Also refuse a file or folder this process cannot write.
    application_id : int, optional
        The cache's own ``PRAGMA application_id``: a database carrying another non-zero id is another
        program's.
    required : sequence of str
        Tables a non-empty database must hold (an earlier version's cache may lack the others).

    Returns
    -------
    bool
        True when the file holds the cache's tables, False when it is missing or empty (a new cache).

    >>> import os, sqlite3, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "cache.sqlite")
    >>> check_sqlite(path, {"answers": ("key", "answer")})
    False
    >>> db = sqlite3.connect(path); _ = db.execute("CREATE TABLE answers (id INTEGER)"); db.commit(); db.close()
    >>> check_sqlite(path, {"answers": ("key", "answer")})
    Traceback (most recent call last):
    ...
    rankmeter.errors.InputError: ...: another program's database, not the cache (its table answers has no column key, answer); it was left as it was
    """
    name = os.fsdecode(path)
    folder = os.path.dirname(os.path.abspath(name))
    if writable and not os.access(folder, os.W_OK):
        raise InputError(f"{what}'s folder {folder} is not writable (SQLite writes its journal beside the file); "
                         "choose another place", source=name)
    try:
        with open(name, "rb") as fh:
            head = fh.read(100)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"cannot read {what} ({exc.strerror or exc})", source=name) from None
    if not head:
        return False
    if not head.startswith(SQLITE_MAGIC):
        raise InputError(f"not {what} (not an SQLite database); it was left as it was", source=name, hint=hint)
    found_id = int.from_bytes(head[68:72], "big") if len(head) >= 72 else 0
    if application_id is not None and found_id not in (0, application_id):
        raise InputError(f"another program's SQLite database (application id {found_id:#x}), not {what}; it was "
                         "left as it was", source=name, hint=hint)
    if writable and not os.access(name, os.W_OK):
        raise InputError(f"{what} is read-only for this user; make it writable or name another file",
                         source=name, hint=hint)
    found = _tables(name, what, hint)
    problems = []
    other = sorted(set(found) - set(tables))
    if other:
        problems.append(f"it holds the table(s) {', '.join(other[:5])}, which {what} has not")
    for table, columns in tables.items():
        if table not in found:
            continue
        if exact and found[table] != tuple(columns):
            problems.append(f"its table {table} has the columns {', '.join(found[table][:8])}, not "
                            f"{', '.join(columns)}")
            continue
        lacking = [c for c in columns if c not in found[table]]
        if lacking:
            problems.append(f"its table {table} has no column {', '.join(lacking)}")
    missing = [t for t in required if t not in found] if found else []
    if missing:
        problems.append(f"it has no table {' and no table '.join(missing)}")
    if problems:
        raise InputError(f"another program's database, not {what} ({'; '.join(problems)}); it was left as it was",
                         source=name, hint=hint)
    return bool(found)


def _tables(name: str, what: str, hint: str | None) -> dict[str, tuple]:
    """The tables of the database ``name`` and their columns, read only."""
    import sqlite3
    from urllib.parse import quote

    address = f"file:{quote(os.path.abspath(name))}?mode=ro"
    for uri in (address, address + "&immutable=1"):   # immutable: a WAL database in a folder it cannot write
        try:
            db = sqlite3.connect(uri, uri=True)
            try:
                return {row[0]: tuple(c[1] for c in db.execute(f'PRAGMA table_info("{row[0]}")'))
                        for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                              "AND name NOT LIKE 'sqlite_%'")}
            finally:
                db.close()
        except sqlite3.OperationalError as exc:   # tried again as immutable
            error: Any = exc
        except sqlite3.DatabaseError as exc:
            error = exc
            break
    raise InputError(f"not {what}: a damaged or unreadable SQLite database ({error}); it was left as it was",
                     source=name, hint=hint)
