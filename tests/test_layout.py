"""The package's layout, asserted: the architecture the README describes, read from the source (ast; nothing run).

* no import circle between two files, a package ``__init__`` included (a submodule imports its siblings,
  never its own package);
* at most six modules at the top level (the public face: ``__init__``, api, errors, types, version);
* the package's parts import each other as a DAG: no module imports a higher layer of :data:`LAYERS`,
  and none imports the top package;
* nothing outside ``core/`` orders a run, joins it to judgments or builds a batch: every call of a sort or
  an Arrow join outside ``core/`` and ``measures/`` (whose kernels sort gains for ideal rankings) is in
  :data:`SORTS_ALLOWED`, with what it sorts -- never a run's rows.
"""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rankmeter"

#: lowest first: a module may import its own layer and those below it, never one above (lazy imports
#: included), and nothing inside the package imports the top package ``rankmeter`` (an analysis that
#: needs evaluation calls the core). The engine (ids, keys, batches, segments, memory) sits below the
#: readers and the measures; the Evaluator, its options and results above them.
LAYERS = ["errors", "_version", "engine", "io", "measures", "core", "executors", "stats", "meta", "check", "fusion", "recsys",
          "judges", "gate", "leaderboard", "nuggets", "tensor", "report",
          "compat", "diff", "cli", "testing", "types", "api", "__init__", "__main__"]

