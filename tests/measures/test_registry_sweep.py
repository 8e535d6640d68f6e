"""Every registered measure family through the same property checks (scikit-learn's test_common style).

Nothing here names a family: the measures come from the registry, with
parameters generated from each family's own parameter specs, so a new family
is swept the moment it is registered, and a family the sweep cannot cover (no
reference implementation) fails :func:`test_every_family_has_a_reference`.

Properties, on seeded random judgments (grades -1..3, unjudged docs, tied
scores, empty rankings):

* one value per query, of the family's value type;
* query-order invariance: shuffled qrels and run rows give the same values;
* partition invariance: scoring some queries of the run gives those queries' values;
* ``judged_only=True`` changes nothing on a run whose docs are all judged;
* the explained value equals the evaluated value, for ``rel`` in {0, 1, 2};
* the streamed executor equals the in-memory one (and Spark, where pyspark runs);
* the reference implementation agrees (default parameters, every cutoff kind, rel 1 and 2).
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import warnings
from pathlib import Path

import numpy as np

from rankmeter.core.order import natural_key
import pytest

import rankmeter
from rankmeter.measures import REGISTRY, Measure
from rankmeter.measures.aggregation import COUNT, FLOAT, TEXT
from rankmeter.measures.facts import module_of
from rankmeter.measures.trec_eval import TREC_MEASURES
from rankmeter.measures.undefined import MEAN_DEFINED

sys.path.insert(0, str(Path(__file__).parents[1]))
from reference import REFERENCE, order_run, rank  # noqa: E402

FAMILIES = sorted(REGISTRY)


def _bounds(p):
    """(minimum, maximum, above, below) of a declaration: its interval's closed and open ends, None where unbounded."""
    finite = lambda x: x if abs(x) != float("inf") else None
    low, high = finite(p.low), finite(p.high)
    return ((None if p.low_open else low), (None if p.high_open else high),
            (low if p.low_open else None), (high if p.high_open else None))


def _variants(family) -> list[Measure]:
    """The default measure and one measure per generated parameter value, with the cutoffs it takes."""
    def cutoffs():
        if family.cutoff == "none":
            return [None]
        k = [0.5] if family.cutoff_kind is float else [5]
        return k if family.cutoff == "required" else [None] + k

    params: list[dict] = [{}]
    for p in family.params:
        if p.kind in ("choice", "choice_or_gains"):
            # "error" is a refusal mode (TorchMetrics' empty_target_action), not a value to sweep
            params += [{p.name: c} for c in p.choices if c != p.default and c != "error"]
            if p.kind == "choice_or_gains":
                params.append({p.name: {1: 2.0, 2: 5.0}})
        elif p.kind == "gains":
            params.append({p.name: {1: 2.0, 2: 5.0}})
        elif p.kind == "numbers":
            params.append({p.name: [0.2, 0.5]})
        elif p.kind == "bool":
            params.append({p.name: not p.default})
        elif p.kind == "integer":
            low = int(_bounds(p)[0]) if _bounds(p)[0] is not None else 1
            params.append({p.name: max(low, 3)})
        elif p.kind == "number":
            low = _bounds(p)[0] if _bounds(p)[0] is not None else 0.0
            high = _bounds(p)[1] if _bounds(p)[1] is not None else low + 2.0
            value = (low + high) / 2 if p.default is None or (low + high) / 2 != p.default else (low + high) / 3
            params.append({p.name: value})
    out = []
    for given in params:
        for k in cutoffs():
            try:
                out.append(Measure.of(family.name, given, k))
            except rankmeter.MeasureError:  # a combination the family refuses (e.g. its own constraints)
                continue
    return list(dict.fromkeys(out))


