"""No private name (a single leading underscore) is imported from another module: a helper that serves
two modules is public in one of them. The only exceptions are the compiled extension modules, whose Python
face is the module that loads them.

46 such imports before the peers' models moved beside their drop-ins, 43 after, 4 now (the compiled ones):
the other 39 became public names of their module (``report.markup.number_cell``, ``gate.saved.measure_entries``,
``stats.significance.seeded_rng`` ...) or were replaced by a public function.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "rankmeter"

#: compiled extension modules: their Python face is the module that loads them
COMPILED = "a compiled extension module (C), imported by the modules that wrap it"

#: (importing file, module, name) -> why it is allowed
ALLOWED = {
    ("compat/pytrec_eval/dicts.py", "rankmeter.io", "_trecparse"):
        COMPILED + ": the walker of pytrec_eval's dicts (_trecparse.from_dicts) has no Python wrapper in io",
    ("engine/ids.py", "rankmeter.engine.keys", "_idops"): COMPILED,
    ("engine/keys.py", "rankmeter.engine", "_idops"): COMPILED,
    ("io/compiled.py", "rankmeter.engine.keys", "_idops"): COMPILED,
}


def private_imports() -> set[tuple[str, str, str]]:
    """Every ``from M import _name`` (lazy ones included) in the package, as (file, M, name)."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                found |= {(rel, node.module, a.name) for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")}
    return found


def test_no_private_import_across_modules():
    new = sorted(private_imports() - set(ALLOWED))
    assert new == [], f"private names imported across modules (make them public in their module): {new}"


def test_every_allowed_private_import_still_exists():
    assert sorted(set(ALLOWED) - private_imports()) == []
