"""``rankmeter agree``: how far judges (versions of the judgments, or an LLM's sampled labels) agree.

Two judges (``agree HUMAN LLM``), over the pairs both judged: Cohen's kappa on the grades, binary kappa at
``--rel``, quadratic-weighted kappa, Krippendorff's ordinal alpha, the confusion matrix, the same per query,
and the pairs each side judged alone (:func:`rankmeter.judges.judge_agreement.agreement`). Three
judges or more (``agree J1 J2 J3``), or several sampled labels per pair (``agree --sampled SAMPLES``;
``--labels`` and ``--samples``, its older names, are still read):
Fleiss' kappa and Krippendorff's alpha, nominal, ordinal and interval
(:func:`rankmeter.judges.many_raters.many_rater_agreement`).
"""
from __future__ import annotations

from rankmeter.cli.judges import add_agree_arguments as add_arguments  # noqa: F401 - the command's flags
from rankmeter.cli.judges import run_agree as run  # noqa: F401

HELP = ("agreement of judges (human, LLM, several samples): Cohen's kappa, binary and quadratic kappa, "
        "confusion matrix, per query; Fleiss' kappa and Krippendorff's alpha for three raters or more")
