"""scikit-learn's model: ``ndcg_score`` and kin, their conventions as ``rankmeter diff`` switches them.

``ndcg_score(y_true, y_score, k=)`` sees only the docs it is given (the ideal over their ``y_true``),
averages over tied scores, and averages every row it is given. Its function names: :data:`NAMES`.
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "NAMES"]

#: scikit-learn functions that compute a rankmeter family
NAMES = {"nDCG": "ndcg_score (ideal=run)", "DCG": "dcg_score (log_base)", "AP": "average_precision_score (one query)",
         "AUC": "roc_auc_score (one query)"}

CONVENTION = Convention("sklearn", ties="average", ideal_pool="retrieved", unjudged_query="zero", families=("nDCG",),
                        note="ndcg_score over the retrieved docs' y_true: ideal over them, ties averaged")
