"""One parameter vocabulary: the measures' parameters, the Python functions' keywords and the flags are
declared with one class (rankmeter.engine.param.Param) and checked by it, with one message shape."""
from __future__ import annotations

from typing import Annotated, TypedDict

import pytest

import rankmeter
from rankmeter.engine.param import UNSET, Param, validate_params
from rankmeter.engine.typed_options import declarations
from rankmeter.errors import MeasureError, ParameterError
from rankmeter.measures import REGISTRY
from rankmeter.measures.grammar import parse_measure

ALPHA = Param("alpha", "number", help="level", low=0, high=1, low_open=True, high_open=True)
K = Param("k", "integer", help="cut-off", low=1, optional=True)


@validate_params(ALPHA, K)
def _level(x, *, alpha: float = 0.05, k: int | None = None) -> tuple:
    return x, alpha, k


@validate_params(K)
def _cut(run, k: int) -> int:
    return k


def test_validate_params_checks_and_normalises_the_declared_keywords():
    assert _level(1, alpha=0.5, k=3) == (1, 0.5, 3)
    assert _level(1) == (1, 0.05, None)             # defaults are the signature's: not checked again
    assert _level(1, k=None) == (1, 0.05, None)     # an optional keyword takes None
    with pytest.raises(ParameterError, match=r"^alpha=5: expected a number in \(0, 1\)$"):
        _level(1, alpha=5)
    with pytest.raises(ParameterError, match=r"^k=2\.5: expected an integer in \[1, inf\) or None$"):
        _level(1, k=2.5)
    with pytest.raises(ParameterError, match=r"^alpha=True: expected a number in \(0, 1\)$"):
        _level(1, alpha=True)


def test_none_is_refused_where_the_function_has_no_default():
    assert _cut("run", 4) == 4 and _cut("run", k=4) == 4
    with pytest.raises(ParameterError, match=r"^k=None: expected an integer in \[1, inf\)$"):
        _cut("run", None)


def test_a_default_is_written_once_in_the_signature_and_kept_with_the_declaration():
    assert ALPHA.default is UNSET and repr(UNSET) == "<the function's default>"
    assert _level.params["alpha"].default == 0.05 and _level.params["k"].default is None
    assert _cut.params["k"].required and _cut.params["k"].default is UNSET

    @validate_params(ALPHA)
    def stricter(*, alpha: float = 0.01):
        return alpha
    # the same declaration, each function's own default: the declaration itself is left as it was
    assert stricter.params["alpha"].default == 0.01 and _level.params["alpha"].default == 0.05
    assert ALPHA.default is UNSET
    with pytest.raises(TypeError, match="no parameter 'alpha'"):
        validate_params(ALPHA)(lambda x: x)


def test_a_typed_dict_key_declares_its_own_default():
    class Knobs(TypedDict, total=False):
        alpha: Annotated[float, ALPHA]
    with pytest.raises(AssertionError, match="Knobs.alpha: the Param needs its default"):
        declarations(Knobs)

    class Given(TypedDict, total=False):
        alpha: Annotated[float, ALPHA.but(default=0.05)]
    assert declarations(Given)["alpha"].default == 0.05


