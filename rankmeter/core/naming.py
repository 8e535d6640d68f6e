"""One rule for naming runs, shared by evaluate, compare, report and plots.

A dict of runs is named by its keys. Runs given as a list (or one run) are
named by their run tag when it is non-empty, at most 60 characters and unique among them, else by
their file name, else their path, else ``run<i>``; a name still repeated
gets `` (i)`` with its position.

>>> [name for name, _ in name_runs([{"q": {"a": 1.0}}, {"q": {"b": 1.0}}])]
['run1', 'run2']
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence

from rankmeter.errors import ParameterError
from rankmeter.io.canonical import Run

__all__ = ["name_runs", "unique_names", "looks_like_one_run"]


def _is_path(obj) -> bool:
    return isinstance(obj, (str, bytes, os.PathLike))


def looks_like_one_run(obj: Mapping) -> bool:
    """A dict whose values are rankings ({query: {doc: score}} or {query: [docs]}) is one run, not runs."""
    for value in obj.values():
        if isinstance(value, Mapping):
            return all(not isinstance(v, (Mapping, list, tuple)) for v in value.values())
        return isinstance(value, (list, tuple))
    return False


def _auto_names(loaded: list[Run], given: list) -> list[str]:
    return unique_names([r.name for r in loaded], [r.source for r in loaded], given)


#: a run tag longer than this does not name the run (its file does): a name fits a table's column
_LONGEST_TAG = 60


def unique_names(tags: Sequence[str], sources: Sequence[str], given: Sequence) -> list[str]:
    """The one naming rule (module docstring) for runs with these tags, read from these sources, given as
    ``given`` (paths or objects): what eval, compare, report, JSON and Python all call the runs.

    >>> unique_names(["r", "r"], ["a.run", "b.run"], ["a.run", "b.run"])
    ['a.run', 'b.run']
    >>> unique_names(["bm25", ""], ["x/a.run", "x/b.run"], ["x/a.run", "x/b.run"])
    ['bm25', 'b.run']
    """
    tags = list(tags)
    count = Counter(tags)
    choices = []
    for i, (tag, source, obj) in enumerate(zip(tags, sources, given)):
        names = [tag] if tag and count[tag] == 1 and len(tag) <= _LONGEST_TAG else []
        if _is_path(obj):
            path = os.fsdecode(obj)
            names += [os.path.basename(path) or path, path]
        elif source and not source.startswith("<"):
            names += [os.path.basename(source) or source, source]
        names.append(f"run{i + 1}")
        choices.append(list(dict.fromkeys(names)))
    level = [0] * len(tags)
    while True:
        names = [c[min(lv, len(c) - 1)] for c, lv in zip(choices, level)]
        count = Counter(names)
        clash = [i for i, n in enumerate(names) if count[n] > 1]
        if not clash:
            return names
        if all(level[i] >= len(choices[i]) - 1 for i in clash):
            return [f"{n} ({i + 1})" if count[n] > 1 else n for i, n in enumerate(names)]
        for i in clash:
            level[i] += 1


def name_runs(runs, *, columns: Mapping[str, str] | None = None, input_format: str = "auto") -> list[tuple[str, Run]]:
    """Runs (a dict name -> run, a list of runs/paths, or one run) as (unique name, :class:`Run`) pairs."""
    from rankmeter.io import as_run

    if isinstance(runs, Mapping) and not looks_like_one_run(runs):
        items = [(str(name), as_run(run, columns=columns, input_format=input_format)) for name, run in runs.items()]
        if any(not name for name, _ in items):
            raise ParameterError("runs: every run needs a non-empty name")
    else:
        if _is_path(runs) or isinstance(runs, (Run, Mapping)) or not isinstance(runs, Sequence) \
                and not hasattr(runs, "__iter__"):
            runs = [runs]
        given = list(runs)
        loaded = [as_run(run, columns=columns, input_format=input_format) for run in given]
        items = list(zip(_auto_names(loaded, given), loaded))
    if not items:
        raise ParameterError("runs: give at least one run")
    return items
