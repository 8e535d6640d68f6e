"""Every public entry point shows its parameters: keyword-only, typed, documented, none behind ``**kwargs``.

The evaluation options are declared once (:class:`rankmeter.core.options.EvaluationOptions`: each key's type,
and in ``Annotated`` its default, bounds and help, from which :data:`rankmeter.core.options.OPTIONS` is made);
these tests hold every entry point that scores runs to it, as ``inspect.signature``/``help()`` show it and
as a type checker reads it (tests/test_types.py runs mypy on calls of them).
"""
from __future__ import annotations

import inspect
import os
import re
import typing

import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.core.evaluator import evaluate_runs as core_evaluate_runs
from rankmeter.core.keywords import EvaluationOptions
from rankmeter.core.options import OPTIONS, Options
from rankmeter.report import html, plots

#: Public callables of ``rankmeter.__all__`` that still take ``**options``, each with its reason. The
#: list is exact: a callable converted (``rankmeter.core.keywords.takes_options``) must leave it.
STILL_VAR_KEYWORDS: dict[str, str] = {}

#: Every public function or class that scores runs, and so takes the evaluation options.
ENTRY_POINTS = {
    "evaluate": rankmeter.evaluate, "evaluate_runs": rankmeter.evaluate_runs, "Evaluator": rankmeter.Evaluator,
    "core.evaluate_runs": core_evaluate_runs, "explain": rankmeter.explain, "compare": rankmeter.compare,
    "per_query_table": plots.per_query_table, "pr_curves": plots.pr_curves, "plot_diff": plots.plot_diff,
    "plot_pr": plots.plot_pr, "plot_distribution": plots.plot_distribution, "render_report": html.render_report,
    "write_report": html.write_report, "baseline": rankmeter.baseline,
    "leaderboard": rankmeter.leaderboard.leaderboard,
}
#: Every one of them takes its keywords from takes_options, evaluate and evaluate_runs too.
DECORATED = set(ENTRY_POINTS)

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RUNS = {"one": {"q1": ["a", "b"], "q2": ["x", "c"]}, "two": {"q1": ["b", "a"], "q2": ["c"]}}


def _public_callables():
    for name in rankmeter.__all__:
        obj = getattr(rankmeter, name)
        if callable(obj) and not (isinstance(obj, type) and issubclass(obj, BaseException)):
            yield name, obj


def test_no_public_callable_hides_its_keywords_behind_var_keywords():
    hiding = {}
    for name, obj in _public_callables():
        kinds = {p.kind for p in inspect.signature(obj).parameters.values()}
        if inspect.Parameter.VAR_KEYWORD in kinds or inspect.Parameter.VAR_POSITIONAL in kinds:
            hiding[name] = str(inspect.signature(obj))
    assert set(hiding) == set(STILL_VAR_KEYWORDS), hiding