def test_every_validated_keyword_of_the_package_takes_its_default_from_its_signature():
    """Walk every function of the package that validates its keywords: the default on the function's
    declaration is its signature's (one place), whatever the shared declaration says."""
    import importlib
    import inspect
    import pkgutil

    seen = 0
    for info in pkgutil.walk_packages(rankmeter.__path__, "rankmeter."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            for func in [obj, *(vars(obj).values() if inspect.isclass(obj) else ())]:
                func = getattr(func, "__func__", func)
                params = getattr(func, "params", None)
                if not isinstance(params, dict) or getattr(func, "__module__", None) != info.name:
                    continue
                signature = inspect.signature(func)
                for name, param in params.items():
                    own = signature.parameters.get(name)
                    if own is None or own.default is inspect.Parameter.empty:
                        continue
                    seen += 1
                    assert param.default == own.default, (info.name, func.__qualname__, name)
    assert seen > 100


def test_measure_parameters_are_the_one_class():
    params = [p for family in REGISTRY.values() for p in family.all_params]
    assert params and all(type(p) is Param for p in params)
    # the measure grammar's message keeps its shape, the expected values in the one vocabulary's words
    with pytest.raises(MeasureError, match=r"^RBP: parameter p=1 is invalid; expected a number in \[0, 1\)$"):
        parse_measure("RBP(p=1)")
    with pytest.raises(MeasureError, match=r"expected an integer in \[1, inf\) or qrels$"):
        parse_measure("RBP(max_grade=0)")
    assert str(parse_measure("RBP(max_grade=qrels)")) == "RBP(max_grade=qrels)"
    assert str(parse_measure("RBP(max_grade=2.0)")) == "RBP(max_grade=2)"


@pytest.mark.parametrize("call, message", [
    (lambda: rankmeter.meta.rbo(["a"], ["a"], p=0), "p=0: expected a number in (0, 1]"),
    (lambda: rankmeter.meta.kendall_tau([1, 2], [1, 2], variant="c"), "variant='c': expected one of 'a', 'b'"),
    (lambda: rankmeter.recsys.beyond.beyond_accuracy({"u": ["i"]}, {"u": ["i"]}, head=1),
     "head=1: expected a number in (0, 1)"),
    (lambda: rankmeter.recsys.beyond.beyond_accuracy({"u": ["i"]}, {"u": ["i"]}, k=0),
     "k=0: expected an integer in [1, inf) or None"),
    (lambda: rankmeter.judged({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", rbp_p=1),
     "rbp_p=1: expected a number in (0, 1)"),
    (lambda: rankmeter.compare_scores({"A": {"m": {"q": 1.0}}, "B": {"m": {"q": 0.0}}}, alpha=1.5),
     "alpha=1.5: expected a number in (0, 1)"),
])
def test_public_functions_refuse_with_the_declared_shape(call, message):
    import rankmeter.recsys.beyond  # noqa: F401 - the attribute paths above
    import rankmeter.meta  # noqa: F401
    with pytest.raises(ParameterError) as refused:
        call()
    assert str(refused.value) == message


@pytest.mark.parametrize("argv, old, new, value", [
    (["judged", "QRELS", "RUN"], "--p", "--rbp-p", "0.5"),
    (["report", "QRELS", "RUN", "-m", "AP", "-o", "OUT.html"], "--explain-queries", "--max-explained", "3"),
    (["nuggets", "FILE"], "--importance-weights", "--weights", "vital=1"),
    (["eval", "QRELS", "RUN", "-m", "AP"], "--format-in", "--input-format", "tsv"),
    (["run", "convert", "RUN", "-o", "OUT"], "--to", "--format", "jsonl"),
    (["fuse", "RUN", "RUN", "-o", "OUT"], "--optimise", "--measure", "AP"),
])
def test_a_renamed_flag_keeps_its_older_spelling_hidden(argv, old, new, value):
    from rankmeter.cli.app import _parser
    parser = _parser()
    via_old = parser.parse_args(argv + [old, value])
    via_new = parser.parse_args(argv + [new, value])
    assert vars(via_old) == vars(via_new)
    help_text = via_new.subparser.format_help()
    assert new in help_text and old + " " not in help_text and old + "\n" not in help_text


def test_a_bad_value_of_an_older_flag_names_it_in_one_line(cli):
    result = cli("judged", "QRELS", "RUN", "--p", "1")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "rankmeter: error: rankmeter judged: argument --p: '1': expected a number in (0, 1)\n"


def _flags_of(*path):
    from rankmeter.cli.app import _parser
    from rankmeter.cli.flags import declared
    return {param.name: param for at, _, param in declared(_parser()) if at == path}


@pytest.mark.parametrize("function, command", [
    ("rankmeter.check.judged:judged", ("judged",)),
    ("rankmeter.recsys.beyond:beyond_accuracy", ("beyond",)),
    ("rankmeter.meta.discrimination:discriminative_power", ("meta", "discriminative-power")),
    ("rankmeter.meta.discrimination:swap_rate", ("meta", "swap-rate")),
    ("rankmeter.meta.design:topic_set_size", ("meta", "topic-set-size")),
    ("rankmeter.meta.correlation:correlations", ("meta", "correlate")),
    ("rankmeter.nuggets.assignments:nugget_scores", ("nuggets",)),
    ("rankmeter.io.runs:sample", ("run",)),
    ("rankmeter.gate.checks:gate", ("gate",)),
    ("rankmeter.stats.compare:compare", ("compare",)),
])
def test_a_function_and_its_command_share_each_declaration(function, command):
    """The same name everywhere: each declared keyword of the function is the flag of its command, made from
    the same declaration (range, default, help) -- a keyword and a flag cannot drift apart."""
    import importlib
    module, name = function.split(":")
    declared_here = getattr(importlib.import_module(module), name).params
    flags = _flags_of(*command)
    from rankmeter.cli.flags import flag
    typed = {n: p for n, p in declared_here.items() if flag(p).offered and p.kind not in ("bool", "strings", "paths")}
    assert typed, function
    for keyword, param in typed.items():
        assert keyword in flags, f"{function}({keyword}=...) has no --{keyword.replace('_', '-')} in {command}"
        flag = flags[keyword]
        assert (flag.kind, flag.low, flag.high, flag.low_open, flag.high_open, flag.choices) == \
            (param.kind, param.low, param.high, param.low_open, param.high_open, param.choices), keyword
        if not param.required:
            assert flag.default == param.default, keyword
