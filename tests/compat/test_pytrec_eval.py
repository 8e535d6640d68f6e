"""Property tests: ``rankmeter.evaluate`` against pytrec_eval on random cases.

pytrec-eval-terrier wraps NIST's C trec_eval 9.0.8, an independent
implementation of every trec_eval measure both tools share. Random qrels and
runs (ties on purpose, graded and negative grades, unjudged docs, queries on
one side only, empty rankings) must give the same per-query values.

How the two versions and tools differ, and how the tests allow for it:

* Scores. trec_eval 9.x keeps run scores as C ``float``; 10.0 (and
  rankmeter) as ``double``. Two doubles that round to the same float would
  tie in pytrec_eval only, so every generated score is exactly representable
  in float32. Scores only order the ranking; the measure arithmetic is double
  in both tools, so values are compared to 1e-9 (relative above 1): only the
  order of floating-point sums differs.
* iprec_at_recall and 11pt_avg. 9.x turns a recall level p into a count of
  relevant docs as ``(long)(p*R + 0.9)``, 10.0 as ``lround(p*R)``. A level is
  compared only where both rules give the same count for that query's R
  (computed here in IEEE doubles, as the C code does); 11pt_avg only for
  queries where every level agrees.
* Empty rankings. pytrec_eval runs the measure code on an empty ranking, and
  for iprec_at_recall_0.00 and 11pt_avg that divides 0/0 (NaN). trec_eval
  10.0 (``-c``) prints 0 for a query with no results, and so must rankmeter.
* Query policy. pytrec_eval scores exactly the queries that are keys of the
  run dict and have judgments -- an empty ranking ``{q: {}}`` included; keys
  only in the run are ignored. rankmeter's dict reader sees no rows for an
  empty ranking, so the comparison uses ``queries="qrels"`` over the qrels
  restricted to the run's keys, which is the same set. A separate test checks
  the default ``queries="both"`` when no ranking is empty.
* Relevance level. trec_eval's ``-l`` does not apply to nDCG, G and rbp; as
  in ``rankmeter trec_eval``, those families get ``rel=1`` and the others the
  level.
* Queries whose judgments are all negative are not generated: trec_eval's
  behaviour there is undefined (see ``_judgments``).
* relstring (text) and runid have no numeric value in pytrec_eval; rbp and
  unj do not exist in 9.0.8. They are not compared here (the golden files
  cover them).
"""
from __future__ import annotations

import math
import warnings

import pytest

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pytrec_eval = optional("pytrec_eval")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import rankmeter  # noqa: E402
from rankmeter.measures.trec_eval import uses_level  # noqa: E402
from rankmeter.core import resolve_measures  # noqa: E402

MAX_EXAMPLES = 25          # per measure
ALL_AT_ONCE_EXAMPLES = 150

DEFAULT_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
#: Recall levels of the iprec/11pt specs below (as trec_eval reads them: C doubles).
LEVELS = {
    "iprec_at_recall": DEFAULT_LEVELS,
    "iprec_at_recall.0.25,0.33,0.75": [0.25, 0.33, 0.75],
    "11pt_avg": DEFAULT_LEVELS,
    "11pt_avg.0.25,0.5,0.75": [0.25, 0.5, 0.75],
}
CUTS = "1,2,3,5,10,20"

#: trec_eval measure specs compared per query (and as means).
PER_QUERY_SPECS = [
    "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
    "map", "Rprec", "bpref", "recip_rank", "infAP",
    f"P.{CUTS}", f"recall.{CUTS}", f"ndcg_cut.{CUTS}", f"map_cut.{CUTS}", f"relative_P.{CUTS}",
    "success.1,2,3,5,10",
    "iprec_at_recall", "iprec_at_recall.0.25,0.33,0.75", "11pt_avg", "11pt_avg.0.25,0.5,0.75",
    "Rprec_mult", "Rprec_mult.0.5,1.5,3.0",
    "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "set_P", "set_recall", "set_map", "set_F", "set_F.0.5", "set_relative_P",
]
#: Specs whose per-query values are not comparable (gm_*: pytrec_eval keeps log values), means only.
SUMMARY_SPECS = ["gm_map", "gm_bpref", "num_q"]

DOCS = ["d1", "d2", "d3", "d5", "d10", "d11", "d20", "d01", "D1", "a", "aa", "b", "x9", "z", "\u00e91", "d7"]
QUERIES = ["1", "2", "10", "q", "q2", "Q3"]

_floats32 = st.floats(min_value=-100, max_value=100, allow_nan=False, allow_infinity=False,
                      allow_subnormal=False, width=32)


