"""What only the command line needs lives in cli/: the engine's Param holds what a parameter accepts, its
default and its help; a Flag (rankmeter.cli.flags) adds how the command line spells it."""
from __future__ import annotations

import dataclasses

import pytest

from rankmeter.cli import flags
from rankmeter.engine.param import Param
from rankmeter.errors import ParameterError


def test_the_engine_declaration_holds_no_command_line_field():
    held = {f.name for f in dataclasses.fields(Param)}
    assert held == {"name", "kind", "default", "help", "low", "high", "low_open", "high_open", "choices", "optional",
                    "required"}
    with pytest.raises(TypeError):
        Param("top", "integer", 10, "how many", metavar="N")


def test_a_flag_reads_the_declaration_and_changes_each_part_where_it_lives():
    made = flags.declare("top", "integer", 10, "how many to show", low=1, metavar="N", short="-t")
    assert isinstance(made.param, Param) and (made.param.name, made.param.low, made.param.default) == ("top", 1, 10)
    assert (made.metavar, made.short, made.long_flag, made.kind, made.help) == ("N", "-t", "--top", "integer",
                                                                             "how many to show")
    narrowed = made.but(high=5, metavar="K", help="how many, at most 5")
    assert (narrowed.param.high, narrowed.metavar, narrowed.short) == (5, "K", "-t")
    assert narrowed.help == "how many, at most 5"
    assert made.param.high == float("inf")  # a Flag and its declaration are frozen: .but makes new ones


def test_a_declaration_given_by_object_or_name_takes_its_fields_from_the_table():
    assert flags.flag(Param("measure", "strings")).short == "-m"          # FLAGS["measure"]
    assert flags.flag("k").metavar == "K" and flags.flag("k", short=None).short is None
    assert flags.flag(Param("never_declared_here", "bool")).long_flag == "--never-declared-here"
    assert not flags.flag(Param("lower_is_better", "bool")).offered     # offered to Python callers only


def test_the_parser_is_made_from_the_flag_and_keeps_the_declaration():
    parser = flags.Parser(prog="rankmeter demo")
    made = flags.declare("top", "integer", 10, "how many to show", low=1, metavar="N", short="-t",
                         deprecated=("--most",))
    flags.add(parser, made, flags.flag(Param("hidden", "bool"), offered=False))
    assert parser.parse_args(["-t", "3"]).top == 3 and parser.parse_args(["--most", "4"]).top == 4
    assert not hasattr(parser.parse_args([]), "hidden")
    action = next(a for a in parser._actions if a.dest == "top")
    assert action.param is made.param and action.metavar == "N" and action.option_strings == ["--top", "-t"]
    assert "--top N, -t N  how many to show (default 10)" in parser.format_help()
    assert "--most" not in parser.format_help()  # the older flag is read, not shown
    with pytest.raises(ParameterError, match=r"argument --top/-t: '0': expected an integer in \[1, inf\)"):
        parser.parse_args(["--top", "0"])
