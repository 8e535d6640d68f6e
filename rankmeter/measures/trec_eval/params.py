"""How each trec_eval measure name's parameter string (``P.5,10`` -> ``"5,10"``) becomes labelled measures.

Each function here makes (or is) an expander for :class:`rankmeter.measures.trec_eval.TrecMeasure`: the
parameter string, or None for the name alone, to ``[(label, payload)]`` (:data:`Expanded`), the payload a
canonical measure, a :class:`~rankmeter.measures.trec_eval.exact.Derived` value or a ``(mode, name, cutoff)``
tuple for what is computed outside the canonical engine (-R prefs / qrels_jg).
"""
from __future__ import annotations

from typing import Callable

from rankmeter.measures.trec_eval.exact import Derived, ordered_floats, yaap
from rankmeter.errors import MeasureError
from rankmeter.measures.base import Measure

__all__ = [
    "Expanded", "parse_numbers", "expand_cutoffs", "expand_levels", "expand_single", "expand_raw",
    "parse_gain_map", "utility_measure", "set_f_measure", "rbp_measure", "expand_none", "expand_other",
    "expand_jg_cutoffs", "expand_jg_levels", "expand_yaap"]

Expanded = list[tuple[str, "Measure | Derived | tuple"]]


def parse_numbers(name: str, text: str, kind=float) -> list:
    try:
        values = [kind(float(v)) if kind is int else float(v) for v in text.split(",") if v != ""]
    except ValueError:
        raise MeasureError(f"trec_eval measure {name}: cannot read parameters {text!r}; "
                           "expected numbers separated by commas") from None
    if not values:
        raise MeasureError(f"trec_eval measure {name}: empty parameter list")
    return sorted(set(values))


def expand_cutoffs(name: str, family: str, default: list[int], **params) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        ks = default if text is None else parse_numbers(name, text, int)
        return [(f"{name}_{k}", Measure.of(family, params, k)) for k in ks]
    return expand


def expand_levels(name: str, make: Callable[[float], Measure],
                  default: list[float]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        xs = default if text is None else parse_numbers(name, text)
        return [(f"{name}_{x:3.2f}", make(x)) for x in xs]
    return expand


def expand_single(name: str, family: str, **params) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        if text is not None:
            raise MeasureError(f"trec_eval measure {name} takes no parameters (got {text!r})")
        return [(name, Measure.of(family, params))]
    return expand


def expand_raw(name: str, make: Callable[[str | None], Measure]) -> Callable[[str | None], Expanded]:
    """One measure whose label carries the raw parameter string (``utility_2,-1,0,0``)."""
    def expand(text: str | None) -> Expanded:
        return [(name if text is None else f"{name}_{text}", make(text))]
    return expand


def parse_gain_map(name: str, text: str | None) -> dict[int, float]:
    if text is None:
        return {}
    gains = {}
    for item in text.split(","):
        level, sep, gain = item.partition("=")
        try:
            gains[int(level)] = float(gain)
        except ValueError:
            raise MeasureError(f"trec_eval measure {name}: cannot read gain {item!r}; "
                               "expected level=gain pairs such as 1=3,2=9") from None
    return gains


def utility_measure(text: str | None) -> Measure:
    if text is None:
        return Measure.of("Utility")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise MeasureError(f"trec_eval measure utility: cannot read parameters {text!r}; "
                           "expected 4 numbers separated by commas") from None
    if len(values) != 4:
        raise MeasureError(f"trec_eval measure utility takes 4 numbers, got {text!r}")
    return Measure.of("Utility", dict(zip(("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret"), values)))


def set_f_measure(text: str | None) -> Measure:
    """set_F.x as the canonical F with beta = sqrt(x) (the API's well-defined form)."""
    if text is None:
        return Measure.of("F")
    import math
    x = ordered_floats("set_F", text)[0]
    if x < 0:
        raise MeasureError(f"trec_eval measure set_F: the weight must be >= 0, got {text!r}")
    return Measure.of("F", {"beta": math.sqrt(x)})


def rbp_measure(family: str) -> Callable[[str | None], Measure]:
    def make(text: str | None) -> Measure:
        params: dict = {"p": 0.9, "gain": "trec_eval"}
        gains = {}
        for item in (text or "").split(","):
            if not item:
                continue
            key, _, value = item.partition("=")
            if key == "p":
                params["p"] = float(value)
            else:
                gains[int(key)] = float(value)
        if gains:
            params["gain"] = gains
        return Measure.of(family, params)
    return make


def expand_none(text: str | None) -> Expanded:
    """No canonical measure (only `rankmeter trec_eval` computes it, see TrecMeasure.exact)."""
    return []


def expand_other(name: str, mode: str) -> Callable[[str | None], Expanded]:
    """A measure computed outside the canonical engine (-R prefs / qrels_jg): label and name."""
    def expand(text: str | None) -> Expanded:
        if text is not None:
            raise MeasureError(f"trec_eval measure {name} takes no parameters (got {text!r})")
        return [(name, (mode, name, None))]
    return expand


def expand_jg_cutoffs(name: str, default: list[int]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        ks = default if text is None else parse_numbers(name, text, int)
        return [(f"{name}_{k}", ("qrels_jg", name, k)) for k in ks]
    return expand


def expand_jg_levels(name: str, default: list[float]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        xs = default if text is None else parse_numbers(name, text)
        return [(f"{name}_{x:3.2f}", ("qrels_jg", name, x)) for x in xs]
    return expand


def expand_yaap(text: str | None) -> Expanded:
    return [("yaap", yaap(text))]
