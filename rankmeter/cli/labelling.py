"""``rankmeter judges label RUN... --queries FILE --docs FILE --base-url URL --model NAME --cache FILE -o OUT``:
LLM labels for the unjudged pairs of the runs' top k (rankmeter.judges.labelling)."""
from __future__ import annotations

import os
import sys

from rankmeter.judges.params import (CONCURRENCY, DRY_RUN, KEY_ENV, MAX_CALLS, MAX_RESPONSE_BYTES, MAX_SAMPLES,
                                     MAX_TOKENS, PRICE_IN, PRICE_OUT, RETRIES, SAMPLES, STABLE_LEVEL, STABLE_ON,
                                     TEMPERATURE, TIME_LIMIT, TIMEOUT, TOP_K, UNTIL_STABLE)
from rankmeter.cli import flags
from rankmeter.core.params import PARAMS


QUERY_TEXTS = flags.declare("queries", "path", None, "the queries' texts: TSV (id<TAB>text), JSON Lines (id, text) or "
                            "irds:NAME (ir_datasets)", required=True, metavar="FILE")
DOC_TEXTS = flags.declare("docs", "path", None, "the documents' texts: TSV (id<TAB>text), JSON Lines (id, text) or "
                          "irds:NAME (ir_datasets: the docs store)", required=True, metavar="FILE")
BASE_URL = flags.declare("base_url", "string", None, "the OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
                         "(vLLM, llama.cpp's server, a hosted API); default: $OPENAI_BASE_URL", optional=True,
                         metavar="URL")
MODEL = flags.declare("model", "string", None, "the model's name as the endpoint knows it (part of the cache's key)",
                      required=True, metavar="NAME")
CACHE = flags.declare("cache", "path", None, "the SQLite cache of answers and ledger of tokens and cost (created "
                      "when missing; another program's database is refused): a rerun makes no call, an interrupted job "
                      "resumes, jobs sharing it call each (pair, draw) once", required=True, metavar="FILE")
EXISTING = flags.declare("qrels", "path", None, "existing judgments: the pairs they judge are not labelled again",
                         metavar="QRELS")
POOL = flags.declare("pool", "path", None, "label the pairs of this pool file (rankmeter pool's query 0 doc -1 lines) "
                     "instead of the runs' top k", metavar="FILE")
PROMPT = flags.declare("prompt", "path", None, "a prompt template file with {query} and {passage}; its answer must end "
                       "with '##final score: N' (default: rankmeter's built-in 0-3 prompt; 'umbrela': UMBRELA's own "
                       "zero-shot prompt, from the installed umbrela package)", metavar="FILE")


def add_parser(kinds) -> None:
    """``judges label``, added to ``rankmeter judges``."""
    p = kinds.add_parser("label", help="LLM labels for the unjudged pairs of the runs' top k (cached, resumable, "
                                       "with a ledger of tokens and cost)")
    from rankmeter.judges.labelling import label

    flags.add(p, PARAMS["runs"].but(required=False, help="the runs whose top-k docs to label (none with --pool)"),
              QUERY_TEXTS, DOC_TEXTS, BASE_URL, MODEL, CACHE, TOP_K, EXISTING, POOL, SAMPLES, CONCURRENCY, KEY_ENV,
              PROMPT, TEMPERATURE, MAX_TOKENS, PRICE_IN, PRICE_OUT, TIMEOUT, RETRIES, TIME_LIMIT, MAX_RESPONSE_BYTES,
              UNTIL_STABLE, MAX_SAMPLES, STABLE_ON, STABLE_LEVEL, PARAMS["rel"].but(help="the grade from "
              "which a draw says relevant, for --until-stable (grades >= rel)"), MAX_CALLS, DRY_RUN,
              PARAMS["output"].but(help="the qrels to write: one line per label (required unless --dry-run)"),
              PARAMS["format"].but(choices=("text", "json")), *flags.READING_FUSING, owner=label)
    p.set_defaults(func=run, subparser=p)


