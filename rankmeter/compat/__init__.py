"""trec_eval compatibility: names, nicknames, and its exact text output."""
