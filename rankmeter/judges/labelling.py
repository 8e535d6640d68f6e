"""LLM labels for the pool's holes: :func:`label` asks a chat model to grade each unjudged (query, doc) pair.

The pairs are those some run ranks in its top ``top_k`` (in the order of their best rank) that the existing
qrels do not judge, or the pairs of a pool file (``rankmeter pool``'s ``query 0 doc -1`` lines). The texts
come from TSV (``id<TAB>text``) or JSON Lines (``{"id": ..., "text": ...}``) files, or from ir_datasets
(``irds:NAME``). Each pair is put to the model through a prompt template
(:data:`~rankmeter.judges.label_inputs.PROMPT`, written for rankmeter, or a file with ``{query}`` and
``{passage}`` in it) ``samples`` times; the grade is read from the answer's ``##final score: N`` line
(:func:`~rankmeter.judges.label_inputs.parse_grade`, 0 to 3) and nothing else: an answer without one is
recorded as unparseable, never as 0. ``prompt="umbrela"`` uses UMBRELA's own zero-shot prompt, which asks for
the same line, when the ``umbrela`` package is installed. What the job asks (the pairs, the texts, the prompt,
the grade) is :mod:`rankmeter.judges.label_inputs`; this module is the job.

Every answer is cached (:class:`~rankmeter.judges.answer_cache.AnswerCache`) as it arrives, so a rerun
makes no call, an interrupted job resumes where it stopped, jobs sharing the cache call each (pair, draw) once,
and a changed model, prompt, sampling parameter or text asks again. Each draw of a pair has its own place in
the cache (its index is in the key): ``samples=5`` after ``samples=2`` makes three more calls a pair.
``until_stable=True`` then draws more, one a round, only for the pairs whose verdict is uncertain
(:mod:`rankmeter.judges.stopping`). Calls run ``concurrency`` at a time (:mod:`rankmeter.judges.label_calls`);
a failed call (after its retries) is recorded for its pair and the job goes on. The qrels written hold one
line per parsed label (the draws of a pair in draw order: what ``rankmeter judges aggregate`` reads). The
prompt is filled in one pass (:func:`~rankmeter.judges.label_inputs.fill`): a text holding ``{passage}`` is
left as it is.

>>> parse_grade("The passage answers it.\\n##final score: 2")
2
>>> parse_grade("##final score: 7") is None, parse_grade("I would say 2") is None
(True, True)
"""
from __future__ import annotations

import json
import os
import re
import time
import warnings
from dataclasses import dataclass, field

from rankmeter.core.params import PARAMS
from rankmeter.judges.answer_cache import AnswerCache
from rankmeter.judges.stopping import unstable, verdict_interval
from rankmeter.judges.label_calls import Calls
from rankmeter.judges.label_inputs import (PROMPT, fill, label_pairs, parse_grade, prompt_template, read_texts,
                                           umbrela_prompt)
from rankmeter.judges.llm_client import RESPONSE_CAP, ChatClient, cache_key, digest
from rankmeter.judges.params import LABELLING
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["PROMPT", "Labelled", "fill", "label", "label_pairs", "parse_grade", "read_texts", "umbrela_prompt"]

REL = PARAMS["rel"]

