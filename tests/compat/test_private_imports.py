"""No private name (a single leading underscore) is imported from another module, except the ones listed here
with their reason; a new one fails, and the drop-ins and ``diff`` import none beyond the three below.

46 such imports before the peers' models moved beside their drop-ins, 43 after (the ranx drop-in's three went
with its two import circles: :mod:`rankmeter.compat.ranx.fusing` and :mod:`~rankmeter.compat.ranx.scoring`).
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "rankmeter"

#: compiled extension modules: their Python face is the module that loads them
COMPILED = "a compiled extension module (C), imported by the modules that wrap it"
#: the other parts of the package are being reshaped on other branches this turn (options, io, products,
#: report, tensor): each part's own private helpers become public names there, not here
ELSEWHERE = "another part's helper, renamed to a public name where that part is reshaped"

#: (importing file, module, name) -> why it is allowed
ALLOWED = {
    ("compat/pytrec_eval/dicts.py", "rankmeter.io", "_trecparse"):
        COMPILED + ": the walker of pytrec_eval's dicts (_trecparse.from_dicts) has no Python wrapper in io",
    ("compat/pytrec_eval/values.py", "rankmeter.measures.iprec", "_lround"):
        "trec_eval 10.0's lround, kept in measures/iprec.py until its interpolation walk is made one (issue 42.5)",
    ("compat/pytrec_eval/values.py", "rankmeter.measures.iprec", "_interpolated_at_hits"):
        "trec_eval 9.0.8's recall levels need the interpolated precision at each hit; measures/iprec.py's walk "
        "becomes one public walk with issue 42.5",
    ("engine/ids.py", "rankmeter.engine.keys", "_idops"): COMPILED,
    ("engine/keys.py", "rankmeter.engine", "_idops"): COMPILED,
    ("io/compiled.py", "rankmeter.io", "_trecparse"): COMPILED,
    ("io/compiled.py", "rankmeter.engine.keys", "_idops"): COMPILED,
    **{key: ELSEWHERE for key in [
        ("cli/check.py", "rankmeter.io.columns", "_GRADES"), ("cli/check.py", "rankmeter.io.columns", "_SCORES"),
        ("cli/estimates.py", "rankmeter.judges.ppi", "_labelled_queries"),
        ("cli/estimates.py", "rankmeter.judges.ppi", "_per_query"),
        ("core/keywords.py", "rankmeter.core.options", "_OTHER_NAMES"),
        ("executors/streamed.py", "rankmeter.io.guard", "_line_breaks"),
        ("gate/checks.py", "rankmeter.gate.saved", "_measure_entries"),
        ("gate/checks.py", "rankmeter.gate.saved", "_qrels_provenance"),
        ("gate/checks.py", "rankmeter.gate.saved", "_run_provenance"),
        ("gate/one_sided.py", "rankmeter.stats.significance", "_random_bits"),
        ("gate/one_sided.py", "rankmeter.stats.significance", "_rng"),
        ("gate/one_sided.py", "rankmeter.stats.significance", "_t_interval"),
        ("io/jsonl.py", "rankmeter.io.delimited", "_nonblank_lines"),
        ("judges/labelling.py", "rankmeter.io.irds", "_import_irds"),
        ("judges/many_raters.py", "rankmeter.judges.judge_agreement", "_categories"),
        ("judges/ppi.py", "rankmeter.judges.pair_ppi", "_chi2_p"),
        ("judges/stratified.py", "rankmeter.judges.pair_ppi", "_t_quantile"),
        ("measures/facts.py", "rankmeter.measures.base", "_format_value"),
        ("meta/discrimination.py", "rankmeter.stats.compare", "_named_runs"),
        ("meta/discrimination.py", "rankmeter.stats.compare", "_scores"),
        ("report/beyond.py", "rankmeter.report.markup", "_comparison_html"),
        ("report/beyond.py", "rankmeter.report.markup", "_num"),
        ("report/coverage.py", "rankmeter.report.markup", "_dv"), ("report/coverage.py", "rankmeter.report.markup", "_num"),
        ("report/explanations.py", "rankmeter.report.markup", "_num"),
        ("report/explanations.py", "rankmeter.core.explain", "_one_query"),
        ("report/html.py", "rankmeter.report.plots", "_align"), ("report/html.py", "rankmeter.report.plots", "_pr_curves"),
        ("report/html.py", "rankmeter.report.markup", "_comparison_html"),
        ("report/html.py", "rankmeter.report.markup", "_dv"), ("report/html.py", "rankmeter.report.markup", "_isnan"),
        ("report/html.py", "rankmeter.report.markup", "_num"), ("report/html.py", "rankmeter.report.markup", "_p"),
        ("tensor/_inputs.py", "rankmeter.tensor", "_xp"), ("tensor/_kernels.py", "rankmeter.core.needs", "_top"),
        ("tensor/torchmetrics.py", "rankmeter.tensor", "_tm_rows"),
    ]},
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


def test_no_new_private_import():
    new = sorted(private_imports() - set(ALLOWED))
    assert new == [], f"private names imported across modules (make them public, or list them with a reason): {new}"


def test_drop_ins_and_diff_import_no_private_name_but_the_listed_three():
    ours = sorted(key for key in private_imports() if key[0].startswith(("compat/", "diff/", "cli/diff.py")))
    assert ours == sorted(key for key in ALLOWED if key[0].startswith("compat/")), ours
    assert len(private_imports()) <= 43