def _data(seed: int, *, all_judged: bool = False):
    """qrels and a scored run (dicts) with ties, unjudged and negative grades, queries on one side only."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(24):
        q = f"q{qi}"
        docs = [f"d{j}" for j in range(int(rng.integers(1, 16)))]
        qrels[q] = {d: int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for d in docs}
        if qi == 23:
            continue  # judged, never ranked
        pool = list(qrels[q]) if all_judged else docs + [f"x{j}" for j in range(int(rng.integers(0, 6)))]
        if all_judged:
            pool = [d for d in pool if qrels[q][d] >= 0] or [docs[0]]
            qrels[q][pool[0]] = max(qrels[q][pool[0]], 0)
        chosen = rng.choice(pool, size=int(rng.integers(0 if qi % 7 else 1, len(pool) + 1)), replace=False)
        run[q] = {str(d): float(rng.integers(0, 4)) for d in chosen}  # few distinct scores: many ties
    run["only_in_run"] = {"d1": 1.0}
    return qrels, run


def _evaluate(qrels, run, measures, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankmeter.evaluate(qrels, run, measures, **options)


def _same(a, b, measure) -> bool:
    x, y = a, b
    if measure.family.value_type is TEXT:
        return list(x) == list(y)
    return np.allclose(np.asarray(x, float), np.asarray(y, float), rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.fixture(scope="module")
def dataset():
    return _data(11)


@pytest.mark.parametrize("name", FAMILIES)
def test_values_types_and_invariances(name, dataset):
    qrels, run = dataset
    measures = _variants(REGISTRY[name])
    assert measures, f"{name}: no measure could be generated from its parameter specs"
    base = _evaluate(qrels, run, measures)
    value_type = REGISTRY[name].value_type
    for m in measures:
        values = base.values(m)
        assert values.shape == (len(base.queries),)
        assert values.dtype == value_type.numpy_dtype
        if value_type is FLOAT:
            # NaN only where the family's summary leaves undefined queries out (ir_measures' Accuracy)
            allowed = ~np.isnan(values) if REGISTRY[name].aggregation is not MEAN_DEFINED else ~np.isinf(values)
            assert allowed.all(), m
    assert base.queries == sorted(base.queries, key=natural_key)  # natural order (q2 before q10)
    assert base.query_ids(order="bytes") == sorted(base.ids)  # trec_eval's byte order on request

    # query order: the rows of both inputs reversed (dict order is row order)
    shuffled = _evaluate({q: dict(reversed(list(d.items()))) for q, d in reversed(list(qrels.items()))},
                         {q: dict(reversed(list(d.items()))) for q, d in reversed(list(run.items()))}, measures)
    assert shuffled.queries == base.queries
    for m in measures:
        assert _same(shuffled.values(m), base.values(m), m), m

    # partition: a subset of the run's queries scores as it does inside the whole
    subset = {q: run[q] for q in list(run)[::3]}
    part = _evaluate(qrels, subset, measures)
    index = [base.queries.index(q) for q in part.queries]
    for m in measures:
        assert _same(part.values(m), base.values(m)[index], m), m


@pytest.mark.parametrize("name", FAMILIES)
def test_judged_only_changes_nothing_on_a_fully_judged_run(name):
    qrels, run = _data(5, all_judged=True)
    measures = _variants(REGISTRY[name])
    plain, judged = _evaluate(qrels, run, measures), _evaluate(qrels, run, measures, judged_only=True)
    for m in measures:
        assert _same(plain.values(m), judged.values(m), m), m


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("rel", [0, 1, 2])
def test_explained_value_is_the_evaluated_value(name, rel, dataset):
    qrels, run = dataset
    for m in _variants(REGISTRY[name]):
        evaluated = _evaluate(qrels, run, [m], rel=rel)
        for q in evaluated.queries[:6]:
            explained = rankmeter.explain(qrels, run, m, q, rel=rel)
            want = evaluated.values(m)[evaluated.queries.index(q)]
            assert _same([explained.value], [want], m), (m, q, rel)
            if REGISTRY[name].value_type is COUNT:
                assert isinstance(explained.value, int)
            if REGISTRY[name].explain is not None:
                # the hook writes the maths out itself: its result must be the kernel's value
                last = re.sub(r"\s\[[^\[\]]*\]\s*$", "", explained.formula[-1])  # a trailing [note]
                last = re.sub(r"\s\((?:[^()]|\([^()]*\))*\)\s*$", "", last)  # or (note)
                shown = re.findall(r"= (-?[0-9]+(?:\.[0-9]+)?)", last)
                if isinstance(want, float) and np.isnan(want):  # undefined there: the formula says so
                    assert "undefined" in last, (m, q, rel, explained.formula)
                else:
                    assert shown and abs(float(shown[-1]) - float(want)) <= 6e-5, (m, q, rel, explained.formula)
                assert "None" not in "\n".join(explained.formula), explained.formula


@pytest.mark.parametrize("name", FAMILIES)
def test_streamed_equals_in_memory(name, dataset, tmp_path):
    qrels, run = dataset
    measures = _variants(REGISTRY[name])
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for q, docs in run.items()
                            for i, (d, s) in enumerate(docs.items())))
    memory = _evaluate(qrels, path, measures, queries="qrels")
    streamed = _evaluate(qrels, path, measures, queries="qrels", executor="streamed", chunk_bytes=200)
    assert streamed.queries == memory.queries
    for m in measures:
        assert _same(streamed.values(m), memory.values(m), m), m


def test_every_family_has_a_reference():
    assert set(REGISTRY) <= set(REFERENCE), f"no reference implementation: {sorted(set(REGISTRY) - set(REFERENCE))}"


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("rel", [1, 2])
def test_reference_agrees(name, rel, dataset):
    _assert_reference_agrees(name, *dataset, rel)


def _assert_reference_agrees(name, qrels, run, rel, **options):
    """Every default measure of the family (each cutoff kind) equals the reference, query by query."""
    family = REGISTRY[name]
    measures = [m for m in _variants(family) if not m.params]  # the defaults, with every cutoff kind
    result = _evaluate(qrels, run, measures, rel=rel, **options)
    top = max(max(g, 0) for judged in qrels.values() for g in judged.values())
    for m in measures:
        params = {p.name: m.get(p.name) for p in family.all_params}
        params.update(k=m.cutoff, rel=rel)
        if "qrels_max_grade" in family.needs and params.get("max_grade") is None:
            params["max_grade"] = top
        for i, q in enumerate(result.queries):
            want = REFERENCE[name](qrels[q], rank(qrels[q], order_run(run.get(q, {}))), params)
            got = result.values(m)[i]
            if family.value_type is TEXT:
                assert got == want, (m, q)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12, nan_ok=True), (m, q)


def test_every_measure_module_registers_families():
    """Adding a family is one module plus one import line in measures/__init__.py; forgetting the line fails here."""
    import rankmeter.measures as pkg
    # trec_eval's name table maps names onto these families; it is swept by test_every_trec_eval_name_is_swept
    infrastructure = {"base", "aggregation", "grammar", "facts", "explaining", "names", "undefined", "gains",
                      "gain_sums", "trec_eval"}
    modules = {info.name for info in pkgutil.iter_modules(pkg.__path__)} - infrastructure
    registered = {module_of(f) for f in REGISTRY.values()}
    assert modules == registered, f"modules that register nothing: {sorted(modules - registered)}"
    for name in modules:
        assert importlib.import_module(f"rankmeter.measures.{name}")


def test_spark_equals_in_memory(dataset):
    pytest.importorskip("pyspark")
    import shutil
    if not shutil.which("java"):
        pytest.skip("Spark needs java")
    pd = pytest.importorskip("pandas")
    from pyspark.sql import SparkSession

    qrels, run = dataset
    measures = [m for name in FAMILIES for m in _variants(REGISTRY[name])]
    spark = (SparkSession.builder.master("local[2]").appName("rankmeter-sweep")
             .config("spark.sql.shuffle.partitions", "3").config("spark.ui.enabled", "false").getOrCreate())
    q = spark.createDataFrame(pd.DataFrame([(qq, d, g) for qq, docs in qrels.items() for d, g in docs.items()],
                                           columns=["query", "doc", "rel"]))
    r = spark.createDataFrame(pd.DataFrame([(qq, d, s) for qq, docs in run.items() for d, s in docs.items()],
                                           columns=["query", "doc", "score"]))
    remote = _evaluate(q, r, measures).collect()
    local = _evaluate(qrels, run, measures)
    assert remote.queries == local.queries
    for m in measures:
        assert _same(remote.values(m), local.values(m), m), m


# ------------------------------------------------------------------ real-valued grades (grades="real")

def _real_data(seed: int):
    """The sweep's data with fractional grades (LLM and crowd judgments): some integer, most not."""
    qrels, run = _data(seed)
    rng = np.random.default_rng(seed + 1000)
    real = {q: {d: (float(g) if g < 0 or rng.random() < 0.3 else float(rng.choice([0.0, 0.25, 0.7, 1.5, 2.5, 3.2])))
                for d, g in judged.items()} for q, judged in qrels.items()}
    return real, run