@st.composite
def _ranking(draw) -> dict[str, float]:
    docs = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=len(DOCS)))
    if draw(st.booleans()):
        # a few distinct scores for many docs: ties decided by docno
        palette = draw(st.lists(st.one_of(st.sampled_from([0.0, -0.0, 1.0, 0.5, -1.0]), _floats32),
                                min_size=1, max_size=3))
        scores = st.sampled_from(palette)
    else:
        scores = _floats32
    return {d: draw(scores) for d in docs}


# A query whose judgments are all negative is left out: trec_eval (9.x and 10.0 alike, form_res_rels.c)
# sizes its per-grade counts by the highest grade + 1, so it mallocs/memsets a zero or negative
# length there -- undefined behaviour; pytrec_eval returns zeros or crashes the interpreter.
_judgments = st.dictionaries(st.sampled_from(DOCS), st.integers(-2, 4), max_size=12).filter(
    lambda judged: not judged or max(judged.values()) >= 0)


@st.composite
def cases(draw):
    """(qrels, run, relevance level, judged_only): the first query is judged and ranked."""
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=5, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i, q in enumerate(queries):
        where = "both" if i == 0 else draw(st.sampled_from(["both", "both", "qrels", "run"]))
        if where != "run":
            qrels[q] = draw(_judgments.filter(bool)) if i == 0 else draw(_judgments)
        if where != "qrels":
            run[q] = draw(_ranking().filter(bool)) if i == 0 else draw(_ranking())
    level = draw(st.sampled_from([1, 1, 1, 2, 3]))
    return qrels, run, level, draw(st.booleans())


# -- the reference side ------------------------------------------------------------------------

def _pytrec(qrels, run, spec, level, judged_only) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {spec}, relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate(run)


def _num_rel(judged: dict[str, int], level: int) -> int:
    return sum(1 for g in judged.values() if g >= level)


def _num_ret(judged: dict[str, int], ranking: dict[str, float], judged_only: bool) -> int:
    """Docs trec_eval ranks: with -J only those judged with a grade >= 0 (form_res_rels.c)."""
    return sum(1 for d in ranking if not judged_only or judged.get(d, -1) >= 0)


def _rules_agree(p: float, num_rel: int) -> bool:
    """9.x's (long)(p*R+0.9) and 10.0's lround(p*R) give the same count (IEEE doubles, as in C)."""
    x = p * num_rel
    old = int(x + 0.9)
    new = math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)
    return old == new


# -- the rankmeter side --------------------------------------------------------------------------

def _rankmeter(qrels, run, specs, level, judged_only, queries="qrels"):
    """{spec: ({label: {query: value}}, {label: mean})}: one evaluate call per relevance threshold."""
    # resolve_measures is how evaluate reads a name (a canonical name wins: "P" alone is set_P)
    resolved = {spec: resolve_measures(spec) for spec in specs}
    by_rel: dict[int, list[str]] = {}
    for spec, labelled in resolved.items():
        by_rel.setdefault(level if uses_level(labelled[0][1]) else 1, []).append(spec)
    out = {}
    for rel, group in by_rel.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rankmeter.evaluate(qrels, run, group, queries=queries, rel=rel, judged_only=judged_only)
        for spec in group:
            labelled = resolved[spec]
            per_query = {label: dict(zip(res.queries, (float(v) for v in res.values(m)))) for label, m in labelled}
            out[spec] = per_query, {label: float(res[m]) for label, m in labelled}
    return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _pair_labels(spec: str, ours: list[str], theirs: list[str]) -> dict[str, str]:
    """Our label -> pytrec_eval's label (single-valued measures may be labelled differently)."""
    if len(ours) == 1 and len(theirs) == 1:
        return {ours[0]: theirs[0]}
    assert sorted(ours) == sorted(theirs), f"{spec}: labels {ours} vs pytrec_eval's {theirs}"
    return {label: label for label in ours}


def _level_of_label(spec: str, label: str) -> float | None:
    for p in LEVELS.get(spec, []):
        if label.endswith(f"_{p:3.2f}"):
            return p
    return None


def _same_queries(qrels, run) -> dict[str, dict[str, int]]:
    """The qrels restricted to pytrec_eval's query set (see the module docstring)."""
    return {q: judged for q, judged in qrels.items() if q in run and judged}


