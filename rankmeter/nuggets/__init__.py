"""RAG nugget scores from nuggetizer's assignment output: :func:`nugget_scores`, :func:`compare_nuggets`.

See :mod:`.assignments` for the file format and the scores.
"""
__all__ = ["MEASURES", "NuggetScores", "compare_nuggets", "nugget_scores", "read_assignments"]


def __getattr__(name: str):
    if name in __all__:
        from rankmeter.nuggets import assignments
        return getattr(assignments, name)
    raise AttributeError(f"module 'rankmeter.nuggets' has no attribute {name!r}")
