"""What the registry says about each measure family, for ``rankmeter measures`` and the docs pages.

``rankmeter measures`` prints these facts; ``tools/gen_docs.py`` (in a source
checkout) writes the same facts into the parameter tables of
``docs/measures/<module>.md``, so the docs cannot drift from the registry.

>>> rows = {f["name"]: f for f in (family_facts(fam) for fam in families_by_module()["ap"])}
>>> rows["AP"]["trec_eval"]
['map = AP', 'map_cut_k = AP@k (k: 5, 10, 15, 20, 30, 100, 200, 500, 1000)']
>>> [p["name"] for p in rows["AP"]["params"]]
['denom', 'empty_target_action', 'rel', 'judged_only']
"""
from __future__ import annotations

from typing import Any

from rankmeter.measures.base import COMMON_PARAMS, REGISTRY, Family, Param
from rankmeter.measures.grammar import format_measure
from rankmeter.measures.trec_eval import TREC_MEASURES

__all__ = ["families_by_module", "family_facts", "trec_eval_names", "allowed_values", "cutoff_rule",
           "value_text", "module_of"]


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
    from rankmeter.measures.base import format_value
    if value is None:
        return "unset"
    return format_value(value)


def allowed_values(p: Param) -> str:
    """What a parameter accepts, in words: its declaration's, choices written as the grammar writes them."""
    return p.describe(quote=value_text)


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
    return family.aggregation.description


def trec_eval_names() -> dict[str, list[str]]:
    """Family name -> the trec_eval measures that map onto it, as ``name = canonical`` strings.

    A trec_eval name that expands into several measures (``P`` into P_5, P_10, ...)
    is written once with a placeholder: ``P_k = P@k (k: 5, 10, ...)``.
    """
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
                       "allowed": allowed_values(p), "doc": p.help,
                       "common": p.name in common and p not in family.params})
    return {
        "name": family.name, "module": module_of(family), "summary": family.summary,
        "cutoff": family.cutoff, "cutoff_rule": cutoff_rule(family), "aggregation": family.aggregation.name,
        "summary_rule": _summary_rule(family), "value_type": family.value_type.name,
        "needs": list(family.needs), "params": params, "trec_eval": trec.get(family.name, []),
    }


