"""One name everywhere: every flag of every command is the name of the Python keyword it feeds.

For each command of the registry (rankmeter/cli/app.py) the sweep reads each flag's destination from the parser
and the keywords of the functions the command calls (:data:`FEEDS`, read from their signatures; a function
taking ``**options`` forwards the evaluation options, :data:`rankmeter.core.options.OPTIONS`). A flag passes by
one of these rules, and by nothing else:

* **the same name**: ``--max-docs`` is ``max_docs=`` (the flag is ``--`` + the keyword with dashes);
* **a repeatable flag is the singular of a plural keyword**: ``-m/--measure`` given again and again is
  ``measures=``, ``--cutoff`` is ``cutoffs=`` (or the keyword itself takes the list: ``--baseline`` ->
  ``baseline=[...]``);
* **a negated flag**: ``--no-X`` sets ``X=False``, or skips the function ``X`` the command would call
  (``--no-lint``);
* **a flag named after a function the command calls**: a switch calls it (``--update-baseline`` ->
  ``update_baseline(...)``), a flag with a value gives its one option (``--dedupe max`` ->
  ``dedupe(run, keep="max")``, ``--profile beir`` -> ``profile("beir")``);
* **what a command writes**: ``-o/--output`` is the file written (the writer's ``path``), and a second file is
  named by what it holds (``--report FILE``, ``--svg FILE``, ``--provenance FILE``); ``--format`` and
  ``--decimals`` say how the result is printed (the renderers' ``format=`` and ``decimals=``: no renderer spells
  them otherwise, e.g. ``fmt=``).

Every flag is also made from a declaration (:class:`rankmeter.engine.param.Param`, through
:func:`rankmeter.cli.flags.add`), so that its check, its help and its docs are the keyword's.
What does not pass is a drift to fix, or an entry of :data:`EXCEPTIONS` with the reason a rename would hurt;
an exception that no longer applies fails too.
"""
from __future__ import annotations

import argparse
import importlib
import inspect

import pytest

from rankmeter.cli.app import COMMANDS, _parser

