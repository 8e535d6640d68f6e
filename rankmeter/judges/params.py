"""The parameters of the LLM-judge analyses, declared once for their functions and ``rankmeter judges``/``agree``.

The analyses validate their keywords with these declarations (:func:`~rankmeter.engine.param.validate_params`)
and the commands make their flags from them, so a keyword and its flag say the same. No numpy here: the command
line reads them before any analysis is imported.
"""
from __future__ import annotations

from rankmeter.engine.param import Param
from rankmeter.stats.params import PERMUTATIONS

__all__ = ["UNIT", "BUDGET", "STRATA", "TARGET", "WIDTH", "DESIGN", "EARLIER_DESIGN", "AGGREGATE", "DRAWS",
           "SAMPLED_LABELS", "RANK_RESAMPLES", "TOP_K_OVERLAP", "TOP_K", "SAMPLES", "CONCURRENCY", "KEY_ENV", "TEMPERATURE", "MAX_TOKENS",
           "PRICE_IN", "PRICE_OUT", "TIMEOUT", "RETRIES", "DRY_RUN", "TIME_LIMIT", "MAX_RESPONSE_BYTES", "UNTIL_STABLE",
           "MAX_SAMPLES", "MAX_CALLS", "STABLE_ON", "STABLE_LEVEL", "LABELLING"]

# estimates and allocation (rankmeter.judges.ppi, .allocation, .design)
UNIT = Param("unit", "choice", help="what HUMAN is a random sample of: whole queries, or (query, doc) pairs "
             "(for measures that are sums over the ranked documents: P@k, DCG@k, RBP); auto: the design's unit with "
             "--design, else queries when every query HUMAN touches has all its LLM-judged pairs within the runs' "
             "depth labelled", choices=("auto", "queries", "pairs"))
BUDGET = Param("budget", "integer", None, "human labels (queries, or pairs with --unit pairs) to spend next", low=1,
               required=True)
STRATA = Param("strata", "integer", help="strata of the LLM's metric the budget is spread over (Neyman)", low=1, high=100)
TARGET = Param("target", "choice", help="what the labels are allocated for: each run's mean, each pair of runs' "
               "difference, or both (the sum of their variances, each relative to its proportional allocation's, "
               "none made larger than that)", choices=("mean", "difference", "both"))
WIDTH = Param("width", "number", None, "a target interval width: how many labelled queries (or pairs) make every "
              "interval the labels are for (each run's mean, each pair's difference) at most that wide", low=0,
              low_open=True, optional=True)
DESIGN = Param("design", "path", None, "the stratified design the human labels were drawn by (the file `judges "
               "allocate -o FILE` wrote): each stratum weighted by its size, as the design needs")
#: allocate's: the design the pilot (HUMAN) was itself drawn by, for a second round
EARLIER_DESIGN = DESIGN.but(help="the design HUMAN's labels were drawn by, when they were allocated by an earlier "
                            "`judges allocate -o FILE` (a second round): its strata are kept, and must be what these "
                            "LLM qrels, runs, measure and --strata give")

# the agreement of the system rankings (rankmeter.judges.ranking): compare's permutations, its bootstrap's resamples
RANK_RESAMPLES = PERMUTATIONS.but(default=1000, low=2, help="bootstrap resamples of the queries (and of each query's "
                                  "draws) for the intervals of tau and tau_ap")

# aggregating sampled labels (rankmeter.judges.sources)
AGGREGATE = Param("method", "choice", help="how a pair's samples become one grade: mode (UMBRELA's: on a tie the "
                  "label seen first), mean (real grades) or median", choices=("mode", "mean", "median"))

# what the labels change (rankmeter.judges.label_impact)
DRAWS = Param("draws", "integer", help="label draws for the interval", low=2, high=1_000_000)

# agreement of several raters (rankmeter.judges.many_raters): the file of sampled labels
SAMPLED_LABELS = Param("sampled", "path", help="instead of judgment files: several sampled labels per pair (TREC "
                       "qrels, one line per sample, as judges aggregate reads): each label is a rating")

# leaderboards (rankmeter.judges.leaderboard_agreement): the overlaps of the top k
TOP_K_OVERLAP = Param("top_k", "numbers", help="top-k overlaps: positive integers",
                      low=1)

# labelling (rankmeter.judges.labelling)
TOP_K = Param("top_k", "integer", help="label the docs some run ranks in its top K", low=1)
SAMPLES = Param("samples", "integer", help="draws per pair, each a call of its own with its own place in the cache "
                "(more draws add to the earlier ones) and one qrels line (for judges aggregate and judges reliability; "
                "give a --temperature above 0); with --until-stable, the draws every pair gets first",
                low=1, high=100)
CONCURRENCY = Param("concurrency", "integer", help="calls under way at once", low=1, high=256)
KEY_ENV = Param("api_key_env", "string", help="the environment variable holding the API key")
TEMPERATURE = Param("temperature", "number", help="the sampling temperature", low=0, high=2)
MAX_TOKENS = Param("max_tokens", "integer", help="the longest answer, in tokens", low=1, high=1_000_000)
PRICE_IN = Param("price_in", "number", help="price of a million prompt tokens (the ledger's cost)",
                 low=0, optional=True)
PRICE_OUT = Param("price_out", "number", help="price of a million completion tokens", low=0,
                  optional=True)
TIMEOUT = Param("timeout", "number", help="seconds a whole try may take (connecting, sending, the headers and the "
                "body): a server still sending at the deadline is cut off", low=0, low_open=True, high=3600)
RETRIES = Param("retries", "integer", help="tries after the first on 429, 5xx and timeouts (exponential backoff)", low=0,
                high=20)
DRY_RUN = Param("dry_run", "bool", help="print the pairs, calls and estimated tokens; call nothing")
TIME_LIMIT = Param("time_limit", "number", help="seconds the whole job may take: no try starts after it and the "
                   "one under way is cut at it; the pairs left are failures a rerun asks for", low=0,
                   low_open=True, optional=True)
MAX_RESPONSE_BYTES = Param("max_response_bytes", "integer", help="the longest response body read (4 MiB): "
                           "a longer one is cut there and recorded as a bad answer", low=1024,
                           high=2 ** 31)
UNTIL_STABLE = Param("until_stable", "bool", help="after --samples draws, draw more only for the pairs whose "
                     "verdict is uncertain (the interval of P(grade >= rel) holds 1/2; with --stable-on grades, "
                     "also a grade distribution without a clear majority), one more a round, up to --max-samples "
                     "and --max-calls")
MAX_SAMPLES = Param("max_samples", "integer", help="the most draws of a pair --until-stable makes", low=1,
                    high=100)
MAX_CALLS = Param("max_calls", "integer", help="the most calls this job makes (a budget): the pairs left are "
                  "failures (kind budget), and --until-stable stops drawing", low=0, optional=True)
STABLE_ON = Param("stable_on", "choice", help="what --until-stable waits for: the relevance verdict "
                  "(grade >= rel), or also the grade distribution (one grade the majority's)",
                  choices=("relevance", "grades"))
STABLE_LEVEL = Param("stable_level", "number", help="the confidence of --until-stable's intervals (Wilson's)", low=0,
                     high=1, low_open=True, high_open=True)
LABELLING = (TOP_K, SAMPLES, CONCURRENCY, KEY_ENV, TEMPERATURE, MAX_TOKENS, PRICE_IN, PRICE_OUT, TIMEOUT, RETRIES,
             DRY_RUN, TIME_LIMIT, MAX_RESPONSE_BYTES, UNTIL_STABLE, MAX_SAMPLES, MAX_CALLS, STABLE_ON, STABLE_LEVEL)
