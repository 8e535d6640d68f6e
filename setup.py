"""The optional compiled TREC reader and id operations; everything else is declared in pyproject.toml.

``optional=True``: without a C compiler ``pip install .`` still succeeds and every file is read by the
pure path (rankmeter/io/compiled.py says which path is in use).
"""
from setuptools import Extension, setup

# both hash ids with rankmeter/engine/_idhash.h (the engine's hash, bit for bit)
setup(ext_modules=[Extension("rankmeter.io._trecparse", ["rankmeter/io/_trecparse.c"], optional=True,
                             include_dirs=["rankmeter/engine"], depends=["rankmeter/engine/_idhash.h"],
                             extra_compile_args=["-O3"]),
                   Extension("rankmeter.engine._idops", ["rankmeter/engine/_idops.c"], optional=True,
                             include_dirs=["rankmeter/engine"], depends=["rankmeter/engine/_idhash.h"],
                             extra_compile_args=["-O3"])])