#: file (relative to rankmeter/) -> what its sorts or joins order (none of them a run's rows)
SORTS_ALLOWED = {
    "judges/allocation.py": "queries by the LLM's metric into strata; the chosen queries' positions",
    "judges/pair_ppi.py": "the LLM's (query, doc) keys, to join the runs' and the human labels' pairs to them",
    "judges/reliability.py": "each pair's draws by a random key, to split them into two halves (the flip rate)",
    "judges/draws.py": "a qrels file's lines by their (query, doc) code, to number each pair's draws in line order",
    "gate/saved.py": "judgments by (query, doc, grade) for a digest of their content, not their order",
    "gate/checks.py": "per-query differences, largest drop first (the report's worst queries)",
    "recsys/beyond.py": "items by training popularity (long tail, novelty), users by id for per-user tables",
    "recsys/beyond_inputs.py": "user and item ids, to number them in id order (beyond-accuracy inputs)",
    "recsys/similarity.py": "training interactions by user (each user's items for serendipity)",
    "check/__init__.py": "(query, doc) hashes to find every duplicate with its lines; scores within a query to "
                         "test whether they are ranks",
    "check/lint.py": "hashes of (query, score), to count the rows whose score ties another's (not an order)",
    "check/fields.py": "the rank field's order against the scores' (rank disagreements)",
    "check/dedupe.py": "exact (query, doc) numbers, to keep each pair's first or best-scored line; the "
                                "numbers of the lines it leaves out",
    "io/frames.py": "a rank column's values within a query, to refuse a rank given twice",
    "fusion/condorcet.py": "candidates by first appearance (Condorcet's pairwise method)",
    "compat/ranx/scoring.py": "ranx's bpref option: the run joined to the relevant judgments to find queries "
                                 "that retrieve one (the values themselves come from the core)",
    "compat/ranx/kernels.py": "ranx's typed-list rows deduplicated by (query, doc id) in given order",
    "compat/torchmetrics/model.py": "TorchMetrics' own torch.argsort of one query's scores, reproduced to hold its tie "
                               "order in `diff`; the core then ranks in that order (ties='input')",
    "compat/ranx/ties.py": "ranx's own sort of a query's docs (numba's quicksort), reproduced to hold ranx's "
                           "order; the core then ranks in that order (ties='input')",
    "fusion/methods.py": "the runs' (query, doc) keys, to align the runs with each other (each run's "
                                  "ranks come from the core)",
    "judges/label_impact.py": "two qrels versions joined by (query, doc): judgments, not a run",
    "judges/pairs.py": "two qrels versions joined by (query, doc): judgments, not a run",
    "judges/sources.py": "sampled labels per (query, doc) in sample order (UMBRELA's mode)",
    "meta/correlation.py": "systems by score (leaderboards)",
    "leaderboard/board.py": "systems by their aggregate, for the rank order of the leaderboard's rows",
    "meta/discrimination.py": "random topic subsets (permutations)",
    "stats/corrections.py": "p-values (Holm, Benjamini-Hochberg)",
    "stats/significance.py": "resampled statistics (bootstrap, randomisation)",
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
    "report/figures.py": "per-query differences, largest first (the figure's specification)",
    "report/svg.py": "a box plot's points by height, so the path's relative moves stay short (a figure)",
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


@cache
def _graph():
    modules = {name: (rel, tree) for rel, name, tree in _modules()}

    # the compiled extensions (rankmeter/**/_*.c, one module each) are modules of their own: leaves that
    # import nothing of the package, not their package's __init__
    extensions = {"rankmeter." + c.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
                  for c in PACKAGE.rglob("_*.c")}

    def resolve(target):
        if target in extensions:
            return target
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None
    graph = {name: {m for t in _imports(name, rel, tree) if (m := resolve(t)) and m != name}
             for name, (rel, tree) in modules.items()}
    return graph | {name: set() for name in extensions}


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
            if len(comp) > 1:
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
    return LAYERS.index(parts[1] if len(parts) > 1 else "__init__")


def test_no_import_from_a_lower_layer_up():
    upward = [(importer, imported) for importer, targets in _graph().items() for imported in targets
              if importer.count(".") and imported.count(".") and _layer(imported) > _layer(importer)]
    assert upward == [], upward


def test_nothing_inside_imports_the_top_package():
    """``import rankmeter`` / ``from rankmeter import ...`` inside the package ties a part to all of them."""
    found = [(name, rel) for rel, name, tree in _modules() if name.count(".") and rel != "__main__.py"
             for node in ast.walk(tree)
             if isinstance(node, ast.Import) and any(a.name == "rankmeter" for a in node.names)
             or isinstance(node, ast.ImportFrom) and not node.level and node.module == "rankmeter"]
    assert found == [], found


def _parts() -> dict[str, set[str]]:
    """Which part of the package (its subpackages and top-level modules) imports which."""
    out: dict[str, set[str]] = {}
    for importer, targets in _graph().items():
        a = importer.split(".")[1] if importer.count(".") else "__init__"
        out.setdefault(a, set()).update(b.split(".")[1] for b in targets if b.count(".") and b.split(".")[1] != a)
    return out


def test_the_parts_import_each_other_as_a_dag():
    """Every part in :data:`LAYERS`, and no circle among them (what ``layout_check.py`` reports)."""
    parts = _parts()
    assert set(parts) <= set(LAYERS), sorted(set(parts) - set(LAYERS))
    done: set[str] = set()

    def visit(part, path):
        assert part not in path, " -> ".join(path + [part])
        if part not in done:
            for nxt in parts.get(part, ()):
                visit(nxt, path + [part])
            done.add(part)
    for part in sorted(parts):
        visit(part, [])
    # the readers and the measures stand side by side on the engine: neither imports the other
    assert "measures" not in parts.get("io", set()) and "io" not in parts.get("measures", set())


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


#: test modules that hold the package as a whole (its public face, its docs, its promises across parts)
#: stay at the top of tests/; every other test module lives in tests/PART/ for the part of rankmeter it tests
WHOLE_PACKAGE_TESTS = {
    "test_api.py", "test_bad_input.py", "test_consistency.py", "test_docs.py", "test_docs_site.py", "test_fuzz.py",
    "test_golden.py", "test_layout.py", "test_names.py", "test_no_pyarrow.py", "test_numbers.py", "test_readme.py",
    "test_types.py",
}
#: folders of tests/ that hold data and oracles, not tests of a part
TEST_DATA_FOLDERS = {"data", "fixtures", "golden", "oracles", "ports", "reference"}


def test_tests_mirror_the_package():
    tests = PACKAGE.parent / "tests"
    parts = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    stray = sorted(p.name for p in tests.glob("test_*.py") if p.name not in WHOLE_PACKAGE_TESTS)
    assert stray == [], f"test modules of one part at the top of tests/ (move each into tests/PART/): {stray}"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders - TEST_DATA_FOLDERS <= parts, f"test folders that are no part of rankmeter: {folders - TEST_DATA_FOLDERS - parts}"
    for name in WHOLE_PACKAGE_TESTS:
        assert (tests / name).exists(), f"tests/{name} is listed as a whole-package test but does not exist"
