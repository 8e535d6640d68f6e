"""Griffe extension for the API reference: Sphinx roles and reST literals in docstrings shown as code.

rankmeter's docstrings are numpydoc and name other objects with Sphinx roles
(``:func:`evaluate```, ``:class:`~rankmeter.core.results.Results```); MkDocs renders
Markdown, where a role would show as raw text. Each role becomes inline code with the
name the role would display (``~`` keeps the last component). Loaded by mkdocstrings
(``extensions:`` in mkdocs.yml); a developer tool, not part of the installed package.
"""
from __future__ import annotations

import re

import griffe

DOUBLE = re.compile(r"``([^`]+)``")
ROLE = re.compile(r":(?:py:)?(?:class|func|mod|data|meth|attr|exc|obj|const):`(~?)([^`<]+?)(?:\s*<([^>]+)>)?`")


def rst_roles_to_code(text: str) -> str:
    """``:func:`~a.b.c``` -> ```c```; ``:class:`a.B``` -> ```a.B```; ``:func:`title <a.b>``` -> ```title```.

    >>> rst_roles_to_code("see :func:`~rankmeter.api.evaluate` and :mod:`rankmeter.io`")
    'see `evaluate` and `rankmeter.io`'
    >>> rst_roles_to_code('path, ``"-"`` (stdin)')
    'path, `"-"` (stdin)'
    """
    def code(match: re.Match) -> str:
        tilde, name = match.group(1), match.group(2).strip()
        if tilde:
            name = name.rsplit(".", 1)[-1]
        return f"`{name}`"
    # reST's ``literal`` is Markdown's `literal` (the same in prose; numpydoc type fields show it only this way)
    return DOUBLE.sub(r"`\1`", ROLE.sub(code, text))


class RstRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rst_roles_to_code(_with_options(obj.docstring.value, obj.path))


def _runtime(path: str):
    """The imported object at the dotted ``path`` (a module's attribute, or a class's), or None."""
    import importlib
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name, None)
        return found
    return None


def _with_options(text: str, path: str = "") -> str:
    """The options' entries where a docstring has the line that :func:`rankmeter.core.keywords.takes_options`
    fills at import (griffe reads the source, not the import): the imported object's docstring, which has
    them (the evaluation options, the significance knobs ...), else the evaluation options' entries."""
    import inspect

    from rankmeter.core.keywords import MARKER, options_section
    if MARKER not in text:
        return text
    runtime = _runtime(path) if path else None
    doc = getattr(runtime, "__doc__", None)
    if isinstance(doc, str) and MARKER not in doc:
        return inspect.cleandoc(doc)
    indent = len(text[:text.index(MARKER)].rpartition("\n")[2])
    return text.replace(MARKER, options_section(indent))
