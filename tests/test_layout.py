"""The package's layout, asserted: the architecture the README describes, read from the source (ast; nothing run).

* no import circle between modules (a package ``__init__`` re-exporting its own submodules aside);
* at most six modules at the top level (the public face: ``__init__``, api, errors, types, version);
* a lower layer imports a higher one only where :data:`UPWARD` says why;
* nothing outside ``core/`` orders a run, joins it to judgments or builds a batch: every call of a sort or
  an Arrow join outside ``core/`` and ``measures/`` (whose kernels sort gains for ideal rankings) is in
  :data:`SORTS_ALLOWED`, with what it sorts -- never a run's rows.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rankmeter"

#: lowest first: a module may import its own layer and those below it. The core's foundations (the
#: parameter table, the options, the batch kernels read, flat segments, hashing, memory) sit below the
#: readers and the measures; the Evaluator and the rest of the core above them.
LAYERS = ["errors", "_version", "engine", "io", "measures", "core", "executors", "analyses", "tensor", "report",
          "compat", "cli", "testing", "types", "api", "__init__", "__main__"]
CORE_BASE = {"params", "options"}

#: (importer, imported) module pairs that go up a layer, and why
UPWARD = {
    ("rankmeter.io.rel_formats", "rankmeter.measures.trec_eval.prefs"): "moved from compat; to be untangled",
    ("rankmeter.io.rel_formats", "rankmeter.core.rows"): "moved from compat; to be untangled",
    ("rankmeter.core.evaluator", "rankmeter.executors.memory"):
        "Evaluator.evaluate is a shortcut for the in-memory executor (imported when called)",
    ("rankmeter.core.results", "rankmeter.core.notebook"): "the notebook display (_repr_html_), drawn when "
                                                             "Jupyter asks",
    ("rankmeter.core.explain", "rankmeter.core.notebook"): "the notebook display (_repr_html_)",
    ("rankmeter.analyses.stats.comparison", "rankmeter.core.notebook"): "the notebook display (_repr_html_)",
    ("rankmeter.measures.facts", "rankmeter.measures.trec_eval"): "the measure list shows each family's trec_eval "
                                                                 "names, which compat.trec_eval declares",
    ("rankmeter.measures.names", "rankmeter.measures.trec_eval"): "trec_eval's measure names are read by the "
                                                                 "measure grammar's name resolver",
    ("rankmeter.analyses.meta.zscores", "rankmeter.compat.trec_eval.zscores"): "meta zscores writes trec_eval's -Z file, "
                                                                      "whose format compat.zscores owns",
    ("rankmeter.core.resolve", "rankmeter.compat.ir_measures.objects"):
        "an ir_measures measure object means what ir_measures computes; its drop-in says what that is",
    ("rankmeter.analyses.profiles", "rankmeter.api"): "Profile.evaluate is evaluate with a protocol's measures "
                                                       "and options: it calls the public entry point",
    ("rankmeter.analyses.recsys", "rankmeter.api"): "recsys.evaluate is evaluate with recommender inputs: it "
                                                     "calls the public entry point, which picks the executor",
}

#: file (relative to rankmeter/) -> what its sorts or joins order (none of them a run's rows)
SORTS_ALLOWED = {
    "analyses/judges/allocation.py": "queries by the LLM's metric into strata; the chosen queries' positions",
    "analyses/gate/saved.py": "judgments by (query, doc, grade) for a digest of their content, not their order",
    "analyses/gate/checks.py": "per-query differences, largest drop first (the report's worst queries)",
    "analyses/beyond/__init__.py": "items by training popularity (long tail, novelty), users by id for per-user tables",
    "analyses/beyond/inputs.py": "user and item ids, to number them in id order (beyond-accuracy inputs)",
    "analyses/beyond/similarity.py": "training interactions by user (each user's items for serendipity)",
    "analyses/check/__init__.py": "(query, doc) hashes to find every duplicate with its lines; scores within a query to "
                         "test whether they are ranks",
    "analyses/check/lint.py": "hashes of (query, score), to count the rows whose score ties another's (not an order)",
    "analyses/check/fields.py": "the rank field's order against the scores' (rank disagreements)",
    "analyses/check/dedupe.py": "exact (query, doc) numbers, to keep each pair's first or best-scored line; the "
                                "numbers of the lines it leaves out",
    "io/frames.py": "a rank column's values within a query, to refuse a rank given twice",
    "analyses/fusion/condorcet.py": "candidates by first appearance (Condorcet's pairwise method)",
    "compat/ranx/evaluation.py": "ranx's bpref option: the run joined to the relevant judgments to find queries "
                                 "that retrieve one (the values themselves come from the core)",
    "compat/ranx/kernels.py": "ranx's typed-list rows deduplicated by (query, doc id) in given order",
    "analyses/conventions.py": "TorchMetrics' own torch.argsort of one query's scores, reproduced to hold its tie "
                               "order in `diff`; the core then ranks in that order (ties='input')",
    "compat/ranx/ties.py": "ranx's own sort of a query's docs (numba's quicksort), reproduced to hold ranx's "
                           "order; the core then ranks in that order (ties='input')",
    "analyses/fusion/methods.py": "the runs' (query, doc) keys, to align the runs with each other (each run's "
                                  "ranks come from the core)",
    "analyses/judges/label_impact.py": "two qrels versions joined by (query, doc): judgments, not a run",
    "analyses/judges/pairs.py": "two qrels versions joined by (query, doc): judgments, not a run",
    "analyses/judges/sources.py": "sampled labels per (query, doc) in sample order (UMBRELA's mode)",
    "analyses/meta/correlation.py": "systems by score (leaderboards)",
    "analyses/meta/discrimination.py": "random topic subsets (permutations)",
    "analyses/stats/corrections.py": "p-values (Holm, Benjamini-Hochberg)",
    "analyses/stats/significance.py": "resampled statistics (bootstrap, randomisation)",
    "tensor": "each row of a score tensor on its own device (array API): lists already joined",
    "compat/trec_eval/ideal_dcg.py": "trec_eval's ideal_dcg: judgments by grade",
    "compat/ir_measures/engine.py": "a run's rows into the order of tied docs of the ir_measures provider that "
                                    "computes the measure (docno ascending, or input order), which the core does "
                                    "not offer; the core then scores them with ties='input'",
    "compat/ir_measures/rbo.py": "ir_measures' compat provider: the run by score then docno, its ideal by grade, "
                                 "run score and qrels order (Compat as that provider computes it)",
    "measures/trec_eval/judgment_groups.py": "trec_eval -R qrels_jg: judgment groups",
    "measures/trec_eval/prefs.py": "trec_eval -R prefs: preference judgments by level",
    "executors/streamed.py": "64-bit query hashes seen so far (is the file grouped by query?)",
    "executors/spark/scoring.py": "the per-query values' query ids collected from the tasks, into byte order "
                                  "(never a run's rows: the tasks rank them through the core)",
    "report/plots.py": "per-query differences, largest first (a figure)",
    "report/svg.py": "per-query differences, largest first (a figure)",
}

_SORTS = {"lexsort", "argsort", "sort_indices", "sort_by"}
_CORE_ONLY = {"rank_order", "build_batch", "Judgments", "empty_batch"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        name = "rankmeter." + rel[:-3].replace("/", ".")
        name = name[: -len(".__init__")] if name.endswith(".__init__") else name
        yield rel, name, ast.parse(path.read_text(encoding="utf-8"))


def _imports(name: str, rel: str, tree) -> set[str]:
    out = set()
    is_package = rel.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("rankmeter")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(parts[: len(parts) - node.level + 1])
                head = f"{base}.{node.module}" if node.module else base
            else:
                head = node.module or ""
            if head.startswith("rankmeter"):
                out.add(head)
                out |= {f"{head}.{a.name}" for a in node.names}
    return out


def _graph():
    modules = {name: (rel, tree) for rel, name, tree in _modules()}

    def resolve(target):
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None
    return {name: {m for t in _imports(name, rel, tree) if (m := resolve(t)) and m != name}
            for name, (rel, tree) in modules.items()}


def test_no_import_circle():
    graph = _graph()
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v, counter=[0]):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            package = [m for m in comp if any(o.startswith(m + ".") for o in comp)]
            trivial = len(package) == 1 and all(m == package[0] or m.startswith(package[0] + ".") for m in comp)
            if len(comp) > 1 and not trivial:
                circles.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == [], circles


def test_the_top_level_is_the_public_face():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 6, top
    assert set(top) <= {"__init__.py", "__main__.py", "_version.py", "api.py", "errors.py", "types.py"}, top


def _layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) > 2 and parts[1] == "core" and parts[2] in CORE_BASE:
        return LAYERS.index("engine")
    return LAYERS.index(parts[1] if len(parts) > 1 else "__init__")


def test_no_import_from_a_lower_layer_up_unless_written_down():
    upward = []
    for importer, imported in ((a, b) for a, targets in _graph().items() for b in targets):
        if importer.count(".") == 0 or imported.count(".") == 0:
            continue  # rankmeter/__init__ is the top; `from rankmeter import __version__` reads the version
        if _layer(imported) > _layer(importer) and (importer, imported) not in UPWARD:
            upward.append((importer, imported))
    assert upward == [], upward


def test_nothing_outside_the_core_orders_or_joins_runs():
    found = []
    for rel, _, tree in _modules():
        if rel.startswith(("core/", "engine/", "measures/")):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else None
            is_sort = name in _SORTS or (name == "sort" and isinstance(fn, ast.Attribute)
                                         and isinstance(fn.value, ast.Name) and fn.value.id == "np")
            is_join = name == "join" and any(k.arg in ("keys", "join_type") for k in node.keywords)
            if name in _CORE_ONLY:
                found.append(f"{rel}:{node.lineno}: {name} belongs to the core")
            elif (is_sort or is_join) and not any(rel == a or rel.startswith(a + "/") for a in SORTS_ALLOWED):
                found.append(f"{rel}:{node.lineno}: {name} outside the core, not in SORTS_ALLOWED")
    assert found == [], "\n".join(found)
