"""Measure reference generated from the registry, so the docs cannot drift.

Every page ``docs/measures/<module>.md`` (one per module of
:mod:`rankmeter.measures`) holds a block between the markers
:data:`BEGIN` and :data:`END`: the table of every family registered by that
module, with its parameters, defaults, allowed values, cutoff rule, summary
over queries and trec_eval names. ``python -m rankmeter.docs`` rewrites those
blocks in place; ``python -m rankmeter.docs --check`` only reports the pages
whose block differs from what the registry gives now (exit status 1).
``rankmeter measures`` prints the same facts through :func:`family_facts`.

>>> rows = {f["name"]: f for f in (family_facts(fam) for fam in families_by_module()["ap"])}
>>> rows["AP"]["trec_eval"]
['map = AP', 'map_cut_k = AP@k (k: 5, 10, 15, 20, 30, 100, 200, 500, 1000)']
>>> [p["name"] for p in rows["AP"]["params"]]
['denom', 'rel', 'judged_only']
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .measures import COMMON_PARAMS, REGISTRY, Family, Param
from .measures.grammar import format_measure

__all__ = ["BEGIN", "END", "families_by_module", "family_facts", "trec_eval_names", "allowed_values",
           "cutoff_rule", "value_text", "render_block", "expected_pages", "update_pages", "main"]

BEGIN = "<!-- BEGIN GENERATED: params -->"
END = "<!-- END GENERATED: params -->"

#: Where the pages live in a source checkout.
DOCS_DIR = Path(__file__).resolve().parent.parent / "docs" / "measures"

_AGGREGATE = {
    "mean": "mean",
    "sum": "sum",
    "gmean": "geometric mean (values floored at 1e-5, as trec_eval's gm_*)",
}


def module_of(family: Family) -> str:
    """The measure module that registered ``family`` (``"ap"`` for AP), i.e. the name of its page."""
    return family.kernel.__module__.rsplit(".", 1)[-1]


def families_by_module() -> dict[str, list[Family]]:
    """Registered families grouped by their module, in registration order."""
    out: dict[str, list[Family]] = {}
    for fam in REGISTRY.values():
        out.setdefault(module_of(fam), []).append(fam)
    return out


def value_text(value: Any) -> str:
    """A parameter value as the grammar writes it (``R``, ``0.8``, ``[0, 0.1]``, ``{1: 3}``)."""
    from .measures.grammar import _format_value
    if value is None:
        return "unset"
    return _format_value(value)


def allowed_values(p: Param) -> str:
    """What a parameter accepts, in words."""
    if p.minimum is not None and p.maximum is not None:
        limit = f" in [{value_text(p.minimum)}, {value_text(p.maximum)}]"
    elif p.minimum is not None:
        limit = f" >= {value_text(p.minimum)}"
    elif p.maximum is not None:
        limit = f" <= {value_text(p.maximum)}"
    else:
        limit = ""
    if p.kind == "choice":
        return ", ".join(map(str, p.choices))
    if p.kind == "choice_or_gains":
        return ", ".join(map(str, p.choices)) + " or a map {grade: gain}"
    if p.kind == "gains":
        return "a map {grade: gain}"
    if p.kind == "floats":
        return "a list of numbers"
    if p.kind == "bool":
        return "true, false"
    if p.kind == "int":
        return "an integer" + limit
    return "a number" + limit


def cutoff_rule(family: Family) -> str:
    """How the family takes a cutoff, in words."""
    letter = "k" if family.cutoff_kind is int else "r"
    what = "a positive integer" if family.cutoff_kind is int else "a recall level, e.g. @0.5"
    if family.cutoff == "none":
        return "none"
    if family.cutoff == "required":
        return f"required @{letter} ({what})"
    return f"optional @{letter} ({what}; without it, the whole ranking)"


def _summary_rule(family: Family) -> str:
    if family.text:
        return "per query only (no summary)"
    return _AGGREGATE[family.aggregate]


def trec_eval_names() -> dict[str, list[str]]:
    """Family name -> the trec_eval measures that map onto it, as ``name = canonical`` strings.

    A trec_eval name that expands into several measures (``P`` into P_5, P_10, ...)
    is written once with a placeholder: ``P_k = P@k (k: 5, 10, ...)``.
    """
    from .compat.trec_eval import TREC_MEASURES

    out: dict[str, list[str]] = {}
    for name, tm in TREC_MEASURES.items():
        expanded = [(label, m) for label, m in tm.expand(None) if m is not None]
        if not expanded:
            continue
        family = expanded[0][1].name
        if len(expanded) == 1:
            text = f"{expanded[0][0]} = {format_measure(expanded[0][1])}"
        else:
            measures = [m for _, m in expanded]
            if all(m.cutoff is not None for m in measures) and len({m.params for m in measures}) == 1:
                letter = "k" if REGISTRY[family].cutoff_kind is int else "r"
                base = format_measure(type(measures[0])(family, measures[0].params, None))
                values = ", ".join(value_text(m.cutoff) for m in measures)
                text = f"{name}_{letter} = {base}@{letter} ({letter}: {values})"
            else:  # one parameter varies (Rprec_mult)
                keys = {k for m in measures for k, _ in m.params}
                key = next(k for k in sorted(keys) if len({m.get(k) for m in measures}) > 1)
                values = ", ".join(value_text(m.get(key)) for m in measures)
                text = f"{name}_x = {family}({key}=x) (x: {values})"
        out.setdefault(family, []).append(text)
    return out


def family_facts(family: Family, trec: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Everything the docs and ``rankmeter measures`` say about one family, JSON-ready."""
    trec = trec_eval_names() if trec is None else trec
    common = {p.name for p in COMMON_PARAMS}
    params = []
    for p in family.all_params:
        default = p.default
        if isinstance(default, tuple):
            default = [list(v) if isinstance(v, tuple) else v for v in default]
        params.append({"name": p.name, "default": default, "default_text": value_text(p.default),
                       "allowed": allowed_values(p), "doc": p.doc,
                       "common": p.name in common and p not in family.params})
    return {
        "name": family.name, "module": module_of(family), "summary": family.summary,
        "cutoff": family.cutoff, "cutoff_rule": cutoff_rule(family), "aggregate": family.aggregate,
        "summary_rule": _summary_rule(family), "integer": family.integer, "text": family.text,
        "trec_uses_level": family.trec_uses_level, "params": params, "trec_eval": trec.get(family.name, []),
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_block(module: str) -> str:
    """The generated Markdown for one module's page, markers included."""
    trec = trec_eval_names()
    lines = [BEGIN, "", "_Generated by `python -m rankmeter.docs` from the measure registry; do not edit by hand._",
             ""]
    lines += ["| measure | cutoff | summary over queries | trec_eval | definition |",
              "|---|---|---|---|---|"]
    facts = [family_facts(fam, trec) for fam in families_by_module()[module]]
    for f in facts:
        names = "<br>".join(f"`{t}`" for t in f["trec_eval"]) or "—"
        lines.append(f"| `{f['name']}` | {_cell(f['cutoff_rule'])} | {_cell(f['summary_rule'])} | "
                     f"{_cell(names)} | {_cell(f['summary'])} |")
    for f in facts:
        lines += ["", f"#### `{f['name']}` parameters", "",
                  "| parameter | default | allowed values | meaning |", "|---|---|---|---|"]
        for p in f["params"]:
            lines.append(f"| `{p['name']}` | `{_cell(p['default_text'])}` | {_cell(p['allowed'])} | "
                         f"{_cell(p['doc'])} |")
    lines += ["", END]
    return "\n".join(lines)


def _replace_block(text: str, block: str, path: Path) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{path}: no block between {BEGIN!r} and {END!r}")
    return text[:start] + block + text[end + len(END):]


def expected_pages(docs_dir: Path | None = None) -> dict[Path, tuple[str, str]]:
    """Page path -> (current text, text with the generated block as the registry gives it now).

    A module without a page maps to ("", "") at the path its page should have.
    """
    docs_dir = Path(docs_dir) if docs_dir is not None else DOCS_DIR
    out = {}
    for module in families_by_module():
        path = docs_dir / f"{module}.md"
        if not path.exists():
            out[path] = ("", "")
            continue
        text = path.read_text(encoding="utf-8")
        out[path] = (text, _replace_block(text, render_block(module), path))
    return out


def update_pages(docs_dir: Path | None = None, *, check: bool = False) -> list[Path]:
    """Rewrite each page's generated block; return the pages that were (``check``: would be) changed.

    Raises
    ------
    FileNotFoundError
        When a registered family's module has no page.
    """
    changed = []
    for path, (old, new) in expected_pages(docs_dir).items():
        if not old:
            raise FileNotFoundError(f"{path}: missing page for measure module {path.stem}")
        if old != new:
            changed.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    """``python -m rankmeter.docs [--check] [--docs DIR]``."""
    ap = argparse.ArgumentParser(prog="python -m rankmeter.docs",
                                 description="Regenerate the parameter tables of the measure pages.")
    ap.add_argument("--check", action="store_true", help="only report stale pages (exit 1 if any)")
    ap.add_argument("--docs", type=Path, default=None, help=f"page directory (default {DOCS_DIR})")
    args = ap.parse_args(argv)
    try:
        changed = update_pages(args.docs, check=args.check)
    except (FileNotFoundError, ValueError) as exc:
        print(f"rankmeter.docs: {exc}", file=sys.stderr)
        return 2
    verb = "stale" if args.check else "updated"
    for path in changed:
        print(f"{verb}: {path}")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