@dataclass
class Labelled:
    """What :func:`label` did: the labels per pair and draw, what failed, what it cost."""

    pairs: list[tuple[str, str]]
    samples: int
    labels: dict[tuple[str, str, int], int] = field(default_factory=dict)   # (query, doc, draw) -> grade
    unparseable: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    calls: int = 0                    # calls made now (answered or not)
    cached: int = 0                   # answers taken from the cache (or from a job sharing it)
    tokens: dict = field(default_factory=dict)   # this job's calls: prompt/completion tokens and cost
    ledger: dict = field(default_factory=dict)   # the cache's ledger, every job's calls summed
    dry_run: bool = False
    estimate: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    draws: dict[tuple[str, str], int] = field(default_factory=dict)   # draws made of each pair (0..n-1)
    calls_by_draw: dict[int, int] = field(default_factory=dict)       # this job's calls by draw index
    ledger_by_draw: list[dict] = field(default_factory=list)          # the cache's ledger by draw index
    unstable: list[dict] = field(default_factory=list)                # --until-stable: pairs still uncertain

    def grades(self, q: str, d: str) -> list[int]:
        """The parsed grades of a pair's draws, in draw order."""
        return [self.labels[q, d, s] for s in range(self.draws.get((q, d), self.samples)) if (q, d, s) in self.labels]

    def qrels_lines(self) -> list[str]:
        """``query 0 doc grade`` per parsed label, pairs in order and draws in draw order (several lines per
        pair: what ``judges aggregate`` and ``judges reliability`` read)."""
        return [f"{q} 0 {d} {g}\n" for q, d in self.pairs for g in self.grades(q, d)]

    def to_dict(self) -> dict:
        return {"pairs": len(self.pairs), "samples": self.samples, "labels": len(self.labels),
                "calls": self.calls, "cached": self.cached, "unparseable": self.unparseable,
                "failures": self.failures, "tokens": self.tokens, "ledger": self.ledger,
                "calls_by_draw": {str(k): v for k, v in self.calls_by_draw.items()},
                "ledger_by_draw": self.ledger_by_draw, "unstable": self.unstable,
                "draws": {"min": min(self.draws.values(), default=0), "max": max(self.draws.values(), default=0),
                          "total": sum(self.draws.values())},
                "dry_run": self.dry_run, "estimate": self.estimate, "warnings": self.warnings}


def _price(tokens_in, tokens_out, price_in, price_out) -> float | None:
    """The cost of one call, prices per million tokens; None without prices, or when a priced count is unknown
    (the server's count was not a whole, finite, non-negative number)."""
    if price_in is None and price_out is None:
        return None
    if price_in and tokens_in is None or price_out and tokens_out is None:
        return None
    return ((tokens_in or 0) * (price_in or 0.0) + (tokens_out or 0) * (price_out or 0.0)) / 1e6


