"""Leaderboards over many collections: ``rankmeter.leaderboard(...)`` ranks systems with intervals, rank
intervals, the group tied with the top, letter groups, win probabilities and corrected pairwise tests.

This package is itself callable: ``rankmeter.leaderboard(source, measures, ...)`` is
:func:`rankmeter.leaderboard.leaderboard` (:mod:`rankmeter.leaderboard.board`).
"""
import sys
import types

from rankmeter.leaderboard.board import PAIR_KEYS, ROW_KEYS, Leaderboard, leaderboard

__all__ = ["leaderboard", "Leaderboard", "ROW_KEYS", "PAIR_KEYS"]


class _Callable(types.ModuleType):
    """The package, callable as its function: ``rankmeter.leaderboard`` is both (Python sets a package's
    attribute to the subpackage on import, so a function of the same name could not stay there)."""

    def __call__(self, *args, **kwargs):
        return leaderboard(*args, **kwargs)


sys.modules[__name__].__class__ = _Callable
__wrapped__ = leaderboard  # inspect.signature(rankmeter.leaderboard) shows the function's