@pytest.mark.parametrize("name", sorted(DECORATED))
def test_type_checkers_read_the_options_as_typed_keywords(name):
    """Under the signature inspect shows, the function itself takes ``**options: Unpack[EvaluationOptions]``
    (PEP 692): what mypy and IDEs read, so they check each keyword's name and type."""
    func = ENTRY_POINTS[name]
    func = func.__init__ if isinstance(func, type) else func
    hints = typing.get_type_hints(inspect.unwrap(func), localns={"os": os})
    var = [p.name for p in inspect.signature(inspect.unwrap(func)).parameters.values()
           if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert len(var) == 1
    assert typing.get_origin(hints[var[0]]) is typing.Unpack
    typed, = typing.get_args(hints[var[0]])  # EvaluationOptions, or a TypedDict that extends it (compare's)
    assert typing.is_typeddict(typed)
    types = typing.get_type_hints(typed)
    assert {n: types[n] for n in OPTIONS} == typing.get_type_hints(EvaluationOptions)


def test_the_options_type_is_the_table_of_options_and_each_signature_shows_its_types():
    """EvaluationOptions: every option of the table, in its order, a choice typed as exactly its choices;
    and the same types are what evaluate's signature shows."""
    types = typing.get_type_hints(EvaluationOptions)
    assert list(types) == list(OPTIONS)
    for name, param in OPTIONS.items():
        if param.kind == "choice":
            assert typing.get_args(types[name]) == param.choices, name
    shown = inspect.signature(rankmeter.evaluate).parameters
    assert {name: shown[name].annotation for name in OPTIONS} == types
    # the input formats a type checker allows are the reader registry's, the grade policies the reader's
    from rankmeter.io.canonical import GRADE_POLICIES
    from rankmeter.io.formats import FORMAT_NAMES
    assert (OPTIONS["input_format"].choices, OPTIONS["grades"].choices) == (FORMAT_NAMES, GRADE_POLICIES)


def _documented(doc: str, indent: int = 4) -> set[str]:
    lead = " " * indent
    return {n for line in doc.splitlines() if line.startswith(lead) and not line.startswith(lead + " ")
            for n in re.split(r",\s*", line.strip().split(" : ")[0])}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_each_entry_point_takes_every_option_keyword_only_typed_with_its_default_and_documents_it(name):
    func = ENTRY_POINTS[name]
    params = inspect.signature(func).parameters
    keyword_only = [p for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    options = keyword_only[-len(OPTIONS):]
    assert [p.name for p in options] == list(OPTIONS)
    defaults = Options()
    assert {p.name: p.default for p in options} == {n: getattr(defaults, n) for n in OPTIONS}
    assert all(p.annotation is not inspect.Parameter.empty for p in keyword_only)
    assert set(OPTIONS) <= _documented(func.__doc__)  # numpydoc: every option an entry (or a shared line)
    if name in DECORATED:  # the generated entries: type, default and the declaration's help
        assert 'queries : {"both", "qrels"}, default "both"' in func.__doc__
        assert "max_docs : int, optional" in func.__doc__
        assert OPTIONS["ignore_self"].help[1:40] in " ".join(func.__doc__.split())


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_a_misspelt_keyword_gets_the_suggestion_everywhere(name):
    func = ENTRY_POINTS[name]
    positional = [p for p in inspect.signature(func).parameters.values()
                  if p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    args = [QRELS, RUNS["one"]] + [None] * (len(positional) - 2)  # refused before any argument is read
    with pytest.raises(ParameterError, match=r"unknown option relevance_level; did you mean rel\? \(options: "):
        func(*args, relevance_level=2)
    with pytest.raises(ParameterError, match=r"unknown option judged_docs_only; did you mean judged_only\?"):
        func(*args, judged_docs_only=True)


def test_own_keywords_are_suggested_too_and_listed_first():
    with pytest.raises(ParameterError, match=r"unknown option corection; did you mean correction\? "
                                             r"\(options: baseline, test, correction, alpha, permutations, seed, "
                                             r"queries, rel"):
        rankmeter.compare(QRELS, RUNS, "AP", corection="holm")


@pytest.mark.parametrize("name", ["explain", "compare", "per_query_table", "plot_pr", "write_report",
                                  "core.evaluate_runs", "leaderboard"])
def test_entry_points_that_score_in_memory_refuse_the_other_executors(name, tmp_path):
    func = ENTRY_POINTS[name]
    args = {"explain": (QRELS, RUNS["one"], "AP", "q1"), "compare": (QRELS, RUNS, "AP"),
            "per_query_table": (QRELS, RUNS, "AP"), "plot_pr": (QRELS, RUNS), "core.evaluate_runs": (QRELS, RUNS, "AP"),
            "write_report": (QRELS, RUNS, "AP", tmp_path / "r.html"),
            "leaderboard": ({"collections": {"x": {"qrels": QRELS, "runs": RUNS}}}, "AP")}[name]
    for executor in ("streamed", "spark"):
        with pytest.raises(ParameterError, match=f"executor='{executor}': .* scores each run in memory"):
            func(*args, executor=executor)
    assert not (tmp_path / "r.html").exists()


def test_the_options_reach_the_scores():
    """Given through the generated keywords, an option changes what is computed (not only accepted)."""
    cut = rankmeter.explain(QRELS, RUNS["one"], "P@2", "q2", max_docs=1)
    assert (rankmeter.explain(QRELS, RUNS["one"], "P@2", "q2").value, cut.value) == (0.5, 0.0)
    table = plots.per_query_table(QRELS, RUNS, "RR", rel=2)  # nothing is relevant at grade 2
    assert table.values.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    given = rankmeter.core.validate_options(rel=2)
    assert rankmeter.Evaluator.of(QRELS, "RR", given).options is given  # below the public face: the object
    with pytest.raises(ParameterError, match=r"^unknown option options"):  # never the object and keywords both
        rankmeter.Evaluator(QRELS, "RR", options=given, rel=1)
    assert core_evaluate_runs(QRELS, RUNS, "RR", judged_only=True)["one"].values("RR").tolist() == [1.0, 1.0]


def test_choice_keywords_are_typed_as_their_declarations_choices():
    """A keyword both declared (validate_params) and typed Literal: the type lists exactly the choices."""
    checked = 0
    for func in (rankmeter.compare, rankmeter.compare_scores, plots.plot_distribution, html.render_report):
        hints = typing.get_type_hints(inspect.unwrap(func))  # its own keywords, and those takes_options made:
        hints.update({n: p.annotation for n, p in inspect.signature(func).parameters.items()
                      if not isinstance(p.annotation, str)})
        for name, param in func.params.items():
            if param.kind == "choice":
                assert typing.get_args(hints[name]) == param.choices, (func.__name__, name)
                checked += 1
    assert checked == 7


def test_write_report_takes_what_render_report_takes():
    """write_report passes its keywords on one by one: the two signatures cannot drift."""
    write = dict(inspect.signature(html.write_report).parameters)
    render = dict(inspect.signature(html.render_report).parameters)
    assert write.pop("path").kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [(p.name, p.default, p.annotation) for p in write.values()] == \
        [(p.name, p.default, p.annotation) for p in render.values()]


def test_tie_report_takes_every_option_but_the_one_it_varies():
    """tie_report scores under each tie policy itself: ``ties`` is not among its keywords, and passing it is
    refused with that reason (it used to be dropped in silence)."""
    params = inspect.signature(rankmeter.tie_report).parameters
    options = [p.name for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY][1:]
    assert options == [n for n in OPTIONS if n != "ties"]
    assert "ties :" not in rankmeter.tie_report.__doc__ and "judged_only : bool" in rankmeter.tie_report.__doc__
    with pytest.raises(ParameterError, match=r"^tie_report sets ties itself"):
        rankmeter.tie_report(QRELS, RUNS["one"], "AP", ties="worst")
    with pytest.raises(ParameterError, match=r"unknown option relevance_level; did you mean rel\?"):
        rankmeter.tie_report(QRELS, RUNS["one"], "AP", relevance_level=2)
    # an option reaches every policy's scoring: with judged_only the unjudged "x" is dropped, so q2's RR is 1
    plain = {r["measure"]: r for r in rankmeter.tie_report(QRELS, RUNS["one"], "RR").overall}["RR"]
    judged = {r["measure"]: r for r in rankmeter.tie_report(QRELS, RUNS["one"], "RR", judged_only=True).overall}["RR"]
    assert (plain["trec_eval"], plain["worst"], plain["best"]) == (0.75, 0.75, 0.75)
    assert (judged["trec_eval"], judged["worst"], judged["best"]) == (1.0, 1.0, 1.0)


def test_judged_and_fuse_take_every_option_but_the_one_they_set():
    """judged shows each measure with and without judged_only (so it is not an option of it); fuse's ``ties`` is
    a keyword of its own (trec_eval or input: how each input run's tied docs are ranked)."""
    params = inspect.signature(rankmeter.judged).parameters
    assert [p.name for p in params.values() if p.kind is inspect.Parameter.KEYWORD_ONLY][2:] == \
        [n for n in OPTIONS if n != "judged_only"]
    with pytest.raises(ParameterError, match=r"^judged sets judged_only itself"):
        rankmeter.judged(QRELS, RUNS, "AP", judged_only=True)
    with pytest.raises(ParameterError, match=r"unknown option relevance_level; did you mean rel\?"):
        rankmeter.judged(QRELS, RUNS, "AP", relevance_level=2)
    # rel reaches the scoring: nothing in QRELS is graded 2, so every AP is 0
    assert [row.full["AP"] for row in rankmeter.judged(QRELS, RUNS, "AP", rel=2).rows] == [0.0, 0.0]

    fuse_params = inspect.signature(rankmeter.fuse).parameters
    assert fuse_params["ties"].default == "trec_eval" and fuse_params["ties"].kind is inspect.Parameter.KEYWORD_ONLY
    assert [n for n in fuse_params if n in OPTIONS] == ["ties", *[n for n in OPTIONS if n != "ties"]]
    with pytest.raises(ParameterError, match=r"ties='average': expected one of 'trec_eval', 'input'"):
        rankmeter.fuse(list(RUNS.values()), ties="average")
    with pytest.raises(ParameterError, match=r"unknown option judged_docs_only; did you mean judged_only\?"):
        rankmeter.fuse(list(RUNS.values()), judged_docs_only=True)
    with pytest.raises(ParameterError, match=r"executor='spark': fuse scores each run in memory"):
        rankmeter.fuse(list(RUNS.values()), executor="spark")


def test_leaderboard_is_callable_as_the_package_and_shows_its_signature():
    """``rankmeter.leaderboard`` is a package (rankmeter/leaderboard/) and, called, its function: Python sets a
    package's attribute to the subpackage on import, so the package itself is made callable."""
    import rankmeter.leaderboard.board  # noqa: F401 - the subpackage imported first: still callable
    assert inspect.signature(rankmeter.leaderboard) == inspect.signature(rankmeter.leaderboard.leaderboard)
    import pandas as pd
    table = pd.DataFrame({"system": ["A", "B"] * 2, "collection": ["x", "x", "y", "y"], "measure": ["m"] * 4,
                          "value": [0.5, 0.4, 0.6, 0.5]})
    board = rankmeter.leaderboard(table, resamples=100)
    assert isinstance(board, rankmeter.Leaderboard) and board.rows[0]["system"] == "A"
