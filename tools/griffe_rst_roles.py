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
            obj.docstring.value = rst_roles_to_code(_with_options(obj.docstring.value))


def _with_options(text: str) -> str:
    """The evaluation options' entries where a docstring has the line that
    :func:`rankmeter.core.keywords.takes_options` fills at import (griffe reads the source, not the import)."""
    from rankmeter.core.keywords import MARKER, options_section
    if MARKER not in text:
        return text
    indent = len(text[:text.index(MARKER)].rpartition("\n")[2])
    return text.replace(MARKER, options_section(indent))
