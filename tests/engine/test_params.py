"""Every declared parameter of every command, fed values outside what it accepts: a clean refusal.

The flags are made from the declarations (the shared ones in rankmeter/core/params.py, each command's own
beside its code) by rankmeter/cli/flags.py. For each
command of the registry and each flag with a declared type, range or choices, every value just outside the
range, non-finite, of another type or not among the choices must give exit 2, one line on stderr naming
the flag, nothing on stdout and no file written -- before any input is read.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import pytest

from rankmeter.cli.app import COMMANDS, _parser
from rankmeter.cli.flags import declared, flag
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

#: every declaration a flag is made from (shared or a command's own), once
DECLARED = list({id(p): p for _, _,
                 p in declared(_parser())}.values()) + [p for p in PARAMS.values() if not flag(p).offered]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
Q, R1, R2 = str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt"), str(EXAMPLES / "run2.txt")


def _base(command: str, kind: str | None, out: Path) -> list[str]:
    """A valid call of ``command`` (the positional inputs and required flags), writing into ``out``."""
    o = str(out / "out.file")
    return {
        "eval": ["eval", Q, R1, "-m", "AP"], "explain": ["explain", Q, R1, "-m", "AP", "-Q", "1"],
        "compare": ["compare", Q, R1, R2, "-m", "AP"], "measures": ["measures"],
        "plot": ["plot", Q, R1, R2, "--kind", "pr", "-o", str(out / "p.svg")],
        "report": ["report", Q, R1, R2, "-m", "AP", "-o", str(out / "r.html")], "check": ["check", Q, R1],
        "judged": ["judged", Q, R1], "ties": ["ties", Q, R1], "fuse": ["fuse", R1, R2, "-o", o],
        "pool": ["pool", R1, R2, "--depth", "5", "-o", o], "agree": ["agree", Q, Q],
        "run": ["run", "cut", R1, "-o", o], "beyond": ["beyond", Q, R1], "nuggets": ["nuggets", R1],
        "meta": ["meta", kind or "correlate", Q, R1, R2, "-m", "AP"] + (["-m", "P@5"] if kind == "correlate" else [])
        + (["-o", o] if kind == "zscores" else []) if kind != "leaderboards" else
        ["meta", "leaderboards", Q, Q, R1, R2, "-m", "AP"],
        "judges": {"aggregate": ["judges", "aggregate", Q, "-o", o], "mix": ["judges", "mix", Q, Q, "-o", o],
                   "impact": ["judges", "impact", Q, Q, R1, R2, "-m", "AP"],
                   "estimate": ["judges", "estimate", Q, Q, R1, "-m", "AP"],
                   "allocate": ["judges", "allocate", Q, Q, R1, "-m", "AP", "--budget", "2"],
                   "reliability": ["judges", "reliability", Q],
                   "ranking": ["judges", "ranking", Q, Q, R1, R2, "-m", "AP"],
                   "label": ["judges", "label", R1, "--queries", Q, "--docs", Q, "--base-url", "http://127.0.0.1:9/v1",
                             "--model", "m", "--cache", str(out / "cache.db"), "-o", o]}.get(kind, []),
        "baseline": ["baseline", Q, R1, "-m", "AP", "-o", o],
        "gate": ["gate", Q, R1, "--baseline", str(out / "missing-baseline.json")],
        "diff": ["diff", Q, R1, "-m", "AP", "--as", "pytrec_eval,ranx"],
        "leaderboard": ["leaderboard", str(EXAMPLES / "leaderboard" / "manifest.json"), "-m", "AP", "--resamples",
                        "100"],
    }[command]


def _bad_values(param: Param) -> list[str]:
    """Command-line values the parameter must refuse."""
    if param.kind == "choice":
        return ["no-such-choice", ""]
    if param.kind not in ("integer", "number", "grade", "numbers"):
        return []
    bad = ["abc", "nan", "inf", "-inf"]
    if param.kind == "integer":
        bad.append("1.5")
    def step(bound):  # just outside a bound, and visibly so in a double
        return 1 if param.kind == "integer" else max(1e-3, abs(bound) * 1e-6)
    if param.low != -math.inf:
        bad.append(repr(param.low) if param.low_open else repr(param.low - step(param.low)))
    if param.high != math.inf:
        bad.append(repr(param.high) if param.high_open else repr(param.high + step(param.high)))
    return bad


def _typed_flags(parser: argparse.ArgumentParser):
    """(flag, Param) of every option made from the parameter table that takes a value."""
    for action in parser._actions:
        convert = getattr(action, "type", None)
        param = getattr(convert, "param", None)
        if action.option_strings and isinstance(param, Param):
            yield action.option_strings[0], param


def _commands():
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        if name == "trec_eval":
            continue  # trec_eval's own arguments, as trec_eval reads them (tests/compat)
        kinds = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
        if kinds is not None:  # meta, judges: each kind has flags of its own
            for kind, kind_parser in kinds.choices.items():
                yield name, kind, kind_parser
        else:
            yield name, None, command


CASES = [(name, kind, flag, value) for name, kind, parser in _commands()
         for flag, param in _typed_flags(parser) for value in _bad_values(param)]


def test_every_command_is_swept():
    assert {name for name, _, _, _ in CASES} >= set(COMMANDS) - {"trec_eval", "measures"}
    assert len(CASES) > 200


@pytest.mark.parametrize("name,kind,flag,value", CASES,
                         ids=[f"{n}{'-' + k if k else ''}{f}={v}" for n, k, f, v in CASES])
def test_out_of_range_values_are_refused_in_one_line(name, kind, flag, value, tmp_path, cli):
    argv = _base(name, kind, tmp_path) + [f"{flag}={value}" if value.startswith("-") or not value else flag]
    if not (value.startswith("-") or not value):
        argv.append(value)
    result = cli(*argv)
    assert result.returncode == 2, (argv, result.stdout, result.stderr)
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("rankmeter: error: ") and flag in result.stderr, result.stderr
    assert "expected" in result.stderr and "internal error" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("param", DECLARED, ids=[p.name for p in DECLARED])
def test_python_keywords_use_the_same_check(param):
    for value in _bad_values(param):
        try:
            parsed = float(value) if param.kind != "choice" else value
        except ValueError:
            parsed = value
        if param.kind == "integer" and isinstance(parsed, float) and parsed.is_integer():
            parsed = int(parsed)
        with pytest.raises(Exception) as err:
            param.check([parsed] if param.kind == "numbers" else parsed)
        assert f"{param.name}=" in str(err.value) and "expected" in str(err.value)
