"""BEIR's model (:mod:`rankmeter.compat.beir.model`) and its ``evaluate_custom`` measures
(:func:`rankmeter.compat.beir.custom.evaluate_custom`); ``--profile beir`` and ``diff --as beir`` read both."""
