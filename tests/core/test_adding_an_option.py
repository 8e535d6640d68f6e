"""Adding an evaluation option is one declaration (and the code that uses it): everything else follows.

The test copies rankmeter/core/options.py, adds one key to its ``EvaluationOptions`` (nothing else), loads the
copy as a module and checks that the new option is in the declarations, in the ``Options`` object (with its
default and its check), in the signature, numpydoc and misspelling hints of an entry point decorated as every
entry point is, and a flag of every command that scores runs (parsed, checked and given back as the keyword),
with its help. The API docs are rendered from those docstrings and the command pages from that help
(tools/docs_hooks.py), so nothing else needs an edit.
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
