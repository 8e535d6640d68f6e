"""Adding an evaluation option is two edits: its declaration and the code that uses it. Everything else follows.

The first tests copy rankmeter/core/options.py, add one key to its ``EvaluationOptions`` (nothing else), load the
copy as a module and check that the new option is in the declarations, in the ``Options`` object (with its
default and its check), in the signature, numpydoc and misspelling hints of an entry point decorated as every
entry point is, and a flag of every command that scores runs (parsed, checked and given back as the keyword),
with its help. The last one makes both edits in a copy of the whole package (the key, and two lines of
rankmeter/core/build.py that use it) and asks that copy, in a process of its own, for ``rankmeter.evaluate``'s
and the other entry points' signatures and docs, the values with and without the option, its refusal, and
``rankmeter eval --min-score``'s help, value and message. The API docs are rendered from those docstrings and
the command pages from that help (tools/docs_hooks.py), so nothing else needs an edit; a flag spelled
otherwise than ``--name-with-dashes`` (a metavar, a short or older flag) is one entry of
rankmeter/cli/flags.py's ``FLAGS`` more.
"""
import argparse
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

from rankmeter.cli import flags
from rankmeter.core.keywords import Unpack, takes_options
from rankmeter.core.options import OPTIONS
from rankmeter.errors import ParameterError

SOURCE = Path(__file__).resolve().parents[2] / "rankmeter" / "core" / "options.py"
#: the one edit: a key of EvaluationOptions, after the last one
NEW_KEY = '''    min_score: Annotated[float | None, option(
        None, "drop docs scored below this before ranking", low=0)]
'''


