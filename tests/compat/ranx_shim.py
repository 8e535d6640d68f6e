"""Run pytest with ``import ranx`` served by ``rankmeter.compat.ranx`` (the thin import shim for ranx's own tests).

Usage: ``python ranx_shim.py MODULES.json [pytest arguments]``, where MODULES.json lists ranx's module
names (``ranx``, ``ranx.metrics``, ``ranx.metrics.ndcg``, ...) as the installed ranx has them. Each of
those names is served by the drop-in module of the same name, or of its nearest package that the
drop-in has: ``ranx.metrics.ndcg`` (a file holding the function ``ndcg`` in ranx) is
``rankmeter.compat.ranx.metrics``, ``ranx.data_structures.run`` is
``rankmeter.compat.ranx.data_structures``. Nothing else is mapped or patched, and the real ranx is
never imported. ``INTERNALS`` names ranx's private helpers that some of its test files import
beside public functions: they import (so the file's other tests run) and raise if called.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import json
import sys
import types

#: ranx's private helpers its test files import; the tests of these helpers are deselected (test_ranx_suite.py)
INTERNALS = {"ranx.fusion.bayesfuse": ("_estimate_log_odds",), "ranx.fusion.condorcet": ("get_candidates",
                                                                                          "get_results")}


def _internal(module: str, name: str):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"{module}.{name} is a ranx internal, not offered by rankmeter.compat.ranx")
    return missing


class Proxy(types.ModuleType):
    """``ranx.X`` answering with the attributes of a drop-in module."""

    def __init__(self, name: str, target: types.ModuleType):
        super().__init__(name)
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name: str):
        if name in INTERNALS.get(object.__getattribute__(self, "__name__"), ()):
            return _internal(self.__name__, name)
        return getattr(object.__getattribute__(self, "_target"), name)

    def __setattr__(self, name: str, value) -> None:
        # importing ranx.metrics.ndcg (a module) must not hide ranx.metrics.ndcg (the function)
        if isinstance(value, Proxy) and not isinstance(getattr(self._target, name, value), types.ModuleType):
            return
        object.__setattr__(self, name, value)


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, modules: set[str]):
        self.modules = modules

    def find_spec(self, fullname, path, target=None):
        if fullname in self.modules:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        parts = ("rankmeter.compat." + spec.name).split(".")
        for i in range(len(parts), 2, -1):
            try:
                return Proxy(spec.name, importlib.import_module(".".join(parts[:i])))
            except ModuleNotFoundError:
                continue
        raise ImportError(spec.name)

    def exec_module(self, module) -> None:
        pass


def main() -> int:
    with open(sys.argv[1]) as f:
        modules = set(json.load(f))
    sys.meta_path.insert(0, Finder(modules))
    import pytest
    return pytest.main(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
