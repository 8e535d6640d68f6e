"""Why two tools' numbers differ: :func:`diff` attributes each per-query difference to the conventions causing it.

The conventions themselves are the peers' models in :mod:`rankmeter.compat.conventions`.
"""
__all__ = ["diff", "load_dicts"]


def __getattr__(name: str):
    if name in __all__:
        from rankmeter.diff import attribution
        return getattr(attribution, name)
    raise AttributeError(f"module 'rankmeter.diff' has no attribute {name!r}")
