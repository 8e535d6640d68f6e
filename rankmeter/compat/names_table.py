"""The table of docs/names.md: each rankmeter family and the names every peer gives it, generated."""
from __future__ import annotations

__all__ = ["mapping_table"]


def mapping_table() -> str:
    """The names table of docs/names.md, generated from the registry, trec_eval's names and each peer's model
    (ir_measures', ranx's, TorchMetrics', scikit-learn's names)."""
    from rankmeter.compat.sklearn.model import NAMES as SKLEARN
    from rankmeter.compat.torchmetrics.model import NAMES as TORCHMETRICS
    from rankmeter.measures.base import REGISTRY
    from rankmeter.measures.facts import trec_eval_names
    from rankmeter.compat.ir_measures.model import FAMILIES as IR_MEASURES, SAME_NAMES as IR_MEASURES_SAME
    from rankmeter.compat.ranx.model import NAMES as RANX
    trec = trec_eval_names()
    ir = {family: sorted({name for name, fam in IR_MEASURES.items() if fam == family}
                         | ({family} if family in IR_MEASURES_SAME else set())) for family in REGISTRY}
    ranx: dict[str, list[str]] = {}
    for name, (family, params) in RANX.items():
        ranx.setdefault(family, []).append(name + ("@k" if REGISTRY[family].cutoff != "none" else "")
                                           + (" (gain=exp)" if params.get("gain") == "exp" else ""))
    lines = ["| rankmeter | trec_eval / pytrec_eval | ir_measures | ranx | TorchMetrics | scikit-learn |",
             "|---|---|---|---|---|---|"]
    for family in REGISTRY:
        cells = ["<br>".join(f"`{t.split(' = ')[0]}`" for t in trec.get(family, [])),
                 "<br>".join(f"`{n}`" for n in ir[family]), "<br>".join(f"`{n}`" for n in ranx.get(family, [])),
                 f"`{TORCHMETRICS[family]}`" if family in TORCHMETRICS else "",
                 f"`{SKLEARN[family]}`" if family in SKLEARN else ""]
        lines.append(f"| `{family}` | " + " | ".join(c or "—" for c in cells) + " |")
    return "\n".join(lines) + "\n"