#: command path -> the functions its flags feed ("module:qualified name"; a class means its constructor)
FEEDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("eval",): ("rankmeter.core.evaluator:Evaluator", "rankmeter.report.text:print_results",
                "rankmeter.compat.profiles:profile", "rankmeter.check.lint:lint"),
    ("explain",): ("rankmeter.core.explain:explain",),
    ("compare",): ("rankmeter.stats.compare:compare", "rankmeter.report.tables:write_comparison",
                   "rankmeter.report.tables:per_query_text", "rankmeter.compat.profiles:profile"),
    ("measures",): ("rankmeter.report.text:print_measures",),
    ("plot",): ("rankmeter.report.plots:plot_pr", "rankmeter.report.plots:plot_diff",
                "rankmeter.report.plots:plot_distribution"),
    ("report",): ("rankmeter.report.html:write_report",),
    ("check",): ("rankmeter.check:check", "rankmeter.check.dedupe:dedupe",
                 "rankmeter.check:exit_status"),
    ("judged",): ("rankmeter.check.judged:judged", "rankmeter.check.judged:JudgedReport.to_text"),
    ("ties",): ("rankmeter.check.ties:tie_report", "rankmeter.check.ties:TieReport.to_text"),
    ("fuse",): ("rankmeter.fusion.methods:fuse", "rankmeter.fusion.tuning:optimise"),
    ("pool",): ("rankmeter.fusion.pooling:pool",),
    ("agree",): ("rankmeter.judges.judge_agreement:agreement",
                 "rankmeter.judges.many_raters:many_rater_agreement"),
    ("judges", "aggregate"): ("rankmeter.judges.sources:aggregate",),
    ("judges", "mix"): ("rankmeter.judges.sources:mix",),
    ("judges", "impact"): ("rankmeter.judges.label_impact:impact",),
    ("judges", "estimate"): ("rankmeter.judges.ppi:estimate",),
    ("judges", "allocate"): ("rankmeter.judges.allocation:allocate",
                             "rankmeter.judges.allocation:labels_needed",
                             "rankmeter.judges.ppi:estimate"),
    ("judges", "label"): ("rankmeter.judges.labelling:label",),
    ("judges", "reliability"): ("rankmeter.judges.reliability:reliability",),
    ("judges", "ranking"): ("rankmeter.judges.ranking:rank_agreement",),
    ("nuggets",): ("rankmeter.nuggets.assignments:nugget_scores", "rankmeter.nuggets.assignments:compare_nuggets",
                   "rankmeter.nuggets.assignments:NuggetScores.to_text", "rankmeter.report.html:render_scores_report"),
    ("run",): ("rankmeter.core.ranked_runs:cut", "rankmeter.core.ranked_runs:rerank",
               "rankmeter.core.ranked_runs:write_run", "rankmeter.io.runs:filter_queries", "rankmeter.io.runs:retag",
               "rankmeter.io.runs:merge", "rankmeter.io.runs:sample", "rankmeter.io:as_run"),
    ("beyond",): ("rankmeter.recsys.beyond:beyond_accuracy", "rankmeter.recsys.beyond:compare_beyond",
                  "rankmeter.report.tables:write_comparison"),
    ("meta", "correlate"): ("rankmeter.meta.correlation:correlations",
                            "rankmeter.core.evaluator:evaluate_runs"),
    ("meta", "discriminative-power"): ("rankmeter.meta.discrimination:discriminative_power",
                                       "rankmeter.meta.discrimination:score_matrices"),
    ("meta", "swap-rate"): ("rankmeter.meta.discrimination:swap_rate",
                            "rankmeter.meta.discrimination:score_matrices"),
    ("meta", "topic-set-size"): ("rankmeter.meta.design:topic_set_size",
                                 "rankmeter.meta.design:minimum_detectable_difference",
                                 "rankmeter.meta.discrimination:score_matrices"),
    ("meta", "zscores"): ("rankmeter.meta.zscores:standardisation",),
    ("meta", "leaderboards"): ("rankmeter.judges.leaderboard_agreement:leaderboards",
                               "rankmeter.judges.leaderboard_agreement:from_scores",
                               "rankmeter.judges.leaderboard_agreement:Leaderboards.to_text"),
    ("baseline",): ("rankmeter.gate.saved:baseline", "rankmeter.compat.profiles:profile"),
    ("gate",): ("rankmeter.gate.checks:gate", "rankmeter.gate.ratchet:update_baseline",
                "rankmeter.report.gate:gate_report", "rankmeter.compat.profiles:profile"),
    ("diff",): ("rankmeter.diff.attribution:diff", "rankmeter.cli.diff:to_text"),
    ("leaderboard",): ("rankmeter.leaderboard.board:leaderboard", "rankmeter.leaderboard.board:Leaderboard.to_text",
                       "rankmeter.leaderboard.board:Leaderboard.per_collection", "rankmeter.compat.profiles:profile"),
}

#: (command path, flag) -> why the flag keeps a name of its own. Kept short: each entry is a name a user
#: types that a rename would break or make worse.
EXCEPTIONS: dict[tuple[tuple[str, ...], str], str] = {
    (("diff",), "--as"): "`as` is a Python reserved word: the keyword is conventions=; `--as ranx` reads as the "
                         "docs say it (score as ranx does)",
    (("eval",), "--chunked"): "a shorthand of --executor streamed (docs/scale.md), not a keyword of its own",
    (("fuse",), "--weights"): "one of the method's params= (params={'weights': [...]}) given as a flag of its own, "
                              "one number per run as ranx's weights; --param NAME=VALUE gives the others",
    (("meta", "correlate"), "--other-qrels"): "the command scores the runs under a second qrels (evaluate_runs "
                                              "once per qrels) and correlates the two: no function takes both",
    (("meta", "discriminative-power"), "--nuggets"): "per-query nugget scores (nugget_scores per file) instead of "
                                                     "QRELS RUN...: the matrix the analysis takes as scores=",
    (("plot",), "--kind"): "picks the function the command calls (diff: plot_diff, pr: plot_pr, dist: "
                           "plot_distribution), not a keyword of any of them",
    (("compare",), "--all-pairs"): "prints one more section of the Comparison (report.tables.all_pairs_text); the "
                                   "Python result always holds every pair",
    (("compare",), "--per-query"): "prints one more section of the Comparison (report.tables.per_query_text); the "
                                   "Python result always holds the per-query values",
    (("judges", "mix"), "--per-query"): "prints mix()'s per-query counts, which the Python result always holds",
    (("meta", "swap-rate"), "--nuggets"): "per-query nugget scores (nugget_scores per file) instead of QRELS RUN...: "
                                          "the matrix the analysis takes as scores=",
}

