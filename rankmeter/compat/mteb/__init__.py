"""MTEB's model (:mod:`rankmeter.compat.mteb.model`): ``--profile mteb`` and ``diff --as mteb`` read it."""