@pytest.fixture(scope="module")
def with_one_more(tmp_path_factory):
    text = SOURCE.read_text()
    end = text.index("\n\n#: Each evaluation option's")  # the end of the EvaluationOptions class body
    assert text[:end].rstrip().endswith(")]"), "the class body no longer ends where the test adds its key"
    copy = tmp_path_factory.mktemp("options") / "options_with_one_more.py"
    copy.write_text(text[:end] + "\n" + NEW_KEY + text[end:])
    spec = importlib.util.spec_from_file_location("options_with_one_more", copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # typing resolves the TypedDict's annotations through its module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_the_declaration_gives_the_parameter_and_the_options_object(with_one_more):
    m = with_one_more
    assert list(m.OPTIONS) == [*OPTIONS, "min_score"]
    param = m.OPTIONS["min_score"]
    assert (param.kind, param.default, param.optional, param.low) == ("number", None, True, 0)
    assert m.Options().min_score is None and m.Options().rel == 1
    assert m.validate_options(min_score=0.5, rel=2).min_score == 0.5
    with pytest.raises(ParameterError, match=r"^min_score=-1: expected a number in \[0, inf\) or None$"):
        m.validate_options(min_score=-1)


def test_an_entry_point_shows_it_in_its_signature_and_docs_and_suggests_it(with_one_more):
    typed = with_one_more.EvaluationOptions

    @takes_options()
    def score(qrels, run, **options: Unpack[typed]):
        """Score.

        Parameters
        ----------
        %(evaluation_options)s
        """
        return options

    shown = inspect.signature(score).parameters
    assert list(shown)[-2:] == ["partitions", "min_score"]
    assert shown["min_score"].kind is inspect.Parameter.KEYWORD_ONLY and shown["min_score"].default is None
    assert shown["min_score"].annotation == float | None
    assert re.search(r"\n( +)min_score : float, optional\n\1    Drop docs scored below this before ranking\.\n",
                     score.__doc__)
    assert score(1, 2, min_score=0.5) == {"min_score": 0.5}
    with pytest.raises(ParameterError, match=r"unknown option min_scor; did you mean min_score\?"):
        score(1, 2, min_scor=0.5)


def test_every_command_that_scores_runs_offers_it_as_a_flag(with_one_more):
    flagged = flags.option_flags(with_one_more.OPTIONS)
    scoring = flags.scoring_flags(flagged)
    assert scoring == (*flags.EVALUATION, "min_score")
    parser = flags.Parser(prog="rankmeter eval")
    flags.add(parser, *(flagged[name] for name in scoring))
    assert flags.keywords(parser.parse_args(["--min-score", "0.5"]), with_one_more.OPTIONS)["min_score"] == 0.5
    assert flags.keywords(parser.parse_args([]), with_one_more.OPTIONS)["min_score"] is None
    assert "--min-score MIN_SCORE" in parser.format_help()
    assert "drop docs scored below this before ranking" in " ".join(parser.format_help().split())
    with pytest.raises(ParameterError, match=r"argument --min-score: '-1': expected a number in \[0, inf\) or None"):
        parser.parse_args(["--min-score", "-1"])


def plain(text: str) -> str:
    return " ".join(text.split())


def test_the_real_commands_take_their_evaluation_flags_from_the_declarations():
    """What the test above builds is what the commands are built from: every option offered as a flag is a
    flag of ``rankmeter eval``, made from its declaration."""
    from rankmeter.cli.app import _parser
    parser = _parser()
    eval_command = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["eval"]
    made = {action.dest: action for action in eval_command._actions if action.help != argparse.SUPPRESS}
    for name in flags.EVALUATION:
        assert name in made, name
        assert plain(made[name].help).startswith(plain(OPTIONS[name].help)), name
        assert made[name].default == OPTIONS[name].default, name


#: the second edit: the code that uses the new option, beside positive_scores_only's (rankmeter/core/build.py)
USE_AFTER = '''    if options.positive_scores_only and not run.ranked:
        keep &= run.numbers("score") > 0
'''
USE = '''    if options.min_score is not None and not run.ranked:
        keep &= run.numbers("score") >= options.min_score
'''
#: what a copy of the package with the two edits is asked, in a process of its own: the public functions'
#: signatures and docs, the values, the check, and the command line's flag, help, value and message
CHECKS = r'''
import contextlib, inspect, io, json, sys
import rankmeter
from rankmeter.cli.app import main
from rankmeter.errors import ParameterError
qrels, run_path = sys.argv[1], sys.argv[2]
out = {"file": rankmeter.__file__}
for name in ("evaluate", "evaluate_runs", "compare", "explain"):
    shown = inspect.signature(getattr(rankmeter, name)).parameters["min_score"]
    out[name] = [str(shown.kind), shown.default, "min_score : float, optional" in getattr(rankmeter, name).__doc__]
qrels_dict = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
run = {"q1": {"d1": 0.9, "d2": 0.2, "d3": 0.5}}
out["values"] = [rankmeter.evaluate(qrels_dict, run, "AP")["AP"],
                 rankmeter.evaluate(qrels_dict, run, "AP", min_score=0.3)["AP"]]
out["options"] = rankmeter.Evaluator(qrels_dict, "AP", min_score=0.3).options.min_score
try:
    rankmeter.evaluate(qrels_dict, run, "AP", min_score=-1)
except ParameterError as error:
    out["refused"] = str(error)
for argv in (["eval", qrels, run_path, "-m", "AP", "--min-score", "0.3", "--format", "json"],
             ["eval", qrels, run_path, "-m", "AP", "--min-score", "-1"], ["eval", "--help"]):
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = main(argv)
        except SystemExit as exit:
            status = exit.code
    out.setdefault("cli", []).append([status, stdout.getvalue(), stderr.getvalue()])
print(json.dumps(out))
'''


def test_the_two_edits_reach_the_public_functions_and_the_command_line(tmp_path):
    """The whole way, on a copy of the package with the two edits and nothing else: the new option is a typed
    keyword-only parameter of evaluate, evaluate_runs, compare and explain, in their docs, checked with the
    one message shape, carried by the Options object to the code that uses it (AP 0.8333 -> 0.5 when the
    relevant doc scored 0.2 is dropped: ranks d1, d3 give (1/1) / 2), and ``rankmeter eval --min-score``
    is its flag, with its help, its value and the refusal naming the flag."""
    import json
    import shutil
    import subprocess

    package = SOURCE.parents[1]
    copy = tmp_path / "rankmeter"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    options_py, build_py = copy / "core" / "options.py", copy / "core" / "build.py"
    text = options_py.read_text()
    end = text.index("\n\n#: Each evaluation option's")
    options_py.write_text(text[:end] + "\n" + NEW_KEY + text[end:])            # edit 1: the declaration
    text = build_py.read_text()
    assert text.count(USE_AFTER) == 1, "positive_scores_only's rows are dropped elsewhere now: move the test's use"
    build_py.write_text(text.replace(USE_AFTER, USE_AFTER + USE))              # edit 2: the code that uses it
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d3 2 0.5 r\nq1 Q0 d2 3 0.2 r\n")
    done = subprocess.run([sys.executable, "-c", CHECKS, str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")],
                          capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path),
                                                                             "PATH": "/usr/bin:/bin"}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["file"] == str(copy / "__init__.py")  # the copy, not the installed package
    for name in ("evaluate", "evaluate_runs", "compare", "explain"):
        assert got[name] == ["KEYWORD_ONLY", None, True], name
    assert got["values"] == [pytest.approx((1 + 2 / 3) / 2), 0.5]
    assert got["options"] == 0.3
    assert got["refused"] == "min_score=-1: expected a number in [0, inf) or None"
    (status, stdout, _), (bad_status, bad_out, bad_err), (_, help_text, _) = got["cli"]
    written = json.loads(stdout)
    assert status == 0 and written["options"]["min_score"] == 0.3 and written["runs"][0]["mean"]["AP"] == 0.5
    assert bad_status == 2 and bad_out == ""
    assert "argument --min-score: '-1': expected a number in [0, inf) or None" in bad_err
    assert "--min-score MIN_SCORE" in help_text and "drop docs scored below this before ranking" in plain(help_text)