#: the files a command writes: -o/--output (the writer's ``path``) and a second file named by what it holds
WRITTEN = ("output", "report", "svg", "provenance")
#: how a command prints its result: the renderers' keywords of the same names (or the command picks the
#: renderer by it: to_text, to_dict, to_csv)
PRINTED = {"format": ("fmt",), "decimals": ("digits",)}  # -> the spellings a renderer must not use


def _resolve(spec: str):
    module, name = spec.split(":")
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _keywords(func) -> tuple[set[str], bool]:
    """(the parameter names of ``func``, whether it takes the evaluation options: as ``**options``, or as a dict
    ``options=``)."""
    target = func.__init__ if inspect.isclass(func) else func
    params = inspect.signature(target).parameters
    names = {n for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and n != "self"}
    return names, "options" in names or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _one_option(func) -> bool:
    """Whether ``func`` takes one option: one parameter, or one keyword-only parameter after its data."""
    target = func.__init__ if inspect.isclass(func) else func
    params = [p for n, p in inspect.signature(target).parameters.items() if n != "self"]
    keyword_only = [p for p in params if p.kind == p.KEYWORD_ONLY]
    return len(params) == 1 or len(keyword_only) == 1


def _commands():
    """(command path, parser) of every command and kind, trec_eval aside (it reads trec_eval's own flags, as
    trec_eval spells them: rankmeter/compat/trec_eval/args.py)."""
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        if name == "trec_eval":
            continue
        kinds = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
        if kinds is None:
            yield (name,), command
        else:
            for kind, kind_parser in kinds.choices.items():
                yield (name, kind), kind_parser


def _flags(parser):
    """(flag, action) of each visible option (an older spelling, hidden, is checked by test_params)."""
    for action in parser._actions:
        if not action.option_strings or action.help is argparse.SUPPRESS or action.dest in ("help",):
            continue
        long = [o for o in action.option_strings if o.startswith("--")]
        yield (long or action.option_strings)[0], action


def _verdict(flag: str, action, feeds) -> str | None:
    """None when ``flag`` passes a rule, else what is wrong."""
    funcs = [_resolve(f) for f in feeds]
    keywords: set[str] = set()
    forwards = False
    for f in funcs:
        names, var = _keywords(f)
        keywords |= names
        forwards |= var
    if forwards:
        from rankmeter.core.options import OPTIONS
        keywords |= set(OPTIONS)
    by_name = {f.__name__: f for f in funcs}
    dest = action.dest
    name = flag.lstrip("-").replace("-", "_")
    repeatable = isinstance(action, (argparse._AppendAction, argparse._ExtendAction))
    switch = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
    if dest == name and name in WRITTEN:
        return None
    if dest == name and name in PRINTED:
        spelled = [f"{f.__qualname__}({other}=)" for f in funcs for other in PRINTED[name] if other in _keywords(f)[0]]
        return f"{flag}: spelled otherwise in {', '.join(spelled)}" if spelled else None
    if isinstance(action, argparse._StoreFalseAction) and name.startswith("no_"):
        target = name[3:]
        if dest == target and (target in keywords or target in by_name):
            return None
        return f"{flag} (dest {dest!r}): no keyword or function {target!r} to switch off"
    if name in by_name and name == dest and (switch or _one_option(by_name[name])):
        return None
    if repeatable:
        if dest not in (name, name + "s"):
            return f"{flag} stores into {dest!r}"
        if name + "s" in keywords or name in keywords:
            return None
        return f"{flag} (repeatable): no keyword {name + 's'!r} or {name!r} in {sorted(keywords)}"
    if dest != name:
        return f"{flag} stores into {dest!r}: the flag and the keyword must be one name"
    if name in keywords:
        return None
    return f"{flag}: no keyword {name!r} in {', '.join(feeds)}"