def _check_per_query(spec: str, case, ours) -> None:
    qrels, run, level, judged_only = case
    ref = _pytrec(qrels, run, spec, level, judged_only)
    assert set(ref) == set(_same_queries(qrels, run))  # the query policy of the module docstring
    values, means = ours
    pairs = _pair_labels(spec, list(values), sorted(next(iter(ref.values()))))
    for label, ref_label in pairs.items():
        assert set(values[label]) == set(ref), f"{label}: queries {sorted(values[label])} vs {sorted(ref)}"
        compared = []
        for q in sorted(ref):
            want, got = ref[q][ref_label], values[label][q]
            num_rel = _num_rel(qrels[q], level)
            if spec.startswith("iprec_at_recall") and not _rules_agree(_level_of_label(spec, label), num_rel):
                continue
            if spec.startswith("11pt_avg") and not all(_rules_agree(p, num_rel) for p in LEVELS[spec]):
                continue
            if math.isnan(want) and _num_ret(qrels[q], run[q], judged_only) == 0:
                want = 0.0  # pytrec_eval's 0/0 on an empty ranking; trec_eval 10.0 -c prints 0
            assert _close(got, want), f"{label} query {q!r}: rankmeter {got!r}, pytrec_eval {want!r}"
            compared.append(want)
        if len(compared) == len(ref):
            want_mean = pytrec_eval.compute_aggregated_measure(ref_label, compared)
            assert _close(means[label], want_mean), \
                f"{label} mean: rankmeter {means[label]!r}, pytrec_eval {want_mean!r}"


def _check_summary(spec: str, case, ours) -> None:
    qrels, run, level, judged_only = case
    ref = _pytrec(qrels, run, spec, level, judged_only)
    (label, got), = ours[1].items()
    want = pytrec_eval.compute_aggregated_measure(spec, [v[spec] for v in ref.values()])
    assert _close(got, want), f"{label}: rankmeter {got!r}, pytrec_eval {want!r}"


def _check(spec: str, case) -> None:
    qrels, run, level, judged_only = case
    ours = _rankmeter(_same_queries(qrels, run), run, [spec], level, judged_only)[spec]
    (_check_summary if spec in SUMMARY_SPECS else _check_per_query)(spec, case, ours)


# -- tests -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", PER_QUERY_SPECS + SUMMARY_SPECS)
def test_matches_pytrec_eval(spec):
    """One measure at a time, so a failure names its measure."""
    resolve_measures(spec)  # fail at once (no search, no shrinking) while a family is not implemented

    @settings(max_examples=MAX_EXAMPLES)
    @given(case=cases())
    def check(case):
        _check(spec, case)

    check()


@settings(max_examples=ALL_AT_ONCE_EXAMPLES)
@given(case=cases())
def test_all_measures_in_one_call_match_pytrec_eval(case):
    """Every measure from one evaluate call, on more examples than the per-measure tests."""
    qrels, run, level, judged_only = case
    ours = _rankmeter(_same_queries(qrels, run), run, PER_QUERY_SPECS + SUMMARY_SPECS, level, judged_only)
    for spec in PER_QUERY_SPECS:
        _check_per_query(spec, case, ours[spec])
    for spec in SUMMARY_SPECS:
        _check_summary(spec, case, ours[spec])


@settings(max_examples=MAX_EXAMPLES)
@given(case=cases())
def test_default_query_policy_matches_pytrec_eval(case):
    """queries="both" (default) scores the queries pytrec_eval scores when no ranking is empty."""
    qrels, run, level, judged_only = case
    run = {q: docs for q, docs in run.items() if docs}
    ref = _pytrec(qrels, run, "map", level, judged_only)
    ours, _ = _rankmeter(qrels, run, ["map"], level, judged_only, queries="both")["map"]
    assert set(ours["map"]) == set(ref)
    for q, values in ref.items():
        assert _close(ours["map"][q], values["map"]), q


def test_pytrec_eval_query_policy():
    """The policy the comparisons rely on: run keys with judgments, empty rankings included."""
    qrels = {"a": {"d1": 1}, "b": {"d1": 1}, "c": {"d1": 0}, "e": {}}
    run = {"a": {"d1": 1.0}, "b": {}, "e": {"d1": 1.0}, "x": {"d1": 1.0}}
    ref = _pytrec(qrels, run, "map", 1, False)
    assert set(ref) == {"a", "b"}
    assert ref["b"]["map"] == 0.0


def test_rounding_rules_of_recall_levels():
    """_rules_agree on the cases that separate trec_eval 9.x from 10.0."""
    assert not _rules_agree(0.1, 1)      # 9.x: 1, 10.0: 0
    assert _rules_agree(0.5, 3)          # both 2
    assert not _rules_agree(0.2, 7)      # 1.4 -> 9.x: 2, 10.0: 1
    assert _rules_agree(1.0, 5) and _rules_agree(0.0, 9)


def test_migration_page_examples_run():
    """docs/migrate-pytrec-eval.md: its examples (pytrec_eval beside the drop-in, the trec_eval="10.0"
    option, the API) run as doctests against the installed pytrec_eval."""
    import doctest
    from pathlib import Path
    assert pytrec_eval.__version__  # the page imports it: bound here, so a missing oracle skips visibly
    page = Path(__file__).resolve().parents[1].parent / "docs" / "migrate-pytrec-eval.md"
    result = doctest.testfile(str(page), module_relative=False, report=True, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20 and result.failed == 0, f"{result.failed} example(s) failed (see the output above)"
