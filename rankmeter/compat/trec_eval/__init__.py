"""trec_eval's command line as a drop-in: its arguments, help text, ideal-DCG and z-score files."""
