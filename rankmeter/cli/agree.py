"""``rankmeter agree HUMAN LLM``: how far two judges (two versions of the judgments) agree.

Over the pairs both judged: Cohen's kappa on the grades, binary kappa at ``--rel``, quadratic-weighted
kappa, Krippendorff's ordinal alpha, the confusion matrix, the same per query, and the pairs each side
judged alone (:func:`rankmeter.analyses.judges.judge_agreement.agreement`).
"""
from __future__ import annotations

from rankmeter.cli.judges import add_agree_arguments as add_arguments  # noqa: F401 - the command's flags
from rankmeter.cli.judges import run_agree as run  # noqa: F401

HELP = ("agreement of two judges (human, LLM): Cohen's kappa, binary and quadratic kappa, Krippendorff's alpha, "
        "confusion matrix, per query")