@validate_params(*LABELLING, REL)
def label(runs=(), *, queries, docs, base_url: str, model: str, cache, output=None, top_k: int = 10,
          qrels=None, pool=None, samples: int = 1, concurrency: int = 4, api_key: str | None = None,
          api_key_env: str = "OPENAI_API_KEY", prompt=None, temperature: float = 0.0, max_tokens: int = 512,
          price_in: float | None = None, price_out: float | None = None, dry_run: bool = False,
          timeout: float = 60.0, retries: int = 5, backoff: float = 1.0, time_limit: float | None = None,
          max_response_bytes: int = RESPONSE_CAP, until_stable: bool = False, max_samples: int = 10,
          max_calls: int | None = None, stable_on: str = "relevance", stable_level: float = 0.95, rel=1,
          progress: bool | None = None, **options) -> Labelled:
    """Label the unjudged pairs of ``runs``' top ``top_k`` (or of ``pool``) with ``model`` at ``base_url``.

    Parameters
    ----------
    queries, docs : path
        The texts: TSV or JSON Lines (:func:`~rankmeter.judges.label_inputs.read_texts`).
    cache : path
        The SQLite cache and ledger (created when missing); a rerun makes no call. Jobs may share it: each
        (pair, draw) is called once (:mod:`rankmeter.judges.answer_cache`).
    output : path, optional
        The qrels to write (one line per parsed label), through the guarded writer.
    samples : int
        Draws per pair (each a call of its own with its own place in the cache; a temperature above 0 makes
        them differ); more draws later add to the earlier ones.
    until_stable, max_samples, max_calls, stable_on, stable_level, rel
        After ``samples`` draws, one more draw a round for each pair whose verdict ``grade >= rel`` is
        uncertain (:func:`rankmeter.judges.stopping.unstable`), up to ``max_samples`` draws of a pair and
        ``max_calls`` calls of the job.
    price_in, price_out : float, optional
        Price of a million prompt (completion) tokens: the ledger's costs.
    dry_run : bool
        Count the pairs, the calls the cache does not answer and their tokens (characters / 4), call nothing.
    timeout, retries, backoff, time_limit, max_response_bytes
        Seconds a whole try may take, tries after the first, the first wait (doubled each retry), seconds the
        whole job may take, the longest body read.
    options
        Reading the runs (``columns``, ``input_format``, ``ties``).

    Returns
    -------
    Labelled

    Raises
    ------
    rankmeter.io.output.OutputError
        When the cache could not be written mid-run: the qrels are written first, the answers the cache
        could not take are in its journal (the next run imports them), and no more call was made.
    """
    from rankmeter.executors.progress import Progress
    from rankmeter.io.output import OutputError, check_output, output_file

    if not isinstance(base_url, str) or not re.match(r"https?://[^/\s]+", base_url):
        raise ParameterError(f"base_url={base_url!r}: expected an http:// or https:// address, e.g. "
                             "http://localhost:8000/v1")
    if until_stable and max_samples < samples:
        raise ParameterError(f"max_samples={max_samples} is below samples={samples}: --until-stable starts from "
                             "--samples draws and stops at --max-samples")
    from rankmeter.core.options import validate_options

    read_as = validate_options(**options)       # once, before any work: below here the Options object
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    inputs = [*runs] + [p for p in (queries, docs, qrels, pool, prompt, cache) if p not in (None, "umbrela")]
    if output is not None and not dry_run:
        check_output(output, inputs=inputs)
    template = prompt_template(prompt)
    pairs = label_pairs(runs, read_as, top_k=top_k, qrels=qrels, pool=pool)
    query_texts = read_texts(queries, kind="queries", ids={q for q, _ in pairs})
    doc_texts = read_texts(docs, kind="docs", ids={d for _, d in pairs})
    sampling = {"temperature": float(temperature), "max_tokens": int(max_tokens)}
    entry_base = {"template": digest(template), "sampling": json.dumps(sampling, sort_keys=True)}
    result = Labelled(pairs, samples, dry_run=dry_run)
    if samples > 1 and not temperature or until_stable and not temperature:
        result.warnings.append(f"{max_samples if until_stable else samples} samples at temperature 0: a "
                               "deterministic model answers the same each time (give a temperature above 0, "
                               "e.g. 0.7)")
        warnings.warn(result.warnings[-1], stacklevel=2)
    prompts: dict[tuple[str, str], tuple[str, dict]] = {}
    for q, d in pairs:
        if q not in query_texts or d not in doc_texts:
            what = "query" if q not in query_texts else "doc"
            result.failures += [{"query": q, "doc": d, "sample": s, "kind": "missing-text",
                                 "error": f"no text for the {what} in the {what} file"} for s in range(samples)]
            continue
        qd, dd = digest(query_texts[q]), digest(doc_texts[d])
        prompts[q, d] = (fill(template, query=query_texts[q], passage=doc_texts[d]),
                         dict(entry_base, query_digest=qd, doc_digest=dd))

    def job(q, d, s):
        text, entry = prompts[q, d]
        return q, d, s, cache_key(model, entry["template"], sampling, s, entry["query_digest"],
                                  entry["doc_digest"]), text, entry

    jobs = [job(q, d, s) for q, d in prompts for s in range(samples)]
    for q, d in prompts:
        result.draws[q, d] = samples
    lease = (retries + 1) * timeout + retries * 60.0 + 60.0
    store = AnswerCache.open(cache, lease=lease if time_limit is None else min(lease, time_limit + 60.0))
    try:
        if dry_run:
            known = store.known(list({j[3] for j in jobs}))
            todo = list({j[3]: j for j in jobs if j[3] not in known}.values())
            result.cached = sum(j[3] in known for j in jobs)
            tokens_in = sum(len(j[4]) for j in todo) // 4
            more = len(prompts) * (max_samples - samples) if until_stable else 0
            result.estimate = {"calls": len(todo), "prompt_tokens": tokens_in,
                               "completion_tokens_at_most": len(todo) * int(max_tokens),
                               "cost_at_most": _price(tokens_in, len(todo) * int(max_tokens), price_in, price_out),
                               "more_calls_at_most": more}
            result.ledger = store.totals()
            result.ledger_by_draw = store.by_draw()
            return result
        key_value = api_key if api_key is not None else os.environ.get(api_key_env)
        client = ChatClient(base_url, model, api_key=key_value, timeout=timeout, retries=retries, backoff=backoff,
                            max_response_bytes=max_response_bytes, deadline=deadline)

        def on_answer(q, d, s, text, cached):
            result.cached += cached
            _keep(result, q, d, s, text)

        def on_failure(q, d, s, kind, error):
            result.failures.append({"query": q, "doc": d, "sample": s, "kind": kind, "error": error})

        bar = Progress(len(jobs), "labelling", enabled=progress)
        calls = Calls(store=store, client=client, model=model, temperature=temperature, max_tokens=max_tokens,
                      concurrency=concurrency, price=lambda i, o: _price(i, o, price_in, price_out),
                      parse=parse_grade, on_answer=on_answer, on_failure=on_failure, max_calls=max_calls, deadline=deadline,
                      progress=bar)
        try:
            calls.run(jobs)
            while until_stable and not calls.halt.is_set() and not calls.out_of_budget:
                failed = {(f["query"], f["doc"]) for f in result.failures}
                more = [job(q, d, result.draws[q, d]) for q, d in prompts
                        if (q, d) not in failed and result.draws[q, d] < max_samples
                        and unstable(result.grades(q, d), rel=rel, level=stable_level, on=stable_on)]
                if calls.budget is not None:
                    more = more[:max(calls.budget, 0)]
                if not more or deadline is not None and time.monotonic() >= deadline:
                    break
                for q, d, s, *_ in more:
                    result.draws[q, d] = s + 1
                calls.run(more)
        finally:
            bar.close()
        result.calls, result.tokens = calls.calls, calls.spent
        result.calls_by_draw = dict(sorted(calls.calls_by_draw.items()))
        if until_stable:
            result.unstable = [_verdict(result, q, d, rel, stable_level) for q, d in prompts
                               if unstable(result.grades(q, d), rel=rel, level=stable_level, on=stable_on)]
        result.ledger = store.totals()
        result.ledger_by_draw = store.by_draw()
    finally:
        store.close()
    if output is not None:
        with output_file(output, inputs=inputs) as out:
            out.writelines(result.qrels_lines())
    if store.write_error is not None:
        kept = (f"{store.journaled} answers were saved in {store.journal}, which the next run imports"
                if store.journaled else "")
        lost = (f"{len(store.lost)} answers could be saved nowhere (their labels are in the qrels)"
                if store.lost else "")
        raise OutputError(f"{os.fspath(cache)}: the answers cache could not be written ({store.write_error}); "
                          + "; ".join(filter(None, [kept, lost, f"{len(result.labels)} labels written to "
                                                    f"{os.fspath(output)}" if output is not None else ""]))
                          + "; no more calls were made: make room and run again (no answer is paid twice)")
    return result


def _verdict(result: Labelled, q: str, d: str, rel, level: float) -> dict:
    grades = result.grades(q, d)
    k = sum(g >= rel for g in grades)
    lo, hi = verdict_interval(k, len(grades), level)
    return {"query": q, "doc": d, "draws": len(grades), "p_relevant": k / len(grades) if grades else None,
            "interval": [lo, hi]}


def _keep(result: Labelled, q: str, d: str, s: int, text: str) -> None:
    grade = parse_grade(text)
    if grade is None:
        result.unparseable.append({"query": q, "doc": d, "sample": s, "answer": text[-200:]})
    else:
        result.labels[q, d, s] = grade
