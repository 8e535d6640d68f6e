"""Protocol presets: the measures and options a benchmark's own evaluation code scores a run with.

``rankmeter eval QRELS RUN --profile beir`` (and ``compare``, ``gate``), or in Python
``rankmeter.profile("beir").evaluate(qrels, run)``, score a run as the named protocol does: its
measures and cutoffs, its relevance level, whether a doc whose id is the query's is dropped, which
queries the mean is over, how deep a ranking is read. Each preset is read from the protocol's own
evaluation code or track guidelines (docs/why-numbers-differ.md, "Protocol presets", cites them).

Precedence, highest first: an option given explicitly (a keyword, a flag) overrides the profile's;
measures given explicitly (``-m``, ``measures=``) replace the profile's measures (they are not added);
the profile's settings override rankmeter's defaults.

>>> p = profile("beir")
>>> p.main, p.options["ignore_self"]
('nDCG@10', True)
>>> measures, options = p.settings(["RR@10"], ignore_self=False)
>>> measures, options["ignore_self"], options["queries"]
(['RR@10'], False, 'both')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rankmeter.engine.param import Param

__all__ = ["Profile", "PROFILES", "PROFILE", "profile"]


def _at(families: tuple[str, ...], cutoffs: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"{family}@{k}" for family in families for k in cutoffs)


@dataclass(frozen=True)
class Profile:
    """One protocol's conventions: its measures (``main`` first among them) and evaluation options."""

    name: str
    measures: tuple[str, ...]
    main: str
    options: dict = field(default_factory=dict)
    #: digits the protocol's own code rounds its means to (None: not rounded); the CLI prints this many
    decimals: int | None = None
    summary: str = ""

    def settings(self, measures=None, **options: Any) -> tuple[list[str], dict[str, Any]]:
        """The measures and options a run is scored with under this profile (see the module's precedence)."""
        chosen = [measures] if isinstance(measures, str) else list(measures) if measures else list(self.measures)
        return chosen, {**self.options, **options}

    def evaluate(self, qrels, run, measures=None, **options: Any):
        """One run scored under this profile, as :func:`rankmeter.evaluate` scores it (the executor the
        options choose); several runs: :meth:`evaluate_runs`."""
        from rankmeter.core.options import validate_options
        from rankmeter.executors import evaluate_run
        chosen, opts = self.settings(measures, **options)
        return evaluate_run(qrels, run, chosen, validate_options(**opts))

    def evaluate_runs(self, qrels, runs, measures=None, **options: Any):
        """Several runs scored under this profile, the qrels prepared once (:func:`rankmeter.core.evaluate_runs`)."""
        from rankmeter.core.evaluator import evaluate_runs
        chosen, opts = self.settings(measures, **options)
        return evaluate_runs(qrels, runs, chosen, **opts)

    def compare(self, qrels, runs, measures=None, **options: Any):
        """:func:`rankmeter.compare` under this profile (``measures`` default: the profile's main measure)."""
        from rankmeter.stats import compare
        chosen, opts = self.settings(measures or [self.main], **options)
        return compare(qrels, runs, chosen, **opts)

    def describe(self) -> str:
        """One paragraph: the measures and options, as ``rankmeter eval --profile`` applies them."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items()) or "rankmeter's defaults"
        return f"{self.name}: {self.summary} Measures: {', '.join(self.measures)}. Options: {opts}."


_BEIR_K = (1, 3, 5, 10, 100, 1000)
_MTEB_K = (1, 3, 5, 10, 20, 100, 1000)

#: The presets by name.
PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("beir", _at(("nDCG", "AP", "R", "P"), _BEIR_K), "nDCG@10",
            {"ignore_self": True, "queries": "both", "rel": 1, "ties": "trec_eval"}, decimals=5,
            summary="BEIR's EvaluateRetrieval.evaluate: pytrec_eval's ndcg_cut, map_cut, recall and P at k in "
                    "1, 3, 5, 10, 100, 1000 after dropping docs equal to the query id (ignore_identical_ids=True), "
                    "means over the queries pytrec_eval scores (judged and retrieved), rounded to 5 decimals."),
    Profile("mteb", _at(("nDCG", "AP", "R", "P", "Success", "RR"), _MTEB_K), "nDCG@10",
            {"ignore_self": False, "queries": "both", "rel": 1, "ties": "trec_eval"}, decimals=5,
            summary="MTEB's RetrievalEvaluator: pytrec_eval's ndcg_cut, map_cut, recall, P and success at k in "
                    "1, 3, 5, 10, 20, 100, 1000 and its own MRR@k (relevant: grade > 0, ties by doc id "
                    "descending as pytrec_eval), main score nDCG@10, rounded to 5 decimals; ignore_identical_ids "
                    "is off by default and set by the tasks whose corpus holds the queries (ArguAna, FEVER, "
                    "FiQA2018, MSMARCO, Quora, TRECDL ...: add --ignore-self)."),
    Profile("msmarco-dev", ("RR@10",), "RR@10", {"queries": "qrels", "rel": 1}, decimals=None,
            summary="MS MARCO passage dev, the official ms_marco_eval.py: MRR@10 where every qrels line is relevant "
                    "(the dev qrels hold grade 1 only), only the first 10 results read, the sum divided by the "
                    "number of qrels queries (a query the run lacks scores 0). Its run format is qid pid rank: "
                    "read it with --columns query=0,doc=1,rank=2."),
    Profile("trec-dl", ("nDCG@10", "RR", "AP", "R@100", "R@1000"), "nDCG@10",
            {"queries": "qrels", "rel": 2, "max_docs": 1000}, decimals=4,
            summary="TREC Deep Learning passage ranking (2019-2020 judgments graded 0-3): trec_eval -c -M1000 with "
                    "nDCG@10 on the grades and the binary measures (RR, AP, recall) at relevance level 2 (-l 2), "
                    "as the track overview and Anserini's regressions score them; the document task uses --rel 1."),
    Profile("trec-rag", ("nDCG@20", "nDCG@100", "R@100"), "nDCG@20",
            {"queries": "qrels", "rel": 2}, decimals=4,
            summary="TREC 2024 RAG track retrieval (R) task, judgments graded 0-3 (UMBRELA's scale): nDCG@20, "
                    "nDCG@100 and Recall@100 (Upadhyay et al. 2024), trec_eval -c with relevance level 2 for "
                    "recall (-l 2), as Anserini's rag24 regressions score it."),
)}


#: a preset by name: :func:`profile`'s argument and ``--profile NAME``
PROFILE = Param("profile", "choice", None, "score as a protocol does: " + ", ".join(PROFILES) + " (its measures and "
                "options; flags given explicitly win, -m replaces its measures; see docs/why-numbers-differ.md)",
                "evaluation", choices=tuple(PROFILES), metavar="NAME")


def profile(name: str) -> Profile:
    """The protocol preset ``name`` (one of :data:`PROFILES`).

    >>> profile("trec-dl").options["rel"]
    2
    >>> profile("trec")
    Traceback (most recent call last):
    ...
    rankmeter.errors.ParameterError: profile='trec': expected one of 'beir', 'mteb', 'msmarco-dev', 'trec-dl', 'trec-rag'
    """
    return name if isinstance(name, Profile) else PROFILES[PROFILE.check(name)]