def run(args) -> int:
    from rankmeter.judges.labelling import label
    from rankmeter.errors import ParameterError

    if args.output is None and not args.dry_run:
        raise ParameterError("give -o OUT (the qrels to write), or --dry-run")
    if not args.runs and args.pool is None:
        raise ParameterError("give runs (their top-k docs are labelled) or --pool FILE")
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        raise ParameterError("give --base-url URL (the endpoint, e.g. http://localhost:8000/v1) or set "
                             "OPENAI_BASE_URL")
    got = label(list(args.runs), queries=args.queries, docs=args.docs, base_url=base_url,
                model=args.model, cache=args.cache, output=None if args.dry_run else args.output,
                top_k=args.top_k, qrels=args.qrels, pool=args.pool, samples=args.samples,
                concurrency=args.concurrency, api_key_env=args.api_key_env, prompt=args.prompt,
                temperature=args.temperature, max_tokens=args.max_tokens, price_in=args.price_in,
                price_out=args.price_out, dry_run=args.dry_run, timeout=args.timeout, retries=args.retries,
                time_limit=args.time_limit, max_response_bytes=args.max_response_bytes,
                until_stable=args.until_stable, max_samples=args.max_samples, max_calls=args.max_calls,
                stable_on=args.stable_on, stable_level=args.stable_level, rel=args.rel,
                **flags.keywords(args, ("ties", "columns", "input_format")))
    if args.format == "json":
        flags.write_json(got.to_dict())
        return 0
    calls = len(got.pairs) * got.samples
    if got.dry_run:
        e = got.estimate
        cost = "" if e["cost_at_most"] is None else f", at most {e['cost_at_most']:.4f} in cost"
        more = (f"; --until-stable: at most {e['more_calls_at_most']} more (up to --max-samples {args.max_samples})"
                if args.until_stable else "")
        print(f"{len(got.pairs)} pairs x {got.samples} samples = {calls} labels: {got.cached} cached, {e['calls']} "
              f"calls to make, ~{e['prompt_tokens']} prompt tokens (characters / 4), at most "
              f"{e['completion_tokens_at_most']} completion tokens{cost}{more}; nothing was called")
        return 0
    drawn = sum(got.draws.values())
    if args.until_stable:
        calls = drawn
    t, ledger = got.tokens, got.ledger
    cost = "" if t.get("cost") is None else f", cost {t['cost']:.4f}"
    total = "" if ledger.get("cost") is None else f", cost {ledger['cost']:.4f}"
    shape = (f"{len(got.pairs)} pairs, {min(got.draws.values(), default=0)}-{max(got.draws.values(), default=0)} "
             "draws each" if args.until_stable else f"{len(got.pairs)} pairs x {got.samples}")
    lines = [f"{len(got.labels)} labels of {calls} ({shape}) -> {args.output}: "
             f"{got.cached} from the cache, {got.calls} calls made ({t['prompt_tokens']} prompt + "
             f"{t['completion_tokens']} completion tokens{cost})",
             f"ledger of {args.cache}: {ledger['calls']} calls, {ledger['failed']} failed, "
             f"{ledger['prompt_tokens']} + {ledger['completion_tokens']} tokens{total}"
             + (f" ({ledger['tokens_unknown']} answers of unknown token counts)" if ledger.get("tokens_unknown")
                else "")]
    if len(got.ledger_by_draw) > 1:
        lines.append("ledger by draw: " + ", ".join(f"{r['draw']}: {r['calls']} calls" for r in got.ledger_by_draw))
    if args.until_stable:
        lines.append(f"--until-stable: {len(got.unstable)} pairs still uncertain after their draws (the interval of "
                     f"P(grade >= {args.rel}) holds 1/2{' or no majority grade' if args.stable_on == 'grades' else ''})")
    if got.unparseable:
        lines.append(f"{len(got.unparseable)} answers without a '##final score: N' line (not written; kept in the "
                     "cache, so a rerun does not ask again: change the prompt to ask anew)")
    if got.failures:
        kinds: dict[str, int] = {}
        for f in got.failures:
            kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
        lines.append(f"{len(got.failures)} labels failed (" + ", ".join(f"{k}: {n}" for k, n in kinds.items())
                     + "); run again to retry them (the answers received are cached)")
    sys.stdout.write("\n".join(lines) + "\n")
    return 1 if got.failures else 0