REAL_FAMILIES = sorted(name for name, family in REGISTRY.items() if family.real_grades)


def test_families_on_real_grades_are_declared():
    """Most families take real grades; the few that do not are refused with the list of those that do."""
    assert len(REAL_FAMILIES) >= 60
    qrels, run = _real_data(3)
    for name in sorted(set(REGISTRY) - set(REAL_FAMILIES)):
        with pytest.raises(rankmeter.MeasureError, match="integer grades only"):
            _evaluate(qrels, run, [Measure.of(name, {})], grades="real")


@pytest.mark.parametrize("name", REAL_FAMILIES)
@pytest.mark.parametrize("rel", [1, 0.5, 2.5])
def test_reference_agrees_on_real_grades(name, rel):
    """Each family that declares real grades equals its plain reference implementation on them."""
    _assert_reference_agrees(name, *_real_data(7), rel, grades="real")


@pytest.mark.parametrize("name", REAL_FAMILIES)
def test_real_grades_streamed_equals_in_memory_and_integers_are_unchanged(name, tmp_path):
    qrels, run = _real_data(9)
    measures = [m for m in _variants(REGISTRY[name]) if not any(isinstance(v, tuple) for _, v in m.params)]
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for q, docs in run.items()
                            for i, (d, s) in enumerate(docs.items())))
    memory = _evaluate(qrels, path, measures, queries="qrels", grades="real")
    streamed = _evaluate(qrels, path, measures, queries="qrels", executor="streamed", chunk_bytes=200, grades="real")
    for m in measures:
        assert _same(streamed.values(m), memory.values(m), m), m
    # integer grades read as real numbers score exactly as integers do
    whole, _ = _data(9)
    plain = _evaluate(whole, run, measures)
    as_real = _evaluate({q: {d: float(g) for d, g in j.items()} for q, j in whole.items()}, run, measures,
                        grades="real")
    for m in measures:
        assert _same(as_real.values(m), plain.values(m), m), m