COMMAND_PARSERS = dict(_commands())


def test_every_command_is_fed():
    """Each command (and kind) of the registry names the functions it calls; no entry for a removed one."""
    assert set(FEEDS) == set(COMMAND_PARSERS)
    assert {path[0] for path in FEEDS} == set(COMMANDS) - {"trec_eval"}


@pytest.mark.parametrize("path", sorted(COMMAND_PARSERS), ids=[" ".join(p) for p in sorted(COMMAND_PARSERS)])
def test_each_flag_is_the_keyword_it_feeds(path):
    wrong = []
    for flag, action in _flags(COMMAND_PARSERS[path]):
        if (path, flag) in EXCEPTIONS:
            continue
        verdict = _verdict(flag, action, FEEDS[path])
        if verdict:
            wrong.append(verdict)
    assert not wrong, f"rankmeter {' '.join(path)}: " + "; ".join(wrong)


@pytest.mark.parametrize("path", sorted(COMMAND_PARSERS), ids=[" ".join(p) for p in sorted(COMMAND_PARSERS)])
def test_each_flag_is_made_from_a_declaration(path):
    """The flag's check, help and docs come from the keyword's declaration (rankmeter.cli.flags.add)."""
    from rankmeter.engine.param import Param
    bare = [flag for flag, action in _flags(COMMAND_PARSERS[path])
            if not isinstance(getattr(action, "param", None), Param)
            and (path, flag) not in EXCEPTIONS and flag != "--version"]
    assert not bare, f"rankmeter {' '.join(path)}: flags without a declaration: {', '.join(bare)}"


def test_each_exception_still_applies():
    """An exception whose flag is gone, or that now passes a rule, is removed from the list."""
    for (path, flag), reason in EXCEPTIONS.items():
        assert reason
        actions = dict(_flags(COMMAND_PARSERS[path]))
        assert flag in actions, (path, flag)
        assert _verdict(flag, actions[flag], FEEDS[path]) is not None, f"{path} {flag} passes a rule now"


def test_the_rules_catch_a_drift():
    """The sweep fails on the drifts it exists for: a flag spelled unlike its keyword, a keyword not taken."""
    parser = argparse.ArgumentParser()
    renamed = parser.add_argument("--format-in", dest="input_format")
    missing = parser.add_argument("--nope")
    repeat = parser.add_argument("--measure", action="append")
    feeds = ("rankmeter.check.judged:judged",)
    assert "one name" in _verdict("--format-in", renamed, feeds)
    assert "no keyword 'nope'" in _verdict("--nope", missing, feeds)
    assert _verdict("--measure", repeat, feeds) is None  # measures=


#: flag -> why it means two things in different commands (its declarations' kinds differ)
TWO_MEANINGS = {
    "--baseline": "what a run is compared against: a run's name (compare, beyond, nuggets, judges impact, report) or, "
                  "in gate, the saved baseline file (gate(baseline=), written by rankmeter baseline)",
    "--topics": "a topics file (check, pool) or, in meta topic-set-size, a count of topics (minimum_detectable_"
                "difference(topics=)): both the topics, as IR papers say it",
    "--weights": "fuse: one weight per run (params={'weights': ...}); nuggets: a weight per nugget importance "
                 "(nugget_scores(weights=)): weights of different things, each its function's keyword",
    "--queries": "which queries are averaged (an evaluation option) or, in judges label, the query texts file: "
                 "issue 35 fixed judges label's interface for scripts (--queries FILE --docs FILE)",
    "--top-k": "the ranks that count: judges label's one depth (issue 35's fixed interface) or meta leaderboards' "
               "depths of the top-k overlap (several)",
}
#: kinds that are one meaning: a repeatable flag and its one-value form
_SAME = {"strings": "string", "paths": "path"}


