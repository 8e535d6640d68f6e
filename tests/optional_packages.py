"""Optional packages for the tests: which ones exist, which are oracles, how to install each.

A test module binds an optional package at module level with :func:`optional` instead of
``pytest.importorskip``::

    from optional_packages import optional   # tests/ is on sys.path (tests/conftest.py)
    pytrec_eval = optional("pytrec_eval")

When the package is installed that is the module itself. When it is not, it is a
:class:`Missing` stand-in: the module still imports and collects, and ``tests/conftest.py``
marks exactly the tests whose code (or a helper or fixture of the same module) uses the
name as skipped, with the pip line in the reason. Any other use of the stand-in (in code the
collection hook did not see) skips at that moment; at module level it skips the module,
visibly. Under ``CI`` every such skip fails the run (tests/ALLOWED_SKIPS.md).
"""
from __future__ import annotations

import importlib
import importlib.machinery

import pytest

#: Oracle packages: peer implementations the tests compare rankmeter against (top-level import names).
#: A test that uses one gets the ``oracle`` marker (tests/conftest.py).
ORACLES = {
    "pytrec_eval": "pytrec-eval-terrier",
    "ir_measures": "ir_measures",
    "ranx": "ranx",
    "trectools": "trectools",
    "pyndeval": "pyndeval",
    "cwl": "cwl-eval",
    "torchmetrics": "torchmetrics==1.9.0 (with --no-deps; torch CPU from the local wheels, see .ci/run)",
    "recommenders": "--no-deps recommenders==1.2.0",
    "recbole": "--no-deps recbole==1.2.1",
    "rbo": "--no-deps 'rbo>=0.1'",
    "repro_eval": "--no-deps repro-eval==0.4.0",
    "sklearn": "scikit-learn",
    "statsmodels": "statsmodels",
    "krippendorff": "krippendorff==0.9.0",
    "ppi_py": "--no-deps ppi-python==0.2.3",
}

#: Every optional package a test may need, with the pip argument that installs it.
PIP_NAMES = {
    **ORACLES,
    "torch": "torch (CPU build: pip install --no-index torch, see .ci/run)",
    "pandas": "pandas",
    "polars": "polars",
    "scipy": "scipy",
    "matplotlib": "matplotlib",
    "playwright": "playwright",
    "pyspark": "pyspark",
    "rich": "rich",
    "ir_datasets": "ir_datasets",
    "zstandard": "zstandard",
    "hypothesis": "hypothesis",
    "mkdocs": "mkdocs (the docs tools)",
    "yaml": "pyyaml",
    "jax": "jax",
    "lightning": "lightning",
    "torchmetrics": ORACLES["torchmetrics"],
}


def top_level(module: str) -> str:
    return module.split(".", 1)[0]


def install_hint(module: str) -> str:
    name = top_level(module)
    return f"pip install {PIP_NAMES.get(name, name)}"


def installed(module: str) -> bool:
    """Whether ``module``'s top-level package is on the path, without importing it.

    Looked up on sys.path itself, not through sys.modules: a test that hides a package
    (``sys.modules["x"] = None``) to check rankmeter's message does not make it "not installed".
    """
    try:
        return importlib.machinery.PathFinder.find_spec(top_level(module)) is not None
    except (ImportError, ValueError):
        return False


class Missing:
    """Stands for an optional module that is not installed; any use of it skips, naming the package."""

    def __init__(self, module: str, reason: str | None = None):
        self.__dict__["_module"] = module
        self.__dict__["_reason"] = reason or f"needs {module}, not installed ({install_hint(module)})"

    @property
    def module_name(self) -> str:
        return self.__dict__["_module"]

    @property
    def reason(self) -> str:
        return self.__dict__["_reason"]

    def _skip(self):
        # allow_module_level: a module whose collection itself uses the package is skipped as a whole (visibly)
        raise pytest.skip.Exception(self.reason, allow_module_level=True)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):  # copy, pickle, inspect probe dunders
            raise AttributeError(name)
        self._skip()

    def __call__(self, *args, **kwargs):
        self._skip()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<missing optional module {self.module_name}>"


def optional(module: str, reason: str | None = None):
    """``module`` imported, or a :class:`Missing` stand-in when its package is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if reason is None and installed(module):  # there, but one of its own imports failed: say which
            reason = f"needs {module}, which fails to import ({exc}); {install_hint(module)}"
        return Missing(module, reason)