# ------------------------------------------------------------------ trec_eval's measure table, every name

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

#: trec_eval names that give no canonical measure and need no other judgments, and where each is checked
TREC_EXACT_ONLY = {
    "runid": "the run's tag, not a value (tests/test_golden.py prints it)",
    "ideal_dcg": "the judgments' ideal DCG alone (tests/compat/test_trec_eval_diff.py, against the binary)",
    "yaap": "computed from canonical counts (tests/compat/test_trec_eval_diff.py, against the binary)",
}

#: per -R format: (judgments, results, form, trec_eval 10.0's output for -q -m all_prefs / qrels_jg)
OTHER_FORMATS = {
    "prefs": [("prefs.test", "prefs.results.test", "prefs", "out.test.prefs"),
              ("qrels.test", "results.test", "qrels_prefs", "out.test.qrels_prefs")],
    "qrels_jg": [("qrels.123", "results.test", "qrels_jg", "out.test.qrels_jg")],
}


def test_every_trec_eval_name_is_swept():
    """Each name of trec_eval's table is a registered family (swept above), a measure over preference or
    judgment-group files (swept below against trec_eval's output), or one of the few exact-only names."""
    unswept = []
    for name, tm in TREC_MEASURES.items():
        families = {m.name for _, m in tm.expand(None)}
        if tm.mode != "qrels":
            assert not families, name  # computed from their own judgments, never by a family kernel
        elif families:
            assert families <= set(REGISTRY), (name, families)
        elif name not in TREC_EXACT_ONLY:
            unswept.append(name)
    assert unswept == []
    assert {name for name, tm in TREC_MEASURES.items() if tm.mode != "qrels"} == \
        {name for name, tm in TREC_MEASURES.items() if tm.mode in OTHER_FORMATS}


def _printed(path: Path) -> dict[str, dict[str, str]]:
    """trec_eval's per-query lines: label -> {query: value as printed}."""
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        label, query, value = line.split("\t")
        if query != "all":
            out.setdefault(label.strip(), {})[query] = value
    return out


@pytest.mark.parametrize("name", [name for name, tm in TREC_MEASURES.items() if tm.mode != "qrels"])
def test_preference_and_judgment_group_measures_equal_trec_eval(name):
    """Every -R prefs / qrels_prefs / qrels_jg measure of the table, each query, as trec_eval 10.0 prints it
    (its own test files: prefs judgments with equivalence classes and preference relations, TREC qrels
    read as preferences, and three assessors' judgment groups)."""
    from rankmeter.compat.trec_eval.run_order import ranked_docs
    from rankmeter.io import read_run
    from rankmeter.io.rel_formats import read_prefs, read_qrels_jg
    from rankmeter.measures.trec_eval.judgment_groups import query_jg_values
    from rankmeter.measures.trec_eval.prefs import PREFS_MEASURES, query_prefs_values

    tm = TREC_MEASURES[name]
    jg = tm.mode == "qrels_jg"
    for judged, results, form, expected in OTHER_FORMATS[tm.mode]:
        printed = _printed(GOLDEN / expected)
        ranked = ranked_docs(read_run(str(GOLDEN / results), input_format="trec"), max_docs=None, ties_descending=jg)
        judgments = read_qrels_jg(str(GOLDEN / judged)) if jg else read_prefs(str(GOLDEN / judged), form=form)
        queries = [q for q in judgments if q in ranked]
        labels = tm.exact(None)
        assert labels and queries
        for label, (mode, family, param) in labels:
            assert (mode, family) == (tm.mode, name)
            want = printed[label]
            assert sorted(want) == sorted(q.decode() for q in queries), (label, form)
            for q in queries:
                if jg:
                    value = query_jg_values(ranked[q], judgments[q], level=1, judged_only=False,
                                            cutoffs=[param if family == "P_avgjg" else 1],
                                            mults=[param if family == "Rprec_mult_avgjg" else 1.0])[family][0]
                    text = "%6.4f" % value
                else:
                    value = query_prefs_values(ranked[q], judgments[q])[family]
                    text = "%ld" % int(value) if PREFS_MEASURES[family] else "%6.4f" % value
                assert text == want[q.decode()], (label, form, q)
