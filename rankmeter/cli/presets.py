"""``--profile NAME`` on the commands that score runs: a protocol preset under the flags given explicitly.

A preset (:mod:`rankmeter.compat.profiles`) sets measures and evaluation options; a flag the user typed wins
over it, and ``-m`` replaces its measures. Argparse cannot tell a flag typed with its default value from one
not typed, so :func:`track_given` marks the evaluation flags to record when they are typed.
"""
from __future__ import annotations

from typing import Any

from rankmeter.cli import flags

__all__ = ["add_profile", "track_given", "given", "apply_profile", "NAMES"]

from rankmeter.compat.profiles import PROFILE  # light: the presets' table, no numpy

#: the presets' names (rankmeter.compat.profiles.PROFILES)
NAMES = PROFILE.choices
_GIVEN = "_given_flags"


def add_profile(parser, *, dataset: bool = False) -> None:
    """The ``--profile`` flag (``dataset``: a bare ``--profile`` takes an ir_datasets qrels' own measures)."""
    if dataset:
        flags.add(parser, PROFILE.but(choices=NAMES + ("dataset",), help=PROFILE.help + (
            "; a bare --profile (or 'dataset') adds the official measures and relevance level of the ir_datasets "
            "qrels given, e.g. msmarco-passage/trec-dl-2019/judged (needs ir_datasets: pip install ir_datasets)")))
        bare = parser._option_string_actions["--profile"]
        bare.nargs, bare.const = "?", "dataset"  # a bare --profile: the dataset's own
    else:
        flags.add(parser, PROFILE)
    track_given(parser)


def track_given(parser) -> None:
    """Make every evaluation flag (and ``--decimals``) record on the namespace that it was typed."""
    from rankmeter.core.options import OPTIONS

    for action in parser._actions:
        if action.option_strings and (action.dest in OPTIONS or action.dest == "decimals"):
            base = type(action)

            def call(self, parser, namespace, values, option_string=None, _base=base):
                _base.__call__(self, parser, namespace, values, option_string)
                setattr(namespace, _GIVEN, getattr(namespace, _GIVEN, frozenset()) | {self.dest})
            action.__class__ = type("Given" + base.__name__, (base,), {"__call__": call})


def given(args) -> frozenset:
    """The destinations of the flags typed on the command line (:func:`track_given`)."""
    return getattr(args, _GIVEN, frozenset())


def apply_profile(args, measures) -> tuple[list[str] | None, dict[str, Any], Any]:
    """``(measures, evaluation options, profile or None)`` of the parsed ``args`` under ``--profile``."""
    options = flags.evaluation(args)
    name = getattr(args, "profile", None)
    if name in (None, "dataset"):
        return measures, options, None
    from rankmeter.compat.profiles import profile

    chosen = profile(name)
    typed = given(args)
    explicit = {k: v for k, v in options.items() if k in typed}
    wanted, merged = chosen.settings(measures or None, **explicit)
    return wanted, {**options, **merged}, chosen
