"""Slow reference implementations of the measures (see :mod:`reference.measures`)."""
from .measures import *  # noqa: F401,F403
from .measures import __all__  # noqa: F401