def test_one_flag_one_meaning():
    """A flag spelled alike in two commands is one parameter: its declarations have one kind (a repeatable flag
    and its one-value form alike), or it is listed with why."""
    from collections import defaultdict

    from rankmeter.engine.param import Param
    kinds = defaultdict(set)
    for path, parser in COMMAND_PARSERS.items():
        for flag, action in _flags(parser):
            param = getattr(action, "param", None)
            if isinstance(param, Param):
                kinds[flag].add(_SAME.get(param.kind, param.kind))
    differ = {flag for flag, found in kinds.items() if len(found) > 1}
    assert differ == set(TWO_MEANINGS), {flag: kinds[flag] for flag in differ ^ set(TWO_MEANINGS)}


#: (command path, flag, function) -> why the flag's declaration differs from the one the function validates with
NARROWED = {
    (("fuse",), "--method", "optimise"): "the command's default is fuse's (rrf); optimise's is ranx's "
                                          "optimize_fusion's (wsum), and the command passes the method given",
    (("run",), "--ties", "rerank"): "a written run's order: trec_eval's or the order given (rerank also takes "
                                    "the policies that score: average, best, worst)",
}


def test_a_flag_and_its_keyword_share_the_declaration():
    """Where a fed function validates the keyword (validate_params), the flag accepts what the keyword accepts:
    the same kind, bounds, choices and default -- so the check, the help and the docs cannot drift apart."""
    from rankmeter.engine.param import Param
    differ = {}
    for path, parser in COMMAND_PARSERS.items():
        funcs = [_resolve(f) for f in FEEDS[path]]
        for flag, action in _flags(parser):
            param = getattr(action, "param", None)
            if not isinstance(param, Param):
                continue
            for f in funcs:
                # its validated keywords, and the options takes_options made from their declarations
                declared = {**getattr(f, "options", {}), **getattr(f, "params", {})}
                own = declared.get(action.dest) or declared.get(action.dest + "s")
                if own is None:
                    continue
                shape = [(p.kind, p.low, p.high, p.low_open, p.high_open, tuple(p.choices)) for p in (param, own)]
                if shape[0] != shape[1] or (param.default != own.default and not own.required):
                    differ[(path, flag, f.__name__)] = (shape, param.default, own.default)
    assert set(differ) == set(NARROWED), {k: differ.get(k) for k in set(differ) ^ set(NARROWED)}


#: (command path, positional) -> why it is not one keyword: the command splits it or picks a function by it
POSITIONAL = {
    (("check",), "inputs"): "QRELS RUN... or RUN...: split into check(qrels=, runs=) by what the first file holds",
    (("run",), "action"): "which utility the command applies (cut, rerank, filter ...): a function, not a keyword",
    (("meta", "leaderboards"), "inputs"): "QRELS_A QRELS_B RUN...: split into leaderboards(qrels_a, qrels_b, runs)",
    (("agree",), "judgments"): "the judges' files: agreement's two (a, b) or many_rater_agreement's judges "
                               "(helper design's command)",
}


def test_each_positional_is_the_keyword_it_feeds():
    """Positional arguments too (QRELS is qrels=, RUN... is runs=; their names show in the usage line)."""
    wrong = set()
    for path, parser in COMMAND_PARSERS.items():
        keywords = set().union(*(_keywords(_resolve(f))[0] for f in FEEDS[path]))
        for action in parser._actions:
            if action.option_strings or isinstance(action, argparse._SubParsersAction):
                continue
            if not {action.dest, action.dest + "s", action.dest.removesuffix("s")} & keywords:
                wrong.add((path, action.dest))
    assert wrong == set(POSITIONAL), wrong ^ set(POSITIONAL)
