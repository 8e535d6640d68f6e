"""The optional compiled TREC reader; everything else is declared in pyproject.toml.

``optional=True``: without a C compiler ``pip install .`` still succeeds and every file is read by the
pure path (rankmeter/io/compiled.py says which path is in use).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("rankmeter.io._trecparse", ["rankmeter/io/_trecparse.c"], optional=True,
                             extra_compile_args=["-O3"])])
