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
    #: the peer's model (:class:`~rankmeter.compat.convention.Convention`) for a benchmark's own code: a dict run
    #: is read as that code reads it (its empty rankings scored, its scores as C floats where it uses them)
    convention: Any = field(default=None, compare=False, repr=False)

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
        qrels, run, opts = self.as_read(qrels, run, chosen, opts)
        return evaluate_run(qrels, run, chosen, validate_options(**opts))

    def as_read(self, qrels, run, measures, options: dict) -> tuple[Any, Any, dict]:
        """``(qrels, run, options)`` as the benchmark's own code reads a dict run (the model's ``empty_ranking``
        and ``scores``): a judged query named with an empty ranking (``{"q2": {}}``) is scored 0 and averaged,
        as pytrec_eval scores it for BEIR and MTEB, so the mean is over the judged queries the run names; the
        scores are rounded to C floats when every measure is pytrec_eval's. A run read from a file names no
        empty ranking, and its scores are read as doubles."""
        from collections.abc import Mapping
        conv = self.convention
        if conv is None or not isinstance(run, Mapping):
            return qrels, run, options
        from rankmeter.core.resolve import resolve_measures
        per_measure = [conv.for_measure(m) for _, m in resolve_measures(measures)]
        if per_measure and all(c.scores == "float32" for c in per_measure):
            import numpy as np
            with np.errstate(over="ignore"):
                run = {q: dict(zip(docs, np.asarray(list(docs.values()), np.float64).astype(np.float32).tolist()))
                       if isinstance(docs, Mapping) and docs else docs for q, docs in run.items()}
        empty = [q for q, docs in run.items() if hasattr(docs, "__len__") and not len(docs)]
        if conv.empty_ranking != "zero" or not empty or options.get("queries") != "both":
            return qrels, run, options
        named = set(run)
        if isinstance(qrels, Mapping):
            qrels = {q: judged for q, judged in qrels.items() if q in named}
        else:
            import pyarrow as pa
            import pyarrow.compute as pc
            from rankmeter.io import as_qrels
            read = as_qrels(qrels)
            keep = pc.is_in(read.table.column("query"), value_set=pa.array(sorted(named)).cast(read.table.column("query").type))
            qrels = read.table.filter(keep)
        return qrels, run, {**options, "queries": "qrels"}

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


def _of_model(name: str, model) -> Profile:
    """The preset of a benchmark whose evaluation code is modelled beside its drop-ins (its Convention)."""
    conv = model.CONVENTION
    return Profile(name, model.MEASURES, model.MAIN,
                   {"ignore_self": conv.self_id, "queries": "qrels" if conv.missing_query == "zero" else "both",
                    "rel": conv.rel_level, "ties": conv.ties}, decimals=conv.rounding, summary=model.SUMMARY,
                   convention=conv)


def _models() -> tuple[Profile, ...]:
    from rankmeter.compat.beir import model as beir
    from rankmeter.compat.mteb import model as mteb
    return _of_model("beir", beir), _of_model("mteb", mteb)


#: The presets by name.
PROFILES: dict[str, Profile] = {p.name: p for p in (
    *_models(),
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
                choices=tuple(PROFILES))


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
